"""The kinematic equations ``q' = T(q) e`` of all bodies, vectorized by family.

A body names its family in ``kinematics_group``; bodies of one family are
evaluated with a few array operations, any other body through its own
:meth:`~phmech.bodies.Body.qdot`.  Jacobians always come from the bodies
(exact, dense per body).
"""
import numpy as np

from ..math.rotations import rot3


class _PlanarFrames:
    """``(x, y)' = R(theta) v_P``, ``theta' = omega`` for many planar frames."""

    def __init__(self, items):
        self.q = np.array([[oq, oq + 1, oq + 2] for oq, oe in items], int).reshape(-1, 3).T
        self.e = np.array([[oe, oe + 1, oe + 2] for oq, oe in items], int).reshape(-1, 3).T

    def __call__(self, q, e, out):
        th = q[self.q[2]]
        c, s = np.cos(th), np.sin(th)
        vx, vy = e[self.e[0]], e[self.e[1]]
        out[self.q[0]] = c * vx - s * vy
        out[self.q[1]] = s * vx + c * vy
        out[self.q[2]] = e[self.e[2]]


class _Points:
    """``x' = v`` for point masses."""

    def __init__(self, items, dims):
        self.q = np.concatenate([oq + np.arange(d) for (oq, oe), d in zip(items, dims)]).astype(int)
        self.e = np.concatenate([oe + np.arange(d) for (oq, oe), d in zip(items, dims)]).astype(int)

    def __call__(self, q, e, out):
        out[self.q] = e[self.e]


class _SpatialFrames:
    """``r' = R(p) v_P``, ``p' = 1/2 p (x) (0, omega)`` for many spatial frames."""

    def __init__(self, items):
        self.oq = np.array([oq for oq, oe in items], int)
        self.oe = np.array([oe for oq, oe in items], int)

    def __call__(self, q, e, out):
        for oq, oe in zip(self.oq, self.oe):
            p = q[oq + 3:oq + 7]
            v, w = e[oe:oe + 3], e[oe + 3:oe + 6]
            out[oq:oq + 3] = rot3(p) @ v
            out[oq + 3] = -0.5 * (w @ p[1:])
            out[oq + 4] = 0.5 * (p[0] * w[0] + p[2] * w[2] - p[3] * w[1])
            out[oq + 5] = 0.5 * (p[0] * w[1] + p[3] * w[0] - p[1] * w[2])
            out[oq + 6] = 0.5 * (p[0] * w[2] + p[1] * w[1] - p[2] * w[0])


class Kinematics:
    """Evaluates ``q' = T(q) e`` for every body and its exact Jacobians."""

    def __init__(self, layout):
        self.layout = layout
        families = {}
        self.others = []
        for b in layout.bodies:
            if not b.nq:
                continue
            item = (layout.q_slices[b.name].start, layout.e_slices[b.name].start)
            if b.kinematics_group in ("planar_frame", "point", "spatial_frame"):
                families.setdefault(b.kinematics_group, []).append((item, b))
            else:
                self.others.append(b)
        self.groups = []
        for key, members in families.items():
            items = [it for it, _ in members]
            if key == "planar_frame":
                self.groups.append(_PlanarFrames(items))
            elif key == "point":
                self.groups.append(_Points(items, [b.dim for _, b in members]))
            else:
                self.groups.append(_SpatialFrames(items))

    def qdot_into(self, q, e, out):
        """Write ``T(q) e`` into ``out[:nq]``."""
        for g in self.groups:
            g(q, e, out)
        L = self.layout
        for b in self.others:
            out[L.q_slices[b.name]] = b.qdot(q[L.q_slices[b.name]], e[L.e_slices[b.name]])

    def jacobian_triplets(self, q, e):
        """Triplets of ``d qdot/dq`` and ``d qdot/de`` (rows and columns global in ``y``)."""
        L = self.layout
        rows, cols, vals = [], [], []
        for b in L.bodies:
            if not b.nq:
                continue
            sq, se = L.q_slices[b.name], L.e_slices[b.name]
            for A, c0 in zip(b.qdot_jacobians(q[sq], e[se]), (sq.start, L.nq + se.start)):
                r, c = np.nonzero(A)
                rows.append(r + sq.start)
                cols.append(c + c0)
                vals.append(A[r, c])
        return rows, cols, vals

"""The kinematic equations ``q' = T(q) e`` of the frame families, evaluated for many bodies at once.

A body names its family in :attr:`~phmech.bodies.Body.kinematics_group` (one
of the classes here, or None for its own :meth:`~phmech.bodies.Body.qdot`);
:class:`~phmech.assembly.kinematics.Kinematics` makes one group per family
from the ``(q offset, e offset)`` of its bodies.  A group evaluates
``T(q) e`` (``__call__``) and gives its data (:meth:`kernel_data`) to the kernel
family ``"frames"`` (:data:`FramesData`, :mod:`phmech.kernels.families`), which
the compiled residual calls like every other family.

The frame kinematics and their exact Jacobians are written once, as kernels:
planar frames ``(x, y)' = R(theta) v_P``, ``theta' = omega``
(:func:`planar_frames_qdot`, :func:`planar_frames_jacobian`), point masses
``x' = v`` (:func:`points_qdot`) and spatial frames ``r' = R(p) v_P``,
``p' = 1/2 p (x) (0, omega)`` (:func:`spatial_frames_qdot`,
:func:`spatial_frames_jacobian`, the quaternion rate by
:func:`~phmech.math.rotations.quat_rate_into`).  The bodies' own
:meth:`~phmech.bodies.Body.qdot` and :meth:`~phmech.bodies.Body.qdot_jacobians`,
these groups (hence :meth:`DescriptorDAE.f <phmech.assembly.dae.DescriptorDAE.f>`
and its sparse Jacobian) and the compiled residual all call them.
"""
from collections import namedtuple

import numpy as np

from ..kernels.families import register_family
from ..kernels.jit import borrowed, jit as _jit
from ..math.jacobian_target import jac_add
from ..math.rotations import quadratic_halfgrad_into, quadratic_into, quat_rate_into, quat_rate_jacobian_into


@_jit
def planar_frames_qdot(q, e, pq, pe, out):
    """``out[x, y] = R(theta) v_P``, ``out[theta] = omega`` of every planar frame ``k``: indices
    ``pq[:, k]`` of ``(x, y, theta)`` in ``q`` (and ``out``), ``pe[:, k]`` of ``(v_x, v_y, omega)``
    in ``e`` (both (3, n))."""
    for k in range(pq.shape[1]):
        th = q[pq[2, k]]
        c, s = np.cos(th), np.sin(th)
        vx, vy = e[pe[0, k]], e[pe[1, k]]
        out[pq[0, k]] = c * vx - s * vy
        out[pq[1, k]] = s * vx + c * vy
        out[pq[2, k]] = e[pe[2, k]]


@_jit
def planar_frames_jacobian(q, e, pq, pe, T):
    """Exact ``T[k] = d(x', y', theta') / d(x, y, theta, v_x, v_y, omega)`` (3 x 6) of every planar
    frame of :func:`planar_frames_qdot`."""
    for k in range(pq.shape[1]):
        th = q[pq[2, k]]
        c, s = np.cos(th), np.sin(th)
        vx, vy = e[pe[0, k]], e[pe[1, k]]
        Tk = T[k]
        Tk[:, :] = 0.0
        Tk[0, 2] = -s * vx - c * vy
        Tk[1, 2] = c * vx - s * vy
        Tk[0, 3], Tk[0, 4] = c, -s
        Tk[1, 3], Tk[1, 4] = s, c
        Tk[2, 5] = 1.0


@_jit
def points_qdot(q, e, iq, ie, out):
    """``out[iq] = e[ie]``: the positions' rates of point masses (inertial velocities)."""
    for k in range(iq.size):
        out[iq[k]] = e[ie[k]]


@_jit
def spatial_frames_qdot(q, e, oq, oe, out):
    """``out[oq:oq + 7] = (R(p) v, 1/2 p (x) (0, omega))`` of every frame (offsets ``oq`` in
    ``q``, ``oe`` in ``e``; ``p = q[oq + 3:oq + 7]`` of any norm)."""
    Q = np.empty((3, 3))
    for k in range(oq.size):
        o, f = oq[k], oe[k]
        pw, px, py, pz = q[o + 3], q[o + 4], q[o + 5], q[o + 6]
        n2 = pw * pw + px * px + py * py + pz * pz
        v0, v1, v2 = e[f], e[f + 1], e[f + 2]
        w0, w1, w2 = e[f + 3], e[f + 4], e[f + 5]
        quadratic_into(pw, px, py, pz, Q)
        for a in range(3):
            out[o + a] = (Q[a, 0] * v0 + Q[a, 1] * v1 + Q[a, 2] * v2) / n2
        quat_rate_into(pw, px, py, pz, w0, w1, w2, out, o + 3)


@_jit
def spatial_frames_jacobian(q, e, oq, oe, T):
    """Exact ``T[k] = d qdot / d(q[oq:oq + 7], e[oe:oe + 6])`` (7 x 13) of every frame."""
    Q, dQ = np.empty((3, 3)), np.empty((4, 3, 3))
    for k in range(oq.size):
        o, f = oq[k], oe[k]
        pw, px, py, pz = q[o + 3], q[o + 4], q[o + 5], q[o + 6]
        p = (pw, px, py, pz)
        n2 = pw * pw + px * px + py * py + pz * pz
        v = (e[f], e[f + 1], e[f + 2])
        wx, wy, wz = e[f + 3], e[f + 4], e[f + 5]
        quadratic_into(pw, px, py, pz, Q)
        quadratic_halfgrad_into(pw, px, py, pz, dQ)
        Tk = T[k]
        Tk[:, :] = 0.0
        for a in range(3):
            Qv = Q[a, 0] * v[0] + Q[a, 1] * v[1] + Q[a, 2] * v[2]
            for m in range(4):
                dq = 2.0 * (dQ[m, a, 0] * v[0] + dQ[m, a, 1] * v[1] + dQ[m, a, 2] * v[2])
                Tk[a, 3 + m] = dq / n2 - 2.0 * p[m] * Qv / (n2 * n2)
            for b in range(3):
                Tk[a, 7 + b] = Q[a, b] / n2
        quat_rate_jacobian_into(pw, px, py, pz, wx, wy, wz, Tk[3:7, 3:7], Tk[3:7, 10:13])



@_jit
def scatter_frames_jacobian(T, oq, oe, J, ce):
    """Add the frames' blocks ``T[k]`` (7 x 13: by ``q[oq:oq + 7]`` and ``e[oe:oe + 6]``) to the
    Jacobian target ``J`` (rows and ``q`` columns as in ``q``, the ``e`` columns from ``ce``)."""
    J = borrowed(J)              # no reference counts of the target's arrays in the writes
    for k in range(oq.size):
        for a in range(7):
            for b in range(13):
                jac_add(J, oq[k] + a, oq[k] + b if b < 7 else ce + oe[k] + b - 7, T[k, a, b])


@_jit
def spatial_frames_jacobian_add(q, e, oq, oe, J, ce):
    """:func:`spatial_frames_jacobian` added to the Jacobian target ``J`` (:func:`scatter_frames_jacobian`)."""
    T = np.empty((oq.size, 7, 13))
    spatial_frames_jacobian(q, e, oq, oe, T)
    scatter_frames_jacobian(T, oq, oe, J, ce)


class SpatialFrames:
    """``r' = R(p) v_P``, ``p' = 1/2 p (x) (0, omega)`` for many spatial frames (the kernels above)."""

    kernel_slot = "frames"

    def __init__(self, items, bodies):
        self.oq = np.array([oq for oq, oe in items], np.int64)
        self.oe = np.array([oe for oq, oe in items], np.int64)
        # the pattern of the Jacobian's values (rows in q, columns in q then e)
        r = self.oq[:, None, None] + np.arange(7)[None, :, None]
        c = np.concatenate([self.oq[:, None] + np.arange(7), self.oe[:, None] + np.arange(6)], axis=1)
        self._rows = np.broadcast_to(r, (len(items), 7, 13)).ravel()
        self._cols = np.broadcast_to(c[:, None, :], (len(items), 7, 13)).ravel()
        self._is_e = np.broadcast_to(np.arange(13) >= 7, (len(items), 7, 13)).ravel()

    def __call__(self, q, e, out):
        spatial_frames_qdot(q, e, self.oq, self.oe, out)

    def kernel_data(self):
        return self.oq, self.oe

    def jacobian_triplets(self, q, e, nq):
        """Triplets of ``d qdot/dq`` and ``d qdot/de`` (columns of ``e`` shifted by ``nq``)."""
        T = np.empty((self.oq.size, 7, 13))
        spatial_frames_jacobian(q, e, self.oq, self.oe, T)
        return self._rows, self._cols + nq * self._is_e, T.ravel()


class PlanarFrames:
    """``(x, y)' = R(theta) v_P``, ``theta' = omega`` for many planar frames (the kernels above)."""

    kernel_slot = "frames"

    def __init__(self, items, bodies):
        self.q = np.array([[oq, oq + 1, oq + 2] for oq, oe in items], np.int64).reshape(-1, 3).T.copy()
        self.e = np.array([[oe, oe + 1, oe + 2] for oq, oe in items], np.int64).reshape(-1, 3).T.copy()
        n = len(items)
        self._rows = np.broadcast_to(self.q.T[:, :, None], (n, 3, 6)).ravel()
        self._cols = np.broadcast_to(np.concatenate([self.q.T, self.e.T], axis=1)[:, None, :], (n, 3, 6)).ravel()
        self._is_e = np.broadcast_to(np.arange(6) >= 3, (n, 3, 6)).ravel()

    def __call__(self, q, e, out):
        planar_frames_qdot(q, e, self.q, self.e, out)

    def kernel_data(self):
        return self.q, self.e

    def jacobian_triplets(self, q, e, nq):
        """Triplets of ``d qdot/dq`` and ``d qdot/de`` (columns of ``e`` shifted by ``nq``)."""
        T = np.empty((self.q.shape[1], 3, 6))
        planar_frames_jacobian(q, e, self.q, self.e, T)
        return self._rows, self._cols + nq * self._is_e, T.ravel()


class Points:
    """``x' = v`` for point masses."""

    kernel_slot = "frames"

    def __init__(self, items, bodies):
        dims = [b.nq for b in bodies]          # one body may carry many points (a network)
        self.q = np.concatenate([oq + np.arange(d) for (oq, oe), d in zip(items, dims)]).astype(np.int64)
        self.e = np.concatenate([oe + np.arange(d) for (oq, oe), d in zip(items, dims)]).astype(np.int64)

    def __call__(self, q, e, out):
        points_qdot(q, e, self.q, self.e, out)

    def jacobian_triplets(self, q, e, nq):
        """Triplets of ``d qdot/de = I`` (columns of ``e`` shifted by ``nq``)."""
        return self.q, self.e + nq, np.ones(self.q.size)

    def kernel_data(self):
        return self.q, self.e


#: the frame family's data: indices of the planar frames (``pq``, ``pe``: (3, k)), of the point
#: masses (``iq``, ``ie``) and offsets of the spatial frames (``oq``, ``oe``)
FramesData = namedtuple("FramesData", "pq pe iq ie oq oe")


def _pack_frames(groups, dae):
    """The data of the kinematics groups (at most one of each class), C-ordered: a Fortran-ordered
    index array would compile a second version of every kernel that takes it."""
    i0 = np.zeros(0, np.int64)
    parts = {PlanarFrames: (np.zeros((3, 0), np.int64),) * 2, Points: (i0, i0), SpatialFrames: (i0, i0)}
    for g in groups:
        parts[type(g)] = tuple(np.ascontiguousarray(a, np.int64) for a in g.kernel_data())
    return FramesData(*parts[PlanarFrames], *parts[Points], *parts[SpatialFrames])


@_jit
def has_frames(data):
    """Whether the model has frames or points of this family."""
    return data.pq.shape[1] + data.iq.size + data.oq.size > 0


@_jit
def frames_residual_add(t, q, e, lam, data, out, fe, fl):
    """The rows ``q' = T(q) e`` of the family's frames and points written into ``out``."""
    if data.pq.shape[1]:
        planar_frames_qdot(q, e, data.pq, data.pe, out)
    if data.iq.size:
        points_qdot(q, e, data.iq, data.ie, out)
    if data.oq.size:
        spatial_frames_qdot(q, e, data.oq, data.oe, out)


@_jit
def frames_jacobian_add(t, q, e, lam, data, act, J, nq):
    """The exact derivatives of :func:`frames_residual_add` added to the Jacobian target ``J``."""
    J = borrowed(J)              # no reference counts of the target's arrays in the writes
    pq, pe = data.pq, data.pe
    P = np.empty((pq.shape[1], 3, 6))
    planar_frames_jacobian(q, e, pq, pe, P)
    for k in range(pq.shape[1]):
        for a in range(3):
            for b in range(6):
                jac_add(J, pq[a, k], pq[b, k] if b < 3 else nq + pe[b - 3, k], P[k, a, b])
    for k in range(data.iq.size):
        jac_add(J, data.iq[k], nq + data.ie[k], 1.0)
    spatial_frames_jacobian_add(q, e, data.oq, data.oe, J, nq)


register_family("frames", FramesData, pack=_pack_frames, has=has_frames, residual_add=frames_residual_add,
                jacobian_add=frames_jacobian_add)

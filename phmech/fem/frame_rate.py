"""The frame-rate joint: drives or couples the frame rotation of planar floating bodies.

For the geometrically consistent beam (:mod:`phmech.fem.beam_nonlinear`)
the frame's angular velocity is a function of the state,
``theta' = l(q) . e``; for rigid and linear floating bodies it is the effort
``omega``.  The joint takes the row from the body (``frame_rate(q)``).
"""
import numpy as np

from .._checks import time_function
from ..joints.base import Joint
from ..math.rotations import PlanarAngle


class FrameRate(Joint):
    """Drives or couples the frame rotation ``theta'`` of a floating body.

    One row ``theta_a' - theta_b' = w(t)`` where ``theta'`` is the body's
    frame rate (:meth:`NonlinearFloatingBeam.frame_rate`, ``omega`` for a
    rigid or linear floating body) and ``b`` is another floating body or the
    ground.  Position level: ``theta_a - theta_b - angle(t)``.

    Parameters
    ----------
    a, b : bodies (``b`` None: the ground)
    rate : float or callable ``t -> rate`` [rad/s]
    rate_derivative : callable ``t -> rate'`` (exact initial multipliers); optional
    angle : callable ``t -> angle`` [rad], the integral of ``rate`` (position residual); optional
    """

    kind = "frame rate"
    n_rows = 1

    def __init__(self, a, b=None, rate=None, rate_derivative=None, angle=None, name=None):
        super().__init__(name or f"frame rate {a.name}")
        bad = [f"body '{x.name}' has no planar frame angle" for x in (a, b)
               if x is not None and (getattr(x, "rotation_kind", None) is not PlanarAngle
                                     or getattr(x, "rotation_index", None) != 2)]
        if bad:
            raise ValueError(f"joint '{self.name}': " + "; ".join(bad) + " (FrameRate couples planar "
                             "floating frames; spatial bodies use phmech.joints.spatial drivers)")
        self.a, self.b = a, b
        self._w = time_function(rate, 1, "rate", f"joint '{self.name}'", allow_none=True)
        if rate_derivative is not None:
            self._dw = time_function(rate_derivative, 1, "rate_derivative", f"joint '{self.name}'")
        self._angle = None if angle is None else time_function(angle, 1, "angle", f"joint '{self.name}'")
        self._theta0 = None

    Group = None   # set below

    def ports(self):
        return [b.port(next(iter(b.ports))) for b in (self.a, self.b) if b is not None]

    def bodies(self):
        return [b for b in (self.a, self.b) if b is not None]

    def bind(self, q_of):
        ref = q_of(self.a)[2] - (q_of(self.b)[2] if self.b is not None else 0.0)
        self._theta0 = ref - (self._angle(0.0)[0] if self._angle is not None else 0.0)

    def position_residual(self, q_of, t):
        if self._angle is None and not getattr(self._w, "constant", False):
            return None
        ang = self._angle(t)[0] if self._angle is not None else self._w(0.0)[0] * t
        rel = q_of(self.a)[2] - (q_of(self.b)[2] if self.b is not None else 0.0)
        return np.array([rel - self._theta0 - ang])


def _rate_row(body, q):
    if hasattr(body, "frame_rate"):
        return body.frame_rate(q)
    row = np.zeros(body.ne)
    row[2] = 1.0
    return row, np.zeros(body.nq)


class FrameRateGroup:
    """Evaluates :class:`FrameRate` joints (rows ``l_a(q) e_a - l_b(q) e_b``)."""

    def __init__(self, joints, layout):
        self.layout = layout
        self.items = [(j, layout.lam_slices[j.name].start) for j in joints]
        self.q_of = layout.q_getter

    def _parts(self, j, q):
        L = self.layout
        for body, sign in ((j.a, 1.0), (j.b, -1.0)):
            if body is None:
                continue
            sq, se = L.q_slices[body.name], L.e_slices[body.name]
            row, dq = _rate_row(body, q[sq])
            yield sign, row, dq, sq, se

    def add_G(self, q, G):
        for j, r in self.items:
            for sign, row, _, _, se in self._parts(j, q):
                G[r, se] += sign * row

    def G_triplets(self, q):
        rows, cols, vals = [], [], []
        for j, r in self.items:
            for sign, row, _, _, se in self._parts(j, q):
                nz = np.flatnonzero(row)
                rows.append(np.full(len(nz), r))
                cols.append(se.start + nz)
                vals.append(sign * row[nz])
        cat = lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt)
        return cat(rows, int), cat(cols, int), cat(vals, float)

    def jacobian_triplets(self, q, e, lam):
        gt, ge = [[], [], []], [[], [], []]
        for j, r in self.items:
            for sign, row, dq, sq, se in self._parts(j, q):
                nz_q = np.flatnonzero(dq)
                if not len(nz_q):
                    continue
                om = e[se][2]
                # G e = sign * sigma(q) omega: d/dq = sign omega dsigma; G^T lam on the omega entry
                ge[0].append(np.full(len(nz_q), r))
                ge[1].append(sq.start + nz_q)
                ge[2].append(sign * om * dq[nz_q])
                gt[0].append(np.full(len(nz_q), se.start + 2))
                gt[1].append(sq.start + nz_q)
                gt[2].append(sign * lam[r] * dq[nz_q])
        cat = lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt)
        return tuple(cat(x, d) for x, d in zip(gt, (int, int, float))), \
            tuple(cat(x, d) for x, d in zip(ge, (int, int, float)))


FrameRate.Group = FrameRateGroup

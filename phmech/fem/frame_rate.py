"""The frame-rate joints: drive or couple the frame rotation of floating bodies.

The frame rate of a planar floating body is ``theta' = sigma(q) omega`` with
``sigma = 1 / (1 + g . q)``: ``g = 0`` for rigid and linear floating bodies
(``theta' = omega``), the gauge functional of the frame for the geometrically
consistent beam (:mod:`phmech.fem.beam_nonlinear`).  A body whose frame rate
is not ``omega`` gives ``g`` on its own ``q`` by ``frame_rate_gauge()``; ``omega``
is the third effort of every planar floating body.

A spatial floating frame turns at ``Omega_k = sigma_k(q) omega_k`` about its
axis ``k`` (``omega = e[3:6]``); ``sigma_k = 1`` except for the geometrically
consistent spatial beam (:mod:`phmech.fem.beam3d_nonlinear`), whose transverse
components are scaled by its gauge (``frame_rate_gauge(axis)``).
:class:`FrameRate3` drives one of them; with a joint that holds the other two
(a :func:`~phmech.joints.spatial.Revolute3` about the same axis) it turns the
frame about a fixed axis at a prescribed rate -- the clamp of a blade to a
driven hub.

Every row is a sum of terms ``sign sigma(q) e[col]``; the rows and their
exact derivatives by ``q`` are written once, as the kernels
:func:`frame_rate_G_triplets` and :func:`frame_rate_derivatives`, on the data
the group packs (:meth:`FrameRateGroup.kernel_data`) from the joints' terms
(``frame_rate_terms()``); the assembled right-hand side, its sparse Jacobian
and the compiled residual call them (the compiled Jacobian through
:func:`frame_rates_jacobian_add`).
"""
from collections import namedtuple

import numpy as np

from .._checks import time_function
from ..kernels.jit import borrowed, jit as _jit
from ..joints.base import Joint
from ..joints.constraint_kernels import add_G_jacobian, add_G_terms
from ..kernels.families import register_family
from ..math.gauge import frame_scale
from ..math.jacobian_target import jac_add
from ..math.rotations import PlanarAngle, UnitQuaternion


class FrameRate(Joint):
    """Drives or couples the frame rotation ``theta'`` of a floating body.

    One row ``theta_a' - theta_b' = w(t)`` where ``theta' = sigma(q) omega`` is
    the body's frame rate (see the module docstring; ``omega`` for a rigid or
    linear floating body) and ``b`` is another floating body or the
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

    def frame_rate_terms(self):
        """``[(body, column of the rate in the body's e, gauge g on the body's q, sign)]`` of the row."""
        return [(body, 2, body.frame_rate_gauge() if hasattr(body, "frame_rate_gauge") else np.zeros(body.nq), sgn)
                for body, sgn in ((self.a, 1.0), (self.b, -1.0)) if body is not None]

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


@_jit
def _gauge(q, ptr, gq, gv, m):
    """``sigma = 1 / (1 + g·q)`` of term ``m`` and ``d sigma / d (g·q)``
    (:func:`~phmech.math.gauge.frame_scale`)."""
    x = 0.0
    for k in range(ptr[m], ptr[m + 1]):
        x += gv[k] * q[gq[k]]
    return frame_scale(1.0, 1.0, x)


#: the packed rows (:meth:`FrameRateGroup.kernel_data`)
FrameRateData = namedtuple("FrameRateData", "rows cols sign ptr gq gv")


@_jit
def frame_rate_G_triplets(q, fr):
    """``G(q)`` of the packed rows ``fr`` as triplets ``(rows, cols, values)``: the value
    ``sign_m sigma(q)`` of every term ``m`` at row ``fr[0][m]``, column ``fr[1][m]``,
    ``sigma = 1 / (1 + g·q)``."""
    rows, cols, sign, ptr, gq, gv = fr
    vals = np.empty(rows.size)
    for m in range(rows.size):
        vals[m] = sign[m] * _gauge(q, ptr, gq, gv, m)[0]
    return rows, cols, vals


@_jit
def frame_rate_derivatives(q, fr, vals, dvals):
    """The values of :func:`frame_rate_G_triplets` into ``vals`` and ``dvals[k] = d vals[m] / d q[gq[k]] =
    -sign_m g_k sigma^2`` for the gauge entries ``k`` of every term ``m``."""
    rows, cols, sign, ptr, gq, gv = fr
    for m in range(rows.size):
        s, ds = _gauge(q, ptr, gq, gv, m)
        vals[m] = sign[m] * s
        for k in range(ptr[m], ptr[m + 1]):
            dvals[k] = sign[m] * gv[k] * ds


@_jit
def has_frame_rates(fr):
    """Whether the packed rows ``fr`` hold any term."""
    return fr[0].size > 0


@_jit
def frame_rates_residual_add(t, q, e, lam, fr, out, fe, fl):
    """The rows' terms of the residual: ``G^T lam`` added to the efforts ``fe`` and ``-G e`` to
    the constraint rows ``fl``."""
    R, C, V = frame_rate_G_triplets(q, fr)
    add_G_terms(R, C, V, e, lam, fe, fl)


@_jit
def frame_rates_jacobian_add(t, q, e, lam, fr, act, J, nq):
    """The exact derivatives of the rows' terms ``G^T lam`` and ``-G e`` added to the Jacobian target ``J``
    of the residual (``q`` columns from 0, ``e`` from ``nq``, then ``lam``; ``act`` marks the
    active rows)."""
    J = borrowed(J)              # no reference counts of the target's arrays in the writes
    Fv, dF = np.empty(fr[0].size), np.empty(fr[4].size)
    frame_rate_derivatives(q, fr, Fv, dF)
    cl = nq + e.size
    add_G_jacobian(nq, cl, fr[0], fr[1], Fv, act, J)
    rows, cols, ptr, gq = fr[0], fr[1], fr[3], fr[4]
    for m in range(rows.size):
        for k in range(ptr[m], ptr[m + 1]):
            jac_add(J, nq + cols[m], gq[k], dF[k] * lam[rows[m]])
            if act[rows[m]]:
                jac_add(J, cl + rows[m], gq[k], -dF[k] * e[cols[m]])


class FrameRateGroup:
    """Evaluates :class:`FrameRate` joints (rows ``sigma_a(q) omega_a - sigma_b(q) omega_b``) by
    the kernels above on the data of :meth:`kernel_data`."""

    #: the kernel family of :meth:`kernel_data` (:mod:`phmech.kernels.families`)
    kernel_slot = "frame_rates"

    def __init__(self, joints, layout):
        L = self.layout = layout
        rows, cols, sign, ptr, gq, gv = [], [], [], [0], [], []
        for j in joints:
            for body, col, g, sgn in j.frame_rate_terms():
                g = np.asarray(g, float).ravel()
                if g.shape != (body.nq,) or not np.all(np.isfinite(g)):
                    raise ValueError(f"joint '{j.name}': body '{body.name}' gives the frame-rate gauge {g!r}; "
                                     f"it needs {body.nq} finite numbers, one per entry of its q")
                nz = np.flatnonzero(g)
                rows.append(L.lam_slices[j.name].start)
                cols.append(L.e_slices[body.name].start + col)
                sign.append(sgn)
                gq.append(L.q_slices[body.name].start + nz)
                gv.append(g[nz])
                ptr.append(ptr[-1] + nz.size)
        i64 = lambda x: np.ascontiguousarray(x, np.int64)
        self._data = FrameRateData(i64(rows), i64(cols), np.array(sign, float), i64(ptr),
                                   i64(np.concatenate(gq)) if gq else np.zeros(0, np.int64),
                                   np.concatenate(gv).astype(float) if gv else np.zeros(0))
        #: the term of every gauge entry
        self._term = np.repeat(np.arange(len(rows)), np.diff(ptr)).astype(np.int64)

    def kernel_data(self):
        """``(rows, cols, sign, ptr, gq, gv)``: per term ``m`` of a row, its row in ``lam``, the column
        of ``omega`` in ``e`` and the sign; the gauge ``g`` of term ``m`` as its entries
        ``gv[ptr[m]:ptr[m + 1]]`` at the columns ``gq`` of ``q``."""
        return self._data

    def G_triplets(self, q):
        """``G(q)`` as triplets ``(rows, cols, values)``."""
        return frame_rate_G_triplets(np.asarray(q, float), self._data)

    def add_G(self, q, G):
        r, c, v = self.G_triplets(q)
        np.add.at(G, (r, c), v)

    def jacobian_triplets(self, q, e, lam):
        """``d(G^T lam)/dq`` (rows in ``e``) and ``d(G e)/dq`` (rows in ``lam``) as triplets."""
        fr, m = self._data, self._term
        v, dv = np.empty(fr[0].size), np.empty(fr[4].size)
        frame_rate_derivatives(np.asarray(q, float), fr, v, dv)
        r, c = fr[0][m], fr[1][m]
        return (c, fr[4], dv * lam[r]), (r, fr[4], dv * e[c])


class FrameRate3(Joint):
    """Drives the rotation rate of a spatial floating frame about one of its own axes.

    One row ``Omega_k = w(t)`` with ``Omega_k = sigma_k(q) omega_k`` the frame's angular
    velocity about its axis ``k`` (module docstring; ``omega_k`` for rigid and linear
    floating bodies).  Velocity level only: the frame's angle about a moving axis has no
    position-level form, so a joint holding the other two components (a
    :func:`~phmech.joints.spatial.Revolute3` with the same axis at a port of the body's
    frame origin) keeps the axis fixed; together they clamp the body to a hub driven about
    that axis.

    Parameters
    ----------
    a : spatial floating body (quaternion orientation)
    axis : 0, 1 or 2
        The body axis ``k``.
    rate : float or callable ``t -> rate`` [rad/s]
    rate_derivative : callable ``t -> rate'`` (exact initial multipliers); optional
    """

    kind = "frame rate"
    n_rows = 1
    Group = None   # set below

    def __init__(self, a, axis=2, rate=None, rate_derivative=None, name=None):
        super().__init__(name or f"frame rate {getattr(a, 'name', a)}")
        if getattr(a, "rotation_kind", None) is not UnitQuaternion or a.rotation_index != 3:
            raise ValueError(f"joint '{self.name}': body '{getattr(a, 'name', a)}' has no spatial floating frame "
                             "(FrameRate3 drives the angular velocity e[3:6] of a quaternion frame; planar "
                             "frames use FrameRate)")
        if isinstance(axis, bool) or axis not in (0, 1, 2):
            raise ValueError(f"joint '{self.name}': axis must be the body axis 0, 1 or 2, got {axis!r}")
        self.a, self.b, self.axis = a, None, int(axis)
        self._w = time_function(rate, 1, "rate", f"joint '{self.name}'", allow_none=True)
        if rate_derivative is not None:
            self._dw = time_function(rate_derivative, 1, "rate_derivative", f"joint '{self.name}'")

    def frame_rate_terms(self):
        a, k = self.a, self.axis
        g = a.frame_rate_gauge(k) if hasattr(a, "frame_rate_gauge") else np.zeros(a.nq)
        return [(a, 3 + k, g, 1.0)]

    def ports(self):
        return [self.a.port(next(iter(self.a.ports)))]

    def bodies(self):
        return [self.a]


FrameRate.Group = FrameRate3.Group = FrameRateGroup


def _pack_family(groups, dae):
    """The family's data: the group's packed rows, or none."""
    return (groups[0] if groups else FrameRateGroup([], dae.layout)).kernel_data()


register_family("frame_rates", FrameRateData, pack=_pack_family, has=has_frame_rates,
                residual_add=frame_rates_residual_add, jacobian_add=frame_rates_jacobian_add)

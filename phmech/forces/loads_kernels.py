"""The loads of the packed form ``f = A^T R(q)^T u(t)``: their data and their kernels.

A load whose force is the base class's (:class:`~phmech.forces.loads.Load`: a
constant input matrix ``A`` on a body's effort columns, the input ``u(t)``
in inertial or body components, optionally with chosen body-frame
components scaled by a frame gauge ``sigma(q)`` of :mod:`phmech.math.gauge`,
as the moment on a consistent beam's frame or root) names the slot ``"port_loads"``
(:attr:`~phmech.forces.loads.Load.kernel_slot`) and is evaluated with all such loads
at once: :class:`PackedLoads` gathers their data, :func:`loads_add` gives
the forces and :func:`loads_jacobian_values` their exact derivatives by the
rotation coordinates (planar angle or quaternion).  The compiled residual
and the assembled Jacobian call them; other loads (dampers, custom forces)
keep their own methods.
"""
import numpy as np

from ..kernels.jit import borrowed, inline as _jit_inline, jit as _jit
from ..math.gauge import frame_scale
from ..math.jacobian_target import jac_add
from ..math.rotations import N_ROTATION, ROTATION_CODES as KINDS, quadratic_halfgrad_into, quadratic_into

#: the codes of the follower inputs, given in a node's section axes at a port whose rows are inertial
#: (:meth:`~phmech.bodies.base.Body.follower_frame`): turned by the section's rotation ``R u``, the
#: nine entries of a spatial section (4) or the director ``(cos, sin)`` of a planar one (5)
FOLLOWER_SECTION, FOLLOWER_DIRECTOR = 4, 5
#: rotation coordinates per code
N_ROT = (*N_ROTATION, 9, 2)
#: the slot of the loads of the packed form
PACKED_SLOT = "port_loads"
#: values per effort column in :func:`loads_jacobian_values`: the rotation coordinates, then the gauge's
STRIDE = 10


class PackedLoads:
    """The assembled loads ``(load, q slice, e slice)`` of the packed form, their data and inputs.

    Attributes
    ----------
    packed, others : list
        The loads of the packed form and the others (evaluated by their own methods).
    arrays : tuple
        ``(kind, rot, dim, ptr, cols, AT, gq, gd, gc, gs)`` (``AT``: the rows of ``A^T`` padded to
        3 columns; ``gq[k]``: the ``q`` entry of load ``k``'s gauge, -1 for none, with
        ``sigma = gd / (gd + gc q[gq])``; ``gs[k, i]``: 1 where component ``i`` of load ``k``'s
        body-frame input ``R^T u`` is scaled by ``sigma``, from :meth:`Load.kernel_gauge
        <phmech.forces.loads.Load.kernel_gauge>`).
    """

    def __init__(self, loads):
        self.packed = [item for item in loads if item[0].kernel_slot == PACKED_SLOT]
        self.others = [item for item in loads if item[0].kernel_slot != PACKED_SLOT]
        kind, rot, dim, ptr, cols, AT = [], [], [], [0], [], []
        gq, gd, gc, gs = [], [], [], []
        for ld, sq, se in self.packed:
            k, r, A, c = ld.kernel_data(sq, se)
            g = ld.kernel_gauge(sq)
            gq.append(-1 if g is None else g[0])
            gd.append(1.0 if g is None else g[1])
            gc.append(0.0 if g is None else g[2])
            gs.append(np.zeros(3) if g is None else np.asarray(g[3], float))
            kind.append(k)
            rot.append(r)
            dim.append(A.shape[0])
            cols.append(c)
            block = np.zeros((A.shape[1], 3))
            block[:, :A.shape[0]] = A.T
            AT.append(block)
            ptr.append(ptr[-1] + A.shape[1])
        self.arrays = (np.array(kind, np.int64), np.array(rot, np.int64), np.array(dim, np.int64),
                       np.array(ptr, np.int64),
                       np.concatenate(cols).astype(np.int64) if cols else np.zeros(0, np.int64),
                       np.vstack(AT) if AT else np.zeros((0, 3)), np.array(gq, np.int64),
                       np.array(gd, float), np.array(gc, float),
                       np.array(gs, float).reshape(-1, 3))
        self.constant = all(ld.constant_input for ld, _, _ in self.packed)
        self._fixed = None
        # the pattern of the Jacobian's values (rows: e columns; columns: the rotation
        # coordinates, then the gauge's)
        kind, rot, dim, ptr, cols = self.arrays[:5]
        gq, gs = self.arrays[6], self.arrays[9]
        nrot, o = np.zeros(cols.size, np.int64), np.zeros(cols.size, np.int64)
        gcol = np.full(cols.size, -1, np.int64)
        for k in range(kind.size):
            nrot[ptr[k]:ptr[k + 1]] = N_ROT[kind[k]]
            o[ptr[k]:ptr[k + 1]] = rot[k]
            gcol[ptr[k]:ptr[k + 1]] = gq[k] if np.any(gs[k] != 0) else -1
        m = np.arange(STRIDE - 1)
        keep = np.hstack([m[None, :] < nrot[:, None], (gcol >= 0)[:, None]]).ravel()
        colq = np.hstack([o[:, None] + m[None, :], gcol[:, None]]).ravel()
        self._pattern = (np.repeat(cols, STRIDE)[keep], colq[keep], keep)

    def inputs(self, t):
        """The inputs ``u(t)`` of the packed loads, rows padded to 3."""
        U = np.zeros((len(self.packed), 3))
        for k, (ld, _, _) in enumerate(self.packed):
            u = np.asarray(ld.fun(t), float).ravel()
            U[k, :u.size] = u
        return U

    def kernel_data(self, t):
        """``(*arrays, U)`` with the inputs at ``t`` (built once when no input depends on time)."""
        if self._fixed is not None:
            return self._fixed
        data = (*self.arrays, self.inputs(t))
        if self.constant:
            self._fixed = data
        return data

    def jacobian_triplets(self, t, q):
        """``d f/dq`` of the packed loads as triplets (rows in ``e``, columns in ``q``)."""
        r, c, keep = self._pattern
        vals = np.empty(keep.size)
        loads_jacobian_values(np.asarray(q, float), self.kernel_data(t), vals)
        return r, c, vals[keep]


@_jit_inline
def _gauge_scale(q, loads, k):
    """``(sigma, d sigma / d q[gq[k]])`` of load ``k`` (``(1, 0)`` without a gauge)."""
    gq, gd, gc = loads[6], loads[7], loads[8]
    if gq[k] < 0:
        return 1.0, 0.0
    return frame_scale(gd[k], gc[k], q[gq[k]])


@_jit_inline
def _body_input(q, kind, o, u, ub, Q):
    """``ub = R(q)^T u``, the input in body components (kind 0: no rotation, 1: planar angle
    ``q[o]``, 2: quaternion ``q[o:o + 4]`` with ``R = Q(p) / |p|^2``, ``Q`` filled, 3: the
    section matrix of columns ``q[o:o + 9]``); the followers turn a section-axes input to the
    inertial rows, ``ub = R u`` (4: the section matrix, 5: the director ``(cos, sin) = q[o:o + 2]``);
    returns ``|p|^2`` (1 for the other kinds)."""
    ub[:] = 0.0
    if kind == 0:
        for i in range(3):
            ub[i] = u[i]
        return 1.0
    if kind == 1:
        c, s = np.cos(q[o]), np.sin(q[o])
        ub[0] = c * u[0] + s * u[1]
        ub[1] = -s * u[0] + c * u[1]
        return 1.0
    if kind == 3:
        for i in range(3):
            ub[i] = q[o + 3 * i] * u[0] + q[o + 3 * i + 1] * u[1] + q[o + 3 * i + 2] * u[2]
        return 1.0
    if kind == FOLLOWER_SECTION:
        for i in range(3):
            ub[i] = q[o + i] * u[0] + q[o + 3 + i] * u[1] + q[o + 6 + i] * u[2]
        return 1.0
    if kind == FOLLOWER_DIRECTOR:
        ub[0] = q[o] * u[0] - q[o + 1] * u[1]
        ub[1] = q[o + 1] * u[0] + q[o] * u[1]
        return 1.0
    pw, px, py, pz = q[o], q[o + 1], q[o + 2], q[o + 3]
    n2 = pw * pw + px * px + py * py + pz * pz
    quadratic_into(pw, px, py, pz, Q)
    for i in range(3):
        ub[i] = (Q[0, i] * u[0] + Q[1, i] * u[1] + Q[2, i] * u[2]) / n2
    return n2


@_jit_inline
def has_loads(loads):
    """Whether the packed loads (:meth:`PackedLoads.kernel_data`) have a member (the compiled
    residual calls their kernels only then)."""
    return loads[0].size > 0


@_jit
def loads_add(q, loads, fe):
    """``fe[cols] += A^T R^T u`` of every compiled load (kind 0: no rotation, 1: planar angle,
    2: quaternion ``R = Q(p) / |p|^2``), the gauged components of ``R^T u`` times ``sigma(q)``."""
    kind, rot, dim, ptr, cols, AT, gs, U = loads[0], loads[1], loads[2], loads[3], loads[4], loads[5], \
        loads[9], loads[10]
    ub = np.empty(3)
    Q = np.empty((3, 3))
    for k in range(kind.size):
        _body_input(q, kind[k], rot[k], U[k], ub, Q)
        sigma = _gauge_scale(q, loads, k)[0]
        for i in range(3):
            if gs[k, i] != 0.0:
                ub[i] *= sigma
        for j in range(ptr[k], ptr[k + 1]):
            acc = 0.0
            for i in range(dim[k]):
                acc += AT[j, i] * ub[i]
            fe[cols[j]] += acc


@_jit
def loads_jacobian_values(q, loads, vals):
    """``d(A^T R(q)^T u)/dq`` of the compiled loads: ``vals[S j + m]`` (``S`` = :data:`STRIDE`) is
    the derivative of the force on column ``cols[j]`` by rotation coordinate ``rot[k] + m`` of its
    load ``k`` (zero beyond the kind's coordinates), ``vals[S j + S - 1]`` its derivative by the
    gauge coordinate ``gq[k]`` (zero where the row has no gauge)."""
    kind, rot, dim, ptr, AT, gs, U = loads[0], loads[1], loads[2], loads[3], loads[5], loads[9], loads[10]
    ub = np.empty(3)
    dub = np.empty((3, STRIDE - 1))           # d(R^T u)_i / d(rotation coordinate m)
    Q, dQ = np.empty((3, 3)), np.empty((4, 3, 3))
    vals[:] = 0.0
    for k in range(kind.size):
        u = U[k]
        o = rot[k]
        nrot = N_ROT[kind[k]]
        dub[:, :] = 0.0
        n2 = _body_input(q, kind[k], o, u, ub, Q)
        if kind[k] == 1:                  # d(R^T u)/d theta: (ub_1, -ub_0)
            dub[0, 0] = ub[1]
            dub[1, 0] = -ub[0]
        elif kind[k] == 2:
            pw, px, py, pz = q[o], q[o + 1], q[o + 2], q[o + 3]
            p = (pw, px, py, pz)
            quadratic_halfgrad_into(pw, px, py, pz, dQ)
            for i in range(3):
                for m in range(4):
                    dqu = dQ[m, 0, i] * u[0] + dQ[m, 1, i] * u[1] + dQ[m, 2, i] * u[2]
                    dub[i, m] = 2 * (dqu - p[m] * ub[i]) / n2
        elif kind[k] == 3:                # (R^T u)_i = q[o + 3 i + a] u_a
            for i in range(3):
                for a in range(3):
                    dub[i, 3 * i + a] = u[a]
        elif kind[k] == FOLLOWER_SECTION:  # (R u)_i = q[o + 3 b + i] u_b
            for i in range(3):
                for b in range(3):
                    dub[i, 3 * b + i] = u[b]
        elif kind[k] == FOLLOWER_DIRECTOR:
            dub[0, 0], dub[0, 1] = u[0], -u[1]
            dub[1, 0], dub[1, 1] = u[1], u[0]
        sigma, dsigma = _gauge_scale(q, loads, k)
        for i in range(3):
            if gs[k, i] != 0.0:
                for m in range(nrot):
                    dub[i, m] *= sigma
                ub[i] *= dsigma                 # now d(scaled R^T u)_i / d q[gq]
            else:
                ub[i] = 0.0
        for j in range(ptr[k], ptr[k + 1]):
            for m in range(nrot):
                acc = 0.0
                for i in range(dim[k]):
                    acc += AT[j, i] * dub[i, m]
                vals[STRIDE * j + m] = acc
            acc = 0.0
            for i in range(dim[k]):
                acc += AT[j, i] * ub[i]
            vals[STRIDE * j + STRIDE - 1] = acc


@_jit
def loads_jacobian_add(q, loads, J, r0):
    """:func:`loads_jacobian_values` added to ``J[r0 + cols, q]``."""
    J = borrowed(J)              # no reference counts of the target's arrays in the writes
    kind, rot, ptr, cols, gq = loads[0], loads[1], loads[3], loads[4], loads[6]
    vals = np.empty(STRIDE * cols.size)
    loads_jacobian_values(q, loads, vals)
    for k in range(kind.size):
        for j in range(ptr[k], ptr[k + 1]):
            for m in range(N_ROT[kind[k]]):
                jac_add(J, r0 + cols[j], rot[k] + m, vals[STRIDE * j + m])
            if gq[k] >= 0:
                jac_add(J, r0 + cols[j], gq[k], vals[STRIDE * j + STRIDE - 1])

"""The descriptor DAE's right-hand side, its exact Jacobian and the supplied power, as kernels.

This is the one evaluation of the assembled model: :meth:`DescriptorDAE.f
<phmech.assembly.dae.DescriptorDAE.f>`, :meth:`DescriptorDAE.jacobian
<phmech.assembly.dae.DescriptorDAE.jacobian>` and :meth:`power
<phmech.assembly.energy.EnergyMixin.power>` call it, and the compiled Newton
iterations of the solvers contain it.  :func:`residual_kernel` ``(t, y, model,
inputs, out)`` reads two records: the compiled :data:`Model` (what no call
changes) and the :data:`Inputs` of the call's time (the prescribed velocities
``w(t)`` and the loads' inputs ``u(t)``).  It evaluates

* ``J0 e - sum_slot e[w_slot] K_slot e - R e`` (CSR products);
* the kernel families (:mod:`phmech.kernels.families`), the one road of every
  contribution with a kernel: each family's terms are evaluated by kernels of
  its own module and its data packed by the family -- the kinematics of frames
  and points (:mod:`phmech.bodies.frames`), the planar joints
  (:mod:`phmech.joints.planar`), the spatial and frame-rate joints, the bodies
  with inertial velocities, the beams, the network bodies, the force elements
  with their compiled user laws.  The kernel loops over the data of every
  registered family and calls its kernels; the assembly knows neither the
  families nor their data;
* the loads ``A^T R(q)^T u(t)`` (:mod:`phmech.forces.loads_kernels`);
* the rows of redundant constraints (``-lam_i``).

Each group of kinematics or joints, each body with effort terms and each load
names its family (``kernel_slot``).  Without numba (or with
``NUMBA_DISABLE_JIT=1``) the same kernel source runs as Python.

A contribution that names no family (a user's class with its own ``force``,
``qdot``, ``effort_force`` or joint group; none of phmech's own) has no kernel:
it is a *leftover*, evaluated by its own methods and added to the kernel's values
(:meth:`CompiledResidual.f`, :meth:`CompiledResidual.dense_jacobian`,
:meth:`CompiledResidual.supplied_power`; time-dependent prescribed velocities
are evaluated once per call, they depend on ``t`` only).  That hook is the only
Python part of the evaluation.  :attr:`CompiledResidual.pure` tells whether
there are state-dependent leftovers (a model with some warns once, naming them,
when a solver asks for the compiled residual); without them the whole residual
is the kernel, which is what lets :mod:`phmech.solvers.midpoint` run its Newton
iteration compiled.

The exact dense Jacobian of the kernel is :mod:`phmech.assembly.compiled_jacobian`'s
(:meth:`CompiledResidual.dense_jacobian`, and the iteration matrix of the midpoint
rule); ``tests/kernels/test_every_case_compiled.py`` checks that every validation
case's model has no leftovers.
"""
import warnings
from collections import namedtuple

import numpy as np
import scipy.sparse as sp

from ..joints.constraint_kernels import add_G_terms
from ..kernels.families import (families, family_has, family_port_forces_add, family_residual_add,
                               literal_unroll, pack_all)
from ..forces.loads_kernels import PackedLoads, has_loads, loads_add
from ..kernels.jit import jit as _jit, numba
from ..math.jacobian_target import record_writes
from ..math.sparse_kernels import csr_mv, csr_mv_add
from .compiled_jacobian import jacobian_kernel


class PythonFallbackWarning(UserWarning):
    """Parts of a model have no compiled kernel: its residual is evaluated partly in Python."""


#: the compiled model: what the residual's kernels read and no call changes (:meth:`CompiledResidual.model`).
#: ``nq, ne, nl``: the sizes of ``q``, ``e``, ``lam``; ``J0``, ``R``: CSR ``(indptr, indices, data)``;
#: ``K``: the gyroscopic slots stacked as one CSR of ``nslot * ne`` rows, ``Kw`` the index of each
#: row's weighting effort (``ne`` meaning none); ``X``: ``G`` triplets ``(rows, cols, values)`` of the
#: joint groups without a kernel (empty for a pure model); ``inactive``: the redundant rows;
#: ``families``: the data of every kernel family (:func:`~phmech.kernels.families.pack_all`);
#: ``loads``: the packed loads' arrays (:attr:`PackedLoads.arrays
#: <phmech.forces.loads_kernels.PackedLoads.arrays>`)
Model = namedtuple("Model", "nq ne nl J0 K Kw nslot R X inactive families loads")
#: the inputs of one evaluation at a time ``t``: the prescribed velocities ``w(t)`` and the packed
#: loads' inputs ``u(t)`` (one row of 3 per load; :meth:`CompiledResidual.inputs`)
Inputs = namedtuple("Inputs", "w u")


@_jit
def power_kernel(t, y, model, inputs):
    """``w·lam + e·f_loads - e·R e``: the power supplied through the ports
    (:meth:`~phmech.assembly.energy.EnergyMixin.power` of a system without leftovers;
    each family's port forces count)."""
    nq, ne = model.nq, model.ne
    q = y[:nq]
    e = y[nq:nq + ne]
    lam = y[nq + ne:]
    w = inputs.w
    P = 0.0
    for i in range(lam.size):
        P += w[i] * lam[i]
    fl = np.zeros(ne)
    if has_loads(model.loads):
        loads_add(q, model.loads + (inputs.u,), fl)
    for data in literal_unroll(model.families):
        if family_has(data):
            family_port_forces_add(t, q, e, data, fl)
    Rp, Ri, Rd = model.R
    if Rp.size > 1:
        csr_mv_add(Rp, Ri, Rd, e, fl, -1.0)
    for i in range(ne):
        P += e[i] * fl[i]
    return P


@_jit
def power_rows_kernel(ts, Y, model, W, U, out):
    """:func:`power_kernel` at each time ``ts[j]`` and row ``Y[j]`` with the prescribed velocities
    ``W[j]`` and the loads' inputs ``U[j]`` (``U[0]`` for all when ``U`` has one row) into ``out[j]``."""
    one = U.shape[0] == 1
    for j in range(Y.shape[0]):
        out[j] = power_kernel(ts[j], Y[j], model, Inputs(W[j], U[0] if one else U[j]))


@_jit
def residual_kernel(t, y, model, inputs, out):
    """The compiled part of ``f(t, y)`` written into ``out`` (see the module docstring):
    the :data:`Model` ``model`` with the :data:`Inputs` ``inputs`` at ``t``."""
    nq, ne = model.nq, model.ne
    q = y[:nq]
    e = y[nq:nq + ne]
    lam = y[nq + ne:]
    # efforts: J(e) e - R e + G^T lam
    fe = np.zeros(ne)
    J0p, J0i, J0d = model.J0
    csr_mv_add(J0p, J0i, J0d, e, fe, 1.0)
    if model.nslot:
        Kp, Ki, Kd = model.K
        Kw = model.Kw
        Ke = csr_mv(Kp, Ki, Kd, e)                 # K_slot e of the slots, stacked
        for s in range(model.nslot):
            for i in range(ne):
                r = s * ne + i
                if Kw[r] < ne:
                    fe[i] -= e[Kw[r]] * Ke[r]
    Rp, Ri, Rd = model.R
    if Rp.size > 1:
        csr_mv_add(Rp, Ri, Rd, e, fe, -1.0)
    fl = inputs.w.copy()
    Xr, Xc, Xv = model.X
    add_G_terms(Xr, Xc, Xv, e, lam, fe, fl)
    # the families: kinematics (every q row), joints, bodies, force elements
    for data in literal_unroll(model.families):
        if family_has(data):
            family_residual_add(t, q, e, lam, data, out, fe, fl)
    inactive = model.inactive
    for i in range(inactive.size):
        fl[inactive[i]] = -lam[inactive[i]]
    if has_loads(model.loads):
        loads_add(q, model.loads + (inputs.u,), fe)
    out[nq:nq + ne] = fe
    out[nq + ne:] = fl


def _csr(A, shape):
    A = sp.csr_matrix(A if A is not None else (shape[0], shape[1]))
    A.sort_indices()
    return (A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data.astype(float))


class CompiledResidual:
    """``f(t, y)`` of a :class:`~phmech.assembly.dae.DescriptorDAE` through :func:`residual_kernel`.

    The kinematics groups, joint groups, bodies with effort terms and loads with a
    kernel name their slot of the kernel (``kernel_slot``): a slot of the
    kernel's own arguments (whose groups give its data, ``kernel_data()``, as the
    loads of the packed form do, :class:`~phmech.forces.loads_kernels.PackedLoads`) or
    a kernel family, which packs its members' data itself
    (:mod:`phmech.kernels.families`); the assembly never asks for their types.
    Contributions without a kernel are the Python leftovers (a
    :class:`PythonFallbackWarning` names them once).

    Attributes
    ----------
    pure : bool
        No state-dependent leftovers: the kernel alone is the residual
        (given ``w(t)``).
    leftovers : list of str
        What is evaluated in Python (for the record and the benchmarks).
    path : str
        The path the solvers take: ``"compiled"`` (pure) or ``"python"`` (the
        :meth:`~phmech.assembly.dae.DescriptorDAE.f` of the model; the kernel plus
        the leftovers in :meth:`f` is its check).
    """

    def __init__(self, dae):
        self.dae = d = dae
        self.leftovers = []
        i0 = np.zeros(0, np.int64)
        #: the members of the kernel families (:mod:`phmech.kernels.families`)
        members = {fam.name: [] for fam in families()}
        self.other_kin_groups, self.other_groups = [], []

        def joins(item, contribution):
            """Whether ``contribution`` names a kernel family (then ``item`` is its member)."""
            group = members.get(getattr(contribution, "kernel_slot", None))
            if group is not None:
                group.append(item)
            return group is not None

        for g in d.kinematics.groups:
            if not joins(g, g):
                self.other_kin_groups.append(g)
                self.leftovers.append(f"kinematics group {type(g).__name__}")
        for g in d.joint_groups:
            if not joins(g, g):
                self.other_groups.append(g)
                self.leftovers.append(f"joint group {type(g).__name__}")
        # bodies with effort terms: a family's kernels give their effort terms and kinematics
        self.effort, compiled_bodies = [], set()
        for item in d.effort_bodies:
            if joins(item, item[0]):
                compiled_bodies.add(id(item[0]))
            else:
                self.effort.append(item)
        # bodies with their own kinematics: of a family, or left over
        self.other_kin = []
        for b in d.kinematics.others:
            item = (b, d.layout.q_slices[b.name], d.layout.e_slices[b.name])
            if id(b) not in compiled_bodies and not joins(item, b):
                self.other_kin.append(item)
        self.leftovers += [f"kinematics of '{b.name}'" for b, _, _ in self.other_kin]
        ne = d.ne
        self.J0 = _csr(d.J0, (ne, ne))
        self.R = _csr(d.R if d.has_R else None, (ne, ne))
        if not d.has_R:
            self.R = (np.zeros(1, np.int64), i0, np.zeros(0))
        gyro = d.gyro_slots
        nslot = len(gyro)
        if nslot:
            self.K = _csr(sp.vstack([sp.csr_matrix(K) for K, _ in gyro]), (nslot * ne, ne))
            self.Kw = np.concatenate([w_row for _, w_row in gyro]).astype(np.int64)
        else:
            self.K = (np.zeros(1, np.int64), i0, np.zeros(0))
            self.Kw = i0
        self.nslot = nslot
        self.leftovers += [f"effort terms of '{b.name}'" for b, _, _ in self.effort]
        self.packed_loads = PackedLoads(d.loads)
        #: the loads not of the packed form (DescriptorDAE.jacobian takes their Jacobians from their
        #: own methods); those of a kernel family are in the kernel, the others are leftovers
        self.loads = self.packed_loads.others
        self.other_loads = [item for item in self.loads if not joins(item, item[0])]
        self.leftovers += [f"load '{ld.name}'" for ld, _, _ in self.other_loads]
        # the force elements: a kernel family (user laws compiled)
        self.forces = d.forces
        joins(self.forces, self.forces)
        self.leftovers += self.forces.leftovers
        #: the data of every kernel family, in the order of :func:`phmech.kernels.families.families`
        self.families = pack_all(members, d)
        self.pure = not (self.other_kin or self.other_kin_groups or self.other_groups or self.effort
                         or self.other_loads or self.forces.leftovers)
        self.path = "compiled" if self.pure and numba is not None else "python"
        #: the dense Jacobian is compiled too
        self.has_jacobian = self.pure
        self._no_x = (i0, i0, np.zeros(0))
        self._model = None
        self._inactive = (None, i0)
        self._recorded = {}               # the sparse Jacobian's recorded writes by the redundant rows
        self._warned = False

    def warn_leftovers(self, stacklevel=4):
        """Warn once (:class:`PythonFallbackWarning`) when parts of the model have no kernel."""
        if not self.pure and not self._warned:
            self._warned = True
            warnings.warn("the model's residual is evaluated in Python (not compiled): no kernel for "
                          + ", ".join(self.leftovers), PythonFallbackWarning, stacklevel=stacklevel)

    def extra_G(self, q):
        """``G`` triplets of the joint groups without a kernel."""
        if not self.other_groups:
            return self._no_x
        parts = [g.G_triplets(q) for g in self.other_groups]
        return tuple(np.concatenate([p[i] for p in parts]).astype(dt) for i, dt in
                     enumerate((np.int64, np.int64, float)))

    def load_args(self, t):
        """The packed loads with their inputs ``u(t)`` (rows padded to 3; built once when no
        input depends on time, as gravity's): :meth:`PackedLoads.kernel_data
        <phmech.forces.loads_kernels.PackedLoads.kernel_data>`."""
        return self.packed_loads.kernel_data(t)

    def step_inputs(self, ts):
        """The prescribed velocities ``W`` (``(m, nl)``) and the loads' inputs ``U`` at the times
        ``ts`` (:func:`~phmech.solvers.midpoint_kernels.midpoint_steps`): ``(m, loads, 3)``, or one
        row ``(1, loads, 3)`` when no input depends on time.  ``m`` is the number of leading times
        where every function evaluates: at the first time that raises, the step runs alone and
        reports it."""
        d, pl = self.dae, self.packed_loads
        if pl.constant and not d.w_depends_on_time:     # the same at every time: no call per step
            return np.repeat(np.asarray(d.w(0.0), float)[None], len(ts), axis=0), pl.kernel_data(0.0)[-1][None]
        W, U = [], []
        for t in ts:
            t = float(t)
            try:
                w = d.w(t)
                u = None if pl.constant else pl.inputs(t)
            except (ValueError, ArithmeticError):
                break
            W.append(w)
            U.append(u)
        m = len(W)
        W = np.array(W, float).reshape(m, d.nl)
        U = pl.kernel_data(0.0)[-1][None] if pl.constant else np.array(U, float).reshape(m, len(pl.packed), 3)
        return W, U

    def load_jacobian_triplets(self, t, q):
        """``d f_loads/dq`` of the packed loads as triplets (rows in ``e``, columns in ``q``)."""
        return self.packed_loads.jacobian_triplets(t, q)

    def inactive(self):
        """Indices of the redundant constraint rows (the DAE's ``active`` mask, which the
        consistent start may change; recomputed when it does)."""
        mask = self.dae.active.tobytes()
        if self._inactive[0] != mask:
            self._inactive = (mask, np.flatnonzero(~self.dae.active).astype(np.int64))
        return self._inactive[1]

    def model(self, X=None):
        """The :data:`Model` record of the kernels (``X``: the ``G`` triplets of the joint groups
        without a kernel at the call's ``q``; the redundant rows as the DAE's ``active`` mask says)."""
        d = self.dae
        inactive = self.inactive()
        if self._model is None or self._model[0] is not inactive:
            self._model = (inactive, Model(d.nq, d.ne, d.nl, self.J0, self.K, self.Kw, self.nslot, self.R,
                                           self._no_x, inactive, self.families, self.packed_loads.arrays))
        model = self._model[1]
        return model if X is None else model._replace(X=X)

    def inputs(self, t):
        """The :data:`Inputs` record at ``t``: ``w(t)`` and the loads' inputs ``u(t)``."""
        return Inputs(np.asarray(self.dae.w(t), float), self.load_args(t)[-1])

    def power(self, y, t):
        """Supplied power at ``y`` of the kernel's parts, with the prescribed velocities and load
        inputs at ``t``."""
        return power_kernel(float(t), np.ascontiguousarray(y, float), self.model(), self.inputs(t))

    def supplied_power(self, t, y):
        """``w . lam + e . f_loads - e . R e`` at ``(t, y)`` with the force elements' and the
        families' port forces: the kernel's power plus that of the loads left over."""
        t, y = float(t), np.ascontiguousarray(y, float)
        return self.power(y, t) + self._other_loads_power(t, y)

    def _other_loads_power(self, t, y):
        """The power of the loads left over (their own ``force``) at ``(t, y)``."""
        d = self.dae
        q, e = y[d.sq], y[d.se]
        return sum(float(e[se][ld.cols] @ ld.force(t, q[sq], e[se])) for ld, sq, se in self.other_loads)

    def supplied_powers(self, ts, Y):
        """:meth:`supplied_power` at the times ``ts`` and states ``Y`` (rows), in one call of the
        kernel for the times where every input evaluates."""
        d = self.dae
        ts = np.asarray(ts, float)
        Y = np.ascontiguousarray(Y, float).reshape(ts.size, d.n)
        P = np.empty(ts.size)
        W, U = self.step_inputs(ts)
        m = W.shape[0]
        if m:
            power_rows_kernel(np.ascontiguousarray(ts[:m]), Y[:m], self.model(), np.ascontiguousarray(W),
                              np.ascontiguousarray(U), P[:m])
        for k in range(m, ts.size):       # an input that raises: the one call says where
            P[k] = self.power(Y[k], float(ts[k]))
        if self.other_loads:
            P += [self._other_loads_power(t, y) for t, y in zip(ts, Y)]
        return P

    def jacobian(self, y, t=None):
        """Dense ``df/dy`` at ``(t, y)`` of a pure system (no leftovers; ``w`` does not depend
        on ``y``).  ``t`` is needed only for the loads' inputs ``u(t)``."""
        if not self.has_jacobian:
            raise ValueError("compiled jacobian: only for systems without Python leftovers "
                             f"({', '.join(self.leftovers)})")
        if t is None and self.packed_loads.packed:
            raise ValueError("compiled jacobian: the system has loads, give the time t of their inputs")
        return self.dense_jacobian(0.0 if t is None else t, y)

    def dense_jacobian(self, t, y):
        """Dense exact ``df/dy`` at ``(t, y)``: :func:`~phmech.assembly.compiled_jacobian.jacobian_kernel`
        plus the leftovers' own derivatives."""
        d = self.dae
        t, y = float(t), np.ascontiguousarray(y, float)      # one compiled version: float t, C-ordered y
        J = np.zeros((d.n, d.n))
        X = self.extra_G(y[d.sq]) if self.other_groups else None
        jacobian_kernel(t, y, self.model(X), self.inputs(t), J)
        if not self.pure:
            self._leftover_jacobian(t, y, J)
        return J

    def sparse_jacobian(self, t, y):
        """Sparse exact ``df/dy`` at ``(t, y)`` (CSR): the same kernels as
        :meth:`dense_jacobian`, their writes scattered into CSR in the order recorded once
        (:mod:`phmech.math.jacobian_target`; recorded again when the redundant rows change or a
        state writes otherwise), plus the leftovers' own derivatives."""
        d = self.dae
        t, y = float(t), np.ascontiguousarray(y, float)
        X = self.extra_G(y[d.sq]) if self.other_groups else None
        model, inputs = self.model(X), self.inputs(t)
        for fresh in (False, True):
            writes = self._writes(t, y, model, inputs, fresh)
            target = writes.target()
            jacobian_kernel(t, y, model, inputs, target)
            if writes.values_complete(target):
                break
        J = sp.csr_matrix((target[2], writes.indices, writes.indptr), shape=(d.n, d.n))
        if not self.pure:
            r, c, v = self._leftover_triplets(t, y)
            J = J + sp.csr_matrix((v, (r, c)), shape=(d.n, d.n))
        return J

    def _writes(self, t, y, model, inputs, fresh):
        """The recorded writes of the kernels' Jacobian (by the redundant rows; ``fresh``:
        recorded again at ``(t, y)``)."""
        d = self.dae
        key = d.active.tobytes()
        kept = self._recorded.get(key)
        if kept is None or fresh:
            room = kept.slot.size if kept is not None else 2 * (self.J0[1].size + self.R[1].size) + 32 * d.n
            kept = self._recorded[key] = record_writes(lambda target: jacobian_kernel(t, y, model, inputs, target),
                                                       d.n, room)
        return kept

    def _leftover_jacobian(self, t, y, J):
        """The derivatives of the leftovers (by their own methods) added to the dense ``J``."""
        r, c, v = self._leftover_triplets(t, y)
        np.add.at(J, (r, c), v)

    def _leftover_triplets(self, t, y):
        """The derivatives of the leftovers, by their own methods, as triplets ``(rows, cols,
        values)`` of ``df/dy``."""
        d = self.dae
        nq, ne = d.nq, d.ne
        q, e, lam = y[d.sq], y[d.se], y[d.sl]
        R, C, V = [], [], []

        def add(rows, cols, D):
            if D is not None:
                A = sp.coo_matrix(D)
                R.append(np.asarray(rows)[A.row])
                C.append(np.asarray(cols)[A.col])
                V.append(A.data)

        for g in self.other_kin_groups:
            r, c, v = g.jacobian_triplets(q, e, nq)
            R.append(r)
            C.append(c)
            V.append(v)
        for b, sq, se in self.other_kin:
            Dq, De = b.qdot_jacobians(q[sq], e[se])
            rows = np.arange(sq.start, sq.stop)
            add(rows, rows, Dq)
            add(rows, nq + np.arange(se.start, se.stop), De)
        act = d.active
        for g in self.other_groups:       # G itself is in the kernel (extra triplets); here d/dq
            (gr, gc, gv), (er, ec, ev) = g.jacobian_triplets(q, e, lam)
            keep = act[er]
            R += [nq + np.asarray(gr), nq + ne + er[keep]]
            C += [gc, ec[keep]]
            V += [gv, -ev[keep]]
        for b, sq, se in self.effort:
            _, Dq, De = b.effort_terms(t, q[sq], e[se])
            rows = nq + np.arange(se.start, se.stop)
            add(rows, np.arange(sq.start, sq.stop), Dq)
            add(rows, nq + np.arange(se.start, se.stop), De)
        for ld, sq, se in self.other_loads:
            rows = nq + se.start + np.asarray(ld.cols, int)
            add(rows, np.arange(sq.start, sq.stop), ld.force_q(t, q[sq], e[se]))
            add(rows, nq + np.arange(se.start, se.stop), ld.force_e(t, q[sq], e[se]))
        if not V:
            return np.zeros(0, int), np.zeros(0, int), np.zeros(0)
        return (np.concatenate(R).astype(np.int64), np.concatenate(C).astype(np.int64),
                np.concatenate(V).astype(float))

    def f(self, t, y):
        """``f(t, y)``: the kernel plus the leftovers."""
        d = self.dae
        t, y = float(t), np.ascontiguousarray(y, float)      # one compiled version: float t, C-ordered y
        out = np.empty(d.n)
        if self.pure:
            residual_kernel(t, y, self.model(), self.inputs(t), out)
            return out
        q, e = y[d.sq], y[d.se]
        X = self.extra_G(q) if self.other_groups else None
        residual_kernel(t, y, self.model(X), self.inputs(t), out)
        for g in self.other_kin_groups:
            g(q, e, out)
        for b, sq, se in self.other_kin:
            out[sq] = b.qdot(q[sq], e[se])
        if self.other_loads or self.effort:
            fe = out[d.se]
            for ld, sq, se in self.other_loads:         # the kernel has the packed and network loads
                fe[se.start + ld.cols] += ld.force(t, q[sq], e[se])
            for b, sq, se in self.effort:
                fe[se] += b.effort_force(t, q[sq], e[se])
        return out


def compiled_residual(dae):
    """The :class:`CompiledResidual` of ``dae`` (warning once when parts have no kernel), or None
    without numba."""
    if numba is None:
        return None
    c = dae.residual()
    c.warn_leftovers()
    return c

"""The descriptor DAE's right-hand side, its exact Jacobian and the supplied power, as kernels.

This is the one evaluation of the assembled model: :meth:`DescriptorDAE.f
<phmech.assembly.dae.DescriptorDAE.f>`, :meth:`DescriptorDAE.jacobian
<phmech.assembly.dae.DescriptorDAE.jacobian>` and :meth:`power
<phmech.assembly.energy.EnergyMixin.power>` call it, and the compiled Newton
iterations of the solvers contain it.  The parts whose structure is known at
assembly are packed into flat arrays and evaluated by :func:`residual_kernel`:

* kinematics of planar frames, point masses and spatial (quaternion) frames
  by the kernels of :mod:`phmech.bodies.frames`;
* ``J0 e - sum_slot e[w_slot] K_slot e - R e`` (CSR products);
* ``G(q)`` of the planar joints from their cos/sin decomposition
  ``G = G0 + sum_k cos(theta_k) Gc_k + sin(theta_k) Gs_k`` (values on the
  fixed sparsity pattern), with ``G^T lam`` and ``w - G e``
  (:mod:`phmech.joints.constraint_kernels`);
* the kernel families (:mod:`phmech.kernels.families`): contributions whose
  terms are evaluated by kernels of their own module, each family's data packed
  by the family (the spatial and frame-rate joints, the bodies with inertial
  velocities, the consistent planar and spatial beams, the network bodies, the
  force elements with their compiled user laws).  The kernel loops over the data
  of every registered family and calls its kernels; the assembly knows neither
  the families nor their data;
* the loads ``A^T R(q)^T u(t)`` (:mod:`phmech.forces.loads_kernels`);
* the rows of redundant constraints (``-lam_i``).

Each group of kinematics or joints, each body with effort terms and each load
names its slot of the kernel (``kernel_slot``): one of the slots above or a
kernel family.  Without numba (or with ``NUMBA_DISABLE_JIT=1``) the same kernel
source runs as Python.

A contribution that names no slot (a user's class with its own ``force``,
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

import numpy as np
import scipy.sparse as sp

from ..bodies.frames import planar_frames_qdot, points_qdot, spatial_frames_qdot
from ..joints.constraint_kernels import add_G_terms
from ..joints.planar import planar_G_values
from ..kernels.families import (families, family_has, family_port_forces_add, family_residual_add,
                               literal_unroll, pack_all)
from ..forces.loads_kernels import PackedLoads, has_loads, loads_add
from ..kernels.jit import jit as _jit, numba
from ..math.jacobian_target import record_writes
from ..math.sparse_kernels import csr_mv, csr_mv_add
from .compiled_jacobian import jacobian_kernel


class PythonFallbackWarning(UserWarning):
    """Parts of a model have no compiled kernel: its residual is evaluated partly in Python."""


@_jit
def power_kernel(y, nq, ne, w, Rp, Ri, Rd, loads, families):
    """``w·lam + e·f_loads - e·R e``: the power supplied through the ports
    (:meth:`~phmech.assembly.energy.EnergyMixin.power` of a system without leftovers);
    ``families`` as in :func:`residual_kernel` (each family's port forces count)."""
    q = y[:nq]
    e = y[nq:nq + ne]
    lam = y[nq + ne:]
    P = 0.0
    for i in range(lam.size):
        P += w[i] * lam[i]
    fl = np.zeros(ne)
    if has_loads(loads):
        loads_add(q, loads, fl)
    for data in literal_unroll(families):
        if family_has(data):
            family_port_forces_add(q, e, data, fl)
    if Rp.size > 1:
        csr_mv_add(Rp, Ri, Rd, e, fl, -1.0)
    for i in range(ne):
        P += e[i] * fl[i]
    return P


@_jit
def power_rows_kernel(Y, nq, ne, W, Rp, Ri, Rd, U, loads, families, out):
    """:func:`power_kernel` at each row ``Y[j]`` with the prescribed velocities ``W[j]`` and the
    loads' inputs ``U[j]`` (``U[0]`` for all when ``U`` has one row) into ``out[j]``."""
    one = U.shape[0] == 1
    for j in range(Y.shape[0]):
        Uj = U[0] if one else U[j]
        out[j] = power_kernel(Y[j], nq, ne, W[j], Rp, Ri, Rd, loads[:-1] + (Uj,), families)


@_jit
def residual_kernel(t_unused, y, nq, ne, nl, pf_q, pf_e, pt_q, pt_e, sf_q, sf_e,
                    J0p, J0i, J0d, Kp, Ki, Kd, Kw, nslot, Rp, Ri, Rd,
                    Gr, Gc, Gv0, Gvcs, Gang, Xr, Xc, Xv, w, inactive, families, loads, out):
    """The compiled part of ``f(t, y)`` written into ``out`` (see the module docstring).

    ``pf_*``: (3, k) planar frame indices; ``pt_*``: point indices;
    ``sf_*``: offsets of spatial frames; ``J0``, ``R``: CSR; ``K``: the
    gyroscopic slots stacked as one CSR of ``nslot * ne`` rows with the
    index ``Kw`` of the weighting effort (``ne`` meaning none); ``G*``: the
    planar joints (:meth:`phmech.joints.planar.PlanarGroup.kernel_data`), ``X*``: extra ``G`` triplets; ``w``: prescribed
    velocities at ``t``; ``inactive``: redundant rows; ``families``: the data of every kernel
    family (:func:`phmech.kernels.families.pack_all`); ``loads``: the port loads
    ``f = A^T R(q)^T u`` with ``u`` evaluated at the call's time (:meth:`CompiledResidual.load_args`).
    """
    q = y[:nq]
    e = y[nq:nq + ne]
    lam = y[nq + ne:]
    # kinematics (a family is called only when it has members)
    if pf_q.shape[1]:
        planar_frames_qdot(q, e, pf_q, pf_e, out)
    if pt_q.size:
        points_qdot(q, e, pt_q, pt_e, out)
    if sf_q.size:
        spatial_frames_qdot(q, e, sf_q, sf_e, out)
    # efforts: J(e) e - R e + G^T lam
    fe = np.zeros(ne)
    csr_mv_add(J0p, J0i, J0d, e, fe, 1.0)
    if nslot:
        Ke = csr_mv(Kp, Ki, Kd, e)                 # K_slot e of the slots, stacked
        for s in range(nslot):
            for i in range(ne):
                r = s * ne + i
                if Kw[r] < ne:
                    fe[i] -= e[Kw[r]] * Ke[r]
    if Rp.size > 1:
        csr_mv_add(Rp, Ri, Rd, e, fe, -1.0)
    fl = w.copy()
    G = planar_G_values(q, Gv0, Gvcs, Gang)
    add_G_terms(Gr, Gc, G, e, lam, fe, fl)
    add_G_terms(Xr, Xc, Xv, e, lam, fe, fl)
    for data in literal_unroll(families):
        if family_has(data):
            family_residual_add(q, e, lam, data, out, fe, fl)
    for i in range(inactive.size):
        fl[inactive[i]] = -lam[inactive[i]]
    if has_loads(loads):
        loads_add(q, loads, fe)
    out[nq:nq + ne] = fe
    out[nq + ne:] = fl


#: names of :func:`residual_kernel`'s arguments between ``(t, y)`` and ``out`` (:meth:`kernel_args`)
_KERNEL_ARGS = ("nq", "ne", "nl", "pf_q", "pf_e", "pt_q", "pt_e", "sf_q", "sf_e", "J0p", "J0i", "J0d",
                "Kp", "Ki", "Kd", "Kw", "nslot", "Rp", "Ri", "Rd", "Gr", "Gc", "Gv0", "Gvcs", "Gang",
                "Xr", "Xc", "Xv", "w", "inactive", "families", "loads")


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

    #: the slots of the kernel's arguments for kinematics groups
    KINEMATICS_SLOTS = ("planar_frames", "points", "spatial_frames")
    #: the slot of the kernel's arguments for a joint group
    JOINT_SLOTS = ("planar_joints",)

    def __init__(self, dae):
        self.dae = d = dae
        self.leftovers = []
        i0 = np.zeros(0, np.int64)
        slots = {"planar_frames": (np.zeros((3, 0), np.int64), np.zeros((3, 0), np.int64)),
                 "points": (i0, i0), "spatial_frames": (i0, i0),
                 "planar_joints": (i0, i0, np.zeros(0), np.zeros((2, 0)), np.zeros((2, 0), np.int64))}
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
            slot = getattr(g, "kernel_slot", None)
            if joins(g, g):
                continue
            if slot in self.KINEMATICS_SLOTS:
                # C order always: a Fortran-ordered index array would compile a second version
                # of every kernel that takes it
                slots[slot] = tuple(np.ascontiguousarray(a, np.int64) for a in g.kernel_data())
            else:
                self.other_kin_groups.append(g)
                self.leftovers.append(f"kinematics group {type(g).__name__}")
        for g in d.joint_groups:
            slot = getattr(g, "kernel_slot", None)
            if joins(g, g):
                continue
            if slot in self.JOINT_SLOTS:
                slots[slot] = g.kernel_data()
            else:
                self.other_groups.append(g)
                self.leftovers.append(f"joint group {type(g).__name__}")
        self.pf, self.pt, self.sf = slots["planar_frames"], slots["points"], slots["spatial_frames"]
        self.G = slots["planar_joints"]
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
        self._fixed_args = None
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

    def kernel_args(self, t, X=None, inactive=None):
        """Arguments of :func:`residual_kernel` after ``(t, y)`` (without ``out``); the
        prescribed velocities and the loads' inputs are those at ``t``."""
        d = self.dae
        X = self._no_x if X is None else X
        inactive = self.inactive() if inactive is None else inactive
        if self._fixed_args is None:     # the arguments that never change
            self._fixed_args = (d.nq, d.ne, d.nl, *self.pf, *self.pt, *self.sf, *self.J0, *self.K, self.Kw,
                                self.nslot, *self.R, *self.G)
        return (*self._fixed_args, *X, np.asarray(d.w(t), float), inactive, self.families, self.load_args(t))

    def power(self, y, args):
        """Supplied power at ``y`` of the kernel's parts, with the :meth:`kernel_args` ``args`` of the
        same time (prescribed velocities and load inputs)."""
        d = self.dae
        a = dict(zip(_KERNEL_ARGS, args))
        return power_kernel(np.ascontiguousarray(y, float), d.nq, d.ne, a["w"], a["Rp"], a["Ri"], a["Rd"],
                            a["loads"], a["families"])

    def supplied_power(self, t, y):
        """``w . lam + e . f_loads - e . R e`` at ``(t, y)`` with the force elements' and the
        families' port forces: the kernel's power plus that of the loads left over."""
        t, y = float(t), np.ascontiguousarray(y, float)
        return self.power(y, self.kernel_args(t)) + self._other_loads_power(t, y)

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
            power_rows_kernel(Y[:m], d.nq, d.ne, np.ascontiguousarray(W), *self.R, np.ascontiguousarray(U),
                              self.load_args(float(ts[0])), self.families, P[:m])
        for k in range(m, ts.size):       # an input that raises: the one call says where
            P[k] = self.power(Y[k], self.kernel_args(float(ts[k])))
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
        jacobian_kernel(t, y, *self.kernel_args(t, X), J)
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
        args = self.kernel_args(t, X)
        for fresh in (False, True):
            writes = self._writes(t, y, args, fresh)
            target = writes.target()
            jacobian_kernel(t, y, *args, target)
            if writes.values_complete(target):
                break
        J = sp.csr_matrix((target[2], writes.indices, writes.indptr), shape=(d.n, d.n))
        if not self.pure:
            r, c, v = self._leftover_triplets(t, y)
            J = J + sp.csr_matrix((v, (r, c)), shape=(d.n, d.n))
        return J

    def _writes(self, t, y, args, fresh):
        """The recorded writes of the kernels' Jacobian (by the redundant rows; ``fresh``:
        recorded again at ``(t, y)``)."""
        d = self.dae
        key = d.active.tobytes()
        kept = self._recorded.get(key)
        if kept is None or fresh:
            room = kept.slot.size if kept is not None else 2 * (self.J0[1].size + self.R[1].size) + 32 * d.n
            kept = self._recorded[key] = record_writes(lambda target: jacobian_kernel(t, y, *args, target),
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
            residual_kernel(t, y, *self.kernel_args(t), out)
            return out
        q, e = y[d.sq], y[d.se]
        X = self.extra_G(q) if self.other_groups else None
        residual_kernel(t, y, *self.kernel_args(t, X), out)
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

"""Compiled evaluation of the descriptor DAE's right-hand side (numba).

:meth:`DescriptorDAE.f <phmech.assembly.dae.DescriptorDAE.f>` walks the
contributions in Python: the kinematics of each body family, ``J(e) e``
with the gyroscopic slots, the joint groups' ``G(q)``, ``R e``, the
loads and the bodies' effort terms.  Each part is a few array operations,
so for the small and medium models of multibody dynamics the cost of a
residual is the interpreter's, not the arithmetic's.  This module packs
the parts whose structure is known at assembly into flat arrays and
evaluates them in one compiled kernel:

* kinematics of planar frames, point masses and spatial (quaternion) frames
  by the kernels of :mod:`phmech.bodies.frames`;
* ``J0 e - sum_slot e[w_slot] K_slot e - R e`` (CSR products);
* ``G(q)`` of the planar joints from their cos/sin decomposition
  ``G = G0 + sum_k cos(theta_k) Gc_k + sin(theta_k) Gs_k`` (values on the
  fixed sparsity pattern), of the spatial joints and of the frame-rate joints
  as triplets by the kernels of their own modules
  (:func:`~phmech.joints.spatial_kernels.spatial_joints_G_triplets`,
  :func:`~phmech.fem.frame_rate.frame_rate_G_triplets`, which the Python
  path calls too; their Jacobians are theirs as well), with ``G^T lam`` and
  ``w - G e`` (:mod:`phmech.joints.constraint_kernels`);
* the effort families (bodies with state-dependent effort terms, whose
  kernels also give their kinematics): the consistent planar and spatial
  beams (:mod:`phmech.fem.beam_nonlinear_kernels`,
  :mod:`phmech.fem.beam3d_nonlinear_kernels`); a body names its slot in
  ``effort_slot`` and its class packs the data of the slot's bodies
  (``effort_kernel_data``);
* the loads ``A^T R(q)^T u(t)`` (:mod:`phmech.loads_kernels`) and the force
  elements between bodies (:mod:`phmech.forces_kernels`);
* the rows of redundant constraints (``-lam_i``).

Each group of kinematics or joints, and each load, names its slot of the
kernel (``kernel_slot``) and packs its data itself (``kernel_data()``); the same
kernels evaluate :meth:`DescriptorDAE.f <phmech.assembly.dae.DescriptorDAE.f>`
in Python, so the two paths share one implementation of these formulas.
Everything else stays Python and is added afterwards (the *leftovers*):
bodies of other kinematics families and with effort terms, joint groups
without a kernel (their ``G`` triplets are passed to the kernel), loads
that are not of the packed form, and time-dependent prescribed velocities
(evaluated once per call; they depend on ``t`` only).
:attr:`CompiledResidual.pure` tells whether there are leftovers that depend
on the state (a model with some warns once, naming them); without them the
whole residual is the kernel, which is what lets :mod:`phmech.solvers.midpoint`
run its Newton iteration compiled.

The exact dense Jacobian of the kernel is :mod:`phmech.assembly.compiled_jacobian`'s
(:meth:`CompiledResidual.jacobian`, and the iteration matrix of the midpoint rule).

The Python evaluation stays the reference; ``tests/test_compiled.py``
checks both agree to round-off on every kind of model, and
``tests/test_every_case_compiled.py`` that every validation case's model has no leftovers.
"""
import warnings

import numpy as np
import scipy.sparse as sp

from ..bodies.frames import planar_frames_qdot, points_qdot, spatial_frames_qdot
from ..bodies.inertial import has_inertial_frames, inertial_frames_qdot
from ..fem.frame_rate import FrameRateGroup, frame_rate_G_triplets, has_frame_rates
from ..joints.constraint_kernels import add_G_terms
from ..joints.planar import planar_G_values
from ..joints.spatial import SpatialGroup
from ..joints.spatial_kernels import has_spatial_joints, spatial_joints_G_triplets
from ..loads_kernels import PackedLoads, has_loads, loads_add
from .._jit import jit as _jit, numba
from ..fem import beam3d_nonlinear_kernels as _spatial_beams, beam_nonlinear_kernels as _planar_beams
from ..forces import ForceGroup
from ..forces_kernels import forces_add, has_force_elements
from ..math.sparse_kernels import csr_mv, csr_mv_add
from ..network_kernels import has_network_forces, network_forces_add, pack_slot as pack_networks
from .compiled_jacobian import jacobian_kernel


class PythonFallbackWarning(UserWarning):
    """Parts of a model have no compiled kernel: its residual is evaluated partly in Python."""


#: the kernel's slots of the effort families and their kernel modules (``pack``, ``qdot``,
#: ``efforts``, ``qdot_jacobian``, ``effort_jacobian``), in the order of the packed tuple
EFFORT_SLOTS = {"planar_consistent_beams": _planar_beams, "spatial_consistent_beams": _spatial_beams}


@_jit
def _effort_families(q, e, eff, out, fe):
    """Kinematic rows (into ``out``) and effort terms (added to ``fe``) of the effort families.

    The kernels take each family's data tuple only when the family has members, and the
    tuples are not unpacked as a whole (here and in :func:`residual_kernel`): numba counts the
    references of every array of a tuple it binds to a name or passes to a function (atomic
    operations; a sixth of those of the stiffened crank-slider's residual went to the kernels
    of the families it does not have)."""
    if eff[0][0]:
        pb = eff[0]
        _planar_beams.qdot(q, e, pb, out)
        _planar_beams.efforts(q, e, pb, fe)
    if eff[1][0]:
        sb = eff[1]
        _spatial_beams.qdot(q, e, sb, out)
        _spatial_beams.efforts(q, e, sb, fe)


@_jit
def power_kernel(y, nq, ne, w, Rp, Ri, Rd, loads, families):
    """``w . lam + e . f_loads - e . R e``: the power supplied through the ports
    (:meth:`~phmech.assembly.energy.EnergyMixin.power` of a system without leftovers);
    ``families`` as in :func:`residual_kernel` (the network forces are loads)."""
    q = y[:nq]
    e = y[nq:nq + ne]
    lam = y[nq + ne:]
    P = 0.0
    for i in range(lam.size):
        P += w[i] * lam[i]
    fl = np.zeros(ne)
    if has_loads(loads):
        loads_add(q, loads, fl)
    if has_network_forces(families[3]):
        network_forces_add(q, e, families[3], fl)   # slot "networks" (phmech.network_kernels)
    if has_force_elements(families[4]):
        forces_add(q, e, families[4], fl)           # the force elements (phmech.forces)
    if Rp.size > 1:
        csr_mv_add(Rp, Ri, Rd, e, fl, -1.0)
    for i in range(ne):
        P += e[i] * fl[i]
    return P


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
    velocities at ``t``; ``inactive``: redundant rows; ``families``: the data of the
    families with their own kernels, ``(eff, sj, fr, nw, fd, inf)``: the effort families' data (in the
    order of :data:`EFFORT_SLOTS`), the spatial joints
    (:meth:`phmech.joints.spatial.SpatialGroup.kernel_data`), the frame-rate joints
    (:meth:`phmech.fem.frame_rate.FrameRateGroup.kernel_data`) and the network forces
    (:func:`phmech.network_kernels.pack_slot`), the force elements
    (:meth:`phmech.forces.ForceGroup.kernel_data`) and the kinematics of the bodies with
    inertial velocities (:meth:`phmech.bodies.inertial.InertialFrames.kernel_data`); ``loads``:
    the port loads ``f = A^T R(q)^T u`` with ``u`` evaluated at the call's time
    (:meth:`CompiledResidual.load_args`).
    """
    q = y[:nq]
    e = y[nq:nq + ne]
    lam = y[nq + ne:]
    # kinematics (a family is called only when it has members: see _effort_families)
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
    if has_inertial_frames(families[5]):
        inertial_frames_qdot(q, e, families[5], out)
    if has_spatial_joints(families[1]):
        Sr, Sc, Sv = spatial_joints_G_triplets(q, families[1])
        add_G_terms(Sr, Sc, Sv, e, lam, fe, fl)
    if has_frame_rates(families[2]):
        Fr, Fc, Fv = frame_rate_G_triplets(q, families[2])
        add_G_terms(Fr, Fc, Fv, e, lam, fe, fl)
    for i in range(inactive.size):
        fl[inactive[i]] = -lam[inactive[i]]
    _effort_families(q, e, families[0], out, fe)
    if has_loads(loads):
        loads_add(q, loads, fe)
    if has_network_forces(families[3]):
        network_forces_add(q, e, families[3], fe)
    if has_force_elements(families[4]):
        forces_add(q, e, families[4], fe)      # the force elements (phmech.forces)
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

    The kinematics groups and joint groups with a kernel name their slot of
    the kernel (``kernel_slot``) and give its data (``kernel_data()``), as the
    loads of the packed form do (:class:`~phmech.loads_kernels.PackedLoads`);
    the assembly never asks for their types.  Groups without a kernel are the
    Python leftovers (a :class:`PythonFallbackWarning` names them once).

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

    #: the kernel's slots of the kinematics groups, with their empty data
    KINEMATICS_SLOTS = ("planar_frames", "points", "spatial_frames", "inertial_frames")
    #: the kernel's slots of the joint groups
    JOINT_SLOTS = ("planar_joints", "spatial_joints", "frame_rates")

    def __init__(self, dae):
        self.dae = d = dae
        self.leftovers = []
        i0 = np.zeros(0, np.int64)
        slots = {"planar_frames": (np.zeros((3, 0), np.int64), np.zeros((3, 0), np.int64)),
                 "points": (i0, i0), "spatial_frames": (i0, i0), "inertial_frames": (i0, i0, i0, i0),
                 "planar_joints": (i0, i0, np.zeros(0), np.zeros((2, 0)), np.zeros((2, 0), np.int64)),
                 "spatial_joints": SpatialGroup([], d.layout).kernel_data(),
                 "frame_rates": FrameRateGroup([], d.layout).kernel_data()}
        self.other_kin_groups, self.other_groups = [], []
        for g in d.kinematics.groups:
            if getattr(g, "kernel_slot", None) in self.KINEMATICS_SLOTS:
                # C order always: a Fortran-ordered index array would compile a second version
                # of every kernel that takes it
                slots[g.kernel_slot] = tuple(np.ascontiguousarray(a, np.int64) for a in g.kernel_data())
            else:
                self.other_kin_groups.append(g)
                self.leftovers.append(f"kinematics group {type(g).__name__}")
        for g in d.joint_groups:
            if getattr(g, "kernel_slot", None) in self.JOINT_SLOTS:
                slots[g.kernel_slot] = g.kernel_data()
            else:
                self.other_groups.append(g)
                self.leftovers.append(f"joint group {type(g).__name__}")
        self.pf, self.pt, self.sf = slots["planar_frames"], slots["points"], slots["spatial_frames"]
        self.G, self.sj, self.fr = slots["planar_joints"], slots["spatial_joints"], slots["frame_rates"]
        # effort families: a body names its slot, its class packs the slot's bodies; the slot's
        # kernels evaluate the bodies' effort terms and kinematics
        members = {slot: [] for slot in EFFORT_SLOTS}
        for item in d.effort_bodies:
            members.get(getattr(item[0], "effort_slot", None), []).append(item)
        self.eff = tuple(type(items[0][0]).effort_kernel_data(items) if items else EFFORT_SLOTS[slot].pack([])
                         for slot, items in members.items())
        compiled_bodies = {id(b) for items in members.values() for b, _, _ in items}
        self.inf = slots["inertial_frames"]
        self.other_kin = [(b, d.layout.q_slices[b.name], d.layout.e_slices[b.name])
                          for b in d.kinematics.others if id(b) not in compiled_bodies]
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
        self.effort = [(b, sq, se) for b, sq, se in d.effort_bodies if id(b) not in compiled_bodies]
        self.leftovers += [f"effort terms of '{b.name}'" for b, _, _ in self.effort]
        self.packed_loads = PackedLoads(d.loads)
        #: the loads evaluated by their own methods (their Jacobians too, in DescriptorDAE.jacobian);
        #: slot "networks": the loads that name it pack their data (phmech.network_kernels)
        self.loads = self.packed_loads.others
        self.nw, self.other_loads = pack_networks(self.loads)
        self.leftovers += [f"load '{ld.name}'" for ld, _, _ in self.other_loads]
        # the force elements' slot (phmech.forces): the linear ones compiled, user laws left over
        self.forces = getattr(d, "forces", None) or ForceGroup([], d.layout, None)
        self.fd = self.forces.kernel_data()
        self.leftovers += self.forces.leftovers
        self.pure = not (self.other_kin or self.other_kin_groups or self.other_groups or self.effort
                         or self.other_loads or self.forces.leftovers)
        self.path = "compiled" if self.pure else "python"
        #: the dense Jacobian is compiled too
        self.has_jacobian = self.pure
        self._no_x = (i0, i0, np.zeros(0))
        self._fixed_args = None
        self._inactive = (None, i0)
        if not self.pure:
            warnings.warn("the model's residual is evaluated in Python (not compiled): no kernel for "
                          + ", ".join(self.leftovers), PythonFallbackWarning, stacklevel=2)

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
        <phmech.loads_kernels.PackedLoads.kernel_data>`."""
        return self.packed_loads.kernel_data(t)

    def step_inputs(self, ts):
        """The prescribed velocities ``W`` (``(m, nl)``) and the loads' inputs ``U`` at the times
        ``ts`` (:func:`~phmech.solvers.midpoint_kernels.midpoint_steps`): ``(m, loads, 3)``, or one
        row ``(1, loads, 3)`` when no input depends on time.  ``m`` is the number of leading times
        where every function evaluates: at the first time that raises, the step runs alone and
        reports it."""
        d, pl = self.dae, self.packed_loads
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
        return (*self._fixed_args, *X, np.asarray(d.w(t), float), inactive, (self.eff, self.sj, self.fr, self.nw,
                                                                     self.fd, self.inf),
                self.load_args(t))

    def power(self, y, args):
        """Supplied power at ``y`` of a pure system, with the :meth:`kernel_args` ``args`` of the
        same time (prescribed velocities and load inputs)."""
        d = self.dae
        a = dict(zip(_KERNEL_ARGS, args))
        return power_kernel(np.asarray(y, float), d.nq, d.ne, a["w"], a["Rp"], a["Ri"], a["Rd"], a["loads"],
                            a["families"])

    def jacobian(self, y, t=None):
        """Dense ``df/dy`` at ``(t, y)`` of a pure system (no leftovers; ``w`` does not depend
        on ``y``).  ``t`` is needed only for the loads' inputs ``u(t)``."""
        if not self.has_jacobian:
            raise ValueError("compiled jacobian: only for systems without Python leftovers "
                             f"({', '.join(self.leftovers)})")
        if t is None and self.packed_loads.packed:
            raise ValueError("compiled jacobian: the system has loads, give the time t of their inputs")
        t = 0.0 if t is None else t
        J = np.zeros((self.dae.n, self.dae.n))
        jacobian_kernel(t, np.asarray(y, float), *self.kernel_args(t), J)
        return J

    def f(self, t, y):
        """``f(t, y)``: the kernel plus the Python leftovers."""
        d = self.dae
        y = np.asarray(y, float)
        q, e = y[d.sq], y[d.se]
        out = np.empty(d.n)
        X = self.extra_G(q) if self.other_groups else None
        residual_kernel(t, y, *self.kernel_args(t, X), out)
        if self.pure:
            return out
        for g in self.other_kin_groups:
            g(q, e, out)
        for b, sq, se in self.other_kin:
            out[sq] = b.qdot(q[sq], e[se])
        if self.other_loads or self.effort or self.forces.leftovers:
            fe = out[d.se]
            for ld, sq, se in self.other_loads:         # the kernel has the packed and network loads
                fe[se.start + ld.cols] += ld.force(t, q[sq], e[se])
            for b, sq, se in self.effort:
                fe[se] += b.effort_force(t, q[sq], e[se])
            self.forces.leftover_add(q, e, fe)
        return out


def compiled_residual(dae):
    """A :class:`CompiledResidual` for ``dae``, or None without numba."""
    if numba is None:
        return None
    return CompiledResidual(dae)

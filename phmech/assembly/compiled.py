"""Compiled evaluation of the descriptor DAE's right-hand side (numba).

:meth:`DescriptorDAE.f <phmech.assembly.dae.DescriptorDAE.f>` walks the
contributions in Python: the kinematics of each body family, ``J(e) e``
with the gyroscopic slots, the joint groups' ``G(q)``, ``R e``, the
loads and the bodies' effort terms.  Each part is a few array operations,
so for the small and medium models of multibody dynamics the cost of a
residual is the interpreter's, not the arithmetic's.  This module packs
the parts whose structure is known at assembly into flat arrays and
evaluates them in one compiled kernel:

* kinematics of planar frames, point masses and spatial (quaternion) frames;
* ``J0 e - sum_slot e[w_slot] K_slot e - R e`` (CSR products);
* ``G(q)`` of the planar joints from their cos/sin decomposition
  ``G = G0 + sum_k cos(theta_k) Gc_k + sin(theta_k) Gs_k`` (values on the
  fixed sparsity pattern), with ``G^T lam`` and ``w - G e``;
* the rows of redundant constraints (``-lam_i``).

Everything else stays Python and is added afterwards (the *leftovers*):
bodies of other kinematics families and with effort terms, joint groups
other than the planar one (their ``G`` triplets are passed to the kernel),
loads, and time-dependent prescribed velocities (evaluated once per call;
they depend on ``t`` only).  :attr:`CompiledResidual.pure` tells whether
there are leftovers that depend on the state; without them the whole
residual is the kernel, which is what lets
:mod:`phmech.solvers.midpoint` run its Newton iteration compiled.

The Python evaluation stays the reference; ``tests/test_compiled.py``
checks both agree to round-off on every kind of model.
"""
import numpy as np
import scipy.sparse as sp

from ._jit import jit as _jit, numba
from .compiled_beams import is_compilable, nl_beams_jacobian, nl_beams_residual, pack as pack_beams


@_jit
def _csr_mv_add(indptr, indices, data, x, out, sign):
    """``out += sign * A x`` for ``A`` in CSR arrays."""
    for i in range(indptr.size - 1):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * x[indices[k]]
        out[i] += sign * s


@_jit
def _planar_G(q, Gv0, Gvcs, Gang):
    """Values of the planar joints' ``G`` on its pattern, ``G0 + sum cos(theta_k) Gc_k +
    sin(theta_k) Gs_k``, and the vector ``(cos theta, sin theta)`` of the angles."""
    na = Gang.size
    cs = np.empty(2 * na)
    for k in range(na):
        cs[k] = np.cos(q[Gang[k]])
        cs[na + k] = np.sin(q[Gang[k]])
    G = Gv0.copy()
    for m in range(Gv0.size):
        for k in range(2 * na):
            G[m] += cs[k] * Gvcs[k, m]
    return G, cs


@_jit
def _quadratic(pw, px, py, pz):
    """``Q(p)`` with ``R(p) = Q(p) / |p|^2`` (the quaternion's rotation for any norm)."""
    Q = np.empty((3, 3))
    Q[0, 0], Q[0, 1], Q[0, 2] = pw * pw + px * px - py * py - pz * pz, 2 * (px * py - pw * pz), 2 * (px * pz + pw * py)
    Q[1, 0], Q[1, 1], Q[1, 2] = 2 * (px * py + pw * pz), pw * pw - px * px + py * py - pz * pz, 2 * (py * pz - pw * px)
    Q[2, 0], Q[2, 1], Q[2, 2] = 2 * (px * pz - pw * py), 2 * (py * pz + pw * px), pw * pw - px * px - py * py + pz * pz
    return Q


@_jit
def _quadratic_halfgrad(pw, px, py, pz):
    """``dQ[m] = (1/2) dQ(p)/dp_m`` of :func:`_quadratic` (``m`` over ``w, x, y, z``)."""
    dQ = np.empty((4, 3, 3))
    dQ[0, 0, 0], dQ[0, 0, 1], dQ[0, 0, 2] = pw, -pz, py
    dQ[0, 1, 0], dQ[0, 1, 1], dQ[0, 1, 2] = pz, pw, -px
    dQ[0, 2, 0], dQ[0, 2, 1], dQ[0, 2, 2] = -py, px, pw
    dQ[1, 0, 0], dQ[1, 0, 1], dQ[1, 0, 2] = px, py, pz
    dQ[1, 1, 0], dQ[1, 1, 1], dQ[1, 1, 2] = py, -px, -pw
    dQ[1, 2, 0], dQ[1, 2, 1], dQ[1, 2, 2] = pz, pw, -px
    dQ[2, 0, 0], dQ[2, 0, 1], dQ[2, 0, 2] = -py, px, pw
    dQ[2, 1, 0], dQ[2, 1, 1], dQ[2, 1, 2] = px, py, pz
    dQ[2, 2, 0], dQ[2, 2, 1], dQ[2, 2, 2] = -pw, pz, -py
    dQ[3, 0, 0], dQ[3, 0, 1], dQ[3, 0, 2] = -pz, -pw, px
    dQ[3, 1, 0], dQ[3, 1, 1], dQ[3, 1, 2] = pw, -pz, py
    dQ[3, 2, 0], dQ[3, 2, 1], dQ[3, 2, 2] = px, py, pz
    return dQ


@_jit
def _loads_add(q, loads, fe):
    """``fe[cols] += A^T R^T u`` of every compiled load (kind 0: no rotation, 1: planar angle,
    2: quaternion ``R = Q(p) / |p|^2``)."""
    kind, rot, dim, ptr, cols, AT, U = loads
    for k in range(kind.size):
        u = U[k]
        ub = np.zeros(3)
        if kind[k] == 0:
            for i in range(3):
                ub[i] = u[i]
        elif kind[k] == 1:
            c, s = np.cos(q[rot[k]]), np.sin(q[rot[k]])
            ub[0] = c * u[0] + s * u[1]
            ub[1] = -s * u[0] + c * u[1]
        else:
            o = rot[k]
            pw, px, py, pz = q[o], q[o + 1], q[o + 2], q[o + 3]
            n2 = pw * pw + px * px + py * py + pz * pz
            Q = _quadratic(pw, px, py, pz)
            for i in range(3):
                ub[i] = (Q[0, i] * u[0] + Q[1, i] * u[1] + Q[2, i] * u[2]) / n2
        for j in range(ptr[k], ptr[k + 1]):
            acc = 0.0
            for i in range(dim[k]):
                acc += AT[j, i] * ub[i]
            fe[cols[j]] += acc


@_jit
def _loads_jacobian_add(q, loads, J, r0):
    """``d(A^T R(q)^T u)/dq`` of the compiled loads added to ``J[r0 + cols, q]`` (only the
    rotated loads depend on ``q``)."""
    kind, rot, dim, ptr, cols, AT, U = loads
    for k in range(kind.size):
        if kind[k] == 0:
            continue
        u = U[k]
        o = rot[k]
        nrot = 1 if kind[k] == 1 else 4
        dub = np.zeros((3, 4))                # d(R^T u)_i / d(rotation coordinate m)
        if kind[k] == 1:
            c, s = np.cos(q[o]), np.sin(q[o])
            dub[0, 0] = -s * u[0] + c * u[1]
            dub[1, 0] = -c * u[0] - s * u[1]
        else:
            pw, px, py, pz = q[o], q[o + 1], q[o + 2], q[o + 3]
            p = np.array([pw, px, py, pz])
            n2 = pw * pw + px * px + py * py + pz * pz
            Q = _quadratic(pw, px, py, pz)
            dQ = _quadratic_halfgrad(pw, px, py, pz)
            for i in range(3):
                qu = Q[0, i] * u[0] + Q[1, i] * u[1] + Q[2, i] * u[2]
                for m in range(4):
                    dqu = dQ[m, 0, i] * u[0] + dQ[m, 1, i] * u[1] + dQ[m, 2, i] * u[2]
                    dub[i, m] = 2 * dqu / n2 - 2 * p[m] * qu / (n2 * n2)
        for j in range(ptr[k], ptr[k + 1]):
            for m in range(nrot):
                acc = 0.0
                for i in range(dim[k]):
                    acc += AT[j, i] * dub[i, m]
                J[r0 + cols[j], o + m] += acc


@_jit
def power_kernel(y, nq, ne, w, Rp, Ri, Rd, loads):
    """``w . lam + e . f_loads - e . R e``: the power supplied through the ports
    (:meth:`~phmech.assembly.energy.EnergyMixin.power` of a system without leftovers)."""
    q = y[:nq]
    e = y[nq:nq + ne]
    lam = y[nq + ne:]
    P = 0.0
    for i in range(lam.size):
        P += w[i] * lam[i]
    fl = np.zeros(ne)
    _loads_add(q, loads, fl)
    if Rp.size > 1:
        _csr_mv_add(Rp, Ri, Rd, e, fl, -1.0)
    for i in range(ne):
        P += e[i] * fl[i]
    return P


@_jit
def residual_kernel(t_unused, y, nq, ne, nl, pf_q, pf_e, pt_q, pt_e, sf_q, sf_e,
                    J0p, J0i, J0d, Kp, Ki, Kd, Kw, nslot, Rp, Ri, Rd,
                    Gr, Gc, Gv0, Gvcs, Gang, Xr, Xc, Xv, w, inactive, nlb, loads, out):
    """The compiled part of ``f(t, y)`` written into ``out`` (see the module docstring).

    ``pf_*``: (3, k) planar frame indices; ``pt_*``: point indices;
    ``sf_*``: offsets of spatial frames; ``J0``, ``R``: CSR; ``K``: the
    gyroscopic slots stacked as one CSR of ``nslot * ne`` rows with the
    index ``Kw`` of the weighting effort (``ne`` meaning none); ``G*``: the
    planar pattern, ``X*``: extra ``G`` triplets; ``w``: prescribed
    velocities at ``t``; ``inactive``: redundant rows; ``nlb``: the packed
    consistent beams (:func:`phmech.assembly.compiled_beams.pack`); ``loads``:
    the port loads ``f = A^T R(q)^T u`` with ``u`` evaluated at the call's time
    (:meth:`CompiledResidual.load_args`).
    """
    q = y[:nq]
    e = y[nq:nq + ne]
    lam = y[nq + ne:]
    # kinematics
    for k in range(pf_q.shape[1]):
        th = q[pf_q[2, k]]
        c, s = np.cos(th), np.sin(th)
        vx, vy = e[pf_e[0, k]], e[pf_e[1, k]]
        out[pf_q[0, k]] = c * vx - s * vy
        out[pf_q[1, k]] = s * vx + c * vy
        out[pf_q[2, k]] = e[pf_e[2, k]]
    for k in range(pt_q.size):
        out[pt_q[k]] = e[pt_e[k]]
    for k in range(sf_q.size):
        oq, oe = sf_q[k], sf_e[k]
        pw, px, py, pz = q[oq + 3], q[oq + 4], q[oq + 5], q[oq + 6]
        n2 = pw * pw + px * px + py * py + pz * pz
        v0, v1, v2 = e[oe], e[oe + 1], e[oe + 2]
        w0, w1, w2 = e[oe + 3], e[oe + 4], e[oe + 5]
        Q = _quadratic(pw, px, py, pz)
        for a in range(3):
            out[oq + a] = (Q[a, 0] * v0 + Q[a, 1] * v1 + Q[a, 2] * v2) / n2
        out[oq + 3] = -0.5 * (w0 * px + w1 * py + w2 * pz)
        out[oq + 4] = 0.5 * (pw * w0 + py * w2 - pz * w1)
        out[oq + 5] = 0.5 * (pw * w1 + pz * w0 - px * w2)
        out[oq + 6] = 0.5 * (pw * w2 + px * w1 - py * w0)
    # efforts: J(e) e - R e + G^T lam
    fe = np.zeros(ne)
    _csr_mv_add(J0p, J0i, J0d, e, fe, 1.0)
    if nslot:
        Ke = np.zeros(nslot * ne)
        _csr_mv_add(Kp, Ki, Kd, e, Ke, 1.0)
        for s in range(nslot):
            for i in range(ne):
                j = Kw[s * ne + i]
                if j < ne:
                    fe[i] -= e[j] * Ke[s * ne + i]
    if Rp.size > 1:
        _csr_mv_add(Rp, Ri, Rd, e, fe, -1.0)
    fl = w.copy()
    G, _ = _planar_G(q, Gv0, Gvcs, Gang)
    for m in range(Gr.size):
        g = G[m]
        fe[Gc[m]] += g * lam[Gr[m]]
        fl[Gr[m]] -= g * e[Gc[m]]
    for m in range(Xr.size):
        fe[Xc[m]] += Xv[m] * lam[Xr[m]]
        fl[Xr[m]] -= Xv[m] * e[Xc[m]]
    for i in range(inactive.size):
        fl[inactive[i]] = -lam[inactive[i]]
    nb, qoff, nqb, eoff, dg, cqi, cqv, green, xi, W, ops = nlb
    if nb:
        nl_beams_residual(q, e, nb, qoff, nqb, eoff, dg, cqi, cqv, green, xi, W, ops, out, fe)
    _loads_add(q, loads, fe)
    out[nq:nq + ne] = fe
    out[nq + ne:] = fl


#: names of :func:`residual_kernel`'s arguments between ``(t, y)`` and ``out`` (:meth:`kernel_args`)
_KERNEL_ARGS = ("nq", "ne", "nl", "pf_q", "pf_e", "pt_q", "pt_e", "sf_q", "sf_e", "J0p", "J0i", "J0d",
                "Kp", "Ki", "Kd", "Kw", "nslot", "Rp", "Ri", "Rd", "Gr", "Gc", "Gv0", "Gvcs", "Gang",
                "Xr", "Xc", "Xv", "w", "inactive", "nlb", "loads")


def _csr(A, shape):
    A = sp.csr_matrix(A if A is not None else (shape[0], shape[1]))
    A.sort_indices()
    return (A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data.astype(float))


class CompiledResidual:
    """``f(t, y)`` of a :class:`~phmech.assembly.dae.DescriptorDAE` through :func:`residual_kernel`.

    Attributes
    ----------
    pure : bool
        No state-dependent leftovers: the kernel alone is the residual
        (given ``w(t)``).
    leftovers : list of str
        What is evaluated in Python (for the record and the benchmarks).
    """

    def __init__(self, dae):
        from ..joints.planar import PlanarGroup
        from .kinematics import _PlanarFrames, _Points, _SpatialFrames

        self.dae = d = dae
        self.leftovers = []
        i0 = np.zeros(0, np.int64)
        self.pf = (np.zeros((3, 0), np.int64), np.zeros((3, 0), np.int64))
        self.pt, self.sf = (i0, i0), (i0, i0)
        for g in d.kinematics.groups:
            if isinstance(g, _PlanarFrames):
                self.pf = (g.q.astype(np.int64), g.e.astype(np.int64))
            elif isinstance(g, _Points):
                self.pt = (g.q.astype(np.int64), g.e.astype(np.int64))
            elif isinstance(g, _SpatialFrames):
                self.sf = (g.oq.astype(np.int64), g.oe.astype(np.int64))
        beams = [(b, sq, se) for b, sq, se in d.effort_bodies if is_compilable(b)]
        self.nlb = pack_beams(beams, d.layout)
        compiled_beams = {id(b) for b, _, _ in beams}
        self.other_kin = [(b, d.layout.q_slices[b.name], d.layout.e_slices[b.name])
                          for b in d.kinematics.others if id(b) not in compiled_beams]
        self.leftovers += [f"kinematics of '{b.name}'" for b, _, _ in self.other_kin]
        ne = d.ne
        self.J0 = _csr(d.J0, (ne, ne))
        self.R = _csr(d.R if d.has_R else None, (ne, ne))
        if not d.has_R:
            self.R = (np.zeros(1, np.int64), i0, np.zeros(0))
        nslot = len(d._K_slots)
        if nslot:
            self.K = _csr(sp.vstack([sp.csr_matrix(K) for K, _ in d._K_slots]), (nslot * ne, ne))
            self.Kw = np.concatenate([w_row for _, w_row in d._K_slots]).astype(np.int64)
        else:
            self.K = (np.zeros(1, np.int64), i0, np.zeros(0))
            self.Kw = i0
        self.nslot = nslot
        planar = [g for g in d.joint_groups if isinstance(g, PlanarGroup)]
        others = [g for g in d.joint_groups if not isinstance(g, PlanarGroup)]
        # groups whose every joint has constant rows (spatial joints to the ground such as the
        # spherical one): their triplets once, as constant extra rows of the kernel
        constant = [g for g in others if not getattr(g, "items", True)]
        self.other_groups = [g for g in others if g not in constant]
        if constant:
            r, c, v = d._cat([g.G_triplets(d.q0) for g in constant])
            self.X_const = (r.astype(np.int64), c.astype(np.int64), np.asarray(v, float))
        else:
            self.X_const = (i0, i0, np.zeros(0))
        self.leftovers += [f"joint group {type(g).__name__}" for g in self.other_groups]
        if planar:
            (g,) = planar                       # one group per family
            self.G = (g._r.astype(np.int64), g._c.astype(np.int64), g._v0.astype(float),
                      np.ascontiguousarray(g._vcs, float).reshape(2 * len(g.angles), -1),
                      g.angles.astype(np.int64))
        else:
            self.G = (i0, i0, np.zeros(0), np.zeros((0, 0)), i0)
        self.effort = [(b, sq, se) for b, sq, se in d.effort_bodies if id(b) not in compiled_beams]
        self.leftovers += [f"effort terms of '{b.name}'" for b, _, _ in self.effort]
        from ..loads import Load
        from ..math.rotations import PlanarAngle, UnitQuaternion
        kinds = {None: 0, PlanarAngle: 1, UnitQuaternion: 2}
        packed = [(ld, sq, se) for ld, sq, se in d.loads
                  if type(ld).force is Load.force and type(ld).force_e is Load.force_e
                  and (not ld.inertial or getattr(ld.body, "rotation_kind", None) in kinds)]
        self.loads = [item for item in d.loads if item not in packed]
        self.leftovers += [f"load '{ld.name}'" for ld, _, _ in self.loads]
        self._packed_loads = packed
        kind, rot, dim, ptr, cols, AT = [], [], [], [0], [], []
        for ld, sq, se in packed:
            A = np.asarray(ld.A.toarray() if sp.issparse(ld.A) else ld.A, float)
            m = A.shape[0]
            kind.append(kinds[ld.body.rotation_kind] if ld.inertial else 0)
            rot.append(sq.start + (ld.body.rotation_index if ld.inertial else 0))
            dim.append(m)
            cols.append(se.start + np.asarray(ld.cols, int))
            block = np.zeros((A.shape[1], 3))
            block[:, :m] = A.T
            AT.append(block)
            ptr.append(ptr[-1] + A.shape[1])
        self._load_arrays = (np.array(kind, np.int64), np.array(rot, np.int64), np.array(dim, np.int64),
                             np.array(ptr, np.int64),
                             np.concatenate(cols).astype(np.int64) if cols else i0,
                             np.vstack(AT) if AT else np.zeros((0, 3)))
        self.pure = not (self.other_kin or self.other_groups or self.effort or self.loads)
        #: the dense Jacobian is compiled too
        self.has_jacobian = self.pure
        self._empty_x = (i0, i0, np.zeros(0))

    def extra_G(self, q):
        """Extra ``G`` triplets: the constant groups' and those of the groups not compiled."""
        if not self.other_groups:
            return self.X_const
        r, c, v = self.dae._cat([self.X_const] + [g.G_triplets(q) for g in self.other_groups])
        return r.astype(np.int64), c.astype(np.int64), np.asarray(v, float)

    def load_args(self, t):
        """The packed loads with their inputs ``u(t)`` (rows padded to 3)."""
        if not self._packed_loads:
            if getattr(self, "_no_loads", None) is None:
                self._no_loads = (*self._load_arrays, np.zeros((0, 3)))
            return self._no_loads
        U = np.zeros((len(self._packed_loads), 3))
        for k, (ld, _, _) in enumerate(self._packed_loads):
            u = np.asarray(ld.fun(t), float).ravel()
            U[k, :u.size] = u
        return (*self._load_arrays, U)

    def inactive(self):
        """Indices of the redundant constraint rows (the DAE's ``active`` mask, which the
        consistent start may change; recomputed when it does)."""
        mask = self.dae.active.tobytes()
        if getattr(self, "_inactive", (None,))[0] != mask:
            self._inactive = (mask, np.flatnonzero(~self.dae.active).astype(np.int64))
        return self._inactive[1]

    def kernel_args(self, t, X=None, inactive=None):
        """Arguments of :func:`residual_kernel` after ``(t, y)`` (without ``out``); the
        prescribed velocities and the loads' inputs are those at ``t``."""
        d = self.dae
        X = self.X_const if X is None else X
        inactive = self.inactive() if inactive is None else inactive
        if getattr(self, "_fixed_args", None) is None:     # the arguments that never change
            self._fixed_args = (d.nq, d.ne, d.nl, *self.pf, *self.pt, *self.sf, *self.J0, *self.K, self.Kw,
                                self.nslot, *self.R, *self.G)
        return (*self._fixed_args, *X, np.asarray(d.w(t), float), inactive, self.nlb, self.load_args(t))

    def power(self, y, args):
        """Supplied power at ``y`` of a pure system, with the :meth:`kernel_args` ``args`` of the
        same time (prescribed velocities and load inputs)."""
        d = self.dae
        a = dict(zip(_KERNEL_ARGS, args))
        return power_kernel(np.asarray(y, float), d.nq, d.ne, a["w"], a["Rp"], a["Ri"], a["Rd"], a["loads"])

    def jacobian(self, y, t=None):
        """Dense ``df/dy`` at ``(t, y)`` of a pure system (no leftovers; ``w`` does not depend
        on ``y``).  ``t`` is needed only for the loads' inputs ``u(t)``."""
        if not self.has_jacobian:
            raise ValueError("compiled jacobian: only for systems without Python leftovers "
                             f"({', '.join(self.leftovers)})")
        if t is None and self._packed_loads:
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
        for b, sq, se in self.other_kin:
            out[sq] = b.qdot(q[sq], e[se])
        if self.loads or self.effort:
            fe = out[d.se]
            if self.loads:
                fe += d.load_vector(t, q, e)
            for b, sq, se in self.effort:
                fe[se] += b.effort_force(t, q[sq], e[se])
        return out


def compiled_residual(dae):
    """A :class:`CompiledResidual` for ``dae``, or None without numba."""
    if numba is None:
        return None
    return CompiledResidual(dae)


# ---------------------------------------------------------------- Newton iteration of the midpoint rule
@_jit
def lu_solve(lu, piv, b):
    """Solve with the factors of LAPACK ``getrf`` (0-based pivots as scipy returns them)."""
    n = b.size
    x = b.copy()
    for i in range(n):
        p = piv[i]
        if p != i:
            x[i], x[p] = x[p], x[i]
    for i in range(n):
        s = x[i]
        for j in range(i):
            s -= lu[i, j] * x[j]
        x[i] = s
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, n):
            s -= lu[i, j] * x[j]
        x[i] = s / lu[i, i]
    return x


@_jit
def _block_scales(y, nq, ne, scale):
    """``max(scale, per-block mean |y|)`` over the blocks ``q``, ``e``, ``lam`` (floor 1e-8)."""
    n = y.size
    bounds = (0, nq, nq + ne, n)
    for b in range(3):
        lo, hi = bounds[b], bounds[b + 1]
        m = 0.0
        for i in range(lo, hi):
            m += abs(y[i])
        m = m / (hi - lo) if hi > lo else 0.0
        m = max(m, 1e-8)
        for i in range(lo, hi):
            scale[i] = max(scale[i], m)


@_jit
def _csr_add_dense(indptr, indices, data, J, r0, c0, sign):
    """``J[r0 + i, c0 + j] += sign * A[i, j]`` for ``A`` in CSR arrays."""
    for i in range(indptr.size - 1):
        for k in range(indptr[i], indptr[i + 1]):
            J[r0 + i, c0 + indices[k]] += sign * data[k]


@_jit
def jacobian_kernel(t_unused, y, nq, ne, nl, pf_q, pf_e, pt_q, pt_e, sf_q, sf_e,
                    J0p, J0i, J0d, Kp, Ki, Kd, Kw, nslot, Rp, Ri, Rd,
                    Gr, Gc, Gv0, Gvcs, Gang, Xr, Xc, Xv, w, inactive, nlb, loads, J):
    """Dense ``df/dy`` of :func:`residual_kernel` (same arguments) added to ``J`` (zeroed):
    exact, with the constant extra ``G`` triplets ``X`` and the loads' inputs of the call."""
    q = y[:nq]
    e = y[nq:nq + ne]
    lam = y[nq + ne:]
    ce, cl = nq, nq + ne              # first columns of e and lam
    for k in range(pf_q.shape[1]):
        ix, iy, it = pf_q[0, k], pf_q[1, k], pf_q[2, k]
        ex, ey, ew = pf_e[0, k], pf_e[1, k], pf_e[2, k]
        th = q[it]
        c, s = np.cos(th), np.sin(th)
        vx, vy = e[ex], e[ey]
        J[ix, it] += -s * vx - c * vy
        J[iy, it] += c * vx - s * vy
        J[ix, ce + ex] += c
        J[ix, ce + ey] += -s
        J[iy, ce + ex] += s
        J[iy, ce + ey] += c
        J[it, ce + ew] += 1.0
    for k in range(pt_q.size):
        J[pt_q[k], ce + pt_e[k]] += 1.0
    for k in range(sf_q.size):
        oq, oe = sf_q[k], sf_e[k]
        p = q[oq + 3:oq + 7]
        v = e[oe:oe + 3]
        wv = e[oe + 3:oe + 6]
        pw, px, py, pz = p[0], p[1], p[2], p[3]
        n2 = pw * pw + px * px + py * py + pz * pz
        Q = _quadratic(pw, px, py, pz)
        dQ = _quadratic_halfgrad(pw, px, py, pz)
        Qv = Q @ v
        for a in range(3):
            for m in range(4):
                dq = 0.0
                for b in range(3):
                    dq += 2 * dQ[m, a, b] * v[b]
                J[oq + a, oq + 3 + m] += dq / n2 - 2 * p[m] * Qv[a] / (n2 * n2)
            for b in range(3):
                J[oq + a, ce + oe + b] += Q[a, b] / n2
        # p' = 1/2 p (x) (0, w)
        J[oq + 3, oq + 4] += -0.5 * wv[0]
        J[oq + 3, oq + 5] += -0.5 * wv[1]
        J[oq + 3, oq + 6] += -0.5 * wv[2]
        J[oq + 4, oq + 3] += 0.5 * wv[0]
        J[oq + 4, oq + 5] += 0.5 * wv[2]
        J[oq + 4, oq + 6] += -0.5 * wv[1]
        J[oq + 5, oq + 3] += 0.5 * wv[1]
        J[oq + 5, oq + 6] += 0.5 * wv[0]
        J[oq + 5, oq + 4] += -0.5 * wv[2]
        J[oq + 6, oq + 3] += 0.5 * wv[2]
        J[oq + 6, oq + 4] += 0.5 * wv[1]
        J[oq + 6, oq + 5] += -0.5 * wv[0]
        J[oq + 3, ce + oe + 3] += -0.5 * px
        J[oq + 3, ce + oe + 4] += -0.5 * py
        J[oq + 3, ce + oe + 5] += -0.5 * pz
        J[oq + 4, ce + oe + 3] += 0.5 * pw
        J[oq + 4, ce + oe + 4] += -0.5 * pz
        J[oq + 4, ce + oe + 5] += 0.5 * py
        J[oq + 5, ce + oe + 3] += 0.5 * pz
        J[oq + 5, ce + oe + 4] += 0.5 * pw
        J[oq + 5, ce + oe + 5] += -0.5 * px
        J[oq + 6, ce + oe + 3] += -0.5 * py
        J[oq + 6, ce + oe + 4] += 0.5 * px
        J[oq + 6, ce + oe + 5] += 0.5 * pw
    # efforts
    _csr_add_dense(J0p, J0i, J0d, J, nq, ce, 1.0)
    if Rp.size > 1:
        _csr_add_dense(Rp, Ri, Rd, J, nq, ce, -1.0)
    if nslot:
        Ke = np.zeros(nslot * ne)
        _csr_mv_add(Kp, Ki, Kd, e, Ke, 1.0)
        for s in range(nslot):
            for i in range(ne):
                j = Kw[s * ne + i]
                if j < ne:
                    r = s * ne + i
                    for k in range(Kp[r], Kp[r + 1]):
                        J[nq + i, ce + Ki[k]] -= e[j] * Kd[k]
                    J[nq + i, ce + j] -= Ke[r]
    act = np.ones(nl, np.bool_)
    for i in range(inactive.size):
        act[inactive[i]] = False
        J[cl + inactive[i], cl + inactive[i]] = -1.0
    na = Gang.size
    G, cs = _planar_G(q, Gv0, Gvcs, Gang)
    for m in range(Gr.size):
        r, c = Gr[m], Gc[m]
        g = G[m]
        J[nq + c, cl + r] += g
        if act[r]:
            J[cl + r, ce + c] -= g
        for k in range(na):
            dg = -cs[na + k] * Gvcs[k, m] + cs[k] * Gvcs[na + k, m]
            J[nq + c, Gang[k]] += dg * lam[r]
            if act[r]:
                J[cl + r, Gang[k]] -= dg * e[c]
    for m in range(Xr.size):
        J[nq + Xc[m], cl + Xr[m]] += Xv[m]
        if act[Xr[m]]:
            J[cl + Xr[m], ce + Xc[m]] -= Xv[m]
    nb, qoff, nqb, eoff, dgb, cqi, cqv, green, xi, W, ops = nlb
    if nb:
        nl_beams_jacobian(q, e, nq, nb, qoff, nqb, eoff, dgb, cqi, cqv, green, xi, W, ops, J)
    _loads_jacobian_add(q, loads, J, nq)

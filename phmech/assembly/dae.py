"""The assembled descriptor DAE of a :class:`~phmech.system.System`.

In the variables ``y = (q, e, lam)``

.. math::

    q' &= T(q)\\, e \\\\
    M e' &= J(e)\\, e - R e + G(q)^T \\lambda + f(t, q) \\\\
    0 &= w(t) - G(q)\\, e

with ``M``, ``J0``, ``R`` block diagonal over the bodies, ``J(e) = J0 -
sum_i e[k_i] K_i`` (gyroscopic slots), the joint rows ``G(q)`` and the
generalized forces ``f`` of the loads.  As a descriptor system
``E y' = f(t, y)`` with ``E = diag(I, M, 0)``; the multipliers are
algebraic variables of index 2.  Rows of redundant constraints (found at
assembly, see :mod:`phmech.assembly.initial`) are replaced by ``lam_i = 0``.

The power balance along any solution is
``dH/dt = -e^T R e + w^T lam + e^T f``: the joints' prescribed velocities
and the loads are the only ports through which energy enters.  The force
elements between bodies (:mod:`phmech.forces`) add ``-B(q)^T sigma`` to
the effort equations: their potentials and dissipation enter the balance.
"""
import warnings

import numpy as np
import scipy.sparse as sp

from ..kernels.loading import SetupClock
from ..math.sizes import DENSE_MAX
from ..forces.group import ForceGroup
from .energy import EnergyMixin
from .initial import ConsistencyError, InitialValuesMixin
from .kinematics import Kinematics
from .layout import Layout

#: ``G`` is a dense array up to this many entries, else sparse
DENSE_G_MAX = 100_000
#: :meth:`DescriptorDAE.jacobian` converts the kernels' dense Jacobian up to this many unknowns
DENSE_JACOBIAN_MAX = 500


class _Triplets:
    """``row, col, data`` of the nonzero entries of a matrix (dense or sparse), like a COO
    matrix but without scipy's construction cost (tens of microseconds) for small blocks."""

    def __init__(self, A):
        if sp.issparse(A) and A.format == "csr":
            self.row = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
            self.col, self.data = A.indices, A.data
        elif sp.issparse(A):
            A = A.tocoo()
            self.row, self.col, self.data = A.row, A.col, A.data
        else:
            A = np.asarray(A, float)
            self.row, self.col = np.nonzero(A)
            self.data = A[self.row, self.col]
        self.nnz = len(self.data)


def _block_diag(blocks, n):
    """The block-diagonal CSR matrix (``n x n``) of ``blocks``, pairs ``(A, size)`` of a
    square matrix (None: zero) and its size."""
    rows, cols, vals = [], [], []
    off = 0
    for A, size in blocks:
        if A is not None:
            t = _Triplets(A)
            rows.append(t.row + off)
            cols.append(t.col + off)
            vals.append(t.data)
        off += size
    if not rows:
        return sp.csr_matrix((n, n))
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))


class DescriptorDAE(EnergyMixin, InitialValuesMixin):
    """The assembled descriptor system ``E y' = f(t, y)`` of a :class:`System`."""

    def __init__(self, system):
        #: the seconds of this model's set-up not yet reported in a result (``Result.stats``)
        self.setup_clock = SetupClock()
        with self.setup_clock.timing():
            self._assemble(system)

    def _assemble(self, system):
        self.system = system
        bodies, joints, loads = system.bodies, system.joints, system.loads
        problems = [] if bodies else ["the system has no bodies"]
        for b in bodies:
            problems += b.check()
        owners = {id(b) for b in bodies}
        for j in joints:
            problems += j.check()
            for p in j.ports():
                if id(p.body) not in owners:
                    problems.append(f"joint '{j.name}': body '{p.body.name}' is not in the system")
        for ld in loads:
            problems += ld.check()
            if id(ld.body) not in owners:
                problems.append(f"load '{ld.name}': body '{ld.body.name}' is not in the system")
        forces = getattr(system, "forces", [])
        for fl in forces:
            problems += [f"force element '{fl.name}': port '{p.label}' is on body '{p.body.name}', which is "
                         "not in the system" for p in fl.ports() if id(p.body) not in owners]
        if problems:
            raise ConsistencyError(problems)

        self.layout = L = Layout(bodies, joints)
        for k in ("nq", "ne", "nl", "n", "sq", "se", "sl", "q_slices", "e_slices", "lam_slices"):
            setattr(self, k, getattr(L, k))

        self.M = _block_diag([(b.M, b.ne) for b in bodies], L.ne)
        self.J0 = _block_diag([(b.J0, b.ne) for b in bodies], L.ne)
        self.R = _block_diag([(b.R, b.ne) for b in bodies], L.ne)
        self.has_R = self.R.nnz > 0
        self.E = sp.block_diag([sp.identity(self.nq), self.M, sp.csr_matrix((self.nl, self.nl))],
                               format="csr")
        self._setup_gyroscopic()
        self.kinematics = Kinematics(L)
        self.effort_bodies = [(b, L.q_slices[b.name], L.e_slices[b.name]) for b in bodies if b.has_effort_terms]
        # joints by family: each family's group evaluates G and its derivative
        families = {}
        for j in joints:
            families.setdefault(j.Group, []).append(j)
        self.joint_groups = [Group(js, L) for Group, js in families.items()]
        self.loads = [(ld, L.q_slices[ld.body.name], L.e_slices[ld.body.name]) for ld in loads]
        self._w_dynamic = [(j, L.lam_slices[j.name]) for j in joints if not getattr(j._w, "constant", False)]
        self._w_const = np.concatenate([j.velocity(0.0) for j in joints]) if joints else np.zeros(0)
        self.q0 = np.concatenate([b.q0 for b in bodies])
        #: names of the loads with a potential (their power is -dV/dt)
        #: the loads whose force is exactly -dV/dt of their potential (the rest is supplied work)
        self.potential_loads = {ld.name for ld, sq, _ in self.loads if ld.potential(self.q0[sq]) is not None
                                and getattr(ld, "exact_potential", True)}
        for j in joints:
            j.bind(L.q_getter(self.q0))
        #: the force elements between bodies (:mod:`phmech.forces`)
        self.forces = ForceGroup(forces, L, L.q_getter(self.q0))
        self.dense_G = self.nl * self.ne <= DENSE_G_MAX
        self.active = np.ones(self.nl, bool)
        self.redundant_rows = []
        self._find_redundant_rows(self.q0)

    def _setup_gyroscopic(self):
        """Gather the gyroscopic matrices by slot: ``J(e) e = J0 e - sum_slot e[w_row] * (K_slot e)``."""
        L = self.layout
        per_slot = {}
        for b in L.bodies:
            off = L.e_slices[b.name].start
            for slot, (iw, K) in enumerate(b.gyro_terms()):
                per_slot.setdefault(slot, []).append((off, b.ne, off + iw, _Triplets(K)))
        self._K_slots = []
        for slot, items in sorted(per_slot.items()):
            r = np.concatenate([K.row + off for off, _, _, K in items])
            c = np.concatenate([K.col + off for off, _, _, K in items])
            v = np.concatenate([K.data for _, _, _, K in items])
            K_all = sp.csr_matrix((v, (r, c)), shape=(self.ne, self.ne))
            w_row = np.full(self.ne, self.ne)  # index into (e, 0)
            for off, n, iw, _ in items:
                w_row[off:off + n] = iw
            K_all = K_all.toarray() if self.ne <= DENSE_MAX else K_all
            self._K_slots.append((K_all, w_row))

    @property
    def gyro_slots(self):
        """The gyroscopic slots ``[(K_slot, w_row)]``: ``J(e) e = J0 e - sum e[w_row] * (K_slot e)``
        (``w_row`` indexes ``(e, 0)``, ``ne`` meaning none)."""
        return self._K_slots

    # -- views -------------------------------------------------------------
    def body_q_getter(self, q):
        return self.layout.q_getter(q)

    def split(self, y):
        return y[self.sq], y[self.se], y[self.sl]

    def __str__(self):
        """The summary of the model (:func:`phmech.assembly.summary.describe`)."""
        from .summary import describe
        return describe(self.system, self, "DescriptorDAE")

    def labels(self):
        return self.layout.labels()

    # -- the right-hand side -------------------------------------------------
    def G(self, q):
        """Constraint matrix ``G(q)``, shape ``(nl, ne)`` (redundant rows included): a dense
        array for small systems (``nl * ne <= DENSE_G_MAX``), else sparse CSR."""
        if self.dense_G:
            G = np.zeros((self.nl, self.ne))
            for g in self.joint_groups:
                g.add_G(q, G)
            return G
        r, c, v = self._G_triplets(q)
        return sp.csr_matrix((v, (r, c)), shape=(self.nl, self.ne))

    def _G_triplets(self, q):
        """``G(q)`` as triplets ``(rows, cols, values)`` of all joint groups (repeated entries add)."""
        return self._cat([g.G_triplets(q) for g in self.joint_groups])

    @staticmethod
    def _cat(triplets):
        if not triplets:
            return np.zeros(0, int), np.zeros(0, int), np.zeros(0)
        return tuple(np.concatenate([t[i] for t in triplets]) for i in range(3))

    def G_derivatives(self, q, e, lam):
        """``(d(G^T lam)/dq, d(G e)/dq)`` as sparse CSR matrices (``ne x nq``, ``nl x nq``)."""
        gt, ge = self._G_derivative_triplets(q, e, lam)
        return (sp.csr_matrix((gt[2], (gt[0], gt[1])), shape=(self.ne, self.nq)),
                sp.csr_matrix((ge[2], (ge[0], ge[1])), shape=(self.nl, self.nq)))

    def _G_derivative_triplets(self, q, e, lam):
        parts = [g.jacobian_triplets(q, e, lam) for g in self.joint_groups]
        return self._cat([p[0] for p in parts]), self._cat([p[1] for p in parts])

    @property
    def w_depends_on_time(self):
        """Whether a prescribed constraint velocity changes with time (else ``w(t)`` is constant)."""
        return bool(self._w_dynamic)

    def w(self, t):
        """Prescribed constraint velocities ``w(t)``."""
        w = self._w_const.copy()
        for j, sl in self._w_dynamic:
            w[sl] = j.velocity(t)
        return w

    def w_rate(self, t):
        if not self.nl:
            return np.zeros(0)
        return np.concatenate([j.velocity_rate(t) for j in self.system.joints])

    def residual(self):
        """The evaluation of :meth:`f`, its Jacobian and the supplied power
        (:class:`~phmech.assembly.compiled.CompiledResidual`: the kernels, and the leftovers'
        own methods), built once; also without numba (the kernels then run as Python)."""
        c = self.__dict__.get("_compiled")
        if c is None:
            from .compiled import CompiledResidual
            c = self._compiled = CompiledResidual(self)
        return c

    def f(self, t, y):
        """Right-hand side of ``E y' = f(t, y)`` (:meth:`residual`)."""
        return self.residual().f(t, y)

    def jacobian(self, t, y):
        """Sparse ``df/dy`` (exact), in CSC format: the kernels' Jacobian (:meth:`residual`),
        dense up to :data:`DENSE_JACOBIAN_MAX` unknowns, above it scattered into its sparse
        pattern by the same kernels."""
        c = self.residual()
        if self.n <= DENSE_JACOBIAN_MAX:
            from .compiled_jacobian import dense_csr
            indptr, indices, data = dense_csr(c.dense_jacobian(t, y))
            return sp.csr_matrix((data, indices, indptr), shape=(self.n, self.n)).tocsc()
        return c.sparse_jacobian(t, np.asarray(y, float)).tocsc()

    def check_rows(self, t, Y):
        """Warn about what the output rows ``(t, Y)`` of a run show the model could not follow: a
        spatial torsional spring or bushing turned past a full turn (its rotation measure and
        moment jump there, :meth:`~phmech.forces.group.ForceGroup.full_turns`)."""
        forces = getattr(self, "forces", None)
        if not forces or not forces.turning or len(t) < 2:
            return
        for name, ta, tb in forces.full_turns(t, np.asarray(Y)[:, self.sq]):
            warnings.warn(f"force element '{name}' turned past a full turn between t = {ta:.9g} and "
                          f"t = {tb:.9g}: its rotation measure follows the frames' quaternions within a "
                          "full turn either way and jumps there, and its moment and potential with it "
                          "(the rows after it are not the spring's)", RuntimeWarning, stacklevel=3)

    def compiled_residual(self):
        """The compiled evaluation of :meth:`f` (:meth:`residual`, which warns once when parts of
        the model have no kernel); None without numba."""
        from .compiled import compiled_residual
        return compiled_residual(self)


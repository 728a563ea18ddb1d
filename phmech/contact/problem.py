"""The nonsmooth view of an assembled system: ``M du = h dt + W_g dP_g + W_N dP_N + W_F dP_F``.

Built from the public methods of the assembled
:class:`~phmech.assembly.DescriptorDAE` (so that contacts act on every body
the assembly knows -- rigid bodies, point masses, flexible beams -- and on
mechanisms with joints), in the nomenclature of Capobianco, Harsch, Eugster
& Leine, IJNME 122 (2021), eqs. (1)-(6):

* ``u = e`` (the efforts: body-frame velocities and stresses), ``M`` the
  constant mass matrix of the floating-frame formulation;
* ``h(t, q, u) = J(u) u - R u + f(t, q, u)``, the smooth effort rows of
  ``f`` of the DAE with ``lam = 0``, and its exact Jacobians: from the
  compiled residual and its dense Jacobian where that is the model's whole
  right-hand side (``dae.compiled_residual().path == "compiled"``), else
  from the DAE's ``f`` and sparse ``jacobian``;
* the kinematic equation ``q' = T(q) u`` (``B = T``, ``beta = 0``);
* the bilateral constraints on velocity level ``W_g^T u = G(q) u = w(t)``
  with their multipliers (the state's ``lam``: the mean constraint force
  of the step, ``P_g / dt``);
* the contacts of :mod:`phmech.contact.contacts`, their gaps and force
  directions from the compiled :mod:`phmech.contact.kernels`
  (:meth:`NonsmoothProblem.contact_arrays`).

The state of the solvers is the DAE's ``y = (q, e, lam)``, so results,
labels and per-body views are those of the smooth system.
"""
import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from ..math.sizes import DENSE_MAX
from .contacts import Contact
from .kernels import contact_kinematics, pack
from ..solvers.prox import ContactSet


class NonsmoothProblem:
    """A :class:`~phmech.system.System` (or its assembled DAE) with unilateral contacts.

    Parameters
    ----------
    system : System or DescriptorDAE
    contacts : list of :class:`~phmech.contact.contacts.Contact`
    gap_tol : float
        A contact counts as closed for ``g_N <= gap_tol`` [m]: touching bodies
        whose gap is zero up to round-off (``1e-17`` either way) are closed.
        Finite and non-negative (a negative or NaN tolerance would let bodies
        pass through each other).

    Everything the DAE provides (``q_slices``, ``potential_energy``, ...) is
    available on this object too.
    """

    def __init__(self, system, contacts, gap_tol=1e-12):
        self.gap_tol = self._gap_tol(gap_tol)
        dae = system.assemble() if hasattr(system, "assemble") else system
        self.dae = dae
        try:
            self.contacts = list(contacts)
        except TypeError:
            raise ValueError(f"NonsmoothProblem: contacts must be a list of contacts, got {contacts!r}") from None
        owners = {b.name: b for b in dae.layout.bodies}
        problems, names = [], set()
        for k, c in enumerate(self.contacts):
            if not isinstance(c, Contact):
                problems.append(f"contacts[{k}] must be a contact (PointPlane, SphereSphere, ...), got {c!r}")
                continue
            problems += c.check()
            if c.name in names:
                problems.append(f"contact '{c.name}': the name is used twice")
            names.add(c.name)
            for p in c.ports():
                if owners.get(p.body.name) is not p.body:
                    problems.append(f"contact '{c.name}': body '{p.body.name}' is not in the system")
        if problems:
            raise ValueError("inconsistent contacts:\n  " + "\n  ".join(problems))
        for c in self.contacts:
            c.bind(dae.e_slices, dae.ne)
        try:
            *self._kin, self._ncol = pack(self.contacts, dae.layout)
        except ValueError as err:
            raise ValueError(f"inconsistent contacts:\n  {err}") from None
        self._stress = [c.depends_on_stresses for c in self.contacts]
        self._cs_all = ContactSet([c.mu for c in self.contacts], [c.nF for c in self.contacts])
        compiled = getattr(dae, "compiled_residual", lambda: None)()
        #: the smooth part from the compiled residual and its dense Jacobian, when it is the
        #: whole right-hand side (else the DAE's own ``f`` and sparse ``jacobian``)
        self._compiled = compiled if compiled is not None and compiled.path == "compiled" else None
        M = sp.csc_matrix(dae.M)
        #: the mass matrix as a dense array (the schemes' velocity systems are dense)
        self.M_dense = M.toarray()
        if dae.ne <= DENSE_MAX:
            self._Mfac = ("dense", la.cho_factor(M.toarray()))
        else:
            self._Mfac = ("sparse", splu(M))
        # unit quaternions to renormalize after each step
        self._quat = [dae.q_slices[b.name].start + 3 for b in dae.layout.bodies
                      if b.q_labels[3:7] == ["p0", "p1", "p2", "p3"]]
        self._potential = bool(dae.potential_loads)

    @staticmethod
    def _gap_tol(value):
        if not isinstance(value, (bool, np.bool_)):
            try:
                v = float(value)
            except (TypeError, ValueError):
                v = None
            if v is not None and np.isfinite(v) and v >= 0:
                return v
        raise ValueError(f"NonsmoothProblem: gap_tol must be a finite non-negative length (a contact "
                         f"closes for g_N <= gap_tol), got {value!r}")

    def __getattr__(self, name):
        if name == "dae":
            raise AttributeError(name)
        return getattr(self.dae, name)

    # -- the smooth part --------------------------------------------------------
    def _y(self, q, u, lam=None):
        y = np.zeros(self.dae.n)
        y[self.dae.sq], y[self.dae.se] = q, u
        if lam is not None:
            y[self.dae.sl] = lam
        return y

    def _f(self, t, y):
        return self._compiled.f(t, y) if self._compiled is not None else self.dae.f(t, y)

    def _jacobian_blocks(self, t, y, rows, cols):
        """Dense blocks ``df/dy[rows_i, cols_i]`` (exact; the compiled dense Jacobian where the
        compiled residual is the whole right-hand side)."""
        if self._compiled is not None:
            J = self._compiled.jacobian(y, t)
            return [J[r, c] for r, c in zip(rows, cols)]
        J = self.dae.jacobian(t, y).tocsr()
        return [J[r, c].toarray() for r, c in zip(rows, cols)]

    def h(self, t, q, u):
        """Smooth generalized forces ``h(t, q, u)`` (gyroscopic, dissipative, loads)."""
        return self._f(t, self._y(q, u))[self.dae.se]

    def h_jacobians(self, t, q, u):
        """``(dh/dq, dh/du)`` as dense arrays (exact, from the DAE's Jacobian)."""
        se, sq = self.dae.se, self.dae.sq
        return tuple(self._jacobian_blocks(t, self._y(q, u), (se, se), (sq, se)))

    def qdot(self, q, u):
        """``q' = T(q) u``."""
        out = np.zeros(self.dae.n)
        self.dae.kinematics.qdot_into(q, u, out)
        return out[self.dae.sq]

    def kinematic_jacobians(self, q, u):
        """``(d(T(q) u)/dq, T(q))`` (dense, exact)."""
        sq, se = self.dae.sq, self.dae.se
        return tuple(self._jacobian_blocks(0.0, self._y(q, u), (sq, sq), (sq, se)))

    def T(self, q):
        """``T(q) = d q'/du`` (dense)."""
        sq, se = self.dae.sq, self.dae.se
        return self._jacobian_blocks(0.0, self._y(q, np.zeros(self.dae.ne)), (sq,), (se,))[0]

    def solve_M(self, b):
        """``M^{-1} b`` (``b`` a vector or the columns of a matrix)."""
        kind, fac = self._Mfac
        return la.cho_solve(fac, b) if kind == "dense" else fac.solve(np.asarray(b, float))

    def normalize(self, q):
        """Unit quaternions of the spatial bodies renormalized (in place), returns ``q``."""
        for k in self._quat:
            q[k:k + 4] /= np.linalg.norm(q[k:k + 4])
        return q

    def G(self, q):
        """Bilateral constraint matrix ``W_g^T = G(q)`` (dense)."""
        G = self.dae.G(q)
        return G.toarray() if sp.issparse(G) else np.asarray(G)

    def position_rows(self, q):
        """``[(joint, lam slice, s_j)]``: the joints whose position residual ``g_j(q)`` matches their rows
        of ``G``, with the sign ``s_j`` of ``d g_j / dt = s_j G_j u`` (checked by central differences
        along a test velocity at ``q``)."""
        d = self.dae
        u = np.random.default_rng(0).normal(size=d.ne)
        eps = 1e-7
        qd = self.qdot(q, u)
        rp, rm = d.position_residuals(0.0, q + eps * qd), d.position_residuals(0.0, q - eps * qd)
        G = self.G(q)
        out = []
        for name, r0 in d.position_residuals(0.0, q).items():
            sl = d.lam_slices[name]
            if len(r0) != sl.stop - sl.start:
                continue
            rate, Gu = (rp[name] - rm[name]) / (2 * eps), G[sl] @ u
            for sign in (1.0, -1.0):
                if np.allclose(rate, sign * Gu, rtol=1e-5, atol=1e-6 * max(1.0, np.abs(Gu).max())):
                    out.append((name, sl, sign))
                    break
        return out

    def position_residual(self, t, q, rows):
        """``-s_j g_j(q)`` on the rows of ``G`` of the joints ``rows`` (:meth:`position_rows`), zero elsewhere."""
        out = np.zeros(self.dae.nl)
        if rows:
            res = self.dae.position_residuals(t, q)
            for name, sl, sign in rows:
                out[sl] = -sign * res[name]
        return out

    # -- contacts -------------------------------------------------------------------
    def contact_arrays(self, q, u=None, dt=0.0):
        """Gaps of all contacts and their force directions ``W = [W_N | W_F]`` in the layout of
        :attr:`contact_set` (:func:`~phmech.contact.kernels.contact_kinematics`): ``(g_N, W)``.

        Gaps that depend on the stresses (beams fixed in space) are evaluated at
        the efforts ``u`` and advanced by ``dt W_N^T u`` -- the counterpart of the
        configuration update ``q + dt T(q) u`` of the other gaps.
        """
        nc = len(self.contacts)
        if u is None:
            if any(self._stress):
                name = self.contacts[self._stress.index(True)].name
                raise ValueError(f"contact '{name}': its gap depends on the stresses; the efforts u are needed")
            u = np.zeros(self.dae.ne)
        g, W = np.empty(nc), np.empty((self.dae.ne, self._ncol))
        bad = contact_kinematics(np.asarray(q, float), np.asarray(u, float), float(dt), *self._kin, g, W)
        if bad >= 0:
            raise ValueError(f"contact '{self.contacts[bad].name}': the centres of the spheres coincide")
        return g, W

    @property
    def contact_set(self):
        """The :class:`~phmech.solvers.prox.ContactSet` of all contacts (the columns of ``W``)."""
        return self._cs_all

    def contact_state(self, q, u=None, dt=0.0):
        """Gaps of all contacts and their force directions: ``(g_N (nc,), [(W_N, W_F)])``
        (:meth:`contact_arrays` split by contact)."""
        g, W = self.contact_arrays(q, u, dt)
        cs = self._cs_all
        return g, [(W[:, k], W[:, cs.F[k]]) for k in range(cs.m)]

    @property
    def stress_gaps(self):
        """Names of the contacts whose gaps depend on the stresses."""
        return [c.name for c in self.contacts if c.depends_on_stresses]

    def closed(self, q, active=None, u=None, dt=0.0):
        """Closed contacts at ``q`` (``g_N <= gap_tol``, or the given indices): ``(indices, ContactSet, W)``
        with ``W = [W_N columns | W_F columns]`` in the order of :class:`ContactSet`."""
        g, Wall = self.contact_arrays(q, u, dt)
        idx = np.flatnonzero(g <= self.gap_tol) if active is None else np.asarray(active, int)
        cs = ContactSet([self.contacts[i].mu for i in idx], [self.contacts[i].nF for i in idx])
        F = self._cs_all.F
        cols = np.r_[idx, np.concatenate([F[i] for i in idx])] if len(idx) else np.zeros(0, int)
        return idx, cs, Wall[:, cols.astype(int)], g

    def project(self, y, t=0.0, max_iterations=20):
        """A copy of the state ``y`` with every penetrating contact brought to touch (``g_N = 0``).

        Gauss--Newton on the gaps: the smallest correction ``du`` in the kinetic-energy
        norm with ``W_N^T du = -g_N`` on the contacts that penetrate (and stay closed
        once corrected) and ``G du = -s_j g_j(q)`` on the joints that hold on position
        level (:meth:`position_rows`; the other joints ``G du = 0``), applied as
        ``q <- q + T(q) du`` until the gaps and these joints close to round-off;
        velocities are kept.  Contacts whose gap depends on the stresses (beams) cannot
        be projected: a ``ValueError`` names them.
        """
        d = self.dae
        y = np.array(y, float)
        q, u = y[d.sq].copy(), y[d.se]
        act = np.flatnonzero(d.active)
        rows = self.position_rows(q) if len(act) else []
        active = set()
        for _ in range(max_iterations + 1):
            g, Ws = self.contact_state(q, u)
            tol = 1e-12 * max(1.0, np.max(np.abs(q), initial=0.0))
            pen = np.flatnonzero(g < -tol)
            stress = [self.contacts[i].name for i in pen if self.contacts[i].depends_on_stresses]
            if stress:
                raise ValueError(f"NonsmoothProblem.project: the gaps of contacts {stress} depend on the "
                                 f"stresses of a beam and cannot be projected; correct y0")
            active.update(pen.tolist())
            A = sorted(active)
            joints = self.position_residual(t, q, rows)[act]
            if not len(pen) and np.max(np.abs(joints), initial=0.0) <= tol:
                y[d.sq] = q
                return y
            C = np.column_stack([Ws[i][0] for i in A] + ([self.G(q)[act].T] if len(act) else []))
            Z = self.solve_M(C)
            lam = np.linalg.lstsq(C.T @ Z, np.r_[-g[A], joints], rcond=None)[0]
            q = self.normalize(q + self.T(q) @ (Z @ lam))
        names = [self.contacts[i].name for i in pen]
        raise ValueError(f"NonsmoothProblem.project: the contacts {names} (or the joints) do not close after "
                         f"{max_iterations} corrections (largest depth {max(0.0, -g.min()):.3g}); correct y0")

    def restitution(self, idx, cs):
        """Vector of ``e_N`` / ``e_F`` over the rows of ``P`` for the contacts ``idx``."""
        e = np.zeros(cs.n)
        for k, i in enumerate(idx):
            e[k] = self.contacts[i].e_N
            e[cs.F[k]] = self.contacts[i].e_F
        return e

    # -- energy ---------------------------------------------------------------------
    def energy(self, y):
        """Kinetic energy plus the potentials of the conservative loads (one state or rows)."""
        H = self.dae.hamiltonian(y)
        return H + self.dae.potential_energy(y, exact=True) if self._potential else H

    #: the stored energy of the results (``Result.hamiltonian``, ``Result.energy_balance``)
    hamiltonian = energy

    def power_in(self, t, y):
        """Power of the non-conservative smooth ports (loads without potential, drivers, dissipation)."""
        return self.dae.power(t, y, include_potential=False)

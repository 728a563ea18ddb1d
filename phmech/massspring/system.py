"""``MassSpringSystem``: the network builder with the source document's API.

>>> from phmech import massspring as ms
>>> mss = ms.MassSpringSystem3d()
>>> mss.gravity = [0, -9.81, 0]
>>> f = mss.add(ms.Fix([0, 0, 0]))
>>> m1 = mss.add(ms.Mass(1.0, [1, 0, 0]))
>>> _ = mss.add(ms.Spring(1.0, 20.0, [f, m1]))
>>> res = mss.simulate(tend=0.1, steps=10)
>>> mss.masses[0].pos.shape
(3,)

``simulate(tend, steps)`` advances the motion by ``tend`` seconds (the
source's meaning: every call continues from the current state) with the
generalized-alpha method (:mod:`phmech.solvers.genalpha`), writes the new
positions and velocities into ``mss.masses[i].pos`` / ``.vel`` in place and
keeps the accelerations and multipliers, so that consecutive calls give
the same trajectory as one long call.  It returns a
:class:`MassSpringResult` with the trajectory, energies and multipliers.
"""
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from .._checks import time_function
from ..result import Result
from .elements import Chain, Connector, Dashpot, DistanceConstraint, Fix, Force, Mass, Spring
from .network import Network
from .problem import MassSpringProblem


class MassSpringResult(Result):
    """A :class:`~phmech.result.Result` of a network run with per-mass and energy views."""

    @classmethod
    def from_result(cls, res):
        out = cls(res.t, res.y, res.dae, res.solver, res.stats, res.message)
        out.work, out.t_events, out.y_events = res.work, res.t_events, res.y_events
        return out

    @property
    def problem(self):
        return self.dae

    def positions(self):
        """Positions of the masses, shape ``(N, nm, dim)``."""
        d = self.dae
        return self.y[:, d.sq].reshape(len(self.t), -1, d.dim)

    def velocities(self):
        d = self.dae
        return self.y[:, d.se].reshape(len(self.t), -1, d.dim)

    def multipliers(self):
        """Tensions of the distance constraints [N], shape ``(N, nl)``."""
        return self.y[:, self.dae.sl]

    def _cumulative(self, rate):
        r = np.array([rate(t, y) for t, y in zip(self.t, self.y)])
        return np.concatenate([[0.0], np.cumsum(0.5 * (r[1:] + r[:-1]) * np.diff(self.t))])

    def energies(self):
        """Energy account at the output times (dict of arrays).

        ``kinetic``, ``spring``, ``gravity`` (potential, constant gravity),
        ``total``; ``work_loads`` (work of the nodal loads and of a
        time-dependent gravity), ``dissipated_dashpots``, both by the
        trapezoidal rule over the rows; ``numerical_dissipation = total(0) +
        work_loads - dissipated_dashpots - total`` (energy removed by the
        method; ~0 for ``rho_inf = 1`` up to the quadrature error);
        ``constraint_power = lam . G v`` (zero: the velocity constraint holds at
        every step).
        """
        d = self.dae
        E = d.energies(self.y)
        out = {"kinetic": E[:, 0], "spring": E[:, 1], "gravity": E[:, 2], "total": E.sum(axis=1)}
        out["work_loads"] = self._cumulative(d.load_power)
        out["dissipated_dashpots"] = self._cumulative(d.dissipation)
        out["numerical_dissipation"] = (out["total"][0] + out["work_loads"] - out["dissipated_dashpots"]
                                        - out["total"])
        out["constraint_power"] = np.array([float(y[d.sl] @ (d.G(y[d.sq]) @ y[d.se])) for y in self.y])
        return out

    def energy_report(self):
        """The energy account at the end of the run (floats): the entries of :meth:`energies`
        at the last row, ``constraint_power`` as its largest magnitude."""
        e = self.energies()
        out = {k: float(v[-1]) for k, v in e.items() if k != "constraint_power"}
        out["constraint_power"] = float(np.max(np.abs(e["constraint_power"])))
        return out

    def constraint_drift(self):
        """``(max |g(q)|, max |G v|)`` over the run."""
        d = self.dae
        if not d.nl:
            return 0.0, 0.0
        pos = max(float(np.max(np.abs(d.g(y[d.sq])))) for y in self.y)
        vel = max(float(np.max(np.abs(d.G(y[d.sq]) @ y[d.se]))) for y in self.y)
        return pos, vel


def _vector(value, dim):
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    return a if a.shape == (dim,) and np.all(np.isfinite(a)) else None


def _number(value):
    if isinstance(value, (bool, np.bool_)):
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if np.isfinite(v) else None


def _is_state_array(a, dim):
    """``a`` is already what ``simulate`` writes into in place: a float array of shape ``(dim,)``."""
    return type(a) is np.ndarray and a.dtype == np.float64 and a.shape == (dim,) and a.flags.writeable


class MassSpringSystem:
    """A network of masses, fixed points, springs, chains, dashpots and distance constraints.

    Parameters
    ----------
    dim : 2 or 3
    """

    def __init__(self, dim=3):
        if dim not in (2, 3):
            raise ValueError(f"MassSpringSystem: dim must be 2 or 3, got {dim!r}")
        self.dim = dim
        self.masses, self.fixes = [], []
        self.springs, self.dashpots, self.constraints, self.loads = [], [], [], []
        self._gravity = np.zeros(dim)
        #: the system's clock [s]; ``simulate`` advances it
        self.t = 0.0
        self.rho_inf = 0.9
        self._carry = None          # (q, v, lam, qdd, a) at the end of the last run

    # -- building ----------------------------------------------------------------
    @property
    def gravity(self):
        return self._gravity

    @gravity.setter
    def gravity(self, g):
        """A vector, or a function ``t -> vector`` (time-dependent gravity)."""
        if not callable(g) and _vector(g, self.dim) is None:
            raise ValueError(f"MassSpringSystem: gravity must be {self.dim} finite numbers or a function of t, "
                             f"got {g!r}")
        self._gravity = g if callable(g) else np.asarray(g, float)
        self._carry = None

    def add(self, element):
        """Add an element; a ``Mass`` or ``Fix`` returns its handle (a :class:`Connector`),
        other elements their index in their list."""
        self._carry = None
        for cls, lst, kind in ((Mass, self.masses, "mass"), (Fix, self.fixes, "fix")):
            if isinstance(element, cls):
                lst.append(element)
                if kind == "mass" and element.vel is None:
                    element.vel = np.zeros(self.dim)
                return Connector(kind, len(lst) - 1)
        for cls, lst in ((Spring, self.springs), (Dashpot, self.dashpots),
                         (DistanceConstraint, self.constraints), (Force, self.loads)):
            if isinstance(element, cls):
                lst.append(element)
                return len(lst) - 1
        raise TypeError(f"MassSpringSystem.add: expected Mass, Fix, Spring, Chain, Dashpot, DistanceConstraint "
                        f"or Force, got {element!r}")

    # -- checks ------------------------------------------------------------------
    def _node(self, c, owner, problems):
        if isinstance(c, (Mass, Fix)):
            lst = self.masses if isinstance(c, Mass) else self.fixes
            for k, x in enumerate(lst):
                if x is c:
                    return k if isinstance(c, Mass) else len(self.masses) + k
            problems.append(f"{owner}: {c!r} is not in the system (add it first)")
            return None
        if not isinstance(c, Connector):
            problems.append(f"{owner}: connector {c!r} is not a handle returned by add()")
            return None
        n = len(self.masses) if c.kind == "mass" else len(self.fixes)
        if c.kind not in ("mass", "fix") or not 0 <= c.index < n:
            problems.append(f"{owner}: connector {c!r} is out of range (the system has {n} {c.kind}(es))")
            return None
        return c.index if c.kind == "mass" else len(self.masses) + c.index

    def check(self):
        """Every inconsistency of the model, as a list of messages (empty when fine)."""
        p, d = [], self.dim
        for k, m in enumerate(self.masses):
            mv = _number(m.mass)
            if mv is None or mv <= 0:
                p.append(f"mass {k}: mass must be positive and finite, got {m.mass!r}")
            if _vector(m.pos, d) is None:
                p.append(f"mass {k}: pos must be {d} finite numbers, got {m.pos!r}")
            if _vector(m.vel, d) is None:
                p.append(f"mass {k}: vel must be {d} finite numbers, got {m.vel!r}")
        for k, f in enumerate(self.fixes):
            if _vector(f.pos, d) is None:
                p.append(f"fix {k}: pos must be {d} finite numbers, got {f.pos!r}")
        X = {}
        for k, m in enumerate(self.masses):
            X[k] = _vector(m.pos, d)
        for k, f in enumerate(self.fixes):
            X[len(self.masses) + k] = _vector(f.pos, d)
        for kind, lst, params in (("spring", self.springs, (("length", True), ("stiffness", False))),
                                  ("dashpot", self.dashpots, (("damping", False),)),
                                  ("distance constraint", self.constraints, (("length", True),))):
            for k, e in enumerate(lst):
                owner = f"{'chain' if isinstance(e, Chain) else kind} {k}"
                for name, strict in params:
                    v = _number(getattr(e, name))
                    if v is None or v < 0 or (strict and v == 0):
                        p.append(f"{owner}: {name} must be {'positive' if strict else 'non-negative'} and "
                                 f"finite, got {getattr(e, name)!r}")
                con = e.connectors
                if not isinstance(con, tuple) or len(con) != 2:
                    p.append(f"{owner}: needs two connectors (a, b), got {con!r}")
                    continue
                i, j = (self._node(c, owner, p) for c in con)
                if i is None or j is None:
                    continue
                if i == j:
                    p.append(f"{owner}: both ends are the same node {con[0]!r}")
                elif i >= len(self.masses) and j >= len(self.masses):
                    p.append(f"{owner}: both ends {con[0]!r}, {con[1]!r} are fixed points")
                elif X[i] is not None and X[j] is not None and np.linalg.norm(X[j] - X[i]) == 0:
                    p.append(f"{owner}: its ends {con[0]!r} and {con[1]!r} are at the same position "
                             f"{X[i].tolist()} (zero length, no direction)")
        for k, ld in enumerate(self.loads):
            owner = f"force {k}"
            if not isinstance(ld.node, Connector) or ld.node.kind != "mass":
                p.append(f"{owner}: must act on a mass handle, got {ld.node!r}")
            else:
                self._node(ld.node, owner, p)
            if not callable(ld.force) and _vector(ld.force, d) is None:
                p.append(f"{owner}: force must be {d} finite numbers or a function of t, got {ld.force!r}")
        if not callable(self._gravity) and _vector(self._gravity, d) is None:
            p.append(f"gravity must be {d} finite numbers or a function of t, got {self._gravity!r}")
        if not self.masses:
            p.append("the system has no masses")
        return p

    def _raise_problems(self):
        p = self.check()
        if p:
            raise ValueError(f"mass-spring system ({self.dim}D) has {len(p)} problem(s):\n  - " + "\n  - ".join(p))

    # -- assembly ----------------------------------------------------------------
    def _fingerprint(self):
        """Everything the assembled equations depend on besides the state (to reuse them)."""
        def arr(x):
            return np.asarray(x).tobytes() if isinstance(x, np.ndarray) else repr(x)
        return (self.dim, id(self._gravity) if callable(self._gravity) else arr(self._gravity),
                tuple(m.mass for m in self.masses), tuple(arr(f.pos) for f in self.fixes),
                tuple((e.length, e.stiffness, e.tension_only, e.connectors) for e in self.springs),
                tuple((e.damping, e.connectors) for e in self.dashpots),
                tuple((e.length, e.connectors) for e in self.constraints),
                tuple((ld.node, id(ld.force) if callable(ld.force) else arr(ld.force)) for ld in self.loads))

    def problem(self):
        """The equations of motion (:class:`~phmech.massspring.problem.MassSpringProblem`).

        Checked and assembled once; reused while the model (element lists and
        parameters, gravity, fixed points) is unchanged."""
        try:
            key = self._fingerprint()
        except TypeError:                 # unhashable user data: assemble anew
            key = None
        cached = getattr(self, "_problem_cache", None)
        if key is not None and cached is not None and cached[0] == key:
            return cached[1]
        prob = self._assemble()
        self._problem_cache = (key, prob)
        return prob

    def _assemble(self):
        self._raise_problems()
        d = self.dim
        nodes = lambda e: [self._node(c, "", []) for c in e.connectors]   # noqa: E731
        sp_ij = np.array([nodes(e) for e in self.springs], int).reshape(-1, 2)
        dp_ij = np.array([nodes(e) for e in self.dashpots], int).reshape(-1, 2)
        cn_ij = np.array([nodes(e) for e in self.constraints], int).reshape(-1, 2)
        net = Network(d, [float(m.mass) for m in self.masses], [np.asarray(f.pos, float) for f in self.fixes],
                      (sp_ij[:, 0], sp_ij[:, 1], np.array([float(e.length) for e in self.springs]),
                       np.array([float(e.stiffness) for e in self.springs]),
                       np.array([bool(e.tension_only) for e in self.springs], bool)),
                      (dp_ij[:, 0], dp_ij[:, 1], np.array([float(e.damping) for e in self.dashpots])),
                      (cn_ij[:, 0], cn_ij[:, 1], np.array([float(e.length) for e in self.constraints])))
        loads = [(ld.node.index, time_function(ld.force, d, "force", f"mass-spring force {k}"))
                 for k, ld in enumerate(self.loads)]
        gravity = time_function(self._gravity, d, "gravity", "mass-spring gravity") if callable(self._gravity) \
            else self._gravity
        return MassSpringProblem(net, gravity, loads)

    def state(self):
        """``(q, v)``: stacked positions and velocities of the masses.

        Checks them first (``dim`` finite numbers each; one error naming
        every bad mass and value) and turns positions and velocities given
        as lists (or integer arrays) into the float arrays that
        :meth:`simulate` updates in place -- only when every mass is fine,
        so that a refused call changes nothing."""
        d, masses = self.dim, self.masses
        if not masses:
            raise ValueError(f"mass-spring system ({d}D) has no masses")
        try:
            Q = np.array([m.pos for m in masses], dtype=float)
            V = np.array([m.vel for m in masses], dtype=float)
            fine = (Q.shape == V.shape == (len(masses), d) and np.all(np.isfinite(Q))
                    and np.all(np.isfinite(V)))
        except (TypeError, ValueError):
            fine = False
        if not fine:
            problems = []
            for k, m in enumerate(masses):
                for name in ("pos", "vel"):
                    if _vector(getattr(m, name), d) is None:
                        problems.append(f"mass {k}: {name} must be {d} finite numbers, got {getattr(m, name)!r}")
            raise ValueError(f"mass-spring system ({d}D): {len(problems)} bad initial value(s):\n  - "
                             + "\n  - ".join(problems))
        for k, m in enumerate(masses):
            if not _is_state_array(m.pos, d):
                m.pos = Q[k].copy()
            if not _is_state_array(m.vel, d):
                m.vel = V[k].copy()
        return Q.ravel(), V.ravel()

    def _check_lengths(self, prob, q):
        """Refuse a state in which an element's two ends coincide (no direction: the forces and
        the constraint rows are undefined), naming the element and the position."""
        X = prob.net.nodes(q)
        problems = []
        for kind, pairs, elements in (("spring", prob.net.springs, self.springs),
                                      ("dashpot", prob.net.dashpots, self.dashpots),
                                      ("distance constraint", prob.net.cons, self.constraints)):
            if not pairs.m:
                continue
            L = np.linalg.norm(X[pairs.j] - X[pairs.i], axis=1)
            for k in np.flatnonzero(~(L > 0))[:5]:
                e = elements[k]
                name = "chain" if isinstance(e, Chain) else kind
                problems.append(f"{name} {k}: its ends {e.connectors[0]!r} and {e.connectors[1]!r} are at the "
                                f"same position {X[pairs.i[k]].tolist()} (zero length, no direction)")
        if problems:
            raise ValueError(f"mass-spring system ({self.dim}D) at t = {self.t:g}: {len(problems)} problem(s):"
                             "\n  - " + "\n  - ".join(problems))

    def _write_state(self, q, v):
        for k, m in enumerate(self.masses):
            m.pos[...] = q[k * self.dim:(k + 1) * self.dim]
            m.vel[...] = v[k * self.dim:(k + 1) * self.dim]

    @staticmethod
    def project(prob, q, v, tol=1e-12, maxit=50):
        """Nearest consistent state (mass-weighted): ``g(q) = 0`` by Gauss-Newton, then ``G v = 0``."""
        if not prob.nl:
            return q, v
        Minv = sp.diags(1.0 / prob.m_nodes)
        for _ in range(maxit):
            r = prob.g(q)
            if np.max(np.abs(r)) < tol * max(1.0, np.max(np.abs(q))):
                break
            G = prob.G(q)
            q = q - Minv @ (G.T @ splu(sp.csc_matrix(G @ Minv @ G.T)).solve(r))
        else:
            raise ValueError(f"the distance constraints cannot be met near the initial positions "
                             f"(largest residual {np.max(np.abs(prob.g(q))):.3g} m)")
        G = prob.G(q)
        v = v - Minv @ (G.T @ splu(sp.csc_matrix(G @ Minv @ G.T)).solve(G @ v))
        return q, v

    # -- simulation ----------------------------------------------------------------
    def simulate(self, tend, steps, rho_inf=None, **options):
        """Advance the motion by ``tend`` seconds in ``steps`` generalized-alpha steps.

        Parameters
        ----------
        tend : float
            Duration of this call [s] (the clock ``mss.t`` advances by it).
        steps : int
        rho_inf : float in [0, 1], optional
            Spectral radius at infinite frequency (default ``mss.rho_inf = 0.9``).
        **options
            Options of :func:`phmech.solvers.solve` (``t_eval``, ``events``,
            ``progress``, ...) and of the solver (``newton_tol``, ``max_newton``).

        Returns
        -------
        MassSpringResult
            The trajectory (every step unless ``t_eval``/``dt_out`` is given).

        Notes
        -----
        Initial positions and velocities that violate the distance
        constraints are projected (mass-weighted) with a warning naming the
        largest residual.  Accelerations and multipliers are carried to the
        next call unless the model or the state has been changed in between.
        """
        from ..solvers import solve
        duration = _number(tend)
        if duration is None or duration <= 0:
            raise ValueError(f"simulate: tend must be a positive duration, got {tend!r}")
        tend = duration
        if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
            raise ValueError(f"simulate: steps must be a positive integer, got {steps!r}")
        rho = self.rho_inf if rho_inf is None else rho_inf
        if _number(rho) is None or not 0.0 <= float(rho) <= 1.0:
            raise ValueError(f"simulate: rho_inf must be a number in [0, 1], got {rho!r}")
        prob = self.problem()
        q, v = self.state()
        self._check_lengths(prob, q)
        prob.external_force(self.t)          # a load or gravity function that fails does so now
        acc0, lam = None, np.zeros(prob.nl)
        c = self._carry
        if c is not None and np.array_equal(c[0], q) and np.array_equal(c[1], v) and c[4] == rho:
            lam, acc0 = c[2], c[3]          # the accelerations and the kept iteration matrix's point
        else:
            g0 = prob.g(q)
            gv = prob.G(q) @ v
            if prob.nl and (np.max(np.abs(g0)) > 1e-10 or np.max(np.abs(gv)) > 1e-10):
                k = int(np.argmax(np.abs(g0)))
                warnings.warn(f"simulate: the initial state violates the distance constraints (constraint {k}: "
                              f"|g| = {abs(g0[k]):.3g} m, largest |G v| = {np.max(np.abs(gv)):.3g} m/s); "
                              "projected onto them", stacklevel=2)
                q, v = self.project(prob, q, v)
        last = []                               # the solver, to read its final state
        callbacks = list(options.pop("callbacks", None) or []) + [lambda s: last.append(s) if not last else None]
        res = solve(prob, (self.t, self.t + tend), np.r_[q, v, lam], method="genalpha", dt=tend / steps,
                    rho_inf=rho, acc0=acc0, callbacks=callbacks, **options)
        solver = last[0]
        yq, yv, ylam = prob.split(solver.y)
        carry = (yq.copy(), yv.copy(), ylam.copy(), solver.restart_data(), rho)
        out = MassSpringResult.from_result(res)
        self._write_state(yq, yv)                # float arrays of shape (dim,): cannot fail
        self.t = float(solver.t)
        self._carry = carry
        return out

    # -- statics and modes ----------------------------------------------------------
    def equilibrium(self, t=0.0, tol=1e-11, maxit=100):
        """Static equilibrium near the current positions: Newton on ``f(q) - G^T lam = 0``,
        ``g(q) = 0`` with the exact Jacobians, damped (steps of at most a tenth of the
        shortest element, halved while the residual grows) so that it stays on the branch
        of the starting shape.  Writes it into the masses (velocities zero) and returns
        ``(q, lam)``."""
        prob = self.problem()
        q, _ = self.state()
        q, _ = self.project(prob, q, np.zeros_like(q))
        zero = np.zeros_like(q)
        lam = np.linalg.lstsq(prob.G(q).T.toarray(), prob.force(t, q, zero), rcond=None)[0] if prob.nl \
            else np.zeros(0)
        lengths = np.r_[prob.net.L0, prob.net.Lc]
        limit = 0.1 * float(np.min(lengths)) if len(lengths) else np.inf

        def residual(q, lam):
            G = prob.G(q)
            return np.r_[prob.force(t, q, zero) - G.T @ lam, -prob.g(q)], G
        r, G = residual(q, lam)
        for it in range(maxit):
            K, _ = prob.force_jacobians(t, q, zero)
            A = sp.bmat([[K - prob.constraint_hessian(q, lam), -G.T], [-G, None]], format="csc") if prob.nl \
                else sp.csc_matrix(K)
            dx = splu(A).solve(-r)
            # damped Newton: steps of at most a tenth of the shortest element, halved while the
            # residual grows (keeps the iteration on the branch of the starting shape)
            step = min(1.0, limit / max(float(np.max(np.abs(dx[:prob.nq]))), 1e-300))
            for _ in range(30):
                qn, ln = q + step * dx[:prob.nq], lam + step * dx[prob.nq:]
                rn, Gn = residual(qn, ln)
                if np.linalg.norm(rn) < np.linalg.norm(r) or step < 1e-6:
                    break
                step *= 0.5
            q, lam, r, G = qn, ln, rn, Gn
            if step == 1.0 and np.max(np.abs(dx[:prob.nq])) < tol * max(1.0, np.max(np.abs(q))):
                break
        else:
            raise ValueError(f"equilibrium: Newton did not converge in {maxit} iterations")
        self._write_state(q, zero)
        self._carry = None
        return q, lam

    def natural_frequencies(self, k=None, t=0.0):
        """Natural frequencies [Hz] of the motion linearized about the current state at rest
        (tangent stiffness incl. geometric terms, constrained to the null space of ``G``).

        Dense eigenvalue problem: meant for networks of up to a few thousand unknowns."""
        import scipy.linalg as sla
        prob = self.problem()
        q, _ = self.state()
        zero = np.zeros_like(q)
        K, _ = prob.force_jacobians(t, q, zero)
        Kt = -K.toarray()
        M = prob.M.toarray()
        if prob.nl:
            G = prob.G(q).toarray()
            lam = np.linalg.lstsq(G.T, prob.force(t, q, zero), rcond=None)[0]
            Kt = Kt + prob.constraint_hessian(q, lam).toarray()
            N = sla.null_space(G)
            Kt, M = N.T @ Kt @ N, N.T @ M @ N
        w2 = np.sort(sla.eigh(0.5 * (Kt + Kt.T), M, eigvals_only=True))
        f = np.sqrt(np.maximum(w2, 0.0)) / (2 * np.pi)
        return f if k is None else f[:k]


def MassSpringSystem2d():
    """A planar network (``MassSpringSystem(2)``)."""
    return MassSpringSystem(2)


def MassSpringSystem3d():
    """A spatial network (``MassSpringSystem(3)``)."""
    return MassSpringSystem(3)

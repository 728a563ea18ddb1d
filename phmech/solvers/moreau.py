"""Moreau's time stepping for mechanical systems with unilateral contacts and friction.

Midpoint scheme (Moreau, "Unilateral contact and dry friction in finite
freedom dynamics", CISM 302 (1988), Sect. 10; Studer, LN Appl. Comp. Mech.
47 (2009), Sect. 6.1; Capobianco et al., IJNME 122 (2021), Sect. 3),
for a step ``h`` from ``(t_n, q_n, u_n)``:

.. math::

    q_m &= q_n + \\tfrac h2\\, T(q_n)\\, u_n,\\qquad t_m = t_n + \\tfrac h2 \\\\
    M (u_{n+1} - u_n) &= h\\, h(t_m, q_m, \\bar u) + W_g P_g + W_N P_N + W_F P_F,
        \\qquad \\bar u = \\tfrac12 (u_n + u_{n+1}) \\\\
    W_g^T u_{n+1} &= w(t_{n+1}) \\\\
    \\xi_N = W_N^T u_{n+1} + e_N W_N^T u_n &\\in -N_{\\mathbb R_0^+}(P_N),\\quad
    \\xi_F = W_F^T u_{n+1} + e_F W_F^T u_n \\in -N_{C(\\mu P_N)}(P_F)
    \\quad\\text{for } g_N(q_m) \\le 0 \\\\
    q_{n+1} &= q_m + \\tfrac h2\\, T(q_m)\\, u_{n+1}

with ``W_N, W_F`` at ``q_m``.  The shifted, position-first variant
(:class:`MoreauShifted`) takes ``q_{n+1} = q_n + h T(q_n) u_n`` first and
evaluates forces, gaps and force directions at ``q_{n+1}``.  Both are of
first order; percussions ``P`` contain the impulsive part and the integral of
the contact forces over the step.

Velocity-dependent smooth forces are evaluated at ``\\bar u`` (option
``smooth="implicit"``, the default), Moreau's original scheme takes
``h(t_m, q_m, u_n)`` (``smooth="explicit"``).  The floating-frame
formulation carries the gyroscopic term ``J(u) u`` in ``h``; explicit, it
turns a spinning body's body-frame velocity by ``omega h`` per step and
multiplies its length by ``sqrt(1 + (omega h)^2)`` (the kinetic energy of the
translation grows by 1 % per step for the rotating bouncing ball at 50 rad/s
and ``h = 2e-3``);
at ``\\bar u`` it does no work, ``\\bar u^T J(\\bar u) \\bar u = 0``.  The
nonlinear velocity equation is solved by Newton's method on the smooth
part, each iterate solving the contact problem exactly
(:mod:`phmech.solvers.prox`).

Energy: ``M (u_{n+1} - u_n) \\cdot \\bar u`` is the kinetic energy change,
so the work of the percussions of contact ``i`` over a step is
``P_i \\cdot W_i^T \\bar u`` (non-positive for ``e <= 1``); its negative is
recorded as the dissipation of the contact.  The supplied work
(``Result.work``) is ``h P_in(t_m, q_m, \\bar u)`` (ports other than
potential loads) minus the dissipation, so that ``Result.energy_balance()``
(energy = kinetic + potential) measures the scheme's energy error.

Records: the percussions and dissipations are accumulated over the output
intervals of the driver (every step when the output is every step), so that
the memory of a run is proportional to its output, not to its step count
(:attr:`NonsmoothStepper.records`).  Penetrations: the scheme acts on
velocities, so a gap that went negative stays negative; the deepest
penetration of each contact is kept and reported (a
:class:`PenetrationWarning` when it exceeds the
contact's ``penetration_tol``, the largest in ``stats()``), measured at the
step points (the states of the result).
"""
import warnings

import numpy as np

from .prox import ProxSolver
from ._newton import converged as newton_converged
from .base import Solver, SolverError, balanced_work, count_option, linear_interpolant, positive_option


class PenetrationWarning(UserWarning):
    """A contact penetrated deeper than its ``penetration_tol`` (at the start or during a run)."""


class NonsmoothStepper(Solver):
    """Common part of the fixed-step nonsmooth schemes (options, contact solve, bookkeeping).

    Parameters
    ----------
    problem : :class:`~phmech.contact.NonsmoothProblem`
    dt : float
        Step size (the last step before ``t_bound`` is shortened to reach it).
    tol : float
        Tolerance of the contact problem (relative to the percussion scale)
        and of the smooth Newton iteration.
    max_newton : int
        Semismooth Newton iterations before the Gauss--Seidel fallback.
    relax : float
        ``alpha`` of the prox parameters ``r_i = alpha / D_ii``.
    initial_penetration : ``"warn"``, ``"raise"`` or ``"project"``
        What to do when a contact starts penetrated deeper than its ``penetration_tol``:
        a :class:`PenetrationWarning` (the schemes act on
        velocities: Moreau's keep the penetration, the generalized-alpha method closes it
        in the first step), a ``ValueError``, or start from the state projected onto the
        contact surfaces (:meth:`~phmech.contact.NonsmoothProblem.project`).
    """

    records_work = True

    def __init__(self, problem, t0, y0, t_bound=None, dt=None, tol=1e-12, max_newton=50, relax=1.0,
                 initial_penetration="warn"):
        if not hasattr(problem, "contact_state"):
            raise ValueError(f"{self.name}: the problem must be a NonsmoothProblem "
                             f"(phmech.contact.NonsmoothProblem), got {type(problem).__name__}")
        super().__init__(problem, t0, y0, t_bound)
        if dt is None:
            raise ValueError(f"{self.name}: a positive step size dt is required, got None")
        self.dt = positive_option(self.name, "dt", dt)
        self.tol = positive_option(self.name, "tol", tol)
        relax = positive_option(self.name, "relax", relax)
        if relax >= 2:
            raise ValueError(f"{self.name}: option relax must lie in (0, 2), got {relax!r}")
        self.prox = ProxSolver(tol=self.tol, max_newton=count_option(self.name, "max_newton", max_newton),
                               relax=relax)
        if initial_penetration not in ("warn", "raise", "project"):
            raise ValueError(f"{self.name}: option initial_penetration must be 'warn', 'raise' or 'project', "
                             f"got {initial_penetration!r}")
        d = problem
        self.active_rows = np.flatnonzero(d.dae.active)
        self.nc = len(d.contacts)
        #: deepest penetration per contact (>= 0) and its time
        self.max_penetration, self.max_penetration_time = np.zeros(self.nc), np.full(self.nc, self.t)
        self._warned = set()
        self._start_penetration(initial_penetration)
        #: cumulative work supplied through the ports minus the contact dissipation
        self.work = self.work_old = 0.0
        #: cumulative dissipation and normal percussion per contact (at ``t``; ``*_old`` at ``t_old``)
        self.dissipated, self.percussion = np.zeros(self.nc), np.zeros(self.nc)
        self.dissipated_old, self.percussion_old = np.zeros(self.nc), np.zeros(self.nc)
        #: per output time (``t0`` and the driver's ``t_outputs``; every step without them):
        #: ``P_N`` and ``dissipation`` per contact accumulated over the interval ending there and
        #: their cumulative values ``P_N_total``, ``dissipated`` (linear in time within a step)
        self.records = {"t": [self.t], "P_N": [np.zeros(self.nc)], "dissipation": [np.zeros(self.nc)],
                        "P_N_total": [np.zeros(self.nc)], "dissipated": [np.zeros(self.nc)]}
        self._acc = (np.zeros(self.nc), np.zeros(self.nc))
        self.max_smooth_iterations = 20

    # -- penetrations -----------------------------------------------------------------
    def _start_penetration(self, mode):
        """Check the initial gaps against the contacts' ``penetration_tol`` (see ``initial_penetration``)."""
        d = self.problem
        g, _ = d.contact_arrays(self.y[d.sq], self.y[d.se])
        deep = [i for i, c in enumerate(d.contacts) if -g[i] > c.penetration_tol]
        if deep and mode == "project":
            self.y = d.project(self.y, self.t)
            self.y_old = self.y.copy()
            g, _ = d.contact_arrays(self.y[d.sq], self.y[d.se])
        elif deep:
            where = "; ".join(f"contact '{d.contacts[i].name}' is {-g[i]:.6g} deep (its penetration_tol is "
                              f"{d.contacts[i].penetration_tol:.3g})" for i in deep)
            keeps = "the first step closes it" if self.name == "nsgenalpha" else "the penetration stays"
            msg = (f"{self.name}: the initial state penetrates at t = {self.t:.9g}: {where}; {keeps}: correct "
                   f"y0 or pass initial_penetration='project'")
            if mode == "raise":
                raise ValueError(msg)
            warnings.warn(msg, PenetrationWarning, stacklevel=4)
            self._warned.update(deep)
        self.max_penetration = np.maximum(0.0, -g)

    def _track_gaps(self, t, g):
        """Keep the deepest penetration per contact; warn once per contact beyond its ``penetration_tol``."""
        depth = -np.asarray(g, float)
        deeper = depth > self.max_penetration
        self.max_penetration[deeper] = depth[deeper]
        self.max_penetration_time[deeper] = t
        for i in np.flatnonzero(deeper):
            c = self.problem.contacts[i]
            if depth[i] > c.penetration_tol and i not in self._warned:
                self._warned.add(i)
                warnings.warn(f"{self.name}: contact '{c.name}' penetrates {depth[i]:.6g} deep at t = {t:.9g} "
                              f"(beyond its penetration_tol {c.penetration_tol:.3g}): the step dt = {self.dt:.3g} "
                              f"is too coarse for this contact (the deepest penetration of each contact is in "
                              f"the solver's max_penetration, the largest in stats()['max_penetration'])",
                              PenetrationWarning, stacklevel=2)

    # -- records ------------------------------------------------------------------------
    def _account(self, t1, PN, diss):
        """Add the normal percussions and dissipations of the step ``[t, t1]`` to the records."""
        t, h = self.t, t1 - self.t
        self.percussion_old, self.dissipated_old = self.percussion.copy(), self.dissipated.copy()
        self.percussion += PN
        self.dissipated += diss
        outs = self.t_outputs
        if outs is None:
            times = (t1,)
        else:
            times = outs[np.searchsorted(outs, t, side="right"):np.searchsorted(outs, t1, side="right")]
        accP, accD = self._acc
        done = 0.0                                   # fraction of the step already recorded
        rec = self.records
        for to in times:
            a = 1.0 if to >= t1 else (to - t) / h
            accP, accD = accP + (a - done) * PN, accD + (a - done) * diss
            rec["t"].append(float(to))
            rec["P_N"].append(accP)
            rec["dissipation"].append(accD)
            rec["P_N_total"].append(self.percussion.copy() if a == 1.0 else self.percussion_old + a * PN)
            rec["dissipated"].append(self.dissipated.copy() if a == 1.0 else self.dissipated_old + a * diss)
            accP, accD, done = np.zeros(self.nc), np.zeros(self.nc), a
        if done < 1.0:
            accP, accD = accP + (1.0 - done) * PN, accD + (1.0 - done) * diss
        self._acc = (accP, accD)

    # -- the velocity problem of one step -------------------------------------------
    def velocity_update(self, t1, q, u_start, smooth, W, cs, b_contact, w=None):
        """Solve the velocity equations of a step with bilateral rows and contacts.

        ``smooth(u) -> (r, J)`` is the smooth residual ``r(u)`` (zero without
        percussions) and its Jacobian; the solution satisfies
        ``r(u) = W_g P_g + W P``, ``G(q) u = w`` (default ``w(t1)``) and the
        contact laws for ``xi = W^T u + b_contact`` (Newton's law:
        ``b_contact = e W^T u_n``).  Newton's method on the smooth part starts
        at ``u_start``.  Returns ``(u, P_g, P)``.
        """
        d = self.problem
        G = d.G(q)[self.active_rows] if len(self.active_rows) else np.zeros((0, d.ne))
        if w is None:
            w = d.dae.w(t1)[self.active_rows] if len(self.active_rows) else np.zeros(0)
        ne, ng = d.ne, G.shape[0]
        u = u_start.copy()
        P = np.zeros(cs.n)
        B = np.zeros((ne + ng, 1 + cs.n))
        B[:ne, 1:] = W
        B[ne:, 0] = w
        prev = 0.0
        for it in range(1, self.max_smooth_iterations + 1):
            r, Js = smooth(u)
            self.nfev += 1
            K = np.block([[Js, -G.T], [G, np.zeros((ng, ng))]]) if ng else Js
            B[:ne, 0] = Js @ u - r
            try:
                sol = np.linalg.solve(K, B)
            except (ValueError, np.linalg.LinAlgError) as err:
                raise SolverError(self.name, self.t, f"singular velocity system: {err}") from None
            self.nlu += 1
            u_f, Pg_f = sol[:ne, 0], sol[ne:, 0]
            Z, Zg = sol[:ne, 1:], sol[ne:, 1:]
            if cs.n:
                D = W.T @ Z
                D = 0.5 * (D + D.T)
                xi0 = W.T @ u_f + b_contact
                scale = max(np.max(np.abs(xi0) / np.maximum(np.diag(D), 1e-300)), 1e-12)
                try:
                    P = self.prox.solve(xi0, D, cs, P0=P, scale=scale)
                except RuntimeError as err:
                    raise SolverError(self.name, self.t, str(err)) from None
            u_new = u_f + Z @ P
            Pg = Pg_f + Zg @ P
            du = np.max(np.abs(u_new - u), initial=0.0)
            u = u_new
            err = du / max(1.0, np.max(np.abs(u)))
            if newton_converged(err, prev, 10 * self.tol, False) or getattr(smooth, "linear", False):
                return u, Pg, P
            prev = err
        raise SolverError(self.name, self.t, f"the smooth velocity iteration did not converge "
                          f"(|du| = {du:.3g} after {self.max_smooth_iterations} iterations)")

    def _lam(self, Pg, h):
        lam = np.zeros(self.problem.nl)
        lam[self.active_rows] = Pg / h
        return lam

    def _record(self, t1, h, idx, P, W, cs, u_bar, y_mid):
        """Work and dissipation of the step (see the module docstring)."""
        d = self.problem
        diss = np.zeros(self.nc)
        PN = np.zeros(self.nc)
        if cs.n:
            Pw = P * (W.T @ u_bar)
            for k, i in enumerate(idx):
                diss[i] = -(Pw[k] + Pw[cs.F[k]].sum())
                PN[i] = P[k]
        self._account(t1, PN, diss)
        self.work_old = self.work
        self.work += h * d.power_in(t1 - h / 2, y_mid) - diss.sum()

    def _h(self):
        return min(self.dt, self.t_bound - self.t) if self.t_bound - self.t > self.dt * (1 + 1e-9) \
            else self.t_bound - self.t

    def dense_output(self):
        return linear_interpolant(self.t_old, self.t, self.y_old, self.y)

    def work_output(self):
        """The work over the last step: the record at its ends, between them consistent with the
        energy of the dense output (:func:`~phmech.solvers.base.balanced_work`)."""
        return balanced_work(self.problem, self.dense_output(),
                             lambda v: linear_interpolant(self.t_old, self.t, v[0], v[1]),
                             (self.t_old, self.t), (self.y_old, self.y), (self.work_old, self.work))

    def stats(self):
        k = int(np.argmax(self.max_penetration)) if self.nc else 0
        return {**super().stats(), **self.prox.stats,
                "max_penetration": float(self.max_penetration[k]) if self.nc else 0.0,
                "max_penetration_time": float(self.max_penetration_time[k]) if self.nc else self.t0}

    def _smooth(self, t, q, u0, h, implicit):
        """The smooth residual ``r(u) = M (u - u0) - h h(t, q, u_eval)`` and its Jacobian."""
        d = self.problem
        M = d.M_dense

        if not implicit:
            r0 = M @ u0 + h * d.h(t, q, u0)

            def fun(u):
                return M @ u - r0, M
            fun.linear = True
            return fun

        _, Hu0 = d.h_jacobians(t, q, u0)
        self.njev += 1
        if not np.any(Hu0):            # no velocity-dependent forces: one linear solve
            return self._smooth(t, q, u0, h, False)

        def fun(u):
            ub = 0.5 * (u0 + u)
            _, Hu = d.h_jacobians(t, q, ub)
            self.njev += 1
            return M @ (u - u0) - h * d.h(t, q, ub), M - 0.5 * h * Hu
        return fun


class Moreau(NonsmoothStepper):
    """Moreau's midpoint time stepping (see the module docstring).

    Parameters
    ----------
    smooth : ``"implicit"`` or ``"explicit"``
        Velocity argument of the smooth forces: ``(u_n + u_{n+1}) / 2`` or ``u_n``.
    **options
        Those of :class:`NonsmoothStepper` (``dt``, ``tol``, ``max_newton``, ``relax``).
    """

    name = "moreau"
    shifted = False

    def __init__(self, problem, t0, y0, t_bound=None, dt=None, smooth="implicit", tol=1e-12, max_newton=50,
                 relax=1.0, initial_penetration="warn", **unknown):
        self.refuse_unknown(unknown)
        if smooth not in ("implicit", "explicit"):
            raise ValueError(f"{self.name}: option smooth must be 'implicit' or 'explicit', got {smooth!r}")
        self.implicit = smooth == "implicit"
        super().__init__(problem, t0, y0, t_bound, dt=dt, tol=tol, max_newton=max_newton, relax=relax,
                         initial_penetration=initial_penetration)

    def _step(self):
        d = self.problem
        h = self._h()
        t, y = self.t, self.y
        q, u = y[d.sq], y[d.se]
        if self.shifted:
            tm, qm, shift = t + h, d.normalize(q + h * d.qdot(q, u)), h
        else:
            tm, qm, shift = t + h / 2, d.normalize(q + 0.5 * h * d.qdot(q, u)), h / 2
        idx, cs, W, _ = d.closed(qm, u=u, dt=shift)
        b = d.restitution(idx, cs) * (W.T @ u)
        u1, Pg, P = self.velocity_update(t + h, qm, u, self._smooth(tm, qm, u, h, self.implicit), W, cs, b)
        q1 = qm.copy() if self.shifted else d.normalize(qm + 0.5 * h * d.qdot(qm, u1))
        self._track_gaps(t + h, d.contact_arrays(q1, u1)[0])
        y1 = np.concatenate([q1, u1, self._lam(Pg, h)])
        y_mid = np.concatenate([qm, 0.5 * (u + u1), y1[d.sl]])
        self._record(t + h, h, idx, P, W, cs, 0.5 * (u + u1), y_mid)
        self.t_old, self.y_old = t, y
        self.t, self.y = t + h, y1
        self.nsteps += 1


class MoreauShifted(Moreau):
    """Position-first ("shifted") Moreau scheme: ``q_{n+1} = q_n + h T(q_n) u_n``, then the
    velocity update with forces, gaps and force directions at ``q_{n+1}``."""

    name = "moreau_shifted"
    shifted = True

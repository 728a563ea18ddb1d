"""The nonsmooth generalized-alpha method (Capobianco, Harsch, Eugster & Leine, IJNME 122 (2021), Sect. 4).

The velocity of a step is split into a smooth part, advanced by the
generalized-alpha method of Chung & Hulbert (J. Appl. Mech. 60 (1993)) with
auxiliary accelerations ``a^alpha`` (Arnold & Bruels, Multibody Syst. Dyn.
18 (2007)), and an impulsive part ``U``; the positions get a correction
``Q`` that keeps the gaps and the joints on position level (a
Gear--Gupta--Leimkuhler-type projection).  For a step ``h`` from ``(q_n,
u_n, a_n, a^alpha_n)`` all unknowns are found together:

.. math::

    M a_{n+1} &= h(t_{n+1}, q_{n+1}, u_{n+1}) + W_g \\lambda_g + W \\lambda \\\\
    M U_{n+1} &= W_g \\Lambda_g + W \\Lambda, \\qquad
    M Q_{n+1} = W_g^{pos} \\kappa_g + W_N \\kappa_N \\\\
    (1 - \\alpha_m) a^\\alpha_{n+1} + \\alpha_m a^\\alpha_n &= (1 - \\alpha_f) a_{n+1} + \\alpha_f a_n \\\\
    u_{n+1} &= u_n + h\\,((1-\\gamma) a^\\alpha_n + \\gamma a^\\alpha_{n+1}) + U_{n+1} \\\\
    q_{n+1} &= q_n + h\\, T_n u_n + \\tfrac{h^2}2 \\tfrac{\\partial (T u)}{\\partial q}\\Big|_n T_n u_n
       + T_n \\bigl(h^2 ((\\tfrac12-\\beta) a^\\alpha_n + \\beta a^\\alpha_{n+1}) + Q_{n+1}\\bigr)

(``W = [W_N, W_F]`` at ``q_{n+1}``; the term with ``d(T u)/dq`` is the part
of ``q''`` that does not come from the acceleration, needed for second
order with rotating frames).  The bilateral constraints hold on all three
levels: ``G a_{n+1} = w' - d(G u)/dq T u`` (``lambda_g``), ``G u_{n+1} = w``
(``Lambda_g``) and ``g(q_{n+1}) = 0`` (``kappa_g``, for the joints that
provide a position residual), so there is no drift.  The contacts obey the
three-level laws of :mod:`phmech.solvers.prox_levels` in the combined
multipliers ``kappa_hat_N = kappa_N + h^2/2 lambda_N`` and ``P = Lambda + h
lambda``: the gap ``g_N(q_{n+1})`` is closed by ``kappa_hat_N``, impacts
and friction act on velocity level with Newton's law ``xi = W^T u_{n+1} + e
W^T u_n`` on the closed contacts (``P``), and on the contacts that persist
the forces ``lambda`` of the smooth motion follow from the contact
accelerations ``W^T a_{n+1} + zeta`` (``zeta = dW^T/dt u``), so that smooth
phases with persistent contacts are of second order.

The parameters follow from the spectral radius at infinity ``rho_inf``:
``alpha_m = (2 rho - 1)/(rho + 1)``, ``alpha_f = rho/(rho + 1)``, ``gamma =
1/2 + alpha_f - alpha_m``, ``beta = (gamma + 1/2)^2 / 4``.  The start
acceleration is consistent: the contact forces of the contacts closed at
``t_0`` (with zero normal velocity) are found on acceleration level.

Solution of a step: Newton's method on the smooth equations (exact
Jacobians of ``h`` from the DAE); each iterate solves the linearized
equations with the three-level contact problem exactly (semismooth
Newton, :func:`phmech.solvers.prox_levels.solve`).

Energy: the work of the contacts over a step is the trapezoidal rule on
the power ``lambda . W^T u`` of the smooth contact forces plus the exact
work ``Lambda . W^T (u_{n+1} - U/2)`` of the impulsive part (the kinetic
energy change of ``M U = W Lambda``); its negative is recorded as the
dissipation of the contact.  The power of the other non-conservative
ports is integrated by the trapezoidal rule, so the energy account is of
second order in smooth phases.
"""
import numpy as np
import scipy.linalg as la

from . import prox_levels
from ._newton import converged as newton_converged
from .prox import ContactSet
from .base import SolverError, count_option, positive_option
from .moreau import NonsmoothStepper


def genalpha_parameters(rho_inf):
    """``(alpha_m, alpha_f, gamma, beta)`` of Chung & Hulbert (1993) for ``0 <= rho_inf <= 1``."""
    r = float(rho_inf)
    am, af = (2 * r - 1) / (r + 1), r / (r + 1)
    g = 0.5 + af - am
    return am, af, g, 0.25 * (g + 0.5) ** 2


class NonsmoothGenAlpha(NonsmoothStepper):
    """The nonsmooth generalized-alpha method (see the module docstring).

    Parameters
    ----------
    rho_inf : float
        Spectral radius at infinity, in [0, 1] (default 0.8).
    max_iterations : int
        Newton iterations on the smooth part of a step.
    **options
        Those of :class:`~phmech.solvers.moreau.NonsmoothStepper` (``dt``, ``tol``, ...).
    """

    name = "nsgenalpha"

    def __init__(self, problem, t0, y0, t_bound=None, dt=None, rho_inf=0.8, tol=1e-12, max_newton=50,
                 relax=1.0, max_iterations=30, initial_penetration="warn", **unknown):
        self.refuse_unknown(unknown)
        try:
            rho = float(rho_inf)
        except (TypeError, ValueError):
            rho = -1.0
        if not 0 <= rho <= 1:
            raise ValueError(f"nsgenalpha: option rho_inf must lie in [0, 1], got {rho_inf!r}")
        if getattr(problem, "stress_gaps", None):
            raise ValueError(f"nsgenalpha: the gaps of contacts {problem.stress_gaps} depend on the "
                             f"stresses of a beam fixed in space; their position-level correction is not "
                             f"available, use moreau or moreau_shifted")
        super().__init__(problem, t0, y0, t_bound, dt=dt, tol=tol, max_newton=max_newton, relax=relax,
                         initial_penetration=initial_penetration)
        self.max_iterations = count_option(self.name, "max_iterations", max_iterations)
        self.rho_inf = rho
        self.am, self.af, self.gamma, self.beta = genalpha_parameters(rho)
        d = problem
        self.Md = d.M_dense
        self.relax = relax
        mu = [c.mu for c in d.contacts]
        self.cs = ContactSet(mu, [c.nF for c in d.contacts])
        self.levels = prox_levels.Levels(self.cs)
        self.e = d.restitution(np.arange(self.nc), self.cs)
        self.stats_levels = {"contact_solves": 0, "newton_iterations": 0, "max_newton_iterations": 0,
                             "gs_sweeps": 0, "gs_fallbacks": 0, "smooth_iterations": 0}
        q, u = self.y[d.sq], self.y[d.se]
        self._bilateral_positions(q)
        self.a, self.lam_c = self._start_acceleration(t0, q, u)
        self.a_alpha = self.a.copy()
        self.X = None
        self._power_c = self._contact_power(q, u, self.lam_c)
        positive_option(self.name, "dt", self.dt)

    # -- bilateral constraints ---------------------------------------------------------
    def _bilateral_positions(self, q):
        """The joints that hold on position level (:meth:`~phmech.contact.NonsmoothProblem.position_rows`)."""
        d = self.problem
        self._g_rows = d.position_rows(q)
        pos = np.zeros(d.nl, bool)
        for _, sl, _ in self._g_rows:
            pos[sl] = True
        #: rows of the active constraints that hold on position level
        self.pos_rows = np.flatnonzero(pos[self.active_rows])

    def _position_residual(self, t, q):
        """``-s_j g_j(q)`` on the active rows of ``G`` (zero for joints without a matching position residual)."""
        return self.problem.position_residual(t, q, self._g_rows)[self.active_rows]

    def _accel_rhs(self, t, q, u, G):
        """``w'(t) - d(G u)/dq T(q) u``: right side of ``G a = ...`` (bilateral acceleration level)."""
        d = self.problem
        if not G.shape[0]:
            return np.zeros(0)
        _, dGe = d.dae.G_derivatives(q, u, np.zeros(d.nl))
        return (d.dae.w_rate(t) - dGe @ d.qdot(q, u))[self.active_rows]

    def _G(self, q):
        d = self.problem
        return d.G(q)[self.active_rows] if len(self.active_rows) else np.zeros((0, d.ne))

    # -- contact kinematics ----------------------------------------------------------------
    def _W(self, q):
        """``(g_N, W)`` of all contacts at ``q`` (``W`` in the layout of the contact set; the compiled
        :func:`~phmech.contact.kernels.contact_kinematics`)."""
        return self.problem.contact_arrays(q)

    def _zeta(self, q, u):
        """``zeta = (dW/dt)^T u`` along the motion (central difference of ``W(q)^T u`` along ``T u``)."""
        d = self.problem
        qd = d.qdot(q, u)
        s = np.max(np.abs(qd))
        if s == 0 or not self.cs.n:
            return np.zeros(self.cs.n)
        eps = 1e-6 / s
        Wp = self._W(d.normalize(q + eps * qd))[1]
        Wm = self._W(d.normalize(q - eps * qd))[1]
        return (Wp - Wm).T @ u / (2 * eps)

    def _contact_power(self, q, u, lam_c):
        """Power ``lambda_k . W_k^T u`` of the smooth contact forces, per contact."""
        p = np.zeros(self.nc)
        if lam_c is None or not np.any(lam_c):
            return p
        pw = lam_c * (self._W(q)[1].T @ u)
        for k in range(self.nc):
            p[k] = pw[k] + pw[self.cs.F[k]].sum()
        return p

    def _solve_levels(self, Y0, D, X0):
        lv = self.levels
        try:
            X, it, sw = prox_levels.solve(Y0, D, lv, X0=X0, tol=self.tol,
                                          max_newton=self.prox.max_newton, relax=self.relax)
        except RuntimeError as err:
            raise SolverError(self.name, self.t, str(err)) from None
        st = self.stats_levels
        st["contact_solves"] += 1
        st["newton_iterations"] += it
        st["max_newton_iterations"] = max(st["max_newton_iterations"], it)
        st["gs_sweeps"] += sw
        st["gs_fallbacks"] += int(sw > 0)
        return X

    # -- start ----------------------------------------------------------------------------------
    def _start_acceleration(self, t, q, u):
        """Consistent ``a_0`` and contact forces: ``M a = h + W_g lambda_g + W lambda``, ``G a = ...``
        and the acceleration-level laws on the contacts closed at ``t_0`` with zero normal velocity."""
        d = self.problem
        G = self._G(q)
        ng, ne = G.shape[0], d.ne
        K = np.block([[self.Md, -G.T], [G, np.zeros((ng, ng))]])
        rhs = np.r_[d.h(t, q, u), self._accel_rhs(t, q, u, G)]
        g, W = self._W(q)
        gam = W.T @ u
        scale = max(1.0, np.max(np.abs(u), initial=0.0))
        closed = [k for k in range(self.nc) if g[k] <= d.gap_tol and abs(gam[k]) <= 1e-10 * scale]
        try:
            lu = la.lu_factor(K)
        except (ValueError, la.LinAlgError) as err:
            raise SolverError(self.name, t, f"singular start acceleration system: {err}") from None
        if not closed:
            return la.lu_solve(lu, rhs)[:ne], np.zeros(self.cs.n)
        lv, cs = self.levels, self.cs
        rows = np.zeros(cs.n, bool)
        for k in closed:
            rows[k] = True
            rows[cs.F[k]] = True
        Wc = W * rows
        sol = la.lu_solve(lu, np.column_stack([rhs, np.vstack([Wc, np.zeros((ng, cs.n))])]))
        a0, Za = sol[:ne, 0], sol[:ne, 1:]
        # levels: gaps and velocities fixed (closed contacts: 0 and gamma), accelerations affine
        Y0 = np.zeros(lv.N)
        Y0[lv.K] = np.where(rows[:cs.m], 0.0, 1.0)
        Y0[lv.P] = np.where(rows, gam, 1.0)
        Y0[lv.P[:cs.m]] = np.where(rows[:cs.m], 0.0, 1.0)
        Y0[lv.L] = W.T @ a0 + self._zeta(q, u)
        D = np.zeros((lv.N, lv.N))
        D[np.ix_(lv.L, lv.L)] = W.T @ Za
        X = self._solve_levels(Y0, D, None)
        lam = X[lv.L]
        return a0 + Za @ lam, lam

    # -- step --------------------------------------------------------------------------------------
    def _step(self):
        d = self.problem
        h = self._h()
        t, y = self.t, self.y
        t1 = t + h
        q, u = y[d.sq], y[d.se]
        am, af, ga, be = self.am, self.af, self.gamma, self.beta
        c = (1 - af) / (1 - am)
        ne, lv, cs, M = d.ne, self.levels, self.cs, self.Md
        Kq, Tn = d.kinematic_jacobians(q, u)
        Tu = Tn @ u
        q_base = q + h * Tu + 0.5 * h * h * (Kq @ Tu)
        aal0 = (af * self.a - am * self.a_alpha) / (1 - am)          # a^alpha_{n+1} = aal0 + c a_{n+1}
        v0 = u + h * ((1 - ga) * self.a_alpha + ga * aal0)          # smooth velocity: v0 + cv a_{n+1}
        d0 = h * h * ((0.5 - be) * self.a_alpha + be * aal0)        # displacement: d0 + cd a_{n+1} + Q
        cv, cd = ga * h * c, be * h * h * c
        a1, U, Q = self.a.copy(), np.zeros(ne), np.zeros(ne)
        X = None if self.X is None else self.X.copy()
        pr = self.pos_rows
        Z0 = np.zeros((ne, ne))
        prev = 0.0
        for it in range(1, self.max_iterations + 1):
            u1 = v0 + cv * a1 + U
            disp = d0 + cd * a1 + Q
            q1 = d.normalize(q_base + Tn @ disp)
            hq = d.h(t1, q1, u1)
            Hq, Hu = d.h_jacobians(t1, q1, u1)
            self.nfev += 1
            self.njev += 1
            HqT = Hq @ Tn
            G = self._G(q1)
            ng, npos = G.shape[0], len(pr)
            Gp = G[pr]
            gN, W = self._W(q1)
            zeta = self._zeta(q1, u1)
            nz = 3 * ne + 2 * ng + npos
            Kmat = np.zeros((nz, nz))
            ia, iU, iQ = slice(0, ne), slice(ne, 2 * ne), slice(2 * ne, 3 * ne)
            ig = slice(3 * ne, 3 * ne + ng)
            iG = slice(3 * ne + ng, 3 * ne + 2 * ng)
            ip = slice(3 * ne + 2 * ng, nz)
            Kmat[ia] = np.hstack([M - cv * Hu - cd * HqT, -Hu, -HqT, -G.T, np.zeros((ne, ng + npos))])
            Kmat[iU] = np.hstack([Z0, M, Z0, np.zeros((ne, ng)), -G.T, np.zeros((ne, npos))])
            Kmat[iQ] = np.hstack([Z0, Z0, M, np.zeros((ne, 2 * ng)), -Gp.T])
            Kmat[ig, ia] = G
            Kmat[iG, ia], Kmat[iG, iU] = cv * G, G
            Kmat[ip, ia], Kmat[ip, iQ] = cd * Gp, Gp
            rhs = np.zeros(nz)
            rhs[ia] = hq - Hu @ u1 - HqT @ disp + Hu @ v0 + HqT @ d0
            rhs[ig] = self._accel_rhs(t1, q1, u1, G)
            if ng:
                rhs[iG] = d.dae.w(t1)[self.active_rows] - G @ v0
            rhs[ip] = self._position_residual(t1, q1)[pr] + Gp @ (cd * a1 + Q)
            # the multipliers X = (kappa_hat_N, P, lambda) enter through their force directions
            B = np.zeros((nz, lv.N))
            B[iQ, lv.K] = W[:, :cs.m]
            B[iU, lv.P] = W
            B[ia, lv.L] = W
            B[iU, lv.L] = -h * W
            B[iQ, lv.L[:cs.m]] = -0.5 * h * h * W[:, :cs.m]
            try:
                sol = la.solve(Kmat, np.column_stack([rhs, B]))
            except (ValueError, la.LinAlgError) as err:
                raise SolverError(self.name, t, f"singular iteration matrix: {err}") from None
            self.nlu += 1
            z0, Z = sol[:, 0], sol[:, 1:]
            # Y = (g_N(q_{n+1}), xi, gamma_dot) affine in X
            Y0 = np.empty(lv.N)
            D = np.empty((lv.N, lv.N))
            WN = W[:, :cs.m]
            Y0[lv.K] = gN + WN.T @ (cd * (z0[ia] - a1) + z0[iQ] - Q)
            D[lv.K] = WN.T @ (cd * Z[ia] + Z[iQ])
            Y0[lv.P] = W.T @ (v0 + cv * z0[ia] + z0[iU]) + self.e * (W.T @ u)
            D[lv.P] = W.T @ (cv * Z[ia] + Z[iU])
            Y0[lv.L] = W.T @ z0[ia] + zeta
            D[lv.L] = W.T @ Z[ia]
            X = self._solve_levels(Y0, D, X) if lv.N else np.zeros(0)
            z = z0 + Z @ X
            da = np.max(np.abs(z[ia] - a1), initial=0.0)
            dU = np.max(np.abs(z[iU] - U), initial=0.0)
            dQ = np.max(np.abs(z[iQ] - Q), initial=0.0)
            a1, U, Q = z[ia], z[iU], z[iQ]
            scale_u = max(1.0, np.max(np.abs(u1)))
            # velocity increment and position increment over h, relative to the velocities
            err = max(h * da + dU, dQ / h) / scale_u
            if newton_converged(err, prev, 10 * self.tol, False):
                break
            prev = err
        else:
            raise SolverError(self.name, t, f"the Newton iteration of the step did not converge "
                              f"(|da| = {da:.3g}, |dU| = {dU:.3g}, |dQ| = {dQ:.3g})")
        self.stats_levels["smooth_iterations"] += it
        lam_g, Lam_g = z[ig], z[iG]
        u1 = v0 + cv * a1 + U
        q1 = d.normalize(q_base + Tn @ (d0 + cd * a1 + Q))
        lam = np.zeros(d.nl)
        lam[self.active_rows] = lam_g + Lam_g / h
        y1 = np.concatenate([q1, u1, lam])
        # contact work: trapezoidal on the smooth forces, exact on the impulsive part
        lam_c = X[lv.L]
        Lam = X[lv.P] - h * lam_c
        g1, W1 = self._W(q1)
        self._track_gaps(t1, g1)
        p1 = self._contact_power(q1, u1, lam_c)
        jw = Lam * (W1.T @ (u1 - 0.5 * U))
        diss, PN = np.zeros(self.nc), np.zeros(self.nc)
        for k in range(self.nc):
            diss[k] = -(0.5 * h * (self._power_c[k] + p1[k]) + jw[k] + jw[cs.F[k]].sum())
            PN[k] = X[lv.P][k]
        self._power_c = p1
        self._account(t1, PN, diss)
        self.work_old = self.work
        self.work += 0.5 * h * (d.power_in(t, y) + d.power_in(t1, y1)) - diss.sum()
        self.X = X
        self.a, self.a_alpha = a1, aal0 + c * a1
        self.t_old, self.y_old = t, y
        self.t, self.y = t1, y1
        self.nsteps += 1

    def stats(self):
        return {**super().stats(), **self.stats_levels}

"""A nonsmooth generalized-alpha method (after Capobianco, Harsch, Eugster & Leine, IJNME 122 (2021)).

Capobianco et al. split the velocity of a step into a smooth part, advanced
by the generalized-alpha method of Chung & Hulbert (J. Appl. Mech. 60
(1993)) with auxiliary accelerations ``a^alpha`` (Arnold & Bruels, Multibody
Syst. Dyn. 18 (2007)), and an impulsive part ``U`` (their Sect. 4, eqs.
(40)-(46)):

.. math::

    (1 - \\alpha_m) a^\\alpha_{n+1} + \\alpha_m a^\\alpha_n &= (1 - \\alpha_f) a_{n+1} + \\alpha_f a_n \\\\
    \\tilde u_{n+1} &= u_n + h\\,((1-\\gamma) a^\\alpha_n + \\gamma a^\\alpha_{n+1}),\\qquad
    u_{n+1} = \\tilde u_{n+1} + U_{n+1} \\\\
    \\tilde q_{n+1} &= q_n + h\\, T(q_n)\\,\\bigl(u_n + h((\\tfrac12-\\beta) a^\\alpha_n
                      + \\beta a^\\alpha_{n+1})\\bigr),\\qquad
    q_{n+1} = \\tilde q_{n+1} + T(\\tilde q_{n+1})\\, \\Delta q_{n+1}

(the term with ``d(T u)/dq`` is the part of ``q''`` that does not come from
the acceleration; without it the update is of first order for rotating
floating frames, whose ``T(q)`` changes along the step), and enforce the constraints on three levels: the bilateral ones on
acceleration (``lambda_g``), velocity (``Lambda_g``) level, the normal
contacts on velocity level with Newton's law (``Lambda_N``,
``xi_N = gamma_N(u_{n+1}) + e_N gamma_N(u_n)``) and on position level
(``kappa_N``: ``M Delta q = W_N kappa_N + W_g kappa_g``, ``g_N(q_{n+1}) in
-N(kappa_N)``, ``g(q_{n+1}) = 0`` for the joints that provide a position
residual), which removes the penetration of the gaps and the drift of
the joints; friction acts on velocity
level (``Lambda_F``).  The parameters follow from the spectral radius at
infinity ``rho_inf``: ``alpha_m = (2 rho - 1)/(rho + 1)``, ``alpha_f =
rho/(rho + 1)``, ``gamma = 1/2 + alpha_f - alpha_m``, ``beta = (gamma +
1/2)^2 / 4``.

Difference to the paper (documented here, measured by the tests): the
three levels are solved one after the other (smooth Newton for ``a_{n+1},
lambda_g``; the velocity-level contact problem for ``U``; the
position-level problem for ``Delta q``) instead of as one coupled system,
and the contact forces of persistent contacts are not solved for on
acceleration level (the paper's ``lambda_N, lambda_F`` on the index set of
closed contacts): they are part of the percussions of each step.  To keep
the positions of persistent contacts (closed with a positive percussion
in the last two steps, at zero normal velocity) from lagging by ``h^2 lambda / (2 m)`` per step,
their mean force of the last step, ``lambda_n = P_n / h`` (at ``q_n``),
adds ``h^2 / 2 T_n M^{-1} W lambda_n`` to the position prediction (scaled
down where it would open a closed contact); the
velocities are unchanged (the contact laws act on the whole percussion).
For constant contact forces (a block sliding on an incline) the positions
are then exact; in general the persistent-contact phases are of first
order in the forces.

Energy: the work of the percussions over the jump is ``Lambda W^T (u~ +
u_{n+1}) / 2`` (exact kinetic-energy change of the jump), recorded per
contact as dissipation; the supplied work is integrated by the trapezoidal
rule over the step.
"""
import numpy as np
import scipy.linalg as la

from ..contact.prox import ContactSet
from .base import SolverError, positive_option
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
    **options
        Those of :class:`~phmech.solvers.moreau.NonsmoothStepper` (``dt``, ``tol``, ...).
    """

    name = "nsgenalpha"

    def __init__(self, problem, t0, y0, t_bound=None, dt=None, rho_inf=0.8, tol=1e-12, max_newton=50,
                 relax=1.0, **unknown):
        self.refuse_unknown(unknown)
        try:
            rho = float(rho_inf)
        except (TypeError, ValueError):
            rho = -1.0
        if not 0 <= rho <= 1:
            raise ValueError(f"nsgenalpha: option rho_inf must lie in [0, 1], got {rho_inf!r}")
        super().__init__(problem, t0, y0, t_bound, dt=dt, tol=tol, max_newton=max_newton, relax=relax)
        if problem.stress_gaps:
            raise ValueError(f"nsgenalpha: the gaps of contacts {problem.stress_gaps} depend on the "
                             f"stresses of a beam fixed in space; their position-level correction is not "
                             f"available, use moreau or moreau_shifted")
        self.rho_inf = rho
        self.am, self.af, self.gamma, self.beta = genalpha_parameters(rho)
        d = problem
        self.Md = d.M.toarray() if hasattr(d.M, "toarray") else np.asarray(d.M)
        q, u = self.y[d.sq], self.y[d.se]
        self.a, _ = self._acceleration(t0, q, u)
        self.a_alpha = self.a.copy()
        self.max_position_iterations = 5
        self._forces = {}
        positive_option(self.name, "dt", self.dt)
        self._bilateral_positions(q)

    def _bilateral_positions(self, q):
        """Joints whose position residual ``g_j(q)`` matches their rows of ``G``: remember the sign
        ``s_j`` with ``d g_j / dt = s_j G_j u`` (checked by central differences along a test velocity)."""
        d = self.problem
        rng = np.random.default_rng(0)
        u = rng.normal(size=d.ne)
        eps = 1e-7
        qd = d.qdot(q, u)
        rp, rm = d.dae.position_residuals(0.0, q + eps * qd), d.dae.position_residuals(0.0, q - eps * qd)
        G = d.G(q)
        self._g_rows = []
        for name, r0 in d.dae.position_residuals(0.0, q).items():
            sl = d.dae.lam_slices[name]
            if len(r0) != sl.stop - sl.start:
                continue
            rate, Gu = (rp[name] - rm[name]) / (2 * eps), G[sl] @ u
            for sign in (1.0, -1.0):
                if np.allclose(rate, sign * Gu, rtol=1e-5, atol=1e-6 * max(1.0, np.abs(Gu).max())):
                    self._g_rows.append((name, sl, sign))
                    break

    def _position_residual(self, t, q):
        """``-s_j g_j(q)`` on the rows of ``G`` (zero for joints without a matching position residual)."""
        d = self.problem
        out = np.zeros(d.nl)
        if self._g_rows:
            res = d.dae.position_residuals(t, q)
            for name, sl, sign in self._g_rows:
                out[sl] = -sign * res[name]
        return out[self.active_rows]

    def _acceleration(self, t, q, u):
        """``a = M^{-1}(h + G^T lambda)`` with the bilateral constraints on acceleration level."""
        d = self.problem
        G = d.G(q)[self.active_rows] if len(self.active_rows) else np.zeros((0, d.ne))
        rhs = np.r_[d.h(t, q, u), self._accel_rhs(t, q, u, G)]
        ng = G.shape[0]
        K = np.block([[self.Md, -G.T], [G, np.zeros((ng, ng))]])
        sol = la.solve(K, rhs)
        return sol[:d.ne], sol[d.ne:]

    def _remember(self, idx, cs, P, h):
        """Keep the mean contact forces ``P / h`` of the last step and whether each contact was
        closed in the step before too (persistent contact)."""
        prev = self._forces
        self._forces = {}
        for k, i in enumerate(idx):
            if P[k] > 0:
                self._forces[int(i)] = (np.r_[P[k], P[cs.F[k]]] / h, int(i) in prev)

    def _predicted_contact_force(self, q, u):
        """``W(q_n) lambda_n`` of the contacts in persistent contact (closed with a positive
        percussion in the last two steps, closed at ``q_n`` and with zero normal velocity
        ``W_N^T u_n``, i.e. not just after an impact); zero otherwise."""
        d = self.problem
        fc = np.zeros(d.ne)
        if not self._forces:
            return fc
        g, Ws = d.contact_state(q)
        for i, (lam, persistent) in self._forces.items():
            WN, WF = Ws[i]
            if persistent and g[i] <= d.gap_tol and abs(WN @ u) <= 1e-10 * max(1.0, np.max(np.abs(u))):
                fc += WN * lam[0] + WF @ lam[1:]
        return fc

    def _accel_rhs(self, t, q, u, G):
        """``w'(t) - d(G u)/dq T(q) u``: right side of ``G a = ...`` (bilateral acceleration level)."""
        d = self.problem
        if not G.shape[0]:
            return np.zeros(0)
        _, dGe = d.dae.G_derivatives(q, u, np.zeros(d.nl))
        return (d.dae.w_rate(t) - dGe @ d.qdot(q, u))[self.active_rows]

    def _step(self):
        d = self.problem
        h = self._h()
        t, y = self.t, self.y
        t1 = t + h
        q, u = y[d.sq], y[d.se]
        am, af, ga, be = self.am, self.af, self.gamma, self.beta
        c = (1 - af) / (1 - am)
        fc = self._predicted_contact_force(q, u)
        Kq, Tn = d.kinematic_jacobians(q, u)
        # q'' = T a + d(T u)/dq T u: the second-order term of the kinematic update
        q_base = q + h * (Tn @ u) + 0.5 * h * h * (Kq @ (Tn @ u))
        a1 = self.a.copy()
        G_rows = self.active_rows
        # 1. smooth part: Newton on M a - h - G^T lam = 0, G a = w' - dGe/dq T u
        for it in range(1, 30):
            aal = (af * self.a + (1 - af) * a1 - am * self.a_alpha) / (1 - am)
            ut = u + h * ((1 - ga) * self.a_alpha + ga * aal)
            qt = d.normalize(q_base + h * h * Tn @ ((0.5 - be) * self.a_alpha + be * aal))
            G = d.G(qt)[G_rows] if len(G_rows) else np.zeros((0, d.ne))
            ng = G.shape[0]
            Hq, Hu = d.h_jacobians(t1, qt, ut)
            self.njev += 1
            Ja = self.Md - c * (h * ga * Hu + h * h * be * Hq @ Tn)
            K = np.block([[Ja, -G.T], [G, np.zeros((ng, ng))]])
            ra = self.Md @ a1 - d.h(t1, qt, ut)
            rl = G @ a1 - self._accel_rhs(t1, qt, ut, G)
            self.nfev += 1
            lam_prev = getattr(self, "_lam_acc", np.zeros(ng))
            if len(lam_prev) != ng:
                lam_prev = np.zeros(ng)
            ra = ra - G.T @ lam_prev
            try:
                dx = la.solve(K, -np.r_[ra, rl])
            except la.LinAlgError as err:
                raise SolverError(self.name, t, f"singular iteration matrix of the smooth part: {err}") from None
            self.nlu += 1
            a1 = a1 + dx[:d.ne]
            self._lam_acc = lam_prev + dx[d.ne:]
            if np.max(np.abs(dx[:d.ne])) <= 1e-10 * max(1.0, np.max(np.abs(a1))):
                break
        else:
            raise SolverError(self.name, t, "the Newton iteration of the smooth part did not converge")
        aal = (af * self.a + (1 - af) * a1 - am * self.a_alpha) / (1 - am)
        ut = u + h * ((1 - ga) * self.a_alpha + ga * aal)
        qt = d.normalize(q_base + h * h * Tn @ ((0.5 - be) * self.a_alpha + be * aal))
        if np.any(fc):
            # persistent contacts: their force of the last step moves the position update, but
            # never so far that a closed contact opens (the factor c <= 1 limits the shift)
            dq = 0.5 * h * h * d.solve_M(fc)
            g0, Ws = d.contact_state(qt)
            c = 1.0
            for i in self._forces:
                s_i = Ws[i][0] @ dq
                if g0[i] <= 0 < g0[i] + s_i:
                    c = min(c, -g0[i] / s_i)
            qt = d.normalize(qt + c * Tn @ dq)
        # 2. velocity jump on the contacts closed at q~ (Newton's law with the velocity u_n)
        idx, cs, W, g = d.closed(qt)
        b = d.restitution(idx, cs) * (W.T @ u)
        Md = self.Md

        def jump(v):
            return Md @ (v - ut), Md
        jump.linear = True
        u1, Pg, P = self.velocity_update(t1, qt, ut, jump, W, cs, b)
        # 3. position correction: g_N(q_{n+1}) >= 0 _|_ kappa_N >= 0 and g(q_{n+1}) = 0
        q1 = qt

        def shift(v):
            return Md @ v, Md
        shift.linear = True
        for _ in range(self.max_position_iterations):
            gN, Ws = d.contact_state(q1)
            close = np.flatnonzero(gN < 0)
            wg = self._position_residual(t1, q1)
            if not len(close) and np.max(np.abs(wg), initial=0.0) <= self.tol:
                break
            csN = ContactSet(np.zeros(len(close)), np.zeros(len(close), int))
            WN = np.column_stack([Ws[i][0] for i in close]) if len(close) else np.zeros((d.ne, 0))
            dq, _, _ = self.velocity_update(t1, q1, np.zeros(d.ne), shift, WN, csN, gN[close], w=wg)
            q1 = d.normalize(q1 + d.T(q1) @ dq)
        lam = np.zeros(d.nl)
        lam[G_rows] = self._lam_acc + Pg / h
        y1 = np.concatenate([q1, u1, lam])
        y_mid = np.concatenate([0.5 * (q + q1), 0.5 * (u + u1), lam])
        self._record(t1, h, idx, P, W, cs, 0.5 * (ut + u1), y_mid)
        self._remember(idx, cs, P, h)
        self.a, self.a_alpha = a1, aal
        self.t_old, self.y_old = t, y
        self.t, self.y = t1, y1
        self.nsteps += 1

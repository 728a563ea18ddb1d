"""The contact problem of a step of the nonsmooth generalized-alpha method: three levels at once.

Capobianco, Harsch, Eugster & Leine, IJNME 122 (2021), Sect. 4, pose the
contact laws of a step on position, velocity and acceleration level with
the combined multipliers

.. math::

    \\hat\\kappa_N = \\kappa_N + \\tfrac{h^2}{2} \\lambda_N,\\qquad
    P = \\Lambda + h\\, \\lambda

(``kappa_N`` the position correction, ``Lambda`` the impulsive part and
``lambda`` the contact forces of the smooth motion).  With the gaps
``g_N(q_{n+1})``, Newton's velocities ``xi = gamma^+ + e gamma^-`` and the
contact accelerations ``gamma_dot = W^T a_{n+1} + zeta`` the laws read,
contact by contact (``k``),

* position level: ``g_N in -N_{R+}(kappa_hat_N)``; the contact is *closed*,
  ``k in A``, when ``kappa_hat_N - r g_N >= 0``;
* velocity level: for ``k in A``: ``xi_N in -N_{R+}(P_N)``,
  ``xi_F in -N_{C(mu P_N)}(P_F)``; otherwise ``P = 0``;
  ``k in B`` when also ``P_N - r xi_N >= 0`` (the contact persists);
* acceleration level: for ``k in B``: ``gamma_dot_N in -N_{R+}(lambda_N)``
  and, where the friction sticks on velocity level (``|P_F - r xi_F| <=
  mu P_N``), ``gamma_dot_F in -N_{C(mu lambda_N)}(lambda_F)``, where it
  slides ``xi_F in -N_{C(mu lambda_N)}(lambda_F)`` (the smooth friction
  force opposes the sliding velocity); otherwise ``lambda = 0``.

Each inclusion is written as a proximal-point equation
(``x = prox_C(x - r y)``, Studer 2009, eq. (5.27)), so that the laws are
one system of semismooth equations ``R(X) = 0`` in ``X = (kappa_hat_N, P,
lambda)`` for the affine map ``Y = Y_0 + D X``, ``Y = (g_N, xi,
gamma_dot)``.  It is solved by a semismooth Newton method with the exact
generalized Jacobian and an Armijo line search, with a projected
Gauss--Seidel iteration on the same equations as a fallback.
"""
import numpy as np

from .prox import RELAX


def _ball(s, rho):
    """Projection of ``s`` onto the ball of radius ``rho``: ``(p, dp/ds, dp/drho, inside)``."""
    ns = np.linalg.norm(s)
    if ns <= rho:
        return s.copy(), np.eye(len(s)), np.zeros(len(s)), True
    sh = s / ns
    return rho * sh, rho / ns * (np.eye(len(s)) - np.outer(sh, sh)), sh, False


class Levels:
    """Index layout of ``X = (kappa_hat_N (m), P (n), lambda (n))`` for a :class:`~phmech.solvers.prox.ContactSet`
    ``cs`` (``P`` and ``lambda`` in the layout of ``cs``)."""

    def __init__(self, cs):
        self.cs = cs
        self.m, self.n = cs.m, cs.n
        self.N = cs.m + 2 * cs.n
        self.K = np.arange(cs.m)
        self.P = cs.m + np.arange(cs.n)
        self.L = cs.m + cs.n + np.arange(cs.n)


def parameters(D, lv, relax=RELAX):
    """Prox parameters ``r = relax / D_ii`` (friction blocks: the largest diagonal entry);
    rows whose diagonal vanishes (levels fixed by the caller) get ``r = 1``."""
    d = np.diag(D).copy()
    r = np.empty(lv.N)
    for off in (0, lv.m, lv.m + lv.n):
        rows = off + np.arange(lv.m)
        r[rows] = np.where(d[rows] > 0, relax / np.where(d[rows] > 0, d[rows], 1.0), 1.0)
    for off in (lv.m, lv.m + lv.n):
        for F in lv.cs.F:
            if len(F):
                dm = d[off + F].max()
                r[off + F] = relax / dm if dm > 0 else 1.0
    return r


def residual(X, Y0, D, lv, r, jac=False):
    """``R(X)`` of the three-level proximal-point equations and (``jac=True``) its Jacobian."""
    cs, m, n = lv.cs, lv.m, lv.n
    Y = Y0 + D @ X
    R = X.copy()
    J = np.eye(lv.N) if jac else None

    def normal(i, s):                       # x - max(s, 0), s = x - r_i y_i
        R[i] = X[i] - max(s, 0.0)
        if jac and s > 0:
            J[i] = r[i] * D[i]

    def friction(rows, yrows, i_rho, mu):   # x - proj_{C(mu x_rho)}(x - r y)
        s = X[rows] - r[rows] * Y[yrows]
        rho = mu * max(X[i_rho], 0.0)
        p, dS, dR, inside = _ball(s, rho)
        R[rows] = X[rows] - p
        if jac:
            E = np.eye(lv.N)[rows]
            J[rows] = E - dS @ (E - r[rows, None] * D[yrows])
            if X[i_rho] > 0:
                J[rows, i_rho] -= mu * dR
        return inside

    for k in range(m):
        iK, iP, iL = k, m + k, m + n + k
        sK = X[iK] - r[iK] * Y[iK]
        normal(iK, sK)
        closed = sK >= 0
        persists = False
        if closed:
            sP = X[iP] - r[iP] * Y[iP]
            normal(iP, sP)
            persists = sP >= 0
        if persists:
            normal(iL, X[iL] - r[iL] * Y[iL])
        F = cs.F[k]
        if len(F):
            stick = False
            if closed:
                stick = friction(m + F, m + F, iP, cs.mu[k])
            if persists:
                friction(m + n + F, (m + n + F) if stick else (m + F), iL, cs.mu[k])
    return (R, J) if jac else R


def _gauss_seidel(X, Y0, D, lv, r, tol, sweeps, w):
    """Projected Gauss--Seidel: each unknown replaced by its prox value, contact by contact."""
    X = X.copy()
    cs, m, n = lv.cs, lv.m, lv.n
    res = np.inf
    for sweep in range(1, sweeps + 1):
        for k in range(m):
            F = cs.F[k]
            for rows in ([k], [m + k], m + F, [m + n + k], m + n + F):
                rows = np.asarray(rows, int)
                if not len(rows):
                    continue
                R = residual(X, Y0, D, lv, r)
                X[rows] -= R[rows]
        res = np.max(np.abs(residual(X, Y0, D, lv, r)) * w, initial=0.0)
        if res <= tol:
            return X, sweep, res
    return X, sweeps, res


def solve(Y0, D, lv, X0=None, tol=1e-12, max_newton=50, max_sweeps=5000, relax=RELAX):
    """``X`` with ``R(X) = 0``; returns ``(X, newton_iterations, gs_sweeps)``; raises RuntimeError.

    Convergence: ``|R_i| <= tol s`` on each level, ``s`` the largest ``|r Y_0|`` of the level (the
    size of its multipliers: ``kappa_hat`` from the gaps, ``P`` from the velocities, ``lambda``
    from the accelerations), so that gaps close to ``tol`` relative to the penetration.
    """
    r = parameters(D, lv, relax)
    X = np.zeros(lv.N) if X0 is None else np.array(X0, float)
    levels = [rows for rows in (lv.K, lv.P, lv.L) if len(rows)]
    sizes = [np.max(np.abs(r[rows] * Y0[rows])) for rows in levels]
    floor = max(max(sizes, default=0.0) * 1e-14, 1e-300)
    w = np.ones(lv.N)
    for rows, sz in zip(levels, sizes):
        w[rows] = 1.0 / max(sz, floor)

    def size(R):
        return np.max(np.abs(R) * w, initial=0.0)

    def newton(X, budget):
        R, J = residual(X, Y0, D, lv, r, jac=True)
        res, it = size(R), 0
        while res > tol and it < budget:
            it += 1
            try:
                dX = np.linalg.solve(J, -R)
            except np.linalg.LinAlgError:
                dX = np.linalg.lstsq(J, -R, rcond=None)[0]
            step = 1.0
            while True:
                Xn = X + step * dX
                if size(residual(Xn, Y0, D, lv, r)) < (1 - 1e-4 * step) * res or step < 1e-6:
                    break
                step *= 0.5
            X = Xn
            R, J = residual(X, Y0, D, lv, r, jac=True)
            res = size(R)
        return X, it, res
    # Newton; where its iterates cycle between index sets (the residual jumps where a contact
    # changes its level), projected Gauss--Seidel sweeps bring the iterate closer and Newton
    # starts again from there
    X, it, res = newton(X, max_newton)
    sweeps, rounds = 0, 0
    while res > tol and sweeps < max_sweeps:
        rounds += 1
        X, sw, res = _gauss_seidel(X if np.all(np.isfinite(X)) else np.zeros(lv.N), Y0, D, lv, r, tol,
                                   min(100 * rounds, max_sweeps - sweeps), w)
        sweeps += sw
        if res > tol:
            X, k, res = newton(X, 10)
            it += k
    if res > tol:
        raise RuntimeError(f"the three-level contact problem did not converge: relative |R| = {res:.3g} "
                           f"after {it} Newton iterations and {sweeps} Gauss-Seidel sweeps")
    return X, it, sweeps

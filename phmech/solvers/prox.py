"""The contact problem of one step: proximal-point equations, semismooth Newton, Gauss--Seidel.

After the smooth part and the bilateral constraints are eliminated, the
velocities of a step are affine in the percussions ``P`` of the closed
contacts, ``u = u_f + Z P``, and so are the contact velocities

.. math::

    \\xi = \\xi_0 + D P, \\qquad D = W^T Z \\quad\\text{(the Delassus matrix)} ,

with ``xi = gamma^+ + e gamma^-`` (Newton's law on velocity level).  The
normal-cone inclusions of the contact laws, ``xi_N in -N_{R+}(P_N)`` and
``xi_F in -N_{C(mu P_N)}(P_F)`` (Capobianco et al., IJNME 122 (2021),
eqs. (13), (17); Studer, Lecture Notes in Appl. Comp. Mech. 47 (2009),
Sect. 5.3), are equivalent for any ``r > 0`` to the proximal-point
equations (Studer 2009, eq. (5.27); Alart & Curnier 1991)

.. math::

    R_N = P_N - \\mathrm{prox}_{\\mathbb R_0^+}(P_N - r_N \\xi_N) = 0,\\qquad
    R_F = P_F - \\mathrm{prox}_{C(\\mu P_N)}(P_F - r_F \\xi_F) = 0 ,

``C(rho)`` the ball of radius ``rho`` (disc of Coulomb friction in space,
interval in the plane, ellipsoid of Coulomb--Contensou after scaling).

They are solved by a semismooth Newton method with the exact generalized
Jacobian (derivatives of the projections below, no finite differences)
and an Armijo backtracking on ``|R|``; if it does not converge, a
projected Gauss--Seidel fixed-point iteration on the same equations takes
over (Studer 2009, Sect. 5.4; convergent for ``r_i < 2 / D_ii``).  The
prox parameters are chosen per contact from the Delassus diagonal,
``r_i = alpha / D_ii`` (normal) and ``alpha / max diag(D_FF)`` (friction
block of one contact): a single global value does not fit contacts of
very different effective masses.
"""
import numpy as np

#: default relaxation of the prox parameters r = RELAX / D_ii
RELAX = 1.0


class ContactSet:
    """Index layout of the closed contacts of a step.

    Parameters
    ----------
    mu : array (m,)
        Friction coefficients of the closed contacts.
    nF : array of int (m,)
        Friction rows per contact (0 without friction).

    ``P = (P_N[0..m), P_F of contact 0, P_F of contact 1, ...)``.
    """

    def __init__(self, mu, nF):
        self.mu = np.asarray(mu, float)
        self.nF = np.asarray(nF, int)
        self.m = len(self.mu)
        starts = self.m + np.r_[0, np.cumsum(self.nF)[:-1]] if self.m else np.zeros(0, int)
        self.F = [np.arange(s, s + k) for s, k in zip(starts, self.nF)]
        self.n = self.m + int(self.nF.sum())


def prox_parameters(D, cs, relax=RELAX):
    """Per-contact prox parameters from the Delassus diagonal (vector over the rows of ``P``)."""
    d = np.diag(D).copy()
    r = np.empty(cs.n)
    tiny = 1e-300
    r[:cs.m] = relax / np.maximum(d[:cs.m], tiny)
    for F in cs.F:
        if len(F):
            r[F] = relax / max(d[F].max(), tiny)
    return r


def residual(P, xi0, D, cs, r, jac=False):
    """``R(P)`` of the proximal-point equations and (``jac=True``) its generalized Jacobian."""
    xi = xi0 + D @ P
    y = P - r * xi
    R = np.empty(cs.n)
    # d prox / d y (block diagonal) and d prox / d P_N (friction radius)
    Dy = np.zeros((cs.n, cs.n)) if jac else None
    DN = np.zeros((cs.n, cs.n)) if jac else None
    N = np.arange(cs.m)
    yN = y[N]
    R[N] = P[N] - np.maximum(yN, 0.0)
    if jac:
        Dy[N, N] = (yN > 0).astype(float)
    for i, F in enumerate(cs.F):
        if not len(F):
            continue
        rho = cs.mu[i] * max(P[i], 0.0)
        yF = y[F]
        ny = np.linalg.norm(yF)
        if ny <= rho:
            R[F] = P[F] - yF
            if jac:
                Dy[np.ix_(F, F)] = np.eye(len(F))
        else:
            yhat = yF / ny
            R[F] = P[F] - rho * yhat
            if jac:
                Dy[np.ix_(F, F)] = rho / ny * (np.eye(len(F)) - np.outer(yhat, yhat))
                if P[i] > 0:
                    DN[F, i] = cs.mu[i] * yhat
    if not jac:
        return R
    # y = P - r (xi0 + D P)  =>  dy/dP = I - diag(r) D
    J = np.eye(cs.n) - Dy @ (np.eye(cs.n) - r[:, None] * D) - DN
    return R, J


def _gauss_seidel(P, xi0, D, cs, r, tol, max_sweeps):
    """Projected Gauss--Seidel on the prox equations, contact by contact; returns ``(P, sweeps, |R|)``."""
    P = P.copy()
    for sweep in range(1, max_sweeps + 1):
        for i in range(cs.m):
            rows = np.r_[i, cs.F[i]].astype(int)
            xi = xi0[rows] + D[rows] @ P
            P[i] = max(P[i] - r[i] * xi[0], 0.0)
            F = cs.F[i]
            if len(F):
                xi = xi0[F] + D[F] @ P
                yF = P[F] - r[F] * xi
                rho = cs.mu[i] * P[i]
                ny = np.linalg.norm(yF)
                P[F] = yF if ny <= rho else rho * yF / ny
        res = np.linalg.norm(residual(P, xi0, D, cs, r), np.inf)
        if res <= tol:
            return P, sweep, res
    return P, max_sweeps, res


class ProxSolver:
    """Solves ``R(P) = 0``: semismooth Newton, then Gauss--Seidel if Newton fails.

    Parameters
    ----------
    tol : float
        Tolerance on ``max |R|`` relative to ``max(|P|, scale)`` (percussion units).
    max_newton : int
    max_sweeps : int
        Gauss--Seidel sweeps of the fallback.
    relax : float
        ``alpha`` of ``r_i = alpha / D_ii``.

    After each :meth:`solve`, ``last`` holds ``(newton_iterations, gs_sweeps, |R|)``;
    the totals are in ``stats``.
    """

    def __init__(self, tol=1e-12, max_newton=50, max_sweeps=5000, relax=RELAX):
        self.tol, self.max_newton, self.max_sweeps, self.relax = tol, max_newton, max_sweeps, relax
        self.stats = {"contact_solves": 0, "newton_iterations": 0, "max_newton_iterations": 0,
                      "gs_fallbacks": 0, "gs_sweeps": 0}
        self.last = (0, 0, 0.0)

    def solve(self, xi0, D, cs, P0=None, scale=1.0):
        """Percussions ``P`` with ``R(P) = 0`` for ``xi = xi0 + D P``; raises RuntimeError on failure."""
        r = prox_parameters(D, cs, self.relax)
        P = np.zeros(cs.n) if P0 is None else np.array(P0, float)
        tol = self.tol * max(scale, 1e-300)
        R, J = residual(P, xi0, D, cs, r, jac=True)
        res = np.linalg.norm(R, np.inf)
        it = 0
        while res > tol and it < self.max_newton:
            it += 1
            try:
                dP = np.linalg.solve(J, -R)
            except np.linalg.LinAlgError:
                dP = np.linalg.lstsq(J, -R, rcond=None)[0]
            step, phi0 = 1.0, res
            while True:
                Pn = P + step * dP
                Rn = residual(Pn, xi0, D, cs, r)
                if np.linalg.norm(Rn, np.inf) < (1 - 1e-4 * step) * phi0 or step < 1e-6:
                    break
                step *= 0.5
            P = Pn
            R, J = residual(P, xi0, D, cs, r, jac=True)
            res = np.linalg.norm(R, np.inf)
        sweeps = 0
        if res > tol:
            self.stats["gs_fallbacks"] += 1
            P, sweeps, res = _gauss_seidel(P if np.all(np.isfinite(P)) else np.zeros(cs.n), xi0, D, cs, r,
                                           tol, self.max_sweeps)
            if res > tol:
                raise RuntimeError(f"the contact problem did not converge: |R| = {res:.3g} after {it} "
                                   f"Newton iterations and {sweeps} Gauss-Seidel sweeps")
        st = self.stats
        st["contact_solves"] += 1
        st["newton_iterations"] += it
        st["max_newton_iterations"] = max(st["max_newton_iterations"], it)
        st["gs_sweeps"] += sweeps
        self.last = (it, sweeps, res)
        return P

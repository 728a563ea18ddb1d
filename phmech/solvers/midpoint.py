"""Implicit midpoint rule (Gauss-Legendre, one stage) for the pH descriptor DAE.

One step of size ``h`` solves, for ``y1 = (q1, e1)`` and the multipliers
``lam`` of the step,

.. math::

    E \\frac{y_1 - y_0}{h} = f_d\\bigl(t_{1/2}, \\tfrac{y_0 + y_1}{2}, \\lambda\\bigr),
    \\qquad 0 = w(t_{1/2}) - G(q_{1/2})\\, e_{1/2},

so the constraint holds at the midpoints (``constraints="midpoint"``, the
default).  Since ``H = e^T M e / 2`` is
quadratic and ``e^T J(e) e = 0``, the discrete power balance is exact:

.. math::

    H(e_1) - H(e_0) = h\\,\\bigl(w(t_{1/2})^T \\lambda + y_{1/2}^T u(t_{1/2})
                      - e_{1/2}^T R\\, e_{1/2}\\bigr)

(to the Newton tolerance), while the velocity constraint at the step
points is met to O(h) only when ``G`` depends on the configuration.  With
``constraints="endpoint"`` the constraint is imposed at ``t_1`` instead:
exact at every step point, with a power balance error of O(h^2).  The method is A-stable and second order in the
differential variables.  The nonlinear systems are solved by a simplified
Newton method on a sparse LU factorization that is reused over steps until
the contraction deteriorates.  The multiplier of a step belongs to its
midpoint and is stored with the step's end point.  The solver also records
the exact discrete work supplied through the ports (``Result.work``).
"""
import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from .base import DAESolver, SolverError, positive_option

#: systems up to this size are factorized densely (LAPACK beats SuperLU's overhead there)
DENSE_MAX = 300


class _DenseLU:
    """LAPACK getrf/getrs without scipy's per-call checks (small systems, many solves)."""

    def __init__(self, A):
        from scipy.linalg import lapack
        self.lu, self.piv, info = lapack.dgetrf(A)
        if info != 0:
            raise np.linalg.LinAlgError(f"singular matrix (getrf info {info})")
        self._getrs = lapack.dgetrs

    def solve(self, b):
        x, info = self._getrs(self.lu, self.piv, b)
        return x


class ImplicitMidpoint(DAESolver):
    """Fixed-step implicit midpoint.

    Parameters
    ----------
    dt : float
        Step size (adjusted to divide the span; shortened to end on breakpoints).
    constraints : ``"midpoint"`` or ``"endpoint"``
    newton_tol : float
        Relative tolerance of the Newton increments.
    max_newton : int
        Newton iterations before the Jacobian is refreshed (and, if that
        does not help, the step fails).
    """

    name = "midpoint"

    records_work = True

    def __init__(self, dae, t_span, y0, dt=None, constraints="midpoint",
                 newton_tol=1e-10, max_newton=7, fresh_jacobian=False):
        super().__init__(dae, t_span, y0)
        if constraints not in ("midpoint", "endpoint"):
            raise ValueError(f"midpoint: constraints must be 'midpoint' or 'endpoint', got {constraints!r}")
        self.endpoint = constraints == "endpoint"
        self.fresh_jacobian = bool(fresh_jacobian)
        if dt is None:
            raise ValueError("midpoint: a positive step size dt is required, got None")
        dt = positive_option(self.name, "dt", dt)
        span = self.t_end - self.t0
        self.h = span / max(1, int(round(span / dt)))
        self.newton_tol = positive_option(self.name, "newton_tol", newton_tol)
        if isinstance(max_newton, bool) or not isinstance(max_newton, (int, np.integer)) or max_newton < 1:
            raise ValueError(f"midpoint: option max_newton must be a positive integer, got {max_newton!r}")
        self.max_newton = int(max_newton)
        nd = dae.nq + dae.ne
        self.nd = nd
        self.D = sp.diags(np.r_[np.full(nd, 0.5), np.ones(dae.nl)], format="csc")
        self.Rsc = sp.diags(np.r_[np.ones(nd), np.full(dae.nl, 2.0 if self.endpoint else 1.0)], format="csc")
        self.Ed = dae.E.tocsc()
        self.Ed_mv = self.Ed.toarray() if dae.n <= DENSE_MAX else self.Ed
        self.lu = None
        self.lu_h = None
        self.z_prev = None
        self.dae_scale = self._scales(self.y)
        #: exact discrete work supplied through the ports up to ``t``
        self.work = 0.0

    def _scales(self, y):
        d = self.dae
        s = np.empty(d.n)
        for sl in (d.sq, d.se, d.sl):
            blk = np.abs(y[sl])
            s[sl] = max(float(blk.mean()) if blk.size else 0.0, 1e-8)
        return s

    def _factor(self, t, ym, h):
        A = self.Ed / h - (self.Rsc @ self.dae.jacobian(t, ym) @ self.D)
        self.njev += 1
        try:
            if self.dae.n <= DENSE_MAX:
                self.lu = _DenseLU(A.toarray())
            else:
                self.lu = splu(sp.csc_matrix(A))
        except (RuntimeError, np.linalg.LinAlgError) as err:
            raise SolverError(self.name, t, f"singular iteration matrix ({err}): the mass matrix is "
                              "singular on the motions the joints allow, or constraints are dependent") from None
        self.lu_h = h
        self.nlu += 1

    def step(self):
        """Advance one step of size ``h`` (shortened to end on ``t_bound``)."""
        d, nd = self.dae, self.nd
        y0, t0 = self.y, self.t
        h = self.h
        if self.t_bound - t0 < h * (1 + 1e-9):
            h = self.t_bound - t0
        if self.lu_h is not None and h != self.lu_h:
            self.lu = None
        extrapolate = self.z_prev is not None and h == self.lu_h
        tm = t0 + 0.5 * h
        # predictor: linear extrapolation of the differential part
        z = y0.copy()
        if extrapolate:
            z[:nd] = 2.0 * y0[:nd] - self.z_prev[:nd]
        Edy0 = self.Ed_mv @ y0
        if self.fresh_jacobian:
            self.lu = None

        def residual(z):
            ym = z.copy()
            ym[:nd] = 0.5 * (y0[:nd] + z[:nd])
            fz = d.f(tm, ym)
            self.nfev += 1
            r = (self.Ed_mv @ z - Edy0) / h - fz
            if self.endpoint:
                q1, e1 = z[d.sq], z[d.se]
                r[d.sl] = d.G(q1) @ e1 - d.w(t0 + h)
            return r, ym

        for attempt in range(2):
            if self.lu is None:
                ym = z.copy()
                ym[:nd] = 0.5 * (y0[:nd] + z[:nd])
                self._factor(tm, ym, h)
            converged = False
            prev = None
            err = np.nan
            cause = None
            for it in range(self.max_newton):
                r, ym = residual(z)
                if not np.all(np.isfinite(r)):
                    bad = np.flatnonzero(~np.isfinite(r))
                    cause = (f"the residual became non-finite in {d.labels()[bad[0]]} "
                             f"(a load or drive function returning NaN/inf, or a diverging iterate)")
                    break
                dz = self.lu.solve(r)
                z -= dz
                if it == 0:  # block scales follow the solution (multipliers may start at zero)
                    self.dae_scale = np.maximum(self.dae_scale, self._scales(z))
                err = np.max(np.abs(dz) / (np.abs(z) + self.dae_scale))
                if not np.isfinite(err):
                    cause = "the Newton increment became non-finite (singular or ill-conditioned iteration matrix)"
                    break
                rate = err / prev if prev else None
                # converged when the increment, or the error left after a
                # contracting iteration (rate / (1 - rate) * increment), is below tol
                if err < self.newton_tol or (rate is not None and rate < 0.9
                                             and rate / (1 - rate) * err < self.newton_tol):
                    converged = True
                    break
                if rate is not None and rate > 0.5 and it >= 2:
                    break  # slow contraction: refresh the Jacobian
                prev = err
            if converged:
                break
            self.lu = None
            z = y0.copy()
        else:
            raise SolverError(self.name, t0, cause or "Newton iteration did not converge "
                              f"(last increment {err:.3g}) with a fresh Jacobian: the step is too "
                              "large for the motion (reduce dt) or the model is inconsistent")
        self.z_prev = y0
        # exact discrete supplied work of the step (power at the midpoint)
        ym = z.copy()
        ym[:nd] = 0.5 * (y0[:nd] + z[:nd])
        self.work += h * d.power(tm, ym)
        self.t_old, self.y_old = t0, y0
        self.y = z
        self.t = t0 + h if h != self.t_bound - t0 else self.t_bound
        self.nsteps += 1
        return self.t

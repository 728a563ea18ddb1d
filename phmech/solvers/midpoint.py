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

from .base import DAESolver, SolverError

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
        Step size.
    dt_out : float, optional
        Output interval (the nearest multiple of the step is used); default:
        every step.  ``t_eval`` (output times, linear interpolation between
        step points) takes precedence.
    newton_tol : float
        Relative tolerance of the Newton increments.
    max_newton : int
        Newton iterations before the Jacobian is refreshed (and, if that
        does not help, the step fails).
    """

    name = "midpoint"

    def __init__(self, dae, t_span, y0, dt=None, dt_out=None, constraints="midpoint",
                 newton_tol=1e-10, max_newton=7, fresh_jacobian=False, **kw):
        super().__init__(dae, t_span, y0, **kw)
        if constraints not in ("midpoint", "endpoint"):
            raise ValueError(f"midpoint: constraints must be 'midpoint' or 'endpoint', got {constraints!r}")
        self.endpoint = constraints == "endpoint"
        self.fresh_jacobian = fresh_jacobian
        if dt is None or not dt > 0:
            raise ValueError(f"midpoint: a positive step size dt is required, got {dt!r}")
        span = self.t_end - self.t0
        self.nstep_total = max(1, int(round(span / dt)))
        self.h = span / self.nstep_total
        self.every = 1 if dt_out is None else max(1, int(round(dt_out / self.h)))
        self.newton_tol = newton_tol
        self.max_newton = max_newton
        nd = dae.nq + dae.ne
        self.nd = nd
        self.D = sp.diags(np.r_[np.full(nd, 0.5), np.ones(dae.nl)], format="csc")
        self.Rsc = sp.diags(np.r_[np.ones(nd), np.full(dae.nl, 2.0 if self.endpoint else 1.0)], format="csc")
        self.Ed = dae.E.tocsc()
        self.Ed_mv = self.Ed.toarray() if dae.n <= DENSE_MAX else self.Ed
        self.lu = None
        self.z_prev = None
        self.lam_prev = None
        self.dae_scale = self._scales(self.y)

    def _scales(self, y):
        d = self.dae
        s = np.empty(d.n)
        for sl in (d.sq, d.se, d.sl):
            blk = np.abs(y[sl])
            s[sl] = max(float(blk.mean()) if blk.size else 0.0, 1e-8)
        return s

    def _factor(self, t, ym):
        A = self.Ed / self.h - (self.Rsc @ self.dae.jacobian(t, ym) @ self.D)
        self.njev += 1
        try:
            if self.dae.n <= DENSE_MAX:
                self.lu = _DenseLU(A.toarray())
            else:
                self.lu = splu(sp.csc_matrix(A))
        except (RuntimeError, np.linalg.LinAlgError) as err:
            raise SolverError(self.name, t, f"singular iteration matrix ({err}); "
                              "check that the constraints are independent") from None
        self.nlu += 1

    def step(self):
        """Advance one step of size ``h``; returns the new time."""
        d, h, nd = self.dae, self.h, self.nd
        y0, t0 = self.y, self.t
        tm = t0 + 0.5 * h
        # predictor: linear extrapolation of the differential part
        z = y0.copy()
        if self.z_prev is not None:
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
                self._factor(tm, ym)
            converged = False
            prev = None
            for it in range(self.max_newton):
                r, ym = residual(z)
                dz = self.lu.solve(r)
                z -= dz
                if it == 0:  # block scales follow the solution (multipliers may start at zero)
                    self.dae_scale = np.maximum(self.dae_scale, self._scales(z))
                err = np.max(np.abs(dz) / (np.abs(z) + self.dae_scale))
                if not np.isfinite(err):
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
            raise SolverError(self.name, t0, "Newton iteration did not converge "
                              f"(last increment {err:.3g}) with a fresh Jacobian; "
                              "reduce dt or check the model")
        self.z_prev = y0
        self.y = z
        self.t = t0 + h
        self.nsteps += 1
        return self.t

    def _run(self):
        d = self.dae
        work, works = 0.0, [0.0]
        out_t = None if self.t_eval is None else list(self.t_eval[self.t_eval > self.t0])
        for k in self._progress_bar(self.nstep_total):
            y0, t0, w0 = self.y, self.t, work
            self.step()
            # exact discrete supplied work of the step (power at the midpoint)
            ym = self.y.copy()
            ym[:self.nd] = 0.5 * (y0[:self.nd] + self.y[:self.nd])
            work += self.h * d.power(t0 + 0.5 * self.h, ym)
            if out_t is None:
                if (k + 1) % self.every == 0 or k + 1 == self.nstep_total:
                    self.ts.append(self.t)
                    self.ys.append(self.y.copy())
                    works.append(work)
            else:  # linear interpolation between step points: O(h^2), like the rule
                last = k + 1 == self.nstep_total
                while out_t and (out_t[0] <= self.t + 1e-12 * self.h or last):
                    ti = out_t.pop(0)
                    a = min(max((ti - t0) / self.h, 0.0), 1.0)
                    self.ts.append(ti)
                    self.ys.append((1 - a) * y0 + a * self.y)
                    works.append((1 - a) * w0 + a * work)
        if out_t is None:
            self.ts[-1] = self.t_end
        self.extra["work"] = np.array(works)

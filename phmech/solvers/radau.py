"""Radau IIA (three stages, order 5) for the sparse descriptor DAE ``E y' = f(t, y)``.

The classical RADAU5 scheme of Hairer & Wanner (Solving ODEs II, IV.8),
written for a singular ``E`` and sparse linear algebra: the stage system is
decoupled by the eigenvectors of the Butcher matrix into one real and one
complex sparse system, ``(mu_r/h E - J)`` and ``(mu_c/h E - J)``, each
factorized with SuperLU and reused while the step size and the Jacobian do
not change.  The step size follows the embedded error estimate with the
predictive (Gustafsson) controller.

The multipliers are index-2 variables: as in IDA with ``suppress_alg``,
they are left out of the error test, and in the Newton convergence test
their scale is divided by ``h``.  The differential variables converge with
order 5 for ODEs and order 3 for index-2 DAEs (the stage order).
"""
import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from .base import DAESolver, SolverError, positive_option

S6 = 6 ** 0.5
C = np.array([(4 - S6) / 10, (4 + S6) / 10, 1.0])
E_ERR = np.array([-13 - 7 * S6, -13 + 7 * S6, -1]) / 3
MU_REAL = 3 + 3 ** (2 / 3) - 3 ** (1 / 3)
MU_COMPLEX = 3 + 0.5 * (3 ** (1 / 3) - 3 ** (2 / 3)) - 0.5j * (3 ** (5 / 6) + 3 ** (7 / 6))
T = np.array([[0.09443876248897524, -0.14125529502095421, 0.03002919410514742],
              [0.25021312296533332, 0.20412935229379994, -0.38294211275726192],
              [1.0, 1.0, 0.0]])
TI = np.array([[4.17871859155190428, 0.32768282076106237, 0.52337644549944951],
               [-4.17871859155190428, -0.32768282076106237, 0.47662355450055044],
               [0.50287263494578682, -2.57192694985560522, 0.59603920482822492]])
TI_REAL = TI[0]
TI_COMPLEX = TI[1] + 1j * TI[2]
# collocation polynomial (dense output)
P = np.array([[13 / 3 + 7 * S6 / 3, -23 / 3 - 22 * S6 / 3, 10 / 3 + 5 * S6],
              [13 / 3 - 7 * S6 / 3, -23 / 3 + 22 * S6 / 3, 10 / 3 - 5 * S6],
              [1 / 3, -8 / 3, 10 / 3]])
NEWTON_MAXITER = 6
MIN_FACTOR, MAX_FACTOR = 0.2, 10.0


class RadauIIA(DAESolver):
    """Adaptive Radau IIA (order 5) on sparse matrices.

    Parameters
    ----------
    rtol, atol : float
        Tolerances of the local error test (multipliers excluded).
    first_step, max_step : float, optional
    fixed_step : float, optional
        Constant step size without error control (order studies).
    """

    name = "radau"

    def __init__(self, dae, t_span, y0, rtol=1e-6, atol=1e-6, first_step=None, max_step=np.inf,
                 fixed_step=None):
        super().__init__(dae, t_span, y0, rtol=rtol, atol=atol)
        if self.rtol < 100 * np.finfo(float).eps:
            raise ValueError(f"radau: rtol={self.rtol} is below 100 machine epsilons")
        self.max_step = positive_option(self.name, "max_step", np.inf if max_step is None else max_step,
                                        allow_inf=True)
        self.fixed_step = positive_option(self.name, "fixed_step", fixed_step, allow_none=True)
        first_step = positive_option(self.name, "first_step", first_step, allow_none=True)
        self.E = dae.E.tocsc()
        self.diff = np.zeros(dae.n, bool)
        self.diff[:dae.nq + dae.ne] = True
        self.newton_tol = max(10 * np.finfo(float).eps / self.rtol, min(0.03, self.rtol ** 0.5))
        #: simplified Newton iterations per step (more with fixed steps: no step rejection to fall back on)
        self.newton_maxiter = NEWTON_MAXITER if self.fixed_step is None else 30
        if self.fixed_step is not None:
            self.h = self.fixed_step
        else:
            self.h = first_step if first_step is not None else self._initial_step()
        self.h = min(self.h, self.max_step, self.t_end - self.t0)
        # state carried between steps
        self._f = None
        self._J = None
        self._current_jac = False
        self._lu = None
        self._h_old = self._err_old = None
        self._Q = None

    def _initial_step(self):
        d = self.dae
        yd = d.derivative(self.t0, self.y)
        self.nfev += 1
        sc = self.atol + self.rtol * np.abs(self.y)
        d1 = np.sqrt(np.mean((yd[self.diff] / sc[self.diff]) ** 2))
        h = 1e-6 if d1 < 1e-10 else 0.01 / d1
        return min(h, 1e-3 * (self.t_end - self.t0))

    def _norm(self, x, scale, h=None):
        s = scale.copy()
        if h is not None:  # Newton test on the stage increments: multipliers at scale / h
            s[~self.diff] /= h
            return np.sqrt(np.mean((x / s[None, :]) ** 2))
        return np.sqrt(np.mean((x[self.diff] / s[self.diff]) ** 2))

    def _factor(self, h, J):
        try:
            lu_r = splu(sp.csc_matrix(MU_REAL / h * self.E - J))
            lu_c = splu(sp.csc_matrix(MU_COMPLEX / h * self.E - J, dtype=complex))
        except RuntimeError as err:
            raise SolverError(self.name, self.t, f"singular iteration matrix ({err})") from None
        self.nlu += 2
        return lu_r, lu_c

    def _collocation(self, t, y, h, Z0, scale, lu_r, lu_c):
        d, E = self.dae, self.E
        W = TI @ Z0
        Z = Z0
        F = np.empty((3, d.n))
        dW = np.empty_like(W)
        dW_norm_old, rate, converged = None, None, False
        k = 0
        for k in range(self.newton_maxiter):
            for i in range(3):
                F[i] = d.f(t + C[i] * h, y + Z[i])
            self.nfev += 3
            if not np.all(np.isfinite(F)):
                break
            f_real = F.T @ TI_REAL - MU_REAL / h * (E @ W[0])
            f_cplx = F.T @ TI_COMPLEX - MU_COMPLEX / h * (E @ (W[1] + 1j * W[2]))
            dW[0] = lu_r.solve(f_real)
            dc = lu_c.solve(f_cplx)
            dW[1], dW[2] = dc.real, dc.imag
            dW_norm = self._norm(dW, scale, h)
            if dW_norm_old is not None:
                rate = dW_norm / dW_norm_old
            if rate is not None and (rate >= 1 or rate ** (self.newton_maxiter - k) / (1 - rate) * dW_norm > self.newton_tol):
                break
            W += dW
            Z = T @ W
            if dW_norm == 0 or (rate is not None and rate / (1 - rate) * dW_norm < self.newton_tol):
                converged = True
                break
            dW_norm_old = dW_norm
        return converged, k + 1, Z, rate

    def step(self):
        """One accepted step (rejected attempts are retried inside), not beyond ``t_bound``."""
        d = self.dae
        t, y = self.t, self.y
        if self._f is None:
            self._f = d.f(t, y)
            self.nfev += 1
            self._J = d.jacobian(t, y)
            self.njev += 1
            self._current_jac = True
        f, J = self._f, self._J
        h = min(self.h, self.max_step, self.t_bound - t)
        if self.t_bound - (t + h) < 1e-12 * max(1.0, abs(self.t_bound)):
            h = self.t_bound - t
        if h < 10 * np.spacing(t):
            raise SolverError(self.name, t, f"step size {h:.3g} too small")
        if self._lu is not None and self._lu[0] != h:
            self._lu = None
        rejected = False
        while True:
            t_new = t + h
            if self._lu is None:
                self._lu = (h,) + self._factor(h, J)
            _, lu_r, lu_c = self._lu
            if self._Q is None:
                Z0 = np.zeros((3, d.n))
            else:
                x = (t + C * h - self.t_prev) / self.h_prev
                Z0 = (self._Q @ np.vstack([x, x**2, x**3])).T + self.y_prev - y
            scale = self.atol + np.abs(y) * self.rtol
            converged, n_iter, Z, rate = self._collocation(t, y, h, Z0, scale, lu_r, lu_c)
            if not converged:
                if self._current_jac:
                    if self.fixed_step is not None:
                        raise SolverError(self.name, t, "Newton iteration did not converge with the "
                                          f"fixed step {h:.3g}")
                    h *= 0.5
                    self._lu = None
                    self.nreject += 1
                    if h < 10 * np.spacing(t):
                        raise SolverError(self.name, t, "Newton iteration did not converge "
                                          "even with a fresh Jacobian and tiny steps")
                    continue
                J = self._J = d.jacobian(t, y)
                self.njev += 1
                self._current_jac = True
                self._lu = None
                continue
            y_new = y + Z[-1]
            ZE = (Z.T @ E_ERR) / h
            err = lu_r.solve(f + self.E @ ZE)
            scale = self.atol + np.maximum(np.abs(y), np.abs(y_new)) * self.rtol
            err_norm = self._norm(err, scale)
            safety = 0.9 * (2 * NEWTON_MAXITER + 1) / (2 * NEWTON_MAXITER + n_iter)
            if rejected and err_norm > 1:
                err = lu_r.solve(d.f(t, y + err) + self.E @ ZE)
                self.nfev += 1
                err_norm = self._norm(err, scale)
            if err_norm > 1 and self.fixed_step is None:
                factor = _predict(h, self._h_old, err_norm, self._err_old)
                h *= max(MIN_FACTOR, safety * factor)
                self._lu = None
                rejected = True
                self.nreject += 1
                continue
            break
        recompute_jac = n_iter > 2 and rate is not None and rate > 1e-3
        factor = min(MAX_FACTOR, safety * _predict(h, self._h_old, err_norm, self._err_old))
        if not recompute_jac and factor < 1.2:
            factor = 1.0
        else:
            self._lu = None
        # dense output of this step
        self._Q = Z.T @ P
        self.t_prev, self.h_prev, self.y_prev = t, h, y
        self._h_old, self._err_old = h, err_norm
        self.t_old, self.y_old = t, y
        self.t = t_new if t_new < self.t_bound else self.t_bound
        self.y = y_new
        self._f = d.f(self.t, y_new)
        self.nfev += 1
        self.nsteps += 1
        if recompute_jac:
            self._J = d.jacobian(self.t, y_new)
            self.njev += 1
            self._current_jac = True
        else:
            self._current_jac = False
        self.h = self.fixed_step if self.fixed_step is not None else h * factor

    def dense_output(self):
        """The collocation polynomial of the last step."""
        Q, t0, h, y0 = self._Q, self.t_prev, self.h_prev, self.y_prev

        def poly(t):
            x = (np.asarray(t, float) - t0) / h
            return (y0 + (Q @ np.stack([x, x**2, x**3]).reshape(3, -1)).T).reshape(np.shape(t) + (-1,))
        return poly


def _predict(h, h_old, err, err_old):
    if err_old is None or h_old is None or err == 0:
        mult = 1.0
    else:
        mult = h / h_old * (err_old / err) ** 0.25
    with np.errstate(divide="ignore"):
        return min(1.0, mult) * err ** -0.25

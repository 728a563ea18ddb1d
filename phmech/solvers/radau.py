"""Adaptive Radau IIA (three stages, order 5) for ``E y' = f(t, y)`` with sparse matrices.

Method (Hairer & Wanner, *Solving Ordinary Differential Equations II*,
2nd ed., Springer 1996, section IV.8; the index-2 analysis in VII.4):

* **Collocation.**  The stage increments ``Z_i = Y_i - y_0`` at the Radau
  nodes ``c = ((4 - sqrt 6)/10, (4 + sqrt 6)/10, 1)`` satisfy
  ``(A^-1 (x) E) Z = h F(Z)`` with the collocation matrix ``A``.  The
  tableau is computed below from the nodes (integrals of the Lagrange
  polynomials), not copied as numbers.
* **Simplified Newton.**  ``A^-1`` has one real eigenvalue ``gamma`` and a
  complex pair ``alpha +- i beta``; in the real eigenbasis ``W = T^-1 Z``
  (columns: the real eigenvector, real and imaginary part of the complex
  one) the Newton system splits into one real sparse system
  ``(gamma/h E - J)`` and one complex one ``((alpha - i beta)/h E - J)``
  for ``W_2 + i W_3``, both factorized once and
  reused while ``h`` and the Jacobian ``J`` stay.  Convergence is judged by
  the contraction ``theta`` of successive increments: the iteration stops
  when ``||dW||`` or ``theta / (1 - theta) ||dW||`` is below a fraction of
  the tolerance (:func:`~phmech.solvers._newton.newton_converged`, the test
  of every Newton iteration of the package), and is abandoned when
  ``theta`` predicts no convergence in time.
* **Error estimate.**  An embedded formula of order 3 that uses
  ``f(t_0, y_0)`` with weight ``1/gamma``; its difference to the
  collocation solution is filtered by the real iteration matrix, (8.19);
  on the first step and after a rejection an estimate above the tolerance
  is refined by one more solve, (8.20).
* **Step size.**  ``err^(-1/4)`` with a safety factor that falls with the
  Newton effort; after accepted steps the predictive controller of
  Gustafsson (IV.8, (8.25)); the factorizations are kept when the step
  would grow by less than 20 %.  A fixed-step mode (``fixed_step``) turns
  the error control off, for order studies.
* **Index 2.**  The multipliers (the last ``nl`` variables) are algebraic
  variables of index 2: left out of the error norm, and scaled by ``h`` in
  the Newton norm.  The differential components converge with order 5
  (= 2s - 1), the multipliers with order 3 (= s), see VII.4.
* **Dense output.**  The collocation polynomial of the last step.

Everything is computed from the nodes at import time (collocation matrix,
eigenbasis, embedded weights, dense-output basis).  One real and one
complex factorization per step size and Jacobian: dense LAPACK up to
:data:`~phmech.math.sizes.DENSE_MAX` unknowns, sparse above (SuperLU,
with the dense rows and columns of floating frames eliminated as a border:
:func:`~phmech.solvers._dense.sparse_factor`).

**Compiled path.**  The stage iteration is one source
(:func:`~phmech.solvers.radau_kernels.stage_iteration`): compiled for the
dense problems whose right-hand side is a compiled kernel (the assembled
systems whose compiled residual is complete, and the classic benchmark
problems, :mod:`phmech.validation._classic_compiled`), interpreted with
``f`` in Python otherwise.  The correction, the predictor and the error
estimate are one source each (:mod:`phmech.solvers.radau_kernels`), compiled
for dense factors and interpreted for sparse ones; with a compiled
right-hand side the factorization is the same LAPACK routine plus a
compiled singularity test, and ``f`` and the dense Jacobian are the compiled
ones.  ``compiled=False``
runs the iteration interpreted with the problem's own ``f``, the reference.

**Compiled runs.**  Where, besides, the stage data do not depend on time
(the classic problems; assembled systems without time-dependent prescribed
velocities or load inputs) and the system is small enough for the compiled
elimination (:data:`~phmech.solvers.midpoint_kernels.ELIMINATION_MAX`
unknowns), the whole step -- step size, Jacobian refreshes, both
factorizations, stage iteration, error estimate and controller -- is one
compiled function, :func:`~phmech.solvers.radau_runs.radau_steps`, which
takes many steps in one call when the driver does not need to see each (no
events, no callbacks).  The dense output is then the collocation polynomial
of each step of the run.  The controller's formula
(:func:`~phmech.solvers.radau_runs.step_factor`) is the same function in
both loops.
"""
import numpy as np
import scipy.sparse as sp

from ..math.sizes import DENSE_MAX
from . import radau_kernels as _rk
from . import radau_runs as _rr
from ._dense import sparse_factor
from ._newton import solve
from .base import QuadratureWork, Solver, SolverError, count_option, positive_option


def _tableau():
    """Nodes, collocation matrix, its eigen-decomposition and the error weights."""
    s6 = np.sqrt(6.0)
    c = np.array([(4 - s6) / 10, (4 + s6) / 10, 1.0])
    # A[i, j] = int_0^{c_i} l_j(s) ds with the Lagrange polynomials l_j on the nodes
    A = np.zeros((3, 3))
    for j in range(3):
        others = [c[k] for k in range(3) if k != j]
        lj = np.poly1d(np.poly(others)) / np.prod([c[j] - o for o in others])
        Lj = lj.integ()
        A[:, j] = Lj(c) - Lj(0.0)
    Ainv = np.linalg.inv(A)
    lam, V = np.linalg.eig(Ainv)
    kr = int(np.argmin(np.abs(lam.imag)))
    kc = int(np.argmax(lam.imag))
    gamma = lam[kr].real
    alpha, beta = lam[kc].real, lam[kc].imag
    T = np.column_stack([V[:, kr].real, V[:, kc].real, V[:, kc].imag])
    # embedded order-3 weights b_hat (with b_hat_0 = 1/gamma at t_0): sum b_hat c^(k-1) = 1/k
    b = A[-1]
    g0 = 1.0 / gamma
    Vc = np.vstack([c ** k for k in range(3)])
    rhs = np.array([1.0 / (k + 1) for k in range(3)]) - g0 * np.array([1.0, 0.0, 0.0])
    b_hat = np.linalg.solve(Vc, rhs)
    e = (b_hat - b) @ Ainv            # err_raw = g0 h f0 + sum_i e_i E Z_i
    # dense output: Z_i = sum_k Q_k c_i^k (k = 1..3), so u(t0 + x h) = y0 + Q [x, x^2, x^3]
    Vd = np.column_stack([c, c ** 2, c ** 3])
    return c, A, Ainv, gamma, alpha, beta, T, np.linalg.inv(T), e, np.linalg.inv(Vd)


C, A, A_INV, GAMMA, ALPHA, BETA, T, T_INV, E_WEIGHTS, DENSE_INV = _tableau()
#: simplified Newton iterations per step (adaptive mode)
MAX_NEWTON = 7
#: bounds of the step-size change per step
FACTOR_MIN, FACTOR_MAX = 0.2, 8.0
#: the most steps of one compiled run (:meth:`RadauIIA._run`)
BLOCK_MAX = 1000
#: the method's constants as :func:`~phmech.solvers.radau_runs.radau_steps` takes them
_RUN_TABLEAU = (C, T, T_INV, DENSE_INV, E_WEIGHTS, GAMMA, ALPHA, BETA, MAX_NEWTON, FACTOR_MIN, FACTOR_MAX)


class RadauIIA(QuadratureWork, Solver):
    """Adaptive Radau IIA (order 5) on sparse matrices (see the module docstring).

    Parameters
    ----------
    problem, t0, y0, t_bound
        See :class:`~phmech.solvers.base.Solver`.
    rtol, atol : float
        Tolerances of the local error test (multipliers excluded).
    first_step : float, optional
        Initial step (default: from the size of ``y0`` and ``y0'``).
    max_step : float, optional
        Largest step (default: unbounded).
    fixed_step : float, optional
        Constant step size without error control (order studies); the
        Newton iteration then may take up to 30 iterations.
    max_steps : int, optional
        Step limit of the run; reaching it is a :class:`SolverError`.
    compiled : bool, optional
        Run the stage iteration compiled when the problem's right-hand
        side is a compiled kernel (``compiled_residual()`` complete, or a
        ``compiled_rhs``; dense systems only; default True).  False runs
        it interpreted with the problem's ``f``, the reference.
    """

    name = "radau"
    #: the supplied work by the Radau quadrature on the stages (:class:`~phmech.solvers.base.QuadratureWork`)
    work_rule = (tuple(C), tuple(A[-1]))

    def __init__(self, problem, t0, y0, t_bound=None, rtol=1e-6, atol=1e-6, first_step=None, max_step=None,
                 fixed_step=None, max_steps=None, compiled=True, **unknown):
        self.refuse_unknown(unknown)
        super().__init__(problem, t0, y0, t_bound)
        self.rtol = positive_option(self.name, "rtol", rtol)
        self.atol = positive_option(self.name, "atol", atol)
        if self.rtol < 100 * np.finfo(float).eps:
            raise ValueError(f"radau: option rtol must be at least 100 machine epsilons "
                             f"({100 * np.finfo(float).eps:.3g}), got {rtol!r}")
        self.max_step = positive_option(self.name, "max_step", np.inf if max_step is None else max_step,
                                        allow_inf=True)
        self.fixed_step = positive_option(self.name, "fixed_step", fixed_step, allow_none=True)
        first_step = positive_option(self.name, "first_step", first_step, allow_none=True)
        self.max_steps = count_option(self.name, "max_steps", max_steps, allow_none=True)
        self.dense = problem.n <= DENSE_MAX      # LAPACK factors and dense products
        self.E = sp.csc_matrix(problem.E)
        if self.dense:
            self.E = self.E.toarray()
        self.algebraic = np.zeros(problem.n, bool)
        self.algebraic[problem.n - problem.nl:] = True
        self._nd = problem.n - problem.nl          # the differential variables come first
        if not isinstance(compiled, (bool, np.bool_)):
            raise ValueError(f"radau: option compiled must be True or False, got {compiled!r}")
        # the compiled right-hand side (stage source: f, dense Jacobian, stage data) where the
        # problem has one; the stage iteration runs compiled with it on dense systems
        source = _rk.stage_source(problem) if compiled else None
        self._kernel = source if self.dense else None
        self._f = source.f if source is not None else problem.f
        self._loop = _rk.stage_iteration if self._kernel is not None else _rk.stage_iteration_py
        # runs of several compiled steps (radau_steps) where the stage data do not depend on time
        # and the factorization is the compiled elimination's (small dense systems)
        from .midpoint_kernels import AVAILABLE, ELIMINATION_MAX
        run_data = getattr(self._kernel, "run_data", None)
        self._run_data = (run_data() if self._kernel is not None and run_data is not None and AVAILABLE
                          and problem.n <= ELIMINATION_MAX else None)
        self._block = None       # the steps of the last run: (ts, hs, ys, Zs)
        if self.dense:
            Ec = sp.csr_matrix(self.E)
            Ec.sort_indices()
            self._E_csr = (Ec.indptr.astype(np.int64), Ec.indices.astype(np.int64), Ec.data.astype(float))
        self._factors = None     # the iteration matrices' factors as the stage iteration takes them
        # Newton stopping level (IV.8: kappa * Tol with kappa ~ 1e-1 ... 1e-2), relative to the error scale
        self.newton_tol = max(10 * np.finfo(float).eps / self.rtol, min(0.03, np.sqrt(self.rtol)))
        self.maxiter = MAX_NEWTON if self.fixed_step is None else 30
        if self.fixed_step is not None:
            h = self.fixed_step
        elif first_step is not None:
            h = first_step
        else:
            h = self._starting_step()
        self.h = min(h, self.max_step, self.t_end - self.t0)
        self._f0 = None          # f(t, y) at the current point
        self._J = None           # Jacobian and whether it belongs to the current point
        self._J_fresh = False
        self._J_point = None     # (t, y) where the Jacobian was evaluated
        self._lus = None         # (h, LU real, LU complex)
        self._previous = None    # (h, err) of the last accepted step, for the controller
        self._poly = None        # (t_old, h, y_old, Q) of the last accepted step
        self._nonfinite = None   # (t, label) where a stage evaluation gave NaN or inf
        self._init_work()

    # -- pieces ----------------------------------------------------------------
    def _starting_step(self):
        yd = self.problem.derivative(self.t0, self.y)
        self.nfev += 1
        scale = self.atol + self.rtol * np.abs(self.y)
        d = ~self.algebraic
        d0 = np.sqrt(np.mean((self.y[d] / scale[d]) ** 2))
        d1 = np.sqrt(np.mean((yd[d] / scale[d]) ** 2))
        # Hairer, Norsett & Wanner, Solving ODEs I, II.4: h0 = 0.01 |y0| / |y0'| in the error norm
        h = 1e-6 * (self.t_end - self.t0) if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
        return min(h, 1e-2 * (self.t_end - self.t0))

    def _iteration_matrices(self, h):
        try:
            if self._run_data is not None:
                # the factors of the compiled runs (radau_steps), by the same compiled function
                n = self.problem.n
                real, cplx = _rr.RowMajorLU(n), _rr.RowMajorLU(n, complex)
                if _rr.factor_pair(self.E, self._J, h, GAMMA, ALPHA, BETA, real.lu_rm, real.piv64,
                                   cplx.lu_rm, cplx.piv64):
                    raise np.linalg.LinAlgError("singular matrix")
                self._factors = self._dense_factors(real, cplx)
            elif self.dense:
                # LAPACK factors with the row-major copies the compiled correction takes
                real = _rk.DenseFactors(GAMMA / h * self.E - self._J)
                cplx = _rk.DenseFactors((ALPHA - 1j * BETA) / h * self.E - self._J)
                self._factors = self._dense_factors(real, cplx)
            else:
                alg = np.flatnonzero(self.algebraic)
                real = sparse_factor(sp.csc_matrix(GAMMA / h * self.E - self._J), alg)
                cplx = sparse_factor(sp.csc_matrix((ALPHA - 1j * BETA) / h * self.E - self._J, dtype=complex), alg)
                self._factors = (self.E, real, cplx, T, T_INV, GAMMA, ALPHA, BETA)
        except (RuntimeError, np.linalg.LinAlgError) as err:
            raise SolverError(self.name, self.t, f"singular iteration matrix ({err}): a singular mass "
                              "matrix on the allowed motions, or dependent constraints") from None
        self.nlu += 2
        self._lus = (h, real, cplx)

    def _dense_factors(self, real, cplx):
        """The factors' argument of the compiled correction (:func:`~phmech.solvers.radau_kernels.
        stage_increment`) from the row-major factors of both iteration matrices."""
        return (self._E_csr, (real.lu_rm, real.piv64), (cplx.lu_rm, cplx.piv64), T, T_INV, GAMMA, ALPHA, BETA)

    def _stages(self, t, y, h, Z, scale):
        """Simplified Newton on the collocation system
        (:func:`~phmech.solvers.radau_kernels.stage_iteration`, compiled with a compiled
        right-hand side); returns ``(Z, converged, iterations, theta)``."""
        source = self._kernel
        data = source.stage_data(t + C * h) if source is not None else self._f
        Z, status, it, theta = self._loop(data, self._factors, t, y, h, Z, scale, self.algebraic, C, T, T_INV,
                                          self.newton_tol, self.maxiter)
        self.nfev += 3 * it
        if status < 0:                       # where f is not finite: said on the step size's failure
            i = -status - 1
            with np.errstate(all="ignore"):
                F = self._f(t + C[i] * h, y + Z[i])
            self.nfev += 1
            bad = np.flatnonzero(~np.isfinite(F))
            self._nonfinite = (t + C[i] * h, self.problem.labels()[int(bad[0]) if bad.size else 0])
        return Z, status == 1, it, (None if theta < 0 else theta)

    def _local_error(self, t, y, abs_y, h, Z, refine):
        """The step's end point and the norm of its embedded error estimate, filtered by
        the real iteration matrix (IV.8, (8.19)-(8.20)): ``(y_new, err_norm)``.

        The error scale is ``atol + rtol max(|y|, |y_new|)`` (``abs_y = |y|``).
        With ``refine`` (the first step, and after a rejection) an estimate
        above the tolerance is improved by one more solve with ``f`` at the
        filtered point, which suppresses the estimate's growth for stiff
        components, (8.20).  The estimate is
        :func:`~phmech.solvers.radau_kernels.local_error`, compiled with dense
        factors."""
        E, real = self._factors[:2]
        y_new, scale, err, gEZ, err_norm = _rk.local_error(
            y, abs_y, Z, self._f0, h, self.atol, self.rtol, E, real, E_WEIGHTS, GAMMA, self._nd)
        if refine and err_norm > 1:
            r = self._f(t, y + err) + gEZ
            self.nfev += 1
            err = np.empty(y.size)
            solve(real, r, err)
            err_norm = _rk.error_norm(err, scale, self._nd)
        return y_new, err_norm

    def _predictor(self, t, h):
        """Starting stages from the previous collocation polynomial (zero on the first step)."""
        if self._poly is None:
            return np.zeros((3, self.problem.n))
        t_prev, h_prev, y_prev, Q = self._poly
        return _rk.predictor(t, h, C, t_prev, h_prev, np.asarray(y_prev, float), np.ascontiguousarray(Q.T), self.y)

    def _step_factor(self, err_norm, iterations, h, accepted):
        """Factor of the next step size.

        The classical ``err^(-1/4)`` (local error O(h^4) for the embedded
        formula) times a safety factor that shrinks with the Newton effort;
        after an accepted step also the predictive controller of Gustafsson
        (IV.8, (8.25)), which uses the ratio of the last two errors and
        steps, whichever is more cautious."""
        h_old, err_old = self._previous if self._previous is not None else (1.0, 1.0)
        return _rr.step_factor(err_norm, iterations, h, accepted, self._previous is not None, h_old, err_old,
                               MAX_NEWTON, FACTOR_MIN, FACTOR_MAX)

    def _refresh_jacobian(self, t, y):
        # a compiled right-hand side may come with its Jacobian as a dense array (no sparse round trip)
        jac = getattr(self._kernel, "jacobian", None)
        J = jac(t, y) if jac is not None else self.problem.jacobian(t, y)
        self._J = (J.toarray() if sp.issparse(J) else np.asarray(J, float)) if self.dense else J
        self._J_point = (t, np.array(y))
        self.njev += 1
        self._J_fresh = True
        self._lus = None

    # -- the step ----------------------------------------------------------------
    def _step(self):
        self._block = None
        if self._run_data is not None and self._run():
            return
        d = self.problem
        t, y = self.t, self.y
        if self._f0 is None:
            self._f0 = self._f(t, y)
            self.nfev += 1
            if not np.isfinite(self._f0).all():
                bad = d.labels()[int(np.flatnonzero(~np.isfinite(self._f0))[0])]
                raise SolverError(self.name, t, f"the right-hand side is non-finite ({bad}) at the "
                                  "current state (a load or drive function returning NaN or inf?)")
        if self._J is None:
            self._refresh_jacobian(t, y)
        t_bound = self.t_bound
        h = min(self.h, self.max_step, t_bound - t)
        if t_bound - (t + h) < 1e-12 * max(1.0, abs(t_bound)):
            h = t_bound - t
        refine = self._poly is None
        h_min = 10 * np.spacing(max(abs(t), abs(self.t_end)))
        abs_y = np.abs(y)
        scale_y = self.atol + self.rtol * abs_y
        while True:
            if h < h_min:
                if self._nonfinite:
                    raise SolverError(self.name, t, "the right-hand side became non-finite at t = "
                                      f"{self._nonfinite[0]:.9g} in {self._nonfinite[1]} on every step size "
                                      f"down to {h:.3g} (a load or drive function returning NaN or inf?)")
                raise SolverError(self.name, t, f"the step size {h:.3g} became too small (Newton iteration "
                                  "or error test fails on every step size)")
            if self._lus is None or self._lus[0] != h:
                self._iteration_matrices(h)
            Z, converged, iterations, theta = self._stages(t, y, h, self._predictor(t, h), scale_y)
            if not converged:
                if not self._J_fresh:          # first a fresh Jacobian, then a smaller step
                    self._refresh_jacobian(t, y)
                    continue
                if self.fixed_step is not None:
                    raise SolverError(self.name, t, f"Newton iteration did not converge with the fixed "
                                      f"step {h:.3g}")
                h *= 0.5
                self.nreject += 1
                continue
            y_new, err_norm = self._local_error(t, y, abs_y, h, Z, refine)
            if err_norm > 1 and self.fixed_step is None:
                h *= 0.1 if self._poly is None else self._step_factor(err_norm, iterations, h, False)
                self.nreject += 1
                refine = True
                continue
            break
        # accepted
        self._nonfinite = None
        self._poly = (t, h, y, (DENSE_INV @ Z).T)
        self.t_old, self.y_old = t, y
        self.t = t + h if t + h < t_bound else t_bound
        self.y = y_new
        self.nsteps += 1
        self._record_work((t, self.t), (y, y_new))
        self._f0 = self._f(self.t, y_new)
        self.nfev += 1
        h_next = self.fixed_step or h * self._step_factor(err_norm, iterations, h, True)
        self._previous = (h, max(err_norm, 1e-2))
        if theta is not None and theta > _rk.THETA_REFRESH:     # slow contraction: refresh the Jacobian
            self._J = None
        else:
            self._J_fresh = False
            if self.fixed_step is None and 1.0 <= h_next / h <= 1.2:
                h_next = h                          # keep the factorizations
        self.h = h_next

    def _run(self):
        """Steps by :func:`~phmech.solvers.radau_runs.radau_steps` (the operations of
        :meth:`_step`, compiled): up to ``t_bound``, several in one call when the driver does not
        need to see each (at most :data:`BLOCK_MAX`), else one.  The solver's memory goes in and
        comes back through arrays.  False when no step was taken: the step is then repeated by
        :meth:`_step`'s own loop, which says why it fails (and the runs stop)."""
        n = self.problem.n
        room = 1 if self.single_steps else BLOCK_MAX
        if self.max_steps is not None:
            room = max(1, min(room, self.max_steps - self.nsteps))
        if self._lus is None:
            real, cplx = _rr.RowMajorLU(n), _rr.RowMajorLU(n, complex)
            lus_h = np.nan
        else:
            lus_h, real, cplx = self._lus
        J = np.array(self._J, float) if self._J is not None else np.zeros((n, n))
        J_t, J_y = self._J_point if self._J_point is not None else (np.nan, np.zeros(n))
        J_y = np.array(J_y, float)
        h_old, err_old = self._previous if self._previous is not None else (1.0, 1.0)
        poly = self._poly
        p_t, p_h, p_y, p_QT = ((poly[0], poly[1], np.array(poly[2], float), np.ascontiguousarray(poly[3].T))
                               if poly is not None else (0.0, 1.0, np.zeros(n), np.zeros((3, n))))
        state = np.array([self.h, lus_h, h_old, err_old, p_t, p_h, J_t], float)
        flags = np.array([self._f0 is not None, self._J is not None, self._J_fresh, self._previous is not None,
                          poly is not None], np.int64)
        f0 = np.array(self._f0, float) if self._f0 is not None else np.zeros(n)
        y = np.array(self.y, float)
        counts = np.zeros(4, np.int64)
        Ts, Hs = np.empty(room), np.empty(room)
        Ys, Zs = np.empty((room, n)), np.empty((room, 3, n))
        Ep, Ei, Ed = self._E_csr
        done, status, t = _rr.radau_steps(
            self._run_data, self.t, y, self.t_bound, self.t_end, self.fixed_step or 0.0, state, flags, f0, J, J_y,
            real.lu_rm, real.piv64, cplx.lu_rm, cplx.piv64, self.E, Ep, Ei, Ed, self.algebraic, self._nd,
            self.rtol, self.atol, self.max_step, self.newton_tol, self.maxiter, _RUN_TABLEAU, p_y, p_QT,
            Ts, Hs, Ys, Zs, counts)
        self.nfev += int(counts[0])
        self.njev += int(counts[1])
        self.nlu += int(counts[2])
        self.nreject += int(counts[3])
        self.h = float(state[0])
        self._f0 = f0 if flags[0] else None
        self._J = J if flags[1] else None
        self._J_point = (float(state[6]), J_y) if flags[1] else None
        self._J_fresh = bool(flags[2])
        self._lus = (float(state[1]), real, cplx) if flags[1] and state[1] == state[1] else None
        if self._lus is not None:
            self._factors = self._dense_factors(real, cplx)
        self._previous = (float(state[2]), float(state[3])) if flags[3] else None
        if done:
            self._poly = (float(state[4]), float(state[5]), p_y, np.ascontiguousarray(p_QT.T))
            self.nsteps += done
            self.t_old, self.y_old = float(Ts[0]), Ys[0].copy()      # the run is one step for the driver
            self.t, self.y = float(t), y
            self._nonfinite = None
            self._block = (Ts[:done], Hs[:done], Ys[:done], Zs[:done])
            self._record_work(np.r_[Ts[:done], self.t], np.vstack([Ys[:done], y[None, :]]))
        if status != 1:
            self._run_data = None            # the interpreted step repeats it and says why
            self._J = self._lus = None
        return done > 0

    # -- checkpoints ---------------------------------------------------------
    def checkpoint_state(self):
        """What a restart needs to continue: step size, controller memory, last collocation
        polynomial, and the point of the current Jacobian (evaluated and factorized
        again on :meth:`restore_state`, no factorization is stored)."""
        from ..io.checkpoint import common_state
        live = self._J is not None
        poly = self._poly
        return {**common_state(self), "h": self.h,
                "previous": list(self._previous) if self._previous is not None else None,
                "poly_t": poly[0] if poly else None, "poly_h": poly[1] if poly else None,
                "poly_y": np.array(poly[2]) if poly else None, "poly_Q": np.array(poly[3]) if poly else None,
                "J_t": self._J_point[0] if live else None, "J_y": np.array(self._J_point[1]) if live else None,
                "J_fresh": bool(self._J_fresh), "lus_h": self._lus[0] if (live and self._lus) else None,
                **self.work_state()}

    def restore_state(self, state):
        """Continue from :meth:`checkpoint_state`."""
        from ..io.checkpoint import restore_common
        self.h = float(state["h"])
        self._previous = tuple(state["previous"]) if state["previous"] is not None else None
        self._poly = None if state["poly_t"] is None else (
            float(state["poly_t"]), float(state["poly_h"]), np.array(state["poly_y"]), np.array(state["poly_Q"]))
        self._J = self._lus = None
        if state.get("J_t") is not None:
            self._refresh_jacobian(float(state["J_t"]), np.array(state["J_y"]))
            if state.get("lus_h") is not None:
                self._iteration_matrices(float(state["lus_h"]))
        self._J_fresh = bool(state["J_fresh"])
        restore_common(self, state)
        self.restore_work(state)
        self._f0 = self._f(self.t, self.y) if self.nsteps else None   # as after the last step
        self._nonfinite = None

    def dense_output(self):
        """The collocation polynomial of the last step (of each step of a compiled run)."""
        if self._block is not None:
            return _piecewise_collocation(*self._block)
        t0, h, y0, Q = self._poly

        def poly(t):
            x = (np.asarray(t, float) - t0) / h
            X = np.stack([x, x ** 2, x ** 3]).reshape(3, -1)
            return (y0 + (Q @ X).T).reshape(np.shape(t) + (-1,))
        return poly

    def interior_points(self):
        """The step points strictly inside ``(t_old, t)`` of a compiled run of several steps
        (with the work there, where the solver records it)."""
        if self._block is None:
            return (), (), ()
        ts, _, ys, _ = self._block
        return ts[1:], ys[1:], self.interior_work() if self.records_work else np.zeros(ts.size - 1)


def _piecewise_collocation(ts, hs, ys, Zs):
    """``t -> y(t)`` over the steps of a run: on step ``i`` (from ``ts[i]``, size ``hs[i]``, start
    ``ys[i]``, stages ``Zs[i]``) its collocation polynomial, as :meth:`RadauIIA.dense_output`."""
    Q = np.einsum("kj,mjn->mnk", DENSE_INV, Zs)          # per step: (n, 3), as the solver keeps it

    def poly(t):
        tt = np.asarray(t, float)
        i = np.clip(np.searchsorted(ts, tt, side="right") - 1, 0, ts.size - 1)
        x = (tt - ts[i]) / hs[i]
        X = np.stack([x, x ** 2, x ** 3], axis=-1)
        return ys[i] + np.einsum("...nk,...k->...n", Q[i], X)
    return poly

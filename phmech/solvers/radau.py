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

**One loop.**  The step -- step size, Jacobian refreshes, both
factorizations, stage iteration, error estimate with its refinement,
rejections and controller -- is one source,
:func:`~phmech.solvers.radau_runs.radau_steps`, which takes many steps in one
call when the driver does not need to see each (no events, no callbacks); the
dense output is then the collocation polynomial of each step of the call.  It
runs compiled on a :class:`~phmech.solvers.radau_runs.RadauData` record where
the stage data do not depend on time (the classic problems,
:mod:`phmech.validation._classic_compiled`; assembled systems whose compiled
residual is complete, without time-dependent prescribed velocities or load
inputs) and the system is small enough for the compiled elimination
(:data:`~phmech.solvers.midpoint_kernels.ELIMINATION_MAX` unknowns), and
interpreted on :class:`PythonStages` otherwise.  The stage iteration
(:func:`~phmech.solvers.radau_kernels.stage_iteration`) runs compiled there
too for dense problems whose right-hand side is a compiled kernel, with the
stage data of each step's times; the correction, the predictor and the error
estimate are one source each (:mod:`phmech.solvers.radau_kernels`), compiled
for dense factors and interpreted for sparse ones.  ``compiled=False`` runs
everything interpreted with the problem's own ``f``, the reference.
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
#: the most steps of one call of the step loop (:meth:`RadauIIA._step`), and the most numbers
#: it stores for them (the steps' start points and stages: 4 n each)
BLOCK_MAX = 1000
BLOCK_VALUES = 4_000_000
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
        n = problem.n
        self.algebraic = np.zeros(n, bool)
        self.algebraic[n - problem.nl:] = True
        if not isinstance(compiled, (bool, np.bool_)):
            raise ValueError(f"radau: option compiled must be True or False, got {compiled!r}")
        # the compiled right-hand side (stage source: f, dense Jacobian, stage data) where the
        # problem has one; the stage iteration runs compiled with it on dense systems
        source = _rk.stage_source(problem) if compiled else None
        self._kernel = source if self.dense else None
        self._f = source.f if source is not None else problem.f
        self._loop = _rk.stage_iteration if self._kernel is not None else _rk.stage_iteration_py
        if self.dense:
            Ec = sp.csr_matrix(self.E)
            Ec.sort_indices()
            self._E_csr = (Ec.indptr.astype(np.int64), Ec.indices.astype(np.int64), Ec.data.astype(float))
        # the steps compiled (a RadauData record) where the stage data do not depend on time and the
        # factorization is the compiled elimination's (small dense systems), else interpreted
        from .midpoint_kernels import AVAILABLE, ELIMINATION_MAX
        run_data = getattr(self._kernel, "run_data", None)
        run_data = (run_data() if self._kernel is not None and run_data is not None and AVAILABLE
                    and n <= ELIMINATION_MAX else None)
        if run_data is not None:
            self._ops, self._steps = _rr.RadauData.of(run_data, self.E), _rr.radau_steps
        else:
            self._ops, self._steps = PythonStages(self), _rr.radau_steps_py
        # Newton stopping level (IV.8: kappa * Tol with kappa ~ 1e-1 ... 1e-2), relative to the error scale
        self.newton_tol = max(10 * np.finfo(float).eps / self.rtol, min(0.03, np.sqrt(self.rtol)))
        self.maxiter = MAX_NEWTON if self.fixed_step is None else 30
        self._settings = (float(self.fixed_step or 0.0), self.rtol, self.atol, float(self.max_step),
                          float(self.newton_tol), int(self.maxiter), float(self.t_end), n - problem.nl,
                          self.algebraic)
        # the solver's memory as radau_steps keeps it (see there): the step size and the
        # factors', the controller's, the collocation polynomial's and the Jacobian's data
        self._state = np.array([np.nan, np.nan, 1.0, 1.0, 0.0, 1.0, np.nan, np.nan, 0.0])
        self._flags = np.zeros(5, np.int64)
        self._f0 = np.zeros(n)
        self._J_y = np.zeros(n)
        self._poly_y, self._poly_QT = np.zeros(n), np.zeros((3, n))
        self._block = None       # the steps of the last call: (ts, hs, ys, Zs)
        if self.fixed_step is not None:
            h = self.fixed_step
        elif first_step is not None:
            h = first_step
        else:
            h = self._starting_step()
        self.h = min(h, self.max_step, self.t_end - self.t0)
        self._init_work()

    @property
    def h(self):
        """The size of the next step."""
        return float(self._state[0])

    @h.setter
    def h(self, value):
        self._state[0] = value

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

    # -- the step ----------------------------------------------------------------
    def _step(self):
        """Steps by :func:`~phmech.solvers.radau_runs.radau_steps` up to ``t_bound``: several in
        one call when the driver does not need to see each (at most :data:`BLOCK_MAX`, and
        :data:`BLOCK_VALUES` stored numbers), else one; a step that cannot be taken raises why."""
        n = self.problem.n
        room = 1 if self.single_steps else max(1, min(BLOCK_MAX, BLOCK_VALUES // (4 * n)))
        if self.max_steps is not None:
            room = max(1, min(room, self.max_steps - self.nsteps))
        counts = np.zeros(4, np.int64)
        Ts, Hs = np.empty(room), np.empty(room)
        Ys, Zs = np.empty((room, n)), np.empty((room, 3, n))
        y = np.array(self.y, float)
        done, status, t, h = self._steps(self._ops, self.t, y, self.t_bound, self._settings, _RUN_TABLEAU,
                                         self._state, self._flags, self._f0, self._J_y, self._poly_y,
                                         self._poly_QT, Ts, Hs, Ys, Zs, counts)
        self.nfev += int(counts[0])
        self.njev += int(counts[1])
        self.nlu += int(counts[2])
        self.nreject += int(counts[3])
        self._block = None
        if done:
            self.nsteps += done
            self.t_old, self.y_old = float(Ts[0]), Ys[0].copy()      # the call is one step for the driver
            self.t, self.y = float(t), y
            self._block = (Ts[:done], Hs[:done], Ys[:done], Zs[:done])
            self._record_work(np.r_[Ts[:done], self.t], np.vstack([Ys[:done], y[None, :]]))
        elif status != 1:
            raise self._failure(status, float(t), float(h))

    def _failure(self, status, t, h):
        """The :class:`SolverError` of a step that :func:`~phmech.solvers.radau_runs.radau_steps`
        could not take (its status)."""
        labels = self.problem.labels
        if status == 2 and self._state[7] == self._state[7]:
            return SolverError(self.name, t, "the right-hand side became non-finite at t = "
                               f"{self._state[7]:.9g} in {labels()[int(self._state[8])]} on every step size "
                               f"down to {h:.3g} (a load or drive function returning NaN or inf?)")
        if status == 2:
            return SolverError(self.name, t, f"the step size {h:.3g} became too small (Newton iteration "
                               "or error test fails on every step size)")
        if status == 3:
            detail = getattr(self._ops, "singular", None) or "singular matrix"
            return SolverError(self.name, t, f"singular iteration matrix ({detail}): a singular mass "
                               "matrix on the allowed motions, or dependent constraints")
        if status == 4:
            return SolverError(self.name, t, f"Newton iteration did not converge with the fixed step {h:.3g}")
        bad = labels()[int(np.flatnonzero(~np.isfinite(self._f0))[0])]
        return SolverError(self.name, t, f"the right-hand side is non-finite ({bad}) at the current state "
                           "(a load or drive function returning NaN or inf?)")

    # -- checkpoints ---------------------------------------------------------
    def checkpoint_state(self):
        """What a restart needs to continue: step size, controller memory, last collocation
        polynomial, and the point of the current Jacobian (evaluated and factorized
        again on :meth:`restore_state`, no factorization is stored)."""
        from ..io.checkpoint import common_state
        st, fl = self._state, self._flags
        live, poly = bool(fl[1]), bool(fl[4])
        return {**common_state(self), "h": self.h,
                "previous": [float(st[2]), float(st[3])] if fl[3] else None,
                "poly_t": float(st[4]) if poly else None, "poly_h": float(st[5]) if poly else None,
                "poly_y": self._poly_y.copy() if poly else None, "poly_Q": self._poly_QT.T.copy() if poly else None,
                "J_t": float(st[6]) if live else None, "J_y": self._J_y.copy() if live else None,
                "J_fresh": bool(fl[2]), "lus_h": float(st[1]) if (live and st[1] == st[1]) else None,
                **self.work_state()}

    def restore_state(self, state):
        """Continue from :meth:`checkpoint_state`."""
        from ..io.checkpoint import restore_common
        st, fl = self._state, self._flags
        fl[:] = 0
        st[0], st[1], st[7] = float(state["h"]), np.nan, np.nan
        if state["previous"] is not None:
            fl[3], (st[2], st[3]) = 1, state["previous"]
        if state["poly_t"] is not None:
            fl[4], st[4], st[5] = 1, float(state["poly_t"]), float(state["poly_h"])
            self._poly_y[:] = state["poly_y"]
            self._poly_QT[:] = np.asarray(state["poly_Q"]).T
        if state.get("J_t") is not None:
            st[6] = float(state["J_t"])
            self._J_y[:] = state["J_y"]
            _rr.jacobian(self._ops, st[6], self._J_y.copy())
            fl[1] = 1
            if state.get("lus_h") is not None:
                if _rr.factor(self._ops, float(state["lus_h"]), GAMMA, ALPHA, BETA):
                    raise self._failure(3, st[6], float(state["lus_h"]))
                st[1] = float(state["lus_h"])
        fl[2] = bool(state["J_fresh"])
        restore_common(self, state)
        self.restore_work(state)
        if self.nsteps:                      # f at the current point, as after the last step
            _rr.rhs(self._ops, self.t, np.array(self.y, float), self._f0)
            fl[0] = 1
        self._block = None

    def dense_output(self):
        """The collocation polynomial of each step of the last call (of the last step before a
        restart)."""
        if self._block is not None:
            return _piecewise_collocation(*self._block)
        st = self._state
        y0, Q = self._poly_y.copy(), self._poly_QT.T.copy()
        t0, h = float(st[4]), float(st[5])

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


class PythonStages:
    """The step data of the interpreted steps (:func:`~phmech.solvers.radau_runs.radau_steps`
    run as Python): the operations of the loop on the solver's problem -- ``f`` (compiled or
    the problem's), the Jacobian (dense, or sparse above the dense size), the factors of both
    iteration matrices (LAPACK with the row-major copies the compiled correction takes, or
    SuperLU with the dense rows and columns of floating frames as a border), and the stage
    iteration with the stage data of each step's times (compiled for a compiled right-hand
    side)."""

    def __init__(self, solver):
        self.solver = solver
        self.J = None
        self.factors = None      # the factors' argument of the stage iteration
        self.singular = None     # why the last factorization failed

    def rhs(self, t, y, out):
        with np.errstate(all="ignore"):
            out[:] = self.solver._f(t, y)

    def jacobian(self, t, y):
        s = self.solver
        # a compiled right-hand side may come with its Jacobian as a dense array (no sparse round trip)
        jac = getattr(s._kernel, "jacobian", None)
        J = jac(t, y) if jac is not None else s.problem.jacobian(t, y)
        self.J = (J.toarray() if sp.issparse(J) else np.asarray(J, float)) if s.dense else J

    def factor(self, h, gamma, alpha, beta):
        s = self.solver
        try:
            if s.dense:
                real = _rk.DenseFactors(gamma / h * s.E - self.J)
                cplx = _rk.DenseFactors((alpha - 1j * beta) / h * s.E - self.J)
                self.factors = (s._E_csr, (real.lu_rm, real.piv64), (cplx.lu_rm, cplx.piv64), T, T_INV,
                                gamma, alpha, beta)
            else:
                alg = np.flatnonzero(s.algebraic)
                real = sparse_factor(sp.csc_matrix(gamma / h * s.E - self.J), alg)
                cplx = sparse_factor(sp.csc_matrix((alpha - 1j * beta) / h * s.E - self.J, dtype=complex), alg)
                self.factors = (s.E, real, cplx, T, T_INV, gamma, alpha, beta)
        except (RuntimeError, np.linalg.LinAlgError) as err:
            self.singular = str(err)
            return 1
        return 0

    def stages(self, t, y, h, Z, scale, algebraic, C, T, TI, gamma, alpha, beta, tol, maxiter):
        s = self.solver
        data = s._kernel.stage_data(t + C * h) if s._kernel is not None else s._f
        return s._loop(data, self.factors, t, y, h, Z, scale, algebraic, C, T, TI, tol, maxiter)

    def error_estimate(self, y, abs_y, Z, f0, h, atol, rtol, ew, gamma, nd):
        return _rk.local_error(y, abs_y, Z, f0, h, atol, rtol, self.factors[0], self.factors[1], ew, gamma, nd)

    def solve_real(self, r, out):
        solve(self.factors[1], r, out)


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

"""Radau IIA's adaptive step loop, one source for every problem (numba where compiled).

:func:`radau_steps` takes the steps of :class:`~phmech.solvers.radau.RadauIIA`: step size,
Jacobian refreshes, both factorizations, the stage iteration
(:func:`~phmech.solvers.radau_kernels.stage_iteration`), the error estimate with its
refinement (IV.8, (8.19)-(8.20)), rejections and the controller (:func:`step_factor`),
several steps in one call when the driver does not need to see each.  It runs

* compiled, where the stage data do not depend on time (the classic problems; small
  assembled systems without time-dependent drives or load inputs) and the system is small
  enough for the compiled elimination: the step data are a :class:`RadauData` record (the
  stage data, ``E``, the dense Jacobian and the factors of :func:`factor_pair`);
* interpreted (``radau_steps.py_func``, the same source) for every other problem, with the
  step data of :class:`~phmech.solvers.radau.PythonStages`: stage data of each step's times
  (the stage iteration itself still compiled for a compiled right-hand side), a Python ``f``,
  dense LAPACK or sparse factors.

What the loop does with the problem goes through :func:`rhs`, :func:`jacobian`,
:func:`factor`, :func:`stages`, :func:`error_estimate` and :func:`solve_real`, taking the step
data first: for the record numba overloads chosen by its type (written into the loop,
``inline="always"``), for Python data their methods.  The
record's methods run the same compiled functions as its overloads, so that a record can be
used from Python too (a restart's Jacobian and factors).
"""
from collections import namedtuple

import numpy as np

from ..kernels.jit import borrowed, jit as _jit, numba
from ._newton import all_finite, lu_solve
from .midpoint_kernels import eliminate
from .radau_kernels import (THETA_REFRESH, error_norm, local_error, pivot_test, predictor, stage_iteration,
                            stage_jacobian, stage_value, transform)

# -- the controller and the compiled factorization ---------------------------------------------


@_jit
def step_factor(err_norm, iterations, h, accepted, has_previous, h_old, err_old, max_newton, fac_min, fac_max):
    """Factor of the next step size: ``err^(-1/4)`` (the embedded estimate's local error is
    O(h^4)) times a safety factor that shrinks with the Newton effort; after an accepted step
    with a previous one (``h_old``, ``err_old``) also Gustafsson's predictive controller (IV.8,
    (8.25)), whichever is more cautious; bounded by ``[fac_min, fac_max]``."""
    safety = 0.9 * (2 * max_newton + 1) / (2 * max_newton + iterations)
    fac = safety * err_norm ** -0.25 if err_norm > 0 else fac_max
    if accepted and has_previous and err_norm > 0:
        fac = min(fac, safety * (h / h_old) * (err_old / err_norm) ** 0.25 * err_norm ** -0.25)
    return min(fac_max, max(fac_min, fac))


@_jit
def factor_pair(E, J, h, gamma, alpha, beta, lur, pivr, luc, pivc):
    """Factorize both iteration matrices, ``gamma/h E - J`` and ``(alpha - i beta)/h E - J``,
    by :func:`~phmech.solvers.midpoint_kernels.eliminate` (partial pivoting) into the row-major
    factors ``lur``, ``luc`` with 0-based pivots ``pivr``, ``pivc`` (the layout of
    :class:`~phmech.solvers.radau_kernels.DenseFactors`).  Returns 0, or 1 when either matrix
    is singular: an exactly zero pivot, or one of rounding size against its column (the test
    of :func:`~phmech.solvers._newton.small_pivot`)."""
    n = J.shape[0]
    Fr = np.empty((n, n))
    Fc = np.empty((n, n), np.complex128)
    gh = gamma / h
    ch = (alpha - 1j * beta) / h
    for i in range(n):
        for j in range(n):
            Fr[j, i] = gh * E[i, j] - J[i, j]
            Fc[j, i] = ch * E[i, j] - J[i, j]
    Ar, Ac = Fr.T.copy(), Fc.T.copy()
    ip = np.empty(n, np.int64)
    bad = eliminate(Fr, ip) != 0
    for i in range(n):
        pivr[i] = ip[i] - 1
        for j in range(n):
            lur[i, j] = Fr[j, i]
    bad = eliminate(Fc, ip) != 0 or bad
    for i in range(n):
        pivc[i] = ip[i] - 1
        for j in range(n):
            luc[i, j] = Fc[j, i]
    if bad or pivot_test(Ar, lur) >= 0 or pivot_test(Ac, luc) >= 0:
        return 1
    return 0


# -- the step data: a compiled record, or Python data with methods of the same names ----------

_RadauFields = namedtuple("_RadauFields", "data Ep Ei Ed E J lur pivr luc pivc")


class RadauData(_RadauFields):
    """The compiled step data: the stage data ``data`` (the same at every time,
    :func:`~phmech.solvers.radau_kernels.stage_value`), ``E`` in CSR arrays (``Ep``, ``Ei``,
    ``Ed``) and dense (``E``), the dense Jacobian ``J`` and the factors of :func:`factor_pair`
    (``lur``, ``pivr`` real; ``luc``, ``pivc`` complex), updated in place."""

    __slots__ = ()

    @classmethod
    def of(cls, data, E):
        """The record of the stage data ``data`` and the dense ``E`` (the other arrays made)."""
        from scipy.sparse import csr_matrix
        n = E.shape[0]
        Ec = csr_matrix(E)
        Ec.sort_indices()
        return cls(data, Ec.indptr.astype(np.int64), Ec.indices.astype(np.int64), Ec.data.astype(float),
                   np.ascontiguousarray(E, float), np.zeros((n, n)), np.empty((n, n)), np.empty(n, np.int64),
                   np.empty((n, n), np.complex128), np.empty(n, np.int64))

    def rhs(self, t, y, out):
        _rhs(self, t, y, out)

    def jacobian(self, t, y):
        _jacobian(self, t, y)

    def factor(self, h, gamma, alpha, beta):
        return _factor(self, h, gamma, alpha, beta)

    def stages(self, t, y, h, Z, scale, algebraic, C, T, TI, gamma, alpha, beta, tol, maxiter):
        return _stages(self, t, y, h, Z, scale, algebraic, C, T, TI, gamma, alpha, beta, tol, maxiter)

    def error_estimate(self, y, abs_y, Z, f0, h, atol, rtol, ew, gamma, nd):
        return _error_estimate(self, y, abs_y, Z, f0, h, atol, rtol, ew, gamma, nd)

    def solve_real(self, r, out):
        _solve_real(self, r, out)


# the record's operations: plain functions, compiled into the loop by the overloads below and run
# as Python by the record's methods

def _rhs(ops, t, y, out):
    stage_value(0, t, y, ops.data, out)


def _jacobian(ops, t, y):
    stage_jacobian(t, y, ops.data, ops.J)


def _factor(ops, h, gamma, alpha, beta):
    return factor_pair(ops.E, ops.J, h, gamma, alpha, beta, ops.lur, ops.pivr, ops.luc, ops.pivc)


def _stages(ops, t, y, h, Z, scale, algebraic, C, T, TI, gamma, alpha, beta, tol, maxiter):
    factors = ((ops.Ep, ops.Ei, ops.Ed), (ops.lur, ops.pivr), (ops.luc, ops.pivc), T, TI, gamma, alpha, beta)
    return stage_iteration(ops.data, factors, t, y, h, Z, scale, algebraic, C, T, TI, tol, maxiter)


def _error_estimate(ops, y, abs_y, Z, f0, h, atol, rtol, ew, gamma, nd):
    return local_error(y, abs_y, Z, f0, h, atol, rtol, (ops.Ep, ops.Ei, ops.Ed), (ops.lur, ops.pivr), ew, gamma, nd)


def _solve_real(ops, r, out):
    out[:] = lu_solve(ops.lur, ops.pivr, r)


def rhs(ops, t, y, out):
    """``out = f(t, y)``."""
    ops.rhs(t, y, out)


def jacobian(ops, t, y):
    """Evaluate and keep the Jacobian ``df/dy (t, y)``."""
    ops.jacobian(t, y)


def factor(ops, h, gamma, alpha, beta):
    """Factorize and keep both iteration matrices of the step size ``h``; returns 0, or 1 for a
    singular one."""
    return ops.factor(h, gamma, alpha, beta)


def stages(ops, t, y, h, Z, scale, algebraic, C, T, TI, gamma, alpha, beta, tol, maxiter):
    """The stage iteration of the step from ``(t, y)`` of size ``h`` with the kept factors
    (:func:`~phmech.solvers.radau_kernels.stage_iteration`): ``(Z, status, iterations, theta)``."""
    return ops.stages(t, y, h, Z, scale, algebraic, C, T, TI, gamma, alpha, beta, tol, maxiter)


def error_estimate(ops, y, abs_y, Z, f0, h, atol, rtol, ew, gamma, nd):
    """:func:`~phmech.solvers.radau_kernels.local_error` with the kept real factors:
    ``(y_new, scale, err, gEZ, err_norm)``."""
    return ops.error_estimate(y, abs_y, Z, f0, h, atol, rtol, ew, gamma, nd)


def solve_real(ops, r, out):
    """``out`` = the real iteration matrix's solution for ``r``."""
    ops.solve_real(r, out)


if numba is not None:
    from numba.extending import overload

    from ..kernels.jit import record_type

    def _record(ops):
        return record_type(ops, RadauData)

    @overload(rhs, inline="always")
    def _rhs_record(ops, t, y, out):
        if _record(ops):
            return _rhs
        return None

    @overload(jacobian, inline="always")
    def _jacobian_record(ops, t, y):
        if _record(ops):
            return _jacobian
        return None

    @overload(factor, inline="always")
    def _factor_record(ops, h, gamma, alpha, beta):
        if _record(ops):
            return _factor
        return None

    @overload(stages, inline="always")
    def _stages_record(ops, t, y, h, Z, scale, algebraic, C, T, TI, gamma, alpha, beta, tol, maxiter):
        if _record(ops):
            return _stages
        return None

    @overload(error_estimate, inline="always")
    def _error_estimate_record(ops, y, abs_y, Z, f0, h, atol, rtol, ew, gamma, nd):
        if _record(ops):
            return _error_estimate
        return None

    @overload(solve_real, inline="always")
    def _solve_real_record(ops, r, out):
        if _record(ops):
            return _solve_real
        return None


# -- the loop ----------------------------------------------------------------------------------

#: what :func:`radau_steps` returns as its status, and the solver says
STATUS = {1: "steps taken", 2: "step size below its floor", 3: "singular iteration matrix",
          4: "no convergence at the fixed step", 5: "non-finite right-hand side at the current state"}


@_jit
def radau_steps(ops, t, y, t_bound, settings, tableau, state, flags, f0, J_y, poly_y, poly_QT, Ts, Hs, Ys, Zs,
                counts):
    """Adaptive Radau IIA steps from ``(t, y)`` towards ``t_bound`` (at most ``Ts.size``).

    ``settings = (fixed step (0: adaptive), rtol, atol, max_step, Newton tolerance, Newton
    iterations, t_end, the number of differential variables, the algebraic variables' mask)``;
    ``tableau = (C, T, T^-1, the dense-output basis, the error weights, gamma, alpha, beta,
    the controller's Newton iterations and its bounds of the step-size factor)``.

    The solver's memory is in the arrays, updated in place: ``state = [h, h of the factors
    (NaN: none), h_old, err_old, t of the polynomial, its h, t of the Jacobian, t of a
    non-finite stage value (NaN: none), its first non-finite component]``, ``flags = [f0
    valid, Jacobian valid, Jacobian fresh, previous step, polynomial]`` (0/1); ``y``, ``f0``,
    the Jacobian's point ``J_y``, the last collocation polynomial ``u(t_p + x h_p) = poly_y +
    sum_k poly_QT[k - 1] x^k`` and the counters ``counts = [nfev, njev, nlu, nreject]``.
    Step ``j`` starts at ``Ts[j]`` from ``Ys[j]`` with size ``Hs[j]`` and stages ``Zs[j]``.

    Returns ``(steps, status, t, h)``: status 1 when the steps reached ``t_bound`` or the room
    was used, else the reason step ``steps`` could not be taken (:data:`STATUS`) at the step
    size ``h`` (the next step's size after status 1).
    """
    fixed, rtol, atol, max_step, newton_tol, maxiter, t_end, nd, algebraic = settings
    C, T, TI, DI, ew, gamma, alpha, beta, max_newton, fac_min, fac_max = tableau
    n = y.size
    F = np.empty(n)
    f_err = np.empty(n)
    ops = borrowed(ops)          # the record's arrays without reference counts in the calls below
    for j in range(Ts.size):
        if t >= t_bound:
            return j, 1, t, state[0]
        if not flags[0]:
            rhs(ops, t, y, f0)
            counts[0] += 1
            flags[0] = 1
        if not all_finite(f0):
            return j, 5, t, state[0]
        if not flags[1]:
            jacobian(ops, t, y)
            J_y[:] = y
            state[6] = t
            counts[1] += 1
            flags[1], flags[2] = 1, 1
            state[1] = np.nan
        h = min(state[0], max_step, t_bound - t)
        if t_bound - (t + h) < 1e-12 * max(1.0, abs(t_bound)):
            h = t_bound - t
        refine = flags[4] == 0
        h_min = 10 * np.spacing(max(abs(t), abs(t_end)))
        abs_y = np.abs(y)
        scale_y = atol + rtol * abs_y
        while True:
            if h < h_min:
                return j, 2, t, h
            if state[1] != h:
                if factor(ops, h, gamma, alpha, beta):
                    return j, 3, t, h
                counts[2] += 2
                state[1] = h
            if flags[4]:
                Z0 = predictor(t, h, C, state[4], state[5], poly_y, poly_QT, y)
            else:
                Z0 = np.zeros((3, n))
            Z, status, iterations, theta = stages(ops, t, y, h, Z0, scale_y, algebraic, C, T, TI, gamma, alpha,
                                                  beta, newton_tol, maxiter)
            counts[0] += 3 * iterations
            if status != 1:
                if status < 0:                # where f is not finite: said if the step size fails
                    i = -status - 1
                    F[:] = y + Z[i]
                    rhs(ops, t + C[i] * h, F, f_err)
                    counts[0] += 1
                    bad = np.flatnonzero(~np.isfinite(f_err))
                    state[7], state[8] = t + C[i] * h, (bad[0] if bad.size else 0)
                if not flags[2]:              # first a fresh Jacobian, then a smaller step
                    jacobian(ops, t, y)
                    J_y[:] = y
                    state[6] = t
                    counts[1] += 1
                    flags[2] = 1
                    state[1] = np.nan
                    continue
                if fixed > 0.0:
                    return j, 4, t, h
                h *= 0.5
                counts[3] += 1
                continue
            y_new, scale, err, gEZ, err_norm = error_estimate(ops, y, abs_y, Z, f0, h, atol, rtol, ew, gamma, nd)
            if refine and err_norm > 1:       # (8.20): one more solve with f at the filtered point
                F[:] = y + err
                rhs(ops, t, F, f_err)
                counts[0] += 1
                f_err += gEZ
                solve_real(ops, f_err, err)
                err_norm = error_norm(err, scale, nd)
            if err_norm > 1 and fixed <= 0.0:
                if flags[4]:
                    h *= step_factor(err_norm, iterations, h, False, flags[3], state[2], state[3], max_newton,
                                     fac_min, fac_max)
                else:
                    h *= 0.1
                counts[3] += 1
                refine = True
                continue
            break
        # accepted
        state[7] = np.nan
        Ts[j], Hs[j] = t, h
        Ys[j] = y
        Zs[j] = Z
        state[4], state[5] = t, h
        poly_y[:] = y
        poly_QT[:, :] = transform(DI, Z)
        flags[4] = 1
        t = t + h if t + h < t_bound else t_bound
        y[:] = y_new
        rhs(ops, t, y, f0)
        counts[0] += 1
        if fixed > 0.0:
            h_next = fixed
        else:
            h_next = h * step_factor(err_norm, iterations, h, True, flags[3], state[2], state[3], max_newton,
                                     fac_min, fac_max)
        state[2], state[3] = h, max(err_norm, 1e-2)
        flags[3] = 1
        if theta >= 0.0 and theta > THETA_REFRESH:     # slow contraction: refresh the Jacobian
            flags[1] = 0
        else:
            flags[2] = 0
            if fixed <= 0.0 and 1.0 <= h_next / h <= 1.2:
                h_next = h                      # keep the factorizations
        state[0] = h_next
    return Ts.size, 1, t, state[0]


#: :func:`radau_steps` interpreted (the same source), for the Python step data
radau_steps_py = getattr(radau_steps, "py_func", radau_steps)

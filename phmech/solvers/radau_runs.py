"""Radau IIA's whole adaptive step, compiled: runs of many steps in one call (numba).

:meth:`RadauIIA._step <phmech.solvers.radau.RadauIIA._step>` decides each step in Python:
step size, Jacobian refresh, factorizations, the stage iteration
(:func:`~phmech.solvers.radau_kernels.stage_iteration`), the error estimate and the
controller.  Where the stage data do not depend on time (the classic problems; small
assembled systems without time-dependent drives or load inputs), :func:`radau_steps` takes
those decisions compiled, step after step, on the same pieces of
:mod:`phmech.solvers.radau_kernels`; the two loops share the controller
(:func:`step_factor`) and, for these systems, the factorization (:func:`factor_pair`).
"""
import numpy as np

from ..kernels.jit import jit as _jit
from ._newton import lu_solve
from .midpoint_kernels import eliminate
from .radau_kernels import (THETA_REFRESH, error_norm, local_error, predictor, small_pivot, stage_iteration,
                            stage_jacobian, stage_value, transform)


@_jit
def step_factor(err_norm, iterations, h, accepted, has_previous, h_old, err_old, max_newton, fac_min, fac_max):
    """Factor of the next step size (:meth:`RadauIIA._step_factor
    <phmech.solvers.radau.RadauIIA._step_factor>`): ``err^(-1/4)`` times a safety factor that
    shrinks with the Newton effort; after an accepted step with a previous one (``h_old``,
    ``err_old``) also Gustafsson's predictive controller (IV.8, (8.25)), whichever is more
    cautious; bounded by ``[fac_min, fac_max]``."""
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
    :class:`DenseFactors`).  Returns 0, or 1 when either matrix is singular: an exactly zero
    pivot, or one of rounding size against its column (the test of :func:`small_pivot`)."""
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
    if bad or small_pivot(Ar, lur) >= 0 or small_pivot(Ac, luc) >= 0:
        return 1
    return 0


class RowMajorLU:
    """Factors of :func:`factor_pair` (row-major ``lu_rm``, 0-based ``piv64``) with ``solve``."""

    def __init__(self, n, dtype=float):
        self.lu_rm = np.empty((n, n), dtype)
        self.piv64 = np.empty(n, np.int64)

    def solve(self, b):
        return lu_solve(self.lu_rm, self.piv64, np.asarray(b, self.lu_rm.dtype))


@_jit
def radau_steps(data, t, y, t_bound, t_end, fixed, state, flags, f0, J, J_y, lur, pivr, luc, pivc,
                E, Ep, Ei, Ed, algebraic, nd, rtol, atol, max_step, newton_tol, maxiter, tableau,
                poly_y, poly_QT, Ts, Hs, Ys, Zs, counts):
    """Several adaptive steps of :meth:`RadauIIA._step <phmech.solvers.radau.RadauIIA._step>`
    in one call, for stage data ``data`` that are the same at every time (:func:`stage_value`,
    :func:`stage_jacobian`): the same step-size choice, Jacobian refreshes, factorizations
    (:func:`factor_pair`), stage iterations (:func:`stage_iteration`), rejections, error
    estimates with refinement (:func:`local_error`) and controller (:func:`step_factor`).

    The solver's memory is in the arrays: ``state = [h, h of the factors (NaN: none), h_old,
    err_old, t of the polynomial, its h, t of the Jacobian]``, ``flags = [f0 valid, J valid,
    J fresh, previous step, polynomial]`` (0/1); ``y``, ``f0``, ``J`` (its point ``J_y``), the
    factors, the last collocation polynomial ``u(t_p + x h_p) = poly_y + sum_k poly_QT[k - 1]
    x^k`` and the counters ``counts = [nfev, njev, nlu, nreject]`` are updated in place.  Step
    ``j`` starts at ``Ts[j]`` from ``Ys[j]`` with size ``Hs[j]`` and stages ``Zs[j]``; at most
    ``Ts.size`` steps, none beyond ``t_bound``.  ``tableau = (C, T, T^-1, the dense-output
    basis, the error weights, gamma, alpha, beta, the controller's Newton iterations and its
    bounds of the step-size factor)``.

    Returns ``(steps, status, t)``: status 1 when the steps reached ``t_bound`` or the room
    was used, else the step ``steps`` could not be taken here, and the caller repeats it to
    report why: 2 the step size fell below its floor, 3 a singular iteration matrix, 4 no
    convergence at a fixed step.
    """
    C, T, TI, DI, ew, gamma, alpha, beta, max_newton, fac_min, fac_max = tableau
    n = y.size
    F = np.empty(n)
    for j in range(Ts.size):
        if t >= t_bound:
            return j, 1, t
        if not flags[0]:
            stage_value(0, t, y, data, f0)
            counts[0] += 1
            flags[0] = 1
        if not flags[1]:
            stage_jacobian(t, y, data, J)
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
                return j, 2, t
            if state[1] != h:
                if factor_pair(E, J, h, gamma, alpha, beta, lur, pivr, luc, pivc):
                    return j, 3, t
                counts[2] += 2
                state[1] = h
            if flags[4]:
                Z0 = predictor(t, h, C, state[4], state[5], poly_y, poly_QT, y)
            else:
                Z0 = np.zeros((3, n))
            factors = ((Ep, Ei, Ed), (lur, pivr), (luc, pivc), T, TI, gamma, alpha, beta)
            Z, status, iterations, theta = stage_iteration(data, factors, t, y, h, Z0, scale_y, algebraic, C, T,
                                                           TI, newton_tol, maxiter)
            counts[0] += 3 * iterations
            if status != 1:
                if not flags[2]:              # first a fresh Jacobian, then a smaller step
                    stage_jacobian(t, y, data, J)
                    J_y[:] = y
                    state[6] = t
                    counts[1] += 1
                    flags[2] = 1
                    state[1] = np.nan
                    continue
                if fixed > 0.0:
                    return j, 4, t
                h *= 0.5
                counts[3] += 1
                continue
            y_new, scale, err, gEZ, err_norm = local_error(y, abs_y, Z, f0, h, atol, rtol, (Ep, Ei, Ed), (lur, pivr),
                                                           ew, gamma, nd)
            if refine and err_norm > 1:
                for k in range(n):
                    F[k] = y[k] + err[k]
                f_err = np.empty(n)
                stage_value(0, t, F, data, f_err)
                counts[0] += 1
                err = lu_solve(lur, pivr, f_err + gEZ)
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
        Ts[j], Hs[j] = t, h
        Ys[j] = y
        Zs[j] = Z
        state[4], state[5] = t, h
        poly_y[:] = y
        poly_QT[:, :] = transform(DI, Z)
        flags[4] = 1
        t = t + h if t + h < t_bound else t_bound
        y[:] = y_new
        stage_value(0, t, y, data, f0)
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
    return Ts.size, 1, t

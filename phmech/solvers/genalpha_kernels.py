"""Compiled Newton iteration of the first-order generalized-alpha method (numba).

One step of :class:`~phmech.solvers.genalpha.GeneralizedAlpha` in its
first-order form (Jansen, Whiting & Hulbert, Comput. Methods Appl. Mech.
Engrg. 190 (2000) 305-319) solves for ``y+ = (x+, lam+)``

.. math::

    r(y_+) = \\begin{bmatrix} E_d\\, \\dot x_{n+\\alpha_m} - f_d(t_{n+\\alpha_f}, y_{n+\\alpha_f}) \\\\
             -f_a(t_{n+1}, y_+) \\end{bmatrix} = 0, \\qquad
    \\dot x_+ = \\dot x_n + \\frac{x_+ - x_n - h \\dot x_n}{h \\gamma},

with ``xd_{n+am} = xd_n + am (xd+ - xd_n)`` and ``y_{n+af} = y_n + af (y+ - y_n)``,
by a simplified Newton method on a factorized iteration matrix.  For a
system whose residual is completely compiled
(:attr:`~phmech.assembly.compiled.CompiledResidual.pure`) and small enough
for dense factors, :func:`genalpha_newton` runs that iteration in one call:
the two residual evaluations of an iteration (at ``t_{n+af}`` and ``t_{n+1}``)
through :func:`~phmech.assembly.compiled.residual_kernel`, the solve with
the LAPACK factors through :func:`~phmech.solvers._newton.lu_solve`, and the
convergence tests of the Python iteration
(:meth:`GeneralizedAlpha._newton_first_order`) in the same order.  Where the
Python iteration factorizes a new iteration matrix (the first iteration
without factors, or after a slow contraction) the kernel returns to the
caller, which factorizes at the current iterate and resumes the kernel with
the residual it left in ``r``.

The Python iteration stays the reference (``compiled=False``);
``tests/solvers/test_compiled_genalpha.py`` checks both give the same steps,
evaluations and factorizations and the same trajectories to round-off.
"""
import numpy as np

from ..kernels.jit import jit as _jit
from ..assembly.compiled import residual_kernel
from ._newton import GENALPHA_SLOW, lu_solve, newton_converged, newton_slow

#: return codes of :func:`genalpha_newton`
CONVERGED, NOT_CONVERGED, NONFINITE, NEED_LU = 1, 0, 2, 4


@_jit
def genalpha_newton(y0, xd0, y1, h, gamma, am, af, t_af, t1, Ep, Ei, Ex, lu, piv, has_lu, fresh,
                    it0, prev, r, r_given, scale, tol, max_newton, model, inputs_af, inputs_1):
    """Simplified Newton iteration of one first-order generalized-alpha step attempt.

    Parameters
    ----------
    y0, xd0 : state ``y_n`` and rates ``x'_n`` of the differential variables (``nd`` of them).
    y1 : the iterate ``y+``, updated in place.
    h, gamma, am, af, t_af, t1 : step size, method parameters and the times ``t_{n+af}``, ``t_{n+1}``.
    Ep, Ei, Ex : CSR arrays of ``E_d``, the differential rows and columns of ``E`` (``nd x nd``).
    lu, piv : dense LU factors (LAPACK ``getrf``, 0-based pivots) of the iteration matrix.
    has_lu : whether ``lu, piv`` are valid; without them the kernel stops at the first solve.
    fresh : the factors were computed in this attempt (enables the round-off floor test).
    it0, prev : iteration to start at and the previous increment (0: none), to resume a call.
    r : the residual (length ``n``), written by the kernel; with ``r_given`` the first
        iteration uses it as passed (left there by the previous call at ``y1``).
    scale : the floors of the relative increment ``|dy| / (|y+| + scale)``.
    tol, max_newton : Newton tolerance and iteration limit.
    model, inputs_af, inputs_1 : the compiled model and its inputs at ``t_af`` and ``t1``
        (:meth:`~phmech.assembly.compiled.CompiledResidual.model`, ``inputs``).

    Returns
    -------
    status, it, err, prev, nres : :data:`CONVERGED`, :data:`NOT_CONVERGED`,
        :data:`NONFINITE` (the residual at ``y1`` is not finite) or :data:`NEED_LU`
        (factorize at ``y1``, then resume at ``it`` with ``r_given``); the iteration
        reached, the last relative increment, the previous one and the number of
        residual evaluations (each evaluates ``f`` twice).
    """
    n = y0.size
    nd = xd0.size
    f_af = np.empty(n)
    f_1 = np.empty(n)
    y_af = np.empty(n)
    xd_am = np.empty(nd)
    hg = h * gamma
    nres = 0
    err = np.inf
    for it in range(it0, max_newton):
        if not (r_given and it == it0):
            for i in range(nd):
                xd1 = xd0[i] + (y1[i] - y0[i] - h * xd0[i]) / hg
                xd_am[i] = xd0[i] + am * (xd1 - xd0[i])
            for i in range(n):
                y_af[i] = y0[i] + af * (y1[i] - y0[i])
            residual_kernel(t_af, y_af, model, inputs_af, f_af)
            residual_kernel(t1, y1, model, inputs_1, f_1)
            nres += 1
            finite = True
            for i in range(nd):
                s = 0.0
                for k in range(Ep[i], Ep[i + 1]):
                    s += Ex[k] * xd_am[Ei[k]]
                r[i] = s - f_af[i]
                finite = finite and np.isfinite(r[i])
            for i in range(nd, n):
                r[i] = -f_1[i]
                finite = finite and np.isfinite(r[i])
            if not finite:
                return NONFINITE, it, err, prev, nres
        if not has_lu:
            return NEED_LU, it, err, prev, nres
        dy = lu_solve(lu, piv, r)
        err = 0.0
        for i in range(n):
            y1[i] -= dy[i]
            term = abs(dy[i]) / (abs(y1[i]) + scale[i])
            if term > err or term != term:       # NaN propagates as in np.max
                err = term
        # tests of the Python iteration; prev == 0 stands for "no previous increment"
        if newton_converged(err, prev, tol, fresh):
            return CONVERGED, it, err, prev, nres
        if newton_slow(err, prev, it, GENALPHA_SLOW[0], GENALPHA_SLOW[1]):
            has_lu = False                       # slow contraction: fresh iteration matrix
        prev = err
    return NOT_CONVERGED, max_newton, err, prev, nres

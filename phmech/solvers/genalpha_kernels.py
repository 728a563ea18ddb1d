"""Compiled Newton iteration of the first-order generalized-alpha method (numba).

One step of :class:`~phmech.solvers.genalpha.GeneralizedAlpha` in its
first-order form (Jansen, Whiting & Hulbert, Comput. Methods Appl. Mech.
Engrg. 190 (2000) 305-319) solves for ``y+ = (x+, lam+)``

.. math::

    r(y_+) = \\begin{bmatrix} E_d\\, \\dot x_{n+\\alpha_m} - f_d(t_{n+\\alpha_f}, y_{n+\\alpha_f}) \\\\
             -f_a(t_{n+1}, y_+) \\end{bmatrix} = 0, \\qquad
    \\dot x_+ = \\dot x_n + \\frac{x_+ - x_n - h \\dot x_n}{h \\gamma},

with ``xd_{n+am} = xd_n + am (xd+ - xd_n)`` and ``y_{n+af} = y_n + af (y+ - y_n)``,
by a simplified Newton method on a factorized iteration matrix.
:func:`genalpha_newton` is that iteration, written once: compiled for a
system whose residual is completely compiled
(:attr:`~phmech.assembly.compiled.CompiledResidual.pure`) and small enough
for dense factors (step data: a :data:`GenalphaData` record, factors the
LAPACK arrays of :func:`~phmech.solvers._newton.lu_solve`), interpreted
(``genalpha_newton.py_func``, the same source) for every other problem (step
data: :class:`~phmech.solvers.genalpha_first_order.PythonStage`, factors
dense or sparse).  What it does with the model goes through :func:`stage_f`
and :func:`ed_product`, chosen by the data's type (numba overloads for the
record), the solve through :func:`~phmech.solvers._newton.solve`.  Where a
new iteration matrix is needed (the first iteration without factors, or
after a slow contraction) the loop returns to the caller, which factorizes
at the current iterate and resumes it with the residual it left in ``r``.
"""
from collections import namedtuple

import numpy as np

from ..kernels.jit import borrowed, jit as _jit, numba
from ..assembly.compiled import residual_kernel
from ._newton import GENALPHA_SLOW, newton_converged, newton_slow, solve

#: return codes of :func:`genalpha_newton`
CONVERGED, NOT_CONVERGED, NONFINITE, NEED_LU = 1, 0, 2, 4


#: the compiled step data: ``E_d`` (differential rows and columns of ``E``) in CSR arrays, the
#: compiled model (:class:`~phmech.assembly.compiled.Model`) and its inputs at ``t_{n+af}`` and
#: ``t_{n+1}``
GenalphaData = namedtuple("GenalphaData", "Ep Ei Ex model inputs_af inputs_1")


def stage_f(data, k, t, y, out):
    """``out = f(t, y)`` at ``t_{n+af}`` (``k = 0``) or ``t_{n+1}`` (``k = 1``)."""
    data.f(k, t, y, out)


def ed_product(data, x, out):
    """``out[:nd] = E_d x`` (``nd = x.size``)."""
    data.ed_product(x, out)


@_jit
def step_points(y0, xd0, y1, h, gamma, am, af, xd_am, y_af):
    """``x'_{n+am}`` and ``y_{n+af}`` of the iterate ``y1`` (into ``xd_am``, ``y_af``)."""
    hg = h * gamma
    for i in range(xd0.size):
        xd1 = xd0[i] + (y1[i] - y0[i] - h * xd0[i]) / hg
        xd_am[i] = xd0[i] + am * (xd1 - xd0[i])
    for i in range(y0.size):
        y_af[i] = y0[i] + af * (y1[i] - y0[i])


@_jit
def step_rows(r, f_af, f_1, nd):
    """``r = [E_d x'_{n+am} - f_d(t_{n+af}), -f_a(t_{n+1})]`` in place (``r[:nd]`` holding
    ``E_d x'_{n+am}``); returns whether it is finite."""
    finite = True
    for i in range(r.size):
        r[i] = r[i] - f_af[i] if i < nd else -f_1[i]
        finite = finite and np.isfinite(r[i])
    return finite


@_jit
def take_increment(y1, dy, scale):
    """``y1 -= dy``; returns ``max |dy_i| / (|y1_i| + scale_i)`` (a NaN propagates, as in
    ``np.max``)."""
    err = 0.0
    for i in range(y1.size):
        y1[i] -= dy[i]
        term = abs(dy[i]) / (abs(y1[i]) + scale[i])
        if term > err or term != term:
            err = term
    return err


@_jit
def genalpha_newton(data, lu, has_lu, y0, xd0, y1, h, gamma, am, af, t_af, t1, fresh, it0, prev, r, r_given,
                    scale, tol, max_newton):
    """Simplified Newton iteration of one first-order generalized-alpha step attempt.

    Parameters
    ----------
    data : the step data (:data:`GenalphaData`, or the Python data of the interpreted loop).
    lu, has_lu : the iteration matrix's factors (:func:`~phmech.solvers._newton.solve`) and
        whether they are valid; without them the loop stops at the first solve.
    y0, xd0 : state ``y_n`` and rates ``x'_n`` of the differential variables (``nd`` of them).
    y1 : the iterate ``y+``, updated in place.
    h, gamma, am, af, t_af, t1 : step size, method parameters and the times ``t_{n+af}``, ``t_{n+1}``.
    fresh : the factors were computed in this attempt (enables the round-off floor test).
    it0, prev : iteration to start at and the previous increment (0: none), to resume a call.
    r : the residual (length ``n``), written by the loop; with ``r_given`` the first
        iteration uses it as passed (left there by the previous call at ``y1``).
    scale : the floors of the relative increment ``|dy| / (|y+| + scale)``.
    tol, max_newton : Newton tolerance and iteration limit.

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
    data = borrowed(data)         # the model's arrays as views without an owner for the calls below
    f_af, f_1, y_af, xd_am, dy = np.empty(n), np.empty(n), np.empty(n), np.empty(nd), np.empty(n)
    nres = 0
    err = np.inf
    for it in range(it0, max_newton):
        if not (r_given and it == it0):
            step_points(y0, xd0, y1, h, gamma, am, af, xd_am, y_af)
            stage_f(data, 0, t_af, y_af, f_af)
            stage_f(data, 1, t1, y1, f_1)
            nres += 1
            ed_product(data, xd_am, r)
            if not step_rows(r, f_af, f_1, nd):
                return NONFINITE, it, err, prev, nres
        if not has_lu:
            return NEED_LU, it, err, prev, nres
        solve(lu, r, dy)
        err = take_increment(y1, dy, scale)
        # prev == 0 stands for "no previous increment"
        if newton_converged(err, prev, tol, fresh):
            return CONVERGED, it, err, prev, nres
        if newton_slow(err, prev, it, GENALPHA_SLOW[0], GENALPHA_SLOW[1]):
            has_lu = False                       # slow contraction: fresh iteration matrix
        prev = err
    return NOT_CONVERGED, max_newton, err, prev, nres


#: :func:`genalpha_newton` interpreted (the same source), for the Python step data
genalpha_newton_py = getattr(genalpha_newton, "py_func", genalpha_newton)


if numba is not None:
    from numba.extending import overload

    from ..kernels.jit import record_type

    def _record(data):
        return record_type(data, GenalphaData)

    @overload(stage_f, inline="always")
    def _stage_f(data, k, t, y, out):
        if _record(data):
            def compiled(data, k, t, y, out):
                residual_kernel(t, y, data.model, data.inputs_af if k == 0 else data.inputs_1, out)
            return compiled
        return None

    @overload(ed_product, inline="always")
    def _ed_product(data, x, out):
        if _record(data):
            def compiled(data, x, out):
                for i in range(x.size):
                    s = 0.0
                    for k in range(data.Ep[i], data.Ep[i + 1]):
                        s += data.Ex[k] * x[data.Ei[k]]
                    out[i] = s
            return compiled
        return None

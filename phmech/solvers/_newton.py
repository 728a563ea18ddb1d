"""The convergence test of every Newton iteration, the Python and the compiled ones, and the
pieces the compiled iterations share: the block scales of their norm and the solve with LAPACK's
LU factors.

:func:`newton_converged` is compiled (``phmech.kernels.jit.jit``) for the
kernels of the midpoint, Radau IIA and generalized-alpha steps and called as
the same Python function (:data:`converged`) by the Python iterations, so
both paths take the same decisions; so does :func:`newton_slow`, the rule that refreshes a
slow iteration's matrix.  :func:`newton_hopeless` abandons a
contracting iteration that cannot reach the tolerance in the iterations left
(Radau IIA's stage iteration, compiled and interpreted alike).
"""
import numpy as np

from ..kernels.jit import jit as _jit, numba

#: contraction rate below which the error left after an increment is estimated from it
RATE_MAX = 0.9


@_jit
def newton_converged(err, prev, tol, floor):
    """Whether a Newton iteration has converged after an increment of size ``err``.

    Parameters
    ----------
    err : float
        Size of the last increment in the solver's scaled norm.
    prev : float
        Size of the increment before it; ``0`` when there is none yet.
    tol : float
        Newton tolerance in the same norm.
    floor : bool
        The iteration matrix is fresh (quadratic convergence expected): a
        rate above 0.1 with ``err < 1e3 tol`` is then the round-off floor,
        and the iteration has converged as far as it can.

    Returns
    -------
    bool
        True when ``err < tol``, or when the iteration contracts (rate
        ``err / prev`` below :data:`RATE_MAX`) and the error left, estimated
        as ``rate / (1 - rate) err`` (Hairer & Wanner, Solving ODEs II,
        IV.8), is below ``tol``, or at the round-off floor (``floor``).  A
        NaN ``err`` has not converged.
    """
    if err < tol:
        return True
    if prev > 0.0:
        rate = err / prev
        if rate < RATE_MAX and rate / (1.0 - rate) * err < tol:
            return True
        if floor and rate > 0.1 and err < 1e3 * tol:
            return True
    return False


#: :func:`newton_converged` for the Python iterations (the same source, no dispatch)
converged = getattr(newton_converged, "py_func", newton_converged)


#: the slow-contraction rule of the midpoint rule's iterations: ``(rate, after)`` of :func:`newton_slow`
#: (a rate above 0.5 from the third iteration on)
MIDPOINT_SLOW = (0.5, 2)
#: that of the generalized-alpha iterations (a rate above 0.2 from the second increment on)
GENALPHA_SLOW = (0.2, 0)


@_jit
def newton_slow(err, prev, it, rate, after):
    """Whether a simplified Newton iteration contracts too slowly to go on with its iteration
    matrix: from iteration ``after`` on (0-based ``it``), the rate ``err / prev`` of its last two
    increments (``prev = 0``: none yet) is above ``rate``.  The refresh rule of every Newton
    loop of the midpoint and generalized-alpha steps, Python and compiled (:data:`MIDPOINT_SLOW`,
    :data:`GENALPHA_SLOW`)."""
    return prev > 0.0 and it >= after and err / prev > rate


#: :func:`newton_slow` for the Python iterations (the same source, no dispatch)
slow = getattr(newton_slow, "py_func", newton_slow)


@_jit
def newton_hopeless(rate, err, remaining, tol):
    """Whether an iteration contracting at ``rate`` cannot reach ``tol`` in ``remaining`` more
    iterations: ``rate >= 1``, or the error left after them, estimated as
    ``rate^remaining / (1 - rate) err`` (Hairer & Wanner, Solving ODEs II, IV.8), above ``tol``."""
    return rate >= 1.0 or rate ** remaining / (1.0 - rate) * err > tol


@_jit
def lu_solve(lu, piv, b):
    """Solve with the factors of LAPACK ``getrf`` (0-based pivots as scipy returns them)."""
    n = b.size
    x = b.copy()
    for i in range(n):
        p = piv[i]
        if p != i:
            x[i], x[p] = x[p], x[i]
    for i in range(n):
        s = x[i]
        for j in range(i):
            s -= lu[i, j] * x[j]
        x[i] = s
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, n):
            s -= lu[i, j] * x[j]
        x[i] = s / lu[i, i]
    return x


def solve(lu, r, dz):
    """``dz = A^-1 r`` with the factors ``lu`` of ``A``, in every Newton loop written once for
    the compiled and the interpreted iterations: an object with ``solve`` (interpreted), or the
    arrays of compiled factors, whose kind registers a numba overload: LAPACK's ``getrf``
    factors ``(lu, piv)`` here (:func:`lu_solve`), the transposed factors of
    :func:`~phmech.solvers.midpoint_kernels.iteration_matrix` and SuperLU's
    (:class:`~phmech.solvers._sparse_lu.SparseLU`) in their modules; interpreted, a tuple of
    arrays goes to the same registered solve."""
    if isinstance(lu, tuple):
        _KINDS[len(lu)](lu, r, dz)
    else:
        dz[:] = lu.solve(r)


#: the solves of compiled factors by the size of their tuple (:func:`factor_kind`)
_KINDS = {}


def factor_kind(size):
    """Register the decorated ``solve(lu, r, dz)`` for compiled factors: tuples of ``size``
    arrays (a numba overload of :func:`solve`, and the interpreted :func:`solve` of such tuples)."""
    def register(compiled_solve):
        _KINDS[size] = compiled_solve
        if numba is not None and not numba.config.DISABLE_JIT:
            from numba import types
            from numba.extending import overload

            @overload(solve)
            def _typed(lu, r, dz):
                if isinstance(lu, types.BaseTuple) and len(lu) == size:
                    return compiled_solve
                return None
        return compiled_solve
    return register


@factor_kind(2)
def _lapack_solve(lu, r, dz):
    dz[:] = lu_solve(lu[0], lu[1], r)


@_jit
def all_finite(x):
    """Whether every entry of ``x`` is finite."""
    for i in range(x.size):
        if not np.isfinite(x[i]):
            return False
    return True


@_jit
def small_pivot(pivots, col):
    """The first column ``k`` whose pivot is of rounding size against the column's largest
    entry, ``|u_kk| <= n eps max_i |A_ik|`` (``pivots``: the ``|u_kk|``; ``col``: the column
    maxima of ``A``), or -1.  A matrix singular in exact arithmetic may leave such a pivot
    instead of zero (row pivoting keeps the columns): the singularity test of every dense
    factorization of the package."""
    n = pivots.size
    eps = np.finfo(np.float64).eps
    for k in range(n):
        if pivots[k] <= n * eps * col[k]:
            return k
    return -1


@_jit
def block_scales(y, nq, ne, scale):
    """``max(scale, per-block mean |y|)`` over the blocks ``q``, ``e``, ``lam`` (floor 1e-8)."""
    n = y.size
    bounds = (0, nq, nq + ne, n)
    for b in range(3):
        lo, hi = bounds[b], bounds[b + 1]
        m = 0.0
        for i in range(lo, hi):
            m += abs(y[i])
        m = m / (hi - lo) if hi > lo else 0.0
        m = max(m, 1e-8)
        for i in range(lo, hi):
            scale[i] = max(scale[i], m)

"""The convergence test of every Newton iteration, the Python and the compiled ones.

:func:`newton_converged` is compiled (``phmech._jit.jit``) for the
kernels of the midpoint, Radau IIA and generalized-alpha steps and called as
the same Python function (:data:`converged`) by the Python iterations, so
both paths take the same decisions.  :func:`newton_hopeless` abandons a
contracting iteration that cannot reach the tolerance in the iterations left
(Radau IIA's stage iteration, compiled and interpreted alike).
"""
from .._jit import jit as _jit

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


@_jit
def newton_hopeless(rate, err, remaining, tol):
    """Whether an iteration contracting at ``rate`` cannot reach ``tol`` in ``remaining`` more
    iterations: ``rate >= 1``, or the error left after them, estimated as
    ``rate^remaining / (1 - rate) err`` (Hairer & Wanner, Solving ODEs II, IV.8), above ``tol``."""
    return rate >= 1.0 or rate ** remaining / (1.0 - rate) * err > tol

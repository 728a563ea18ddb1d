"""The implicit midpoint rule's step for compiled systems (numba).

:class:`~phmech.solvers.midpoint.ImplicitMidpoint` runs the steps of a
system whose residual is compiled completely (:attr:`CompiledResidual.pure
<phmech.assembly.compiled.CompiledResidual.pure>`) and small enough for dense
factors through :func:`midpoint_steps` (one step, or a run of steps when
the driver does not need to see each), each step one call of
:func:`midpoint_step`: the simplified Newton
iteration of the step (:func:`midpoint_newton`) and, when it fails or no
factor is at hand, the exact Jacobian (:func:`~phmech.assembly.compiled_jacobian.
jacobian_kernel`), the iteration matrix

.. math::

    A = E / h - D_r \\, \\frac{\\partial f}{\\partial y}(t_{1/2}, y_{1/2}) \\, D_c

(``D_c`` halves the differential columns, ``D_r`` scales the constraint
rows) and its LU factorization with partial pivoting (:func:`getrf`: an
elimination that skips the updates by zeros of these sparse matrices up to
:data:`ELIMINATION_MAX` unknowns, LAPACK's ``getrf`` through numba's own
LAPACK binding above) -- the operations of the Python step, which stays the
reference (``tests/kernels/test_compiled.py`` checks that both take the same
iterations and the same trajectory).

The factors are kept in Fortran order: ``F`` (C order) holds ``A^T``, so
that :func:`getrf` on ``F`` factors ``A`` itself, with the 1-based pivots
of LAPACK's ``getrf``.
"""
import numpy as np

from ..kernels.jit import borrowed, jit as _jit, numba
from ..assembly.compiled import Inputs, power_kernel, residual_kernel
from ..assembly.compiled_jacobian import jacobian_kernel
from ..math.sparse_kernels import csr_mv_add
from ._newton import MIDPOINT_SLOW, block_scales, newton_converged, newton_slow
from ._sparse_lu import lu_solve_csc

try:
    from numba import _helperlib, types

    #: the integer type of LAPACK's pivots in numba's binding (64 bits where numba is built
    #: against an ILP64 LAPACK)
    _ilp64 = bool(getattr(_helperlib, "LAPACK_BUILD_ILP64", False))
    PIVOT_TYPE = np.int64 if _ilp64 else np.int32
    # the C function of numba's LAPACK binding (``numba.np.linalg._LAPACK.numba_xxgetrf``),
    # declared here rather than through that module, whose import (numba's array
    # implementations) would take ~70 ms of every process that loads the cached step;
    # ``_helperlib`` calls scipy's ``dgetrf`` for kind "d"
    _getrf = types.ExternalFunction("numba_xxgetrf", types.intc(
        types.char, types.intp, types.intp, types.CPointer(types.float64), types.intp,
        types.CPointer(types.int64 if _ilp64 else types.int32)))
    #: the compiled step can be used (numba and its LAPACK binding are there, and the kernels are
    #: compiled: with NUMBA_DISABLE_JIT the solver runs its Python iteration on the same kernels)
    AVAILABLE = numba is not None and not numba.config.DISABLE_JIT
except ImportError:         # pragma: no cover - numba is part of the installed stack
    PIVOT_TYPE = np.int32
    AVAILABLE = False

#: the largest matrix factorized by :func:`eliminate`; LAPACK's blocked ``getrf`` above.  The
#: stiffened crank-slider (4 elements, 75 unknowns, 1837 nonzeros in its factors): 23 us
#: against LAPACK's 38 us; with 32 linear elements (216 unknowns, factors half full): 420 us
#: against 320 us.
ELIMINATION_MAX = 100

#: the share of stored entries in the factors above which :func:`lu_solve_t` runs over whole
#: columns: the list of nonzeros is faster for the stiffened crank-slider's factors (a third
#: stored, n = 75: 2.3 against 2.7 us), whole columns for those of 32 linear elements (half
#: stored, n = 216)
DENSE_FILL = 0.4


@_jit
def getrf(F, ipiv):
    """LU factorization with partial pivoting, in place, of the matrix ``A`` whose transpose
    ``F`` holds (``F[j, i] = A[i, j]``): ``P A = L U`` with 1-based pivots ``ipiv``, the
    unit lower ``L`` below and ``U`` on and above the diagonal, as LAPACK's ``getrf`` returns
    them.  :func:`eliminate` up to :data:`ELIMINATION_MAX` unknowns, LAPACK above.  Returns
    LAPACK's ``info``: 0, ``k + 1`` for the first exactly zero pivot (column ``k``), or a
    negative number for a bad argument."""
    n = F.shape[0]
    if n <= ELIMINATION_MAX:
        return eliminate(F, ipiv)
    return _getrf(ord("d"), n, n, F.ctypes, n, ipiv.ctypes)


@_jit
def eliminate(F, ipiv):
    """:func:`getrf` by the right-looking elimination of Golub & Van Loan (Matrix
    Computations, 4th ed., Alg. 3.4.1), by columns so that its inner loops run along the
    contiguous rows of ``F``; a column whose entry in the pivot row is zero is not updated.

    The iteration matrices of mechanisms are sparse (the stiffened crank-slider's: 451 of
    5625 entries besides ``E``) and most such updates vanish, which at these sizes outweighs
    the blocks of LAPACK, which does them all."""
    n = F.shape[0]
    info = 0
    for k in range(n):
        p = k
        big = abs(F[k, k])
        for i in range(k + 1, n):
            if abs(F[k, i]) > big:
                big = abs(F[k, i])
                p = i
        ipiv[k] = p + 1
        if big == 0.0:
            if info == 0:
                info = k + 1
            continue
        if p != k:
            for j in range(n):
                F[j, k], F[j, p] = F[j, p], F[j, k]
        lk = F[k, k + 1:]               # column k of L (loops over a view from 0 vectorize)
        r = 1.0 / F[k, k]
        for i in range(lk.size):
            lk[i] *= r
        for j in range(k + 1, n):
            u = F[j, k]
            if u != 0.0:
                a = F[j, k + 1:]
                for i in range(a.size):
                    a[i] -= lk[i] * u
    return info


@_jit
def factor_pattern(F, nz):
    """Record in ``nz`` where the factors of :func:`getrf` in ``F`` are not zero, column by
    column of ``L`` and ``U`` (rows of ``F``), for :func:`lu_solve_t`.

    ``nz[j]`` to ``nz[j + 1]`` (``j < n``) index the rows ``i > j`` of column ``j`` of
    ``L``, ``nz[n + 1 + j]`` to ``nz[n + 2 + j]`` the rows ``i < j`` of column ``j`` of
    ``U``; the row numbers follow from ``2 n + 2`` on (``nz`` has ``n^2 + n + 2`` entries).
    The iteration matrices of mechanisms are sparse and keep much of it in their factors (the
    stiffened crank-slider's: 1845 of 5625 entries), so the solves of the Newton iterations
    skip the zeros."""
    n = F.shape[0]
    k = 2 * n + 2
    for j in range(n):
        nz[j] = k
        for i in range(j + 1, n):
            if F[j, i] != 0.0:
                nz[k] = i
                k += 1
    nz[n] = k
    for j in range(n):
        nz[n + 1 + j] = k
        for i in range(j):
            if F[j, i] != 0.0:
                nz[k] = i
                k += 1
    nz[2 * n + 1] = k


@_jit
def lu_solve_t(F, ipiv, nz, b, x):
    """Solve ``A x = b`` into ``x`` with the factors of :func:`getrf` (``F[j, i] = LU[i, j]``,
    1-based pivots) and their nonzeros ``nz`` (:func:`factor_pattern`); ``x`` may be ``b``.

    The operations of the dense substitution by columns, less those with a zero factor: over
    the listed nonzeros when the factors are sparse, over whole columns (whose loops
    vectorize) when more than :data:`DENSE_FILL` of the entries are stored (FE models of a
    few hundred unknowns)."""
    n = b.size
    for i in range(n):
        x[i] = b[i]
    for i in range(n):
        p = ipiv[i] - 1
        if p != i:
            x[i], x[p] = x[p], x[i]
    if nz[2 * n + 1] - (2 * n + 2) > DENSE_FILL * n * n:
        for j in range(n):
            xj = x[j]
            if xj != 0.0:
                lj, xs = F[j, j + 1:], x[j + 1:]
                for i in range(lj.size):
                    xs[i] -= lj[i] * xj
        for j in range(n - 1, -1, -1):
            x[j] /= F[j, j]
            xj = x[j]
            if xj != 0.0:
                uj = F[j, :j]
                for i in range(j):
                    x[i] -= uj[i] * xj
        return
    for j in range(n):
        xj = x[j]
        if xj != 0.0:
            for m in range(nz[j], nz[j + 1]):
                i = nz[m]
                x[i] -= F[j, i] * xj
    for j in range(n - 1, -1, -1):
        x[j] /= F[j, j]
        xj = x[j]
        if xj != 0.0:
            for m in range(nz[n + 1 + j], nz[n + 2 + j]):
                i = nz[m]
                x[i] -= F[j, i] * xj


@_jit
def no_sparse_factors():
    """The sparse factors' argument of :func:`midpoint_newton` for dense factors (empty)."""
    one, none, empty = np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return (one, none, empty, one, none, empty, empty, none, none)


@_jit
def midpoint_newton(y0, z, h, tm, Ep, Ei, Ed, F, ipiv, nz, S, tol, max_newton, dae_scale, floor,
                    model, inputs):
    """Simplified Newton iteration of one midpoint step with fixed factors (the Python loop of
    :meth:`ImplicitMidpoint._step`, same tests): the dense ``F``, ``ipiv`` of
    :func:`iteration_matrix` with their pattern ``nz``, or SuperLU's ``S`` (the arrays of
    :class:`~phmech.solvers._sparse_lu.SparseLU`; :func:`no_sparse_factors` for none).  ``z``
    is updated in place.  ``floor``: the retry with factors at the last iterate, where an
    iteration stalled at the round-off floor has converged
    (:func:`~phmech.solvers._newton.newton_converged`).

    Returns ``(status, iterations, err)``: 1 converged, 0 not converged or slow but
    contracting (refresh the iteration matrix and go on from ``z``), 5 slow and not
    contracting (refresh and start again), 2 non-finite residual, 3 non-finite increment.
    """
    sparse = S[0].size > 1
    nq, ne = model.nq, model.ne
    nd = nq + ne
    n = y0.size
    Edy0 = np.zeros(n)
    csr_mv_add(Ep, Ei, Ed, y0, Edy0, 1.0)
    ym = np.empty(n)
    fz = np.empty(n)
    r = np.empty(n)
    dz = np.empty(n)
    prev = 0.0
    err = np.nan
    contracting = False
    for it in range(max_newton):
        for i in range(n):
            ym[i] = 0.5 * (y0[i] + z[i]) if i < nd else z[i]
        residual_kernel(tm, ym, model, inputs, fz)
        r[:] = 0.0
        csr_mv_add(Ep, Ei, Ed, z, r, 1.0)
        finite = True
        for i in range(n):
            r[i] = (r[i] - Edy0[i]) / h - fz[i]
            if not np.isfinite(r[i]):
                finite = False
        if not finite:
            return 2, it, err
        if sparse:
            lu_solve_csc(S[0], S[1], S[2], S[3], S[4], S[5], S[6], S[7], S[8], r, dz)
        else:
            lu_solve_t(F, ipiv, nz, r, dz)
        for i in range(n):
            z[i] -= dz[i]
        if it == 0:
            block_scales(z, nq, ne, dae_scale)
        err = 0.0
        for i in range(n):
            term = abs(dz[i]) / (abs(z[i]) + dae_scale[i])
            if not np.isfinite(term):
                return 3, it, term
            err = max(err, term)
        if newton_converged(err, prev, tol, floor):
            return 1, it, err
        contracting = prev > 0.0 and err < prev
        if newton_slow(err, prev, it, MIDPOINT_SLOW[0], MIDPOINT_SLOW[1]):
            return 0 if contracting else 5, it, err
        prev = err
    return 0 if contracting else 5, max_newton - 1, err


@_jit
def iteration_matrix(ym, h, tm, Edense, rsc, dcol, F, ipiv, nz, model, inputs):
    """Factorize ``A = E/h - D_r J(t_m, y_m) D_c`` at the step's midpoint ``ym`` into ``F``,
    ``ipiv``, and their nonzeros into ``nz`` (:func:`factor_pattern`).  Returns 0, or
    ``k + 1`` for a (numerically) zero pivot in column ``k`` (the test of
    :class:`~phmech.solvers._dense.DenseLU`)."""
    n = ym.size
    J = np.zeros((n, n))
    jacobian_kernel(tm, ym, model, inputs, J)
    col = np.zeros(n)
    for i in range(n):
        for j in range(n):
            # E is sparse: its zeros divided by h are zeros (the same numbers as dividing them,
            # without a division for each of the n^2 entries)
            m = Edense[i, j]
            a = (m / h if m != 0.0 else 0.0) - rsc[i] * J[i, j] * dcol[j]
            F[j, i] = a
            col[j] = max(col[j], abs(a))
    info = getrf(F, ipiv)
    if info < 0:
        return n + 1
    eps = np.finfo(np.float64).eps
    for k in range(n):
        if abs(F[k, k]) <= n * eps * col[k]:
            return k + 1
    factor_pattern(F, nz)
    return 0


class TransposedLU:
    """The factors of :func:`iteration_matrix` with the ``solve`` of the solvers' LU objects."""

    def __init__(self, n):
        self.F = np.empty((n, n))
        self.ipiv = np.empty(n, PIVOT_TYPE)
        self.nz = np.empty(n * n + n + 2, np.int64)

    def solve(self, b):
        b = np.ascontiguousarray(b, float)
        x = np.empty(b.size)
        lu_solve_t(self.F, self.ipiv, self.nz, b, x)
        return x


@_jit
def midpoint_step(y0, z, h, tm, Ep, Ei, Ed, Edense, rsc, dcol, F, ipiv, nz, has_lu, tol, max_newton,
                  dae_scale, ym_lu, model, inputs):
    """The two attempts of a midpoint step (:meth:`ImplicitMidpoint._step`): the Newton
    iteration with the factors at hand (``has_lu``), else or after a failure from ``y0`` with
    factors at the new midpoint (written to ``F``, ``ipiv``; the point to ``ym_lu``).

    The second attempt goes on from the last iterate of the first where that one was
    contracting, else starts again from ``y0``; it accepts an iteration stalled at the
    round-off floor.

    Returns ``(status, nfev, nlu, err, iterations, power)``: status 1 converged (``z`` the
    end point, ``power`` the supplied power at the step's midpoint), 0 not converged,
    2 or 3 a non-finite residual or increment, 4 a vanishing pivot (column ``err - 1``).
    """
    n = y0.size
    nd = model.nq + model.ne
    nfev = 0
    nlu = 0
    err = np.nan
    it = 0
    status = 0
    for attempt in range(2):
        if not has_lu:
            for i in range(n):
                ym_lu[i] = 0.5 * (y0[i] + z[i]) if i < nd else z[i]
            bad = iteration_matrix(ym_lu, h, tm, Edense, rsc, dcol, F, ipiv, nz, model, inputs)
            nlu += 1
            if bad:
                return 4, nfev, nlu, float(bad), 0, 0.0
            has_lu = True
        status, it, err = midpoint_newton(y0, z, h, tm, Ep, Ei, Ed, F, ipiv, nz, no_sparse_factors(), tol,
                                          max_newton, dae_scale, attempt == 1, model, inputs)
        nfev += it + 1
        if status != 0 and status != 5:
            break
        has_lu = False
        if status == 5:
            for i in range(n):
                z[i] = y0[i]
    if status == 5:
        status = 0
    power = 0.0
    if status == 1:
        ym = np.empty(n)
        for i in range(n):
            ym[i] = 0.5 * (y0[i] + z[i]) if i < nd else z[i]
        power = power_kernel(ym, model, inputs)
    return status, nfev, nlu, err, it + 1, power


@_jit
def midpoint_steps(y, z_prev, has_prev, lu_h, hs, tms, W, U, Ep, Ei, Ed, Edense, rsc, dcol, F, ipiv, nz,
                   has_lu, tol, max_newton, dae_scale, ym_lu, fresh, refresh, iterations, work, Y, works,
                   model):
    """Several midpoint steps in one call: step ``j`` has size ``hs[j]``, midpoint time ``tms[j]``,
    prescribed velocities ``W[j]`` and load inputs ``U[j]`` (``U[0]`` for all when ``U`` has one
    row).  Each step is :meth:`ImplicitMidpoint._step` with its compiled attempt
    (:func:`midpoint_step`): the same refresh rules of the iteration matrix (a new step size, a
    fresh matrix every step with ``fresh``, after more than ``refresh`` iterations), the same
    predictor (linear extrapolation from ``z_prev`` when ``has_prev`` and the step size is that
    of the factors, ``lu_h``; NaN for none).  ``y``, ``z_prev``, ``dae_scale``, ``F``, ``ipiv``
    and ``ym_lu`` are updated in place; the end points go to the rows of ``Y``, the supplied
    work after each step to ``works``.

    Returns ``(done, status, err, nfev, nlu, iterations, lu_h, lu_step)``: ``done`` steps
    taken; ``status`` 1 when all were, else that of :func:`midpoint_step` for step ``done``
    (which the caller repeats in Python to report); ``lu_step`` the step of the last
    factorization (-1: none in this call).
    """
    n = y.size
    nd = model.nq + model.ne
    nfev = 0
    nlu = 0
    lu_step = -1
    z = np.empty(n)
    # the arguments as views without an owner for the calls of the steps (the caller holds them)
    (W, U, Ep, Ei, Ed, Edense, rsc, dcol, F, ipiv, nz, dae_scale, ym_lu, model) = borrowed(
        (W, U, Ep, Ei, Ed, Edense, rsc, dcol, F, ipiv, nz, dae_scale, ym_lu, model))
    one = U.shape[0] == 1
    for j in range(hs.size):
        h = hs[j]
        if lu_h == lu_h and h != lu_h:
            has_lu = False
        for i in range(n):
            z[i] = y[i]
        if has_prev and h == lu_h:
            for i in range(nd):
                z[i] = 2.0 * y[i] - z_prev[i]
        if fresh or iterations > refresh:
            has_lu = False
        status, nf, nl_, err, its, power = midpoint_step(
            y, z, h, tms[j], Ep, Ei, Ed, Edense, rsc, dcol, F, ipiv, nz, has_lu, tol, max_newton, dae_scale,
            ym_lu, model, Inputs(W[j], U[0] if one else U[j]))
        nfev += nf
        nlu += nl_
        if nl_:
            has_lu = True
            lu_h = h
            lu_step = j
        if status != 1:
            return j, status, err, nfev, nlu, iterations, lu_h, lu_step
        iterations = its
        work = work + h * power
        works[j] = work
        for i in range(n):
            z_prev[i] = y[i]
            y[i] = z[i]
            Y[j, i] = z[i]
        has_prev = True
    return hs.size, 1, 0.0, nfev, nlu, iterations, lu_h, lu_step

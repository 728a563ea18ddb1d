"""The implicit midpoint rule's steps and Newton iteration, one source for every problem, and
their compiled pieces (numba).

:func:`midpoint_steps` (predictor, refresh rules, the two attempts of a step, the supplied
work) and :func:`midpoint_newton` (the simplified Newton iteration) are written once and run

* compiled, for the systems whose residual is compiled completely
  (:attr:`CompiledResidual.pure <phmech.assembly.compiled.CompiledResidual.pure>`) and small
  enough for dense factors: the step data are a :data:`MidpointData` record, the factors
  those of :func:`iteration_matrix` -- the exact Jacobian
  (:func:`~phmech.assembly.compiled_jacobian.jacobian_kernel`), the iteration matrix

  .. math::

      A = E / h - D_r \\, \\frac{\\partial f}{\\partial y}(t_{1/2}, y_{1/2}) \\, D_c

  (``D_c`` halves the differential columns, ``D_r`` scales the constraint rows) and its LU
  factorization with partial pivoting (:func:`getrf`: an elimination that skips the updates
  by zeros of these sparse matrices up to :data:`ELIMINATION_MAX` unknowns, LAPACK's
  ``getrf`` through numba's own LAPACK binding above);
* interpreted (``midpoint_steps.py_func``, the same source) for every other problem, with the
  step data of :class:`~phmech.solvers.midpoint.PythonSteps`: a Python residual, endpoint
  constraints, SuperLU's or bordered factors.  On SuperLU's factors of a compiled residual
  the Newton iteration itself runs compiled.

What the loop does with the model goes through a few functions taking the step data first
(:func:`step_f`, :func:`e_product`, :func:`factor`, ...; the solve is
:func:`~phmech.solvers._newton.solve`): for the record,
numba overloads chosen by its type, written into the loop where it is compiled
(``inline="always"``: a call would copy the model record, hundreds of arrays, each time); for
Python data, their methods.  The overloads have no disk cache of their own; their code is stored inside the cached loop, in the directory that
follows every kernel module (:mod:`phmech.kernels.jit`).

The factors are kept in Fortran order: ``F`` (C order) holds ``A^T``, so
that :func:`getrf` on ``F`` factors ``A`` itself, with the 1-based pivots
of LAPACK's ``getrf``.
"""
from collections import namedtuple

import numpy as np

from ..kernels.jit import borrowed, inline as _jit_inline, jit as _jit, numba
from ..assembly.compiled import Inputs, power_kernel, residual_kernel
from ..assembly.compiled_jacobian import jacobian_kernel
from ..math.sparse_kernels import csr_mv_add
from ._newton import (MIDPOINT_SLOW, all_finite, block_scales, factor_kind, newton_converged, newton_slow,
                      small_pivot, solve)
from ._sparse_lu import lu_solve_csc  # noqa: F401 (registers SuperLU's factors with solve)

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
    pivots = np.empty(n)
    for k in range(n):
        pivots[k] = abs(F[k, k])
    k = small_pivot(pivots, col)
    if k >= 0:
        return k + 1
    factor_pattern(F, nz)
    return 0


@factor_kind(3)
def _transposed_solve(lu, r, dz):
    lu_solve_t(lu[0], lu[1], lu[2], r, dz)


class TransposedLU:
    """The factors of :func:`iteration_matrix` with the ``solve`` of the solvers' LU objects."""

    def __init__(self, n):
        self.F = np.empty((n, n))
        self.ipiv = np.empty(n, PIVOT_TYPE)
        self.nz = np.empty(n * n + n + 2, np.int64)

    @property
    def factors(self):
        """The arrays :func:`solve` takes (as :attr:`SparseLU.factors
        <phmech.solvers._sparse_lu.SparseLU.factors>`)."""
        return (self.F, self.ipiv, self.nz)

    def solve(self, b):
        b = np.ascontiguousarray(b, float)
        x = np.empty(b.size)
        lu_solve_t(self.F, self.ipiv, self.nz, b, x)
        return x


# -- the step's operations: chosen by the type of the step data -----------------------------------
#
# The Newton iteration and the steps below are written once.  What they do with the model goes
# through the functions of this section, which take the step data first: compiled, the data are
# a :class:`MidpointData` record and numba selects the overloads at the end of this module;
# interpreted (``midpoint_steps.py_func``), the data are a Python object with methods of the same
# names (:class:`~phmech.solvers.midpoint.PythonSteps`: a Python residual, endpoint constraints,
# sparse or bordered factors).

#: the compiled step data: ``E`` in CSR arrays (``Ep``, ``Ei``, ``Ed``) and dense (``Edense``;
#: empty for sparse factors), the iteration matrix's row and column scales ``rsc`` and ``dcol``,
#: the compiled model (:class:`~phmech.assembly.compiled.Model`), and the prescribed velocities
#: ``W`` and load inputs ``U`` of each step (one row of ``U`` for all when it has one)
MidpointData = namedtuple("MidpointData", "Ep Ei Ed Edense rsc dcol model W U")


def step_f(data, j, t, y, out):
    """``out = f(t, y)``, the DAE's right-hand side in step ``j``."""
    data.f(j, t, y, out)


def e_product(data, x, out):
    """``out = E x``."""
    data.e_product(x, out)


def endpoint_rows(data, t1, z, r):
    """The constraint rows of the residual at the end point ``z`` (time ``t1``) where the
    velocity constraint is imposed there (``constraints="endpoint"``)."""
    data.endpoint_rows(t1, z, r)


def step_power(data, j, t, ym):
    """The supplied power at the midpoint ``ym`` of step ``j`` (time ``t``)."""
    return data.power(j, t, ym)


def factor(data, lu, j, t, ym, h):
    """Factorize the iteration matrix of step ``j`` at its midpoint ``ym`` into ``lu``; returns
    0, or ``k + 1`` for a vanishing pivot in column ``k``."""
    return data.factor(lu, j, t, ym, h)


def newton(data, lu, j, y0, z, h, tm, nq, ne, tol, max_newton, scale, floor):
    """:func:`midpoint_newton` for the data (interpreted data may run it compiled on factors it
    can take)."""
    return data.newton(lu, j, y0, z, h, tm, nq, ne, tol, max_newton, scale, floor)


# -- helpers on arrays (compiled, and called as they are by the interpreted loop) ------------------

@_jit
def midpoint_of(y0, z, nd, ym):
    """``ym``: the midpoint of ``y0`` and ``z`` in the differential variables (the first
    ``nd``), ``z`` in the multipliers (which belong to the midpoint)."""
    for i in range(y0.size):
        ym[i] = 0.5 * (y0[i] + z[i]) if i < nd else z[i]


@_jit
def step_rows(r, Edy0, fz, h):
    """``r = (r - E y0) / h - f`` in place (``r`` holding ``E z``)."""
    for i in range(r.size):
        r[i] = (r[i] - Edy0[i]) / h - fz[i]


@_jit
def take_increment(z, dz, scale, nq, ne, first):
    """``z -= dz``, after the first increment (``first``) with the block scales following the
    solution (:func:`~phmech.solvers._newton.block_scales`: multipliers may start at zero);
    returns the increment's size ``max |dz_i| / (|z_i| + scale_i)`` (not finite as soon as one
    term is not)."""
    for i in range(z.size):
        z[i] -= dz[i]
    if first:
        block_scales(z, nq, ne, scale)
    err = 0.0
    for i in range(z.size):
        term = abs(dz[i]) / (abs(z[i]) + scale[i])
        if not np.isfinite(term):
            return term
        err = max(err, term)
    return err


def step_residual(data, j, tm, h, nd, y0, Edy0, z, ym, fz, r):
    """The residual ``r = E (z - y0) / h - f(t_m, y_m)`` of step ``j`` at the end point ``z``
    (``ym``: its midpoint, :func:`midpoint_of`, written; ``Edy0 = E y0``), with the endpoint
    constraint rows where they apply.  Returns whether it is finite."""
    midpoint_of(y0, z, nd, ym)
    e_product(data, z, r)
    step_f(data, j, tm, ym, fz)
    step_rows(r, Edy0, fz, h)
    endpoint_rows(data, tm + 0.5 * h, z, r)
    return all_finite(r)


@_jit
def midpoint_newton(data, lu, j, y0, z, h, tm, nq, ne, tol, max_newton, scale, floor):
    """The simplified Newton iteration of midpoint step ``j`` from ``y0`` (size ``h``, midpoint
    time ``tm``) with the factors ``lu`` at hand; ``z`` (the predictor) is updated in place, the
    block scales ``scale`` of the increments' norm after the first increment.  ``floor``: the
    retry with factors at the last iterate, where an iteration stalled at the round-off floor
    has converged (:func:`~phmech.solvers._newton.newton_converged`).

    Returns ``(status, iteration, err)``: status 1 converged, 0 not converged or slow but
    contracting (refresh the iteration matrix and go on from ``z``), 5 slow and not
    contracting (refresh and start again), 2 non-finite residual, 3 non-finite increment;
    the 0-based iteration of the last increment and its size.
    """
    n = y0.size
    data, lu = borrowed((data, lu))    # views without an owner for the calls below
    Edy0 = np.empty(n)
    e_product(data, y0, Edy0)
    ym, fz, r, dz = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    prev = 0.0
    err = np.nan
    contracting = False
    for it in range(max_newton):
        if not step_residual(data, j, tm, h, nq + ne, y0, Edy0, z, ym, fz, r):
            return 2, it, err
        solve(lu, r, dz)
        err = take_increment(z, dz, scale, nq, ne, it == 0)
        if not np.isfinite(err):
            return 3, it, err
        if newton_converged(err, prev, tol, floor):
            return 1, it, err
        contracting = prev > 0.0 and err < prev
        if newton_slow(err, prev, it, MIDPOINT_SLOW[0], MIDPOINT_SLOW[1]):
            return (0 if contracting else 5), it, err
        prev = err
    return (0 if contracting else 5), max_newton - 1, err


@_jit
def midpoint_steps(data, lu, y, z_prev, has_prev, lu_h, has_lu, hs, tms, nq, ne, tol, max_newton, scale,
                   ym_lu, fresh, refresh, iterations, work, z, Y, works):
    """Midpoint steps from ``y``: step ``j`` has size ``hs[j]`` and midpoint time ``tms[j]``.

    Each step starts from the predictor (linear extrapolation from ``z_prev`` when ``has_prev``
    and the step size is that of the factors, ``lu_h``; NaN for none) and tries twice: the
    Newton iteration (:func:`midpoint_newton`) with the factors at hand (``has_lu``), else or
    after a failure with factors at the new midpoint (its point to ``ym_lu``), going on from the
    last iterate where the first attempt contracted, else from ``y``; a non-finite residual
    ends the step at once where ``f`` is not finite at ``y`` itself (a fresh matrix cannot
    help).  The iteration matrix is refreshed for a new step size, every step with ``fresh``,
    and after a step of more than ``refresh`` iterations.  ``y``, ``z_prev``, ``scale`` and
    ``ym_lu`` are updated in place; the end points go to the rows of ``Y``, the supplied work
    after each step to ``works``; ``z`` holds the last iterate of a failed step.

    Returns ``(done, status, err, taken, nfev, nlu, iterations, lu_h, lu_step)``: ``done``
    steps taken; ``status`` 1 when all were, else that of step ``done``: 0 not converged, 2 or
    3 a non-finite residual or increment, 4 a vanishing pivot (column ``err - 1``), ``taken``
    the iterations of its attempts; ``iterations`` those of the last step taken (the refresh
    rule's memory); ``lu_step`` the step of the last factorization (-1: none).
    """
    n = y.size
    nd = nq + ne
    nfev = 0
    nlu = 0
    lu_step = -1
    ym = np.empty(n)
    fz = np.empty(n)
    # the arrays as views without an owner for the calls of the steps (the caller holds them)
    data, lu, scale, ym_lu = borrowed((data, lu, scale, ym_lu))
    for j in range(hs.size):
        h, tm = hs[j], tms[j]
        if lu_h == lu_h and h != lu_h:
            has_lu = False
        z[:] = y
        if has_prev and h == lu_h:
            for i in range(nd):
                z[i] = 2.0 * y[i] - z_prev[i]
        if fresh or iterations > refresh:
            has_lu = False
        status, err, taken = 0, np.nan, 0
        for attempt in range(2):
            if not has_lu:
                midpoint_of(y, z, nd, ym_lu)
                bad = factor(data, lu, j, tm, ym_lu, h)
                nlu += 1
                if bad:
                    return j, 4, float(bad), taken, nfev, nlu, iterations, lu_h, lu_step
                has_lu, lu_h, lu_step = True, h, j
            status, it, err = newton(data, lu, j, y, z, h, tm, nq, ne, tol, max_newton, scale, attempt == 1)
            nfev += it + 1
            taken += it + 1
            if status == 1:
                iterations = it + 1
                break
            has_lu = False
            if status != 0:                 # not contracting or not finite: start again from y
                z[:] = y
            if status == 2:
                midpoint_of(y, z, nd, ym)
                step_f(data, j, tm, ym, fz)
                nfev += 1
                if not all_finite(fz):
                    break
        if status != 1:
            return j, (0 if status == 5 else status), err, taken, nfev, nlu, iterations, lu_h, lu_step
        midpoint_of(y, z, nd, ym)
        work = work + h * step_power(data, j, tm, ym)
        works[j] = work
        z_prev[:] = y
        y[:] = z
        Y[j] = z
        has_prev = True
    return hs.size, 1, 0.0, 0, nfev, nlu, iterations, lu_h, lu_step


#: :func:`midpoint_steps` and :func:`midpoint_newton` interpreted (the same source), for the
#: Python step data
midpoint_steps_py = getattr(midpoint_steps, "py_func", midpoint_steps)
midpoint_newton_py = getattr(midpoint_newton, "py_func", midpoint_newton)


# -- the compiled step data's operations -------------------------------------------------------

@_jit_inline
def _inputs(data, j):
    """The :data:`~phmech.assembly.compiled.Inputs` of step ``j`` of the record ``data``."""
    return Inputs(data.W[j], data.U[0] if data.U.shape[0] == 1 else data.U[j])


if numba is not None:
    from numba.extending import overload

    from ..kernels.jit import record_type

    def _record(data):
        return record_type(data, MidpointData)

    @overload(step_f, inline="always")
    def _step_f(data, j, t, y, out):
        if _record(data):
            def compiled(data, j, t, y, out):
                residual_kernel(t, y, data.model, _inputs(data, j), out)
            return compiled
        return None

    @overload(e_product, inline="always")
    def _e_product(data, x, out):
        if _record(data):
            def compiled(data, x, out):
                out[:] = 0.0
                csr_mv_add(data.Ep, data.Ei, data.Ed, x, out, 1.0)
            return compiled
        return None

    @overload(endpoint_rows, inline="always")
    def _endpoint_rows(data, t1, z, r):
        if _record(data):
            return lambda data, t1, z, r: None      # the compiled steps impose the constraints at the midpoint
        return None

    @overload(step_power, inline="always")
    def _step_power(data, j, t, ym):
        if _record(data):
            return lambda data, j, t, ym: power_kernel(t, ym, data.model, _inputs(data, j))
        return None

    @overload(factor, inline="always")
    def _factor(data, lu, j, t, ym, h):
        if _record(data) and isinstance(lu, types.BaseTuple) and len(lu) == 3:
            def dense(data, lu, j, t, ym, h):
                return iteration_matrix(ym, h, t, data.Edense, data.rsc, data.dcol, lu[0], lu[1], lu[2],
                                        data.model, _inputs(data, j))
            return dense
        return None

    @overload(step_residual, inline="always")
    def _step_residual(data, j, tm, h, nd, y0, Edy0, z, ym, fz, r):
        if _record(data):
            return step_residual            # the same source, compiled
        return None

    @overload(newton)
    def _newton(data, lu, j, y0, z, h, tm, nq, ne, tol, max_newton, scale, floor):
        if _record(data):
            def compiled(data, lu, j, y0, z, h, tm, nq, ne, tol, max_newton, scale, floor):
                return midpoint_newton(data, lu, j, y0, z, h, tm, nq, ne, tol, max_newton, scale, floor)
            return compiled
        return None

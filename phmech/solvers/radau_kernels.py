"""Radau IIA's stage iteration, one source for every problem, and its compiled pieces (numba).

:class:`~phmech.solvers.radau.RadauIIA` solves the collocation system of
each step by a simplified Newton iteration in the eigenbasis of the
collocation matrix (Hairer & Wanner, *Solving Ordinary Differential
Equations II*, IV.8): per iteration three evaluations of ``f`` at the
stage times ``t + c_i h``, one real and one complex solve with the
factorized iteration matrices, and the contraction tests of
:mod:`phmech.solvers._newton`.  :func:`stage_iteration` is that loop,
written once:

* compiled, for dense problems whose right-hand side is a compiled kernel
  (the interpreter's overhead of a few array operations per iteration is
  the larger part of a step for the small and medium systems of
  multibody dynamics): the assembled systems whose compiled residual is
  complete (:attr:`CompiledResidual.pure
  <phmech.assembly.compiled.CompiledResidual.pure>`, stage data: the
  residual kernel's arguments with the prescribed velocities and loads'
  inputs of the three stage times) and the classic
  benchmark problems (:mod:`phmech.validation._classic_compiled`);
* interpreted (``stage_iteration.py_func``, the same source) for every
  other problem: ``f`` a Python callable, the factors dense or sparse.

The stage evaluation :func:`stage_value` is chosen by the type of its
data: a kind of model registers its evaluation with :func:`stage_kind` (for
the compiled loop a numba overload selected by the data's type, for the
interpreted one a test of the data), so that the loop never names a model.
The overloads have no disk cache of their own: numba would keep it beside
this source, keyed to this file alone, and serve a stale residual after an
edit of another kernel module; their code is stored inside the cached loop
instead, in the directory that follows every kernel module.  The correction
(:func:`stage_increment`) and the embedded error estimate
(:func:`local_error`) are written once too: compiled for factors given as
arrays, interpreted for factor objects (sparse or bordered), with ``E``
through :func:`e_rows` and the solves through
:func:`~phmech.solvers._newton.solve`; their loops over the unknowns are
compiled helpers both call.

:func:`predictor` (the starting stages from the last collocation polynomial)
and :class:`DenseFactors` (LAPACK factors with a compiled singularity test)
serve both.  The kernels contain the residual kernel of
:mod:`phmech.assembly.compiled`; the disk cache follows edits of either
(:mod:`phmech.kernels.jit`).
"""
import numpy as np

from ..kernels.jit import jit as _jit, numba
from ..assembly.compiled import Inputs, residual_kernel
from ..assembly.compiled_jacobian import jacobian_kernel
from ..math.sparse_kernels import csr_mv, csr_mv_add
from ._dense import DenseLU
from ._newton import all_finite, newton_converged, newton_hopeless, small_pivot, solve

#: the kinds of stage data: ``(accepts(data), evaluate, jacobian)`` for the interpreted loop
#: a step whose stage iteration contracted more slowly than this (its last rate ``theta``) leaves a
#: fresh Jacobian to the next (Hairer & Wanner, Solving ODEs II, IV.8;
#: :func:`~phmech.solvers.radau_runs.radau_steps`)
THETA_REFRESH = 1e-3

_KINDS = []


def _kind(data, what):
    for accepts, evaluate, jacobian in _KINDS:
        if accepts(data):
            return evaluate if what == 0 else jacobian
    raise TypeError(f"radau: no stage evaluation for data of type {type(data).__name__}")


def stage_value(i, t, Y, data, out):
    """``out = f(t, Y)`` at stage ``i`` (time ``t``) for the stage data ``data`` (the kind
    registered by :func:`stage_kind` that accepts it)."""
    _kind(data, 0)(i, t, Y, data, out)


def stage_jacobian(t, y, data, J):
    """``J = df/dy (t, y)`` (dense) for stage data that do not depend on the stage (the data of
    :func:`~phmech.solvers.radau_runs.radau_steps`), by the Jacobian registered with the data's kind."""
    _kind(data, 1)(t, y, data, J)


def stage_kind(accepts, accepts_type, jacobian=None):
    """Register a kind of stage data: the decorated ``evaluate(i, t, Y, data, out)`` serves
    :func:`stage_value` for the data with ``accepts(data)`` (interpreted) and, compiled, for
    the numba types with ``accepts_type(type)`` (never for a kind that returns False);
    ``jacobian(t, y, data, J)``, where given, serves :func:`stage_jacobian` the same way."""
    def register(evaluate):
        _KINDS.append((accepts, evaluate, jacobian))
        if numba is not None:
            from numba.extending import overload

            @overload(stage_value)
            def _typed(i, t, Y, data, out):
                if accepts_type(data):
                    return evaluate
                return None

            if jacobian is not None:
                @overload(stage_jacobian)
                def _typed_jacobian(t, y, data, J):
                    if accepts_type(data):
                        return jacobian
                    return None
        return evaluate
    return register


@stage_kind(callable, lambda data: False)
def python_stage(i, t, Y, f, out):
    """Stage value of a Python right-hand side ``f(t, y)`` (the interpreted loop only)."""
    out[:] = f(t, Y)


def _is_assembled(data):
    return (isinstance(data, tuple) and len(data) == 3 and isinstance(data[0], tuple)
            and isinstance(data[1], np.ndarray) and isinstance(data[2], np.ndarray))


def _is_assembled_type(data):
    from numba import types
    return (isinstance(data, types.BaseTuple) and len(data) == 3 and isinstance(data[0], types.BaseTuple)
            and isinstance(data[1], types.Array) and isinstance(data[2], types.Array))


def assembled_jacobian(t, y, data, J):
    """``J = df/dy`` of an assembled system whose stage data are the same at every stage
    (:meth:`AssembledStages.run_data`): the Jacobian kernel with the inputs of stage 0."""
    J[:, :] = 0.0
    model, W, U = data
    jacobian_kernel(t, y, model, Inputs(W[0], U[0]), J)


@stage_kind(_is_assembled, _is_assembled_type, jacobian=assembled_jacobian)
def assembled_stage(i, t, Y, data, out):
    """Stage value of an assembled system, ``data = (model, W, U)``: the residual kernel on the
    compiled model with the prescribed velocities ``W[i]`` and the loads' inputs ``U[i]`` of
    the stage time."""
    model, W, U = data
    residual_kernel(t, Y, model, Inputs(W[i], U[i]), out)


class AssembledStages:
    """The compiled right-hand side of an assembled system as Radau IIA's stage source:
    ``f``, the dense ``jacobian(t, y)`` and :meth:`stage_data`.

    Parameters
    ----------
    compiled : :class:`~phmech.assembly.compiled.CompiledResidual`
        With ``pure`` True (the kernel is the complete right-hand side).
    """

    def __init__(self, compiled):
        if not compiled.pure:
            raise ValueError("compiled Radau stages need a pure compiled residual (Python leftovers: "
                             f"{', '.join(compiled.leftovers)})")
        self.compiled = compiled
        #: ``f(t, y)``: the compiled right-hand side
        self.f = compiled.f
        #: ``jacobian(t, y)``: the compiled dense Jacobian where there is one, else None
        self.jacobian = self._jacobian if compiled.has_jacobian else None

    def _jacobian(self, t, y):
        return self.compiled.jacobian(y, t=t)

    def stage_data(self, times):
        """``(model, W, U)``: the compiled model and the prescribed velocities and loads' inputs at
        the three stage times (rows)."""
        c = self.compiled
        ts = [float(t) for t in times]
        W = np.array([np.asarray(c.dae.w(t), float) for t in ts], float).reshape(3, c.dae.nl)
        U = np.array([c.load_args(t)[-1] for t in ts], float).reshape(3, -1, 3)
        return c.model(), W, U

    def run_data(self):
        """The stage data of every time when neither the prescribed velocities nor the loads'
        inputs depend on time (:func:`~phmech.solvers.radau_runs.radau_steps` runs several steps on them), else None."""
        c = self.compiled
        if c.dae.w_depends_on_time or not c.packed_loads.constant:
            return None
        return self.stage_data((0.0, 0.0, 0.0))


def stage_source(problem):
    """The compiled stage source of ``problem``: its own ``compiled_rhs`` (``f``, ``jacobian``,
    ``stage_data``; the classic benchmark problems), else an :class:`AssembledStages` of its
    complete compiled residual (``problem.compiled_residual()``), else None."""
    own = getattr(problem, "compiled_rhs", None)
    if own is not None:
        return own
    make = getattr(problem, "compiled_residual", None)
    c = make() if make is not None else None
    if c is None or not c.pure:
        return None
    return AssembledStages(c)


@_jit
def newton_scales(scale, algebraic, h):
    """The Newton norm's weights: ``scale`` with the algebraic components divided by ``h``."""
    s = scale.copy()
    for i in range(s.size):
        if algebraic[i]:
            s[i] /= h
    return s


@_jit
def transform(A, X):
    """``A X`` for the 3 x 3 matrix ``A`` and the rows ``X`` (3 x n), written out (no BLAS
    call for a product this small)."""
    n = X.shape[1]
    out = np.empty((3, n))
    for k in range(n):
        x0, x1, x2 = X[0, k], X[1, k], X[2, k]
        for i in range(3):
            out[i, k] = A[i, 0] * x0 + A[i, 1] * x1 + A[i, 2] * x2
    return out


def e_rows(E, X):
    """``E X_k`` for the rows ``X_k`` of ``X`` (3 x n): ``E`` in CSR arrays (a tuple; compiled
    and interpreted alike by :func:`csr_rows`) or a dense or sparse matrix (interpreted)."""
    if isinstance(E, tuple):
        return csr_rows(E[0], E[1], E[2], X)
    return np.asarray((E @ X.T).T)


def e_product(E, x):
    """``E x`` for ``E`` as in :func:`e_rows`."""
    if isinstance(E, tuple):
        return csr_mv(E[0], E[1], E[2], x)
    return np.asarray(E @ x)


@_jit
def csr_rows(Ep, Ei, Ed, X):
    """``E X_k`` of each row ``X_k`` of ``X`` for ``E`` in CSR arrays."""
    out = np.zeros(X.shape)
    for k in range(X.shape[0]):
        csr_mv_add(Ep, Ei, Ed, X[k], out[k], 1.0)
    return out


@_jit
def stage_rhs(G, EW, h, gamma, alpha, beta):
    """The right-hand sides of the real and the complex Newton system in the eigenbasis:
    ``G_1 - gamma/h (E W)_1`` and ``(G_2 + i G_3) - (alpha - i beta)/h (E W)_2 + i (E W)_3``."""
    n = G.shape[1]
    gh = gamma / h
    ch = (alpha - 1j * beta) / h
    r1 = np.empty(n)
    r23 = np.empty(n, np.complex128)
    for k in range(n):
        r1[k] = G[0, k] - gh * EW[0, k]
        r23[k] = (G[1, k] + 1j * G[2, k]) - ch * (EW[1, k] + 1j * EW[2, k])
    return r1, r23


@_jit
def increment_rows(x, u, T, s):
    """``dW = (x, Re u, Im u)`` and its norm, the root mean square of ``T dW / s`` (the stage
    increments)."""
    n = x.size
    dW = np.empty((3, n))
    acc = 0.0
    for k in range(n):
        dW[0, k] = x[k]
        dW[1, k] = u[k].real
        dW[2, k] = u[k].imag
        for i in range(3):
            d = T[i, 0] * dW[0, k] + T[i, 1] * dW[1, k] + T[i, 2] * dW[2, k]
            acc += (d / s[k]) ** 2
    return dW, np.sqrt(acc / (3 * n))


def stage_increment(F, W, h, s, factors):
    """One simplified Newton correction ``dW`` in the eigenbasis and its norm.

    ``F``: the stage values ``f(t + c_i h, y + Z_i)`` (rows); ``W = T^-1 Z``;
    ``s``: :func:`newton_scales`; ``factors = (E, real, complex, T, T^-1, gamma, alpha,
    beta)``: ``E`` for :func:`e_rows`, the factors of ``gamma/h E - J`` and
    ``(alpha - i beta)/h E - J`` for :func:`~phmech.solvers._newton.solve` (LAPACK's arrays,
    compiled; any factor objects, sparse ones above the dense size, interpreted).
    """
    E, real, cplx, T, TI, gamma, alpha, beta = factors
    r1, r23 = stage_rhs(transform(TI, F), e_rows(E, W), h, gamma, alpha, beta)
    x = np.empty(r1.size)
    solve(real, r1, x)
    u = np.empty(r23.size, np.complex128)
    solve(cplx, r23, u)
    return increment_rows(x, u, T, s)


@_jit
def newton_update(W, dW, T):
    """``W += dW`` and the stages ``Z = T W``."""
    n = W.shape[1]
    for i in range(3):
        for k in range(n):
            W[i, k] += dW[i, k]
    return transform(T, W)


@_jit
def predictor(t, h, C, t_prev, h_prev, y_prev, QT, y):
    """Starting stages from the previous step's collocation polynomial
    ``u(t_prev + x h_prev) = y_prev + sum_k QT[k - 1] x^k`` at the stage times, as increments
    from ``y`` (zero on the first step: :func:`~phmech.solvers.radau_runs.radau_steps`)."""
    n = y.size
    Z = np.empty((3, n))
    for i in range(3):
        x = (t + C[i] * h - t_prev) / h_prev
        x2 = x * x
        x3 = x2 * x
        for k in range(n):
            Z[i, k] = x * QT[0, k] + x2 * QT[1, k] + x3 * QT[2, k] + (y_prev[k] - y[k])
    return Z


@_jit
def error_norm(err, scale, nd):
    """Root mean square of ``err / scale`` over the first ``nd`` (differential) variables."""
    acc = 0.0
    for k in range(nd):
        acc += (err[k] / scale[k]) ** 2
    return np.sqrt(acc / max(nd, 1))


@_jit
def end_point(y, abs_y, Z, atol, rtol, ew):
    """``y_new = y + Z_3``, the error scale ``atol + rtol max(|y|, |y_new|)`` and the
    combination of the stages with the embedded weights ``ew``."""
    n = y.size
    y_new = np.empty(n)
    scale = np.empty(n)
    v = np.empty(n)
    for k in range(n):
        y_new[k] = y[k] + Z[2, k]
        scale[k] = atol + rtol * max(abs_y[k], abs(y_new[k]))
        v[k] = ew[0] * Z[0, k] + ew[1] * Z[1, k] + ew[2] * Z[2, k]
    return y_new, scale, v


def local_error(y, abs_y, Z, f0, h, atol, rtol, E, real, ew, gamma, nd):
    """The step's end point and its embedded error estimate, filtered by the real iteration
    matrix (IV.8, eq. 8.19; the refinement of eq. 8.20 follows in
    :func:`~phmech.solvers.radau_runs.radau_steps`).

    Returns ``(y_new, scale, err, gEZ, err_norm)``: ``y_new = y + Z_3``, the error scale
    ``atol + rtol max(|y|, |y_new|)``, the filtered estimate ``err = (gamma/h E - J)^-1
    (f0 + gEZ)`` with ``gEZ = gamma/h E (ew . Z)`` (``E`` for :func:`e_product`, ``real``
    the factors for :func:`~phmech.solvers._newton.solve`), and the root mean square of
    ``err / scale`` over the first ``nd`` (differential) variables.
    """
    y_new, scale, v = end_point(y, abs_y, Z, atol, rtol, ew)
    gEZ = gamma / h * e_product(E, v)
    err = np.empty(y.size)
    solve(real, f0 + gEZ, err)
    return y_new, scale, err, gEZ, error_norm(err, scale, nd)


@_jit
def pivot_test(A, lu):
    """:func:`~phmech.solvers._newton.small_pivot` of the ``getrf`` factors ``lu`` (row-major) of
    ``A``: the first column with a pivot of rounding size, or -1."""
    n = A.shape[0]
    pivots = np.empty(n)
    col = np.zeros(n)
    for k in range(n):
        pivots[k] = abs(lu[k, k])
        for i in range(n):
            col[k] = max(col[k], abs(A[i, k]))
    return small_pivot(pivots, col)


class DenseFactors(DenseLU):
    """LAPACK ``getrf`` factors of a small dense matrix with the row-major copies ``lu_rm``,
    ``piv64`` the kernels take.

    Raises
    ------
    numpy.linalg.LinAlgError
        For a singular matrix.
    """

    def __init__(self, A):
        super().__init__(A)
        self.lu_rm = np.ascontiguousarray(self.lu)
        self.piv64 = self.piv.astype(np.int64)


if numba is not None:
    from numba import types as _types
    from numba.extending import overload

    # the functions above written once for both loops: for compiled factors (tuples of arrays)
    # numba compiles the same source
    @overload(e_rows)
    def _e_rows(E, X):
        if isinstance(E, _types.BaseTuple):
            return lambda E, X: csr_rows(E[0], E[1], E[2], X)
        return None

    @overload(e_product)
    def _e_product(E, x):
        if isinstance(E, _types.BaseTuple):
            return lambda E, x: csr_mv(E[0], E[1], E[2], x)
        return None

    @overload(stage_increment)
    def _stage_increment(F, W, h, s, factors):
        if isinstance(factors, _types.BaseTuple):
            return stage_increment
        return None

    @overload(local_error)
    def _local_error(y, abs_y, Z, f0, h, atol, rtol, E, real, ew, gamma, nd):
        if isinstance(E, _types.BaseTuple):
            return local_error
        return None


@_jit
def stage_iteration(data, factors, t, y, h, Z, scale, algebraic, C, T, TI, tol, maxiter):
    """The simplified Newton iteration of the collocation system of one step.

    Parameters
    ----------
    data : the stage data (:func:`stage_value`).
    factors : the iteration matrices' factors (:func:`stage_increment`).
    t, y, h : start and size of the step.
    Z : starting stage increments (3 x n).
    scale : the error scale of ``y``; with ``algebraic`` the Newton norm's weights
        (:func:`newton_scales`).
    C, T, TI : the Radau nodes, the eigenbasis of the collocation matrix and its inverse.
    tol, maxiter : Newton tolerance and iteration limit.

    Returns
    -------
    Z, status, iterations, theta
        The stages; status 1 converged, 0 not converged (or not in the iterations left),
        ``-(i + 1)`` a non-finite value of ``f`` at stage ``i``; the iterations taken (three
        evaluations of ``f`` each); the last contraction rate (-1: none yet).
    """
    n = y.size
    W = transform(TI, Z)
    s = newton_scales(scale, algebraic, h)
    norm_old = -1.0
    theta = -1.0
    F = np.empty((3, n))
    for it in range(1, maxiter + 1):
        for i in range(3):
            stage_value(i, t + C[i] * h, y + Z[i], data, F[i])
            if not all_finite(F[i]):
                return Z, -(i + 1), it, theta
        dW, norm = stage_increment(F, W, h, s, factors)
        if norm_old >= 0.0:
            theta = norm / norm_old
            if newton_hopeless(theta, norm, maxiter - it, tol):
                return Z, 0, it, theta
        Z = newton_update(W, dW, T)
        if newton_converged(norm, max(norm_old, 0.0), tol, False):
            return Z, 1, it, theta
        norm_old = norm
    return Z, 0, maxiter, theta


#: :func:`stage_iteration` interpreted (the same source) for Python right-hand sides and sparse factors
stage_iteration_py = getattr(stage_iteration, "py_func", stage_iteration)

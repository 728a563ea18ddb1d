"""Compiled step pieces of Radau IIA: the stage iteration of assembled systems and the
predictor, error estimate and factorization check of every problem with compiled stages (numba).

:class:`~phmech.solvers.radau.RadauIIA` solves the collocation system of
each step by a simplified Newton iteration in the eigenbasis of the
collocation matrix (Hairer & Wanner, *Solving Ordinary Differential
Equations II*, IV.8): per iteration three evaluations of ``f`` at the
stage times ``t + c_i h``, one real and one complex solve with the
factorized iteration matrices, and the contraction test.  For the small
and medium systems of multibody dynamics the interpreter's overhead of
these few array operations is the larger part of a step.  When the
compiled residual of a :class:`~phmech.assembly.dae.DescriptorDAE` is
the complete ``f`` (:attr:`CompiledResidual.pure
<phmech.assembly.compiled.CompiledResidual.pure>`), the whole iteration
runs here in one compiled call: :func:`radau_stages` evaluates the same
formulas and applies the same tests as :meth:`RadauIIA._stages
<phmech.solvers.radau.RadauIIA._stages>`, with sums in another order (the
Python iteration stays the reference; ``tests/test_compiled_radau.py``
checks both take the same steps and agree to round-off).

The kernel's arguments after ``(t, y)`` depend on time only through the
prescribed velocities ``w(t)`` and the loads' inputs ``u(t)``; they are
evaluated in Python once per stage time before the call
(:meth:`CompiledResidual.kernel_args
<phmech.assembly.compiled.CompiledResidual.kernel_args>`), and passed as
one argument tuple plus the stacked ``w`` and ``u`` of the three stage
times (written into the tuple's arrays before each stage evaluation),
which keeps the cost of the call itself small.

:func:`stage_increment` (one Newton correction in the eigenbasis) is
shared with the compiled classic benchmark models
(:mod:`phmech.validation._classic_compiled`); :func:`predictor`,
:func:`local_error` (the embedded error estimate) and
:class:`DenseFactors` (LAPACK factors with a compiled singularity test)
serve every problem with compiled stages.  The kernels contain
:func:`~phmech.assembly.compiled.residual_kernel` of another module; the
disk cache follows edits of either (:mod:`phmech._jit`).
"""
import numpy as np

from ..solvers._dense import DenseLU
from ..solvers._newton import newton_converged
from .._jit import jit as _jit
from .compiled import _KERNEL_ARGS, _csr_mv_add, lu_solve, residual_kernel

#: positions of the time-dependent kernel arguments: ``w(t)`` and the loads (inputs ``u(t)`` last)
_IW, _IL = _KERNEL_ARGS.index("w"), _KERNEL_ARGS.index("loads")


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


@_jit
def stage_increment(F, W, h, s, Ep, Ei, Ed, lur, pivr, luc, pivc, T, TI, gamma, alpha, beta):
    """One simplified Newton correction ``dW`` in the eigenbasis and its norm.

    ``F``: the stage values ``f(t + c_i h, y + Z_i)`` (rows); ``W = T^-1 Z``;
    ``s``: :func:`newton_scales`; ``E`` in CSR arrays ``(Ep, Ei, Ed)``; the
    LAPACK ``getrf`` factors of ``gamma/h E - J`` and ``(alpha - i beta)/h E - J``.
    The norm is the root mean square of ``T dW / s`` (the stage increments).
    """
    n = W.shape[1]
    G = transform(TI, F)
    EW = np.zeros((3, n))
    for k in range(3):
        _csr_mv_add(Ep, Ei, Ed, W[k], EW[k], 1.0)
    gh = gamma / h
    ch = (alpha - 1j * beta) / h
    r1 = np.empty(n)
    r23 = np.empty(n, np.complex128)
    for k in range(n):
        r1[k] = G[0, k] - gh * EW[0, k]
        r23[k] = (G[1, k] + 1j * G[2, k]) - ch * (EW[1, k] + 1j * EW[2, k])
    dW = np.empty((3, n))
    dW[0] = lu_solve(lur, pivr, r1)
    u = lu_solve(luc, pivc, r23)
    acc = 0.0
    for k in range(n):
        dW[1, k] = u[k].real
        dW[2, k] = u[k].imag
        for i in range(3):
            d = T[i, 0] * dW[0, k] + T[i, 1] * dW[1, k] + T[i, 2] * dW[2, k]
            acc += (d / s[k]) ** 2
    return dW, np.sqrt(acc / (3 * n))


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
    from ``y`` (:meth:`RadauIIA._predictor <phmech.solvers.radau.RadauIIA._predictor>`)."""
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
def _finite(x):
    for k in range(x.size):
        if not np.isfinite(x[k]):
            return False
    return True


@_jit
def _stage_value(t, y, Z, i, args, w, U, F):
    """``F[i] = f(t, y + Z[i])`` by the residual kernel with ``args`` and the prescribed
    velocities ``w`` and load inputs ``U`` of time ``t``."""
    args[_IW][:] = w
    args[_IL][-1][:, :] = U
    Y = y + Z[i]
    residual_kernel(t, Y, *(args + (F[i],)))


@_jit
def radau_stages(t, y, h, Z, scale, algebraic, Ep, Ei, Ed, lur, pivr, luc, pivc, C, T, TI,
                 gamma, alpha, beta, tol, maxiter, args, w, U):
    """The simplified Newton iteration of :meth:`RadauIIA._stages
    <phmech.solvers.radau.RadauIIA._stages>` (same operations, same tests) with ``f`` the
    residual kernel; ``args``: its arguments after ``(t, y)``, ``w[i]``, ``U[i]``: the
    prescribed velocities and load inputs at the stage time ``t + c_i h``.

    Returns ``(Z, converged, iterations, theta)`` (``theta = -1`` for none yet);
    ``iterations < 0`` reports a non-finite stage value (at stage ``-iterations - 1``).
    """
    n = y.size
    W = transform(TI, Z)
    s = newton_scales(scale, algebraic, h)
    norm_old = -1.0
    theta = -1.0
    F = np.empty((3, n))
    for it in range(1, maxiter + 1):
        for i in range(3):
            _stage_value(t + C[i] * h, y, Z, i, args, w[i], U[i], F)
        for i in range(3):
            if not _finite(F[i]):
                return Z, False, -(i + 1), theta
        dW, norm = stage_increment(F, W, h, s, Ep, Ei, Ed, lur, pivr, luc, pivc, T, TI, gamma, alpha, beta)
        if norm_old >= 0.0:
            theta = norm / norm_old
            remaining = maxiter - it
            if theta >= 1 or theta ** remaining / (1 - theta) * norm > tol:
                return Z, False, it, theta
        Z = newton_update(W, dW, T)
        if newton_converged(norm, max(norm_old, 0.0), tol, False):
            return Z, True, it, theta
        norm_old = norm
    return Z, False, maxiter, theta


@_jit
def local_error(y, abs_y, Z, f0, h, atol, rtol, Ep, Ei, Ed, lur, pivr, ew, gamma, nd):
    """The step's end point and the embedded error estimate of :meth:`RadauIIA._local_error
    <phmech.solvers.radau.RadauIIA._local_error>` (without the refinement), in one call.

    Returns ``(y_new, scale, err, gEZ, err_norm)``: ``y_new = y + Z_3``, the error scale
    ``atol + rtol max(|y|, |y_new|)``, the filtered estimate ``err = (gamma/h E - J)^-1
    (f0 + gEZ)`` with ``gEZ = gamma/h E (ew . Z)``, and the root mean square of
    ``err / scale`` over the first ``nd`` (differential) variables.
    """
    n = y.size
    y_new = np.empty(n)
    scale = np.empty(n)
    v = np.empty(n)
    for k in range(n):
        y_new[k] = y[k] + Z[2, k]
        scale[k] = atol + rtol * max(abs_y[k], abs(y_new[k]))
        v[k] = ew[0] * Z[0, k] + ew[1] * Z[1, k] + ew[2] * Z[2, k]
    EZ = np.zeros(n)
    _csr_mv_add(Ep, Ei, Ed, v, EZ, 1.0)
    gEZ = gamma / h * EZ
    err = lu_solve(lur, pivr, f0 + gEZ)
    acc = 0.0
    for k in range(nd):
        acc += (err[k] / scale[k]) ** 2
    return y_new, scale, err, gEZ, np.sqrt(acc / max(nd, 1))


@_jit
def small_pivot(A, lu):
    """The first column whose pivot in the ``getrf`` factors ``lu`` of ``A`` is of rounding
    size against the column's largest entry (``|u_kk| <= n eps max_i |A_ik|``; row
    pivoting keeps the columns), or -1: a matrix singular in exact arithmetic."""
    n = A.shape[0]
    eps = np.finfo(np.float64).eps
    for k in range(n):
        col = 0.0
        for i in range(n):
            col = max(col, abs(A[i, k]))
        if abs(lu[k, k]) <= n * eps * col:
            return k
    return -1


class DenseFactors(DenseLU):
    """LAPACK ``getrf`` factors of a small dense matrix for the compiled kernels: the
    singularity test of :class:`~phmech.solvers._dense.DenseLU` compiled
    (:func:`small_pivot`), and the row-major copies ``lu_rm``, ``piv64`` the kernels take.

    Raises
    ------
    numpy.linalg.LinAlgError
        For a singular matrix.
    """

    def __init__(self, A):
        super().__init__(A)
        self.lu_rm = np.ascontiguousarray(self.lu)
        self.piv64 = self.piv.astype(np.int64)

    def _small_pivot(self, A):
        return small_pivot(A, self.lu)


class StageSolver:
    """``compiled_stages`` of a pure compiled residual (the protocol of
    :meth:`RadauIIA._stages_compiled <phmech.solvers.radau.RadauIIA._stages_compiled>`):
    the kernel's arguments at the three stage times, then one :func:`radau_stages` call;
    its ``f`` and ``jacobian`` attributes are the compiled right-hand side and dense
    Jacobian (when the system has one), which the solver then uses outside the stage
    iteration as well.

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

    def __call__(self, t, y, h, Z, scale, algebraic, Ep, Ei, Ed, lur, pivr, luc, pivc, C, T, TI,
                 gamma, alpha, beta, tol, maxiter):
        c = self.compiled
        a0 = c.kernel_args(t + C[0] * h)
        t1, t2 = t + C[1] * h, t + C[2] * h
        w = np.array([a0[_IW], c.dae.w(t1), c.dae.w(t2)], float)
        loads = a0[_IL]
        U = np.array([loads[-1], c.load_args(t1)[-1], c.load_args(t2)[-1]], float)
        # the kernel writes each stage's w and u into the tuple: arrays of this call, not the
        # (possibly cached) ones of kernel_args
        args = a0[:_IW] + (w[0].copy(),) + a0[_IW + 1:_IL] + (loads[:-1] + (U[0].copy(),),) + a0[_IL + 1:]
        return radau_stages(t, y, h, Z, scale, algebraic, Ep, Ei, Ed, lur, pivr, luc, pivc, C, T, TI,
                            gamma, alpha, beta, tol, maxiter, args, w, U)


def stage_solver(compiled):
    """A :class:`StageSolver` for the :class:`CompiledResidual` ``compiled``, or None when
    there is none (no numba) or it is not pure."""
    if compiled is None or not compiled.pure:
        return None
    return StageSolver(compiled)

"""Solves with SuperLU's factors in a compiled kernel.

SuperLU (:func:`scipy.sparse.linalg.splu`) factorizes the iteration matrices
of the large systems, ``P_r A P_c = L U``; a simplified Newton iteration then
solves with the same factors several times a step.  Each call of SuperLU's
own ``solve`` costs about 60-80 us of set-up at a thousand unknowns, several
times the work of the two triangular solves; :class:`SparseLU` keeps ``L``
and ``U`` as CSC arrays and solves by :func:`lu_solve_csc` (column-oriented
forward and back substitution, Golub & Van Loan, *Matrix Computations*,
sec. 3.1).
"""
import numpy as np

from ..kernels.jit import jit as _jit
from ._newton import factor_kind


@_jit
def lu_solve_csc(Lp, Li, Lx, Up, Ui, Ux, Ud, perm_r, perm_c, b, x):
    """``x = A^-1 b`` from ``P_r A P_c = L U`` (``L`` unit lower, ``U`` upper, both CSC with
    the diagonal of ``U`` in ``Ud``; ``P_r[perm_r[j], j] = 1``, ``P_c[i, perm_c[i]] = 1``)."""
    n = b.size
    y = np.empty(n)
    for j in range(n):
        y[perm_r[j]] = b[j]
    for j in range(n):                       # L y' = y, by columns
        yj = y[j]
        if yj != 0.0:
            for k in range(Lp[j], Lp[j + 1]):
                i = Li[k]
                if i > j:
                    y[i] -= Lx[k] * yj
    for j in range(n - 1, -1, -1):           # U z = y', by columns
        yj = y[j] / Ud[j]
        y[j] = yj
        if yj != 0.0:
            for k in range(Up[j], Up[j + 1]):
                i = Ui[k]
                if i < j:
                    y[i] -= Ux[k] * yj
    for i in range(n):
        x[i] = y[perm_c[i]]


@factor_kind(9)
def _superlu_solve(lu, r, dz):
    lu_solve_csc(lu[0], lu[1], lu[2], lu[3], lu[4], lu[5], lu[6], lu[7], lu[8], r, dz)


class SparseLU:
    """SuperLU's factors of a real matrix with a compiled :meth:`solve` of one right-hand side
    (other right-hand sides go to SuperLU's own solve); ``factors`` are the arrays of
    :func:`lu_solve_csc`, which the compiled Newton iterations take directly."""

    def __init__(self, lu):
        self.lu = lu
        L, U = lu.L, lu.U
        self.factors = (L.indptr.astype(np.int64), L.indices.astype(np.int64), L.data,
                         U.indptr.astype(np.int64), U.indices.astype(np.int64), U.data,
                         U.diagonal(), lu.perm_r.astype(np.int64), lu.perm_c.astype(np.int64))
        self.shape = lu.shape

    def solve(self, b):
        b = np.asarray(b)
        if b.ndim != 1 or b.dtype != np.float64:
            return self.lu.solve(b)
        b = np.ascontiguousarray(b)             # one compiled version
        x = np.empty(b.size)
        lu_solve_csc(*self.factors, b, x)
        return x

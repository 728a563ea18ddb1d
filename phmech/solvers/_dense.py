"""Dense LU factorizations for small iteration matrices (LAPACK getrf/getrs).

Below a few hundred unknowns LAPACK's dense factorization and solve beat a
sparse factorization's set-up cost; the solvers switch at
:data:`DENSE_MAX`.  The calls go to the LAPACK routines directly, without
the argument checks of :func:`scipy.linalg.lu_solve`, since a step solves
with the same factors many times.
"""
import numpy as np
import scipy.sparse as sp
from scipy.linalg import lapack

#: systems up to this size are factorized densely
DENSE_MAX = 300


class DenseLU:
    """``A = P L U`` of a dense real or complex matrix; :meth:`solve` as SuperLU's."""

    def __init__(self, A):
        A = A.toarray() if sp.issparse(A) else np.asarray(A)
        if np.iscomplexobj(A):
            getrf, self._getrs = lapack.zgetrf, lapack.zgetrs
        else:
            getrf, self._getrs = lapack.dgetrf, lapack.dgetrs
        self.lu, self.piv, info = getrf(A)
        if info != 0:
            raise np.linalg.LinAlgError(f"singular matrix (getrf info {info})")
        # a matrix singular in exact arithmetic may leave a pivot of rounding size instead of
        # zero: compare each pivot with its column of A (row pivoting keeps the columns)
        piv_abs = np.abs(np.diagonal(self.lu))
        col = np.abs(A).max(axis=0)
        small = piv_abs <= piv_abs.size * np.finfo(float).eps * col
        if np.any(small):
            k = int(np.flatnonzero(small)[0])
            raise np.linalg.LinAlgError(f"singular matrix (pivot {piv_abs[k]:.3g} of column {k} "
                                        f"against its largest entry {col[k]:.3g})")

    def solve(self, b):
        x, info = self._getrs(self.lu, self.piv, b)
        return x


def factorize(A):
    """A :class:`DenseLU` for small matrices, else SuperLU (``scipy.sparse.linalg.splu``)."""
    from scipy.sparse.linalg import splu
    if A.shape[0] <= DENSE_MAX:
        return DenseLU(A)
    return splu(sp.csc_matrix(A))

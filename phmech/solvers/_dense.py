"""Dense LU factorizations for small iteration matrices (LAPACK getrf/getrs).

Below a few hundred unknowns LAPACK's dense factorization and solve beat a
sparse factorization's set-up cost; the solvers switch at
:data:`~phmech.math.sizes.DENSE_MAX`.  The calls go to the LAPACK routines directly, without
the argument checks of :func:`scipy.linalg.lu_solve`, since a step solves
with the same factors many times.
"""
import numpy as np
import scipy.sparse as sp
from scipy.linalg import lapack

from ..math.sizes import DENSE_MAX
from ._newton import small_pivot


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
        k = self._small_pivot(A)
        if k >= 0:
            raise np.linalg.LinAlgError(f"singular matrix (pivot {abs(self.lu[k, k]):.3g} of column {k} "
                                        f"against its largest entry {np.abs(A[:, k]).max():.3g})")

    def _small_pivot(self, A):
        """The first column whose pivot is of rounding size against the column's largest entry,
        or -1 (:func:`~phmech.solvers._newton.small_pivot`)."""
        return int(small_pivot(np.abs(np.diagonal(self.lu)), np.abs(A).max(axis=0)))

    def solve(self, b):
        x, info = self._getrs(self.lu, self.piv, b)
        return x


def factorize(A):
    """A :class:`DenseLU` for small matrices, else SuperLU (``scipy.sparse.linalg.splu``)."""
    from scipy.sparse.linalg import splu
    if A.shape[0] <= DENSE_MAX:
        return DenseLU(A)
    return splu(sp.csc_matrix(A))


class BorderedLU:
    """LU of a sparse matrix with a few dense rows and columns, by block elimination.

    A floating-frame body couples its few frame variables to every
    flexible unknown, so the iteration matrix has dense rows and columns.
    SuperLU's threshold pivoting may then pull a dense row in early and
    fill the factor catastrophically (1e8 entries at 6e4 unknowns for one
    floating beam).  Here the border ``S`` (the dense rows and columns and
    the multipliers, which may be coupled to the border only) is split off:
    ``A11`` (sparse, no dense rows) is factorized by SuperLU, and the
    Schur complement ``A22 - A21 A11^-1 A12`` (``|S| x |S|``) densely.
    """

    def __init__(self, A, border):
        A = sp.csc_matrix(A)
        n = A.shape[0]
        self.S = S = np.asarray(border, int)
        self.R = R = np.setdiff1d(np.arange(n), S)
        Ar = A[R]
        self.lu = superlu(Ar[:, R])
        A12 = Ar[:, S].toarray()
        As = A[S]
        self.A21 = sp.csr_matrix(As[:, R])
        self.X = self.lu.solve(A12)
        self.schur = DenseLU(As[:, S].toarray() - self.A21 @ self.X)
        self.n = n

    def solve(self, b):
        b = np.asarray(b)
        z = self.lu.solve(np.ascontiguousarray(b[self.R]))
        x2 = self.schur.solve(b[self.S] - self.A21 @ z)
        x = np.empty(self.n, dtype=np.result_type(b, z))
        x[self.R] = z - self.X @ x2
        x[self.S] = x2
        return x


def dense_border(A, algebraic=(), max_border=200):
    """Indices of the dense rows and columns of ``A`` (more than ``max(64, 4 sqrt(n))``
    entries) together with ``algebraic`` ones, or an empty array when there are no
    dense rows or columns or the border would exceed ``max_border``."""
    A = sp.csc_matrix(A)
    n = A.shape[0]
    lim = max(64, int(4 * np.sqrt(n)))
    per_row = np.bincount(A.indices, minlength=n)        # stored entries of each row and column
    dense = np.flatnonzero((per_row > lim) | (np.diff(A.indptr) > lim))
    if not dense.size:
        return dense
    S = np.union1d(dense, np.asarray(algebraic, int))
    return S if S.size <= max_border else np.zeros(0, int)


def superlu(A):
    """SuperLU of the sparse ``A``; for a real ``A`` with the compiled solve of one right-hand
    side (:class:`~phmech.solvers._sparse_lu.SparseLU`)."""
    from scipy.sparse.linalg import splu
    A = sp.csc_matrix(A)
    lu = splu(A)
    if np.iscomplexobj(A.data):
        return lu
    from ._sparse_lu import SparseLU
    return SparseLU(lu)


def sparse_factor(A, algebraic=()):
    """SuperLU of ``A`` (:func:`superlu`), through :class:`BorderedLU` when ``A`` has a few
    dense rows/columns."""
    S = dense_border(A, algebraic)
    if S.size:
        try:
            return BorderedLU(A, S)
        except (RuntimeError, np.linalg.LinAlgError):
            pass                         # singular interior block: factorize the whole matrix
    return superlu(A)

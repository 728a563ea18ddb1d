"""The compiled solve with SuperLU's factors equals SuperLU's own solve to round-off."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from phmech.solvers._dense import superlu
from phmech.solvers._sparse_lu import SparseLU


def _chain_iteration_matrix(n_bars=20, h=1e-3):
    """The midpoint iteration matrix of a chain of spatial bars on spherical joints (quaternion
    rows, joint rows), at a perturbed state: nonsymmetric, with row and column pivoting."""
    from tests.mechanisms import spherical_chain
    s = spherical_chain(n_bars)
    d = s.assemble()
    y = d.initial_state() + 1e-2 * np.random.default_rng(0).standard_normal(d.n)
    nd = d.nq + d.ne
    return sp.csc_matrix(d.E / h - d.jacobian(0.0, y) @ sp.diags(np.r_[np.full(nd, 0.5), np.ones(d.nl)]))


@pytest.mark.parametrize("n_bars", [3, 20, 80])
def test_compiled_solve_equals_superlu(n_bars):
    A = _chain_iteration_matrix(n_bars)
    ref = splu(A)
    lu = superlu(A)
    assert isinstance(lu, SparseLU)
    rng = np.random.default_rng(n_bars)
    cond = np.linalg.cond(A.toarray()) if A.shape[0] <= 400 else 1e8
    for _ in range(3):
        b = rng.standard_normal(A.shape[0])
        x, x_ref = lu.solve(b), ref.solve(b)
        # the same factors, substitutions in another order: round-off amplified by the condition
        assert np.max(np.abs(x - x_ref)) <= 1e3 * np.finfo(float).eps * cond * np.max(np.abs(x_ref))
        assert np.linalg.norm(A @ x - b) <= 1e-9 * np.linalg.norm(b) * max(1.0, np.abs(A).max())
    # a strided right-hand side, and several at once (SuperLU's own solve)
    B = rng.standard_normal((A.shape[0], 2))
    assert np.allclose(lu.solve(B[:, 1]), ref.solve(np.ascontiguousarray(B[:, 1])), rtol=1e-9, atol=1e-12)
    assert np.array_equal(lu.solve(B), ref.solve(B))


def test_complex_matrices_keep_superlu():
    A = sp.csc_matrix(np.array([[2.0 + 1j, 1.0], [0.5, 3.0 - 2j]]))
    lu = superlu(A)
    assert not isinstance(lu, SparseLU)
    b = np.array([1.0 + 0j, 2.0])
    assert np.allclose(A @ lu.solve(b), b)


@pytest.mark.parametrize("n_bars", [3, 8])
@pytest.mark.parametrize("factor", ["getrf", "eliminate"])
def test_midpoint_dense_factors_equal_lapack(n_bars, factor):
    """The midpoint step's LU (:func:`~phmech.solvers.midpoint_kernels.getrf`: its own
    elimination, which skips the updates by zeros, up to ``ELIMINATION_MAX`` unknowns, LAPACK
    above; ``eliminate`` at both sizes) takes LAPACK's pivots and gives its factors to
    round-off; the solve over the factors' nonzeros solves the system."""
    import scipy.linalg as sl
    from phmech.solvers import midpoint_kernels as mk
    A = _chain_iteration_matrix(n_bars).toarray()
    n = A.shape[0]
    assert (n <= mk.ELIMINATION_MAX) == (n_bars == 3)
    lu = mk.TransposedLU(n)
    lu.F[:] = A.T
    assert getattr(mk, factor)(lu.F, lu.ipiv) == 0
    mk.factor_pattern(lu.F, lu.nz)
    ref, piv = sl.lu_factor(A)
    assert np.array_equal(lu.ipiv - 1, piv)
    cond = np.linalg.cond(A)
    assert np.max(np.abs(lu.F.T - ref)) <= 1e3 * np.finfo(float).eps * cond * np.max(np.abs(ref))
    # the pattern lists exactly the nonzeros of L below and U above the diagonal
    stored = lu.nz[2 * n + 1] - (2 * n + 2)
    assert stored == np.count_nonzero(lu.F.T - np.diag(np.diag(lu.F.T)))
    assert stored < 0.5 * n * n                  # the matrices of mechanisms keep sparse factors
    rng = np.random.default_rng(n_bars)
    for _ in range(3):
        b = rng.standard_normal(n)
        x = lu.solve(b)
        assert np.linalg.norm(A @ x - b) <= 1e-12 * cond * np.linalg.norm(b)
        assert np.max(np.abs(x - sl.lu_solve((ref, piv), b))) <= 1e3 * np.finfo(float).eps * cond * np.max(np.abs(x))


def test_midpoint_dense_factors_report_the_zero_pivot():
    """A matrix with a zero column: the column of the first zero pivot (1-based), as LAPACK's info."""
    from phmech.solvers.midpoint_kernels import TransposedLU, eliminate
    A = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 1.0, 0.0]])
    lu = TransposedLU(3)
    lu.F[:] = A.T
    assert eliminate(lu.F, lu.ipiv) == 3


def test_midpoint_solve_over_full_factors():
    """Factors with most entries stored (a dense random matrix): the solve runs over whole
    columns and still solves the system."""
    from phmech.solvers import midpoint_kernels as mk
    rng = np.random.default_rng(5)
    n = 40
    A = rng.standard_normal((n, n)) + n * np.eye(n)
    lu = mk.TransposedLU(n)
    lu.F[:] = A.T
    assert mk.getrf(lu.F, lu.ipiv) == 0
    mk.factor_pattern(lu.F, lu.nz)
    assert lu.nz[2 * n + 1] - (2 * n + 2) > mk.DENSE_FILL * n * n
    b = rng.standard_normal(n)
    x, ref = lu.solve(b), np.linalg.solve(A, b)
    assert np.max(np.abs(x - ref)) <= 1e3 * np.finfo(float).eps * np.linalg.cond(A) * np.max(np.abs(ref))

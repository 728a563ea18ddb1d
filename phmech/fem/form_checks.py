"""The checks of a form body's matrices: a port-Hamiltonian system to round-off.

``M`` symmetric positive definite, ``J`` skew, ``R`` symmetric positive semidefinite; every
defect is a sentence naming the form and its size, raised together as one :class:`FormError`.
"""
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

#: largest size of a dense positive-definiteness check (above it: the lowest eigenvalue by ARPACK)
DENSE_CHECK_MAX = 3000


class FormError(ValueError):
    """A form of a :class:`FormBody` does not define a port-Hamiltonian system (all defects listed)."""


def _symmetric_defect(A):
    A = sp.csr_matrix(A)
    scale = abs(A).max() if A.nnz else 0.0
    return (abs(A - A.T).max() / scale) if scale > 0 else 0.0


#: largest connected block of a matrix checked by a dense eigen solve in a batch of its kind
SMALL_BLOCK = 64


def _blocks(A):
    """The connected blocks of the symmetric ``A`` (its unknowns that couple, directly or not), as
    a list of index arrays (scipy's connected components of the sparsity graph)."""
    from scipy.sparse.csgraph import connected_components
    n, labels = connected_components(A, directed=False)
    order = np.argsort(labels, kind="stable")
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    return np.split(order, cuts)


def _lowest_of_block(A):
    """``(lowest, largest magnitude)`` eigenvalue of one connected symmetric block: dense up to
    :data:`DENSE_CHECK_MAX`, else ARPACK, the lowest end by shift-and-invert (a factorization: a
    Lanczos iteration without it can stop short of a small eigenvalue of an ill-conditioned block)."""
    n = A.shape[0]
    if n <= DENSE_CHECK_MAX:
        w = np.linalg.eigvalsh(A.toarray())
        return float(w[0]), float(np.max(np.abs(w)))
    top = float(abs(spla.eigsh(A, k=1, which="LM", return_eigenvectors=False)[0]))
    low = float(spla.eigsh(A, k=1, sigma=-1e-3 * top, which="LM", return_eigenvectors=False)[0])
    return low, top


def _lowest_eigenvalue(A, jacobi=False):
    """Lowest eigenvalue of the symmetric ``A`` and the largest magnitude; ``jacobi``: of
    ``D^-1/2 A D^-1/2``, ``D`` the diagonal (independent of the units of each unknown: a solid's
    compliance is 1e-15 of its mass), a non-positive diagonal entry being returned as the lowest
    eigenvalue.  Block by block (:func:`_blocks`): the small blocks (a discontinuous field's cells)
    by dense solves in batches of equal size, the large ones by :func:`_lowest_of_block`."""
    A = sp.csr_matrix(0.5 * (A + A.T))
    if jacobi:
        d = A.diagonal()
        if np.any(d <= 0):
            return float(d.min()), float(max(np.abs(d).max(), 1e-300))
        s = sp.diags(1.0 / np.sqrt(d))
        A = sp.csr_matrix(s @ A @ s)
    if A.shape[0] <= DENSE_CHECK_MAX:
        return _lowest_of_block(A)
    low, top = np.inf, 0.0
    small = {}
    for idx in _blocks(A):
        if len(idx) <= SMALL_BLOCK:
            small.setdefault(len(idx), []).append(idx)
        else:
            lo, hi = _lowest_of_block(sp.csr_matrix(A[idx][:, idx]))
            low, top = min(low, lo), max(top, hi)
    for size, groups in small.items():
        idx = np.array(groups)                                   # (n_blocks, size)
        rows = np.repeat(idx, size, axis=1).ravel()
        cols = np.tile(idx, (1, size)).ravel()
        w = np.linalg.eigvalsh(np.asarray(A[rows, cols]).reshape(len(groups), size, size))
        low, top = min(low, float(w[:, 0].min())), max(top, float(np.abs(w).max()))
    return low, top


def check_pH(name, M, J, R=None, tol=1e-10, definite=True):
    """Problems of ``(M, J, R)`` as a list of sentences (empty: a pH system to ``tol``); ``definite=False``
    leaves out the definiteness of ``M`` (its symmetry is checked)."""
    out = []
    d = _symmetric_defect(M)
    if d > tol:
        out.append(f"body '{name}': the energy metric m is not symmetric (relative defect {d:.2e})")
    low, top = _lowest_eigenvalue(M, jacobi=True) if definite else (1.0, 1.0)
    if low <= tol * top:
        out.append(f"body '{name}': the energy metric m is not positive definite (lowest eigenvalue "
                   f"{low:.3e} of {top:.3e}: a field without energy, or a boundary condition missing)")
    J = sp.csr_matrix(J)
    scale = abs(J).max() if J.nnz else 0.0
    d = abs(J + J.T).max() / scale if scale > 0 else 0.0
    if d > tol:
        out.append(f"body '{name}': the structure form j is not skew-symmetric (relative defect {d:.2e})")
    if R is not None and sp.csr_matrix(R).nnz:
        d = _symmetric_defect(R)
        if d > tol:
            out.append(f"body '{name}': the dissipation form r is not symmetric (relative defect {d:.2e})")
        low, top = _lowest_eigenvalue(R)
        if low < -tol * top:
            out.append(f"body '{name}': the dissipation form r is not positive semidefinite (lowest "
                       f"eigenvalue {low:.3e} of {top:.3e})")
    return out

"""The modal assurance criterion and the tracking of modes from one parameter value to the next.

``MAC(a, b) = |a^H W b|^2 / ((a^H W a) (b^H W b))`` in the metric ``W`` (the mass
matrix for velocity modes: the shapes' kinetic-energy inner product); 1 for the same
shape, 0 for ``W``-orthogonal ones (Allemang & Brown, 1982).  Along a sweep, each new
mode is matched to a previous one by the largest MAC first (greedy), so a mode keeps its
column where frequencies cross or veer.
"""
import numpy as np


def mac_matrix(A, B, W=None):
    """``MAC[i, j]`` between the columns ``A[:, i]`` and ``B[:, j]`` in the metric ``W``
    (a matrix or sparse matrix; None: the identity)."""
    A = np.asarray(A)
    B = np.asarray(B)
    WB = B if W is None else W @ B
    WA = A if W is None else W @ A
    num = np.abs(np.conj(A).T @ WB) ** 2
    na = np.abs(np.einsum("ij,ij->j", np.conj(A), WA))
    nb = np.abs(np.einsum("ij,ij->j", np.conj(B), WB))
    return num / np.maximum(np.outer(na, nb), 1e-300)


def match(prev, new, W=None):
    """Match the modes ``new`` (columns) to the modes ``prev`` (columns) by the MAC.

    Returns
    -------
    pick : list of int or None
        ``pick[a]``: the column of ``new`` that continues mode ``a`` of ``prev`` (None
        when ``new`` has fewer columns).
    value : ndarray
        The MAC of each match (0 where none).
    """
    M = mac_matrix(prev, new, W)
    pick, value = [None] * M.shape[0], np.zeros(M.shape[0])
    used_a, used_b = set(), set()
    for flat in np.argsort(-M, axis=None, kind="stable"):
        a, b = divmod(int(flat), M.shape[1])
        if a not in used_a and b not in used_b:
            pick[a], value[a] = b, M[a, b]
            used_a.add(a)
            used_b.add(b)
            if len(used_a) == min(M.shape):
                break
    return pick, value

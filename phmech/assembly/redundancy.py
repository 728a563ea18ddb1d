"""Independent rows of the constraint matrix, in time and memory linear in a tree's size.

The rows of ``G`` are tested in order (joints as added, rows within a
joint): a row is *redundant* when its component normal to the rows kept
before it is below :data:`REDUNDANCY_TOL` of its norm.  Done densely on the
whole matrix this costs ``O(nl^2 ne)``; here the structure of the mechanism
makes it linear for open chains and trees and confines the dense work to the
closed loops:

1. *Leaf elimination.*  A body touched by exactly one of the remaining
   joints, on whose columns that joint's rows have full row rank (smallest
   singular value above :data:`LEAF_MARGIN` of the rows' norm), makes the
   joint's rows independent of every other row: a combination of rows that
   vanishes vanishes on the body's columns, where only the joint's rows
   live, so the joint's part is zero.  Such a joint is kept and removed,
   together with the body, and the decisions on the other rows are those
   without it.  An open chain or a tree of bodies is removed completely.
2. *Loops.*  The rows left split into the connected components of the
   row-column graph; rows of different components have disjoint supports, so
   a row depends only on the rows of its own component.  Each component is
   swept in order by classical Gram-Schmidt with one re-orthogonalization
   (blocks of rows projected at once), on the component's columns only.

The result is the one of the sweep over the whole matrix: the leaf margin is
a thousand times the redundancy tolerance, and ``tests/kernels/test_setup_scaling.py``
compares both on closed loops, duplicated joints, spatial four-bars and
random sparse matrices.
"""
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

#: relative size of a row's new component below which it counts as redundant
REDUNDANCY_TOL = 1e-9
#: a joint is eliminated at a leaf body when the smallest singular value of its rows on that
#: body's columns is above this fraction of its largest row norm (1000 x REDUNDANCY_TOL)
LEAF_MARGIN = 1e-6
#: rows projected together in the sweep of a loop component
_BLOCK = 32


class Independence:
    """Outcome of :func:`independent_rows`.

    Attributes
    ----------
    active : bool array (nl,)
        The kept rows.
    zero_rows : int array
        Rows without any nonzero entry (neither kept nor redundant).
    loops : list of (rows, cols)
        The components swept densely (row and column indices, rows ascending).
    """

    def __init__(self, active, zero_rows, loops):
        self.active, self.zero_rows, self.loops = active, zero_rows, loops


def _sweep(A, tol):
    """In-order sweep of the rows of the dense ``A``: mask of the kept rows."""
    m, n = A.shape
    keep = np.zeros(m, bool)
    Q = np.empty((min(m, n), n))
    k = 0
    for i0 in range(0, m, _BLOCK):
        B = A[i0:i0 + _BLOCK].copy()
        norms = np.linalg.norm(B, axis=1)
        if k:
            for _ in range(2):
                B -= (B @ Q[:k].T) @ Q[:k]
        k0 = k
        for t in range(B.shape[0]):
            r = B[t]
            if k > k0:
                for _ in range(2):
                    r -= (Q[k0:k] @ r) @ Q[k0:k]
            nr = np.linalg.norm(r)
            if norms[t] > 0 and nr > tol * norms[t] and k < Q.shape[0]:
                Q[k] = r / nr
                k += 1
                keep[i0 + t] = True
    return keep


def independent_rows(G, row_groups, col_groups, tol=REDUNDANCY_TOL):
    """The rows of ``G`` kept by the in-order sweep (see the module notes).

    Parameters
    ----------
    G : array or sparse matrix, shape (nl, ne)
    row_groups : int array (nl,)
        The joint of each row; a joint's rows are consecutive.
    col_groups : int array (ne,)
        The body of each column.
    tol : float
        :data:`REDUNDANCY_TOL`.

    Returns
    -------
    :class:`Independence`
    """
    G = sp.csr_matrix(G, copy=True)
    G.eliminate_zeros()
    nl, ne = G.shape
    row_groups = np.asarray(row_groups, int)
    col_groups = np.asarray(col_groups, int)
    active = np.zeros(nl, bool)
    nnz_row = np.diff(G.indptr)
    zero_rows = np.flatnonzero(nnz_row == 0)
    if nl == 0:
        return Independence(active, zero_rows, [])
    nj = int(row_groups.max()) + 1
    nb = int(col_groups.max()) + 1 if ne else 0
    # local column index of every column within its body
    order = np.argsort(col_groups, kind="stable")
    starts = np.searchsorted(col_groups[order], np.arange(nb + 1))
    col_local = np.empty(ne, int)
    col_local[order] = np.arange(ne) - np.repeat(starts[:-1], np.diff(starts))
    body_width = np.diff(starts)
    # rows of each joint (consecutive); the (joint, body) blocks of the entries
    jrow = np.searchsorted(row_groups, np.arange(nj + 1))
    ent_row = np.repeat(np.arange(nl), nnz_row)
    ent_body = col_groups[G.indices]
    nbm = max(nb, 1)
    pairs, ent_pair = np.unique(row_groups[ent_row] * nbm + ent_body, return_inverse=True)
    pj, pb = pairs // nbm, pairs % nbm
    joint_bodies = np.split(pb, np.searchsorted(pj, np.arange(1, nj)))
    o = np.argsort(pb, kind="stable")
    body_joints = np.split(pj[o], np.searchsorted(pb[o], np.arange(1, nb)))
    degree = np.array([len(x) for x in body_joints], int)
    row_norm = np.sqrt(np.bincount(ent_row, G.data ** 2, minlength=nl))
    joint_norm = np.zeros(nj)
    np.maximum.at(joint_norm, row_groups, row_norm)
    has_zero_row = np.zeros(nj, bool)
    has_zero_row[row_groups[zero_rows]] = True
    # which blocks have full row rank on their body, all blocks of a shape in one batched SVD
    m_p, w_p = jrow[pj + 1] - jrow[pj], body_width[pb]
    full_rank = np.zeros(len(pairs), bool)
    for m, w in set(zip(m_p.tolist(), w_p.tolist())):
        sel = np.flatnonzero((m_p == m) & (w_p == w) & ~has_zero_row[pj])
        if m > w or not len(sel):
            continue
        slot = np.full(len(pairs), -1)
        slot[sel] = np.arange(len(sel))
        es = slot[ent_pair]
        e = es >= 0
        B = np.zeros((len(sel), m, w))
        B[es[e], ent_row[e] - jrow[row_groups[ent_row[e]]], col_local[G.indices[e]]] = G.data[e]
        full_rank[sel] = np.linalg.svd(B, compute_uv=False)[:, -1] > LEAF_MARGIN * joint_norm[pj[sel]]
    removed = np.zeros(nj, bool)

    def peelable(j, b):
        return full_rank[np.searchsorted(pairs, j * nbm + b)]

    stack = list(np.flatnonzero(degree == 1))
    while stack:
        b = stack.pop()
        if degree[b] != 1:
            continue
        j = next(int(x) for x in body_joints[b] if not removed[x])
        if not peelable(j, b):
            continue
        removed[j] = True
        active[jrow[j]:jrow[j + 1]] = True
        for c in joint_bodies[j]:
            degree[c] -= 1
            if degree[c] == 1:
                stack.append(c)
    # the loops: components of the remaining rows and their columns
    left = np.flatnonzero(~removed[row_groups] & (nnz_row > 0))
    loops = []
    if len(left):
        Gl = G[left]
        used = np.unique(Gl.indices)
        Gl = Gl[:, used]
        m = len(left)
        adj = sp.bmat([[None, Gl], [Gl.T, None]], format="csr")
        _, label = connected_components(adj, directed=False)
        rl, cl = label[:m], label[m:]
        ro, co = np.argsort(rl, kind="stable"), np.argsort(cl, kind="stable")
        comps = np.unique(rl)
        rs = np.split(ro, np.searchsorted(rl[ro], comps[1:]))
        cs = np.split(co, np.searchsorted(cl[co], comps[1:]))
        for r, c in zip(rs, cs):
            rows, cols = left[r], used[c]
            active[rows] = _sweep(Gl[r][:, c].toarray(), tol)
            loops.append((rows, cols))
    return Independence(active, zero_rows, loops)

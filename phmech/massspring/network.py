"""Forces, constraints and their exact Jacobians of a mass-spring network.

The spring, chain and dashpot forces and their Jacobians are the kernels of
:mod:`phmech.massspring.kernels` (:class:`ElementSet`: a set of pair
elements with its fixed sparse pattern); the distance constraints are
evaluated at once with numpy.  Jacobians are scattered into a fixed sparse
pattern computed once (:class:`Scatter`).  Nodes are the free masses (indices
``0..nm-1``, unknowns ``q = x.ravel()``) followed by the fixed points.

For a pair element between nodes ``i`` and ``j`` with ``d = x_j - x_i``,
``L = |d|``, ``n = d / L`` and ``P = I - n n^T``:

* spring (rest length ``L0``, stiffness ``k``): tension ``T = k (L - L0)``
  (``0`` for a slack chain), force ``+T n`` on ``i`` and ``-T n`` on ``j``;
  tangent ``K = k n n^T + (T / L) P`` (material and geometric stiffness);
* dashpot ``c``: ``u = n . (v_j - v_i)``, force ``+c u n`` on ``i``;
  ``d(c u n)/dd = (c / L) (u P + n (v_j - v_i)^T P)``, ``d/d(v_j - v_i) = c n n^T``;
* distance constraint ``g = L - L0``: ``G`` rows ``(-n^T, +n^T)``; the
  Hessian ``d^2 g / dd^2 = P / L`` gives the curvature terms
  ``d(G^T w)/dq``, ``d(G v)/dq`` and ``(G v)' - G q'' = (v_j - v_i)^T P (v_j - v_i) / L``.

A force depending on ``d`` enters the node blocks with the signs
``(i,i): -B, (i,j): +B, (j,i): +B, (j,j): -B``; the constraint Hessian
with ``(+, -, -, +)``.
"""
import numpy as np
import scipy.sparse as sp

from ..bodies.picture import Part, pad3
from . import kernels as kn


class Scatter:
    """Sum of small dense blocks into a fixed CSR pattern.

    Built once from the row and column indices of every block entry;
    :meth:`matrix` then turns the entry values into the CSR matrix with one
    ``bincount`` (duplicates summed).
    """

    def __init__(self, rows, cols, shape):
        rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
        self.shape = shape
        key = rows * shape[1] + cols
        uniq, self.pos = np.unique(key, return_inverse=True)
        r, c = uniq // shape[1], uniq % shape[1]
        self.indptr = np.r_[0, np.cumsum(np.bincount(r, minlength=shape[0]))].astype(np.int64)
        self.indices = c
        self.nnz = len(uniq)

    def matrix(self, values):
        data = np.bincount(self.pos, weights=values, minlength=self.nnz) if len(self.pos) else np.zeros(0)
        return sp.csr_matrix((data, self.indices, self.indptr), shape=self.shape)


def _pair_geometry(X, i, j):
    d = X[j] - X[i]
    L = np.linalg.norm(d, axis=1)
    n = d / L[:, None]
    return d, L, n


def _block_pattern(i, j, nm, dim, signs, rows_of=None):
    """Index arrays and signs of the four ``dim x dim`` node blocks of pair elements, free nodes only."""
    r_out, c_out, s_out, e_out = [], [], [], []
    a, b = np.meshgrid(np.arange(dim), np.arange(dim), indexing="ij")
    for (p, q), s in zip([(i, i), (i, j), (j, i), (j, j)], signs):
        keep = (p < nm) & (q < nm)
        k = np.flatnonzero(keep)
        r_out.append((p[k, None, None] * dim + a).ravel())
        c_out.append((q[k, None, None] * dim + b).ravel())
        s_out.append(np.full(len(k) * dim * dim, float(s)))
        e_out.append(np.repeat(k, dim * dim) * dim * dim + np.tile(np.arange(dim * dim), len(k)))
    return (np.concatenate(r_out), np.concatenate(c_out), np.concatenate(s_out), np.concatenate(e_out))


class ElementSet:
    """Pair elements packed for the kernels of :mod:`phmech.massspring.kernels`, with the fixed
    sparse patterns of their Jacobians.

    Parameters
    ----------
    I, F : arrays
        The packed elements (:func:`~phmech.massspring.kernels.element_arrays`), indices into
        the vectors ``q`` (positions) and ``v`` (velocities, also the rows of the force).
    n : int
        Length of ``q`` and ``v``.
    """

    def __init__(self, I, F, n):
        self.I, self.F, self.n = I, F, n
        self.m = len(I)
        rows, qcols, vcols, entry, sign = [], [], [], [], []
        ab = np.arange(9)
        for p, pe in enumerate((kn.AE, kn.BE)):
            for m, (mq, me) in enumerate(((kn.AQ, kn.AE), (kn.BQ, kn.BE))):
                for a in range(3):
                    for b in range(3):
                        keep = (I[:, pe] >= 0) & (I[:, mq] >= 0) & (a < I[:, kn.DIM]) & (b < I[:, kn.DIM])
                        s = np.flatnonzero(keep)
                        rows.append(I[s, pe] + a)
                        qcols.append(I[s, mq] + b)
                        vcols.append(I[s, me] + b)
                        entry.append(9 * s + ab[3 * a + b])
                        sign.append(np.full(len(s), -1.0 if p == m else 1.0))
        cat = np.concatenate
        self._entry, self._sign = cat(entry).astype(np.int64), cat(sign)
        rows = cat(rows)
        self._q = Scatter(rows, cat(qcols), (n, n))
        self._v = Scatter(rows, cat(vcols), (n, n))
        self._B = np.empty((self.m, 2, 3, 3))

    def state(self, q, v):
        """Per element ``(L, n (3), T, k_active, u)`` (:func:`~phmech.massspring.kernels.network_state`)."""
        S = np.empty((self.m, 7))
        kn.network_state(np.asarray(q, float), np.asarray(v, float), self.I, self.F, S)
        return S

    def force(self, q, v, out=None):
        """The elements' forces (added to ``out`` when given)."""
        out = np.zeros(self.n) if out is None else out
        if self.m:
            kn.elements_force_add(np.asarray(q, float), np.asarray(v, float), self.I, self.F, out)
        return out

    def jacobians(self, q, v):
        """Exact ``(df/dq, df/dv)`` of :meth:`force` (sparse CSR ``n x n``)."""
        kn.elements_blocks(np.asarray(q, float), np.asarray(v, float), self.I, self.F, self._B)
        return self._matrix(self._q, 0), self._matrix(self._v, 1)

    def _matrix(self, pattern, which):
        data = np.empty(pattern.nnz)
        kn.scatter_blocks(self._B, which, self._entry, self._sign, pattern.pos, data)
        return sp.csr_matrix((data, pattern.indices, pattern.indptr), shape=pattern.shape)


class PairSet:
    """Elements of one kind between node pairs ``(i, j)``; the block pattern of their Jacobians
    is built at the first :meth:`assemble`."""

    def __init__(self, i, j, nm, dim, signs):
        self.i, self.j = np.asarray(i, np.int64), np.asarray(j, np.int64)
        self.m = len(self.i)
        self.nm, self.dim, self.signs = nm, dim, signs
        self.scatter = None

    def assemble(self, B):
        """Sparse ``nq x nq`` matrix from the per-element blocks ``B`` (shape ``(m, dim, dim)``)."""
        if self.scatter is None:
            nq = self.nm * self.dim
            r, c, self.sign, self.entry = _block_pattern(self.i, self.j, self.nm, self.dim, self.signs)
            self.scatter = Scatter(r, c, (nq, nq))
        return self.scatter.matrix(self.sign * B.reshape(-1)[self.entry])


class Network:
    """The assembled network: node arrays, the force elements and the distance constraints.

    Parameters
    ----------
    dim : int
    masses : array (nm,)
    fixed : array (nf, dim)
        Positions of the fixed points.
    springs : (i, j, L0, k, tension_only) arrays
    dashpots : (i, j, c) arrays
    constraints : (i, j, L0) arrays
        Node indices are global (masses first, then fixes).

    Springs, chains and dashpots are one :class:`ElementSet` (springs first), evaluated by the
    kernels of :mod:`phmech.massspring.kernels`.
    """

    def __init__(self, dim, masses, fixed, springs, dashpots, constraints):
        self.dim = dim
        self.m = np.asarray(masses, float)
        self.nm = len(self.m)
        self.nq = self.nm * dim
        self.fixed = np.asarray(fixed, float).reshape(-1, dim)
        si, sj, self.L0, self.k, self.tension_only = springs
        self.springs = PairSet(si, sj, self.nm, dim, (-1, 1, 1, -1))
        di, dj, self.c = dashpots
        self.dashpots = PairSet(di, dj, self.nm, dim, (-1, 1, 1, -1))
        ns, nd = self.springs.m, self.dashpots.m
        self.spring_elements = self.elements(np.arange(ns))
        self.dashpot_elements = self.elements(ns + np.arange(nd))
        self.all_elements = self.elements(np.arange(ns + nd))
        ci, cj, self.Lc = constraints
        self.cons = PairSet(ci, cj, self.nm, dim, (1, -1, -1, 1))
        self.nl = self.cons.m
        # G pattern: row r, columns of node i (sign -) and j (sign +), free nodes only
        rows, cols, sign, ent = [], [], [], []
        r = np.arange(self.nl)
        for node, s in ((self.cons.i, -1.0), (self.cons.j, 1.0)):
            k = np.flatnonzero(node < self.nm)
            rows.append(np.repeat(r[k], dim))
            cols.append((node[k, None] * dim + np.arange(dim)).ravel())
            sign.append(np.full(len(k) * dim, s))
            ent.append((k[:, None] * dim + np.arange(dim)).ravel())
        self._G_sign, self._G_entry = np.concatenate(sign), np.concatenate(ent)
        self._G_scatter = Scatter(np.concatenate(rows), np.concatenate(cols), (self.nl, self.nq))
        self._G_empty = np.zeros((0, self.nq))        # no constraints: a plain array (cheap products)

    def element_arrays(self, which, offset=0):
        """Packed ``(I, F)`` of the springs and dashpots ``which`` (indices into springs then
        dashpots); node ``k`` of the masses at ``offset + k dim`` in ``q`` and ``v``."""
        d, nm, nd = self.dim, self.nm, self.dashpots.m
        which = np.asarray(which, np.int64)
        i = np.r_[self.springs.i, self.dashpots.i][which]
        j = np.r_[self.springs.j, self.dashpots.j][which]
        iq = np.where(i < nm, offset + i * d, -1)
        jq = np.where(j < nm, offset + j * d, -1)
        fx = np.vstack([np.zeros((nm, d)), self.fixed])
        return kn.element_arrays(iq, iq, jq, jq, d, np.r_[self.tension_only, np.zeros(nd, bool)][which],
                                 np.r_[self.L0, np.zeros(nd)][which], np.r_[self.k, np.zeros(nd)][which],
                                 np.r_[np.zeros(self.springs.m), self.c][which], fx[i], fx[j])

    def elements(self, which):
        """An :class:`ElementSet` of the springs and dashpots ``which`` on the vector ``q``."""
        return ElementSet(*self.element_arrays(which), self.nq)

    # -- node arrays -----------------------------------------------------------
    def nodes(self, q):
        return np.vstack([np.asarray(q, float).reshape(self.nm, self.dim), self.fixed])

    def node_velocities(self, v):
        return np.vstack([np.asarray(v, float).reshape(self.nm, self.dim), np.zeros_like(self.fixed)])

    def part(self, name, q, v, x0):
        """The picture of the network: its springs, dashpots and constraints as lines, the masses
        as vertices; ``displacement`` is the motion since the nodes ``x0``."""
        edges = [np.column_stack([ps.i, ps.j]) for ps in (self.springs, self.dashpots, self.cons) if ps.m]
        lines = np.vstack(edges).astype(np.int64) if edges else np.zeros((0, 2), np.int64)
        pts = pad3(self.nodes(q))
        return Part(name, "network", pts, [("line", lines), ("vertex", np.arange(self.nm)[:, None])],
                    {"velocity": pad3(self.node_velocities(v)), "displacement": pts - x0})

    # -- springs and dashpots --------------------------------------------------
    def spring_state(self, q):
        """``(L, n, T, k_active)``: length, direction, tension and active stiffness of every spring."""
        S = self.spring_elements.state(q, np.zeros(self.nq))
        return S[:, 0], S[:, 1:1 + self.dim], S[:, 4], S[:, 5]

    def spring_energy(self, q):
        S = self.spring_elements.state(q, np.zeros(self.nq))
        return 0.5 * float(np.sum(S[:, 5] * (S[:, 0] - self.L0) ** 2))

    def internal_force(self, q, v):
        """Spring and dashpot forces on the free masses, shape ``(nq,)``."""
        return self.all_elements.force(q, v)

    def internal_jacobians(self, q, v):
        """Exact ``(df/dq, df/dv)`` of :meth:`internal_force` (sparse ``nq x nq``)."""
        return self.all_elements.jacobians(q, v)

    def dashpot_dissipation(self, q, v):
        """Power dissipated in the dashpots, ``sum c u^2`` [W]."""
        if not self.dashpots.m:
            return 0.0
        u = self.dashpot_elements.state(q, v)[:, 6]
        return float(np.sum(self.c * u ** 2))

    # -- constraints ----------------------------------------------------------
    def _cons_geometry(self, q):
        return _pair_geometry(self.nodes(q), self.cons.i, self.cons.j)

    def g(self, q):
        if not self.nl:
            return np.zeros(0)
        d, L, n = self._cons_geometry(q)
        return L - self.Lc

    def G(self, q):
        if not self.nl:
            return self._G_empty
        d, L, n = self._cons_geometry(q)
        return self._G_scatter.matrix(self._G_sign * n.reshape(-1)[self._G_entry])

    def constraint_hessian(self, q, w):
        """``d(G(q)^T w)/dq = sum_r w_r d^2 g_r/dq^2`` (sparse, symmetric)."""
        if not self.nl:
            return sp.csr_matrix((self.nq, self.nq))
        d, L, n = self._cons_geometry(q)
        P = np.eye(self.dim) - n[:, :, None] * n[:, None, :]
        return self.cons.assemble((np.asarray(w, float) / L)[:, None, None] * P)

    def _rel_velocity(self, v):
        V = self.node_velocities(v)
        return V[self.cons.j] - V[self.cons.i]

    def constraint_velocity_jacobian(self, q, v):
        """``d(G(q) v)/dq`` at fixed ``v`` (sparse ``nl x nq``)."""
        if not self.nl:
            return sp.csr_matrix((0, self.nq))
        d, L, n = self._cons_geometry(q)
        dv = self._rel_velocity(v)
        row = (dv - np.einsum("ij,ij->i", dv, n)[:, None] * n) / L[:, None]     # dv^T P / L
        return self._G_scatter.matrix(self._G_sign * row.reshape(-1)[self._G_entry])

    def constraint_curvature(self, q, v):
        """``(G v)' - G q''``: ``(v_j - v_i)^T P (v_j - v_i) / L`` per constraint."""
        if not self.nl:
            return np.zeros(0)
        d, L, n = self._cons_geometry(q)
        dv = self._rel_velocity(v)
        u = np.einsum("ij,ij->i", dv, n)
        return (np.einsum("ij,ij->i", dv, dv) - u ** 2) / L

"""Vectorized forces, constraints and their exact Jacobians of a mass-spring network.

All elements of one kind are evaluated at once with numpy (no Python loop
over springs); the Jacobians are scattered into a fixed sparse pattern
computed once (:class:`Scatter`).  Nodes are the free masses (indices
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


class PairSet:
    """Elements of one kind between node pairs ``(i, j)``, with their block pattern."""

    def __init__(self, i, j, nm, dim, signs):
        self.i, self.j = np.asarray(i, np.int64), np.asarray(j, np.int64)
        self.m = len(self.i)
        nq = nm * dim
        r, c, self.sign, self.entry = _block_pattern(self.i, self.j, nm, dim, signs)
        self.scatter = Scatter(r, c, (nq, nq))
        self.nm, self.dim = nm, dim

    def assemble(self, B):
        """Sparse ``nq x nq`` matrix from the per-element blocks ``B`` (shape ``(m, dim, dim)``)."""
        return self.scatter.matrix(self.sign * B.reshape(-1)[self.entry])

    def scatter_force(self, F, nq):
        """Nodal vector from the force ``+F`` on ``i`` and ``-F`` on ``j`` (free nodes only)."""
        out = np.zeros((self.nm + 1, self.dim))
        np.add.at(out, np.minimum(self.i, self.nm), F)
        np.add.at(out, np.minimum(self.j, self.nm), -F)
        return out[:self.nm].ravel()


class Network:
    """The assembled network: node arrays and vectorized element sets.

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

    # -- node arrays -----------------------------------------------------------
    def nodes(self, q):
        return np.vstack([np.asarray(q, float).reshape(self.nm, self.dim), self.fixed])

    def node_velocities(self, v):
        return np.vstack([np.asarray(v, float).reshape(self.nm, self.dim), np.zeros_like(self.fixed)])

    # -- springs -----------------------------------------------------------------
    def spring_state(self, q):
        """``(L, n, T, k_active)``: length, direction, tension and active stiffness of every spring."""
        d, L, n = _pair_geometry(self.nodes(q), self.springs.i, self.springs.j)
        stretch = L - self.L0
        active = ~(self.tension_only & (stretch <= 0))
        k_act = np.where(active, self.k, 0.0)
        return L, n, k_act * stretch, k_act

    def spring_energy(self, q):
        L, n, T, k_act = self.spring_state(q)
        return 0.5 * float(np.sum(k_act * (L - self.L0) ** 2))

    def internal_force(self, q, v):
        """Spring and dashpot forces on the free masses, shape ``(nq,)``."""
        f = np.zeros(self.nq)
        if self.springs.m:
            L, n, T, _ = self.spring_state(q)
            f += self.springs.scatter_force(T[:, None] * n, self.nq)
        if self.dashpots.m:
            X, V = self.nodes(q), self.node_velocities(v)
            d, L, n = _pair_geometry(X, self.dashpots.i, self.dashpots.j)
            u = np.einsum("ij,ij->i", n, V[self.dashpots.j] - V[self.dashpots.i])
            f += self.dashpots.scatter_force((self.c * u)[:, None] * n, self.nq)
        return f

    def internal_jacobians(self, q, v):
        """Exact ``(df/dq, df/dv)`` of :meth:`internal_force` (sparse ``nq x nq``)."""
        eye = np.eye(self.dim)
        Kq = sp.csr_matrix((self.nq, self.nq))
        Cv = sp.csr_matrix((self.nq, self.nq))
        if self.springs.m:
            L, n, T, k_act = self.spring_state(q)
            nn = n[:, :, None] * n[:, None, :]
            B = k_act[:, None, None] * nn + (T / L)[:, None, None] * (eye - nn)
            Kq = self.springs.assemble(B)
        if self.dashpots.m:
            X, V = self.nodes(q), self.node_velocities(v)
            d, L, n = _pair_geometry(X, self.dashpots.i, self.dashpots.j)
            dv = V[self.dashpots.j] - V[self.dashpots.i]
            u = np.einsum("ij,ij->i", n, dv)
            nn = n[:, :, None] * n[:, None, :]
            P = eye - nn
            c = self.c[:, None, None]
            Bq = c / L[:, None, None] * (u[:, None, None] * P + n[:, :, None] * np.einsum("ij,ijk->ik", dv, P)[:, None, :])
            Kq = Kq + self.dashpots.assemble(Bq)
            Cv = self.dashpots.assemble(c * nn)
        return Kq, Cv

    def dashpot_dissipation(self, q, v):
        """Power dissipated in the dashpots, ``sum c u^2`` [W]."""
        if not self.dashpots.m:
            return 0.0
        X, V = self.nodes(q), self.node_velocities(v)
        d, L, n = _pair_geometry(X, self.dashpots.i, self.dashpots.j)
        u = np.einsum("ij,ij->i", n, V[self.dashpots.j] - V[self.dashpots.i])
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
            return sp.csr_matrix((0, self.nq))
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

"""A planar truss in a floating frame assembled by hand (no Firedrake): lumped nodal masses, bars
of axial forces, the frame held by a 3-2-1 point support, with the blocks of
:mod:`phmech.fem.floating_frame` (the floating-frame body a FormBody of these forms has), for the
mean-axis reduction tests that run everywhere."""
import numpy as np
import scipy.sparse as sp

from phmech.bodies.base import FloatingFrameBody
from phmech.fem.floating_frame import frame_blocks, inertia_summary


class HandTruss(FloatingFrameBody):
    """A ladder of ``n`` square panels of side ``h`` (nodes ``(i h, 0)`` and ``(i h, h)``), each with
    a diagonal: ``e = (v_P, omega, v, N)``, ``v`` the nodal velocities relative to the frame less
    the 3-2-1 support (node 0 held, the far bottom node held across the chord), ``N`` the bars'
    forces.  The nodal masses grow along the truss (no symmetry); ports ``A`` (node 0), ``B`` (the
    far bottom node) and ``T`` (the far top node)."""

    def __init__(self, name, n=4, h=0.5, mass=2.0, ea=5e4, position=(0.0, 0.0), angle=0.0):
        super().__init__(name, position, angle)
        X = np.array([(i * h, y) for i in range(n + 1) for y in (0.0, h)])       # node 2 i + (0 bottom, 1 top)
        N = len(X)
        m = mass * (1.0 + 0.3 * np.arange(N) / N)
        bars = ([(2 * i, 2 * i + 2) for i in range(n)] + [(2 * i + 1, 2 * i + 3) for i in range(n)]
                + [(2 * i, 2 * i + 1) for i in range(n + 1)] + [(2 * i, 2 * i + 3) for i in range(n)])
        D = np.zeros((len(bars), 2 * N))
        length = np.zeros(len(bars))
        for b, (i, j) in enumerate(bars):
            d = X[j] - X[i]
            length[b] = np.linalg.norm(d)
            t = d / length[b]
            D[b, 2 * j:2 * j + 2], D[b, 2 * i:2 * i + 2] = t, -t
        Mkin = np.diag(np.repeat(m, 2))
        Kkin = np.zeros((2 * N, 2 * N))                      # int rho dv . (e_z x v)
        for i in range(N):
            Kkin[2 * i, 2 * i + 1], Kkin[2 * i + 1, 2 * i] = -m[i], m[i]
        Phi = np.zeros((2 * N, 3))                           # the rigid fields e_x, e_y, e_z x X
        Phi[0::2, 0] = Phi[1::2, 1] = 1.0
        Phi[0::2, 2], Phi[1::2, 2] = -X[:, 1], X[:, 0]
        held = [0, 1, 2 * (2 * n) + 1]                       # node 0 (x, y), the far bottom node (y)
        keep = np.setdiff1d(np.arange(2 * N), held)
        nk, nb = len(keep), len(bars)
        C = sp.diags(length / ea)
        Dk = sp.csr_matrix(D[:, keep])
        zeros = np.zeros((nb, 3))
        M, J0, K_list = frame_blocks(
            Phi.T @ Mkin @ Phi, np.vstack([(Mkin @ Phi)[keep], zeros]),
            sp.block_diag([sp.csr_matrix(Mkin[np.ix_(keep, keep)]), C], format="csr"),
            sp.bmat([[None, -Dk.T], [Dk, None]], format="csr"),
            [0.5 * (Phi.T @ Kkin @ Phi - (Phi.T @ Kkin @ Phi).T)], [np.vstack([(Kkin @ Phi)[keep], zeros])],
            [sp.block_diag([sp.csr_matrix(Kkin[np.ix_(keep, keep)]), sp.csr_matrix((nb, nb))], format="csr")])
        self.M, self.J0, self.K_list = M, J0, K_list
        self.mass, self.center, self.inertia = inertia_summary(self.M[:3, :3].toarray(), 2)
        self.velocity_dofs = 3 + np.arange(nk)
        self.stress_dofs = 3 + nk + np.arange(nb)
        self.e_labels = ["vx", "vy", "omega"] + [f"v{k}" for k in keep] + [f"N{b}" for b in range(nb)]
        self.X, self.masses, self.keep, self.bars = X, m, keep, bars
        for pname, node in (("A", 0), ("B", 2 * n), ("T", 2 * n + 1)):
            Y = np.zeros((2, self.ne))
            Y[:, :2] = np.eye(2)
            Y[:, 2] = (-X[node, 1], X[node, 0])
            for k in range(2):
                where = np.flatnonzero(keep == 2 * node + k)
                if len(where):
                    Y[k, 3 + where[0]] = 1.0
            self.add_port(pname, Y, position=X[node])

    def first_moment(self):
        """``(s0, rows, "e")``: the first moment of mass about the frame origin, ``s0 + rows @ e``, the
        rows ``int rho u`` of the displacement ``u`` recovered from the bar forces (``C N = D u``, the
        truss statically determinate: ``D`` square and invertible on the kept velocities)."""
        v, s = self.velocity_dofs, self.stress_dofs
        M, J = self.M.toarray(), self.J0.toarray()
        D, C = J[np.ix_(s, v)], M[np.ix_(s, s)]
        rows = np.zeros((2, self.ne))
        rows[:, s] = M[np.ix_(v, [0, 1])].T @ np.linalg.solve(D, C)          # int rho phi_j . e_k, then u = D^-1 C N
        return self.mass * self.center, rows, "e"

    def mesh(self):
        """The truss as a :class:`~phmech.reduce.picture.FullMesh` of its bars: each node's rows of the
        body's efforts (-1 where the support holds it)."""
        from phmech.reduce.picture import FullMesh
        rows = -np.ones((len(self.X), 3), np.int64)
        for k, dof in enumerate(self.keep):
            rows[dof // 2, dof % 2] = self.velocity_dofs[k]
        return FullMesh(self.X, np.array(self.bars), "line", rows)

    def free_matrices(self):
        """``(K, M)`` dense on the whole velocity field ``(v_P, omega, v)`` of the free truss (the
        frame efforts and the velocities, every nodal motion once): ``K = D^T C^{-1} D`` with the
        frame's columns zero, ``M`` the kinetic metric."""
        w = np.r_[0:3, self.velocity_dofs]
        Md, Jd = self.M.toarray(), self.J0.toarray()
        D = Jd[np.ix_(self.stress_dofs, w)]
        C = Md[np.ix_(self.stress_dofs, self.stress_dofs)]
        return D.T @ np.linalg.solve(C, D), Md[np.ix_(w, w)]

"""Axial rods of P1 velocities and DG0 forces assembled by hand (no Firedrake): the matrices a
FormBody of the rod's forms has, for the reduction tests that run everywhere."""
import numpy as np
import scipy.sparse as sp

from phmech.bodies.base import FixedBody


class HandRod(FixedBody):
    """A rod ``[0, L]`` fixed at ``x = 0``: ``e = (v_1..v_n, N_1..N_n)``, ports ``tip`` (x = L) and
    ``mid`` (the node nearest L/2); ``c`` adds the dissipation ``c int v dv``."""

    def __init__(self, name, n, L=2.0, rho_a=3.0, ea=1200.0, c=0.0):
        super().__init__(name)
        self.dim = 2
        h = L / n
        Mfull = sp.lil_matrix((n + 1, n + 1))
        for k in range(n):
            Mfull[k:k + 2, k:k + 2] += rho_a * h / 6 * np.array([[2.0, 1.0], [1.0, 2.0]])
        Mv = sp.csr_matrix(Mfull)[1:, 1:]
        C = sp.identity(n) * (h / ea)
        D = sp.csr_matrix(sp.diags([np.ones(n), -np.ones(n - 1)], [0, -1]))     # N_k: v_{k+1} - v_k
        self.M = sp.block_diag([Mv, C], format="csr")
        self.J0 = sp.bmat([[None, -D.T], [D, None]], format="csr")
        self.R = None if c == 0 else sp.block_diag([c / rho_a * Mv, sp.csr_matrix((n, n))], format="csr")
        self.velocity_dofs = np.arange(n)
        self.stress_dofs = np.arange(n, 2 * n)
        self.L, self.n = L, n
        for pname, node in (("tip", n), ("mid", n // 2)):
            Y = np.zeros((2, 2 * n))
            Y[0, node - 1] = 1.0
            self.add_port(pname, Y, position=(node * h, 0.0))
        self.q0 = np.zeros(0)

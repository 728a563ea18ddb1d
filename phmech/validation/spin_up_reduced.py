"""An independent Ritz model of the spin-up beam (numpy + scipy only).

The reference of :mod:`phmech.validation.spin_up`; nothing is shared with
the finite-element models.  In the hub frame, turning with the prescribed
angle ``theta(t)``, the axis point ``X`` is at ``p = (X + u_x, u_y)`` with

    u_x = sum_j a_j sin((2j - 1) pi X / 2L),     u_y = sum_k b_k (X / L)^(k + 1),

(clamped root, free tip), ``z = (a, b)`` and ``p = X e1 + Phi(X) z``.  The
kinetic energy is exact, ``T = 1/2 int rho A |p' + Omega S p|^2``, the strain
energy ``U = 1/2 int EA eps^2 + EI u_y''^2`` with the Green-Lagrange strain
``eps = u_x' + (u_x'^2 + u_y'^2) / 2`` (``strain="linear"``: ``eps = u_x'``).
Lagrange's equations give

    M z'' + 2 Omega G z' + Omega' int Phi^T S p - Omega^2 int Phi^T p + dU/dz = 0,

``M = int rho A Phi^T Phi``, ``G = int rho A Phi^T S Phi``; integrated with
scipy's Radau method (the axial modes are stiff) at tight tolerances.
"""
import numpy as np
from scipy.integrate import solve_ivp

from .spin_up import hub_acceleration, hub_rate

S = np.array([[0.0, -1.0], [1.0, 0.0]])


class SpinUpRitz:
    """The spin-up beam in global shape functions (see the module docstring)."""

    def __init__(self, L=10.0, EI=14000.0, rhoA=1.2, EA=2.8e7, omega_s=6.0, T_s=15.0,
                 n_axial=4, n_bending=7, strain="green", n_quad=64):
        if strain not in ("green", "linear"):
            raise ValueError(f"spin-up Ritz model: strain must be 'green' or 'linear', got {strain!r}")
        self.L, self.EI, self.rhoA, self.EA = L, EI, rhoA, EA
        self.omega_s, self.T_s, self.strain = omega_s, T_s, strain
        self.na, self.nb = n_axial, n_bending
        xg, wg = np.polynomial.legendre.leggauss(n_quad)
        x = self.x = 0.5 * L * (xg + 1)
        self.w = 0.5 * L * wg
        ka = (2 * np.arange(1, n_axial + 1) - 1) * np.pi / (2 * L)
        pk = np.arange(2, n_bending + 2)
        s = x / L
        self.psi, self.dpsi = np.sin(np.outer(x, ka)), ka * np.cos(np.outer(x, ka))
        self.phi = s[:, None] ** pk
        self.dphi = pk * s[:, None] ** (pk - 1) / L
        self.ddphi = pk * (pk - 1) * s[:, None] ** np.maximum(pk - 2, 0) / L**2
        self.phi_tip = np.ones(n_bending)
        n = self.n = n_axial + n_bending
        Phi = np.zeros((len(x), 2, n))
        Phi[:, 0, :n_axial] = self.psi
        Phi[:, 1, n_axial:] = self.phi
        self.Phi = Phi
        wr = self.w * rhoA
        self.M = np.einsum("q,qip,qir->pr", wr, Phi, Phi)
        self.G = np.einsum("q,qip,ij,qjr->pr", wr, Phi, S, Phi)
        self.PhiX = np.einsum("q,qip,qi->p", wr, Phi, np.stack([x, 0 * x], axis=1))      # int Phi^T X e1
        self.PhiPhi = self.M                                                               # int Phi^T Phi
        self.PhiSX = np.einsum("q,qip,ij,qj->p", wr, Phi, S, np.stack([x, 0 * x], axis=1))
        self.Kb = (self.ddphi.T * (self.w * EI)) @ self.ddphi
        self.Minv = np.linalg.inv(self.M)

    def internal_force(self, z):
        a, b = z[:self.na], z[self.na:]
        sx, sy = self.dpsi @ a, self.dphi @ b
        out = np.zeros(self.n)
        if self.strain == "green":
            nax = self.EA * (sx + 0.5 * (sx * sx + sy * sy))
            out[:self.na] = self.dpsi.T @ (self.w * nax * (1.0 + sx))
            out[self.na:] = self.dphi.T @ (self.w * nax * sy)
        else:
            out[:self.na] = self.dpsi.T @ (self.w * self.EA * sx)
        out[self.na:] += self.Kb @ b
        return out

    def rhs(self, t, y):
        n = self.n
        z, zd = y[:n], y[n:]
        Om = float(hub_rate(t, self.omega_s, self.T_s))
        dOm = float(hub_acceleration(t, self.omega_s, self.T_s))
        Sp = self.PhiSX + self.G @ z                    # int rho A Phi^T S p
        P = self.PhiX + self.PhiPhi @ z                  # int rho A Phi^T p
        F = -2 * Om * self.G @ zd - dOm * Sp + Om**2 * P - self.internal_force(z)
        return np.r_[zd, self.Minv @ F]

    def simulate(self, t_end, t_eval=None, rtol=1e-9, atol=1e-11):
        """Integrate from rest; returns a dict with ``t``, ``tip`` (u_y(L)) and ``tip_axial``."""
        sol = solve_ivp(self.rhs, (0.0, t_end), np.zeros(2 * self.n), method="Radau", t_eval=t_eval,
                        rtol=rtol, atol=atol)
        if not sol.success:
            raise RuntimeError(f"spin-up Ritz model failed: {sol.message}")
        Z = sol.y[:self.n]
        return {"t": sol.t, "tip": self.phi_tip @ Z[self.na:], "tip_axial": np.sin(
            (2 * np.arange(1, self.na + 1) - 1) * np.pi / 2) @ Z[:self.na],
            "n_axial": self.na, "n_bending": self.nb, "nfev": sol.nfev}

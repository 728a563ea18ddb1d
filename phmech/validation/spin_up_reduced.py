"""An independent Ritz model of the spin-up beam (numpy + scipy only).

The reference of :mod:`phmech.validation.spin_up`; nothing is shared with
the finite-element models.  In the hub frame, turning with the prescribed
angle ``theta(t)``, the axis point ``X`` is at ``p = (X + u_x, u_y)`` with

(clamped root, free tip) in Legendre polynomials: ``u_x' = sum_j a_j P_j(s)``
and ``u_y'' = sum_k b_k P_k(s)`` with ``s = 2X/L - 1``, integrated from the root.
The axial basis has degree ``2 n_bending + 1`` by default, so the
foreshortening ``u_x' = -u_y'^2 / 2`` of an inextensible bending shape is in
its span: a smaller axial basis locks (spurious membrane tension, far too
stiff in bending).  ``z = (a, b)`` and ``p = X e1 + Phi(X) z``.  The
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

from ._hub import hub_acceleration, hub_rate

S = np.array([[0.0, -1.0], [1.0, 0.0]])


class SpinUpRitz:
    """The spin-up beam in global shape functions (see the module docstring)."""

    def __init__(self, L=10.0, EI=14000.0, rhoA=1.2, EA=2.8e7, omega_s=6.0, T_s=15.0,
                 n_axial=None, n_bending=6, strain="green", n_quad=48):
        if strain not in ("green", "linear"):
            raise ValueError(f"spin-up Ritz model: strain must be 'green' or 'linear', got {strain!r}")
        self.L, self.EI, self.rhoA, self.EA = L, EI, rhoA, EA
        self.omega_s, self.T_s, self.strain = omega_s, T_s, strain
        n_axial = 2 * n_bending + 1 if n_axial is None else n_axial
        self.na, self.nb = n_axial, n_bending
        leg = np.polynomial.legendre
        xg, wg = leg.leggauss(n_quad)
        x = self.x = 0.5 * L * (xg + 1)
        self.w = 0.5 * L * wg

        def basis(n, order, at):
            """Values of the ``order``-fold integrals (from the root) of P_0..P_{n-1} at ``at`` (in s)."""
            out = []
            for k in range(n):
                c = np.zeros(k + 1)
                c[k] = 1.0
                out.append(leg.legval(at, leg.legint(c, m=order, lbnd=-1, scl=L / 2)) if order else leg.legval(at, c))
            return np.array(out).T

        s = xg
        self.psi, self.dpsi = basis(n_axial, 1, s), basis(n_axial, 0, s)
        self.phi, self.dphi, self.ddphi = basis(n_bending, 2, s), basis(n_bending, 1, s), basis(n_bending, 0, s)
        self.phi_tip = basis(n_bending, 2, np.array([1.0]))[0]
        self.psi_tip = basis(n_axial, 1, np.array([1.0]))[0]
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

    def stiffness(self, z):
        """Tangent stiffness ``d^2 U / dz^2``."""
        a, b = z[:self.na], z[self.na:]
        sx, sy = self.dpsi @ a, self.dphi @ b
        na, w, EA = self.na, self.w, self.EA
        K = np.zeros((self.n, self.n))
        if self.strain == "green":
            nax = EA * (sx + 0.5 * (sx * sx + sy * sy))
            K[:na, :na] = (self.dpsi.T * (w * (EA * (1 + sx) ** 2 + nax))) @ self.dpsi
            K[:na, na:] = (self.dpsi.T * (w * EA * (1 + sx) * sy)) @ self.dphi
            K[na:, :na] = K[:na, na:].T
            K[na:, na:] = (self.dphi.T * (w * (EA * sy * sy + nax))) @ self.dphi
        else:
            K[:na, :na] = (self.dpsi.T * (w * EA)) @ self.dpsi
        K[na:, na:] += self.Kb
        return K

    def jac(self, t, y):
        """Exact Jacobian of :meth:`rhs`."""
        n = self.n
        Om = float(hub_rate(t, self.omega_s, self.T_s))
        dOm = float(hub_acceleration(t, self.omega_s, self.T_s))
        Jz = self.Minv @ (-dOm * self.G + Om**2 * self.PhiPhi - self.stiffness(y[:n]))
        Jzd = self.Minv @ (-2 * Om * self.G)
        return np.block([[np.zeros((n, n)), np.eye(n)], [Jz, Jzd]])

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
                        rtol=rtol, atol=atol, jac=self.jac)
        if not sol.success:
            raise RuntimeError(f"spin-up Ritz model failed: {sol.message}")
        Z = sol.y[:self.n]
        return {"t": sol.t, "tip": self.phi_tip @ Z[self.na:], "tip_axial": self.psi_tip @ Z[:self.na],
            "n_axial": self.na, "n_bending": self.nb, "nfev": sol.nfev}

"""An independent reduced model of the flexible crank-slider (numpy + scipy only).

Used to cross-validate :mod:`phmech.validation.crank_slider`.  Nothing is
shared with the pH finite-element model: the coupler is discretized by a
Ritz expansion in global modes, the coordinates are inertial angles and
modal amplitudes, the slider constraint is imposed at position level
(through its second derivative, with the augmented acceleration system),
and the equations come from the principle of virtual power in minimal
form, integrated with scipy's DOP853.

Geometry: the crank (length ``Lc``) turns at ``Omega``; the coupler frame
has its origin at the crank pin A and angle ``phi``; its deformation is

    u_x(x) = sum_j a_j sin((2j-1) pi x / 2L),   u_y(x) = sum_k b_k sin(k pi x / L),

so ``u(0) = 0`` and ``u_y(L) = 0``: the chord frame of a simply supported
deformation field, the same frame as the pH model.  The slider of mass
``ms`` sits at ``B = A + R(phi) (L + u_x(L)) e1`` with ``y_B = 0``.

``variant="linear"`` keeps the kinematic assumptions of the linear
floating-frame pH model (the rotating-frame terms of the deformation,
``omega' S u``, ``omega S u'`` and ``-omega^2 u``, are dropped from the
acceleration, and the virtual rotation acts on the undeformed axis);
``variant="full"`` keeps every term (a nonlinear floating-frame model of
the Simeon type).  The two differ by the modelling error of the linear
floating frame, the first by discretization error only.  ``variant="stiffened"``
keeps every inertia term and takes the Green-Lagrange strain of the axis,
``eps = u_x' + (u_x'^2 + u_y'^2) / 2``, in the axial energy
``1/2 int EA eps^2`` (geometric stiffening; the bending energy stays
``1/2 int EI u_y''^2``): the reference of the stiffened pH beam
(:class:`phmech.fem.beam_nonlinear.NonlinearFloatingBeam`).
"""
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

S = np.array([[0.0, -1.0], [1.0, 0.0]])


@dataclass
class ReducedCrankSlider:
    Lc: float = 0.15
    L: float = 0.3
    Omega: float = 150.0
    rho: float = 7870.0
    E: float = 2.0e11
    d: float = 6e-3
    ms: float = 0.033
    n_axial: int = 3
    n_bending: int = 8
    variant: str = "linear"
    n_quad: int = 64

    def __post_init__(self):
        if self.variant not in ("linear", "full", "stiffened"):
            raise ValueError(f"variant must be 'linear', 'full' or 'stiffened', got {self.variant!r}")
        A = np.pi * self.d**2 / 4
        I = np.pi * self.d**4 / 64
        self.rhoA, EA, EI = self.rho * A, self.E * A, self.E * I
        xg, wg = np.polynomial.legendre.leggauss(self.n_quad)
        self.x = 0.5 * self.L * (xg + 1)
        self.w = 0.5 * self.L * wg
        L, x = self.L, self.x
        ja = np.arange(1, self.n_axial + 1)
        kb = np.arange(1, self.n_bending + 1)
        ka = (2 * ja - 1) * np.pi / (2 * L)
        kk = kb * np.pi / L
        self.psi = np.sin(np.outer(x, ka))            # (nq, na)
        self.phi_b = np.sin(np.outer(x, kk))          # (nq, nb)
        self.psi_L = np.sin(ka * L)
        self.dpsi = ka * np.cos(np.outer(x, ka))      # derivatives of the shape functions
        self.dphi_b = kk * np.cos(np.outer(x, kk))
        self.EA, self.EI = EA, EI
        self.psi_mid = np.sin(ka * L / 2)
        if self.variant == "stiffened":
            # the axial force at the slider end is not zero: add u_x = X / L, whose strain does not
            # vanish at X = L (the sine functions all have u_x'(L) = 0), so the axial force and the
            # geometric stiffness converge pointwise
            self.psi = np.column_stack([x / L, self.psi])
            self.dpsi = np.column_stack([np.full_like(x, 1.0 / L), self.dpsi])
            self.psi_L = np.r_[1.0, self.psi_L]
            self.psi_mid = np.r_[0.5, self.psi_mid]
            self.n_axial += 1
        self.na, self.nb = self.n_axial, self.n_bending
        self.n = 1 + self.na + self.nb
        self.K = np.zeros((self.n, self.n))
        self.K[1:1 + self.na, 1:1 + self.na] = (self.dpsi.T * (self.w * EA)) @ self.dpsi
        self.K[1 + self.na:, 1 + self.na:] = np.diag(EI * kk**4 * L / 2)

    def internal_force(self, q):
        """Gradient of the strain energy with respect to the coordinates."""
        if self.variant != "stiffened":
            return self.K @ q
        a, b = q[1:1 + self.na], q[1 + self.na:]
        sx, sy = self.dpsi @ a, self.dphi_b @ b
        n = self.EA * (sx + 0.5 * (sx * sx + sy * sy))           # axial force from the Green strain
        out = np.zeros(self.n)
        out[1:1 + self.na] = self.dpsi.T @ (self.w * n * (1.0 + sx))
        out[1 + self.na:] = self.dphi_b.T @ (self.w * n * sy) + self.K[1 + self.na:, 1 + self.na:] @ b
        return out

    def fields(self, q, qd):
        a, b = q[1:1 + self.na], q[1 + self.na:]
        ad, bd = qd[1:1 + self.na], qd[1 + self.na:]
        u = np.stack([self.psi @ a, self.phi_b @ b], axis=1)      # (nq, 2)
        ud = np.stack([self.psi @ ad, self.phi_b @ bd], axis=1)
        return u, ud

    def rhs(self, t, z):
        n = self.n
        q, qd = z[:n], z[n:]
        phi, dphi = q[0], qd[0]
        u, ud = self.fields(q, qd)
        x = self.x
        th = self.Omega * t
        c, s = np.cos(phi), np.sin(phi)
        R = np.array([[c, -s], [s, c]])
        aA = -self.Lc * self.Omega**2 * np.array([np.cos(th), np.sin(th)])
        aA_b = R.T @ aA
        full = self.variant != "linear"
        pos = np.stack([x, np.zeros_like(x)], axis=1) + (u if full else 0.0)
        # velocity Jacobian V (nq, 2, n)
        V = np.zeros((len(x), 2, n))
        V[:, :, 0] = pos @ S.T
        V[:, 0, 1:1 + self.na] = self.psi
        V[:, 1, 1 + self.na:] = self.phi_b
        # acceleration without the q'' part
        a0 = aA_b[None, :] - dphi**2 * pos + (2.0 if full else 1.0) * dphi * (ud @ S.T)
        wr = self.w * self.rhoA
        M = np.einsum("q,qip,qir->pr", wr, V, V)
        F = -np.einsum("q,qip,qi->p", wr, V, a0) - self.internal_force(q)
        # slider: x_s = Lc cos th + (L + uL) cos phi
        uL = self.psi_L @ q[1:1 + self.na]
        uLd = self.psi_L @ qd[1:1 + self.na]
        X = np.zeros(n)
        X[0] = -(self.L + uL) * s
        X[1:1 + self.na] = self.psi_L * c
        Xdd0 = -2 * uLd * s * dphi - (self.L + uL) * c * dphi**2 - self.Lc * self.Omega**2 * np.cos(th)
        M += self.ms * np.outer(X, X)
        F -= self.ms * X * Xdd0
        # constraint y_B = Lc sin th + (L + uL) sin phi = 0
        g_q = np.zeros(n)
        g_q[0] = (self.L + uL) * c
        g_q[1:1 + self.na] = self.psi_L * s
        gamma = 2 * uLd * c * dphi - (self.L + uL) * s * dphi**2 - self.Lc * self.Omega**2 * np.sin(th)
        A = np.zeros((n + 1, n + 1))
        A[:n, :n] = M
        A[:n, n] = g_q
        A[n, :n] = g_q
        sol = np.linalg.solve(A, np.r_[F, -gamma])
        return np.r_[qd, sol[:n]]

    def constraint(self, t, z):
        uL = self.psi_L @ z[1:1 + self.na]
        return self.Lc * np.sin(self.Omega * t) + (self.L + uL) * np.sin(z[0])

    def initial_state(self):
        """Undeformed coupler, rigid velocities from the kinematics (crank at 0)."""
        z0 = np.zeros(2 * self.n)
        z0[self.n] = -self.Omega * self.Lc / self.L
        return z0

    def simulate(self, t_end, t_eval=None, rtol=1e-10, atol=1e-12, method="DOP853"):
        """Integrate and return a dict of time histories."""
        sol = solve_ivp(self.rhs, (0.0, t_end), self.initial_state(), method=method,
                        t_eval=t_eval, rtol=rtol, atol=atol)
        if not sol.success:
            raise RuntimeError(f"reduced crank-slider: {sol.message}")
        mid_a = self.psi_mid
        mid_b = np.sin(np.arange(1, self.nb + 1) * np.pi / 2)
        Z = sol.y
        return {
            "t": sol.t,
            "phi": Z[0],
            "ux_mid": mid_a @ Z[1:1 + self.na],
            "uy_mid": mid_b @ Z[1 + self.na:self.n],
            "constraint": np.array([self.constraint(t, z) for t, z in zip(sol.t, Z.T)]),
            "nfev": sol.nfev,
        }

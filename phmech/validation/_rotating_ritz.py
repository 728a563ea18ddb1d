"""An independent Ritz model of a uniform cantilever on a hub spinning at a constant rate.

The reference of :mod:`phmech.validation.rotating_beam`: the same continuum
as the geometrically consistent spatial beam
(:class:`~phmech.fem.beam3d_nonlinear.NonlinearSpatialBeam`), written with
numpy and scipy only and discretized by global polynomials instead of
finite elements.

The beam is clamped at ``X = 0`` to a hub turning at ``Omega`` about ``e3``,
at the hub radius ``R`` from the axis, and carries a point mass ``m_t`` at
``X = L`` (both zero by default).  In the hub frame the axis point ``X e1``
moves to ``p = (R + X + u_x, u_y, u_z)``, its absolute velocity in hub
components is ``v = u' + Omega e3 x p`` (``'`` the time derivative here), and

.. math::

    T = \\frac12 \\int_0^L \\rho A\\,|v|^2\\,dX, \\qquad
    V = \\frac12 \\int_0^L EA\\,\\varepsilon^2 + EI_z\\,u_y''^2 + EI_y\\,u_z''^2\\,dX,
    \\qquad \\varepsilon = u_x' + \\tfrac12 |u'|^2

(Green-Lagrange axial strain, primes on ``u`` in ``V`` are ``d/dX``), the
point mass adding ``1/2 m_t |v(L)|^2`` to ``T``.  The hub radius enters the
steady stretch only (its terms in the motions are linear, or a time
derivative); the point mass enters the steady stretch and, at ``X = L``, the
mass, gyroscopic and centrifugal terms below.

Steady motion: ``u_y = u_z = 0`` and the axial stretch ``U(X)`` that makes
``V - 1/2 int rho A Omega^2 (X + U)^2`` stationary (Newton's method with
continuation in the speed).  About it the motions ``(x, y, z)`` obey

.. math::

    M \\ddot q + 2\\Omega\\,W \\dot q + (K_e + K_g - \\Omega^2 M_{xy})\\, q = 0

with the mass matrix ``M``, the gyroscopic coupling ``W`` of the axial and
chordwise motions (``int rho A (x y' - y x')``), the elastic stiffness
``K_e`` (``EA (1 + U')^2`` axial, ``EI`` bending), the geometric stiffness
``K_g`` of the steady axial force ``N_0 = EA eps_0`` on all three directions
and the centrifugal softening ``M_xy`` of the in-plane motions.  Flapwise
(``z``) motions decouple; the axial and chordwise ones are solved as one
gyroscopic problem in first-order form.

The continuum of the geometrically exact beam (``continuum="exact"``, the reference of
:class:`~phmech.fem.beam_exact3d.GeometricallyExactBeam3D` in its shear-rigid limit):
the axial strain is the stretch ``lambda - 1`` (``lambda = |p'|``, so the steady
force is ``N_0 = EA U'``), the curvatures the rates of the sections' angles
(``theta = u_y' / lambda_0`` to first order, ``lambda_0 = 1 + U'``), and the sections
carry their rotary inertia ``rho I``.  To second order about the steady state
``lambda - 1 = U' + u_x' + (u_y'^2 + u_z'^2) / (2 lambda_0)``: the axial stiffness is
``EA`` (no ``N_0`` term), the geometric stiffness of the transverse motions
``N_0 / lambda_0``, the bending energy ``EI ((u'/lambda_0)')^2``; the sections' rotary
inertia adds ``rho I_z (u_y' / lambda_0)^2`` and ``rho I_y (u_z' / lambda_0)^2`` to the
mass, and the flapwise tilt of a section spinning about ``e3`` the softening
``-rho I_y Omega^2 (u_z' / lambda_0)^2`` (its spin passes to the axis of larger
inertia: ``T = 1/2 rho (I_y theta'^2 + I_z Omega^2 + I_y Omega^2 sin^2 theta)``).

Bases (Legendre polynomials on ``[0, 1]`` for conditioning):
``xi P_k(2 xi - 1)`` for ``u_x`` and ``xi^2 P_k(2 xi - 1)`` for ``u_y``,
``u_z`` (the clamp's conditions), ``k = 0 .. n - 1``.  Integrals by
Gauss-Legendre quadrature, exact for these polynomials.
"""
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
from numpy.polynomial import legendre


@dataclass
class RitzBeam:
    """A uniform beam: length, mass per length, axial and bending stiffnesses, the sections'
    rotary inertias per length (used by the exact continuum)."""

    L: float
    rhoA: float
    EA: float
    EIy: float
    EIz: float
    rhoIy: float = 0.0
    rhoIz: float = 0.0

    @classmethod
    def dimensionless(cls, slenderness):
        """``L = rho A = EI = 1`` and ``EA = slenderness^2`` (``L / r`` with ``r^2 = I / A``), so
        ``rho I = 1 / slenderness^2``."""
        s2 = float(slenderness) ** 2
        return cls(1.0, 1.0, s2, 1.0, 1.0, 1.0 / s2, 1.0 / s2)


def _basis(n, power, xi):
    """Values, first and second derivatives (in ``xi``) of ``xi^power P_k(2 xi - 1)``, ``k < n``."""
    V = np.empty((n, xi.size))
    D1 = np.empty_like(V)
    D2 = np.empty_like(V)
    s = 2.0 * xi - 1.0
    for k in range(n):
        c = np.zeros(k + 1)
        c[k] = 1.0
        P = legendre.legval(s, c)
        dP = 2.0 * legendre.legval(s, legendre.legder(c))
        d2P = 4.0 * legendre.legval(s, legendre.legder(c, 2)) if k >= 2 else np.zeros_like(xi)
        f = xi ** power
        df = power * xi ** (power - 1)
        d2f = power * (power - 1) * xi ** (power - 2) if power >= 2 else np.zeros_like(xi)
        V[k] = f * P
        D1[k] = df * P + f * dP
        D2[k] = d2f * P + 2 * df * dP + f * d2P
    return V, D1, D2


class RotatingCantilever:
    """Steady stretch and linearized frequencies of the spinning cantilever (module docstring).

    Parameters
    ----------
    beam : RitzBeam
    n : int
        Number of polynomials per displacement component.
    hub_radius : float
        Distance ``R`` of the clamp from the spin axis.
    tip_mass : float
        Point mass ``m_t`` at the free end.
    continuum : ``"consistent"`` (Green strain, linear curvature, no rotary inertia: the
        geometrically consistent beam) or ``"exact"`` (the stretch, the sections' angles and
        their rotary inertia: the geometrically exact beam, shear-rigid); module docstring.
    """

    def __init__(self, beam, n, hub_radius=0.0, tip_mass=0.0, continuum="consistent"):
        if int(n) < 2:
            raise ValueError(f"Ritz model: n must be at least 2, got {n!r}")
        if continuum not in ("consistent", "exact"):
            raise ValueError(f"Ritz model: continuum must be 'consistent' or 'exact', got {continuum!r}")
        self.exact = continuum == "exact"
        self.beam, self.n = beam, int(n)
        self.R, self.mt = float(hub_radius), float(tip_mass)
        xg, wg = legendre.leggauss(2 * self.n + 8)
        xi = 0.5 * (xg + 1.0)
        L = beam.L
        self.X = L * xi
        self.w = 0.5 * L * wg
        Vx, Dx, D2x = _basis(self.n, 1, xi)
        Vb, Db, D2b = _basis(self.n, 2, xi)
        self.Px, self.dPx, self.d2Px = Vx, Dx / L, D2x / L ** 2          # axial: values and d/dX
        self.Pb, self.dPb, self.d2Pb = Vb, Db / L, D2b / L ** 2
        self.tx, self.tb = _basis(self.n, 1, np.ones(1))[0][:, 0], _basis(self.n, 2, np.ones(1))[0][:, 0]

    def _gram(self, A, B, weight=1.0):
        return (A * (self.w * weight)) @ B.T

    def steady(self, Omega, a0=None, tol=1e-13, max_iter=50):
        """Coefficients of the steady axial stretch ``U`` at the speed ``Omega`` (Newton)."""
        b = self.beam
        a = np.zeros(self.n) if a0 is None else np.array(a0, float)
        for _ in range(max_iter):
            dU = a @ self.dPx
            U = a @ self.Px
            eps, deps, stiff = self._axial(dU)
            r = self._gram(self.dPx, (b.EA * eps * deps)[None, :]).ravel() \
                - self._gram(self.Px, (b.rhoA * Omega ** 2 * (self.R + self.X + U))[None, :]).ravel() \
                - self.mt * Omega ** 2 * (self.R + b.L + a @ self.tx) * self.tx
            K = self._gram(self.dPx, self.dPx, b.EA * stiff) \
                - b.rhoA * Omega ** 2 * self._gram(self.Px, self.Px) - self.mt * Omega ** 2 * np.outer(self.tx, self.tx)
            step = np.linalg.solve(K, -r)
            a += step
            if np.max(np.abs(step)) <= tol * max(1.0, np.max(np.abs(a))):
                return a
        raise RuntimeError(f"Ritz model: steady stretch at Omega = {Omega} did not converge")

    def _axial(self, dU):
        """The steady axial strain, its derivative by ``U'`` and ``d(eps deps)/dU'``: Green's
        ``U' + U'^2 / 2`` or the stretch ``U'`` (exact)."""
        if self.exact:
            return dU, np.ones_like(dU), np.ones_like(dU)
        eps = dU + 0.5 * dU ** 2
        return eps, 1 + dU, (1 + dU) ** 2 + eps

    def steady_path(self, speeds):
        """Steady stretches along increasing speeds (each Newton iteration starts from the last)."""
        out, a = [], None
        for Om in speeds:
            a = self.steady(Om, a)
            out.append(a.copy())
        return out

    def root_strain(self, a):
        """Axial strain at the clamp of the stretch ``a`` (Green-Lagrange; the stretch ``U'(0)``
        for the exact continuum)."""
        return float(self._axial(np.atleast_1d(a @ self._basis_at_root()))[0][0])

    def _basis_at_root(self):
        _, D, _ = _basis(self.n, 1, np.zeros(1))
        return D[:, 0] / self.beam.L

    def frequencies(self, Omega, a=None, k=1):
        """The ``k`` lowest flapwise and chordwise angular frequencies at ``Omega``.

        Returns ``(flapwise, chordwise)`` arrays; chordwise are the modes of the
        coupled axial-chordwise problem whose kinetic energy lies mostly in ``y``.
        """
        b = self.beam
        a = self.steady(Omega) if a is None else a
        dU = a @ self.dPx
        N0 = b.EA * self._axial(dU)[0]
        mass = (lambda P, t: b.rhoA * self._gram(P, P) + self.mt * np.outer(t, t))
        Mb = mass(self.Pb, self.tb)
        if self.exact:           # the sections' angles u'/lambda_0, their rates along X
            lam0 = 1.0 + dU
            T = self.dPb / lam0
            dT = self.d2Pb / lam0 - self.dPb * ((a @ self.d2Px) / lam0 ** 2)
            Kg = self._gram(self.dPb, self.dPb, N0 / lam0)
            Kby, Kbz = b.EIy * self._gram(dT, dT), b.EIz * self._gram(dT, dT)
            Rot = self._gram(T, T)
            Mz, My = Mb + b.rhoIy * Rot, Mb + b.rhoIz * Rot
            Kz = Kby + Kg - Omega ** 2 * b.rhoIy * Rot
            EAx = b.EA * np.ones_like(dU)
        else:
            Kg = self._gram(self.dPb, self.dPb, N0)
            Kby = b.EIy * self._gram(self.d2Pb, self.d2Pb)
            Kbz = b.EIz * self._gram(self.d2Pb, self.d2Pb)
            Mz = My = Mb
            Kz = Kby + Kg
            EAx = b.EA * (1 + dU) ** 2 + N0
        # flapwise
        flap = np.sqrt(np.clip(sla.eigh(Kz, Mz, eigvals_only=True), 0.0, None))[:k]
        # axial + chordwise, gyroscopic
        n = self.n
        Mx = mass(self.Px, self.tx)
        Mxy = b.rhoA * self._gram(self.Px, self.Pb) + self.mt * np.outer(self.tx, self.tb)
        Kx = self._gram(self.dPx, self.dPx, EAx) - Omega ** 2 * Mx
        Ky = Kbz + Kg - Omega ** 2 * Mb
        M = sla.block_diag(Mx, My)
        K = sla.block_diag(Kx, Ky)
        W = np.zeros((2 * n, 2 * n))
        W[:n, n:] = -Mxy
        W[n:, :n] = Mxy.T
        Gy = 2.0 * Omega * W
        Z = np.zeros_like(M)
        A = np.block([[Z, np.eye(2 * n)], [-K, -Gy]])
        B = np.block([[np.eye(2 * n), Z], [Z, M]])
        lam, vec = sla.eig(A, B)
        keep = lam.imag > 0
        lam, vec = lam[keep], vec[:2 * n, keep]
        order = np.argsort(lam.imag)
        chord = []
        for j in order:
            x, y = vec[:n, j], vec[n:, j]
            ex = np.real(np.conj(x) @ Mx @ x)
            ey = np.real(np.conj(y) @ Mb @ y)
            if ey > ex:
                chord.append(lam[j].imag)
            if len(chord) == k:
                break
        return flap, np.array(chord)


def dimensionless_table(slenderness, speeds, n=12, continuum="consistent"):
    """``omega T`` of the first flapwise and chordwise modes for the dimensionless speeds ``mu``
    (``T = sqrt(rho A L^4 / EI)``; with the dimensionless beam ``T = 1``, ``Omega = mu``) of the
    ``continuum`` (:class:`RotatingCantilever`)."""
    model = RotatingCantilever(RitzBeam.dimensionless(slenderness), n, continuum=continuum)
    rows = []
    a = None
    for mu in speeds:
        # continuation: small speed increments up to mu
        start = 0.0 if not rows else rows[-1]["mu"]
        for Om in np.linspace(start, mu, max(2, int(abs(mu - start) / 2.0) + 2))[1:]:
            a = model.steady(Om, a)
        if mu == 0:
            a = np.zeros(model.n)
        flap, chord = model.frequencies(mu, a)
        rows.append(dict(mu=float(mu), flapwise=float(flap[0]), chordwise=float(chord[0]),
                         root_strain=float(model.root_strain(a))))
    return rows

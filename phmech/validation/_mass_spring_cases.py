"""Models and exact solutions of the mass-spring validation cases (:mod:`phmech.validation.mass_spring`).

Every reference here is derived independently of the network code:

* rigid pendulum (distance constraint): ``sin(theta/2) = k sn(K - w0 t, k)``,
  period ``4 sqrt(L/g) K(k)``, ``k = sin(theta0/2)`` (complete elliptic integral);
* the source's hanging chain (fix + 10 masses + springs, released unstretched):
  the motion is vertical and linear, so the exact solution is modal, from the
  tridiagonal spring matrix written out here;
* the chain between two supports (springs, or distance constraints): static
  equilibrium by shooting on the horizontal tension ``H`` (node balance
  ``T_j e_j = (H, -V + j m g)``, ``V = N m g / 2`` by symmetry), and the
  lowest natural frequencies from finite-difference Hessians of scalar
  energies written per link (constrained: of the Lagrangian, on the null
  space of the finite-difference constraint gradient);
* spinning ring of ``N`` masses: the motion stays a rotating regular polygon,
  reduced to ``r'' = H^2/(N^2 m^2 r^3) - (2 s k / m)(2 r s - L0)``, ``s = sin(pi/N)``,
  ``H = N m r^2 w``; steady radius from ``m w^2 r = 2 s k (2 r s - L0)``;
* the bridge lattice: a reference run of Radau IIA (tight tolerances) on the
  first-order form of the same equations.
"""
import numpy as np
import scipy.linalg as sla
from scipy.integrate import solve_ivp
from scipy.optimize import brentq
from scipy.special import ellipj, ellipk

from .. import massspring as ms

G_ACC = 9.81


# -- rigid pendulum ---------------------------------------------------------------------
def pendulum(L=1.0):
    """The source's rigid pendulum: fix at 0, mass 1 at (L, 0, 0), distance constraint L."""
    mss = ms.MassSpringSystem3d()
    mss.gravity = [0, -G_ACC, 0]
    fix = mss.add(ms.Fix([0, 0, 0]))
    m = mss.add(ms.Mass(1.0, [L, 0, 0]))
    mss.add(ms.DistanceConstraint(L, [fix, m]))
    return mss


def pendulum_exact(t, L=1.0, theta0=np.pi / 2):
    """Position (x, y, 0) at ``t`` and the period, released from rest at ``theta0`` from the vertical."""
    k2 = np.sin(theta0 / 2) ** 2
    K = ellipk(k2)
    sn = ellipj(K - np.sqrt(G_ACC / L) * np.asarray(t, float), k2)[0]
    theta = 2 * np.arcsin(np.sqrt(k2) * sn)
    pos = np.stack([L * np.sin(theta), -L * np.cos(theta), np.zeros_like(theta)], axis=-1)
    return pos, 4 * np.sqrt(L / G_ACC) * K


# -- the source's hanging chain ------------------------------------------------------------
def hanging_chain(n=10, k=20.0, m=1.0):
    """Fix at 0 and ``n`` masses at (0, -i-1, 0) joined by springs (1.0, k), released unstretched."""
    mss = ms.MassSpringSystem3d()
    mss.gravity = [0, -G_ACC, 0]
    prev = mss.add(ms.Fix([0, 0, 0]))
    for i in range(n):
        cur = mss.add(ms.Mass(m, [0, -i - 1.0, 0]))
        mss.add(ms.Spring(1.0, k, [prev, cur]))
        prev = cur
    return mss


def hanging_chain_exact(t, n=10, k=20.0, m=1.0):
    """Heights ``y_i(t)`` (shape ``(len(t), n)``): equilibrium plus the modal solution from rest."""
    T = m * G_ACC * np.arange(n, 0, -1)                  # tension of spring i (carries n - i masses)
    y_eq = -np.cumsum(1.0 + T / k)
    K = 2 * k * np.eye(n) - k * np.eye(n, k=1) - k * np.eye(n, k=-1)
    K[-1, -1] = k
    w2, Phi = sla.eigh(K, m * np.eye(n))
    u0 = -np.arange(1, n + 1) - y_eq
    c = Phi.T @ (m * u0)
    t = np.atleast_1d(np.asarray(t, float))
    return y_eq + (np.cos(np.outer(t, np.sqrt(w2))) * c) @ Phi.T, y_eq, np.sqrt(w2) / (2 * np.pi)


# -- chain between two supports ----------------------------------------------------------
def catenary(constrained, n=10, span=4.0, link=0.5, k=500.0, m=0.2):
    """``n`` masses between supports (0, 0) and (span, 0), ``n + 1`` links: springs or distance constraints.

    Starts from a sagging shape away from the equilibrium: a sine sag for the springs, for the rigid
    links a trapezoid (links down at a constant angle, a horizontal middle link) that meets the
    constraints."""
    mss = ms.MassSpringSystem2d()
    mss.gravity = [0, -G_ACC]
    half = n // 2
    c = (span - link * (n + 1 - 2 * half)) / (2 * half * link)
    steps = [(link * c, -link * np.sqrt(1 - c * c))] * half + [(link, 0.0)] * (n + 1 - 2 * half) \
        + [(link * c, link * np.sqrt(1 - c * c))] * half
    trapezoid = np.cumsum(steps, axis=0)
    a = mss.add(ms.Fix([0.0, 0.0]))
    nodes = [a]
    for j in range(1, n + 1):
        p = trapezoid[j - 1] if constrained else [span * j / (n + 1), -1.6 * np.sin(np.pi * j / (n + 1))]
        nodes.append(mss.add(ms.Mass(m, p)))
    nodes.append(mss.add(ms.Fix([span, 0.0])))
    for j in range(n + 1):
        el = ms.DistanceConstraint(link, nodes[j:j + 2]) if constrained else ms.Spring(link, k, nodes[j:j + 2])
        mss.add(el)
    return mss


def catenary_equilibrium(constrained, n=10, span=4.0, link=0.5, k=500.0, m=0.2):
    """Independent equilibrium by shooting: node positions ``(n + 2, 2)`` and link tensions ``(n + 1,)``."""
    V = n * m * G_ACC / 2

    def shape(H):
        F = np.stack([np.full(n + 1, H), -V + m * G_ACC * np.arange(n + 1)], axis=1)
        T = np.linalg.norm(F, axis=1)
        ell = link if constrained else link + T / k
        steps = (ell / T)[:, None] * F
        return np.vstack([[0.0, 0.0], np.cumsum(steps, axis=0)]), T

    H = brentq(lambda H: shape(H)[0][-1, 0] - span, 1e-6, 1e6, xtol=1e-14, rtol=1e-15)
    return shape(H)


def _fd_hessian(fun, x, h=1e-4):
    n = len(x)
    Hm = np.empty((n, n))
    f0 = fun(x)
    for i in range(n):
        for j in range(i, n):
            e_i, e_j = np.eye(n)[i] * h, np.eye(n)[j] * h
            Hm[i, j] = Hm[j, i] = (fun(x + e_i + e_j) - fun(x + e_i - e_j) - fun(x - e_i + e_j)
                                   + fun(x - e_i - e_j)) / (4 * h * h)
    return Hm if np.isfinite(f0) else None


def catenary_frequencies(constrained, n=10, span=4.0, link=0.5, k=500.0, m=0.2):
    """Natural frequencies [Hz] and mode shapes of the independent linearization about the equilibrium."""
    X, T = catenary_equilibrium(constrained, n, span, link, k, m)
    ends = (X[0], X[-1])

    def pts(x):
        return np.vstack([ends[0], x.reshape(n, 2), ends[1]])

    def lengths(x):
        P = pts(x)
        return np.array([np.hypot(*(P[j + 1] - P[j])) for j in range(n + 1)])

    def energy(x):
        Vg = sum(m * G_ACC * x[2 * j + 1] for j in range(n))
        if constrained:                          # Lagrangian: potential + tension x (length - link)
            return Vg + sum(T[j] * (lj - link) for j, lj in enumerate(lengths(x)))
        return Vg + sum(0.5 * k * (lj - link) ** 2 for lj in lengths(x))

    x0 = X[1:-1].ravel()
    Kh = _fd_hessian(energy, x0)
    Mm = m * np.eye(2 * n)
    if constrained:
        h = 1e-6
        Gfd = np.array([(lengths(x0 + h * e) - lengths(x0 - h * e)) / (2 * h) for e in np.eye(2 * n)]).T
        N = sla.null_space(Gfd)
        Kh, Mm, back = N.T @ Kh @ N, N.T @ Mm @ N, N
    else:
        back = np.eye(2 * n)
    w2, Phi = sla.eigh(0.5 * (Kh + Kh.T), Mm)
    return np.sqrt(np.maximum(w2, 0)) / (2 * np.pi), back @ Phi


# -- spinning ring ("Kreisel") -------------------------------------------------------------
def ring(n=12, R=1.0, m=0.1, k=100.0, L0=1.0, omega=None):
    """``n`` masses on a circle of radius ``R`` in the x-y plane, neighbours joined by springs
    (L0, k), spinning about z with angular velocity ``omega`` (default: steady at ``R``)."""
    if omega is None:
        omega = ring_steady_omega(R, n, m, k, L0)
    mss = ms.MassSpringSystem3d()
    nodes = []
    for i in range(n):
        a = 2 * np.pi * i / n
        nodes.append(mss.add(ms.Mass(m, [R * np.cos(a), R * np.sin(a), 0.0],
                                     vel=[-omega * R * np.sin(a), omega * R * np.cos(a), 0.0])))
    for i in range(n):
        mss.add(ms.Spring(L0, k, [nodes[i], nodes[(i + 1) % n]]))
    return mss


def ring_steady_omega(r, n=12, m=0.1, k=100.0, L0=1.0):
    """Angular velocity of steady spinning at radius ``r``: ``m w^2 r = 2 s k (2 r s - L0)``."""
    s = np.sin(np.pi / n)
    rhs = 2 * s * k * (2 * r * s - L0)
    if rhs <= 0:
        raise ValueError(f"ring: no steady spinning at radius {r} (the springs are not in tension)")
    return np.sqrt(rhs / (m * r))


def ring_steady_radius(H, n=12, m=0.1, k=100.0, L0=1.0):
    """Steady radius for the angular momentum ``H`` (force balance with ``w = H / (n m r^2)``)."""
    s = np.sin(np.pi / n)
    f = lambda r: m * (H / (n * m * r * r)) ** 2 * r - 2 * s * k * (2 * r * s - L0)   # noqa: E731
    return brentq(f, L0 / (2 * s) * (1 + 1e-12), 1e3)


def ring_radius_exact(t, R, omega, n=12, m=0.1, k=100.0, L0=1.0):
    """Radius ``r(t)`` of the symmetric motion from the reduced equation (DOP853, tol 1e-13)."""
    s = np.sin(np.pi / n)
    H = n * m * R * R * omega

    def rhs(_, z):
        r, rd = z
        return [rd, H ** 2 / (n * n * m * m * r ** 3) - 2 * s * k / m * (2 * r * s - L0)]
    sol = solve_ivp(rhs, (0, float(np.max(t))), [R, 0.0], method="DOP853", t_eval=np.atleast_1d(t),
                    rtol=1e-13, atol=1e-13)
    return sol.y[0]


# -- bridge lattice ---------------------------------------------------------------------------
def bridge(nx=10, dx=1.0, width=1.0, height=1.0, m=1.0, k=2000.0, F0=2.0, Omega=3.0):
    """A box lattice ``nx`` bays long (nodes (i, j, l), j, l in {0, 1}), cross-braced on every face,
    end frames fixed, gravity -z and the periodic load ``F0 sin(Omega t)`` in z on every mass."""
    mss = ms.MassSpringSystem3d()
    mss.gravity = [0, 0, -G_ACC]
    h = {}
    for i in range(nx + 1):
        for j in range(2):
            for l in range(2):
                p = [i * dx, j * width, l * height]
                h[i, j, l] = mss.add(ms.Fix(p) if i in (0, nx) else ms.Mass(m, p))
    pos = {key: np.array([key[0] * dx, key[1] * width, key[2] * height]) for key in h}

    def spring(a, b):
        if h[a].kind == "fix" and h[b].kind == "fix":
            return
        mss.add(ms.Spring(float(np.linalg.norm(pos[b] - pos[a])), k, [h[a], h[b]]))
    for i in range(nx + 1):
        spring((i, 0, 0), (i, 1, 0)), spring((i, 0, 1), (i, 1, 1))
        spring((i, 0, 0), (i, 0, 1)), spring((i, 1, 0), (i, 1, 1))
        spring((i, 0, 0), (i, 1, 1)), spring((i, 1, 0), (i, 0, 1))
        if i < nx:
            for j in range(2):
                for l in range(2):
                    spring((i, j, l), (i + 1, j, l))
            for a, b in (((0, 0), (1, 0)), ((0, 1), (1, 1)), ((0, 0), (0, 1)), ((1, 0), (1, 1))):
                spring((i, *a), (i + 1, *b)), spring((i, *b), (i + 1, *a))
    for c in h.values():
        if c.kind == "mass":
            mss.add(ms.Force(c, lambda t: [0.0, 0.0, F0 * np.sin(Omega * t)]))
    mid = [h[nx // 2, j, l].index for j in range(2) for l in range(2)]
    return mss, mid


def ring_invariants(res):
    """Mean radius, angular momentum about z and energy of a ring run, per output row."""
    P, V = res.positions(), res.velocities()
    m = res.dae.net.m[None, :, None]
    H = np.sum(m[..., 0] * (P[..., 0] * V[..., 1] - P[..., 1] * V[..., 0]), axis=1)
    return np.linalg.norm(P[..., :2], axis=2).mean(axis=1), H, res.energies()["total"]

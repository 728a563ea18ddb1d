"""A double pendulum whose tip hits a wall, against an event-driven reference.

Two uniform rods (mass ``m``, length ``L``) hang from a pin at the origin;
the tip of the second rod strikes the wall ``x = d`` (Newton's law with
``e_N``, frictionless).  The model for the time-stepping schemes is the
assembled system (planar rigid bodies, revolute joints, gravity) with a
:class:`~phmech.contact.PointPlane` contact at the tip: the bilateral
constraints act on velocity level in Moreau's scheme and on acceleration
and velocity level in the generalized-alpha method.

The reference uses the absolute angles ``phi_1, phi_2`` from the downward
vertical (minimal coordinates): between impacts the Lagrange equations

.. math::

    \\begin{pmatrix} (m/3 + m) L^2 & m L^2/2 \\cos(\\phi_1-\\phi_2) \\\\
    m L^2/2 \\cos(\\phi_1-\\phi_2) & m L^2/3 \\end{pmatrix} \\ddot\\phi
    + \\frac{m L^2}2 \\sin(\\phi_1-\\phi_2) \\begin{pmatrix} \\dot\\phi_2^2 \\\\ -\\dot\\phi_1^2 \\end{pmatrix}
    = -g L m \\begin{pmatrix} \\tfrac32 \\sin\\phi_1 \\\\ \\tfrac12 \\sin\\phi_2 \\end{pmatrix}

are integrated by DOP853 at ``rtol = atol = 1e-12`` up to the zero of the
gap ``g_N = d - L (\\sin\\phi_1 + \\sin\\phi_2)`` (located to 1e-14 s); at the
impact ``w = \\partial g_N / \\partial\\phi = -L (\\cos\\phi_1, \\cos\\phi_2)``
and ``\\dot\\phi^+ = \\dot\\phi^- - (1 + e_N) w^T \\dot\\phi^- M^{-1} w / (w^T M^{-1} w)``.

Where the numbers come from: the case is not taken from a published
benchmark; the data are chosen here and the reference is the event-driven
solution above.

==============  ===================  ============================================
parameter       value                source
==============  ===================  ============================================
m, L            1 kg, 0.5 m per rod  chosen here (uniform rods)
d               0.3 m                chosen here (the tip starts at x = -0.84 m)
e_N             0.5                  chosen here
phi0, rates     (-1, -1) rad, rest   chosen here
g               9.81 m/s^2           as in the other contact benchmarks
t_end           3 s                  chosen here
==============  ===================  ============================================
"""
import numpy as np
from scipy.integrate import solve_ivp

from .. import System
from ..bodies.rigid import PlanarRigidBody
from ..contact import NonsmoothProblem, PointPlane, simulate

G = 9.81


class Pendulum:
    """Parameters and the event-driven reference solution."""

    def __init__(self, m=1.0, L=0.5, d=0.3, e_N=0.5, phi0=(-1.0, -1.0), t_end=3.0):
        self.m, self.L, self.d, self.e_N, self.t_end = m, L, d, e_N, t_end
        self.phi0 = np.asarray(phi0, float)
        self._reference()

    def mass(self, phi):
        m, L = self.m, self.L
        c = m * L * L / 2 * np.cos(phi[0] - phi[1])
        return np.array([[4 * m * L * L / 3, c], [c, m * L * L / 3]])

    def rhs(self, t, z):
        phi, om = z[:2], z[2:]
        m, L = self.m, self.L
        s = m * L * L / 2 * np.sin(phi[0] - phi[1])
        f = -G * L * m * np.array([1.5 * np.sin(phi[0]), 0.5 * np.sin(phi[1])]) - s * np.array([om[1]**2, -om[0]**2])
        return np.r_[om, np.linalg.solve(self.mass(phi), f)]

    def gap(self, phi):
        return self.d - self.L * (np.sin(phi[0]) + np.sin(phi[1]))

    def _reference(self):
        z = np.r_[self.phi0, 0.0, 0.0]
        t = 0.0
        self.impacts, self.segments = [], []

        def hit(tt, zz):
            return self.gap(zz[:2])
        hit.terminal, hit.direction = True, -1
        while t < self.t_end:
            sol = solve_ivp(self.rhs, (t, self.t_end), z, method="DOP853", rtol=1e-12, atol=1e-12,
                            events=hit, dense_output=True)
            self.segments.append((t, sol.t[-1], sol.sol))
            if sol.status != 1:
                break
            t, z = sol.t_events[0][0], sol.y_events[0][0].copy()
            w = -self.L * np.cos(z[:2])
            Minv_w = np.linalg.solve(self.mass(z[:2]), w)
            z[2:] -= (1 + self.e_N) * (w @ z[2:]) / (w @ Minv_w) * Minv_w
            self.impacts.append(t)
            t += 1e-12                 # leave the wall before the next search
            if len(self.impacts) > 200:
                break

    def __call__(self, t):
        """Reference ``(phi_1, phi_2, phi_1', phi_2')`` at the times ``t`` (rows)."""
        t = np.atleast_1d(np.asarray(t, float))
        out = np.empty((len(t), 4))
        for k, tk in enumerate(t):
            for t0, t1, s in self.segments:
                if tk <= t1 or (t0, t1, s) == self.segments[-1]:
                    out[k] = s(min(max(tk, t0), t1))
                    break
        return out

    def model(self):
        """``(problem, y0)``: the assembled pendulum with the wall contact."""
        m, L = self.m, self.L
        th = self.phi0 - np.pi / 2                     # rod direction (sin phi, -cos phi)
        a = PlanarRigidBody.rod("rod1", m, L, angle=th[0])
        tip1 = L * np.array([np.sin(self.phi0[0]), -np.cos(self.phi0[0])])
        b = PlanarRigidBody.rod("rod2", m, L, position=tip1, angle=th[1])
        s = System([a, b])
        s.pin(a.port("A"), name="pivot")
        s.connect(a.port("B"), b.port("A"), name="knee")
        s.add_gravity((0.0, -G))
        wall = PointPlane(b.port("B"), (-1.0, 0.0), point=(self.d, 0.0), e_N=self.e_N, name="wall")
        p = NonsmoothProblem(s, [wall])
        y0 = np.zeros(p.n)
        y0[p.sq] = p.dae.q0
        return p, y0


def run_pendulum(dt=2e-3, solver="moreau", **kw):
    """Double pendulum and wall: result with ``errors`` (impact times, angles, drift) and ``reference``."""
    pend = Pendulum(**kw)
    p, y0 = pend.model()
    res = simulate(p, (0.0, pend.t_end), y0, method=solver, dt=dt)
    q = res.y[:, p.sq]
    phi = np.column_stack([q[:, p.q_slices["rod1"]][:, 2], q[:, p.q_slices["rod2"]][:, 2]]) + np.pi / 2
    ref = pend(res.t)
    PN = res.steps["P_N"][:, 0]
    on = PN > 0
    t_imp = np.array([res.steps["t"][k] for k in range(1, len(on)) if on[k] and not on[k - 1]])
    n = min(len(t_imp), len(pend.impacts))
    drift = max(np.max(np.abs(v)) for v in p.position_residuals(0.0, q[-1]).values())
    gaps = np.array([p.contact_state(qq)[0][0] for qq in q])
    res.reference = pend
    res.errors = {"impact_times": t_imp[:n] - np.array(pend.impacts[:n]), "n_impacts": len(t_imp),
                  "n_impacts_reference": len(pend.impacts),
                  "angles": float(np.max(np.abs(phi - ref[:, :2]))),
                  "angles_before_first_impact": float(np.max(np.abs(phi - ref[:, :2])[
                      res.t < (pend.impacts[0] if pend.impacts else np.inf)])),
                  "position_drift": float(drift), "penetration": float(max(0.0, -gaps.min())),
                  "energy_balance": float(np.max(np.abs(res.energy_balance())))}
    res.phi = phi
    return res

"""The flexible four-bar of Kitis & Lindenberg (1990) / Chebbi et al. (2017).

Ground 0.254 m; crank 0.108 m (A = 1.0774e-4 m^2, EI = 11.472 N m^2);
coupler 0.2794 m and follower 0.2705 m (A = 4.0645e-5 m^2, EI = 0.616 N m^2);
rho = 2714 kg/m^3, E = 7.1e10 Pa; lumped masses of 0.042 kg at the
crank-coupler and coupler-follower joints.  Each link is a floating
Euler-Bernoulli beam with a cantilever deformation field; revolute joints
are transformer interconnections; the crank is clamped at the ground
(locked motor) and the follower pinned there.  :class:`FourBar` moves the
assembled mechanism to any crank angle (loop closure) and linearizes it
there.
"""
import numpy as np

from ..solvers.eigen import linearize
from ..system import System

E_MOD, RHO, M_JOINT = 7.1e10, 2714.0, 0.042
#: (length [m], area [m^2], EI [N m^2]) of crank, coupler, follower; ground length
LINKS = {"crank": (0.108, 1.0774e-4, 11.472),
         "coupler": (0.2794, 4.0645e-5, 0.616),
         "follower": (0.2705, 4.0645e-5, 0.616)}
L_GROUND = 0.254


def configuration(theta1, links=LINKS, L0=L_GROUND):
    """Loop closure: joint positions and absolute link angles for crank angle ``theta1``.

    Returns ``(P, Q, phi)``: crank-coupler joint, coupler-follower joint and
    the absolute angles of crank, coupler and follower (the follower points
    from Q to the ground pin).  The assembly with Q to the left of the
    line P -> ground pin (the open, "elbow-up" branch) is taken.
    """
    L1, L2, L3 = (links[k][0] for k in ("crank", "coupler", "follower"))
    P = L1 * np.array([np.cos(theta1), np.sin(theta1)])
    B0 = np.array([L0, 0.0])
    dv = B0 - P
    d = np.linalg.norm(dv)
    if not (abs(L2 - L3) <= d <= L2 + L3):
        raise ValueError(f"four-bar cannot be assembled at crank angle {np.degrees(theta1):.3f} deg")
    a = (L2**2 - L3**2 + d**2) / (2 * d)
    h = np.sqrt(max(L2**2 - a**2, 0.0))
    u = dv / d
    Q = P + a * u + h * np.array([-u[1], u[0]])
    phi2 = np.arctan2(*(Q - P)[::-1])
    phi3 = np.arctan2(*(B0 - Q)[::-1])
    return P, Q, np.array([theta1, phi2, phi3])


def flexible_four_bar(n_elem=6, links=LINKS, gravity=0.0):
    """The mechanism (configuration at crank angle 0), under ``gravity`` [m/s^2] along ``-y``
    if given; returns ``(system, bodies)``."""
    from ..fem import FloatingEulerBernoulliBeam

    P, Q, phi = configuration(0.0, links)
    bodies = {}
    origins = {"crank": np.zeros(2), "coupler": P, "follower": Q}
    for i, (name, (L, A, EI)) in enumerate(links.items()):
        masses = [] if name == "crank" else [(0.0, M_JOINT)]
        bodies[name] = FloatingEulerBernoulliBeam(name, L, n_elem, RHO, A, E_MOD, EI / E_MOD,
                                                  frame="cantilever", point_masses=masses,
                                                  position=origins[name], angle=phi[i])
    s = System(list(bodies.values()))
    s.clamp(bodies["crank"].port("A"), name="locked motor")
    s.connect(bodies["crank"].port("B"), bodies["coupler"].port("A"), name="crank-coupler")
    s.connect(bodies["coupler"].port("B"), bodies["follower"].port("A"), name="coupler-follower")
    s.pin(bodies["follower"].port("B"), name="ground pin")
    if gravity:
        s.add_gravity((0.0, -float(gravity)))
    return s, bodies


class FourBar:
    """A four-bar assembled once; :meth:`linearize` moves it to any crank angle (under gravity:
    to the equilibrium that the links' deflection reaches there)."""

    def __init__(self, n_elem=6, links=LINKS, gravity=0.0):
        self.system, self.bodies = flexible_four_bar(n_elem, links, gravity)
        self.gravity = float(gravity)
        self._motor = next(j for j in self.system.joints if j.name == "locked motor")
        self.dae = self.system.assemble()
        self.links = links

    def q(self, theta1):
        P, Q, phi = configuration(theta1, self.links)
        q = np.zeros(self.dae.nq)
        for pos, name, ang in ((np.zeros(2), "crank", phi[0]), (P, "coupler", phi[1]), (Q, "follower", phi[2])):
            q[self.dae.q_slices[name]] = [pos[0], pos[1], ang]
        return q

    def linearize(self, theta1):
        if self.gravity:         # the motor locked at theta1, the links deflected by their weight
            self._motor.relative_angle = float(theta1)
            return linearize(self.dae, q0=self.q(theta1))
        return linearize(self.dae, self.q(theta1))

    def mode_shapes(self, theta1, k=3, scale=0.05, n_points=21):
        """Deformed link axes of the first ``k`` modes at crank angle ``theta1``.

        Returns ``(omega, shapes)`` with ``shapes[i][name]`` an array
        ``(n_points, 2)`` of inertial coordinates.  Each complex mode (its
        velocity amplitude divided by ``j omega``: the displacement amplitude)
        is turned by the phase of its largest displacement along the drawn
        axes before its real part is taken, so that this displacement is real
        and no mode is drawn undeformed; the largest displacement is then
        ``scale`` times the ground length.  (The largest entry of the effort
        vector may be a stress, a quarter period out of phase with the
        displacements.)
        """
        q = self.q(theta1)
        modes = self.linearize(theta1).eigenmodes(k)
        x = {n: np.linspace(0, b.L, n_points) for n, b in self.bodies.items()}
        rows = {n: np.vstack(b.velocity_rows(x[n])) for n, b in self.bodies.items()}
        shapes = []
        for i, w in enumerate(modes.omega):
            amplitude = modes.vectors[:, i] / (1j * w)
            drawn = np.concatenate([rows[n] @ amplitude[self.dae.e_slices[n]] for n in self.bodies])
            largest = drawn[np.argmax(np.abs(drawn))]
            disp = (amplitude * np.exp(-1j * np.angle(largest))).real * (scale * L_GROUND / max(abs(largest), 1e-300))
            shapes.append({n: b.deformed_axis(q[self.dae.q_slices[n]], disp[self.dae.e_slices[n]], n_points)
                           for n, b in self.bodies.items()})
        return modes.omega, shapes

"""Small mechanisms shared by the tests."""
import numpy as np

from phmech import PlanarRigidBody, PointMass, System

L1, L2, OMEGA = 0.15, 0.3, 150.0


def rigid_crank_slider():
    crank = PlanarRigidBody.rod("crank", 0.36, L1)
    coupler = PlanarRigidBody.rod("coupler", 0.151104, L2, position=(L1, 0.0))
    slider = PointMass("slider", 0.075552, position=(L1 + L2, 0.0))
    s = System([crank, coupler, slider])
    s.pin(crank.port("A"))
    s.drive(crank, OMEGA)
    s.connect(crank.port("B"), coupler.port("A"))
    s.connect(coupler.port("B"), slider.port("P"))
    s.slide(slider, (1.0, 0.0))
    return s, crank, coupler, slider


def slider_position_exact(t):
    th = OMEGA * t
    return L1 * np.cos(th) + np.sqrt(L2**2 - (L1 * np.sin(th)) ** 2)


def pendulum(omega0=2.0, gravity=9.81):
    """A rod pinned at its end, under gravity, started horizontally with angular velocity omega0."""
    rod = PlanarRigidBody.rod("rod", 1.0, 1.0)
    s = System([rod])
    s.pin(rod.port("A"))
    # gravity as a force at the centre of mass (inertial frame)
    rod.ports  # noqa: B018
    s.apply_force(add_port(rod, "G", (0.5, 0.0)), (0.0, -gravity * rod.mass))
    dae = s.assemble()
    e0 = np.array([0.0, 0.0, omega0])
    return s, rod, dae, e0


def add_port(body, name, r):
    r = np.asarray(r, float)
    return body.add_point(name, r)

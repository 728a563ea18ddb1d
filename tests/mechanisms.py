"""Small mechanisms shared by the tests."""
import numpy as np

from phmech import PlanarRigidBody, System
from phmech.mechanisms import rigid_crank_slider as _rigid_crank_slider

L1, L2, OMEGA = 0.15, 0.3, 150.0


def rigid_crank_slider():
    return _rigid_crank_slider(L1, L2, OMEGA)


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


def spring_chain_3d():
    """Two masses hanging on springs from a fixed point (3D network), run for 0.3 s."""
    from phmech import massspring as ms
    mss = ms.MassSpringSystem3d()
    mss.gravity = [0.0, 0.0, -9.81]
    f = mss.add(ms.Fix([0.0, 0.0, 0.0]))
    a = mss.add(ms.Mass(1.0, [1.0, 0.0, 0.0]))
    b = mss.add(ms.Mass(1.0, [1.0, 1.0, 0.0]))
    mss.add(ms.Spring(1.0, 500.0, (f, a)))
    mss.add(ms.Spring(1.0, 500.0, (a, b)))
    return mss.simulate(0.3, 60)


def loaded_clamped_plate():
    """A coarse clamped Kirchhoff plate pushed at its centre, 2 ms of midpoint steps:
    ``(plate, result)``.  Needs Firedrake."""
    import firedrake as fd
    from phmech.fem.plate import KirchhoffPlate
    p = KirchhoffPlate("plate", fd.UnitSquareMesh(3, 3), 0.01, 2700.0, 70e9, 0.3, degree=1,
                       boundary={1: "clamped", 2: "clamped", 3: "clamped", 4: "clamped"})
    port = p.add_patch_port("centre", (0.5, 0.5), 0.3)
    s = System([p])
    s.apply_force(port, (0.0, 0.0, 100.0))
    return p, s.simulate(2e-3, solver="midpoint", dt=1e-4)


def spherical_chain(n=4):
    """``n`` bars of 1 m and 1 kg on spherical joints (to the ground and between bodies) under
    gravity, released horizontal."""
    from phmech import SpatialRigidBody
    from phmech.joints import Spherical
    bars = [SpatialRigidBody.bar(f"bar{i}", 1.0, (i, 0.0, 0.0), (i + 1.0, 0.0, 0.0), section=(0.1, 0.1))
            for i in range(n)]
    s = System(bars)
    s.add_joint(Spherical(bars[0].port("A"), None, name="J0"))
    for i in range(1, n):
        s.add_joint(Spherical(bars[i - 1].port("B"), bars[i].port("A"), name=f"J{i}"))
    s.add_gravity((0.0, 0.0, -9.81))
    return s

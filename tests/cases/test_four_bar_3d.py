"""The flexible four-bar modelled with spatial beams and spatial joints gives the planar
model's natural frequencies (its in-plane spectrum), at several crank angles."""
import numpy as np
import pytest

from conftest import needs_firedrake


def four_bar_3d(theta1, n_elem):
    from phmech import PointMass, System
    from phmech.fem.beam3d import FloatingSpatialBeam
    from phmech.joints import Revolute3, Spherical, Weld3
    from phmech.math.rotations import quat_from_axis_angle
    from phmech.mechanisms.four_bar import E_MOD, LINKS, M_JOINT, RHO, configuration

    P, Q, phi = configuration(theta1)
    origins = {"crank": np.zeros(2), "coupler": P, "follower": Q}
    bodies = {}
    for i, (name, (L, A, EI)) in enumerate(LINKS.items()):
        I = EI / E_MOD
        bodies[name] = FloatingSpatialBeam(name, L, n_elem, RHO, A, E_MOD, 3.0 * I, I,
                                           position=(*origins[name], 0.0),
                                           orientation=quat_from_axis_angle((0, 0, 1), phi[i]))
    masses = {n: PointMass(f"mass {n}", M_JOINT, position=(*origins[n], 0.0)) for n in ("coupler", "follower")}
    s = System(list(bodies.values()) + list(masses.values()))
    z = (0.0, 0.0, 1.0)
    s.add_joint(Weld3(bodies["crank"].port("A"), name="locked motor"))
    s.add_joint(Revolute3(bodies["crank"].port("B"), bodies["coupler"].port("A"), axis=z, name="crank-coupler"))
    s.add_joint(Revolute3(bodies["coupler"].port("B"), bodies["follower"].port("A"), axis=z,
                          name="coupler-follower"))
    s.add_joint(Revolute3(bodies["follower"].port("B"), None, axis=z, name="ground pin"))
    for n, m in masses.items():
        s.add_joint(Spherical(m.port("P"), bodies[n].port("A"), name=f"mass at {n}"))
    return s


@needs_firedrake
@pytest.mark.parametrize("deg", [0.0, 90.0, 225.0])
def test_spatial_four_bar_contains_the_planar_frequencies(deg):
    from phmech.mechanisms import FourBar
    th = np.radians(deg)
    w2 = FourBar(4).linearize(th).eigenmodes(3).omega
    s3 = four_bar_3d(th, 4)
    w3 = s3.linearize().eigenmodes(12, method="dense").omega
    for w in w2:
        assert np.min(np.abs(w3 - w)) < 1e-8 * w, (deg, w, w3)

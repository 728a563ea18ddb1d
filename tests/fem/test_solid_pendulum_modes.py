"""A floating 3D solid hanging on a hinge under gravity: its pendulum mode from the linearization
(the tangent stiffness of gravity on a floating flexible body is not symmetric, so the modes come
from the general eigen path) against the compound pendulum of the same box."""
import numpy as np
import pytest

fd = pytest.importorskip("firedrake")

from phmech import System  # noqa: E402
from phmech.fem import ElasticSolid  # noqa: E402
from phmech.joints.spatial import Revolute3  # noqa: E402

A, B, RHO, G = 0.4, 0.05, 7800.0, 9.81


def test_hanging_solid_swings_at_the_compound_pendulum_frequency():
    mesh = fd.BoxMesh(4, 1, 1, A, B, B)
    arm = ElasticSolid("arm", mesh, RHO, 2e11, 0.3, floating=True, reference=("clamped", 1),
                       orientation=(np.cos(-np.pi / 4), 0.0, 0.0, np.sin(-np.pi / 4)))    # hanging along -y
    pin = arm.add_face_port("pin", 1)
    s = System([arm])
    s.add_joint(Revolute3(pin, None, axis=(0.0, 0.0, 1.0), name="hinge"))
    s.add_gravity((0.0, -G, 0.0))
    modes = s.linearize().eigenmodes(2)
    m = RHO * A * B * B
    inertia = m * ((A ** 2 + B ** 2) / 12 + (A / 2) ** 2)         # about the hinge through the face's centre
    omega = np.sqrt(m * G * (A / 2) / inertia)
    # the solid's first elastic mode lies 270 times higher: its compliance lowers the swing by ~1e-5
    assert modes.omega[0] == pytest.approx(omega, rel=1e-4)
    assert modes.omega[1] > 100 * omega

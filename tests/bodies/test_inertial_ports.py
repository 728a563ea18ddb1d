"""Joints and moments at the ports of the bodies with inertial velocities (Disc, Top): their rotation
rows are in the body's axes, so the joints turn them by the body's orientation (its
``port_orientation``) and an inertial moment is turned into those axes."""
import numpy as np

from phmech import System
from phmech.bodies.inertial import Top
from phmech.joints import Revolute3
from phmech.math.rotations import UnitQuaternion


def _top():
    p = np.array([0.8, 0.2, -0.4, 0.4]) / np.linalg.norm([0.8, 0.2, -0.4, 0.4])
    return Top("top", 1.0, (0.1, 0.2, 0.3), position=(0.2, 0.1, 0.5), orientation=p), UnitQuaternion.matrix(p)


def test_a_turned_top_on_a_revolute_joint_spins_about_the_inertial_axis():
    """A top turned away from the inertial axes, on a revolute joint about ``z`` at its centre: the
    joint's rows allow exactly the spin about ``z`` (body components ``R^T e_z``) with the centre at
    rest, and they are the rates of its position residual."""
    top, R = _top()
    s = System([top])
    j = s.add_joint(Revolute3(top.port("C"), None, axis=(0.0, 0.0, 1.0), name="hinge"))
    dae = s.assemble()
    q = dae.q0
    G = dae.G(q)
    spin = np.r_[np.zeros(3), R.T @ np.array([0.0, 0.0, 1.3])]
    assert np.abs(G @ spin).max() <= 1e-14
    assert np.linalg.matrix_rank(G) == 5
    e = np.random.default_rng(2).standard_normal(dae.ne)
    qdot = dae.f(0.0, np.r_[q, e, np.zeros(dae.nl)])[dae.sq]
    r = lambda z: j.position_residual(dae.body_q_getter(z), 0.0)
    h = 1e-6
    assert np.abs((r(q + h * qdot) - r(q - h * qdot)) / (2 * h) - G @ e).max() <= 1e-8


def test_an_inertial_moment_on_a_top_is_turned_into_its_axes():
    """The generalized force of an inertial moment ``m`` on the top's angular velocity rows is
    ``R^T m`` (its power ``m . R Omega``), a body-frame one ``m`` itself."""
    top, R = _top()
    m = np.array([0.3, -0.2, 0.5])
    for frame, expected in (("inertial", R.T @ m), ("body", m)):
        s = System([top])
        s.apply_moment(top.port("C"), m, frame=frame, name="m")
        dae = s.assemble()
        f = dae.f(0.0, np.r_[dae.q0, np.zeros(dae.ne + dae.nl)])[dae.se]
        assert np.abs(f[3:6] - expected).max() <= 1e-14

"""Initial velocities of bodies in inertial components: ``velocity=`` / ``angular_velocity=`` of the
bodies and ``System.initial_state(velocities=...)``, projected onto the joints."""
import logging

import numpy as np
import pytest

from phmech import PlanarRigidBody, PointMass, SpatialRigidBody, System
from phmech.bodies.motion import frame_velocity
from phmech.math.rotations import quat_from_axis_angle


def end_motion(system, res, name):
    """The inertial motion of body ``name`` at the last row of ``res``."""
    body = system.body(name)
    return frame_velocity(body, res.q(name)[-1], res.e(name)[-1])


def test_free_bodies_keep_their_inertial_velocities():
    """No joints, no gravity: every body moves with the given inertial velocity, in every frame."""
    turned = quat_from_axis_angle([1.0, 1.0, 0.0], 0.7)            # the body frame is not the inertial one
    box = SpatialRigidBody("box", 2.0, [0.1, 0.2, 0.3], position=(0.0, 0.0, 1.0), orientation=turned,
                           velocity=(1.0, -2.0, 0.5))
    disc = PlanarRigidBody("disc", 1.0, 0.02, angle=0.4, velocity=(0.3, 0.4), angular_velocity=5.0)
    point = PointMass("point", 0.5, (1.0, 2.0, 3.0), velocity=(0.0, 0.0, -1.5))
    s = System([box, disc, point])
    y0 = s.initial_state()
    dae = s.assemble()
    assert "velocities" not in dae.projection_report
    res = s.simulate(0.5, dt=1e-3)
    v, w = end_motion(s, res, "box")
    np.testing.assert_allclose(v, [1.0, -2.0, 0.5], atol=1e-12)
    np.testing.assert_allclose(w, 0.0, atol=1e-12)
    np.testing.assert_allclose(res.q("box")[-1, :3], [0.5, -1.0, 1.25], atol=1e-10)
    sq, se = dae.q_slices["disc"], dae.e_slices["disc"]
    v, w = frame_velocity(disc, y0[sq], y0[dae.nq:][se])     # exactly the given motion at the start
    np.testing.assert_allclose(v, [0.3, 0.4], atol=1e-15)
    assert w == 5.0
    # centre of mass at P: the origin moves straight on while the disc turns; the midpoint rule
    # turns the body-frame velocity by the Cayley rotation, off by (omega dt)^2 / 12 per unit angle
    v, w = end_motion(s, res, "disc")
    np.testing.assert_allclose(v, [0.3, 0.4], atol=1e-5)
    assert w == pytest.approx(5.0, abs=1e-12)
    np.testing.assert_allclose(res.q("disc")[-1], [0.15, 0.2, 0.4 + 2.5], atol=1e-5)
    np.testing.assert_allclose(res.q("point")[-1], [1.0, 2.0, 3.0 - 0.75], atol=1e-10)
    # the efforts of a turned frame are its body-frame components
    R = box.rotation(y0[dae.q_slices["box"]])
    np.testing.assert_allclose(y0[dae.nq:][dae.e_slices["box"]][:3], R.T @ [1.0, -2.0, 0.5], atol=1e-14)


def test_a_spinning_top_keeps_its_inertial_angular_velocity():
    """A spatial body spun about a principal axis (given in inertial components) keeps spinning."""
    axis = quat_from_axis_angle([0.0, 1.0, 0.0], 0.5)             # body z is tilted
    top = SpatialRigidBody("top", 1.0, [0.2, 0.2, 0.4], orientation=axis)
    s = System([top])
    spin = top.rotation(top.q0) @ [0.0, 0.0, 30.0]                # along the body's symmetry axis
    res = s.simulate(0.2, dt=1e-4, velocities={"top": {"angular_velocity": spin}})
    v, w = end_motion(s, res, "top")
    np.testing.assert_allclose(w, spin, atol=1e-9)
    np.testing.assert_allclose(v, 0.0, atol=1e-12)


def test_a_pendulum_given_an_inconsistent_velocity_gets_the_projected_one(caplog):
    """A rod pinned at its end A is given a velocity of A: the joint allows none, so A stays at
    rest and the rod turns at the rate of least kinetic-energy change, omega = -3 v sin(theta) / (2 L)."""
    L, theta = 0.8, -1.2
    rod = PlanarRigidBody.rod("rod", 1.5, L, angle=theta, velocity=(1.0, 0.0))
    s = System([rod])
    s.pin(rod.port("A"), name="pin")
    with caplog.at_level(logging.WARNING, logger="phmech"):
        y0 = s.initial_state()
    dae = s.assemble()
    v, w = frame_velocity(rod, y0[dae.q_slices["rod"]], y0[dae.nq:][dae.e_slices["rod"]])
    np.testing.assert_allclose(v, 0.0, atol=1e-12)
    assert w == pytest.approx(-1.5 * np.sin(theta) / L, rel=1e-12)
    report = dae.projection_report["stated_velocities"]["rod"]
    np.testing.assert_allclose(report["given"][0], [1.0, 0.0])
    assert report["given"][1] == 0.0 and report["projected"][1] == pytest.approx(w)
    assert dae.projection_report["velocities"]["pin"] == pytest.approx(1.0)
    text = caplog.text
    assert "initial velocities projected onto the joints" in text and "body 'rod'" in text
    # the same through System.initial_state: the given entry replaces the body's own
    y1 = s.initial_state(velocities={rod: {"angular_velocity": 2.0}})
    v, w = frame_velocity(rod, y1[dae.q_slices["rod"]], y1[dae.nq:][dae.e_slices["rod"]])
    np.testing.assert_allclose(v, 0.0, atol=1e-12)
    assert w == pytest.approx(-1.5 * np.sin(theta) / L + 2.0, rel=1e-12)
    # a consistent velocity is kept and not reported
    y2 = s.initial_state(velocities={"rod": {"velocity": (0.0, 0.0), "angular_velocity": 2.0}})
    assert y2[dae.nq:][dae.e_slices["rod"]][2] == pytest.approx(2.0, abs=1e-14)
    assert "stated_velocities" not in dae.projection_report


def test_a_given_e0_is_the_whole_effort_vector():
    """With e0 the bodies' own velocities are not used; velocities= still replace entries of it."""
    p = PointMass("p", 1.0, (0.0, 0.0), velocity=(1.0, 2.0))
    s = System([p])
    dae = s.assemble()
    np.testing.assert_allclose(s.initial_state()[dae.nq:dae.nq + 2], [1.0, 2.0])
    np.testing.assert_allclose(s.initial_state(e0=[3.0, 4.0])[dae.nq:dae.nq + 2], [3.0, 4.0])
    np.testing.assert_allclose(s.initial_state(e0=[3.0, 4.0], velocities={p: (5.0, 6.0)})[dae.nq:dae.nq + 2],
                               [5.0, 6.0])


@pytest.mark.parametrize("build, message", [
    (lambda: PointMass("p", 1.0, (0.0, 0.0), velocity=(1.0, 2.0, 3.0)),
     r"body 'p': velocity must be 2 inertial components \[m/s\], got \(1.0, 2.0, 3.0\)"),
    (lambda: PointMass("p", 1.0, (0.0, 0.0, 0.0), velocity=(1.0, np.nan, 0.0)),
     r"body 'p': velocity must be finite, got \(1.0, nan, 0.0\)"),
    (lambda: PlanarRigidBody("r", 1.0, 0.1, angular_velocity=(1.0, 2.0)),
     r"body 'r': angular_velocity must be a number \[rad/s\], got \(1.0, 2.0\)"),
    (lambda: SpatialRigidBody("s", 1.0, [1, 1, 1], angular_velocity=2.0),
     r"body 's': angular_velocity must be 3 inertial components \[rad/s\], got 2.0"),
    (lambda: SpatialRigidBody("s", 1.0, [1, 1, 1], velocity="fast"),
     r"body 's': velocity must be 3 inertial components \[m/s\], got 'fast'"),
])
def test_bad_velocities_name_body_parameter_and_value(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_bad_velocities_of_initial_state():
    p = PointMass("p", 1.0, (0.0, 0.0))
    s = System([p])
    with pytest.raises(ValueError, match=r"velocities names 'q', which is no body of the system; the bodies are \['p'\]"):
        s.initial_state(velocities={"q": (1.0, 0.0)})
    with pytest.raises(ValueError, match=r"body 'p': a point mass has no angular velocity, got angular_velocity=1.0"):
        s.initial_state(velocities={p: {"angular_velocity": 1.0}})
    with pytest.raises(ValueError, match=r"velocities of body 'p': unknown entries \['omega'\]"):
        s.initial_state(velocities={p: {"omega": 1.0}})
    with pytest.raises(ValueError, match=r"velocities= sets up the initial state; it cannot be combined with y0="):
        s.simulate(0.1, y0=s.initial_state(), velocities={p: (1.0, 0.0)})


def test_a_torsional_spring_rests_at_the_initial_angle():
    """The default rest angle is the joint's initial relative angle (the rod at -1.2 rad stays
    there, no gravity); ``rest_angle=a`` is ``a`` away from it, as the angle of the second port
    (the ground) against the first (the rod): the rod swings about -1.2 - a."""
    def pendulum(**options):
        rod = PlanarRigidBody.rod("rod", 1.0, 1.0, angle=-1.2)
        s = System([rod])
        pin = s.pin(rod.port("A"), name="pin")
        s.add_torsional_spring(pin, stiffness=3.0, **options)
        return s
    s = pendulum()
    res = s.simulate(0.5, dt=1e-3)
    np.testing.assert_allclose(res.q("rod")[:, 2], -1.2, atol=1e-12)
    s = pendulum(rest_angle=0.2)
    theta = s.simulate(2.0, dt=1e-3).q("rod")[:, 2]
    # harmonic about -1.4 with amplitude 0.2 (k = 3, I_A = 1/3): theta = -1.4 + 0.2 cos(3 t)
    np.testing.assert_allclose(theta.max(), -1.2, atol=1e-9)
    np.testing.assert_allclose(theta.min(), -1.6, atol=1e-4)

"""Relative equilibria of rotating assemblies (phmech.solvers.static.relative_equilibrium):
a conical rod pendulum on a driven shaft (closed form) and a flyball governor with and without
its spring (an independent one-degree-of-freedom model written here)."""
import numpy as np
import pytest
from scipy.optimize import brentq

from phmech import PointMass, SpatialRigidBody, System
from phmech.joints import SpatialJoint
from phmech.solvers import solve
from phmech.solvers.static import EquilibriumError, relative_equilibrium

L, M_ARM, G = 0.5, 1.2, 9.81


def _conical(rate, tilt=0.6):
    """A uniform rod hinged at the top of a shaft that a drive turns at ``rate`` about z
    (the drive's rate is the relative rotation of the ground seen from the shaft: -rate)."""
    shaft = SpatialRigidBody("shaft", 2.0, np.diag([0.05, 0.05, 0.02]), ports={"top": (0.0, 0.0, 0.0)})
    arm = SpatialRigidBody.bar("arm", M_ARM, (0, 0, 0), (L * np.sin(tilt), 0.0, -L * np.cos(tilt)))
    s = System([shaft, arm])
    s.add_joint(SpatialJoint("revolute", shaft.port("P"), None, axis=(0, 0, 1), rate=-rate, name="drive"))
    s.add_joint(SpatialJoint("revolute", shaft.port("top"), arm.port("A"), axis=(0, 1, 0), name="hinge"))
    s.add_gravity((0, 0, -G))
    return s, arm


def _angle(body, q):
    """The arm's angle from the downward vertical."""
    tip = body.port_position(q, body.port("B")) - body.port_position(q, body.port("A"))
    return float(np.arctan2(np.hypot(tip[0], tip[1]), -tip[2]))


def test_conical_rod_pendulum():
    """I Omega^2 sin(theta) cos(theta) = m g (L/2) sin(theta) with I = m L^2 / 3 about the hinge:
    cos(theta*) = 3 g / (2 L Omega^2) above the critical speed; continued in the speed (each
    start the previous speed's configuration)."""
    q0 = None
    for rate in (6.0, 8.0, 11.0, 15.0, 25.0):
        s, arm = _conical(rate)
        dae = s.assemble()
        y = relative_equilibrium(dae, (0, 0, 1), rate, q0=q0)
        theta = _angle(arm, y[dae.q_slices["arm"]])
        assert abs(theta - np.arccos(3 * G / (2 * L * rate**2))) < 1e-9, rate
        q, e, _ = dae.split(y)
        assert np.allclose(e[dae.e_slices["arm"]][3:], arm.rotation(q[dae.q_slices["arm"]]).T @ [0, 0, rate],
                           atol=1e-12)                                 # the arm turns with the shaft
        q0 = q


def test_below_the_critical_speed_the_rod_hangs():
    rate = 0.8 * np.sqrt(3 * G / (2 * L))
    s, arm = _conical(rate, tilt=0.3)
    dae = s.assemble()
    y = relative_equilibrium(dae, (0, 0, 1), rate)
    assert _angle(arm, y[dae.q_slices["arm"]]) < 1e-8


def test_a_run_from_the_relative_equilibrium_stays_and_a_nudge_oscillates_at_omega_sin_theta():
    """About theta* the effective potential -I Omega^2 sin^2/2 - m g L/2 cos has the stiffness
    I Omega^2 sin^2(theta*): small oscillations at Omega sin(theta*)."""
    rate = 8.0
    s, arm = _conical(rate)
    dae = s.assemble()
    y = relative_equilibrium(dae, (0, 0, 1), rate)
    th_star = _angle(arm, y[dae.q_slices["arm"]])
    res = solve(dae, (0.0, 0.5), y, method="midpoint", dt=2e-3)
    th = np.array([_angle(arm, row[dae.sq][dae.q_slices["arm"]]) for row in res.y])
    assert np.max(np.abs(th - th_star)) < 1e-7                          # a steady motion, not a frozen one
    # start 0.01 rad off theta*, every body turning with the shaft, and time the oscillation
    s1, arm1 = _conical(rate, tilt=th_star + 0.01)
    dae = s1.assemble()
    e0 = np.zeros(dae.ne)
    for b in s1.bodies:
        e0[dae.e_slices[b.name]] = rate * b.rotation_velocity(b.q0, (0, 0, 1), (0, 0, 0))
    y1 = dae.initial_state(e0=e0)
    arm = arm1
    T = 2 * np.pi / (rate * np.sin(th_star))
    res = solve(dae, (0.0, 6 * T), y1, method="midpoint", dt=T / 400)
    d = np.array([_angle(arm, row[dae.sq][dae.q_slices["arm"]]) for row in res.y]) - th_star
    assert np.ptp(d) > 1e-4
    up = np.flatnonzero((d[:-1] < 0) & (d[1:] >= 0))
    tz = res.t[up] - d[up] * (res.t[up + 1] - res.t[up]) / (d[up + 1] - d[up])
    period = np.mean(np.diff(tz))
    assert abs(period / T - 1.0) < 2e-3


# -- a flyball governor: two arms hinged on the shaft, links from their middles to a sleeve --
ARM, LINK, SLEEVE, K = 1.0, 0.3, 0.8, 60.0


def _governor(rate, spring, tilt=0.7):
    """Arms of length L from the shaft's top, links of length L/2 from the arms' middles to a
    sleeve on the shaft (below the top by L cos(theta)), the sleeve held by a spring to the
    shaft point L below the top (rest length L/4) if ``spring``."""
    c, sn = np.cos(tilt), np.sin(tilt)
    shaft = SpatialRigidBody("shaft", 3.0, np.diag([0.1, 0.1, 0.02]),
                             ports={"top": (0, 0, 0), "low": (0, 0, -L)})
    sleeve = SpatialRigidBody("sleeve", SLEEVE, np.diag([0.01, 0.01, 0.01]), position=(0, 0, -L * c))
    bodies, joints = [shaft, sleeve], []
    joints.append(SpatialJoint("revolute", shaft.port("P"), None, axis=(0, 0, 1), rate=-rate, name="drive"))
    joints.append(SpatialJoint("prismatic", sleeve.port("P"), shaft.port("top"), axis=(0, 0, 1), name="slide"))
    for k, side in enumerate((1.0, -1.0)):
        tip = (side * L * sn, 0.0, -L * c)
        mid = (side * L * sn / 2, 0.0, -L * c / 2)
        arm = SpatialRigidBody.bar(f"arm{k}", ARM, (0, 0, 0), tip, ports={"mid": (L / 2, 0.0, 0.0)})
        link = SpatialRigidBody.bar(f"link{k}", LINK, mid, (0.0, 0.0, -L * c))
        bodies += [arm, link]
        joints += [SpatialJoint("revolute", shaft.port("top"), arm.port("A"), axis=(0, 1, 0), name=f"hinge{k}"),
                   SpatialJoint("revolute", link.port("A"), arm.port("mid"), axis=(0, 1, 0), name=f"knee{k}"),
                   SpatialJoint("revolute", link.port("B"), sleeve.port("P"), axis=(0, 1, 0), name=f"foot{k}")]
    s = System(bodies)
    for j in joints:
        s.add_joint(j)
    if spring:
        s.add_spring(sleeve.port("P"), shaft.port("low"), stiffness=K, rest_length=L / 4, name="spring")
    s.add_gravity((0, 0, -G))
    return s


def _governor_reference(rate, spring):
    """theta* from dV_eff/dtheta = 0 of the one-degree-of-freedom model: V_eff = V - Omega^2 I_z / 2
    with the axial inertia I_z(theta) of the arms (m L^2 sin^2 / 3) and links (m (L/2 sin)^2 / 3),
    gravity on arms (-L/2 cos), links (-3/4 L cos), sleeve (-L cos), the spring's energy."""
    return brentq(_governor_dV, 1e-3, np.pi / 2 - 1e-3, args=(rate, spring))


def _governor_dV(th, rate, spring):
    """dV_eff/dtheta of the one-degree-of-freedom governor (see _governor_reference)."""
    s, c = np.sin(th), np.cos(th)
    dIz = 2 * (ARM * L**2 / 3 + LINK * (L / 2) ** 2 / 3) * 2 * s * c
    dVg = G * (2 * ARM * L / 2 + 2 * LINK * 3 * L / 4 + SLEEVE * L) * s
    dVs = K * ((L - L * c) - L / 4) * (L * s) if spring else 0.0
    return dVg + dVs - 0.5 * rate**2 * dIz


@pytest.mark.parametrize("spring", [False, True])
def test_governor_with_and_without_its_spring(spring):
    rate = 10.0
    s = _governor(rate, spring, tilt=1.1)       # from beyond theta* (hanging arms are a branch too)
    dae = s.assemble()
    y = relative_equilibrium(dae, (0, 0, 1), rate)
    arm = s.bodies[2]
    theta = _angle(arm, y[dae.q_slices[arm.name]])
    assert abs(theta - _governor_reference(rate, spring)) < 1e-8
    sleeve = y[dae.q_slices["sleeve"]]
    assert abs(sleeve[2] + L * np.cos(theta)) < 1e-9


def test_errors_name_the_cause():
    s, _ = _conical(8.0)
    dae = s.assemble()
    with pytest.raises(EquilibriumError, match=r"velocity rows drive\.lam5 .*a drive turns at another rate"):
        relative_equilibrium(dae, (0, 0, 1), -8.0)
    with pytest.raises(ValueError, match="axis must be a non-zero 3-vector"):
        relative_equilibrium(dae, (0, 0, 0), 8.0)
    planar = System([PointMass("p", 1.0, (0.3, 0.0))])
    with pytest.raises(EquilibriumError, match="body 'p': a planar body turns about the z axis only"):
        relative_equilibrium(planar.assemble(), (1, 0, 0), 2.0)
    # a point mass keeps inertial velocities: off the axis it is never steady, and it says so
    with pytest.raises(EquilibriumError, match=r"body 'p' \(PointMass\) keeps inertial velocity components"):
        relative_equilibrium(planar.assemble(), (0, 0, 1), 2.0)


def test_modes_about_the_relative_equilibrium():
    """The conical pendulum's swing about theta* at Omega sin(theta*) (closed form above), and the
    governor's against its effective-potential model: omega^2 = V_eff''(theta*) / m(theta*), with
    m(theta) the generalized mass of the arms, links and sleeve moving in the turning plane."""
    from phmech.solvers.static import relative_modes
    rate = 8.0
    s, arm = _conical(rate)
    dae = s.assemble()
    y = relative_equilibrium(dae, (0, 0, 1), rate)
    th = _angle(arm, y[dae.q_slices["arm"]])
    m = relative_modes(dae, y, (0, 0, 1), rate, k=1)
    assert abs(m.omega[0] / (rate * np.sin(th)) - 1.0) < 1e-9 and abs(m.growth[0]) < 1e-9 * m.omega[0]

    for spring in (False, True):
        rate = 10.0
        s = _governor(rate, spring, tilt=1.1)
        dae = s.assemble()
        y = relative_equilibrium(dae, (0, 0, 1), rate)
        th = _angle(s.bodies[2], y[dae.q_slices["arm0"]])
        m = relative_modes(dae, y, (0, 0, 1), rate, k=1)
        assert abs(m.omega[0] / _governor_frequency(rate, spring, th) - 1.0) < 1e-6, spring


def _governor_frequency(rate, spring, th, h=1e-4):
    """sqrt(V_eff'' / m) of the one-degree-of-freedom governor at theta (central differences of
    the closed-form dV_eff of _governor_reference; m from the in-plane kinematics)."""
    stiff = (_governor_dV(th + h, rate, spring) - _governor_dV(th - h, rate, spring)) / (2 * h)
    s, c = np.sin(th), np.cos(th)
    # arm about its hinge: m L^2 / 3; link: centre ((L/4) s, -(3/4) L c), in-plane angle
    # with d(phi)/d(theta) = -1 (it mirrors the arm); sleeve: z = -L c
    link_centre = LINK * ((L / 4 * c) ** 2 + (3 * L / 4 * s) ** 2) + LINK * (L / 2) ** 2 / 12
    mass = 2 * (ARM * L**2 / 3 + link_centre) + SLEEVE * (L * s) ** 2
    return np.sqrt(stiff / mass)

"""Spatial torsional springs and bushings past half a turn: their rotation measures are continuous
along the motion (the relative quaternion's angle), so a body kicked beyond pi turns back at the
amplitude of energy conservation, as the planar torsional spring (an independent model) does."""
import numpy as np
import pytest

from phmech import PlanarRigidBody, SpatialRigidBody, System
from phmech.joints import Revolute, SpatialJoint
from phmech.math.rotations import quat_from_axis_angle

J, K = 0.1, 1.0                      # inertia about the axis, stiffness
AMPLITUDE = 1.6 * np.pi              # theta_max = omega0 sqrt(J / K), past 1.5 pi and below 2 pi
OMEGA0 = AMPLITUDE * np.sqrt(K / J)
QUARTER = 0.5 * np.pi * np.sqrt(J / K)      # the time of the turning point


def spatial_disk(element, orientation=(1.0, 0.0, 0.0, 0.0)):
    """A disk about z (inertia J) held by a torsional spring on a revolute joint to the ground, or
    by an isotropic bushing to the ground at its centre."""
    disk = SpatialRigidBody("disk", 2.0, np.diag([0.06, 0.07, J]), orientation=orientation)
    s = System([disk])
    if element == "torsion":
        j = s.add_joint(SpatialJoint("revolute", disk.port("P"), None, axis=(0, 0, 1), name="pin"))
        s.add_torsional_spring(j, K, name="spring")
    else:
        s.add_bushing(disk.port("P"), None, stiffness=np.diag([50.0, 50.0, 50.0, K, K, K]), name="spring")
    return s


def planar_disk():
    disk = PlanarRigidBody("disk", 2.0, J)
    s = System([disk])
    s.add_torsional_spring(s.add_joint(Revolute(disk.port("P"), None, name="pin")), K, name="spring")
    return s


def run(s, t_end, dt=1e-3):
    """``(t, angle about z, H + V)`` of a midpoint run started at OMEGA0 about z."""
    dae = s.assemble()
    body = s.bodies[0]
    e0 = np.zeros(dae.layout.ne)
    e0[dae.layout.e_index(body, [body.e_labels.index("wz" if body.dim == 3 else "omega")])] = OMEGA0
    res = s.simulate(t_end, solver="midpoint", dt=dt, newton_tol=1e-12, y0=dae.initial_state(e0=e0))
    q = res.y[:, dae.layout.sq][:, dae.layout.q_slices[body.name]]
    if body.dim == 3:
        angle = np.unwrap(2.0 * np.arctan2(q[:, 6], q[:, 3]))      # about z from the quaternion
    else:
        angle = q[:, 2]
    return res.t, angle, dae.hamiltonian(res.y) + dae.potential_energy(res.y)


@pytest.fixture(scope="module")
def planar_run():
    return run(planar_disk(), 2 * QUARTER)


def test_the_planar_spring_turns_back_at_the_energy_amplitude(planar_run):
    """The reference: 1/2 J omega0^2 = 1/2 K theta_max^2."""
    t, angle, E = planar_run
    assert np.max(angle) == pytest.approx(AMPLITUDE, rel=1e-4)
    assert abs(angle[-1]) < 1e-2 * AMPLITUDE
    assert np.max(np.abs(E - E[0])) < 1e-9 * E[0]


@pytest.mark.parametrize("element", ["torsion", "bushing"])
def test_a_spatial_spring_kicked_past_one_and_a_half_pi_turns_back(element, planar_run):
    """The disk reaches theta_max = omega0 sqrt(J / K) = 1.6 pi at a quarter period and is back
    at zero at half a period, on the planar spring's path; H + V is conserved to the midpoint
    rule's error (the potential is not quadratic in the quaternions: 3e-6 at this step)."""
    t, angle, E = run(spatial_disk(element), 2 * QUARTER)
    tp, anglep, _ = planar_run
    assert np.max(angle) == pytest.approx(AMPLITUDE, rel=1e-4)
    assert abs(angle[-1]) < 1e-2 * AMPLITUDE
    assert np.max(np.abs(angle - np.interp(t, tp, anglep))) < 1e-3 * AMPLITUDE
    assert np.max(np.abs(E - E[0])) < 1e-5 * E[0]


@pytest.mark.parametrize("phi", [0.3, 0.9 * np.pi, 1.5 * np.pi, -1.8 * np.pi])
def test_the_potential_is_quadratic_in_the_angle_up_to_a_full_turn(phi):
    """V = 1/2 K phi^2 for a disk turned by phi from its initial orientation, about the joint axis
    (torsional spring) or about any axis (isotropic bushing: the rotation vector), not the
    measure wrapped at pi."""
    p0 = quat_from_axis_angle((1.0, 2.0, 0.5), 0.7)
    for element, axis in (("torsion", (0.0, 0.0, 1.0)), ("bushing", (0.3, -1.0, 0.4))):
        s = spatial_disk(element, orientation=p0)
        dae = s.assemble()
        y = dae.initial_state()
        q = y[dae.layout.sq].copy()
        n = np.asarray(axis) / np.linalg.norm(axis)
        if element == "torsion":                  # the joint's axis is inertial z
            q[3:7] = _mul(quat_from_axis_angle(n, phi), p0)
        else:                                     # the bushing's rotation in the disk's frame
            q[3:7] = _mul(p0, quat_from_axis_angle(n, phi))
        y[dae.layout.sq] = q
        assert dae.potential_energy(y) == pytest.approx(0.5 * K * phi**2, rel=1e-12)


def _mul(a, b):
    return np.r_[a[0] * b[0] - a[1:] @ b[1:], a[0] * b[1:] + b[0] * a[1:] + np.cross(a[1:], b[1:])]


@pytest.mark.parametrize("element", ["torsion", "bushing"])
def test_a_restart_past_pi_continues_the_same_run(element, tmp_path):
    """The measure is a function of the configuration (no state of its own): a run checkpointed
    at 0.3 s (the disk at 1.3 pi) and continued equals the uninterrupted one, bit for bit."""
    pytest.importorskip("h5py")
    from phmech import Result

    class Killed(Exception):
        pass

    def kill(solver):
        if solver.t > 0.35:
            raise Killed

    s = spatial_disk(element)
    dae = s.assemble()
    body = s.bodies[0]
    e0 = np.zeros(dae.layout.ne)
    e0[dae.layout.e_index(body, [body.e_labels.index("wz")])] = OMEGA0
    y0, opts = dae.initial_state(e0=e0), dict(solver="midpoint", dt=1e-3, newton_tol=1e-12)
    full = s.simulate(2 * QUARTER, y0=y0, **opts)
    path = str(tmp_path / "run.h5")
    with pytest.raises(Killed):
        s.simulate(2 * QUARTER, y0=y0, checkpoint=path, checkpoint_every=0.1, callbacks=[kill], **opts)
    saved = Result.load(path, s)
    p = saved.y[-1, 3:7]
    assert 2 * np.arctan2(p[3], p[0]) % (2 * np.pi) > np.pi            # past half a turn
    cont = s.simulate(2 * QUARTER, restart=path, **opts)
    assert np.array_equal(cont.t, full.t)
    assert np.max(np.abs(cont.y - full.y)) == 0.0


def test_the_joint_s_relative_angle_follows_the_spring_past_half_a_turn():
    """``SpatialJoint.relative_angle`` (of the ground, port b, relative to the disk) takes the
    relative quaternion's angle as the torsional spring does: along the kicked disk's motion to
    1.6 pi and back it is continuous (it wrapped at pi) and equals minus the disk's angle about z
    from its quaternion; the spring's potential is 1/2 K phi^2 of it."""
    s = spatial_disk("torsion", orientation=quat_from_axis_angle((0.0, 0.0, 1.0), 0.4))
    dae = s.assemble()
    disk, joint = s.bodies[0], s.joints[0]
    e0 = np.zeros(dae.layout.ne)
    e0[dae.layout.e_index(disk, [disk.e_labels.index("wz")])] = OMEGA0
    res_y = s.simulate(2 * QUARTER, solver="midpoint", dt=1e-3, newton_tol=1e-12, y0=dae.initial_state(e0=e0)).y
    q = res_y[:, dae.layout.sq][:, dae.layout.q_slices[disk.name]]
    angle = np.unwrap(2.0 * np.arctan2(q[:, 6], q[:, 3]))                       # about z from the quaternion
    phi = -np.array([joint.relative_angle(dae.body_q_getter(y[dae.sq])) for y in res_y])
    assert abs(phi[0]) < 1e-15
    assert np.max(phi) == pytest.approx(AMPLITUDE, rel=1e-4)
    assert np.max(np.abs(np.diff(phi))) < 2 * OMEGA0 * 1e-3                    # no jump of 2 pi
    assert np.max(np.abs(phi - (angle - angle[0]))) < 1e-9
    V = np.array([dae.potential_energy(y) for y in res_y])
    assert np.max(np.abs(V - 0.5 * K * phi ** 2)) < 1e-9 * np.max(V)


@pytest.mark.parametrize("phi", [0.5, 0.99 * np.pi, 1.01 * np.pi, 1.7 * np.pi, -1.3 * np.pi])
def test_the_joint_s_relative_angle_at_a_turned_configuration(phi):
    """A disk turned by phi about the joint axis (any initial orientation): the ground turned by
    -phi relative to it, not that wrapped into (-pi, pi]."""
    p0 = quat_from_axis_angle((1.0, 2.0, 0.5), 0.7)
    s = spatial_disk("torsion", orientation=p0)
    dae = s.assemble()
    q = dae.initial_state()[dae.sq].copy()
    q[3:7] = _mul(quat_from_axis_angle((0.0, 0.0, 1.0), phi), p0)
    assert s.joints[0].relative_angle(dae.body_q_getter(q)) == pytest.approx(-phi, rel=1e-12)


@pytest.mark.parametrize("element", ["torsion", "bushing"])
def test_a_spring_past_a_full_turn_is_named(element):
    """Past a full turn the measure jumps (the state knows the bodies' orientations, not how
    often they turned): a disk kicked to 2.4 pi is warned about once, naming the element and
    the rows between which it jumped, at the time the planar spring passes 2 pi (arcsin of
    2 pi / theta_max over the frequency); one kicked to 1.6 pi is not."""
    omega = np.sqrt(K / J)
    kick = 2.4 * np.pi * omega
    s = spatial_disk(element)
    dae = s.assemble()
    body = s.bodies[0]
    e0 = np.zeros(dae.layout.ne)
    e0[dae.layout.e_index(body, [body.e_labels.index("wz")])] = kick
    with pytest.warns(RuntimeWarning, match="force element 'spring' turned past a full turn between") as rec:
        s.simulate(QUARTER, solver="midpoint", dt=1e-3, y0=dae.initial_state(e0=e0))
    msgs = [str(w.message) for w in rec if "full turn" in str(w.message)]
    assert len(msgs) == 1
    ta = float(msgs[0].split("between t = ")[1].split()[0])
    assert abs(ta - np.arcsin(2 * np.pi * omega / kick) / omega) < 2e-3
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e0[dae.layout.e_index(body, [body.e_labels.index("wz")])] = OMEGA0
        s.simulate(QUARTER, solver="midpoint", dt=1e-3, y0=dae.initial_state(e0=e0))

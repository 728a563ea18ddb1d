"""Rotation rows on the ports of the geometrically consistent spatial beam: welds, hinges and the
hub drive of a spinning blade (phmech.fem.beam3d_nonlinear, phmech.fem.frame_rate.FrameRate3)."""
import numpy as np
import pytest

pytest.importorskip("firedrake")

from scipy.optimize import brentq  # noqa: E402

from phmech import PointMass, System, SpatialRigidBody  # noqa: E402
from phmech.fem.beam3d_nonlinear import NonlinearSpatialBeam  # noqa: E402
from phmech.fem.frame_rate import FrameRate3  # noqa: E402
from phmech.joints import Revolute3, Weld3  # noqa: E402
from phmech.solvers import eigen  # noqa: E402
from phmech.solvers.steady import steady_modes, steady_states  # noqa: E402

#: a beam with EI / rho A = 4 and L = 2: omega = beta^2 sqrt(EI / rho A) / L^2 = beta^2 / 2
L, RHO, AREA, E, I = 2.0, 0.5, 2.0, 800.0, 0.005
SCALE = np.sqrt(E * I / (RHO * AREA)) / L ** 2
#: first roots of 1 + cos b cosh b = 0 (clamped-free) and tan b = tanh b (hinged-free)
BETA_CF = brentq(lambda b: 1 + np.cos(b) * np.cosh(b), 1.5, 2.5)
BETA_HF = brentq(lambda b: np.tan(b) - np.tanh(b), 3.5, 4.5)


def _beam(n, name="beam", length=L, position=(0.0, 0.0, 0.0)):
    return NonlinearSpatialBeam(name, length, n, RHO, AREA, E, I, I, position=position)


def _rest_frequencies(system, k):
    return eigen.linearize(system.assemble()).eigenmodes(k=k, method="hermitian").omega


def _rates(err):
    err = np.asarray(err)
    return np.log2(err[:-1] / err[1:])


def test_welded_at_either_end_is_the_cantilever():
    """A Weld3 to the ground at port A or at port B gives the clamped-free beam: the first
    frequency (twice: both bending planes) converges at the cubic Hermite rate to
    1.8751^2 sqrt(EI / rho A) / L^2, and the two clamps give the same spectrum (the mesh is
    symmetric), which checks the slope rows of port B against the gauge rows of port A."""
    exact = BETA_CF ** 2 * SCALE
    err = []
    for n in (2, 4, 8):
        beams = {}
        for end in ("A", "B"):
            b = _beam(n)
            s = System([b])
            s.add_joint(Weld3(b.port(end), None, name="clamp"))
            beams[end] = _rest_frequencies(s, 4)
        assert np.allclose(beams["A"], beams["B"], rtol=1e-8), beams
        assert abs(beams["A"][0] - beams["A"][1]) < 1e-8 * exact       # both planes
        err.append(abs(beams["A"][0] - exact))
    assert np.all(_rates(err) > 3.5) and err[-1] < 1e-5 * exact, err


def test_two_half_beams_welded_end_to_end_are_one_cantilever():
    """Port B of a clamped half beam welded to port A of the other half: the first frequency is
    the cantilever's of the whole length (the weld carries moments and forces between two
    flexible ports)."""
    exact = BETA_CF ** 2 * SCALE
    err = []
    for n in (1, 2, 4):
        a = _beam(n, "inner", L / 2)
        b = _beam(n, "outer", L / 2, position=(L / 2, 0.0, 0.0))
        s = System([a, b])
        s.add_joint(Weld3(a.port("A"), None, name="clamp"))
        s.add_joint(Weld3(a.port("B"), b.port("A"), name="splice"))
        w = _rest_frequencies(s, 2)
        assert abs(w[0] - w[1]) < 1e-8 * exact
        err.append(abs(w[0] - exact))
    assert np.all(_rates(err) > 3.5) and err[-1] < 1e-5 * exact, err


def test_hinged_at_the_root_is_hinged_free_in_the_plane_of_the_hinge():
    """A Revolute3 about e3 at port A: in the x-y plane the beam is hinged-free (a rigid rotation
    and then beta^2 = 15.418 with tan b = tanh b), out of it still clamped (1.8751^2); the
    clamped in-plane value 3.516 appears once, not twice as with the weld."""
    cf, hf = BETA_CF ** 2 * SCALE, BETA_HF ** 2 * SCALE
    err = []
    for n in (4, 8, 16):
        b = _beam(n)
        s = System([b])
        s.add_joint(Revolute3(b.port("A"), None, axis=(0.0, 0.0, 1.0), name="hinge"))
        w = _rest_frequencies(s, 3)
        assert abs(w[0] / cf - 1) < 1e-3 and w[1] > 4 * cf, w     # one clamped plane only
        err.append(abs(w[1] - hf))
    assert np.all(_rates(err) > 3.5) and err[-1] < 1e-4 * hf, err


def test_a_rigid_spin_turns_every_section_at_the_frame_rate():
    """At the undeformed configuration a rigid motion of the beam gives, at both ports, the
    rotation rate omega of the frame, and the velocity of the port's point."""
    b = _beam(3)
    omega, v = np.array([0.3, -1.2, 0.7]), np.array([1.0, 2.0, -0.5])
    e = b.rigid_motion_map(b.q0) @ np.r_[v, omega]
    for end, x in (("A", 0.0), ("B", L)):
        p = b.port(end)
        assert np.allclose(p.W @ e, omega, rtol=0, atol=1e-12)
        assert np.allclose(p.Y @ e, v + np.cross(omega, [x, 0.0, 0.0]), rtol=0, atol=1e-11)


def test_a_point_mass_still_cannot_carry_a_moment():
    b = _beam(2)
    Weld3(b.port("A"), None, name="clamp")                  # the beam's ports take moments now
    Revolute3(b.port("B"), None, name="hinge")
    p = PointMass("p", 1.0, position=(0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match=r"joint 'clamp': port 'p\.P' has no rotational degree of freedom "
                                         r"\(a point mass cannot carry a moment\)"):
        Weld3(p.port("P"), None, name="clamp")


def test_frame_rate3_refuses_what_it_cannot_drive():
    with pytest.raises(ValueError, match=r"joint 'hub': body 'p' has no spatial floating frame"):
        FrameRate3(PointMass("p", 1.0, position=(0.0, 0.0, 0.0)), rate=1.0, name="hub")
    with pytest.raises(ValueError, match=r"joint 'hub': axis must be the body axis 0, 1 or 2, got 3"):
        FrameRate3(_beam(1), axis=3, rate=1.0, name="hub")


# -- the spinning blade ---------------------------------------------------------------------------

def _blade(mu, clamp, slenderness, n=4):
    """The dimensionless blade (L = rho A = EI = 1, EA = slenderness^2) on a hub spinning at mu about
    e3: ``frame`` (Revolute3 + FrameRate3, exact), ``driven`` (a driven Revolute3 at port A: the weld
    to a turning hub without a hub body) or ``hub`` (a Weld3 to a rigid hub driven by a Revolute3)."""
    b = NonlinearSpatialBeam("blade", 1.0, n, 1.0, 1.0, slenderness ** 2, slenderness ** -2, slenderness ** -2)
    bodies = [b]
    joints = []
    if clamp == "frame":
        joints = [Revolute3(b.port("A"), None, axis=(0, 0, 1), name="bearing"), FrameRate3(b, 2, rate=mu, name="hub")]
    elif clamp == "driven":
        joints = [Revolute3(b.port("A"), None, axis=(0, 0, 1), rate=-mu, name="hub")]
    else:
        hub = SpatialRigidBody("hub", 1.0, np.eye(3))
        bodies.insert(0, hub)
        joints = [Revolute3(hub.port("P"), None, axis=(0, 0, 1), rate=-mu, name="drive"),
                  Weld3(b.port("A"), hub.port("P"), name="clamp")]
    s = System(bodies)
    for j in joints:
        s.add_joint(j)
    return s.assemble(), b


def _steady(mu, clamp, slenderness):
    dae, y = steady_states(lambda m: _blade(m, clamp, slenderness)[0], [0.0, mu])[-1]
    b = _blade(0.0, clamp, slenderness)[1]
    q = y[dae.q_slices["blade"]]
    return dae, y, q, b


def test_a_driven_hinge_at_the_root_is_the_frame_clamp_also_where_the_root_stretches():
    """The root port's transverse rotation rows carry the frame gauge sigma = 1 / (1 + u_x'(0)):
    at slenderness 70 and mu = 10 (root strain 1 %) the driven hinge at A and the FrameRate3 clamp
    give the same steady shape (to the Newton tolerance) and the same frequencies (to the eigen
    solver's accuracy)."""
    _, y0, q0, b = _steady(10.0, "frame", 70.0)
    dae1, y1, q1, _ = _steady(10.0, "driven", 70.0)
    strain = b.frame_rate_gauge(2) @ q0
    assert 5e-3 < strain < 2e-2                     # the gauge matters at this speed
    u = b.displacement_dofs
    assert np.abs(q1[u] - q0[u]).max() <= 1e-8 * np.abs(q0[u]).max()
    d0 = _blade(10.0, "frame", 70.0)[0]
    w0 = steady_modes(d0, y0, k=4).omega
    w1 = steady_modes(dae1, y1, k=4).omega
    assert np.all(np.abs(w1 / w0 - 1) < 1e-7), (w0, w1)


def test_a_weld_to_a_turning_hub_body_is_the_driven_hinge():
    """A weld of the root to a rigid hub turned at mu gives the steady motion of the driven hinge
    (to the Newton tolerance), and the blade turns with the hub: its frame's rate is the hub's."""
    dae_h, y_h, q_h, b = _steady(10.0, "hub", 70.0)
    dae_d, y_d, q_d, _ = _steady(10.0, "driven", 70.0)
    u = b.displacement_dofs
    assert np.abs(q_h[u] - q_d[u]).max() <= 1e-8 * np.abs(q_d[u]).max()
    e_h = y_h[dae_h.nq:dae_h.nq + dae_h.ne]
    blade, hub = e_h[dae_h.e_slices["blade"]], e_h[dae_h.e_slices["hub"]]
    d, _ = b.frame_scale(q_h)
    assert abs(d[2] * blade[5] - hub[5]) <= 1e-9 * abs(hub[5])


def test_steady_state_keeps_the_quaternions_unit_from_a_scaled_guess():
    """The orientation Q(p)/|p|^2 does not see the quaternions' length: a guess with every
    quaternion scaled by 3 gives the steady motion of the unit guess (to the Newton tolerance),
    with unit quaternions, instead of Newton steps on their length."""
    from phmech.solvers.steady import steady_state
    dae, y, q, b = _steady(10.0, "hub", 70.0)
    guess = y.copy()
    for name in ("hub", "blade"):
        k = dae.q_slices[name].start + dae.system.body(name).rotation_index
        guess[k:k + 4] *= 3.0
    again, _ = steady_state(dae, guess)
    for name in ("hub", "blade"):
        k = dae.q_slices[name].start + dae.system.body(name).rotation_index
        assert abs(np.linalg.norm(again[k:k + 4]) - 1.0) < 1e-12
    u = dae.q_slices["blade"].start + b.displacement_dofs
    assert np.abs(again[u] - y[u]).max() <= 1e-8 * np.abs(y[u]).max()


def test_jacobian_of_the_hub_drive_and_a_weld_at_the_tip_against_a_probe():
    """The exact Jacobian of a model with FrameRate3 (the gauge enters its row) and a Weld3 from the
    beam's tip to a rigid body (rows turned by both orientations) equals central differences at a
    random state."""
    from tests.assembly.test_jacobians import assert_jacobian
    from phmech.validation.rotating_beam import build
    s, beam = build("consistent", 2, 3.0)
    tip = SpatialRigidBody("tip mass", 0.1, 1e-3 * np.eye(3), position=(1.0, 0.0, 0.0))
    s.add(tip)
    s.add_joint(Weld3(beam.port("B"), tip.port("P"), name="tip weld"))
    dae = s.assemble()
    y = dae.initial_state() + 1e-2 * np.random.default_rng(5).standard_normal(dae.n)
    assert_jacobian(dae, 0.0, y)


@pytest.mark.parametrize("load", [False, True], ids=["weld", "weld and moment"])
def test_jacobian_of_a_weld_at_the_stretching_root_against_a_probe(load):
    """The gauged rotation rows of the root port (sigma(q) on the transverse rows) in a Weld3 to a
    rigid hub and in a moment at the root: the exact Jacobian, gauge column included, equals central
    differences at a random state; the compiled residual runs it (no leftovers)."""
    from tests.assembly.test_jacobians import assert_jacobian
    from phmech.forces.loads import PortMoment
    b = _beam(2, name="blade")
    hub = SpatialRigidBody("hub", 1.0, np.eye(3))
    s = System([hub, b])
    s.add_joint(Revolute3(hub.port("P"), None, axis=(0, 0, 1), rate=-3.0, name="drive"))
    s.add_joint(Weld3(b.port("A"), hub.port("P"), name="clamp"))
    if load:
        s.add_load(PortMoment(b.port("A"), lambda t: (0.3, -0.2 * t, 0.5), name="root moment"))
    dae = s.assemble()
    y = dae.initial_state() + 1e-2 * np.random.default_rng(8).standard_normal(dae.n)
    assert b.frame_scale(y[dae.q_slices["blade"]])[0][1] != 1.0      # the gauge is off its rest value
    assert_jacobian(dae, 0.3, y)
    c = dae.compiled_residual()
    assert c.path == "compiled"


def test_spin_up_by_the_frame_drive_follows_the_planar_consistent_blade():
    """Kane's spin-up (phmech.validation.spin_up, first 3 s, 4 elements): the spatial blade driven by
    Revolute3 + FrameRate3 with the time-varying hub rate follows the planar consistent blade driven
    by FrameRate (another model class with the same in-plane discretization) to the Newton
    tolerance (observed 2e-10 of the tip deflection), and stays in the plane of rotation."""
    from phmech.validation import spin_up
    p = spin_up.DATA
    t_end, dt = 3.0, 1e-2
    t_eval = np.linspace(0.0, t_end, 31)
    planar, pb = spin_up.build("stiffened", 4)
    tip_planar = planar.simulate(t_end, solver="midpoint", dt=dt, t_eval=t_eval).q("beam") \
        @ pb.displacement_rows([p["L"]])[1][0]
    inertia = p["EI"] / p["EA"]
    b = NonlinearSpatialBeam("beam", p["L"], 4, p["rhoA"], 1.0, p["EA"], inertia, inertia)
    s = System([b])
    s.add_joint(Revolute3(b.port("A"), None, axis=(0, 0, 1), name="hub bearing"))
    s.add_joint(FrameRate3(b, 2, rate=lambda t: float(spin_up.hub_rate(t)),
                           rate_derivative=lambda t: float(spin_up.hub_acceleration(t)), name="hub"))
    assert s.assemble().compiled_residual().path == "compiled"
    q = s.simulate(t_end, solver="midpoint", dt=dt, t_eval=t_eval).q("beam")
    _, row_y, row_z = b.displacement_rows([p["L"]])
    assert np.abs(tip_planar).max() > 0.1
    assert np.abs(q @ row_y[0] - tip_planar).max() <= 1e-8 * np.abs(tip_planar).max()
    assert np.abs(q @ row_z[0]).max() <= 1e-12

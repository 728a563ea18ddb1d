"""The spatial exact beam's ports in every joint and load: the joint rows at a deformed section are
the rates of their position residuals and the assembled Jacobian is exact; welded beams are one
beam; an inertial moment at a section is the follower moment turned by the section; a beam hinged
to the ground by a revolute joint keeps its energy and its joint."""
import math

import numpy as np
import pytest

pytest.importorskip("firedrake")

from phmech import SpatialRigidBody, System  # noqa: E402
from phmech.fem import GeometricallyExactBeam  # noqa: E402
from phmech.joints import SpatialJoint  # noqa: E402
from phmech.math.rotations import UnitQuaternion  # noqa: E402
from phmech.solvers.static import equilibrium  # noqa: E402

SECTION = dict(rho=1.0, A=1.0, E=1e4, I=1e-4)
KINDS = ("spherical", "revolute", "universal", "prismatic", "cylindrical", "weld")
RNG = np.random.default_rng(7)


def _probe(fun, x, h=1e-6):
    eye = np.eye(x.size)
    return np.column_stack([(fun(x + h * eye[j]) - fun(x - h * eye[j])) / (2 * h) for j in range(x.size)])


def _deformed(beam, scale=0.3):
    """A configuration of ``beam`` with its nodes moved and its sections turned at random (the
    sections stay rotations)."""
    return beam.retract(beam.q0, scale * RNG.standard_normal(beam.ne)[beam.velocity_dofs])


def _beam_and_box(kind, ground):
    """A beam starting deformed and a box whose port sits at the beam's tip node: the joint holds
    at the start."""
    b = GeometricallyExactBeam("b", 1.0, 2, **SECTION, dim=3, Iz=2e-4, degree=2)
    b.q0 = _deformed(b)
    p = np.array((0.9, 0.1, -0.3, 0.2)) / np.linalg.norm((0.9, 0.1, -0.3, 0.2))
    s_j = np.array((-0.2, -0.1, 0.1))
    x_tip = b.port_position(b.q0, b.port("B"))
    box = SpatialRigidBody("box", 0.8, np.diag([0.05, 0.04, 0.06]), orientation=p,
                           position=x_tip - UnitQuaternion.matrix(p) @ s_j, ports={"j": s_j})
    axis = RNG.standard_normal(3)
    opts = {} if kind in ("spherical", "weld") else dict(axis=axis)
    if kind == "universal":
        opts["axis2"] = np.cross(axis, RNG.standard_normal(3))
    if kind in ("revolute", "cylindrical"):
        opts["rate"] = lambda t: 0.3 + 0.1 * t
    s = System([b] if ground else [b, box])
    j = s.add_joint(SpatialJoint(kind, b.port("B"), None if ground else box.port("j"), name="j", **opts))
    return s, b, j


@pytest.mark.parametrize("ground", (False, True), ids=("to_a_box", "to_the_ground"))
@pytest.mark.parametrize("kind", KINDS)
def test_joint_rows_at_a_deformed_section_are_the_rates_of_their_residuals(kind, ground):
    """At a deformed, turned port section where the joint holds: ``d/dt r(q(t)) = G(q) e`` along
    the kinematics (the rows are integrable, the position residual consistent with them); and the
    assembled Jacobian (joint derivatives by the section's nine entries included) equals central
    differences, also off the joint."""
    s, b, j = _beam_and_box(kind, ground)
    dae = s.assemble()
    q = dae.q0.copy()
    r = lambda z: j.position_residual(dae.body_q_getter(z), 0.0)
    assert np.abs(r(q)).max() <= 1e-12                  # the joint holds at the deformed start
    e = RNG.standard_normal(dae.ne)
    lam = RNG.standard_normal(dae.nl)
    y = np.r_[q, e, lam]
    qdot = dae.f(0.0, y)[dae.sq]
    h = 1e-6
    rate = (r(q + h * qdot) - r(q - h * qdot)) / (2 * h)
    Ge = dae.G(q) @ e
    n = j.n_rows - int(j.driven)                        # a rate driver's row has no position residual
    assert np.abs(rate[:n] - Ge[:n]).max() <= 1e-7 * np.abs(e).max()
    q = q + 0.2 * RNG.standard_normal(q.size)           # the Jacobian off the joint as well
    q[dae.q_slices["b"]] = _deformed(b)
    y = np.r_[q, e, lam]
    J = dae.jacobian(0.0, y).toarray()
    Jfd = _probe(lambda z: dae.f(0.0, z), y)
    assert np.abs(J - Jfd).max() <= 1e-6 * max(1.0, np.abs(J).max())


def test_two_welded_beams_are_one_beam_in_space():
    """Two 4-element beams welded end to end (the weld between their sections, not to the ground)
    under an out-of-plane tip force and a twisting moment have the equilibrium of one 8-element
    beam: the same nodes, to the Newton tolerance; the weld's position residual vanishes there."""
    load, twist = (0.0, -1.5, 2.0), (1.0, 0.0, 0.0)

    def tip(beams, joints):
        s = System(beams)
        s.clamp(beams[0].port("A"), name="clamp")
        for a, c in joints:
            s.add_joint(SpatialJoint("weld", a.port("B"), c.port("A"), name=f"w_{a.name}"))
        s.apply_force(beams[-1].port("B"), load, name="P")
        s.apply_moment(beams[-1].port("B"), twist, name="T")
        dae = s.assemble()
        q = equilibrium(dae, load_steps=8)[dae.sq]
        qb = q[dae.q_slices[beams[-1].name]]
        res = [np.abs(r).max() for r in dae.position_residuals(0.0, q).values()]
        return qb[-12:-9], beams[-1].port_rotation(qb, beams[-1].port("B")), max(res)

    one = GeometricallyExactBeam("one", 1.0, 8, **SECTION, dim=3, Iz=2e-4)
    b1 = GeometricallyExactBeam("b1", 0.5, 4, **SECTION, dim=3, Iz=2e-4)
    b2 = GeometricallyExactBeam("b2", 0.5, 4, **SECTION, dim=3, Iz=2e-4, position=(0.5, 0.0, 0.0))
    r1, R1, _ = tip([one], [])
    r2, R2, res = tip([b1, b2], [(b1, b2)])
    assert np.linalg.norm(r1 - (1.0, 0.0, 0.0)) > 0.2           # a large deflection
    assert np.abs(r2 - r1).max() <= 1e-9 and np.abs(R2 - R1).max() <= 1e-9
    assert res <= 1e-9


def test_an_inertial_moment_is_the_follower_moment_turned_by_the_section():
    """A dead moment about the inertial ``z`` rolls the beam in its plane as the follower moment
    about ``d_3`` does (``d_3`` stays ``z`` in the plane); with a twisting part the two differ, and the
    dead one is the follower moment ``R^T m`` of the section it turns (the equilibria agree)."""
    M = 2 * math.pi * 1.0 * 0.25                         # a quarter of the roll-up moment, EI = 1

    def solve(moment, frame):
        b = GeometricallyExactBeam("b", 1.0, 8, **SECTION, dim=3)
        s = System([b])
        s.clamp(b.port("A"))
        s.apply_moment(b.port("B"), moment, frame=frame, name="m")
        dae = s.assemble()
        return b, equilibrium(dae, load_steps=4)[dae.sq]

    _, q_body = solve((0.0, 0.0, M), "body")
    b, q_dead = solve((0.0, 0.0, M), "inertial")
    assert np.abs(q_body - q_dead).max() <= 1e-9
    m = np.array([0.6 * M, 0.0, 0.8 * M])          # twisting and bending: not an axis of the arc
    b, q = solve(m, "inertial")
    R = b.port_rotation(q, b.port("B"))
    _, q_follow = solve(R.T @ m, "body")
    assert np.abs(q - q_follow).max() <= 1e-8
    assert np.abs(q - solve(m, "body")[1]).max() > 1e-2


def test_a_beam_on_a_revolute_joint_keeps_its_energy_and_its_joint():
    """A soft beam hinged at its root to the ground by a revolute joint about an oblique
    horizontal axis swings under gravity: ``H + V`` is kept to the Newton tolerance by the
    midpoint rule, and the joint's position residual (root point, axis) does not drift."""
    b = GeometricallyExactBeam("b", 1.0, 4, rho=1.0, A=1e-2, E=1e4, I=1e-6, dim=3,
                               orientation=(math.cos(0.2), 0.0, math.sin(0.2), 0.0))
    s = System([b])
    j = s.add_joint(SpatialJoint("revolute", b.port("A"), None, axis=(0.3, 1.0, 0.0), name="hinge"))
    s.add_gravity((0.0, 0.0, -9.81))
    dae = s.assemble()
    res = s.simulate(0.3, dt=1e-3, newton_tol=1e-12)
    V = dae.potential_energy(res.y)
    assert np.ptp(V) > 1e-3
    assert np.ptp(res.hamiltonian() + V) <= 1e-8 * np.ptp(V)
    drift = max(np.abs(j.position_residual(dae.body_q_getter(y[dae.sq]), t)).max() for t, y in zip(res.t, res.y))
    assert drift <= 1e-9


def test_an_angle_driver_at_a_section_is_refused():
    b = GeometricallyExactBeam("b", 1.0, 2, **SECTION, dim=3)
    with pytest.raises(ValueError, match=r"joint 'm': an angle driver at port\(s\) \['b.A'\].*rate="):
        SpatialJoint("revolute", b.port("A"), None, axis=(0, 0, 1), rate=1.0, angle=lambda t: t, name="m")


def test_a_spring_at_the_tip_node_carries_its_share_of_the_load():
    """A cantilever (EI = 1, shear-rigid) with a spring of stiffness k from its tip node to the
    ground, under a small tip force P along the spring: the tip deflects by P / (3 EI / L^3 + k),
    the spring taking k / (3 + k) of the load (small deflection: the closed form to the
    discretization error of 8 quadratic elements)."""
    k, P = 2.0, 1e-4
    b = GeometricallyExactBeam("b", 1.0, 8, rho=1.0, A=1.0, E=1e4, I=1e-4, G=1e9, dim=3)
    s = System([b])
    s.clamp(b.port("A"))
    s.add_spring(b.port("B"), None, stiffness=k, at=(1.0, 0.0, -1.0), name="k")   # along z, unstretched
    s.apply_force(b.port("B"), (0.0, 0.0, -P), name="P")
    dae = s.assemble()
    q = equilibrium(dae)[dae.sq]
    dz = b.port_position(q[dae.q_slices["b"]], b.port("B"))[2]
    assert abs(dz / (-P / (3.0 + k)) - 1.0) <= 1e-4


@pytest.mark.parametrize("dim", (2, 3))
def test_a_spinning_blade_stretches_as_its_closed_form(dim):
    """A blade clamped to a hub turning at ``Omega`` about ``z`` (the relative equilibrium: its
    nodes' inertial velocities turn with it, ``steady_effort_rate``): with the stretch as axial
    strain, ``EA U'' + rho A Omega^2 (X + U) = 0``, ``U(0) = U'(L) = 0`` gives the tip
    displacement ``U(L) = tan(k L) / k - L``, ``k^2 = rho A Omega^2 / EA`` (here 1.8 % of L); the
    planar and the spatial beam reach it to the discretization error of 8 quadratic elements."""
    from phmech.joints import AngularVelocity, Revolute, Revolute3
    from phmech.solvers.static import relative_equilibrium
    EA, Omega = 1e4, 23.0
    b = GeometricallyExactBeam("b", 1.0, 8, rho=1.0, A=1.0, E=EA, I=1e-4, dim=dim)
    s = System([b])
    if dim == 3:
        s.add_joint(Revolute3(b.port("A"), None, axis=(0.0, 0.0, 1.0), rate=-Omega, name="hub"))
    else:
        s.add_joint(Revolute(b.port("A"), None, name="pin"))
        s.add_joint(AngularVelocity(b.port("A"), Omega, name="hub"))
    dae = s.assemble()
    y = relative_equilibrium(dae, (0.0, 0.0, 1.0), Omega)
    tip = b.port_position(y[dae.q_slices["b"]], b.port("B"))
    k = Omega / math.sqrt(EA)
    exact = math.tan(k) / k - 1.0
    assert exact > 0.015
    assert abs(tip[0] - 1.0 - exact) <= 1e-6 * exact and np.abs(tip[1:]).max() <= 1e-10


@pytest.mark.parametrize("dim", (2, 3))
def test_a_follower_force_is_the_dead_force_turned_by_the_section(dim):
    """A tip force given in the tip section's axes (``frame="body"``, a follower load: ``R u``
    with the section's rotation, exact derivatives in the Jacobian) has the equilibrium of the
    dead force ``R(q*) u`` of the section it ends up turning; the two differ from the dead ``u``
    itself.  The planar beam turns it by its director, the spatial one by its section."""
    u = (0.0, -2.0) if dim == 2 else (0.0, -1.5, 1.0)

    def solve(force, frame):
        b = GeometricallyExactBeam("b", 1.0, 8, **SECTION, dim=dim)
        s = System([b])
        s.clamp(b.port("A"))
        s.apply_force(b.port("B"), force, frame=frame, name="P")
        dae = s.assemble()
        q = equilibrium(dae, load_steps=8)[dae.sq]
        if frame == "body":
            y = np.r_[q, np.zeros(dae.ne + dae.nl)]
            y[dae.sq] += 0.01 * RNG.standard_normal(dae.nq)
            J = dae.jacobian(0.0, y).toarray()
            assert np.abs(J - _probe(lambda x: dae.f(0.0, x), y)).max() <= 1e-6 * max(1.0, np.abs(J).max())
        return b, q

    b, q = solve(u, "body")
    R = b.port_rotation(q, b.port("B")) if dim == 3 else np.array([[q[-2], -q[-1]], [q[-1], q[-2]]])
    _, q_dead = solve(R @ np.asarray(u), "inertial")
    assert np.abs(q - q_dead).max() <= 1e-8
    assert np.abs(q - solve(u, "inertial")[1]).max() > 1e-2

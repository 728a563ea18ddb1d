"""Static equilibria (phmech.solvers.static) and the linearization about them: pendulums under
gravity, preloaded springs and strings against their closed forms, and the errors of models
that have no stable equilibrium."""
import numpy as np
import pytest
import scipy.linalg as sla

from phmech import PlanarRigidBody, PointMass, SpatialRigidBody, System
from phmech.joints import Revolute, SpatialJoint
from phmech.math.rotations import quat_from_axis_angle
from phmech.solvers.static import EquilibriumError, equilibrium

g, m, L = 9.81, 1.3, 0.7
#: compound pendulum (uniform rod on a pin at its end): omega^2 = m g (L/2) / (m L^2 / 3)
OMEGA_ROD = np.sqrt(1.5 * g / L)


def planar_rod(angle, name="rod", position=(0.0, 0.0)):
    return PlanarRigidBody.rod(name, m, L, angle=angle, position=position)


def spatial_rod(angle):
    """A rod along its body x axis, turned by ``angle`` about z (hanging: -pi/2)."""
    inertia = np.diag([1e-3 * m * L**2, m * L**2 / 12, m * L**2 / 12])
    return SpatialRigidBody("rod", m, inertia, center=(L / 2, 0, 0), ports={"A": (0, 0, 0), "B": (L, 0, 0)},
                            orientation=quat_from_axis_angle((0, 0, 1), angle))


def pendulum(angle=-np.pi / 2, spring=None):
    r = planar_rod(angle)
    s = System([r])
    j = s.add_joint(Revolute(r.port("A"), None, name="pin"))
    if spring is not None:
        s.add_torsional_spring(j, spring, rest_angle=0.0)
    s.add_gravity((0.0, -g))
    return s


def test_the_equilibrium_of_a_pendulum_started_aside_hangs_and_balances_every_row():
    s = pendulum(-np.pi / 2 + 0.4)
    dae = s.assemble()
    y = equilibrium(dae)
    assert y[dae.sq][2] == pytest.approx(-np.pi / 2, abs=1e-10)
    assert np.max(np.abs(dae.f(0.0, y))) < 1e-9            # nothing moves: every rate vanishes
    assert np.linalg.norm(y[dae.sl]) == pytest.approx(m * g, rel=1e-10)   # the pin carries the weight


@pytest.mark.parametrize("start", [0.0, 0.3])
def test_a_planar_compound_pendulum_under_gravity(start):
    lin = pendulum(-np.pi / 2 + start).linearize()
    assert lin.eigenmodes(1).omega == pytest.approx([OMEGA_ROD], rel=1e-10)
    assert lin.stiffness_asymmetry < 1e-10


def test_a_spatial_compound_pendulum_under_gravity():
    r = spatial_rod(-np.pi / 2 + 0.2)
    s = System([r])
    s.add_joint(SpatialJoint("revolute", r.port("A"), None, axis=(0, 0, 1), name="pin"))
    s.add_gravity((0.0, -g, 0.0))
    assert s.linearize().eigenmodes(1).omega == pytest.approx([OMEGA_ROD], rel=1e-10)


def test_a_spherical_pendulum_has_two_equal_modes_and_a_neutral_spin():
    """The spin about the rod's own axis is resisted by nothing and is no vibration mode."""
    r = spatial_rod(-np.pi / 2)
    s = System([r])
    s.add_joint(SpatialJoint("spherical", r.port("A"), None, name="ball"))
    s.add_gravity((0.0, -g, 0.0))
    modes = s.linearize().eigenmodes(2)
    assert modes.omega == pytest.approx([OMEGA_ROD, OMEGA_ROD], rel=1e-10)


def test_a_hanging_double_pendulum_against_its_closed_form():
    """Two equal rods: M = m L^2 [[4/3, 1/2], [1/2, 1/3]], K = m g L diag(3/2, 1/2)."""
    r1 = planar_rod(-np.pi / 2, "r1")
    r2 = planar_rod(-np.pi / 2, "r2", position=(0.0, -L))
    s = System([r1, r2])
    s.add_joint(Revolute(r1.port("A"), None, name="j1"))
    s.add_joint(Revolute(r1.port("B"), r2.port("A"), name="j2"))
    s.add_gravity((0.0, -g))
    exact = np.sqrt(sla.eigh(m * g * L * np.diag([1.5, 0.5]), m * L**2 * np.array([[4 / 3, 0.5], [0.5, 1 / 3]]),
                             eigvals_only=True))
    modes = s.linearize().eigenmodes(2)
    assert modes.omega == pytest.approx(exact, rel=1e-10)
    assert modes.n_rigid == 0


def test_a_torsional_pendulum_with_gravity_adds_both_stiffnesses():
    k = 4.0
    omega = pendulum(spring=k).linearize().eigenmodes(1).omega
    assert omega == pytest.approx([np.sqrt((k + m * g * L / 2) / (m * L**2 / 3))], rel=1e-10)


def test_a_spring_pendulum_stretched_by_its_weight():
    """A point mass hanging on a spring: axial sqrt(k/m), swinging sqrt(g/l) at the static length."""
    k, mass, l0 = 50.0, 2.0, 0.8
    p = PointMass("p", mass, (0.0, -1.0))
    s = System([p])
    s.add_spring(p.port("P"), None, stiffness=k, rest_length=l0, at=(0.0, 0.0))
    s.add_gravity((0.0, -g))
    lin = s.linearize()
    l_static = l0 + mass * g / k
    assert lin.q == pytest.approx([0.0, -l_static], abs=1e-10)
    assert lin.eigenmodes(2).omega == pytest.approx([np.sqrt(g / l_static), np.sqrt(k / mass)], rel=1e-10)


@pytest.mark.parametrize("n", [3, 5])
def test_a_preloaded_string_of_point_masses(n):
    """n masses between two anchors, springs of spacing a stretched from l0: tension
    T = k (a - l0), transverse omega_j = 2 sqrt(T / (m a)) sin(j pi / (2 (n + 1))), axial the
    same with k for T / a."""
    k, mass, a, l0 = 30.0, 0.4, 0.5, 0.45
    pts = [PointMass(f"m{i}", mass, ((i + 1) * a, 0.0)) for i in range(n)]
    s = System(pts)
    s.add_spring(pts[0].port("P"), None, stiffness=k, rest_length=l0, at=(0.0, 0.0), name="s0")
    for i in range(n - 1):
        s.add_spring(pts[i].port("P"), pts[i + 1].port("P"), stiffness=k, rest_length=l0, name=f"s{i + 1}")
    s.add_spring(pts[-1].port("P"), None, stiffness=k, rest_length=l0, at=((n + 1) * a, 0.0), name=f"s{n}")
    j = np.arange(1, n + 1)
    shape = 2 * np.sin(j * np.pi / (2 * (n + 1)))
    exact = np.sort(np.r_[np.sqrt(k * (a - l0) / (mass * a)) * shape, np.sqrt(k / mass) * shape])[:n]
    assert s.linearize().eigenmodes(n).omega == pytest.approx(exact, rel=1e-10)


def test_an_inverted_pendulum_is_an_unstable_equilibrium():
    with pytest.raises(ValueError, match="unstable.*rod.e.omega"):
        pendulum(np.pi / 2).linearize()


def test_a_free_body_under_gravity_has_no_equilibrium():
    s = System([planar_rod(0.0)])
    s.add_gravity((0.0, -g))
    with pytest.raises(EquilibriumError, match="no static equilibrium.*rod.e.vy"):
        s.linearize()


def test_a_given_configuration_must_be_an_equilibrium():
    s = pendulum()
    dae = s.assemble()
    q = dae.q0.copy()
    assert s.linearize(q=q).eigenmodes(1).omega == pytest.approx([OMEGA_ROD], rel=1e-10)
    q[2] += 0.3
    with pytest.raises(EquilibriumError, match="not a static equilibrium.*rod.e.omega"):
        s.linearize(q=q)


def test_at_rest_is_refused_where_it_would_drop_the_gravity():
    from phmech.solvers.eigen import linearize
    with pytest.raises(ValueError, match="stiffness would be dropped"):
        linearize(pendulum().assemble(), about="rest")

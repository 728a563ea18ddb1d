"""Damped modes (phmech.solvers.eigen): the complex eigenvalues of the damped pencil against the
closed form of a damped oscillator and a second-order model of a damped chain, dense and sparse,
overdamped modes apart, and gravity with damping together."""
import numpy as np
import pytest
import scipy.linalg as sla

from phmech import PlanarRigidBody, PointMass, System
from phmech.joints import Revolute


def oscillator(k=90.0, mass=2.5, zeta=0.01):
    c = 2 * zeta * np.sqrt(k * mass)
    p = PointMass("mass", mass, (1.0, 0.0))
    s = System([p])
    s.add_spring(p.port("P"), None, stiffness=k, damping=c, at=(0.0, 0.0))
    return s


def chain(k1=40.0, k2=25.0, c1=0.8, c2=0.3, m1=2.0, m2=0.5):
    """ground -(k1, c1)- m1 -(k2, c2)- m2 along x; springs at rest length."""
    a, b = PointMass("m1", m1, (1.0, 0.0)), PointMass("m2", m2, (2.5, 0.0))
    s = System([a, b])
    s.add_spring(a.port("P"), None, stiffness=k1, damping=c1, at=(0.0, 0.0), name="k1")
    s.add_spring(a.port("P"), b.port("P"), stiffness=k2, damping=c2, name="k2")
    return s


def second_order_eigenvalues(M, C, K):
    """Eigenvalues of ``lambda^2 M + lambda C + K`` from the first-order companion pencil."""
    n = M.shape[0]
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-K, -C]])
    B = np.block([[np.eye(n), np.zeros((n, n))], [np.zeros((n, n)), M]])
    return sla.eigvals(A, B)


@pytest.mark.parametrize("zeta", [0.01, 0.2, 0.7])
def test_a_damped_oscillator_has_its_closed_form_eigenvalue(zeta):
    k, mass = 90.0, 2.5
    s = oscillator(k, mass, zeta)
    modes = s.linearize().eigenmodes(k=1)
    w = np.sqrt(k / mass)
    assert modes.omega == pytest.approx([w], rel=1e-9)
    assert modes.zeta == pytest.approx([zeta], rel=1e-8)
    assert modes.eigenvalues[0] == pytest.approx(complex(-zeta * w, w * np.sqrt(1 - zeta**2)), rel=1e-9)


def test_an_overdamped_oscillator_reports_real_decay_rates():
    k, mass, zeta = 90.0, 2.5, 1.5
    modes = oscillator(k, mass, zeta).linearize()
    with pytest.raises(RuntimeError, match="0 vibration modes and 2 overdamped"):
        modes.eigenmodes(k=1, method="dense")
    # with the lateral direction it has no stiffness in, the pencil keeps only the axial pair
    w = np.sqrt(k / mass)
    rates = np.sort(-w * (zeta + np.array([-1.0, 1.0]) * np.sqrt(zeta**2 - 1)))[::-1]
    from phmech.solvers.eigen import _damped_dense
    assert _damped_dense(modes, 1, 1e-8)[4] == pytest.approx(rates, rel=1e-9)


def test_a_damped_two_mass_chain_against_its_second_order_model():
    k1, k2, c1, c2, m1, m2 = 40.0, 25.0, 0.8, 0.3, 2.0, 0.5
    M = np.diag([m1, m2])
    C = np.array([[c1 + c2, -c2], [-c2, c2]])
    K = np.array([[k1 + k2, -k2], [-k2, k2]])
    ev = second_order_eigenvalues(M, C, K)
    ev = ev[ev.imag > 0]
    ev = ev[np.argsort(np.abs(ev))]
    modes = chain(k1, k2, c1, c2, m1, m2).linearize().eigenmodes(k=2)
    assert modes.eigenvalues == pytest.approx(ev, rel=1e-9)
    assert modes.zeta == pytest.approx(-ev.real / np.abs(ev), rel=1e-8)
    assert np.all(modes.residuals < 1e-9)


def test_a_damped_pendulum_under_gravity():
    """A rod on a pin with a torsional damper c: theta'' J + c theta' + m g (L/2) theta = 0."""
    m, L, g, c = 1.3, 0.7, 9.81, 0.05
    rod = PlanarRigidBody.rod("rod", m, L, angle=-np.pi / 2)
    s = System([rod])
    pin = s.add_joint(Revolute(rod.port("A"), None, name="pin"))
    s.add_torsional_spring(pin, 0.0, damping=c)
    s.add_gravity((0.0, -g))
    Jp = m * L**2 / 3
    ev = second_order_eigenvalues(np.array([[Jp]]), np.array([[c]]), np.array([[m * g * L / 2]]))
    modes = s.linearize().eigenmodes(k=1)
    assert modes.eigenvalues[0] == pytest.approx(ev[ev.imag > 0][0], rel=1e-9)


def test_the_sparse_path_finds_the_damped_modes_of_the_dense_one():
    """A preloaded string of 12 masses with dampers (no zero modes): shift-invert ARPACK
    against QZ of the reduced pencil.  The axial dampers leave the transverse modes undamped to
    first order (zeta = 0); the lowest axial mode is damped."""
    n, k, c, mass, a, l0 = 12, 30.0, 0.05, 0.4, 0.5, 0.45
    pts = [PointMass(f"m{i}", mass, ((i + 1) * a, 0.0)) for i in range(n)]
    s = System(pts)
    s.add_spring(pts[0].port("P"), None, stiffness=k, damping=c, rest_length=l0, at=(0.0, 0.0), name="s0")
    for i in range(n - 1):
        s.add_spring(pts[i].port("P"), pts[i + 1].port("P"), stiffness=k, damping=c, rest_length=l0,
                     name=f"s{i + 1}")
    s.add_spring(pts[-1].port("P"), None, stiffness=k, damping=c, rest_length=l0, at=((n + 1) * a, 0.0),
                 name=f"s{n}")
    lin = s.linearize()
    dense, sparse = lin.eigenmodes(k=4, method="dense"), lin.eigenmodes(k=4, method="sparse")
    assert sparse.eigenvalues == pytest.approx(dense.eigenvalues, rel=1e-8)
    assert np.all(np.abs(dense.zeta[:3]) < 1e-12) and dense.zeta[3] > 1e-3
    assert np.all(sparse.residuals < 1e-8)

"""The spatial geometrically exact beam (:mod:`phmech.fem.beam_exact3d`): exact Jacobians, a skew
structure and objective strains; the planar beam as its plane case; a helix rolled by a follower
end moment against its closed form (bending and torsion coupled); free flight and a spherical
pendulum keep their energy (its joints, loads and springs: :mod:`tests.fem.test_exact_beam3d_joints`)."""
import math

import numpy as np
import pytest
import scipy.linalg as sla

pytest.importorskip("firedrake")

from phmech import System  # noqa: E402
from phmech.fem import GeometricallyExactBeam  # noqa: E402
from phmech.math.rotations import UnitQuaternion  # noqa: E402
from phmech.solvers.static import equilibrium  # noqa: E402

SECTION = dict(rho=1.0, A=1.0, E=1e4, I=1e-4)


def _fd(fun, x, h=1e-6):
    eye = np.eye(x.size)
    return np.column_stack([(fun(x + h * eye[j]) - fun(x - h * eye[j])) / (2 * h) for j in range(x.size)])


def test_the_jacobians_are_exact_the_structure_skew_and_the_strains_objective():
    """At a random state of a beam with an oblique initial orientation and unequal section
    constants: the effort and kinematic Jacobians against central differences, ``e . f = 0``,
    the stress rows ``w B v`` equal the strain rates along the kinematics, the straight beam is
    unstrained and a rigid motion of a deformed one strains nothing."""
    c, s = math.cos(0.2), math.sin(0.2)
    b = GeometricallyExactBeam("b", 1.0, 2, 1.0, 1.0, 100.0, 0.01, Iz=0.02, Jt=0.015, dim=3,
                               orientation=(c, 0.3 * s, 0.4 * s, math.sqrt(0.75) * s))
    rng = np.random.default_rng(1)
    q = b.q0 + 0.1 * rng.standard_normal(b.nq)
    e = rng.standard_normal(b.ne)
    f, fq, fe = b.effort_terms(0.0, q, e)
    assert abs(e @ f) <= 1e-13 * np.abs(e).max() * np.abs(f).max() * b.ne
    Dq, De = _fd(lambda x: b.effort_force(0.0, x, e), q), _fd(lambda x: b.effort_force(0.0, q, x), e)
    assert np.abs(fq.toarray() - Dq).max() <= 1e-8 * np.abs(Dq).max()
    assert np.abs(fe.toarray() - De).max() <= 1e-8 * np.abs(De).max()
    Tq, Te = b.qdot_jacobians(q, e)
    assert np.abs(Tq - _fd(lambda x: b.qdot(x, e), q)).max() <= 1e-8
    assert np.abs(Te - _fd(lambda x: b.qdot(q, x), e)).max() <= 1e-8
    qd, h = b.qdot(q, e), 1e-6
    rate = (b.strains(q + h * qd) - b.strains(q - h * qd)) / (2 * h)
    assert np.abs(f[b.stress_dofs].reshape(-1, 6) / b.fe.W[:, None] - rate).max() <= 1e-7 * np.abs(rate).max()
    assert np.abs(b.strains(b.q0)).max() <= 1e-14
    p = np.array([0.8, 0.2, -0.4, 0.4])
    Q = UnitQuaternion.matrix(p / np.linalg.norm(p))
    X = q.reshape(-1, 12).copy()
    for k in range(4):
        X[:, 3 * k:3 * k + 3] = X[:, 3 * k:3 * k + 3] @ Q.T
    X[:, :3] += (0.3, -0.1, 0.2)
    assert np.abs(b.strains(X.ravel()) - b.strains(q)).max() <= 1e-13


def test_the_plane_case_is_the_planar_beam():
    """Loaded in its plane (bending about ``d_3``), the spatial beam has the equilibrium of the planar
    beam of the same section: the same discretization, to the Newton tolerance."""
    tips = []
    for dim in (2, 3):
        b = GeometricallyExactBeam("b", 1.0, 8, **SECTION, dim=dim)
        s = System([b])
        s.clamp(b.port("A"))
        s.apply_force(b.port("B"), (0.0, -5.0) if dim == 2 else (0.0, -5.0, 0.0))
        dae = s.assemble()
        q = equilibrium(dae, load_steps=4)[dae.sq]
        tips.append(b.port_position(q, b.port("B"))[:2])
    assert np.abs(tips[0] - tips[1]).max() <= 1e-9
    assert tips[0][1] < -0.7


def _helix(kappa, L=1.0):
    """Tip position and rotation of the uniform helix ``R' = R [kappa]_x``, ``r' = R e_1``, from the root
    at the origin with ``R = I`` (the exponential of the 4 x 4 block matrix)."""
    A = np.zeros((4, 4))
    A[:3, :3] = [[0.0, -kappa[2], kappa[1]], [kappa[2], 0.0, -kappa[0]], [-kappa[1], kappa[0], 0.0]]
    A[0, 3] = 1.0
    X = sla.expm(A * L)
    return X[:3, 3], X[:3, :3]


def test_a_follower_end_moment_rolls_a_helix():
    """With ``G J_t = E I`` (``G = E / 2``, a circular section) a moment ``EI kappa`` fixed in the tip
    section's axes bends and twists the cantilever into the helix of constant material curvature
    ``kappa`` (exact: no force, so no axial or shear strain), here ``|kappa| L = 1.4 pi`` with twist and
    bending coupled.  The tip position and rotation converge at the observed order 4 over 8, 16, 32
    quadratic elements, to 2e-5."""
    kappa = 1.4 * math.pi * np.array([0.6, 0.0, 0.8])
    r_ex, R_ex = _helix(kappa)
    errs = []
    for n in (8, 16, 32):
        b = GeometricallyExactBeam("b", 1.0, n, **SECTION, G=5e3, dim=3)
        s = System([b])
        s.clamp(b.port("A"))
        s.apply_moment(b.port("B"), b.stiffness[4] * kappa, frame="body")
        dae = s.assemble()
        q = equilibrium(dae, load_steps=8)[dae.sq]
        tip = b.port("B")
        errs.append(max(np.abs(b.port_position(q, tip) - r_ex).max(), np.abs(b.port_rotation(q, tip) - R_ex).max()))
    rates = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    assert np.all(rates > 3.5), (errs, rates)
    assert errs[-1] <= 2e-5


def _tumbling(dt):
    b = GeometricallyExactBeam("b", 1.0, 3, 1.0, 1.0, 1e3, 1e-3, Iz=2e-3, dim=3)
    s = System([b])
    dae = s.assemble()
    y = dae.initial_state()
    r = b.nodes(b.q0)[0]
    w = np.array([1.0, 2.0, 3.0])
    v = np.cross(w, r - (0.5, 0.0, 0.0)) + np.outer(np.sin(math.pi * r[:, 0]), (0.0, 1.0, 2.0))
    y[dae.nq + b.velocity_dofs] = np.column_stack([v, np.tile(w, (len(r), 1))]).ravel()
    res = s.simulate(0.5, y0=y, dt=dt, newton_tol=1e-12)
    Q, E = res.y[:, dae.sq], res.y[:, dae.se]
    return b, res, Q, E, np.array([b.angular_momentum(q, e) for q, e in zip(Q, E)])


def test_free_flight_keeps_energy_rotations_and_angular_momentum_to_second_order():
    """A free beam tumbling and bending in space (0.5 s, unequal section axes): the energy is conserved,
    the nodes' rotations stay orthonormal and the stresses equal the constitutive stresses, to the
    Newton tolerance; the angular momentum drifts at the midpoint rule's second order (the ratio of
    the drifts at dt = 1e-3 and 5e-4 is near 4) and below 1e-5 of its size."""
    b, res, Q, E, L1 = _tumbling(1e-3)
    H = res.hamiltonian()
    assert np.abs(H - H[0]).max() <= 1e-10 * H[0]
    R = b.nodes(Q[-1])[1]
    assert np.abs(np.einsum("aji,ajk->aik", R, R) - np.eye(3)).max() <= 1e-10
    assert np.abs(R[0] - b.nodes(Q[0])[1][0]).max() > 0.5            # it turned (a large rotation)
    sigma = np.array([b.stresses_of(q)[b.stress_dofs] for q in Q])
    assert np.abs(E[:, b.stress_dofs] - sigma).max() <= 1e-7 * np.abs(sigma).max()
    L2 = _tumbling(5e-4)[4]
    d1, d2 = np.abs(L1[-1] - L1[0]).max(), np.abs(L2[-1] - L2[0]).max()
    assert d1 <= 1e-5 * np.abs(L1[0]).max()
    assert 3.0 < d1 / d2 < 5.0, (d1, d2)


def test_the_spherical_pendulum_under_gravity_conserves_its_energy():
    """The beam on a spherical joint to the ground, released horizontal with a sideways push, under
    gravity (the tiny model of the family): ``H + V`` conserved, the joint held at position level."""
    from phmech.mechanisms.tiny import exact_spatial_pendulum
    s = exact_spatial_pendulum()
    dae = s.assemble()
    b = s.bodies[0]
    e0 = np.zeros(dae.ne)
    e0[b.velocity_dofs] = np.column_stack([np.outer(b.nodes(b.q0)[0][:, 0], (0.0, 1.0, 0.0)),
                                           np.zeros((b.n_nodes, 3))]).ravel()
    res = s.simulate(0.3, y0=dae.initial_state(e0=e0), dt=1e-3, newton_tol=1e-12)
    V = dae.potential_energy(res.y)
    assert np.ptp(V) > 0.02                       # it fell (the beam weighs 0.098 N)
    assert np.ptp(res.hamiltonian() + V) <= 1e-9 * np.ptp(V)
    assert max(np.abs(r).max() for r in dae.position_residuals(res.t[-1], res.y[-1, dae.sq]).values()) <= 1e-8


def test_a_bad_dimension_is_refused():
    with pytest.raises(ValueError, match=r"GeometricallyExactBeam: dim must be 2 or 3, got 4"):
        GeometricallyExactBeam("x", 1.0, 2, **SECTION, dim=4)

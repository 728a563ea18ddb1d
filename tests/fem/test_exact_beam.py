"""The planar geometrically exact beam (:mod:`phmech.fem.beam_exact`): exact Jacobians and a skew
structure, the large-deflection cantilever against the shooting solution of Reissner's equations
(:mod:`phmech.validation._elastica`) with its observed order, the roll-up into a full circle,
the invariants of the midpoint rule in free flight, welded chains and the spin-up."""
import math

import numpy as np
import pytest

pytest.importorskip("firedrake")

from phmech import System  # noqa: E402
from phmech.fem.beam_exact import GeometricallyExactBeam  # noqa: E402
from phmech.solvers.static import equilibrium  # noqa: E402
from phmech.validation._elastica import cantilever  # noqa: E402

#: a slender, nearly inextensible section: L = EI = 1, EA = 1e4, k G A = 3.2e3
SECTION = dict(rho=1.0, A=1.0, E=1e4, I=1e-4)


def _beam(n, degree=2, name="b", **kw):
    return GeometricallyExactBeam(name, 1.0, n, **{**SECTION, **kw}, degree=degree)


def _cantilever(n, force=(0.0, 0.0), moment=0.0, degree=2, load_steps=4):
    b = _beam(n, degree)
    s = System([b])
    s.clamp(b.port("A"))
    if any(force):
        s.apply_force(b.port("B"), force)
    if moment:
        s.apply_moment(b.port("B"), moment)
    dae = s.assemble()
    q = equilibrium(dae, load_steps=load_steps)[dae.sq]
    tip = b.port("B")
    return b, np.r_[b.port_position(q, tip), b.port_angle(q, tip)]


def _fd(fun, x, h=1e-6):
    cols = []
    for j in range(x.size):
        d = np.zeros(x.size)
        d[j] = h
        cols.append((fun(x + d) - fun(x - d)) / (2 * h))
    return np.column_stack(cols)


def test_the_jacobians_are_exact_and_the_structure_is_skew():
    """At a random state: the effort and kinematic Jacobians against central differences, ``e . f = 0``
    (the interconnection is skew), and the stress rows are ``w B v`` with ``B v`` the rate of the
    strains along the kinematics (differences along ``q' = T(q) e``)."""
    b = _beam(3, angle=0.3)
    rng = np.random.default_rng(1)
    q = b.q0 + 0.1 * rng.standard_normal(b.nq)
    e = rng.standard_normal(b.ne)
    f, fq, fe = b.effort_terms(0.0, q, e)
    assert abs(e @ f) <= 1e-13 * np.abs(e).max() * np.abs(f).max() * b.ne
    scale = np.abs(fq.toarray()).max()
    assert np.abs(fq.toarray() - _fd(lambda x: b.effort_force(0.0, x, e), q)).max() <= 1e-8 * scale
    assert np.abs(fe.toarray() - _fd(lambda x: b.effort_force(0.0, q, x), e)).max() <= 1e-8 * np.abs(fe.toarray()).max()
    Tq, Te = b.qdot_jacobians(q, e)
    assert np.abs(Tq - _fd(lambda x: b.qdot(x, e), q)).max() <= 1e-8
    assert np.abs(Te - _fd(lambda x: b.qdot(q, x), e)).max() <= 1e-8
    qd, h = b.qdot(q, e), 1e-6
    rate = (b.strains(q + h * qd) - b.strains(q - h * qd)) / (2 * h)
    assert np.abs(f[b.stress_dofs].reshape(-1, 3) / b.fe.W[:, None] - rate).max() <= 1e-7 * np.abs(rate).max()
    # the straight initial axis is unstrained, and a rigid motion strains nothing (objectivity)
    assert np.abs(b.strains(b.q0)).max() <= 1e-14
    c, s = math.cos(1.1), math.sin(1.1)
    moved = q.reshape(-1, 4) @ np.kron(np.eye(2), [[c, s], [-s, c]]) + [0.3, -0.2, 0.0, 0.0]
    moved = moved.ravel()
    assert np.abs(b.strains(moved) - b.strains(q)).max() <= 1e-12


def test_the_compiled_residual_is_the_beams_kernels():
    """The compiled residual and its Jacobian evaluate the beam's family: equal to the Python path
    (the same kernels on the beam's own data) in a welded, loaded system."""
    from phmech.assembly.compiled import compiled_residual
    b = _beam(3)
    s = System([b])
    s.clamp(b.port("A"))
    s.apply_force(b.port("B"), (0.2, -1.0))
    dae = s.assemble()
    c = compiled_residual(dae)
    assert c.pure and c.leftovers == []
    y = dae.initial_state() + 0.05 * np.random.default_rng(2).standard_normal(dae.n)
    fp = dae.f(0.1, y)
    assert np.abs(c.f(0.1, y) - fp).max() <= 1e-13 * np.abs(fp).max()
    Jp = dae.jacobian(0.1, y).toarray()
    assert np.abs(c.jacobian(y, 0.1) - Jp).max() <= 1e-13 * np.abs(Jp).max()


#: Mattiasson (1981), Table 1: the inextensible elastica under a dead tip load P L^2 / EI = alpha,
#: downward deflection w / L of the tip
MATTIASSON_W = {1: 0.30172, 2: 0.49346, 5: 0.71379, 10: 0.81061}


def test_the_shooting_reference_reproduces_the_published_elastica():
    """The reference solution (its own shooting, inextensible and shear-rigid) against the published
    tip deflections (5 digits), and the half circle of an end moment ``pi EI / L`` (tip at
    ``(0, 2 L / pi)``)."""
    for alpha, w in MATTIASSON_W.items():
        assert abs(-cantilever(P=(0.0, -alpha)).tip[1] - w) <= 5e-6
    tip = cantilever(M=math.pi).tip
    assert np.abs(tip - (0.0, 2.0 / math.pi, math.pi)).max() <= 1e-10


@pytest.mark.parametrize("alpha", sorted(MATTIASSON_W))
def test_the_large_deflection_cantilever_converges_to_reissners_solution(alpha):
    """Dead tip load ``alpha EI / L^2`` on 8, 16, 32, 64 quadratic elements against the shooting solution
    of the same (extensible, shear-deformable) beam: the tip's position and angle converge at
    the observed order 4 (log2 of the error ratios, all above 3.5), the finest within 1e-6;
    the tip is also within the section's compliance (``P / k G A``) of the inextensible, shear-rigid
    elastica."""
    errs = []
    for n in (8, 16, 32, 64):
        b, tip = _cantilever(n, force=(0.0, -alpha))
        ref = cantilever(P=(0.0, -alpha), EA=b.EA, GA=b.GA).tip
        errs.append(np.abs(tip - ref).max())
    rates = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    assert np.all(rates > 3.5), (errs, rates)
    assert errs[-1] <= 1e-6
    assert abs(-tip[1] - MATTIASSON_W[alpha]) <= alpha / b.GA       # the shear and axial strain, P / GA


def test_the_roll_up_closes_the_circle():
    """An end moment ``2 pi EI / L`` rolls the cantilever into a full circle (exact: the tip returns
    to the root, its director to the initial one, for any axial and shear stiffness): the distance
    falls at the observed order 4 over 8, 16, 32 quadratic elements, to below 3e-5."""
    errs = []
    for n in (8, 16, 32):
        b, tip = _cantilever(n, moment=2.0 * math.pi * 1e-4 * 1e4, load_steps=8)
        errs.append(math.hypot(tip[0], tip[1]))
        assert abs(tip[2]) <= 10 * errs[-1]         # the angle is measured modulo a full turn
    rates = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    assert np.all(rates > 3.5), (errs, rates)
    assert errs[-1] <= 3e-5


def test_two_welded_beams_are_one_beam():
    """Two beams of 8 elements welded end to end under a large tip load have the equilibrium of one
    beam of 16 (the same nodes): the weld's angle is the directors', consistent with its velocity
    rows at a deformed port (a turn of the tip of the first half by 0.6 rad)."""
    one, tip = _cantilever(16, force=(0.0, -5.0))
    a = GeometricallyExactBeam("a", 0.5, 8, **SECTION)
    b = GeometricallyExactBeam("b", 0.5, 8, **SECTION, position=(0.5, 0.0))
    s = System([a, b])
    s.clamp(a.port("A"))
    s.connect(a.port("B"), b.port("A"), joint="weld")
    s.apply_force(b.port("B"), (0.0, -5.0))
    dae = s.assemble()
    y = equilibrium(dae, load_steps=4)
    q = y[dae.sq]
    qa, qb = q[dae.q_slices["a"]], q[dae.q_slices["b"]]
    chain = np.r_[b.port_position(qb, b.port("B")), b.port_angle(qb, b.port("B"))]
    assert np.abs(chain - tip).max() <= 1e-9
    assert a.port_angle(qa, a.port("B")) < -0.6
    assert np.abs(dae.project_positions(0.0, q)[0] - q).max() <= 1e-10    # nothing to straighten


def _free_flight(n=4, t_end=1.0, dt=1e-3):
    b = GeometricallyExactBeam("b", 1.0, n, 1.0, 1.0, 1e3, 1e-3)
    s = System([b])
    dae = s.assemble()
    y = dae.initial_state()
    r = b.nodes(b.q0)[0]
    v = np.column_stack([-3.0 * r[:, 1], 3.0 * (r[:, 0] - 0.5) + 2.0 * np.sin(math.pi * r[:, 0]), np.full(len(r), 3.0)])
    y[dae.nq + b.velocity_dofs] = v.ravel()
    return b, dae, s.simulate(t_end, y0=y, dt=dt, newton_tol=1e-12)


def test_free_flight_keeps_energy_angular_momentum_and_the_invariants():
    """A free beam spinning and bending (1 s, 1000 midpoint steps, large rotations): the energy and
    the angular momentum are conserved, the directors stay unit and the stresses equal the
    constitutive stresses of the configuration, all to the Newton tolerance."""
    b, dae, res = _free_flight()
    Q, E = res.y[:, dae.sq], res.y[:, dae.se]
    H = res.hamiltonian()
    Lz = np.array([b.angular_momentum(q, e) for q, e in zip(Q, E)])
    assert np.abs(H - H[0]).max() <= 1e-10 * H[0]
    assert np.abs(Lz - Lz[0]).max() <= 1e-10 * abs(Lz[0])
    assert abs(Q[-1, 2] - Q[0, 2]) > 0.5                     # it turned (a large rotation)
    d = Q.reshape(len(Q), -1, 4)[:, :, 2:]
    assert np.abs(np.linalg.norm(d, axis=2) - 1.0).max() <= 1e-10
    sigma = np.array([b.stresses_of(q)[b.stress_dofs] for q in Q])
    assert np.abs(E[:, b.stress_dofs] - sigma).max() <= 1e-7 * np.abs(sigma).max()


def test_the_pendulum_under_gravity_conserves_its_energy():
    """The exact beam pinned at its root, a mass pinned at its tip, swinging and bending under
    gravity: gravity is the potential of the deformed beam (linear in the nodes), so ``H + V`` is
    conserved by the midpoint rule to the Newton tolerance, and the joints hold at position level."""
    from phmech import PointMass
    b = GeometricallyExactBeam("beam", 1.0, 4, 1.0, 1e-2, 1e4, 1e-6)
    tip = PointMass("tip", 0.1, (1.0, 0.0))
    s = System([b, tip])
    s.pin(b.port("A"))
    s.connect(b.port("B"), tip.port("P"))
    s.add_gravity((0.0, -9.81))
    dae = s.assemble()
    res = s.simulate(0.5, y0=dae.initial_state(), dt=1e-3, newton_tol=1e-12)
    V = dae.potential_energy(res.y)
    assert np.ptp(V) > 0.5                                      # it swung
    assert np.ptp(res.hamiltonian() + V) <= 1e-9 * np.ptp(V)
    assert max(np.abs(r).max() for r in dae.position_residuals(res.t[-1], res.y[-1, dae.sq]).values()) <= 1e-8


def test_spin_up_follows_the_consistent_beam():
    """Kane's spin-up (first 4 s): the exact beam, pinned and driven at its root node, against the
    consistent beam with geometric stiffening on its driven frame (an independent model): the tip
    deflections in the hub frame agree within 0.5 % of their peak on 4 elements."""
    from phmech.validation import spin_up
    exact = spin_up.run_model("exact", 4, t_end=4.0, dt=5e-3)
    stiff = spin_up.run_model("stiffened", 4, t_end=4.0, dt=5e-3)
    peak = np.abs(stiff.tip).max()
    assert peak > 0.1
    assert np.abs(exact.tip - stiff.tip).max() <= 5e-3 * peak
    assert np.abs(exact.energy_balance).max() <= 1e-6 * np.abs(exact.result.hamiltonian()).max()


def test_bad_parameters_name_the_beam():
    with pytest.raises(ValueError, match=r"beam 'x': degree must be an integer from 1 to 4, got 7"):
        GeometricallyExactBeam("x", 1.0, 2, **SECTION, degree=7)
    with pytest.raises(ValueError, match=r"beam 'x': parameters must be positive and finite: G=-1"):
        GeometricallyExactBeam("x", 1.0, 2, **SECTION, G=-1)


def test_force_elements_act_at_the_port_nodes():
    """A spring at the root port and one at the tip port act where those nodes are (the elements
    read each port's node, :meth:`~phmech.fem.beam_nodal.NodalBeam.port_frame`): on a beam moved
    rigidly and at rest, each node's force is ``-k (|r| - l0) r / |r|``; a torsional spring on a
    section's rotation is refused instead of acting at a wrong angle."""
    from phmech.joints import Revolute
    b = _beam(2, position=(0.3, 0.1))
    s = System([b])
    s.add_spring(b.port("A"), None, stiffness=10.0, rest_length=0.25, at=(0.0, 0.0))
    s.add_spring(b.port("B"), None, stiffness=4.0, rest_length=0.5, at=(0.0, 0.0))
    dae = s.assemble()
    y = dae.initial_state()
    q = y[dae.q_slices["b"]].reshape(b.n_nodes, 4)
    q[:, :2] += (0.2, -0.1)                                 # every node moved, at rest, unstressed
    y[dae.q_slices["b"]] = q.ravel()
    f = dae.compiled_residual().f(0.0, y)[dae.se]
    assert np.abs(f[:2] - (-2.5, 0.0)).max() <= 1e-12       # -k (|r_0| - l0) r_0 / |r_0|, r_0 = (0.5, 0)
    r = q[-1, :2]                                           # the tip node, (1.5, 0)
    assert np.abs(f[3 * (b.n_nodes - 1):3 * (b.n_nodes - 1) + 2] + 4.0 * (np.linalg.norm(r) - 0.5) * r
                  / np.linalg.norm(r)).max() <= 1e-12
    pin = s.add_joint(Revolute(b.port("A"), None, name="pin"))
    with pytest.raises(ValueError, match=r"port 'b.A' of body 'b' has no frame rotation that the elements read"):
        s.add_torsional_spring(pin, 1.0)

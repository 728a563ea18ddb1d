"""Assembly of spatial closed loops: redundant rows, projection of initial positions."""
import numpy as np
import pytest

from phmech import ConsistencyError, SpatialRigidBody, System
from phmech.joints import Revolute3, Spherical

JOINTS = [(0, 0, 0), (1, 0, 0), (1, -1, 0), (1, -1, 1), (0, -1, 1), (0, 0, 1)]
AXES = [(0, 1, 0), (0, 0, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 0)]


def bricard(shift=None):
    """Bricard's overconstrained loop; ``shift`` moves the links' initial positions."""
    links = [SpatialRigidBody.bar(f"link{i + 1}", 1.0, JOINTS[i], JOINTS[i + 1]) for i in range(5)]
    s = System(links)
    s.add_joint(Revolute3(links[0].port("A"), None, axis=AXES[0], name="J1"))
    for i in range(1, 5):
        s.add_joint(Revolute3(links[i - 1].port("B"), links[i].port("A"), axis=AXES[i], name=f"J{i + 1}"))
    s.add_joint(Revolute3(links[4].port("B"), None, axis=AXES[5], name="J6"))
    s.add_gravity((0.0, -9.81, 0.0))
    return s, links


def test_bricard_has_one_redundant_row_and_one_degree_of_freedom():
    s, links = bricard()
    dae = s.assemble()
    assert len(dae.redundant_rows) == 1 and dae.redundant_rows[0][0] == "J6"
    G = dae.G(dae.q0)
    # Grubler: 30 - 30 = 0 degrees of freedom; the rank says 1
    assert dae.ne - np.linalg.matrix_rank(G) == 1


def test_perturbed_closed_loop_is_projected_and_reported():
    s, links = bricard()
    dae = s.assemble()
    q0 = dae.q0.copy()
    rng = np.random.default_rng(3)
    for b in links[1:4]:
        sl = dae.q_slices[b.name]
        q0[sl][:3] += rng.normal(size=3) * 1e-2
    with pytest.raises(ConsistencyError) as err:
        dae.initial_state(q0=q0, positions="check")
    assert {"J2", "J3", "J4", "J5"} <= {p.split("'")[1] for p in err.value.problems}
    y0 = dae.initial_state(q0=q0)
    q = y0[dae.sq]
    worst = max(np.max(np.abs(r)) for r in dae.position_residuals(0.0, q).values())
    assert worst < 1e-10
    assert set(dae.projection_report["positions"]) <= {b.name for b in links}
    for b in links:   # quaternions stay unit
        assert abs(np.linalg.norm(q[dae.q_slices[b.name]][3:]) - 1) < 1e-14
    assert np.max(np.abs(dae.constraint_residual(0.0, y0))) < 1e-10


def test_impossible_configuration_lists_the_joints():
    a = SpatialRigidBody.bar("a", 1.0, (0, 0, 0), (1, 0, 0))
    s = System([a])
    s.add_joint(Spherical(a.port("A"), None, at=(0, 0, 0), name="left"))
    s.add_joint(Spherical(a.port("B"), None, at=(3, 0, 0), name="right"))   # the bar is 1 m long
    with pytest.raises(ConsistencyError, match="right"):
        s.assemble().initial_state()


def test_gravity_potential_and_power_agree():
    """-dV/dt equals the power of gravity for rigid bodies (potential force)."""
    s, links = bricard()
    dae = s.assemble()
    rng = np.random.default_rng(5)
    y = dae.initial_state() + rng.normal(size=dae.n) * 0.1
    qdot = dae.f(0.0, y)[dae.sq]
    h = 1e-6
    dV = (dae.potential_energy(np.r_[y[dae.sq] + h * qdot, y[dae.nq:]])
          - dae.potential_energy(np.r_[y[dae.sq] - h * qdot, y[dae.nq:]])) / (2 * h)
    P = sum(v for k, v in dae.power_terms(0.0, y).items() if k.startswith("gravity"))
    assert dV == pytest.approx(-P, rel=1e-7)


def test_motion_without_inertia_names_the_body():
    """A slender bar (no axial inertia) between two spherical joints can spin freely at no cost."""
    a = SpatialRigidBody.bar("spinner", 1.0, (0, 0, 0), (1, 0, 0))
    s = System([a])
    s.add_joint(Spherical(a.port("A"), None, name="left"))
    s.add_joint(Spherical(a.port("B"), None, name="right"))
    with pytest.raises(ConsistencyError, match=r"\['spinner'\] can move without kinetic energy"):
        s.assemble().initial_state()


def test_damper_dissipates_what_the_energy_loses():
    """A damped spatial pendulum: H + V decreases by the damper's dissipated work, with the
    midpoint rule's exact discrete balance."""
    bar = SpatialRigidBody.bar("bar", 1.0, (0, 0, 0), (0.6, 0.0, 0.8), section=(0.05, 0.05))
    s = System([bar])
    s.add_joint(Spherical(bar.port("A"), None, name="pivot"))
    s.add_gravity((0.0, 0.0, -9.81))
    s.add_damper(bar.port("B"), 0.3)
    dae = s.assemble()
    e0 = np.zeros(6)
    e0[3:] = (0.5, 1.0, -0.3)
    r = s.simulate(2.0, dt=1e-3, y0=dae.initial_state(e0=e0))
    dissipated = r.energy_balance()            # H - H0 - W, W = work of gravity and damper
    E = r.hamiltonian() + dae.potential_energy(r.y)
    damper = r.port_powers()["damper(bar.B)"]
    assert np.all(damper <= 1e-14) and np.min(damper) < -0.01
    assert np.max(np.abs(dissipated)) < 1e-9 * np.max(r.hamiltonian())
    assert E[-1] < E[0] - 0.05 * abs(E[0] - dae.potential_energy(r.y[0]))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_block_saddle_solver_equals_the_full_factorization(sign):
    """The block-structured saddle-point solve (large models) equals the plain sparse LU."""
    import scipy.sparse as sp
    from scipy.sparse.linalg import splu
    from phmech.assembly.initial import BlockSaddle
    rng = np.random.default_rng(11)
    n, nr, nl = 60, 6, 4
    B = sp.random(n, n, density=0.05, random_state=3) + sp.identity(n) * 3
    M = (B @ B.T).tocsc()
    G = sp.csr_matrix(rng.normal(size=(nl, n)))
    frame = np.arange(nr)
    K = sp.bmat([[M, sign * G.T], [G, None]], format="csc")
    b = rng.normal(size=n + nl)
    x = BlockSaddle(M, G, frame, sign).solve(b)
    assert np.allclose(x, splu(K).solve(b), rtol=1e-10, atol=1e-12)

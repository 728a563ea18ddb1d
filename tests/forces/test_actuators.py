"""Proof-mass actuator and attached bodies (phmech.forces.actuators): analytic 2-DOF frequencies and damping,
the discrete energy balance of the midpoint rule, the input port, bad input."""
import numpy as np
import pytest
import scipy.linalg as sla

from phmech import System
from phmech.forces.actuators import AttachedBody, ProofMassActuator

CASING = [0.18, 3e-4, 3e-4]            # heave mass [kg], J_xx = J_yy [kg m^2]
M_P, K_S = 0.0236, 1026.0              # proof mass [kg], spring [N/m]


def pencil_eigenvalues(dae):
    """Finite eigenvalues of the linear descriptor system ``diag(M, 0) y' = [[J - R, G^T], [-G, 0]] y``
    (no q: every body here is fixed), from the assembled matrices; the zeros are left out."""
    G = np.asarray(dae.G(dae.q0))[dae.active]
    n, nl = dae.ne, G.shape[0]
    A = np.block([[(dae.J0 - dae.R).toarray(), G.T], [-G, np.zeros((nl, nl))]])
    E = np.zeros((n + nl, n + nl))
    E[:n, :n] = dae.M.toarray()
    lam = sla.eig(A, E, right=False)
    lam = lam[np.isfinite(lam)]
    lam = lam[np.abs(lam) > 1e-6 * np.max(np.abs(lam))]
    return lam[np.argsort(lam.imag)]


def two_dof_eigenvalues(M, C, K):
    """Eigenvalues of ``M x'' + C x' + K x = 0`` (companion form, independent of phmech)."""
    n = len(M)
    Mi = np.linalg.inv(M)
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-Mi @ K, -Mi @ C]])
    lam = np.linalg.eigvals(A)
    lam = lam[np.abs(lam) > 1e-6 * np.max(np.abs(lam))]
    return lam[np.argsort(lam.imag)]


@pytest.mark.parametrize("c", [0.0, 0.8])
def test_fixed_base(c):
    """Casing welded to the ground: the proof mass alone, lambda^2 + (c/m) lambda + k/m = 0."""
    a = ProofMassActuator("a", CASING, M_P, K_S, damping=c)
    s = System([a])
    s.clamp(a.port("P"))
    lam = pencil_eigenvalues(s.assemble())
    exact = np.roots([1.0, c / M_P, K_S / M_P])
    exact = exact[np.argsort(exact.imag)]
    assert lam.shape == (2,) and np.allclose(lam, exact, rtol=1e-9), (lam, exact)
    if c == 0:
        assert np.isclose(abs(lam[0]) / (2 * np.pi), a.natural_frequency(), rtol=1e-9)


@pytest.mark.parametrize("c", [0.0, 0.8])
def test_free_casing_two_masses(c):
    """No joint: casing heave and proof mass are a free 2-DOF pair, omega^2 = k (1/m + 1/M_c), damped
    alike; the casing's other motions carry no stiffness (zero eigenvalues, left out)."""
    a = ProofMassActuator("a", CASING, M_P, K_S, damping=c)
    lam = pencil_eigenvalues(System([a]).assemble())
    M = np.diag([CASING[0], M_P])
    K = K_S * np.array([[1.0, -1.0], [-1.0, 1.0]])
    exact = two_dof_eigenvalues(M, c / K_S * K, K)
    assert np.allclose(lam, exact, rtol=1e-9), (lam, exact)


def test_chain_of_two_actuators():
    """Actuator B's casing rides on actuator A's proof mass (spherical joint at A's port "mass"), A's
    casing on the ground: the 2-DOF chain ``diag(m_A + M_B, m_B)``, ``[[k_A + k_B, -k_B], [-k_B, k_B]]``."""
    kA, kB, mA, mB, MB = 2000.0, 500.0, 0.05, 0.02, 0.03
    A = ProofMassActuator("A", CASING, mA, kA, damping=0.3)
    B = ProofMassActuator("B", [MB, 1e-5, 1e-5], mB, kB, damping=0.1)
    s = System([A, B])
    s.clamp(A.port("P"))
    s.sphere(A.port("mass"), B.port("P"))
    lam = pencil_eigenvalues(s.assemble())
    M = np.diag([mA + MB, mB])
    K = np.array([[kA + kB, -kB], [-kB, kB]])
    C = np.array([[0.3 + 0.1, -0.1], [-0.1, 0.1]])
    exact = two_dof_eigenvalues(M, C, K)
    assert np.allclose(lam, exact, rtol=1e-9), (lam, exact)


def test_attached_body_mass_matrix():
    """The 3 x 3 data (heave, roll, pitch) sit in the 6 x 6 matrix at (v_z, omega_x, omega_y)."""
    M3 = np.array([[0.0234, -0.338e-3, 0.0], [-0.338e-3, 0.008e-3, 0.0], [0.0, 0.0, 0.058e-3]])
    b = AttachedBody("mirror", M3, (0.02, 0.28))
    M = b.M.toarray()
    assert np.array_equal(M[2:5, 2:5], M3)
    assert np.array_equal(b.port("P").position, [0.02, 0.28, 0.0])
    v = np.arange(1.0, 7.0)
    assert np.array_equal(b.port("P").Y @ v, v[:3]) and np.array_equal(b.port("P").W @ v, v[3:])


def test_energy_balance_midpoint():
    """A burst on a damped actuator carried by a proof mass of another: the midpoint rule's discrete
    balance ``H_{n+1} - H_n = dt (F (v_m - v)_mid - c (v_m - v)_mid^2)`` summed over both actuators,
    computed here from the outputs, holds to round-off; H is kinetic plus spring energy."""
    A = ProofMassActuator("A", CASING, 0.05, 2000.0, damping=0.3)
    B = ProofMassActuator("B", [0.03, 1e-5, 1e-5], 0.02, 500.0, damping=0.1)
    s = System([A, B])
    s.clamp(A.port("P"))
    s.sphere(A.port("mass"), B.port("P"))
    F = (lambda t: 2.0 * np.sin(2 * np.pi * 25.0 * t) * (t < 0.1))
    s.add_load(B.force(F))
    dt = 5e-4
    res = s.simulate(0.2, solver="midpoint", dt=dt, tstops=[0.1])
    eA, eB = res.e(A), res.e(B)
    H = np.sum([x.energies(ex)[0] + x.energies(ex)[1] for x, ex in ((A, eA), (B, eB))], axis=0)
    assert np.allclose(H, res.hamiltonian(), rtol=1e-12, atol=0.0)
    mid = lambda x: 0.5 * (x[1:] + x[:-1])      # noqa: E731
    relB = mid(eB[:, 6] - eB[:, 2])
    supplied = np.array([F(t) for t in mid(res.t)]) * relB
    dissipated = A.dissipation(mid(eA)) + B.dissipation(mid(eB))
    dH = np.diff(H)
    expected = np.diff(res.t) * (supplied - dissipated)
    assert np.max(np.abs(dH - expected)) < 1e-10 * H.max(), np.max(np.abs(dH - expected))
    assert np.sum(np.diff(res.t) * dissipated) > 0.05 * H.max()          # the damping is not negligible
    assert np.max(np.abs(res.energy_balance())) < 1e-10 * H.max()
    assert np.max(res.constraint_residual()) < 1e-10 * np.max(np.abs(eA))
    # linear constant bodies: the compiled residual covers the model, nothing is left to Python
    assert s.assemble().compiled_residual().leftovers == []


def test_force_port_is_the_input_matrix():
    """The load of ``force`` is +F on the proof mass and -F on the casing heave."""
    a = ProofMassActuator("a", CASING, M_P, K_S)
    load = a.force(3.0)
    f = np.zeros(a.ne)
    f[load.cols] = load.force(0.0, np.zeros(0))
    assert f[a.I_VM] == 3.0 and f[2] == -3.0 and np.count_nonzero(f) == 2


def test_bad_input():
    with pytest.raises(ValueError, match=r"actuator 'a': base_mass must be symmetric positive definite.*"
                                         r"moving_mass must be a positive.*-1.*damping must be a non-negative"):
        ProofMassActuator("a", [[1.0, 2.0, 0], [2.0, 1.0, 0], [0, 0, 1.0]], -1.0, 10.0, damping=-0.1)
    with pytest.raises(ValueError, match=r"actuator 'a': stiffness must be a positive finite number, got nan; "
                                         r"position must be 2 finite numbers"):
        ProofMassActuator("a", CASING, 0.1, float("nan"), position=(0.0,))
    with pytest.raises(ValueError, match=r"body 'm': mass matrix must be a 3x3 or 6x6"):
        AttachedBody("m", [1.0, 2.0])

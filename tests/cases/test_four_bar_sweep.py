"""The real-split eigen path and the stacked configuration sweep against the Hermitian reference."""
import numpy as np
import pytest

from conftest import needs_firedrake

pytestmark = needs_firedrake

ANGLES_DEG = np.array([0.0, 17.0, 37.0, 90.0, 143.5, 180.0, 222.0, 270.0, 301.0, 359.0])


def test_sweep_equals_the_hermitian_reference(four_bar_model, monkeypatch):
    """Stacked sweep (real split, factors shared) == per-angle linearize + complex Hermitian solve."""
    from phmech.solvers.eigen import eigenmodes, sweep
    fb = four_bar_model(6)
    th = np.radians(ANGLES_DEG)
    w, modes = sweep(th, fb.linearize, k=3, method="dense")
    assert all(m is None for m in modes._modes)          # all angles went through the stacked path
    ref = np.array([eigenmodes(fb.linearize(t), 3, "hermitian").omega for t in th])
    assert w.shape == (len(th), 3) and np.all(np.diff(w, axis=1) > 0)
    assert np.max(np.abs(w - ref) / ref) < 1e-9, np.max(np.abs(w - ref) / ref)
    # in chunks of 3 angles (the memory bound of large systems): the same frequencies
    import phmech.solvers.eigen as eigen
    split = eigen._split(fb.dae.M, fb.dae.J0, fb.linearize(0.0).G)
    n = max(len(split.P), len(split.Q))
    monkeypatch.setattr(eigen, "SWEEP_CHUNK_BYTES", 3 * 3 * 8 * n * n)
    w3 = sweep(th, fb.linearize, k=3, method="dense")[0]
    assert np.max(np.abs(w3 - ref) / ref) < 1e-9
    # the modes of the sweep, computed on access, agree with its frequencies
    assert np.allclose(modes[3].omega, w[3], rtol=1e-11, atol=0)
    assert len(modes) == len(th) and len(modes[1:3]) == 2


def test_sweep_against_classical_frame_model(four_bar_model):
    from phmech.solvers.eigen import sweep
    from phmech.validation.four_bar_frame import frequencies
    fb = four_bar_model(6)
    deg = np.array([0.0, 37.0, 90.0, 180.0, 270.0])
    w = sweep(np.radians(deg), fb.linearize, k=3, method="dense")[0]
    wf = np.array([frequencies(np.radians(d), n_elem=48) for d in deg])
    assert np.max(np.abs(w - wf) / wf) < 1e-4, (w, wf)


def test_split_modes_equal_hermitian_modes(four_bar_model):
    """Single solves: frequencies, residuals and mode vectors (up to a phase) of both dense paths."""
    fb = four_bar_model(4)
    lin = fb.linearize(np.radians(123.0))
    d, h = lin.eigenmodes(3, "dense"), lin.eigenmodes(3, "hermitian")
    assert np.allclose(d.omega, h.omega, rtol=1e-11, atol=0)
    assert d.n_rigid == h.n_rigid == 0 and np.all(d.residuals < 1e-10)
    M = lin.M
    for i in range(3):
        a, b = d.vectors[:, i], h.vectors[:, i]
        c = np.vdot(b, M @ a) / np.vdot(b, M @ b)
        assert abs(abs(c) - 1) < 1e-9                                 # same M-normalization
        assert np.linalg.norm(a - c * b) < 1e-9 * np.linalg.norm(a)
        assert np.max(np.abs(lin.G @ a)) < 1e-12 * np.max(np.abs(a))


def _unlocked_four_bar(n_elem, theta1):
    """The four-bar with the motor released (crank pinned): one mechanism mode."""
    from phmech import System
    from phmech.fem import FloatingEulerBernoulliBeam
    from phmech.mechanisms.four_bar import E_MOD, LINKS, M_JOINT, RHO, configuration
    P, Q, phi = configuration(theta1)
    origins = {"crank": np.zeros(2), "coupler": P, "follower": Q}
    b = {name: FloatingEulerBernoulliBeam(name, L, n_elem, RHO, A, E_MOD, EI / E_MOD, frame="cantilever",
                                          point_masses=[] if name == "crank" else [(0.0, M_JOINT)],
                                          position=origins[name], angle=phi[i])
         for i, (name, (L, A, EI)) in enumerate(LINKS.items())}
    s = System(list(b.values()))
    s.pin(b["crank"].port("A"))
    s.connect(b["crank"].port("B"), b["coupler"].port("A"))
    s.connect(b["coupler"].port("B"), b["follower"].port("A"))
    s.pin(b["follower"].port("B"))
    return s.linearize()


def test_mechanism_mode_counted_and_excluded_by_both_paths():
    """A zero (rigid-body) mode without a partner: the unpaired zero of the split path."""
    lin = _unlocked_four_bar(3, np.radians(60.0))
    d, h = lin.eigenmodes(3, "dense"), lin.eigenmodes(3, "hermitian")
    assert d.n_rigid == h.n_rigid == 1
    assert np.allclose(d.omega, h.omega, rtol=1e-10, atol=0)
    from phmech.mechanisms import FourBar
    locked = FourBar(3).linearize(np.radians(60.0)).eigenmodes(3).omega
    # one constraint fewer: the vibration frequencies interlace with those of the locked motor
    assert locked[0] < d.omega[0] < locked[1] < d.omega[1] < locked[2], (d.omega, locked)


def test_no_split_falls_back_to_hermitian():
    """A pencil whose J couples a group with itself (here: a skew term within the velocities)
    has no real split: "dense" gives the Hermitian result."""
    import scipy.sparse as sp
    from phmech.solvers.eigen import LinearSystem, _split, eigenmodes, sweep
    rng = np.random.default_rng(1)
    n = 6
    A = rng.standard_normal((n, n))
    M = sp.csr_matrix(A @ A.T + n * np.eye(n))
    S = rng.standard_normal((n, n))
    J = sp.csr_matrix(S - S.T)
    G = rng.standard_normal((1, n))
    lin = LinearSystem(None, np.zeros(0), M, J, G)
    assert _split(M, J, G) is None
    d, h = eigenmodes(lin, 2, "dense"), eigenmodes(lin, 2, "hermitian")
    assert np.allclose(d.omega, h.omega, rtol=1e-10, atol=0)
    w, modes = sweep([0, 1], lambda _: lin, k=2, method="dense")
    assert np.allclose(w, h.omega[None], rtol=1e-10, atol=0)


def test_split_of_a_bipartite_pencil_with_rows_on_both_groups():
    """Random bipartite pencil (constraints on both groups, unequal group sizes): the split path's
    frequencies and rigid count equal those of the Hermitian reduction and of the full pencil."""
    import scipy.linalg as sla
    import scipy.sparse as sp
    from phmech.solvers.eigen import LinearSystem, _split, eigenmodes, sweep
    rng = np.random.default_rng(7)
    p, q = 9, 6
    A, Bm = rng.standard_normal((p, p)), rng.standard_normal((q, q))
    M = sp.block_diag([A @ A.T + p * np.eye(p), Bm @ Bm.T + q * np.eye(q)], format="csr")
    C = rng.standard_normal((p, q))
    J = sp.bmat([[None, sp.csr_matrix(C)], [sp.csr_matrix(-C.T), None]], format="csr")

    def lin(t):
        G = np.zeros((3, p + q))
        G[0, :p] = np.cos(t) * rng.standard_normal(p) + 1.0
        G[1, :p] = rng.standard_normal(p)
        G[2, p:] = rng.standard_normal(q)
        return LinearSystem(None, np.zeros(0), M, J, G)

    lins = [lin(t) for t in (0.1, 0.7, 2.0)]
    s = _split(M, J, np.stack([x.G for x in lins]))
    assert s is not None and sorted(map(len, (s.P, s.Q))) == [q, p] and len(s.rows_Q) in (1, 2)
    w, _ = sweep(lins, lambda x: x, k=3, method="dense")
    for x, wi in zip(lins, w):
        d, h = eigenmodes(x, 3, "dense"), eigenmodes(x, 3, "hermitian")
        assert d.n_rigid == h.n_rigid == (p - 2) - (q - 1)
        assert np.allclose(d.omega, h.omega, rtol=1e-11, atol=0) and np.allclose(wi, h.omega, rtol=1e-11, atol=0)
        # the finite eigenvalues of the full descriptor pencil
        Af, Ef = x.pencil()
        alpha, beta = sla.eig(Af.toarray(), Ef.toarray(), right=False, homogeneous_eigvals=True)
        lam = alpha[np.abs(beta) > 1e-10 * np.abs(alpha)] / beta[np.abs(beta) > 1e-10 * np.abs(alpha)]
        pos = np.sort(lam.imag[lam.imag > 1e-8 * np.abs(lam).max()])
        assert np.allclose(pos[:3], d.omega, rtol=1e-8, atol=0)
    # no constraints: the singular values of C itself, p - q unpaired zeros
    free = LinearSystem(None, np.zeros(0), M, J, np.zeros((0, p + q)))
    d, h = eigenmodes(free, 3, "dense"), eigenmodes(free, 3, "hermitian")
    assert d.n_rigid == h.n_rigid == p - q and np.allclose(d.omega, h.omega, rtol=1e-11, atol=0)
    assert np.allclose(sweep([0], lambda _: free, k=3)[0][0], h.omega, rtol=1e-11, atol=0)


@pytest.mark.parametrize("method", ["dense", "hermitian"])
def test_bad_method_and_empty_sweep(method):
    from phmech.solvers.eigen import sweep
    w, modes = sweep([], None, k=3, method=method)
    assert w.shape == (0, 3) and len(modes) == 0
    with pytest.raises(ValueError, match="method must be"):
        sweep([0.0], lambda _: _lin_stub(), k=1, method="qz")


def _lin_stub():
    import scipy.sparse as sp
    from phmech.solvers.eigen import LinearSystem
    return LinearSystem(None, np.zeros(0), sp.identity(2, format="csr"),
                        sp.csr_matrix(np.array([[0.0, 1.0], [-1.0, 0.0]])), np.zeros((0, 2)))


def test_sweep_under_gravity_holds_the_motor_angle_and_shifts_linearly_in_g():
    """Under gravity each angle is linearized about its own equilibrium (the motor locked there,
    the links deflected by their weight): the crank stays at the angle, and the frequency shift
    from the unloaded sweep is linear in ``g`` (small deflections)."""
    from phmech.mechanisms import FourBar
    from phmech.solvers.eigen import sweep
    th = np.radians([0.0, 90.0, 222.0])
    w0 = sweep(th, FourBar(6).linearize, k=3, method="dense")[0]
    shift = {}
    for g in (9.81, 19.62):
        fb = FourBar(6, gravity=g)
        w = sweep(th, fb.linearize, k=3, method="dense")[0]
        for t in th:
            lin = fb.linearize(t)
            assert lin.q[fb.dae.q_slices["crank"]][2] == pytest.approx(t, abs=1e-12)
        shift[g] = w - w0
    size = np.max(np.abs(shift[9.81]))
    assert size > 0.1                                               # gravity is felt (rad/s)
    # twice g, twice the shift, up to the quadratic part (1.2 % of the largest shift here)
    assert np.max(np.abs(shift[19.62] - 2.0 * shift[9.81])) <= 0.03 * size

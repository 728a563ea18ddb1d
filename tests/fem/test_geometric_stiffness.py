"""The geometrically consistent planar beam: exact Jacobians, power balance, invariants,
the analytic steady rotation, and independent Ritz models of the crank-slider and the spin-up."""
import numpy as np
import pytest

from conftest import central_differences, needs_firedrake

pytestmark = [needs_firedrake, pytest.mark.firedrake]


def _beam(n=3, frame="simply_supported", strain="green", **kw):
    from phmech.fem.beam_nonlinear import NonlinearFloatingBeam
    p = dict(L=0.3, rho=7870.0, A=np.pi * 6e-3**2 / 4, E=2e11, I=np.pi * 6e-3**4 / 64)
    p.update(kw)
    return NonlinearFloatingBeam("beam", p["L"], n, p["rho"], p["A"], p["E"], p["I"], frame=frame, strain=strain)


def _fd(fun, x, h=1e-7):
    return central_differences(fun, x, h)


@pytest.mark.parametrize("frame", ["simply_supported", "cantilever"])
@pytest.mark.parametrize("strain", ["green", "linear"])
def test_structure_and_exact_jacobians(frame, strain):
    b = _beam(3, frame, strain)
    rng = np.random.default_rng(1)
    q = 1e-3 * rng.standard_normal(b.nq)
    q[2] = 0.4
    e = rng.standard_normal(b.ne)
    f, Dq, De = b.effort_terms(0.0, q, e)
    # power-conserving structure: e . f = 0 for every state
    assert abs(e @ f) <= 1e-12 * np.abs(f).max() * np.abs(e).max()
    assert np.allclose(b.effort_force(0.0, q, e), f, rtol=0, atol=1e-14 * np.abs(f).max())
    Dq_fd = _fd(lambda x: b.effort_terms(0.0, x, e)[0], q)
    De_fd = _fd(lambda x: b.effort_terms(0.0, q, x)[0], e)
    assert np.abs(Dq.toarray() - Dq_fd).max() <= 1e-6 * np.abs(Dq_fd).max()
    assert np.abs(De.toarray() - De_fd).max() <= 1e-6 * np.abs(De_fd).max()
    Tq, Te = b.qdot_jacobians(q, e)
    assert np.abs(Tq - _fd(lambda x: b.qdot(x, e), q)).max() <= 1e-6 * max(1.0, np.abs(Tq).max())
    assert np.abs(Te - _fd(lambda x: b.qdot(q, x), e)).max() <= 1e-6 * max(1.0, np.abs(Te).max())
    # constant mass matrix of the exact kinetic energy: symmetric positive definite
    M = b.M.toarray()
    assert np.abs(M - M.T).max() <= 1e-14 * np.abs(M).max() and np.linalg.eigvalsh(M).min() > 0


def test_gauge_component_keeps_zero_rate():
    """The removed component of u_y (u_y(L) in the chord frame) has zero rate for every state."""
    b = _beam(4)
    rng = np.random.default_rng(2)
    q, e = 1e-2 * rng.standard_normal(b.nq), rng.standard_normal(b.ne)
    ud = b.qdot(q, e)
    # the full u_y rate at X = L from the kinematic equation
    ux, uy = b.Pq_x @ q, b.Pq_y @ q
    sig = b.sigma(q)[0]
    ay = b.Pe_y @ e
    rate_full = ay - e[2] * sig * (b.fe.xi + ux)
    assert abs(b.fe.trace["B"]["value"] @ rate_full) <= 1e-12 * np.abs(rate_full).max()
    assert np.allclose(ud[b.displacement_dofs], np.r_[(b.Pq_x.T @ (b.Pe_x @ e + e[2] * sig * uy))[3:3 + len(b.fields["ax"])],
                                                      (b.Pq_y.T @ rate_full)[3 + len(b.fields["ax"]):]])


@pytest.fixture(scope="module")
def stiff_run():
    from phmech.validation.crank_slider import run
    return run(0.008, n_elem=4, dt=1e-4, dt_out=1e-4, geometric_stiffness=True, plot=False)


def test_crank_slider_power_balance_and_constitutive_invariant(stiff_run):
    out = stiff_run
    H = out.hamiltonian
    # exact discrete power balance of the midpoint rule, to the Newton tolerance
    assert np.max(np.abs(out.energy_balance)) <= 1e-9 * np.max(H)
    # the midpoint rule holds the velocity constraints at the step midpoints: O(dt^2) at the ends
    assert np.max(out.constraint_residual) <= 2e-4 * 150.0 * 0.15
    # the axial force and moment stay the constitutive ones of the displacement (quadratic invariant)
    res = out.result
    beam = res.dae.system.body("coupler")
    sig = np.r_[beam.fields["n"], beam.fields["m"]]
    for k in (len(res.t) // 2, -1):
        q, e = res.q("coupler")[k], res.e("coupler")[k]
        ref = beam.stresses_of(q)
        assert np.abs(e[sig] - ref[sig]).max() <= 1e-7 * np.abs(ref[sig]).max()


def test_crank_slider_early_peak_against_ritz_model(stiff_run):
    """Stiffened coupler against the independent Ritz model with the Green strain (first 8 ms)."""
    from phmech.validation.crank_slider_reduced import ReducedCrankSlider
    t = stiff_run.t
    ref = ReducedCrankSlider(variant="stiffened", n_axial=3, n_bending=6, n_quad=32).simulate(
        t[-1], t_eval=t, rtol=1e-8, atol=1e-10)
    ph, rz = stiff_run.uy_mid, ref["uy_mid"] / 0.3
    assert abs(np.max(np.abs(ph)) / np.max(np.abs(rz)) - 1.0) < 0.03
    assert np.max(np.abs(ph - rz)) < 0.05 * np.max(np.abs(rz))


@pytest.mark.slow
def test_crank_slider_peak_against_ritz_model_full_run():
    """Issue criterion: the stiffened peak midpoint deflection within 1 % of the Ritz model."""
    from phmech.validation.crank_slider import run
    from phmech.validation.crank_slider_reduced import ReducedCrankSlider
    out = run(0.1, n_elem=8, dt=1e-4, geometric_stiffness=True, plot=False)
    ref = ReducedCrankSlider(variant="stiffened", n_axial=4, n_bending=8).simulate(0.1, t_eval=out.t)
    peak_ph = np.max(np.abs(out.uy_mid))
    peak_rz = np.max(np.abs(ref["uy_mid"] / 0.3))
    assert abs(peak_ph / peak_rz - 1.0) < 0.01
    lin = run(0.1, n_elem=8, dt=1e-4, plot=False)
    assert 0.12 < 1.0 - peak_ph / np.max(np.abs(lin.uy_mid)) < 0.25   # stiffening lowers the peak


def _steady_rotation(n, omega, strain="linear", L=1.0, rhoA=1.0, EA=1e4, EI=1.0):
    """A beam turning about its root at constant omega, started quasi-statically."""
    from phmech import System
    from phmech.fem.beam_nonlinear import FrameRate, NonlinearFloatingBeam
    from phmech.fem.quasi_static import quasi_static_state
    beam = NonlinearFloatingBeam("blade", L, n, rhoA, 1.0, EA, EI / EA, frame="cantilever", strain=strain)
    system = System([beam])
    system.pin(beam.port("A"))
    system.add_joint(FrameRate(beam, rate=omega, name="hub"))
    dae = system.assemble()
    e0 = np.zeros(dae.ne)
    e0[dae.e_slices["blade"].start + 2] = omega
    y0 = dae.initial_state(e0=e0)
    return beam, dae, quasi_static_state(dae, y0, [beam])


def test_steady_rotation_matches_analytic_elongation():
    """Linear strain, centrifugal load on the deformed position: u_x(L) = sin(aL)/(a cos aL) - L,
    a = omega sqrt(rhoA/EA) (the exact solution of EA u'' + rhoA omega^2 (x + u) = 0, u'(L) = 0)."""
    omega, L = 40.0, 1.0
    a = omega * np.sqrt(1.0 / 1e4)
    exact = np.sin(a * L) / (a * np.cos(a * L)) - L
    errors = []
    for n in (1, 2, 4):
        beam, dae, y0 = _steady_rotation(n, omega)
        rx, ry = beam.displacement_rows([L])
        q = y0[dae.q_slices["blade"]]
        errors.append(abs(rx[0] @ q - exact) / exact)
        assert abs(ry[0] @ q) < 1e-12
    rates = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert errors[-1] < 1e-6 and np.all(rates > 3.5), (errors, rates)


def test_quasi_static_start_stays_steady():
    """Started in equilibrium with its rotation, the blade keeps its shape (no axial waves)."""
    from phmech import solve
    omega = 40.0
    beam, dae, y0 = _steady_rotation(2, omega, strain="green")
    res = solve(dae, (0.0, 0.05), y0, method="midpoint", dt=1e-3)
    u = res.q("blade")[:, beam.displacement_dofs]
    assert np.abs(u - u[0]).max() <= 1e-9 * np.abs(u[0]).max()
    # undeformed start: the same blade vibrates with an amplitude of the order of the static elongation
    e0 = np.zeros(dae.ne)
    e0[dae.e_slices["blade"].start + 2] = omega
    raw = solve(dae, (0.0, 0.05), dae.initial_state(e0=e0), method="midpoint", dt=1e-3)
    assert np.abs(raw.q("blade")[:, beam.displacement_dofs] - u[0]).max() > 1e-3 * np.abs(u[0]).max()


def test_consistent_inertia_matches_full_ritz_model():
    """Exact inertia with the linear strain: the pH beam and the full-inertia Ritz model agree."""
    from phmech.validation.crank_slider_reduced import ReducedCrankSlider
    from phmech.fem.beam_nonlinear import NonlinearFloatingBeam
    from phmech import PlanarRigidBody, PointMass, System
    p = dict(L_crank=0.15, omega=150.0, L=0.3, d=6e-3, E=2.0e11, rho=7870.0, m_slider=0.033, m_crank=0.36)
    A, I = np.pi * p["d"] ** 2 / 4, np.pi * p["d"] ** 4 / 64
    crank = PlanarRigidBody.rod("crank", p["m_crank"], p["L_crank"])
    coupler = NonlinearFloatingBeam("coupler", p["L"], 4, p["rho"], A, p["E"], I, strain="linear",
                                    position=(p["L_crank"], 0.0))
    slider = PointMass("slider", p["m_slider"], position=(p["L_crank"] + p["L"], 0.0))
    system = System([crank, coupler, slider])
    system.pin(crank.port("A"))
    system.drive(crank, p["omega"])
    system.connect(crank.port("B"), coupler.port("A"))
    system.connect(coupler.port("B"), slider.port("P"))
    system.slide(slider, direction=(1.0, 0.0))
    t = np.linspace(0.0, 0.008, 81)
    res = system.simulate(t[-1], dt=1e-4, t_eval=t)
    ry = coupler.displacement_rows([0.15])[1][0]
    ph = res.q("coupler") @ ry / 0.3
    rz = ReducedCrankSlider(variant="full", n_axial=3, n_bending=6, n_quad=32).simulate(
        t[-1], t_eval=t, rtol=1e-8, atol=1e-10)["uy_mid"] / 0.3
    assert np.max(np.abs(ph - rz)) < 0.03 * np.max(np.abs(rz))


def test_spin_up_against_ritz_model_and_divergence_of_the_unstiffened_model():
    """Spin-up benchmark: the stiffened beam follows the independent Ritz model over the 30 s;
    exact inertia without stiffening leaves every physical range (|tip| > L) during the spin-up."""
    from phmech.validation.spin_up import run_model
    from phmech.validation.spin_up_reduced import SpinUpRitz
    stiff = run_model("stiffened", n_elem=4, t_end=30.0, dt=1e-2, dt_out=0.25)
    ref = SpinUpRitz(n_bending=5).simulate(30.0, t_eval=stiff.t)
    peak = np.max(np.abs(ref["tip"]))
    assert 0.5 < peak < 0.65                        # the classical lag of about 0.57 m near t = 7 s
    assert np.max(np.abs(stiff.tip - ref["tip"])) < 0.02 * peak
    assert np.max(np.abs(stiff.tip[stiff.t > 16.0])) < 0.02 * peak     # bounded after the spin-up
    assert np.max(np.abs(stiff.energy_balance)) < 1e-8
    soft = run_model("consistent", n_elem=4, t_end=30.0, dt=1e-2, dt_out=0.25)
    assert soft.summary["diverged"] and 6.0 < soft.t[-1] < 15.0


# -- the spatial beam ---------------------------------------------------------------

@pytest.mark.parametrize("strain", ["green", "linear"])
def test_spatial_structure_and_exact_jacobians(strain):
    from phmech.fem.beam3d_nonlinear import NonlinearSpatialBeam
    b = NonlinearSpatialBeam("b", 141.42, 2, 7.8e-3, 9.0, 2.1e6, 6.75, 5.0, strain=strain)
    rng = np.random.default_rng(3)
    q = 1e-2 * rng.standard_normal(b.nq)
    q[3:7] = (0.9, 0.1, 0.3, -0.2)
    e = rng.standard_normal(b.ne)
    f, Dq, De = b.effort_terms(0.0, q, e)
    assert abs(e @ f) <= 1e-12 * np.abs(f).max() * np.abs(e).max()
    Dq_fd = _fd(lambda x: b.effort_force(0.0, x, e), q, h=1e-4)
    De_fd = _fd(lambda x: b.effort_force(0.0, q, x), e, h=1e-4)
    assert np.abs(Dq.toarray() - Dq_fd).max() <= 1e-7 * np.abs(Dq_fd).max()
    assert np.abs(De.toarray() - De_fd).max() <= 1e-9 * np.abs(De_fd).max()
    Tq, Te = b.qdot_jacobians(q, e)
    assert np.abs(Tq - _fd(lambda x: b.qdot(x, e), q)).max() <= 1e-6
    assert np.abs(Te - _fd(lambda x: b.qdot(q, x), e)).max() <= 1e-6
    # the removed gauge components keep zero rates: u_y'(0), u_z'(0) and the twist at the root
    ud = b.qdot(q, e)
    assert ud.shape == (b.nq,) and np.all(np.isfinite(ud))
    M = b.M.toarray()
    assert np.abs(M - M.T).max() <= 1e-14 * np.abs(M).max() and np.linalg.eigvalsh(M).min() > 0
    for K in b.K:
        assert np.abs(K + K.T).max() <= 1e-12 * np.abs(K).max()


def test_hinged_beam_angular_momentum_is_an_invariant_of_the_consistent_model():
    """Free phases of the hinged beam: the angular momentum about the vertical axis is conserved to
    1e-8 relative, before and after the out-of-plane pulse (the linear floating frame drifts by
    5e-4 to 1.6e-2 here)."""
    from phmech.validation.hinged_beam import run
    drifts = []
    for dt in (0.025, 0.0125):       # output times (every 0.05 s) on the step grid
        out = run(16.0, 4, dt=dt, plot=False, vtk=False, geometric_stiffness=True)
        s = out.summary
        assert s["momentum_z_drift_rel_10_2_to_15"] < 1e-8          # the criterion
        assert s["energy_balance_max_abs"] < 1e-8 * np.max(out.energy)
        drifts.append(s["momentum_z_drift_rel_after_15_4"])
    assert max(drifts) < 1e-8, drifts


def test_geometric_stiffness_option_of_the_beams():
    from phmech.fem import FloatingEulerBernoulliBeam
    from phmech.fem.beam3d import FloatingSpatialBeam
    from phmech.fem.beam3d_nonlinear import NonlinearSpatialBeam
    from phmech.fem.beam_nonlinear import NonlinearFloatingBeam
    p = dict(L=0.3, n_elem=2, rho=7870.0, A=2.8e-5, E=2e11)
    b = FloatingEulerBernoulliBeam("c", I=6.4e-11, frame="cantilever", geometric_stiffness=True, **p)
    assert isinstance(b, NonlinearFloatingBeam) and b.frame == "cantilever" and b.strain == "green"
    assert type(FloatingEulerBernoulliBeam("c", I=6.4e-11, **p)) is FloatingEulerBernoulliBeam
    s = FloatingSpatialBeam("s", Iy=6.4e-11, Iz=6.4e-11, geometric_stiffness=True, **p)
    assert isinstance(s, NonlinearSpatialBeam)
    with pytest.raises(ValueError, match="beam 'c': strain must be one of"):
        NonlinearFloatingBeam("c", I=6.4e-11, strain="vonkarman", **p)


def test_frame_rate_refuses_bodies_without_a_planar_frame():
    from phmech import PointMass, SpatialRigidBody
    from phmech.fem.beam_nonlinear import FrameRate
    with pytest.raises(ValueError, match=r"joint 'hub': body 'ball' has no planar frame angle"):
        FrameRate(SpatialRigidBody("ball", 1.0, np.eye(3)), rate=1.0, name="hub")
    with pytest.raises(ValueError, match=r"body 'p' has no planar frame angle"):
        FrameRate(PointMass("p", 1.0), rate=1.0, name="hub")


def test_spatial_free_beam_translates_undeformed_and_spins_steadily_from_the_quasi_static_start():
    from phmech import System, solve
    from phmech.fem.beam3d_nonlinear import NonlinearSpatialBeam
    from phmech.fem.quasi_static import quasi_static_state
    L, omega = 1.0, 30.0
    beam = NonlinearSpatialBeam("blade", L, 2, 1.0, 1.0, 1e4, 1e-3, 1e-3)
    dae = System([beam]).assemble()
    q0 = dae.q0.copy()
    B = beam.rigid_motion_map(q0)
    # a uniform translation leaves the shape alone
    y = dae.initial_state(e0=B @ np.r_[1.0, -2.0, 0.5, 0, 0, 0])
    res = solve(dae, (0.0, 0.05), y, method="midpoint", dt=1e-3)
    assert np.abs(res.q("blade")[:, beam.displacement_dofs]).max() < 1e-12      # round-off
    # spin about the vertical axis through the centre: quasi-static start, then steady shape
    y = dae.initial_state(e0=B @ np.r_[0.0, -omega * L / 2, 0.0, 0.0, 0.0, omega])
    y = quasi_static_state(dae, y, [beam])
    u0 = y[dae.sq][beam.displacement_dofs]
    assert np.abs(u0).max() > 1e-4                      # centrifugal stretching of about 1e-3 L
    res = solve(dae, (0.0, 0.05), y, method="midpoint", dt=1e-3)
    u = res.q("blade")[:, beam.displacement_dofs]
    assert np.abs(u - u0).max() <= 1e-8 * np.abs(u0).max()

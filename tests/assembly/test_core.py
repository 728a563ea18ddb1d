"""The system layer and the solvers on rigid mechanisms (no Firedrake needed)."""
import numpy as np
import pytest

from phmech import ConsistencyError, PlanarRigidBody, PointMass, SolverError, System
from phmech.joints import Revolute
from mechanisms import pendulum, rigid_crank_slider, slider_position_exact
from conftest import needs_assimulo


def test_jacobian_matches_finite_differences():
    s, *_ = rigid_crank_slider()
    dae = s.assemble()
    y = dae.initial_state() + np.random.default_rng(1).normal(size=dae.n) * 0.3
    J = dae.jacobian(0.013, y).toarray()
    Jfd = np.zeros_like(J)
    h = 1e-7
    for i in range(dae.n):
        d = np.zeros(dae.n)
        d[i] = h
        Jfd[:, i] = (dae.f(0.013, y + d) - dae.f(0.013, y - d)) / (2 * h)
    assert np.max(np.abs(J - Jfd)) < 1e-6 * np.max(np.abs(J))


def test_structure_is_power_conserving():
    """e^T J(e) e = 0 for the assembled gyroscopic structure: without multipliers and loads the
    effort rows of f are J(e) e."""
    s, *_ = rigid_crank_slider()
    dae = s.assemble()
    y = dae.initial_state()
    y[dae.se] = e = np.random.default_rng(2).normal(size=dae.ne)
    y[dae.sl] = 0.0
    fe = dae.f(0.0, y)[dae.se]
    assert abs(e @ fe) < 1e-12 * np.linalg.norm(e) * np.linalg.norm(fe) * 10


def test_initial_state_is_consistent():
    s, crank, coupler, slider = rigid_crank_slider()
    dae = s.assemble()
    y0 = dae.initial_state()
    assert np.max(np.abs(dae.constraint_residual(0.0, y0))) < 1e-12
    # coupler turns at -Omega L1/L2 at the dead centre, slider at rest
    assert dae.split(y0)[1][dae.e_slices["coupler"]][2] == pytest.approx(-150.0 * 0.15 / 0.3)
    # y' consistent with the hidden constraint: E y' - f = 0
    yd = dae.derivative(0.0, y0)
    assert np.max(np.abs(dae.E @ yd - dae.f(0.0, y0))) < 1e-9


@pytest.mark.parametrize("constraints", ["midpoint", "endpoint"])
def test_rigid_crank_slider_kinematics_second_order(constraints):
    errs = []
    for dt in (2e-4, 1e-4):
        s, crank, coupler, slider = rigid_crank_slider()
        r = s.simulate(0.02, solver="midpoint", dt=dt, constraints=constraints)
        errs.append(np.max(np.abs(r.q(slider)[:, 0] - slider_position_exact(r.t))))
    rate = np.log2(errs[0] / errs[1])
    assert errs[1] < 2e-5
    assert 1.8 < rate < 2.3


def test_midpoint_power_balance_is_exact():
    s, *_ = rigid_crank_slider()
    r = s.simulate(0.02, solver="midpoint", dt=1e-4)
    H = r.hamiltonian()
    assert np.ptp(H) > 1.0  # the motor does real work
    assert np.max(np.abs(r.energy_balance())) < 1e-9 * np.max(H)


def test_port_powers_account_for_the_energy_and_only_the_motor_works():
    """The power through the ports, integrated over the trajectory (trapezoidal rule on a
    fine output grid of a tight-tolerance Radau run, whose multipliers belong to the output
    times), equals the change of the stored energy; only the motor supplies it."""
    s, *_ = rigid_crank_slider()
    r = s.simulate(0.02, solver="radau", rtol=1e-9, atol=1e-9, t_eval=np.linspace(0.0, 0.02, 2001))
    pp = r.port_powers()
    assert set(pp) == {j.name for j in s.joints}
    total = sum(pp.values())
    W = np.concatenate([[0.0], np.cumsum(0.5 * (total[1:] + total[:-1]) * np.diff(r.t))])
    H = r.hamiltonian()
    assert np.ptp(H) > 1.0
    assert np.max(np.abs(H - H[0] - W)) < 1e-4 * np.ptp(H)
    # only the motor (prescribed angular velocity) does work; passive joints are power-neutral
    assert np.max(np.abs(pp["drive(crank.P)"])) > 100.0
    for name, p in pp.items():
        if name != "drive(crank.P)":
            assert np.max(np.abs(p)) == 0.0


def test_endpoint_constraints_hold_at_steps():
    s, *_ = rigid_crank_slider()
    r = s.simulate(0.02, solver="midpoint", dt=1e-4, constraints="endpoint")
    assert np.max(r.constraint_residual()) < 1e-9


def test_pendulum_energy_and_loads():
    s, rod, dae, e0 = pendulum()
    y0 = dae.initial_state(e0=e0)
    r = s.simulate(2.0, solver="midpoint", dt=1e-3, y0=y0)
    # gravity does work through the load port; the balance closes
    assert np.max(np.abs(r.energy_balance())) < 1e-8
    # total mechanical energy (kinetic + potential) is conserved
    yc = r.q(rod)[:, 1] + 0.5 * np.sin(r.q(rod)[:, 2])
    E = r.hamiltonian() + 9.81 * yc
    assert np.ptp(E) < 1e-3 * np.max(np.abs(E))


@needs_assimulo
@pytest.mark.parametrize("solver", ["ida", "radau5"])
def test_assimulo_solvers_agree_with_midpoint(solver):
    s, rod, dae, e0 = pendulum()
    y0 = dae.initial_state(e0=e0)
    t_eval = np.linspace(0, 1.0, 11)
    ref = s.simulate(1.0, solver="midpoint", dt=2.5e-4, y0=y0, dt_out=0.1)
    r = s.simulate(1.0, solver=solver, y0=y0, rtol=1e-8, atol=1e-8, t_eval=t_eval)
    assert r.stats["nsteps"] > 0 and r.stats["wall_time"] > 0
    assert np.max(np.abs(r.q(rod)[:, 2] - ref.q(rod)[:, 2])) < 1e-5


def test_inconsistent_configuration_lists_every_joint():
    crank = PlanarRigidBody.rod("crank", 0.36, 0.15)
    coupler = PlanarRigidBody.rod("coupler", 0.15, 0.3, position=(0.2, 0.0))   # should be 0.15
    slider = PointMass("slider", 0.07, position=(0.5, 0.01))                   # off the guide
    s = System([crank, coupler, slider])
    s.pin(crank.port("A"))
    s.connect(crank.port("B"), coupler.port("A"), name="crank pin")
    s.connect(coupler.port("B"), slider.port("P"), name="slider pin")
    s.slide(slider, (1.0, 0.0), through=(0.0, 0.0), name="guide")
    dae = s.assemble()
    with pytest.raises(ConsistencyError) as err:
        dae.initial_state(positions="check")
    msg = str(err.value)
    assert len(err.value.problems) == 3
    for name in ("crank pin", "slider pin", "guide"):
        assert f"joint '{name}'" in msg
    # by default the configuration is projected onto the joints, and the move is reported
    y0 = dae.initial_state()
    q0 = y0[dae.sq]
    assert all(np.max(np.abs(r)) < 1e-10 for r in dae.position_residuals(0.0, q0).values())
    moved = dae.projection_report["positions"]
    assert set(moved) <= {"coupler", "slider"} and moved["coupler"] == pytest.approx(0.05, rel=0.2)


def test_inconsistent_velocities_reported_or_projected():
    s, crank, coupler, slider = rigid_crank_slider()
    dae = s.assemble()
    e0 = np.zeros(dae.ne)
    with pytest.raises(ConsistencyError, match="drive"):
        dae.initial_state(e0=e0, project=False)
    dae.initial_state(e0=e0)
    assert dae.projection_report["velocities"]["drive(crank.P)"] == pytest.approx(150.0)


def test_redundant_joint_is_named_and_runs():
    """A pin given twice: the second one's rows are redundant, its multipliers zero,
    and the motion is that of the singly pinned rod."""
    def build(twice):
        rod = PlanarRigidBody.rod("rod", 1.0, 1.0)
        s = System([rod])
        s.pin(rod.port("A"), name="first pin")
        if twice:
            s.add_joint(Revolute(rod.port("A"), None, name="second pin"))
        s.add_gravity((0.0, -9.81))
        return s
    s2, s1 = build(True), build(False)
    dae = s2.assemble()
    assert dae.redundant_rows == [("second pin", 0), ("second pin", 1)]
    y0 = dae.initial_state(e0=np.array([0.0, 0.0, 1.0]))
    r2 = s2.simulate(0.5, dt=1e-3, y0=y0)
    r1 = s1.simulate(0.5, dt=1e-3, y0=s1.assemble().initial_state(e0=np.array([0.0, 0.0, 1.0])))
    assert np.max(np.abs(r2.lam("second pin"))) == 0.0
    assert np.max(np.abs(r2.q("rod") - r1.q("rod"))) < 1e-12
    assert np.max(np.abs(r2.lam("first pin") - r1.lam("first pin"))) < 1e-9 * np.max(np.abs(r1.lam("first pin")))


def test_contradictory_drivers_are_refused():
    rod = PlanarRigidBody.rod("rod", 1.0, 1.0)
    s = System([rod])
    s.pin(rod.port("A"))
    s.drive(rod, 1.0, name="motor 1")
    s.drive(rod, 2.0, name="motor 2")
    with pytest.raises(ConsistencyError, match="motor 2.*contradicts"):
        s.assemble()


def test_bad_input_names_the_offender():
    with pytest.raises(ValueError, match="body 'crank'.*mass"):
        PlanarRigidBody("crank", -1.0, 0.1)
    rod = PlanarRigidBody.rod("rod", 1.0, 1.0)
    with pytest.raises(KeyError, match="body 'rod' has no port 'C'"):
        rod.port("C")
    m = PointMass("m", 1.0)
    s = System([m])
    with pytest.raises(ValueError, match="cannot carry a moment"):
        s.drive(m, 1.0)
    with pytest.raises(ValueError, match="unknown solver"):
        s.simulate(1.0, solver="euler")


def test_solver_failure_reports_time_and_cause():
    s, *_ = rigid_crank_slider()
    dae = s.assemble()
    y0 = dae.initial_state()
    from phmech.solvers import ImplicitMidpoint
    from phmech.solvers.driver import integrate
    solver = ImplicitMidpoint(dae, (0.0, 0.1), y0, dt=1e-4, max_newton=1, newton_tol=1e-300)
    with pytest.raises(SolverError, match=r"midpoint failed at t = 0: Newton"):
        integrate(solver)


def test_csv_refuses_nan(tmp_path):
    s, *_ = rigid_crank_slider()
    r = s.simulate(0.001, solver="midpoint", dt=1e-4)
    with pytest.raises(ValueError, match="non-finite"):
        r.to_csv(tmp_path / "x.csv", {"bad": np.full(len(r.t), np.nan)})


def test_own_radau_meets_tolerance_and_converges():
    errs = []
    for tol in (1e-4, 1e-6, 1e-8):
        s, crank, coupler, slider = rigid_crank_slider()
        r = s.simulate(0.05, solver="radau", rtol=tol, atol=tol)
        errs.append(np.max(np.abs(r.q(slider)[:, 0] - slider_position_exact(r.t))))
        assert np.max(r.constraint_residual()) < 1e3 * tol
        assert r.stats["nsteps"] > 5 and r.stats["nlu"] > 0
    assert errs[-1] < 1e-9
    assert errs[0] > errs[1] > errs[2]


def test_radau_dense_output_matches_steps():
    s, rod, dae, e0 = pendulum()
    y0 = dae.initial_state(e0=e0)
    t_eval = np.linspace(0.0, 1.0, 41)
    a = s.simulate(1.0, solver="radau", y0=y0, rtol=1e-9, atol=1e-9, t_eval=t_eval)
    b = s.simulate(1.0, solver="midpoint", y0=y0, dt=1e-4, t_eval=t_eval)
    assert np.allclose(a.t, t_eval)
    assert np.max(np.abs(a.q(rod)[:, 2] - b.q(rod)[:, 2])) < 1e-6


@pytest.mark.parametrize("method, kw", [("radau", dict(rtol=1e-9, atol=1e-9)),
                                        ("midpoint", dict(dt=2e-4))])
def test_hand_written_dae_problem(method, kw):
    """An index-2 pendulum written directly as a DAEProblem, against the rigid-body model."""
    from phmech.solvers.problem import DAEProblem
    from phmech.solvers import solve
    g = 9.81

    def f(t, z):
        x, y, u, v, lam = z
        return np.array([u, v, -x * lam, -g - y * lam, -(x * u + y * v)])

    prob = DAEProblem(np.diag([1.0, 1, 1, 1, 0]), f, n_alg=1)
    z0 = np.array([1.0, 0.0, 0.0, 0.0, 0.0])
    r = solve(prob, (0.0, 1.0), z0, method=method, t_eval=np.linspace(0, 1, 11), **kw)
    # energy of the unit point-mass pendulum is conserved, the length too
    E = 0.5 * (r.y[:, 2] ** 2 + r.y[:, 3] ** 2) + g * r.y[:, 1]
    assert np.ptp(E) < 1e-5
    assert np.max(np.abs(np.hypot(r.y[:, 0], r.y[:, 1]) - 1.0)) < 1e-6
    with pytest.raises(ValueError, match="algebraic rows"):
        DAEProblem(np.eye(3), f, n_alg=1)

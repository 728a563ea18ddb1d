"""Moreau's time stepping and the nonsmooth generalized-alpha method on the rotating
bouncing ball, against the exact solution of :mod:`phmech.validation.bouncing_ball`."""
import numpy as np
import pytest

from phmech.validation import bouncing_ball as bb

H = 2e-3


@pytest.fixture(scope="module")
def runs():
    cache = {}

    def get(case, solver, h=H):
        if (case, solver, h) not in cache:
            cache[case, solver, h] = bb.run(case, h, solver)
        return cache[case, solver, h]
    return get


def _u(res):
    return res.y[:, res.dae.se]


@pytest.mark.parametrize("solver", ["moreau", "moreau_shifted", "nsgenalpha"])
def test_free_fall_and_first_impact(runs, solver):
    """Case 1: first impact within 1.5 steps; in flight the velocity changes by exactly -g h per
    step; the impact step gives Newton's law -e_N u_n to 1e-9; positions in the first-order bound
    2 |v_impact| h (the impact time is off by up to a step)."""
    res = runs(1, solver)
    ex = res.exact
    assert abs(res.errors["impact_times"][0]) <= 1.5 * H
    t, vy = res.t, _u(res)[:, 1]
    PN = res.steps["P_N"][:, 0]
    k1 = int(np.flatnonzero(PN > 0)[0])                  # the first impact step ends at t[k1]
    assert np.max(np.abs(np.diff(vy[:k1]) + bb.G * np.diff(t[:k1]))) < 1e-12
    if solver != "nsgenalpha":
        assert abs(vy[k1] + 0.5 * vy[k1 - 1]) < 1e-9
    else:                                                 # the jump acts on the smooth prediction
        assert abs(vy[k1] + 0.5 * vy[k1 - 1]) < 1e-9 + bb.G * H
    flight = slice(k1 + 1, k1 + 100)
    dev = np.abs(np.diff(vy[flight]) + bb.G * H)
    if solver != "nsgenalpha":
        assert np.max(dev) < 1e-9
    else:
        # the impact step carries the contact force on acceleration level (a_{n+1} = 0 while the
        # ball leaves); the auxiliary acceleration forgets it geometrically (factor 1/2 per step
        # for rho_inf = 0.8), so the flight velocity increments tend to -g h
        assert dev[0] <= bb.G * H
        assert np.all(dev <= dev[0] * 0.51 ** np.arange(len(dev)) + 1e-12)
        assert dev[-1] < 1e-12
    v1 = bb.G * ex.impacts[0]
    assert res.errors["position"] <= 2 * v1 * H


def test_penetration_of_generalized_alpha(runs):
    for case in (1, 4):
        assert runs(case, "nsgenalpha").errors["penetration"] <= 1e-6


# -- the benchmark's ball, derived by hand ------------------------------------------------
#: the collection's data (bouncing_ball_system.py, bouncing_ball_scenario1.py): a ball, Theta = 2/5 m r^2
M, R, G = 1.0, 0.1, 9.81
THETA = 2.0 / 5.0 * M * R**2
MU = 0.2
T1 = np.sqrt(2 * (1.0 - R) / G)                 # first impact: the centre falls from 1 m to r
V1 = G * T1                                     # speed at the first impact


def _rolling(omega0, vx0=0.0):
    """``(v_x, omega)`` of the rolling ball: ``Theta omega - m r v_x`` (angular momentum about the
    contact point) keeps its initial value through flights, impacts and sliding."""
    om = (THETA * omega0 - M * R * vx0) / (THETA + M * R**2)
    return -R * om, om


def test_model_data_are_the_benchmarks():
    """The case data are those of the collection's scenario file, the body is a ball."""
    assert bb.M_BALL == M and bb.R_BALL == R and bb.G == G
    assert abs(bb.I_BALL - THETA) < 1e-15 * THETA
    source = {1: (0.5, 0.2, (0, 1), (0, 0), 0, 1.5), 2: (0, 0.2, (0, 1), (0, 0), 50, 1.1),
              3: (0, 0.2, (0, 1), (0, 0), 10, 1.1), 4: (0.5, 0.2, (-0.5, 1), (1, 0), 50, 1.5)}
    assert bb.CASES == source
    problem, y0, _ = bb.model(2)
    assert np.allclose(problem.dae.M.toarray(), np.diag([M, M, THETA]), rtol=0, atol=1e-15)


def test_exact_solution_against_the_hand_derivation():
    """The piecewise solution of :class:`bb.Exact` against the numbers derived by hand for the ball:
    Zeno point ``3 t_1`` (case 1); case 2 slides through the impact (``m_t |gamma| = 2/7 * 5 >
    mu P_N``) and sticks after ``gamma^+ / (7/2 mu g)``; case 3 sticks at the impact; case 4 slides
    through the first impact and sticks at the second (``2 t_1``); the rolling speeds from the
    angular momentum about the contact point (case 2: -10/7 m/s, 100/7 rad/s)."""
    ex = {c: bb.Exact(c) for c in bb.CASES}
    assert abs(ex[1].impacts[0] - T1) < 1e-12 and abs(ex[1].t_zeno - 3 * T1) < 1e-12
    assert ex[1].t_stick is None and np.allclose(ex[1](1.5)[0, 3:], 0.0, atol=1e-15)
    # case 2: sliding impact, then sliding contact
    PF = MU * M * V1                                     # e_N = 0: P_N = m v_1
    assert (2 / 7) * M * 5.0 > PF
    slip = -PF / M + R * (50.0 - R * PF / THETA)
    assert abs(ex[2].t_stick - (T1 + slip / (3.5 * MU * G))) < 1e-12
    assert abs(ex[2].t_stick - 0.728120) < 1e-6
    # case 3: sticking impact; case 4: stick at the second impact
    assert abs(ex[3].t_stick - T1) < 1e-12
    assert abs(ex[4].t_stick - 2 * T1) < 1e-12
    for case, (om0, vx0) in {2: (50.0, 0.0), 3: (10.0, 0.0), 4: (50.0, 1.0)}.items():
        u = ex[case](bb.CASES[case][5])[0, 3:]
        assert np.allclose(u, [_rolling(om0, vx0)[0], 0.0, _rolling(om0, vx0)[1]], rtol=0, atol=1e-12), case
    assert np.allclose(_rolling(50.0), (-10 / 7, 100 / 7)) and np.allclose(_rolling(50.0, 1.0), (-5 / 7, 50 / 7))


@pytest.mark.parametrize("solver", ["moreau", "moreau_shifted", "nsgenalpha"])
def test_stick_at_impact_is_exact(runs, solver):
    """Case 3: the ball sticks at the impact and rolls on with v_x = -2/7, omega = 20/7
    (constant forces: exact to 1e-9 at every step after the impact)."""
    res = runs(3, solver)
    assert abs(res.errors["t_stick"]) <= 1.5 * H
    u = _u(res)
    after = res.t > T1 + 2 * H
    vx, om = _rolling(10.0)
    assert np.max(np.abs(u[after, 0] - vx)) < 1e-9
    assert np.max(np.abs(u[after, 2] - om)) < 1e-9


@pytest.mark.parametrize("solver", ["moreau", "nsgenalpha"])
def test_slip_to_stick_transition(runs, solver):
    """Case 2: the slip ends within 1.5 steps of the exact time; the rolling speed (conserved
    angular momentum about the contact point: -10/7 m/s, 100/7 rad/s) is exact to 1e-9."""
    res = runs(2, solver)
    assert abs(res.errors["t_stick"]) <= 1.5 * H
    vx, om = _rolling(50.0)
    u = _u(res)[-1]
    assert abs(u[0] - vx) < 1e-9 and abs(u[2] - om) < 1e-9 and abs(u[1]) < 1e-9
    assert res.errors["velocity_final"] < 1e-9


def test_energy_account_closes(runs):
    """Energy + dissipation: exact for the midpoint scheme (inertial velocities, constant forces),
    first order for the shifted scheme (halving with the step).  Generalized-alpha: at an impact
    the position correction puts the ball on the ground from the height ``g_n <= |v^-| h`` of the
    step before and Newton's law acts on ``u_n``, so each impact changes the account by at most
    ``2 m g |v^-| h`` (how much depends on where the impact falls in the step: the grids of nested
    steps see the same ``g_n``, so the error is bounded by ``C h`` but does not halve smoothly);
    summed over the impacts (``sum |v_k^-| = 2 |v_1^-|`` for ``e_N = 1/2``)."""
    for case in (1, 4):
        res = runs(case, "moreau")
        assert res.errors["energy_balance"] < 1e-10
        # what the contact dissipates is what the ball loses
        assert abs(res.errors["dissipated"] - res.errors["energy_loss"]) < 1e-10
    e1 = runs(1, "moreau_shifted").errors["energy_balance"]
    e2 = runs(1, "moreau_shifted", H / 2).errors["energy_balance"]
    assert 1.5 < e1 / e2 < 3.0, (e1, e2)
    for h in (H, H / 2):
        res = runs(1, "nsgenalpha", h)
        v1 = bb.G * res.exact.impacts[0]
        bound = 2 * bb.M_BALL * bb.G * (2 * v1) * h
        assert res.errors["energy_balance"] <= bound, (h, res.errors["energy_balance"], bound)


@pytest.mark.parametrize("solver", ["moreau", "nsgenalpha"])
def test_impact_times_first_order(solver):
    """Case 1: the k-th impact is late by up to about k steps (each impact is detected at the end
    of the step that crosses the ground and the next flight starts from there), so the errors of
    later impacts exceed 1.5 steps; but they are of first order: the largest error of the first
    five impacts falls at least by half per halving of the step (fitted over h, h/2, h/4), and
    each stays below ``1.5 k h``."""
    hs = (H, H / 2, H / 4)
    err = []
    for h in hs:
        res = bb.run(1, h, solver, t_end=1.25)
        e = np.abs(res.errors["impact_times"][:5])
        assert len(e) == 5
        assert np.all(e <= 1.5 * np.arange(1, 6) * h), (h, e / h)
        err.append(e.max())
    p = np.polyfit(np.log(hs), np.log(err), 1)[0]
    assert p > 0.8, (err, p)


def test_zeno_point(runs):
    """Case 1: the impacts accumulate at 3 t_1; the contact stays closed from within 10 steps."""
    res = runs(1, "moreau")
    assert abs(res.exact.t_zeno - 3 * res.exact.impacts[0]) < 1e-12
    assert abs(res.errors["t_rest"]) < 10 * H


def test_semismooth_newton_iterations(runs):
    res = runs(4, "moreau")
    assert res.stats["gs_fallbacks"] == 0
    assert 1 <= res.stats["max_newton_iterations"] <= 10


# -- records per output interval ---------------------------------------------------------
@pytest.mark.parametrize("solver", ["moreau", "nsgenalpha"])
def test_records_are_per_output_row(solver):
    """Case 4 (impacts, friction, rest) with ``dt_out``: the solver keeps one record per output row,
    not one per step; the rows are the states of the run without ``dt_out`` at those times (output
    times at step points up to the round-off of the summed steps: the chord of the last step), the
    percussions and dissipations of a row are the sums over its steps, the cumulative dissipation
    is that run's, and the energy account holds to the same tolerance."""
    h, t_end, every = H, 1.0, 10 * H
    ref = bb.run(4, h, solver, t_end=t_end)
    res = bb.run(4, h, solver, t_end=t_end, dt_out=every)
    rec = res.solver_object.records
    assert len(res.t) == 51 and len(rec["t"]) == len(res.t) and res.solver_object.nsteps == 500
    assert np.array_equal(rec["t"], res.t) and len(res.steps["P_N"]) == len(res.t)
    k = np.searchsorted(ref.t, res.t - 1e-9)
    off = np.max(np.abs(ref.t[k] - res.t)) / h          # output times off the step points, in steps
    assert off < 1e-10
    scale = np.max(np.abs(ref.y))
    assert np.max(np.abs(ref.y[k] - res.y)) < 1e-12 * scale
    assert np.max(np.abs(ref.dissipated[k] - res.dissipated)) < 1e-12
    for key in ("P_N", "dissipation"):
        # a row ends off its step point by `off` steps: that fraction of the step goes to the next row
        sums = np.add.reduceat(ref.steps[key], np.r_[0, k[:-1] + 1])[1:]
        bound = (off + 1e-14) * np.max(np.abs(ref.steps[key]))
        assert np.max(np.abs(sums - res.steps[key][1:])) <= bound, key
    assert res.steps["P_N"][1:, 0].sum() > 1.0                   # the impacts are in the rows
    tol = 1e-10 if solver == "moreau" else 2 * bb.M_BALL * bb.G * 2 * bb.G * ref.exact.impacts[0] * h
    for r in (ref, res):
        assert r.errors["energy_balance"] < tol


def test_records_between_steps_and_at_a_terminal_event():
    """Output times inside steps (``dt_out`` not a multiple of the step): the cumulative
    percussions and dissipations grow linearly within a step, as the work record and the dense
    output do, so each row holds the chord of the run without ``dt_out`` (states, cumulative
    percussions and dissipation; the energy of a state on a chord is not the chord of the
    energies, so the energy account is checked at step points, above).  A terminal event (the ball
    rising through 0.3 m after its first bounce) ends the rows at the event: the rows carry the
    first impact's percussion."""
    ref = bb.run(1, H, "moreau", t_end=1.0)
    res = bb.run(1, H, "moreau", t_end=1.0, dt_out=0.0173)
    assert len(res.solver_object.records["t"]) == len(res.t) == 59
    cum = np.cumsum(ref.steps["P_N"][:, 0])
    P_rows = np.interp(res.t, ref.t, cum)
    assert np.max(np.abs(np.cumsum(res.steps["P_N"][:, 0]) - P_rows)) < 1e-12
    assert np.max(np.abs(res.dissipated[:, 0] - np.interp(res.t, ref.t, ref.dissipated[:, 0]))) < 1e-12
    y_rows = np.column_stack([np.interp(res.t, ref.t, c) for c in ref.y.T])
    assert np.max(np.abs(res.y - y_rows)) < 1e-12

    def rising(t, y):
        return y[1] - 0.3
    rising.terminal, rising.direction = True, 1
    hit = bb.run(1, H, "moreau", t_end=1.0, dt_out=0.1, events=[rising])
    t_cut = hit.t_events[0][0]
    assert hit.t[-1] == t_cut and len(hit.steps["t"]) == len(hit.t) == 7
    first = cum[np.searchsorted(ref.t, t_cut)]                # all percussions up to the event
    assert abs(hit.steps["P_N"][:, 0].sum() - first) < 1e-12 and first > 1.0
    assert abs(hit.dissipated[-1, 0] - np.interp(t_cut, ref.t, ref.dissipated[:, 0])) < 1e-12


def test_options_are_checked():
    problem, y0, _ = bb.model(1)
    from phmech.contact import simulate
    with pytest.raises(ValueError, match="dt is required"):
        simulate(problem, (0, 0.1), y0, method="moreau")
    with pytest.raises(ValueError, match="rho_inf must lie in"):
        simulate(problem, (0, 0.1), y0, method="nsgenalpha", dt=1e-3, rho_inf=2)
    with pytest.raises(ValueError, match="unknown option"):
        simulate(problem, (0, 0.1), y0, method="moreau", dt=1e-3, foo=1)
    from phmech.solvers import solve
    with pytest.raises(ValueError, match="NonsmoothProblem"):
        solve(problem.dae, (0, 0.1), y0, method="moreau", dt=1e-3)


# -- the other contact benchmarks ---------------------------------------------------------
from phmech.validation import contact_cases as cc  # noqa: E402


@pytest.mark.parametrize("solver", ["moreau", "moreau_shifted", "nsgenalpha"])
def test_block_on_incline(solver):
    """Coulomb friction: the block sticks within 1.5 steps of v0 / a; the sliding velocity is
    exact (constant forces); the contact holds on the plane; position first order (< 6 h)."""
    res = cc.run_block(H, solver, t_end=2.0)
    e = res.errors
    assert abs(e["t_stop"]) <= 1.5 * H
    assert e["velocity"] < 1e-9
    assert e["normal_drift"] < 1e-12
    assert e["position"] < 6 * H
    if solver == "nsgenalpha":
        # contact forces on acceleration level: exact while sliding (constant forces); the stop
        # inside a step leaves a position error of second order, below a h^2 (a the deceleration)
        a = bb.G * (0.5 * np.cos(np.radians(20.0)) - np.sin(np.radians(20.0)))
        e2 = cc.run_block(H / 2, solver, t_end=2.0).errors
        assert e["position"] < a * H**2 and e2["position"] < a * (H / 2) ** 2, (e["position"], e2["position"])


@pytest.mark.parametrize("solver", ["moreau", "nsgenalpha"])
def test_newtons_cradle(solver):
    """With gaps: the first of the four binary impacts within 1.5 steps of gap / v (each impact
    can delay the next one by up to a step: the k-th within 1.5 k steps), ball 5 leaves at v.
    Touching: Newton's law on the four closed contacts at once gives the LCP solution
    (-0.6, 0.4, 0.4, 0.4, 0.4), also exact to 1e-12; both conserve the energy."""
    gapped = cc.run_cradle(0.009, H, solver, t_end=0.06)
    err = np.abs(gapped.errors["impact_times"])
    assert err[0] <= 1.5 * H and np.all(err <= 1.5 * H * np.arange(1, 5))
    assert gapped.errors["velocities"] < 1e-12
    touching = cc.run_cradle(0.0, H, solver, t_end=0.02)
    assert np.allclose(cc.cradle_touching_exact(), [-0.6, 0.4, 0.4, 0.4, 0.4], atol=1e-14)
    assert touching.errors["velocities"] < 1e-12
    for res in (gapped, touching):
        assert res.errors["energy_balance"] < 1e-12


def test_double_pendulum_wall():
    """First impact within 1.5 steps of the event-driven reference for the generalized-alpha
    method; its smooth phase is of second order (angle error ratio ~4 on halving the step),
    Moreau's of first order; generalized-alpha does not penetrate the wall."""
    errs = {}
    for s in ("moreau", "nsgenalpha"):
        for h in (H, H / 2):
            res = cc.run_pendulum(h, s, t_end=0.8)
            errs[s, h] = res.errors
    assert abs(errs["nsgenalpha", H]["impact_times"][0]) <= 1.5 * H
    assert abs(errs["moreau", H]["impact_times"][0]) <= 1.5 * H
    assert errs["nsgenalpha", H]["position_drift"] < 1e-10     # the joints hold on position level
    r_ga = errs["nsgenalpha", H]["angles_before_first_impact"] / errs["nsgenalpha", H / 2]["angles_before_first_impact"]
    r_mo = errs["moreau", H]["angles_before_first_impact"] / errs["moreau", H / 2]["angles_before_first_impact"]
    assert 3.3 < r_ga < 4.7 and 1.6 < r_mo < 2.4, (r_ga, r_mo)
    assert errs["nsgenalpha", H]["penetration"] <= 1e-6


# -- the tippe top ------------------------------------------------------------------------------
def test_tippe_top_short():
    """The first 0.03 s of the tippe top (Moreau, h = 1e-4): the big sphere stays in contact, the
    stem does not touch, Coulomb-Contensou friction dissipates in every output interval, and the energy
    account (kinetic + potential + dissipated) closes to round-off (midpoint scheme; the
    gyroscopic term at the mean velocity does no work)."""
    from phmech.validation import tippe_top
    res = tippe_top.run(t_end=0.03, dt=1e-4, dt_out=1e-3)
    # percussions and dissipation accumulated over the output intervals of 10 steps
    assert len(res.steps["t"]) == len(res.t) == len(res.solver_object.records["t"]) == 31
    PN = res.steps["P_N"][1:] / np.diff(res.t)[:, None]        # the mean normal force of each interval
    assert np.all(PN[:, 0] > 0) and np.all(PN[:, 1] == 0)
    assert np.allclose(PN[:, 0], 6e-3 * 9.81, rtol=0.05)     # carries the weight
    diss = res.steps["dissipation"][1:, 0]
    assert np.all(diss > 0)
    H = res.hamiltonian()
    assert np.max(np.abs(res.energy_balance())) < 1e-12 * H[0]
    assert res.t_invert is None and 0 < res.tilt.max() < 0.2


@pytest.mark.slow
def test_tippe_top_inverts():
    """The first 5 s of the 8 s run: the top turns over onto its stem (first stem contact at
    1.37 s, tilt beyond 2.9 rad); on the stem the drilling (Contensou) moment ``mu N r_c`` slows
    the spin at about ``mu m g r_c / I3``, and the top falls back onto its big sphere (4.53 s)
    when the spin has dropped to the gyroscopic stability limit of the sleeping top,
    ``2 sqrt(I1 m g a2) / I3 = 78 rad/s`` (within 15 %); the energy account closes over the whole run."""
    from phmech.validation import tippe_top
    res = tippe_top.run(t_end=5.0, dt=1e-4, dt_out=1e-2)
    assert res.t_invert is not None and 1.2 < res.t_invert < 1.6
    assert res.tilt.max() > 2.9
    d = tippe_top.DATA
    on_stem = (res.t > 1.6) & (res.t < 3.0)
    rate = -np.polyfit(res.t[on_stem], np.abs(res.spin[on_stem]), 1)[0]
    assert abs(rate / (d["mu"] * d["m"] * d["g"] * d["r_c"] / d["I3"]) - 1) < 0.05, rate
    assert 3.0 < res.t_fall < 5.0
    assert abs(abs(res.spin_fall) / res.critical_spin - 1) < 0.15, (res.spin_fall, res.critical_spin)
    assert np.max(np.abs(res.energy_balance())) < 1e-10


def test_bouncing_ball_command_line(tmp_path):
    import json
    out = tmp_path / "ball"
    bb.main(["--outdir", str(out), "--solvers", "moreau", "--no-plot"])
    s = json.loads((out / "summary.json").read_text())
    assert set(s["cases"]) == {"1", "2", "3", "4"}
    assert abs(s["cases"]["1"]["moreau"]["exact"]["t_zeno"] - 3 * s["cases"]["1"]["moreau"]["exact"]["impacts"][0]) < 1e-12
    assert (out / "case4_moreau.csv").exists()

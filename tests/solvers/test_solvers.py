"""The solver driver and the solver contract: output times, breakpoints, events,
callbacks, progress, option checks and the causes of failures."""
import sys

import numpy as np
import pytest

from conftest import needs_assimulo
from mechanisms import pendulum, rigid_crank_slider

from phmech.solvers.problem import DAEProblem
from phmech.solvers import METHODS, ImplicitMidpoint, RadauIIA, SolverError, solve

OWN = [("midpoint", dict(dt=1e-3)), ("radau", dict())]


def oscillator():
    """``x'' = -x`` with labels, ``x = sin t``."""
    return DAEProblem(np.eye(2), lambda t, y: np.array([y[1], -y[0]]),
                      lambda t, y: np.array([[0.0, 1.0], [-1.0, 0.0]]), labels=["x", "v"]), np.array([0.0, 1.0])


# -- output times ------------------------------------------------------------------
@pytest.mark.parametrize("method, opts", [("midpoint", dict(dt=1e-4)),
                                          ("radau", dict(rtol=1e-8, atol=1e-8))])
def test_every_row_is_the_state_at_its_label(method, opts):
    s, *_ = rigid_crank_slider()
    dae = s.assemble()
    y0 = dae.initial_state()
    t_eval = np.array([0.0, 0.0013, 0.005, 0.0071, 0.01])
    r = s.simulate(0.01, solver=method, y0=y0, t_eval=t_eval, **opts)
    assert np.array_equal(r.t, t_eval)
    tol = 1e-6 if method == "radau" else 2e-4     # collocation polynomial / linear interpolation
    for ti, yi in zip(r.t[1:], r.y[1:]):
        ref = s.simulate(ti, solver="radau", y0=y0, rtol=1e-10, atol=1e-10)
        assert ref.t[-1] == ti
        assert np.max(np.abs(yi[dae.sq] - ref.y[-1][dae.sq])) < tol


def test_output_labels_are_exact_and_rows_finite():
    prob, y0 = oscillator()
    t_eval = np.linspace(0.0, 2.0, 7)[1:]           # t0 itself not asked for
    for method, opts in OWN:
        r = solve(prob, (0.0, 2.0), y0, method=method, t_eval=t_eval, **opts)
        assert np.array_equal(r.t, t_eval) and np.all(np.isfinite(r.y))
        assert np.allclose(r.y[:, 0], np.sin(t_eval), atol=1e-5)


@pytest.mark.parametrize("t_eval, match", [
    ([0.0, 0.005, 0.5], r"t_eval must lie in the integration span \[0\.0, 0\.01\], got \[0\.0, 0\.5\]"),
    ([-0.001, 0.005], r"t_eval must lie in the integration span"),
    ([0.0, 0.008, 0.004], r"t_eval must be strictly increasing"),
    ([0.0, 0.004, 0.004], r"t_eval must be strictly increasing"),
    ([0.0, np.nan], r"t_eval has non-finite entries"),
    ([], r"t_eval is empty"),
])
@pytest.mark.parametrize("method, opts", OWN)
def test_bad_output_times_are_refused(t_eval, match, method, opts):
    s, *_ = rigid_crank_slider()
    with pytest.raises(ValueError, match=f"{method}: {match}"):
        s.simulate(0.01, solver=method, t_eval=t_eval, **opts)


def test_tstops_and_dt_out():
    s, rod, dae, e0 = pendulum()
    y0 = dae.initial_state(e0=e0)
    r1 = s.simulate(0.1, dt=1e-2, y0=y0, tstops=[0.035], dt_out=0.02)
    assert np.allclose(r1.t, [0, 0.02, 0.04, 0.06, 0.08, 0.1])
    seen = []
    r2 = s.simulate(0.1, dt=1e-2, y0=y0, tstops=[0.035], callbacks=[lambda sol: seen.append(sol.t)])
    # each interval between breakpoints in equal steps near dt: 4 of 0.00875, 6 of 0.0108333
    assert 0.035 in seen and len(seen) == 10 and seen[-1] == 0.1
    assert np.allclose(np.diff(np.r_[0.0, seen]), [0.035 / 4] * 4 + [0.065 / 6] * 6)
    assert np.array_equal(r2.t[1:], seen)
    # dt_out rows are the states at their labels (linear between the step points)
    k = int(np.searchsorted(r2.t, 0.04)) - 1
    a = (0.04 - r2.t[k]) / (r2.t[k + 1] - r2.t[k])
    assert np.allclose(r1.y[2], (1 - a) * r2.y[k] + a * r2.y[k + 1], rtol=1e-12, atol=1e-14)


def test_tstops_equal_the_staged_runs():
    """A run with breakpoints takes exactly the steps of separate runs between them."""
    from phmech import PlanarRigidBody, System
    rod = PlanarRigidBody.rod("rod", 1.0, 1.0)
    s = System([rod])
    s.pin(rod.port("A"))
    s.apply_moment(rod.port("B"), lambda t: min(t / 0.2, 1.0))
    dae = s.assemble()
    y0 = dae.initial_state()
    states = []
    solve(dae, (0.0, 1.0), y0, dt=0.03, tstops=[0.2, 0.55], callbacks=[lambda sol: states.append(sol.y.copy())])
    staged, y = [], y0
    for a, b in ((0.0, 0.2), (0.2, 0.55), (0.55, 1.0)):
        r = solve(dae, (a, b), y, dt=0.03)
        staged += list(r.y[1:])
        y = r.y[-1]
    assert np.array_equal(np.array(states), np.array(staged))


def test_breakpoints_are_checked():
    prob, y0 = oscillator()
    with pytest.raises(ValueError, match=r"midpoint: tstops has non-finite entries"):
        solve(prob, (0.0, 1.0), y0, dt=0.1, tstops=[0.5, np.inf])
    r = solve(prob, (0.0, 1.0), y0, dt=0.1, tstops=[-1.0, 0.0, 1.0, 7.0])   # outside the span: no effect
    assert len(r.t) == 11


# -- events ------------------------------------------------------------------------
def test_terminal_event_stops_at_the_crossing():
    s, rod, dae, e0 = pendulum(omega0=0.0)
    y0 = dae.initial_state(e0=e0)
    ia = dae.q_slices["rod"].start + 2

    def bottom(t, y):                      # the rod passes the vertical (angle -pi/2)
        return y[ia] + np.pi / 2
    bottom.terminal = True
    bottom.direction = -1
    r = s.simulate(5.0, solver="radau", y0=y0, rtol=1e-10, atol=1e-10, events=[bottom])
    # quarter period of the rod pendulum from horizontal: integral formula for the compound pendulum
    from scipy.integrate import quad
    w2 = 9.81 * 0.5 / (1.0 / 3.0)          # m g (L/2) / I_A for the uniform rod
    T4 = quad(lambda th: 1.0 / np.sqrt(2 * w2 * np.sin(th)), 0, np.pi / 2)[0]
    assert r.t_events[0][0] == pytest.approx(T4, rel=1e-7)
    assert r.t[-1] == r.t_events[0][0] and r.message == "terminated by an event"
    assert r.y[-1][ia] == pytest.approx(-np.pi / 2, abs=1e-7)
    assert np.array_equal(r.y_events[0][0], r.y[-1])


@pytest.mark.parametrize("method, opts, tol", [("midpoint", dict(dt=1e-3), 1e-5), ("radau", dict(rtol=1e-9), 1e-8)])
def test_events_with_direction(method, opts, tol):
    prob, y0 = oscillator()                    # x = sin t: zeros at k pi, maxima at pi/2 + 2 k pi

    def x(t, y):
        return y[0]

    def v_down(t, y):
        return y[1]
    v_down.direction = -1
    t_eval = np.linspace(0.0, 10.0, 11)
    r = solve(prob, (0.0, 10.0), y0, method=method, events=[x, v_down], t_eval=t_eval, **opts)
    assert np.allclose(r.t_events[0], [np.pi, 2 * np.pi, 3 * np.pi], atol=tol)
    assert np.allclose(r.t_events[1], [np.pi / 2, 5 * np.pi / 2], atol=tol)
    assert r.y_events[1].shape == (2, 2) and np.allclose(r.y_events[1][:, 0], 1.0, atol=1e-5)
    assert np.array_equal(r.t, t_eval) and r.message == "success"


def test_terminal_event_with_output_times_ends_on_the_event():
    prob, y0 = oscillator()

    def x(t, y):
        return y[0]
    x.terminal = True
    r = solve(prob, (0.0, 10.0), y0, method="radau", rtol=1e-9, events=[x], t_eval=np.arange(0.0, 10.5, 0.5))
    assert np.array_equal(r.t[:-1], np.arange(0.0, 3.5, 0.5)) and r.t[-1] == pytest.approx(np.pi, abs=1e-8)
    r = solve(prob, (0.0, 10.0), y0, dt=1e-3, events=[x], t_eval=[5.0, 10.0])   # before the first output
    assert len(r.t) == 1 and r.t[0] == pytest.approx(np.pi, abs=1e-6) and r.y[0, 0] == pytest.approx(0.0, abs=1e-6)


def test_bad_events_are_refused():
    prob, y0 = oscillator()
    with pytest.raises(ValueError, match=r"midpoint: events must be callables"):
        solve(prob, (0.0, 1.0), y0, dt=0.1, events=[3.0])

    def g(t, y):
        return y[0]
    g.direction = 2
    with pytest.raises(ValueError, match=r"direction of event 'g' must be -1, 0 or \+1, got 2"):
        solve(prob, (0.0, 1.0), y0, dt=0.1, events=[g])


# -- callbacks, progress, statistics ------------------------------------------------
def test_callbacks_see_every_accepted_step():
    prob, y0 = oscillator()
    seen = []
    r = solve(prob, (0.0, 1.0), y0, method="radau", callbacks=[lambda s: seen.append((s.t_old, s.t, s.status))])
    assert len(seen) == r.stats["nsteps"] == len(r.t) - 1
    assert all(a < b for a, b, _ in seen) and seen[-1][1] == 1.0 and seen[-1][2] == "finished"
    assert set(r.stats) >= {"nsteps", "nreject", "nfev", "njev", "nlu", "wall_time"}
    with pytest.raises(ValueError, match="callbacks must be callables"):
        solve(prob, (0.0, 1.0), y0, dt=0.1, callbacks=["checkpoint"])


def test_progress_bar_for_every_solver(capsys):
    s, *_ = rigid_crank_slider()
    s.simulate(0.002, dt=1e-4, progress=True)
    s.simulate(0.002, solver="radau", progress=True)
    err = capsys.readouterr().err
    assert err.count("midpoint") >= 1 and err.count("radau") >= 1


def test_progress_without_tqdm(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    prob, y0 = oscillator()
    r = solve(prob, (0.0, 1.0), y0, dt=0.1, progress=True)
    assert len(r.t) == 11 and "midpoint" not in capsys.readouterr().err


# -- the solver contract ------------------------------------------------------------
@pytest.mark.parametrize("cls, opts", [(ImplicitMidpoint, dict(dt=0.1)), (RadauIIA, dict())])
def test_step_contract(cls, opts):
    prob, y0 = oscillator()
    sol = cls(prob, 0.0, y0, 1.0, **opts)
    sol.t_bound = 0.25                          # a breakpoint
    while sol.status == "running":
        sol.step()
        assert sol.t_old < sol.t <= 0.25
        d = sol.dense_output()
        assert np.allclose(d(sol.t_old), sol.y_old) and np.allclose(d(sol.t), sol.y)
        assert d(np.array([sol.t_old, sol.t])).shape == (2, 2) and d(sol.t).shape == (2,)
    assert sol.t == 0.25 and sol.status == "finished"
    sol.t_bound = 1.0
    assert sol.status == "running"
    with pytest.raises(ValueError, match="t_bound must be finite and not before t"):
        sol.t_bound = 0.1


def test_driver_refuses_a_non_finite_state():
    prob, y0 = oscillator()

    class Broken(ImplicitMidpoint):
        name = "broken"

        def _step(self):
            super()._step()
            if self.t > 0.45:
                self.y = self.y * np.nan

    with pytest.raises(SolverError, match=r"broken failed at t = 0\.4: the state became non-finite \(x\) "
                                          r"in the step to t = 0\.5"):
        solve(prob, (0.0, 1.0), y0, method=Broken, dt=0.1)


# -- option checks -------------------------------------------------------------------
def test_unknown_solver_lists_the_valid_ones():
    prob, y0 = oscillator()
    import re
    valid = re.escape(str(sorted(METHODS)))
    with pytest.raises(ValueError, match=r"unknown solver 'rk4'; choose one of " + valid):
        solve(prob, (0.0, 1.0), y0, method="rk4")
    assert {"ida", "midpoint", "radau", "radau5"} <= set(METHODS)


@pytest.mark.parametrize("method, opts, match", [
    ("midpoint", dict(dt=0.1, rtol=1e-6),
     r"midpoint: unknown option\(s\) \['rtol'\] \(rtol=1e-06\); this solver takes"),
    ("midpoint", dict(dt=0.1, max_step=0.1), r"midpoint: unknown option\(s\) \['max_step'\]"),
    ("radau", dict(dt=0.1), r"radau: unknown option\(s\) \['dt'\]"),
    ("radau", dict(max_newton=3), r"radau: unknown option\(s\) \['max_newton'\]"),
])
def test_options_a_solver_does_not_take_are_refused(method, opts, match):
    prob, y0 = oscillator()
    with pytest.raises(ValueError, match=match):
        solve(prob, (0.0, 1.0), y0, method=method, **opts)


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("method, opts, match", [
    ("midpoint", dict(dt=0.0), r"midpoint: option dt must be positive and finite, got 0\.0"),
    ("midpoint", dict(dt=-0.1), r"midpoint: option dt must be positive and finite, got -0\.1"),
    ("midpoint", dict(dt=NAN), r"midpoint: option dt must be positive and finite, got nan"),
    ("midpoint", dict(dt=INF), r"midpoint: option dt must be positive and finite, got inf"),
    ("midpoint", dict(dt=None), r"midpoint: a positive step size dt is required, got None"),
    ("midpoint", dict(dt=0.1, max_newton=0), r"midpoint: option max_newton must be a positive integer, got 0"),
    ("midpoint", dict(dt=0.1, max_newton=-2), r"midpoint: option max_newton must be a positive integer, got -2"),
    ("midpoint", dict(dt=0.1, max_newton=2.5), r"midpoint: option max_newton must be a positive integer, got 2\.5"),
    ("midpoint", dict(dt=0.1, newton_tol=NAN), r"midpoint: option newton_tol must be positive and finite, got nan"),
    ("midpoint", dict(dt=0.1, constraints="start"), r"midpoint: constraints must be 'midpoint' or 'endpoint'"),
    ("radau", dict(rtol=-1e-6), r"radau: option rtol must be positive and finite, got -1e-06"),
    ("radau", dict(rtol=NAN), r"radau: option rtol must be positive and finite, got nan"),
    ("radau", dict(rtol=1e-20), r"radau: option rtol must be at least 100 machine epsilons"),
    ("radau", dict(atol=-1.0), r"radau: option atol must be positive and finite, got -1\.0"),
    ("radau", dict(atol=NAN), r"radau: option atol must be positive and finite, got nan"),
    ("radau", dict(max_step=NAN), r"radau: option max_step must be positive, got nan"),
    ("radau", dict(max_step=0.0), r"radau: option max_step must be positive, got 0\.0"),
    ("radau", dict(max_step=-1.0), r"radau: option max_step must be positive, got -1\.0"),
    ("radau", dict(first_step=0.0), r"radau: option first_step must be positive and finite, got 0\.0"),
    ("radau", dict(fixed_step=INF), r"radau: option fixed_step must be positive and finite, got inf"),
    ("radau", dict(max_steps=0), r"radau: option max_steps must be a positive integer, got 0"),
    ("radau", dict(rtol="tight"), r"radau: option rtol must be a number, got 'tight'"),
])
def test_bad_option_values_are_refused(method, opts, match):
    prob, y0 = oscillator()
    with pytest.raises(ValueError, match=match):
        solve(prob, (0.0, 1.0), y0, method=method, **opts)


@pytest.mark.parametrize("method, opts", OWN)
@pytest.mark.parametrize("span, match", [
    ((0.0, INF), r"t0 and t_end must be finite, got t0 = 0\.0, t_end = inf"),
    ((0.0, NAN), r"t0 and t_end must be finite, got t0 = 0\.0, t_end = nan"),
    ((-INF, 1.0), r"t0 and t_end must be finite, got t0 = -inf"),
    ((NAN, 1.0), r"t0 and t_end must be finite, got t0 = nan"),
    ((1.0, 1.0), r"t_end \(1\.0\) must be larger than t0 \(1\.0\)"),
    ((1.0, 0.5), r"t_end \(0\.5\) must be larger than t0 \(1\.0\)"),
    ((0.0,), r"t_span must be two numbers \(t0, t_end\)"),
])
def test_bad_spans_are_refused(method, opts, span, match):
    prob, y0 = oscillator()
    with pytest.raises(ValueError, match=f"{method}: {match}"):
        solve(prob, span, y0, method=method, **opts)


def test_step_limit_is_honoured():
    prob, y0 = oscillator()
    with pytest.raises(SolverError, match=r"radau failed at t = .*: the step limit max_steps = 3 is reached"):
        solve(prob, (0.0, 10.0), y0, method="radau", max_steps=3)


@needs_assimulo
@pytest.mark.parametrize("method", ["ida", "radau5"])
def test_assimulo_options(method):
    prob, y0 = oscillator()
    with pytest.raises(SolverError, match=f"{method} failed"):
        solve(prob, (0.0, 10.0), y0, method=method, max_steps=5)
    with pytest.raises(ValueError, match=rf"{method}: unknown option\(s\) \['fixed_step'\]"):
        solve(prob, (0.0, 1.0), y0, method=method, fixed_step=0.1)
    for name in ("rtol", "atol", "max_step", "first_step", "atol_lambda"):
        with pytest.raises(ValueError, match=rf"{method}: option {name} must be positive"):
            solve(prob, (0.0, 1.0), y0, method=method, **{name: NAN})
    r = solve(prob, (0.0, 1.0), y0, method=method, rtol=1e-8, atol=1e-8, max_step=0.01, first_step=1e-4)
    assert r.stats["nsteps"] >= 100 and abs(r.y[-1, 0] - np.sin(1.0)) < 1e-6
    assert len(r.t) >= 100 and np.all(np.diff(r.t) > 0)   # every internal step without output times


@needs_assimulo
def test_assimulo_through_the_driver_with_breakpoints():
    s, rod, dae, e0 = pendulum()
    y0 = dae.initial_state(e0=e0)
    t_eval = np.linspace(0.0, 1.0, 11)
    ref = s.simulate(1.0, solver="radau", y0=y0, rtol=1e-10, atol=1e-10, t_eval=t_eval)
    for method in ("ida", "radau5"):
        r = s.simulate(1.0, solver=method, y0=y0, rtol=1e-8, atol=1e-8, t_eval=t_eval, tstops=[0.45])
        assert np.array_equal(r.t, t_eval)
        assert np.max(np.abs(r.q(rod) - ref.q(rod))) < 1e-5


# -- causes of failures -----------------------------------------------------------------
def test_midpoint_results_are_unchanged():
    """The step of the midpoint rule is the one before the driver (values of that version, with
    that version's refresh of the iteration matrix only after a failed iteration); the early
    refresh of the default changes the result within the Newton tolerance only.

    The stored values are compared within what the algorithm guarantees: 200 steps, each solved
    to the Newton tolerance 1e-10, so 1e-8 relative; round-off differs between processors and
    between the compiled and the Python residual, so a tighter bound would test the machine."""
    for constraints, ref in (("midpoint", (0.15075057579807116, 74.43814201184215, -4.03695241959049,
                                           0.2911494947542383)),
                             ("endpoint", (0.15075903970358867, 74.43495838558268, -4.324568963240335,
                                           0.2905180831369318))):
        s, *_ = rigid_crank_slider()
        r = s.simulate(0.02, dt=1e-4, constraints=constraints, refresh_iterations=7)
        assert len(r.t) == 201 and r.t[-1] == 0.02
        got = (r.y[-1, 6], r.y[-1, 13], r.y[-1, 18], r.work[-1])
        assert np.allclose(got, ref, rtol=1e-8, atol=0), (constraints, got)
        r = s.simulate(0.02, dt=1e-4, constraints=constraints)
        got = (r.y[-1, 6], r.y[-1, 13], r.y[-1, 18], r.work[-1])
        assert np.allclose(got, ref, rtol=1e-7, atol=0), (constraints, got)


@pytest.mark.parametrize("method, opts, match", [
    ("midpoint", dict(dt=0.1), r"midpoint failed at t = 0\.5: the residual became non-finite at t = 0\.55 in v: "
                               r"the model returns NaN or inf there"),
    ("radau", dict(), r"radau failed at t = 0\.5.*: the right-hand side became non-finite at t = 0\.5.* in v"),
])
def test_a_nan_from_the_model_is_named(method, opts, match):
    def f(t, y):
        return np.array([y[1], -y[0] + (np.nan if t > 0.5 else 0.0)])
    prob = DAEProblem(np.eye(2), f, lambda t, y: np.array([[0.0, 1.0], [-1.0, 0.0]]), labels=["x", "v"])
    with pytest.raises(SolverError, match=match):
        solve(prob, (0.0, 1.0), np.array([0.0, 1.0]), method=method, **opts)


def test_a_nan_drive_is_named_by_the_model():
    from phmech import PlanarRigidBody, System
    rod = PlanarRigidBody.rod("rod", 1.0, 1.0)
    s = System([rod])
    s.pin(rod.port("A"))
    s.drive(rod, lambda t: 1.0 if t < 0.3 else np.nan, name="motor")
    with pytest.raises(ValueError, match=r"joint 'motor': omega\(t=0\.3.*\) returned non-finite values"):
        s.simulate(1.0, dt=0.05)


@pytest.mark.parametrize("method, opts", [("midpoint", dict(dt=0.1)), ("radau", dict())])
def test_dependent_constraints_give_a_singular_iteration_matrix(method, opts):
    def f(t, y):                 # the same constraint twice, through the same column
        return np.array([y[1] + y[2] + y[3], -y[0], np.sin(t) - y[0], np.sin(t) - y[0]])

    def jac(t, y):
        return np.array([[0, 1, 1, 1], [-1, 0, 0, 0], [-1, 0, 0, 0], [-1, 0, 0, 0.0]])
    prob = DAEProblem(np.diag([1.0, 1, 0, 0]), f, jac, n_alg=2)
    with pytest.raises(SolverError, match=rf"{method} failed at t = 0: singular iteration matrix .*dependent"):
        solve(prob, (0.0, 1.0), np.zeros(4), method=method, **opts)


def test_slow_newton_convergence_suggests_a_smaller_step():
    s, *_ = rigid_crank_slider()
    with pytest.raises(SolverError, match=r"midpoint failed at t = 0: Newton iteration converged too slowly "
                                          r".*: reduce dt"):
        s.simulate(0.1, dt=0.02)


def test_midpoint_long_interval_has_no_sliver_step():
    """Step points are start + k h: 27680 steps of 1.25e-3 from 15.4 to 50 end on 50 without a
    rounding-size extra step (accumulated sums left one of 3e-11, which Newton cannot solve)."""
    prob = DAEProblem(np.eye(2), lambda t, y: np.array([y[1], -y[0]]), lambda t, y: np.array([[0, 1.0], [-1, 0]]))
    res = solve(prob, (15.4, 50.0), np.array([1.0, 0.0]), method="midpoint", dt=1.25e-3, t_eval=[15.4, 50.0])
    assert res.stats["nsteps"] == 27680
    assert res.t[-1] == 50.0


@pytest.mark.parametrize("start, dt, t_bound, t", [
    (15.4, 1.25e-3, 50.0, 15.4), (0.0, 1e-4, 0.1, 0.0), (0.3, 1 / 3, 1e3 + 1e-12, 0.3 + 17 / 3),
    (1.0, 7.3e-3, 1.5 + 2.1e-3, 1.0 + 4.6 * 7.3e-3), (2.0, 1e-3, 2.0 + 5e-4, 2.0)])
def test_midpoint_grid_of_a_run_is_the_grid_step_by_step(start, dt, t_bound, t):
    """The steps of a compiled run (up to ``BLOCK_MAX`` at once) are the steps taken one at a
    time from each end point, bit for bit: on the grid, from a point off it, with an end on
    it, just past it and inside a step; the last one ends on ``t_bound``."""
    from types import SimpleNamespace

    from phmech.solvers.midpoint import BLOCK_MAX
    s = SimpleNamespace(_interval=(start, t_bound), h=dt, t_bound=t_bound)
    hs, t0s, ends = ImplicitMidpoint._grid(s, t, BLOCK_MAX)
    tau = t
    for h, t0, end in zip(hs, t0s, ends):
        one = ImplicitMidpoint._grid(s, tau, 1)
        assert (one[0][0], one[1][0], one[2][0]) == (h, t0, end) and t0 == tau
        tau = end
    if tau < t_bound:
        assert hs.size == BLOCK_MAX and np.all(hs == dt)
    else:
        assert ends[-1] == t_bound and hs[-1] <= dt * (1 + 1e-9)


def test_bordered_lu_of_a_floating_beam_iteration_matrix():
    """The block elimination of the dense frame rows/columns solves like SuperLU on the whole
    matrix (a floating beam of 400 elements: 4 dense rows and columns, 2 multipliers)."""
    import scipy.sparse as sp
    from scipy.sparse.linalg import splu

    from phmech import System
    from phmech.fem import FloatingEulerBernoulliBeam
    from phmech.solvers._dense import BorderedLU, dense_border, sparse_factor

    beam = FloatingEulerBernoulliBeam("beam", 1.0, 400, 7870.0, 1e-4, 2e11, 1e-9)
    s = System([beam])
    s.pin(beam.port("A"))
    d = s.assemble()
    y = d.initial_state()
    y[d.se] = np.random.default_rng(0).standard_normal(d.ne)
    A = sp.csc_matrix(d.E / 1e-4 - d.jacobian(0.0, y))
    S = dense_border(A, np.arange(d.nq + d.ne, d.n))
    assert set(S) >= {d.n - 2, d.n - 1} and len(S) <= 8
    lu = sparse_factor(A, np.arange(d.nq + d.ne, d.n))
    assert isinstance(lu, BorderedLU)
    b = np.random.default_rng(1).standard_normal(d.n)
    x, x_ref = lu.solve(b), splu(A).solve(b)
    assert np.linalg.norm(A @ x - b) <= 1e-10 * np.linalg.norm(b)
    assert np.max(np.abs(x - x_ref)) <= 1e-8 * np.max(np.abs(x_ref))


def test_the_path_says_what_ran_for_bordered_factors():
    """A floating beam above the dense limit is factorized by the bordered elimination, which the
    compiled Newton iteration cannot use: its steps iterate in Python, and ``stats["path"]`` says
    so (it said ``"compiled"``), with the count of those steps; a rigid model's compiled steps
    stay ``"compiled"`` with none."""
    pytest.importorskip("numba")
    pytest.importorskip("firedrake")
    from phmech import System
    from phmech.fem import FloatingEulerBernoulliBeam

    beam = FloatingEulerBernoulliBeam("beam", 1.0, 200, 7870.0, 1e-4, 2e11, 1e-9)
    s = System([beam])
    s.pin(beam.port("A"))
    s.add_gravity((0.0, -9.81))
    res = s.simulate(2e-4, dt=1e-4)
    assert res.stats["path"] in ("python", "mixed") and res.stats["python_steps"] >= 1, res.stats
    rigid = rigid_crank_slider()[0].simulate(1e-3, dt=1e-4)
    assert rigid.stats["path"] == "compiled" and rigid.stats["python_steps"] == 0, rigid.stats

"""The solver driver: output times, breakpoints, events, callbacks, progress."""
import numpy as np
import pytest

from conftest import needs_assimulo
from mechanisms import pendulum, rigid_crank_slider


@pytest.mark.parametrize("method, opts", [("midpoint", dict(dt=1e-4)),
                                          ("radau", dict(rtol=1e-8, atol=1e-8))])
def test_every_row_is_the_state_at_its_label(method, opts):
    s, *_ = rigid_crank_slider()
    dae = s.assemble()
    y0 = dae.initial_state()
    t_eval = np.array([0.0, 0.0013, 0.005, 0.0071, 0.01])
    r = s.simulate(0.01, solver=method, y0=y0, t_eval=t_eval, **opts)
    assert np.array_equal(r.t, t_eval)
    tol = 1e-6 if method == "radau" else 2e-4     # dense output of order 3 / linear interpolation
    for ti, yi in zip(r.t[1:], r.y[1:]):
        ref = s.simulate(ti, solver="radau", y0=y0, rtol=1e-10, atol=1e-10)
        assert np.max(np.abs(yi[dae.sq] - ref.y[-1][dae.sq])) < tol


def test_tstops_and_dt_out():
    s, rod, dae, e0 = pendulum()
    y0 = dae.initial_state(e0=e0)
    r1 = s.simulate(0.1, dt=1e-2, y0=y0, tstops=[0.035], dt_out=0.02)
    assert np.allclose(r1.t, [0, 0.02, 0.04, 0.06, 0.08, 0.1])
    seen = []
    r2 = s.simulate(0.1, dt=1e-2, y0=y0, tstops=[0.035], callbacks=[lambda sol: seen.append(sol.t)])
    assert 0.035 in seen and len(seen) == 11       # the step before the breakpoint is shortened
    assert np.allclose(r2.t[1:], seen)
    # dt_out rows are the states at their labels (interpolated between the step points)
    k = list(np.round(r2.t, 12)).index(0.035)
    assert np.allclose(r1.y[2], r2.y[k] + (r2.y[k + 1] - r2.y[k]) * (0.04 - 0.035) / 0.01, rtol=1e-12)


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


def test_progress_bar_for_every_solver(capsys):
    s, *_ = rigid_crank_slider()
    s.simulate(0.002, dt=1e-4, progress=True)
    s.simulate(0.002, solver="radau", progress=True)
    err = capsys.readouterr().err
    assert err.count("midpoint") >= 1 and err.count("radau") >= 1


@needs_assimulo
def test_assimulo_through_the_driver_with_breakpoints():
    s, rod, dae, e0 = pendulum()
    y0 = dae.initial_state(e0=e0)
    t_eval = np.linspace(0.0, 1.0, 11)
    ref = s.simulate(1.0, solver="radau", y0=y0, rtol=1e-10, atol=1e-10, t_eval=t_eval)
    r = s.simulate(1.0, solver="ida", y0=y0, rtol=1e-8, atol=1e-8, t_eval=t_eval, tstops=[0.45])
    assert np.array_equal(r.t, t_eval)
    assert np.max(np.abs(r.q(rod) - ref.q(rod))) < 1e-5

"""Runs of several compiled midpoint steps in one call equal the steps taken one by one.

When the driver does not need to see every step (no events, no callbacks), the compiled
midpoint rule takes its steps in runs (:meth:`ImplicitMidpoint._run_block
<phmech.solvers.midpoint.ImplicitMidpoint._run_block>`); the output times are read from the
dense output of each step.  A callback that does nothing makes the driver take the steps one
by one (the same kernel, one step a call): both runs must agree bit for bit, in the output
rows, the work record and the counters.
"""
import numpy as np
import pytest

from phmech.solvers import midpoint as mp
from phmech.solvers.base import SolverError
from phmech.solvers.driver import integrate


def _loaded_crank_slider():
    """Gravity, a body-frame force and a moment with time histories (inputs per step)."""
    from tests.mechanisms import rigid_crank_slider
    s, crank, coupler, slider = rigid_crank_slider()
    s.add_gravity((0.0, -9.81))
    s.apply_force(coupler.port("B"), lambda t: (np.sin(30 * t), 0.5), frame="body", name="push")
    s.apply_moment(coupler.port("A"), lambda t: 0.2 * np.cos(20 * t), name="twist")
    return s


def _stiffened_crank_slider():
    from phmech.mechanisms import flexible_crank_slider
    return flexible_crank_slider(2, True)[0]


def _spherical_chain():
    from tests.mechanisms import spherical_chain
    return spherical_chain(3)


MODELS = {"loaded crank-slider": (_loaded_crank_slider, 2e-4),
          "stiffened crank-slider": (_stiffened_crank_slider, 1e-4),
          "spherical chain": (_spherical_chain, 1e-3)}
OUTPUTS = {"every step": {}, "dt_out": {"dt_out": 2.5}, "t_eval": {"t_eval": "random"},
           "breakpoints": {"dt_out": 3.0, "tstops": "two"}}


def _counting_runs(monkeypatch):
    runs = []
    original = mp.ImplicitMidpoint._run_block

    def counted(self):                    # the steps of each call (None when it raises)
        runs.append(None)
        before = self.nsteps
        done = original(self)
        runs[-1] = self.nsteps - before
        return done
    monkeypatch.setattr(mp.ImplicitMidpoint, "_run_block", counted)
    return runs


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("model", MODELS)
def test_runs_of_steps_equal_single_steps(model, output, monkeypatch):
    build, dt = MODELS[model]
    s = build()
    n_steps = 230
    t_end = n_steps * dt
    driver = {}
    for k, v in OUTPUTS[output].items():
        if k == "t_eval":
            driver[k] = np.sort(np.random.default_rng(1).uniform(0.0, t_end, 40))
        elif k == "tstops":
            driver[k] = [0.31 * t_end, 0.77 * t_end]
        else:
            driver[k] = v * dt
    runs = _counting_runs(monkeypatch)
    a = s.simulate(t_end, dt=dt, **driver)
    assert max(runs) > 10, "the runs of several steps were not taken"
    del runs[:]
    b = s.simulate(t_end, dt=dt, callbacks=[lambda solver: None], **driver)
    assert set(runs) == {1}                      # one by one: the same kernel, one step a call
    assert np.array_equal(a.t, b.t)
    assert np.array_equal(a.y, b.y)
    # between step points a row's work carries H of the dense output (solvers.base.balanced_work),
    # whose dot products round with the memory layout: equal to that round-off, not bit for bit
    scale = max(1.0, float(np.max(np.abs(a.work))))
    assert np.max(np.abs(a.work - b.work)) <= 1e-13 * scale
    for key in ("nsteps", "nfev", "njev", "nlu"):
        assert a.stats[key] == b.stats[key], key
    assert a.stats["nsteps"] >= n_steps
    # the work record of the rows: the exact discrete power balance of the midpoint rule
    assert np.all(np.isfinite(a.work)) and a.work.size == a.t.size


@pytest.mark.parametrize("force, error", [(np.nan, ValueError), (1e308, SolverError)])
def test_a_failure_inside_a_run_is_reported_as_in_single_steps(force, error, monkeypatch):
    """A load input that turns NaN (refused by the load, before the step) or huge (the compiled
    step fails in the middle of a run, which is reported as for that step alone) in the middle
    of a run: the same error, at the same time, as when stepping one by one."""
    from tests.mechanisms import rigid_crank_slider
    s, crank, coupler, slider = rigid_crank_slider()
    s.apply_force(coupler.port("B"), lambda t: (force if t > 0.0123 else 1.0, force if t > 0.0123 else 0.0),
                  name="bad")
    runs = _counting_runs(monkeypatch)
    errors = []
    for callbacks in ([], [lambda solver: None]):
        with pytest.raises(error) as err:
            s.simulate(0.05, dt=1e-4, callbacks=callbacks)
        errors.append(err.value)
    assert runs
    assert str(errors[0]) == str(errors[1])
    assert "0.0123" in str(errors[0])
    if error is SolverError:
        assert 0.0122 < errors[0].t < 0.0124


def test_the_saved_solver_state_after_runs_equals_that_after_single_steps():
    """What a restart reads (:meth:`ImplicitMidpoint.checkpoint_state`: the last step, the
    predictor's point, the factors' point, the work record) is the same after runs of several
    steps as after single steps, so a continued run equals the uninterrupted one."""
    s = _stiffened_crank_slider()
    dae = s.assemble()
    states = []
    for single in (False, True):
        solver = mp.ImplicitMidpoint(dae, 0.0, dae.initial_state(), 0.0251, dt=1e-4)
        res = integrate(solver, dt_out=1e-3, callbacks=[lambda solver: None] if single else None)
        assert (len(solver._block[0]) == 2) == single       # the last call: one step or a run
        states.append(res.solver_state)
    a, b = states
    assert a.keys() == b.keys()
    for key in a:
        if a[key] is None or isinstance(a[key], (str, list)):
            assert a[key] == b[key], key
        else:
            assert np.array_equal(a[key], b[key]), key

"""The energy balance at output rows on and off the step grid, for every solver that keeps a
work record (:meth:`phmech.result.Result.energy_balance`).

Between two step points a row's state comes from the dense output and its work from
:func:`phmech.solvers.base.balanced_work`: the balance of the row is the linear interpolant of
the balance at the two step points around it.  So at every row, whatever the output times, the
balance is bounded by the one at the step points: for the implicit midpoint rule the exact
discrete power balance (to its Newton tolerance), for the nonsmooth schemes the energy error of
the scheme.  The runs end off the step grid (the midpoint rule stretches its steps to reach the
end, the nonsmooth schemes shorten the last one).
"""
import numpy as np
import pytest

from tests.mechanisms import OMEGA, rigid_crank_slider

EPS = np.finfo(float).eps
#: the midpoint rule's runs: a quarter revolution of the crank, not a multiple of the step
DT, T_END = 1e-4, 0.5 * np.pi / OMEGA
#: the output times: every step, on the nominal grid (dt_out = dt), off it, at random times
OUTPUTS = {"every step": {}, "dt_out = dt": {"dt_out": DT}, "dt_out = 5 dt": {"dt_out": 5 * DT},
           "dt_out off the grid": {"dt_out": 3.3 * DT}, "t_eval": {"t_eval": "random"}}


def _outputs(name, t_end):
    driver = dict(OUTPUTS[name])
    if driver.get("t_eval") == "random":
        driver["t_eval"] = np.sort(np.random.default_rng(3).uniform(0.0, t_end, 37))
    return driver


def _loaded_crank_slider():
    """The rigid crank-slider with gravity and a force history: drive, loads and gravity supply
    work."""
    s, crank, coupler, slider = rigid_crank_slider()
    s.add_gravity((0.0, -9.81))
    s.apply_force(coupler.port("B"), lambda t: (3.0 * np.sin(300 * t), 0.5), name="push")
    return s


def _roundoff(res):
    """Round-off of ``H - H0 - W`` at the rows (a few ulps of the energies and the work)."""
    return 64 * EPS * (np.max(np.abs(res.hamiltonian())) + np.max(np.abs(res.work)))


def _newton_bound(res, newton_tol):
    """The exact discrete balance to the Newton tolerance: each step's increments are below
    ``newton_tol`` relative to the state, so the step's energy change ``e^T M de`` and its work
    are met to about ``2 newton_tol H``; at worst these add up over the steps."""
    return 2 * newton_tol * res.stats["nsteps"] * np.max(res.hamiltonian()) + _roundoff(res)


@pytest.fixture(scope="module")
def midpoint_model():
    return _loaded_crank_slider()


@pytest.mark.parametrize("steps", ["runs of steps", "one by one"])
@pytest.mark.parametrize("output", OUTPUTS)
def test_midpoint_balance_at_every_row(midpoint_model, output, steps):
    """The exact discrete power balance of the midpoint rule holds at every row, at the step
    points and between them, with the steps taken in compiled runs or one by one (a callback),
    and ending off the step grid."""
    newton_tol = 1e-10
    driver = _outputs(output, T_END)
    if steps == "one by one":
        driver["callbacks"] = [lambda solver: None]
    res = midpoint_model.simulate(T_END, solver="midpoint", dt=DT, newton_tol=newton_tol, **driver)
    assert res.work.shape == res.t.shape and res.t[-1] == driver.get("t_eval", [T_END])[-1]
    if output != "every step":
        on_grid = np.isin(res.t, np.linspace(0.0, T_END, res.stats["nsteps"] + 1))
        assert not on_grid[1:-1].all()                 # rows between step points
    balance = np.abs(res.energy_balance())
    assert np.max(balance) <= _newton_bound(res, newton_tol), np.max(balance)


@pytest.mark.parametrize("t_end", [100 * DT, T_END])
def test_midpoint_rows_interpolate_the_step_balance(midpoint_model, t_end):
    """On the step grid (``t_end`` a multiple of ``dt``, ``dt_out = 5 dt``) or off it, and at a
    terminal event inside a step, a row's balance is the linear interpolant of the balance at
    the step points (the run of every step) around it."""
    full = midpoint_model.simulate(t_end, solver="midpoint", dt=DT)
    stop = lambda t, y: t - 0.73 * t_end            # noqa: E731 (a terminal event inside a step)
    stop.terminal = True
    for driver in ({"dt_out": 5 * DT}, {"dt_out": 3.3 * DT}, {"dt_out": 3.3 * DT, "events": [stop]}):
        res = midpoint_model.simulate(t_end, solver="midpoint", dt=DT, **driver)
        want = np.interp(res.t, full.t, full.energy_balance())
        assert np.max(np.abs(res.energy_balance() - want)) <= _roundoff(res) + _roundoff(full)
    assert res.message == "terminated by an event" and full.t[0] < res.t[-1] < full.t[-1]


NONSMOOTH = ("moreau", "moreau_shifted", "nsgenalpha")


@pytest.fixture(scope="module")
def bouncing_ball():
    """The ball of :mod:`phmech.validation.bouncing_ball` (case 1, e_N = 1/2) over its first two
    impacts, to a time off the step grid: every step and three output grids."""
    from phmech.contact import simulate
    from phmech.validation import bouncing_ball as bb
    problem, y0, _ = bb.model(1)
    h, t_end = 2e-3, 0.9013
    runs = {}
    for solver in NONSMOOTH:
        for output in ("every step", "dt_out = dt", "dt_out off the grid", "t_eval"):
            driver = {k: v * h / DT if k == "dt_out" else v for k, v in _outputs(output, t_end).items()}
            runs[solver, output] = simulate(problem, (0.0, t_end), y0, method=solver, dt=h, **driver)
    return runs


@pytest.mark.parametrize("output", ["dt_out = dt", "dt_out off the grid", "t_eval"])
@pytest.mark.parametrize("solver", NONSMOOTH)
def test_nonsmooth_balance_at_every_row(bouncing_ball, solver, output):
    """The nonsmooth schemes: a row between step points, also inside an impact step, has the
    balance of the step points around it (the scheme's energy error, dissipation included), their
    linear interpolant (from the first row, which need not be at ``t0``): within the range of
    the balance at the step points."""
    full, res = bouncing_ball[solver, "every step"], bouncing_ball[solver, output]
    assert np.count_nonzero(full.steps["P_N"][:, 0] > 0) >= 2           # two impacts (at least)
    step_balance = full.energy_balance()
    tol = _roundoff(res) + _roundoff(full)
    assert np.max(np.abs(res.energy_balance())) <= np.ptp(step_balance) + tol
    want = np.interp(res.t, full.t, step_balance)
    assert np.max(np.abs(res.energy_balance() - (want - want[0]))) <= tol


# -- the solvers with a quadrature work record (Radau IIA, generalized-alpha) ---------------------
QUADRATURE = {"radau": {"rtol": 1e-8, "atol": 1e-8}, "genalpha": {"dt": DT, "rho_inf": 0.8}}


@pytest.fixture(scope="module")
def quadrature_runs(midpoint_model):
    """Each solver over the quarter revolution: every step, and rows on and off its step grid."""
    runs = {}
    for solver, options in QUADRATURE.items():
        for output in ("every step", "dt_out = 5 dt", "dt_out off the grid", "t_eval"):
            runs[solver, output] = midpoint_model.simulate(T_END, solver=solver, **options,
                                                           **_outputs(output, T_END))
    return runs


def _rows_only_balance(res):
    """The balance of ``res`` with the work of the trapezoidal rule over its rows alone
    (:meth:`~phmech.result.Result.energy_balance` of a result without a work record)."""
    record, res.work = res.work, None
    try:
        return res.energy_balance()
    finally:
        res.work = record


@pytest.mark.parametrize("output", ["dt_out = 5 dt", "dt_out off the grid", "t_eval"])
@pytest.mark.parametrize("solver", QUADRATURE)
def test_quadrature_work_rows_interpolate_the_step_balance(quadrature_runs, solver, output):
    """Radau IIA and generalized-alpha record the work by a quadrature of the power over each
    step (:class:`phmech.solvers.base.QuadratureWork`): a row between step points has the
    linear interpolant of the balance at the step points of the run of every step (the same
    steps), so coarse or scattered output rows no longer add the error of a trapezoidal rule
    over the rows."""
    full, res = quadrature_runs[solver, "every step"], quadrature_runs[solver, output]
    assert res.work is not None and full.stats["nsteps"] == res.stats["nsteps"]
    want = np.interp(res.t, full.t, full.energy_balance())
    assert np.max(np.abs(res.energy_balance() - (want - want[0]))) <= _roundoff(res) + _roundoff(full)
    # the trapezoidal rule over the rows alone misses the work between them by far more
    rows_only = _rows_only_balance(res)
    assert np.max(np.abs(rows_only)) > 10 * np.max(np.abs(res.energy_balance()))


def _final_balance(model, solver, **options):
    res = model.simulate(T_END, solver=solver, dt_out=T_END / 7, **options)
    return abs(res.energy_balance()[-1]), res


def test_genalpha_balance_converges_at_second_order(midpoint_model):
    """Generalized-alpha (rho_inf = 0.8) has no exact discrete power balance: at the end of the
    run (a row off the step grid) ``H - H0 - W`` is its energy error, of second order in the
    step (log2 ratios over three halvings)."""
    errors = [_final_balance(midpoint_model, "genalpha", dt=4e-4 / 2 ** k, rho_inf=0.8)[0] for k in range(4)]
    rates = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(np.abs(rates - 2.0) < 0.3), (errors, rates)


def test_radau_balance_follows_its_stages(midpoint_model):
    """Radau IIA with fixed steps: at the collocation nodes the power is ``dH/dt`` of the
    collocation polynomial, so the work of the Radau quadrature closes the balance of a step
    to the quadrature error of a degree-5 polynomial, ``O(h^6)`` per step and ``O(h^5)`` over
    the run (log2 ratios at least 4.5 over three halvings, above round-off; measured 5.0)."""
    errors = []
    for k in range(4):      # a tight Newton tolerance (from rtol), so that its error stays below the balance's
        err, res = _final_balance(midpoint_model, "radau", fixed_step=T_END / (16 * 2 ** k), rtol=1e-10,
                                  atol=1e-10)
        errors.append(err)
    assert errors[-1] > 10 * _roundoff(res), errors
    rates = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(rates > 4.5), (errors, rates)


ASSIMULO = ("ida", "radau5")


@pytest.mark.parametrize("output", ["dt_out = 5 dt", "dt_out off the grid", "t_eval"])
@pytest.mark.parametrize("solver", ASSIMULO)
def test_assimulo_runs_integrate_the_work(midpoint_model, solver, output):
    """IDA and Radau5DAE integrate the work ``W' = P`` beside the state (one more differential
    variable): at coarse or scattered rows the balance stays at the method's error, bounded by
    its tolerance times the energy (over the run's steps), far below that of a trapezoidal rule
    over the rows."""
    pytest.importorskip("assimulo")
    tol = 1e-8
    res = midpoint_model.simulate(T_END, solver=solver, rtol=tol, atol=tol, **_outputs(output, T_END))
    assert res.work is not None and res.work.shape == res.t.shape
    balance = np.max(np.abs(res.energy_balance()))
    assert balance <= 1e3 * tol * np.max(res.hamiltonian()), balance
    rows_only = _rows_only_balance(res)
    assert np.max(np.abs(rows_only)) > 10 * balance

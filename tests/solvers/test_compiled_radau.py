"""Radau IIA's compiled stage iteration on assembled systems (phmech.solvers.radau_kernels)
reproduces the Python iteration, and keeps the method's order."""
import numpy as np
import pytest

from phmech.kernels.jit import numba
from phmech.solvers.radau import RadauIIA

from tests.mechanisms import L1, L2, OMEGA, rigid_crank_slider

pytestmark = pytest.mark.skipif(numba is None, reason="numba is not installed")


def _loaded_crank_slider():
    """Gravity, a body-frame force and an inertial moment with time histories: the loads'
    inputs differ between the stage times."""
    s, crank, coupler, slider = rigid_crank_slider()
    s.add_gravity((0.0, -9.81))
    s.apply_force(coupler.port("B"), lambda t: (40 * np.sin(300 * t), 5.0), frame="body", name="push")
    s.apply_moment(coupler.port("A"), lambda t: 2.0 * np.cos(200 * t), name="twist")
    return s


def _model(name):
    from phmech.mechanisms import flexible_crank_slider, hinged_spatial_beam
    return {"rigid crank-slider": lambda: rigid_crank_slider()[0],
            "loaded crank-slider": _loaded_crank_slider,
            "floating-frame crank-slider": lambda: flexible_crank_slider(4, geometric_stiffness=False)[0],
            "hinged spatial beam": lambda: hinged_spatial_beam(2)[0]}[name]()


@pytest.mark.parametrize("model, t_end", [("rigid crank-slider", 0.02), ("loaded crank-slider", 0.02),
                                          ("floating-frame crank-slider", 0.005),
                                          ("hinged spatial beam", 0.02)])
def test_compiled_radau_equals_python_radau(model, t_end):
    """Same steps (nsteps, nreject, nfev, nlu) and the same solution to round-off at common
    output times (the step sizes themselves agree to ~1e-10 only: the error estimate that
    sets them is a difference of nearly equal numbers).  The Jacobian count may differ: the
    refresh test compares the contraction with 1e-3, and on the first tiny steps the
    contraction is a ratio of round-off sized increments."""
    s = _model(model)
    dae = s.assemble()
    assert RadauIIA(dae, 0.0, dae.initial_state(), 1.0)._kernel is not None    # the compiled path runs
    assert RadauIIA(dae, 0.0, dae.initial_state(), 1.0, compiled=False)._kernel is None
    t_eval = np.linspace(0.0, t_end, 41)
    runs = [_model(model).simulate(t_end, solver="radau", rtol=1e-6, atol=1e-6, compiled=c, t_eval=t_eval)
            for c in (True, False)]
    a, b = runs
    for k in ("nsteps", "nreject", "nfev", "nlu"):
        assert a.stats[k] == b.stats[k], k
    assert a.stats["nsteps"] >= 20
    # per component, relative to its largest value (floored at 1e-6 of the largest state)
    scale = np.maximum(np.max(np.abs(b.y), axis=0), 1e-6 * np.max(np.abs(b.y)))
    assert np.max(np.abs(a.y - b.y) / scale) < 1e-10


def _driven_crank_slider():
    """The rigid crank-slider with a time-dependent crank speed ``omega(t) = OMEGA (1 + a sin bt)``:
    exact crank angle ``OMEGA (t + a (1 - cos bt) / b)`` and slider position."""
    a, b = 0.5, 40.0
    s, crank, coupler, slider = rigid_crank_slider()
    (drive,) = [j for j in s.joints if type(j).__name__ == "AngularVelocity"]
    s.joints.remove(drive)
    s.drive(crank, lambda t: OMEGA * (1 + a * np.sin(b * t)), rate=lambda t: OMEGA * a * b * np.cos(b * t))

    def x_exact(t):
        th = OMEGA * (t + a * (1 - np.cos(b * t)) / b)
        return L1 * np.cos(th) + np.sqrt(L2 ** 2 - (L1 * np.sin(th)) ** 2)
    return s, slider, x_exact


def test_compiled_radau_order_on_a_driven_mechanism():
    """Fixed steps on the crank-slider with a time-dependent drive (the prescribed velocity
    differs between the stage times): the slider position converges with order 5 (2s - 1)
    against the exact kinematics; three observed orders (step ratio 1.5) within 0.3."""
    t_end, errs = 0.03, []
    n_steps = np.array([48, 72, 108, 162])
    for n in n_steps:
        s, slider, x_exact = _driven_crank_slider()
        dae = s.assemble()
        assert RadauIIA(dae, 0.0, dae.initial_state(), t_end)._kernel is not None
        r = s.simulate(t_end, solver="radau", fixed_step=t_end / n, rtol=1e-9, atol=1e-9)
        assert r.stats["nsteps"] == n
        errs.append(abs(r.q(slider)[-1, 0] - x_exact(t_end)))
    errs = np.array(errs)
    rates = np.log(errs[:-1] / errs[1:]) / np.log(n_steps[1:] / n_steps[:-1])
    print(f"compiled radau, driven crank-slider: errors {np.array2string(errs, precision=3)}, "
          f"rates {np.round(rates, 3)}")
    assert np.all(np.abs(rates - 5) < 0.3), (errs, rates)


def test_dense_factors_equal_dense_lu_and_refuse_singular_matrices():
    """The compiled path's factorization (the same LAPACK getrf) gives DenseLU's factors and
    solutions, and refuses the same matrices: an exact zero pivot, and a matrix singular in
    exact arithmetic whose pivot is of rounding size."""
    from numpy.linalg import LinAlgError

    from phmech.solvers.radau_kernels import DenseFactors
    from phmech.solvers._dense import DenseLU
    rng = np.random.default_rng(3)
    A = rng.standard_normal((12, 12))
    for M in (A, A + 1j * rng.standard_normal((12, 12))):
        a, b = DenseFactors(M), DenseLU(M)
        assert np.array_equal(a.lu, b.lu) and np.array_equal(a.piv, b.piv)
        assert np.array_equal(a.lu_rm, b.lu) and a.lu_rm.flags.c_contiguous
        rhs = rng.standard_normal(12)
        x = a.solve(rhs)
        assert np.array_equal(x, b.solve(rhs)) and np.allclose(M @ x, rhs, rtol=0, atol=1e-12)
    rank2 = rng.standard_normal((5, 2)) @ rng.standard_normal((2, 5))     # pivots ~1e-16, no zero
    zero_column = np.array([[1.0, 0.0], [2.0, 0.0]])                       # getrf reports it
    for M in (rank2, rank2 * (1 + 1j), zero_column):
        for Factor in (DenseFactors, DenseLU):
            with pytest.raises(LinAlgError, match="singular matrix"):
                Factor(M)


def test_compiled_option_is_checked():
    dae = rigid_crank_slider()[0].assemble()
    with pytest.raises(ValueError, match=r"radau: option compiled must be True or False, got 'yes'"):
        RadauIIA(dae, 0.0, dae.initial_state(), 1.0, compiled="yes")


def _solve(problem, y0, t_end, **options):
    from phmech.solvers import solve
    return solve(problem, (0.0, t_end), y0, method="radau", **options)


@pytest.mark.parametrize("model", ["crank", "andrews"])
def test_compiled_runs_equal_single_compiled_steps(model):
    """Classic problems run as runs of many compiled steps (radau_runs.radau_steps); with a callback the
    driver sees every step (runs of one step, the solver's memory passed through Python in
    between): the same steps, counters and output bit for bit, at output times inside the runs
    (the collocation polynomial of each step) and at every step."""
    from phmech.validation import _classic_run as cr
    from phmech.validation._classic_models import AndrewsSqueezer, SimeonCrank
    m = SimeonCrank() if model == "crank" else AndrewsSqueezer()
    n = m.n_p
    y0 = m.consistent_state(0.0, m.y0[:n], m.y0[n:2 * n])
    atol = 1e-6 * (1e-4 if model == "crank" else 1.0)
    problem = m.index2_problem(compiled=True)
    seen = []
    for t_eval in (np.linspace(0.0, m.t_end, 37), None):
        runs = _solve(problem, y0, m.t_end, rtol=1e-6, atol=atol, t_eval=t_eval)
        single = _solve(problem, y0, m.t_end, rtol=1e-6, atol=atol, t_eval=t_eval,
                        callbacks=[lambda s: seen.append(s.t)])
        assert runs.stats["path"] == "compiled" and runs.stats["nsteps"] >= 100
        for k in ("nsteps", "nreject", "nfev", "njev", "nlu"):
            assert runs.stats[k] == single.stats[k], k
        assert np.array_equal(runs.t, single.t) and np.array_equal(runs.y, single.y)
    assert len(seen) == 2 * runs.stats["nsteps"]
    # and they meet the published reference solution (IVP test set) as the tolerance allows
    err = cr.errors(m, runs.y[-1])["positions"]["rel_err"]
    print(f"{model}: {runs.stats['nsteps']} steps, relative position error {err:.2e}")
    assert err < 1e-5


def test_compiled_runs_dense_output_is_each_steps_polynomial():
    """Output times inside a run come from the collocation polynomial of the step holding them:
    the same values as the single steps' dense output, to round-off of the polynomial's
    evaluation (1e-13 of the largest component)."""
    from phmech.validation._classic_models import SimeonCrank
    m = SimeonCrank()
    n = m.n_p
    y0 = m.consistent_state(0.0, m.y0[:n], m.y0[n:2 * n])
    problem = m.index2_problem(compiled=True)
    steps = _solve(problem, y0, 0.005, rtol=1e-6, atol=1e-10)
    t_eval = 0.5 * (steps.t[1:] + steps.t[:-1])           # the midpoints of all steps
    a = _solve(problem, y0, 0.005, rtol=1e-6, atol=1e-10, t_eval=t_eval)
    b = _solve(problem, y0, 0.005, rtol=1e-6, atol=1e-10, t_eval=t_eval, callbacks=[lambda s: None])
    scale = np.max(np.abs(steps.y), axis=0) + 1e-30
    assert np.max(np.abs(a.y - b.y) / scale) < 1e-13
    # between the step points and of the method's order: the midpoints lie between their neighbours
    # to the interpolation error of the crank angle (a smooth, monotone component)
    phi = steps.y[:, 0]
    mid = a.y[:, 0]
    lo, hi = np.minimum(phi[:-1], phi[1:]), np.maximum(phi[:-1], phi[1:])
    assert np.all((mid >= lo - 1e-12) & (mid <= hi + 1e-12))


def test_factor_pair_equals_lapack_and_refuses_singular_matrices():
    """The compiled runs' factorization of both iteration matrices (partial pivoting, the
    elimination of the midpoint rule's dense step) solves like LAPACK's factors and refuses
    the matrices DenseFactors refuses."""
    from phmech.solvers.radau import ALPHA, BETA, GAMMA
    from phmech.solvers.radau_runs import RadauData
    from phmech.solvers._newton import lu_solve
    from phmech.solvers._dense import DenseLU
    rng = np.random.default_rng(5)
    n, h = 14, 1e-3
    E = np.diag(np.r_[np.ones(10), np.zeros(4)])
    J = rng.standard_normal((n, n))
    ops = RadauData.of(None, E)
    ops.J[:] = J
    assert ops.factor(h, GAMMA, ALPHA, BETA) == 0
    b = rng.standard_normal(n)
    for (lu, piv), M in (((ops.lur, ops.pivr), GAMMA / h * E - J),
                         ((ops.luc, ops.pivc), (ALPHA - 1j * BETA) / h * E - J)):
        x = lu_solve(lu, piv, b.astype(lu.dtype))
        ref = DenseLU(M).solve(b)
        assert np.max(np.abs(x - ref)) < 1e-12 * np.max(np.abs(ref))
        assert np.max(np.abs(M @ x - b)) < 1e-10
    # the constraint block of rank 2: the iteration matrices are singular (pivot of rounding size)
    J[10:, :] = 0.0
    J[:, 10:] = 0.0
    J[10:12, :10] = rng.standard_normal((2, 10))
    J[:10, 10:12] = -J[10:12, :10].T
    J[12, :10] = J[10, :10] + J[11, :10]
    J[:10, 12] = -J[12, :10]
    ops.J[:] = J
    assert ops.factor(h, GAMMA, ALPHA, BETA) == 1

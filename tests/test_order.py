"""Observed orders of the integrators, parametrized over (solver, expected order).

Errors against exact solutions at the final time over four step sizes; the
observed order is the log2 ratio of successive errors (three ratios)."""
import numpy as np
import pytest

from phmech.problem import DAEProblem
from phmech.solvers import solve

from mechanisms import rigid_crank_slider, slider_position_exact

T_END = 1.0


def oscillator():
    """ODE ``y1' = y2, y2' = -y1 + y1^3/10`` ... kept linear-plus-forcing: exact ``y = (sin 2t, 2 cos 2t)``."""
    def f(t, y):
        return np.array([y[1], -4.0 * y[0]])
    jac = lambda t, y: np.array([[0.0, 1.0], [-4.0, 0.0]])
    exact = lambda t: np.array([np.sin(2 * t), 2 * np.cos(2 * t)])
    return DAEProblem(np.eye(2), f, jac), exact(0.0), exact, slice(0, 2)


def index2():
    """Semi-explicit index-2 DAE with exact solution ``y1 = sin t``, ``y2 = cos 2t``, ``z = exp(-t)``:
    ``y1' = y2 + y1 z + r1``, ``y2' = -y1 + r2``, ``0 = y1 - sin t`` (``G = [1, 0]``, ``G B = y1`` ... regular
    since the multiplier enters through the column ``(y1 + 1, 0)``)."""
    def r(t):
        y1, y2, z = np.sin(t), np.cos(2 * t), np.exp(-t)
        return np.cos(t) - y2 - (y1 + 1.0) * z, -2 * np.sin(2 * t) + y1

    def f(t, y):
        r1, r2 = r(t)
        return np.array([y[1] + (y[0] + 1.0) * y[2] + r1, -y[0] + r2, np.sin(t) - y[0]])

    def jac(t, y):
        return np.array([[y[2], 1.0, y[0] + 1.0], [-1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]])
    exact = lambda t: np.array([np.sin(t), np.cos(2 * t), np.exp(-t)])
    E = np.diag([1.0, 1.0, 0.0])
    return DAEProblem(E, f, jac, n_alg=1), exact(0.0), exact, slice(0, 3)


def observed(errors):
    e = np.asarray(errors)
    return np.log2(e[:-1] / e[1:])


@pytest.mark.parametrize("problem, method, part, order", [
    (oscillator, "midpoint", slice(0, 2), 2),
    (oscillator, "radau", slice(0, 2), 5),
    (index2, "midpoint", slice(0, 2), 2),
    (index2, "radau", slice(0, 2), 5),
    (index2, "radau", slice(2, 3), 3),
])
def test_order_on_exact_solutions(problem, method, part, order):
    prob, y0, exact, _ = problem()
    errs = []
    steps = [0.1, 0.05, 0.025, 0.0125] if method == "radau" else [0.02, 0.01, 0.005, 0.0025]
    for h in steps:
        opts = dict(fixed_step=h, rtol=1e-10, atol=1e-10) if method == "radau" else dict(dt=h)
        r = solve(prob, (0.0, T_END), y0, method=method, **opts)
        errs.append(np.max(np.abs(r.y[-1][part] - exact(T_END)[part])))
    rates = observed(errs)
    print(method, problem.__name__, part, errs, rates)
    assert np.all(np.abs(rates - order) < 0.35), (errs, rates)


def test_midpoint_order_on_a_mechanism():
    errs = []
    for dt in (4e-4, 2e-4, 1e-4, 5e-5):
        s, crank, coupler, slider = rigid_crank_slider()
        r = s.simulate(0.01, dt=dt, constraints="endpoint")
        errs.append(abs(r.q(slider)[-1, 0] - slider_position_exact(r.t[-1])))
    rates = observed(errs)
    assert np.all(np.abs(rates - 2) < 0.2), (errs, rates)

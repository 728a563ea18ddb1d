"""Observed orders of the integrators, parametrized over (problem, solver, part, expected order).

Each case integrates a problem with a known solution over four step sizes
(halved each time, fixed steps) and measures the observed order as the
log2 ratio of successive errors at the final time: three ratios, each
within 0.3 of the expected order.

* implicit midpoint rule: order 2 (an ODE, a semi-explicit index-2 DAE,
  and a mechanism assembled with :class:`phmech.System` against its exact
  kinematics);
* Radau IIA (3 stages): order 5 = 2s - 1 for ODEs and for the
  differential components of an index-2 DAE, order 3 = s for its
  algebraic component (Hairer & Wanner, Solving ODEs II, VII.4).
"""
import numpy as np
import pytest

from phmech.solvers.problem import DAEProblem
from phmech.solvers import solve

from mechanisms import rigid_crank_slider, slider_position_exact

T_END = 1.0
MARGIN = 0.3


def oscillator():
    """Linear ODE ``y1' = y2, y2' = -4 y1``; exact ``y = (sin 2t, 2 cos 2t)``."""
    def f(t, y):
        return np.array([y[1], -4.0 * y[0]])

    def jac(t, y):
        return np.array([[0.0, 1.0], [-4.0, 0.0]])

    def exact(t):
        return np.array([np.sin(2 * t), 2 * np.cos(2 * t)])
    return DAEProblem(np.eye(2), f, jac), exact


def forced_pendulum():
    """Nonlinear ODE ``y1' = y2, y2' = -sin(y1) - y1 y2 + r(t)`` with ``r`` such that
    ``y = (sin 2t, 2 cos 2t)`` is exact."""
    def r(t):
        y1, y2 = np.sin(2 * t), 2 * np.cos(2 * t)
        return -4 * np.sin(2 * t) + np.sin(y1) + y1 * y2

    def f(t, y):
        return np.array([y[1], -np.sin(y[0]) - y[0] * y[1] + r(t)])

    def jac(t, y):
        return np.array([[0.0, 1.0], [-np.cos(y[0]) - y[1], -y[0]]])

    def exact(t):
        return np.array([np.sin(2 * t), 2 * np.cos(2 * t)])
    return DAEProblem(np.eye(2), f, jac), exact


def index2():
    """Semi-explicit index-2 DAE with the exact solution ``y1 = sin t``, ``y2 = cos 2t``, ``z = exp(-t)``.

    ``y1' = y2 + (y1 + 1) z + r1(t)``, ``y2' = -y1 + r2(t)``, ``0 = sin t - y1``:
    the constraint ``g = sin t - y1`` has ``g_y f_z = -(y1 + 1)``, nonzero
    along the solution (``y1 >= 0`` on ``[0, 1]``), so ``z`` is an index-2
    variable; ``r1``, ``r2`` are chosen to make the functions above exact.
    """
    def r(t):
        y1, y2, z = np.sin(t), np.cos(2 * t), np.exp(-t)
        return np.cos(t) - y2 - (y1 + 1.0) * z, -2 * np.sin(2 * t) + y1

    def f(t, y):
        r1, r2 = r(t)
        return np.array([y[1] + (y[0] + 1.0) * y[2] + r1, -y[0] + r2, np.sin(t) - y[0]])

    def jac(t, y):
        return np.array([[y[2], 1.0, y[0] + 1.0], [-1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]])

    def exact(t):
        return np.array([np.sin(t), np.cos(2 * t), np.exp(-t)])
    return DAEProblem(np.diag([1.0, 1.0, 0.0]), f, jac, n_alg=1), exact


def observed(errors):
    """log2 ratios of successive errors (the step is halved each time)."""
    e = np.asarray(errors)
    return np.log2(e[:-1] / e[1:])


DIFF, ALG = slice(0, 2), slice(2, 3)


@pytest.mark.parametrize("problem, method, part, order", [
    (oscillator, "midpoint", DIFF, 2),
    (forced_pendulum, "midpoint", DIFF, 2),
    (index2, "midpoint", DIFF, 2),
    (oscillator, "radau", DIFF, 5),
    (forced_pendulum, "radau", DIFF, 5),
    (index2, "radau", DIFF, 5),
    (index2, "radau", ALG, 3),
])
def test_order_on_exact_solutions(problem, method, part, order):
    prob, exact = problem()
    y0 = exact(0.0)
    errs = []
    steps = [0.1, 0.05, 0.025, 0.0125] if method == "radau" else [0.02, 0.01, 0.005, 0.0025]
    for h in steps:
        opts = dict(fixed_step=h, rtol=1e-10, atol=1e-10) if method == "radau" else dict(dt=h)
        r = solve(prob, (0.0, T_END), y0, method=method, **opts)
        assert r.t[-1] == T_END and r.stats["nsteps"] == round(T_END / h)
        errs.append(np.max(np.abs(r.y[-1][part] - exact(T_END)[part])))
    rates = observed(errs)
    print(f"{method} {problem.__name__} {'algebraic' if part == ALG else 'differential'}: "
          f"errors {np.array2string(np.array(errs), precision=3)}, rates {np.round(rates, 3)}")
    assert np.all(np.abs(rates - order) < MARGIN), (errs, rates)


@pytest.mark.parametrize("constraints", ["endpoint", "midpoint"])
def test_midpoint_order_on_a_mechanism(constraints):
    """The rigid crank-slider (``phmech.System``) against its exact slider position."""
    errs = []
    for dt in (4e-4, 2e-4, 1e-4, 5e-5):
        s, crank, coupler, slider = rigid_crank_slider()
        r = s.simulate(0.01, dt=dt, constraints=constraints)
        errs.append(abs(r.q(slider)[-1, 0] - slider_position_exact(r.t[-1])))
    rates = observed(errs)
    print(f"midpoint crank-slider ({constraints} constraints): errors "
          f"{np.array2string(np.array(errs), precision=3)}, rates {np.round(rates, 3)}")
    assert np.all(np.abs(rates - 2) < MARGIN), (errs, rates)

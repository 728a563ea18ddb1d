"""Generalized-alpha method: spectral properties (Chung & Hulbert 1993), second order with a
consistent start, first order without it, options and problem form."""
import functools

import numpy as np
import pytest
import scipy.sparse as sp

from phmech.solvers import SolverError, solve
from phmech.solvers.genalpha import SecondOrderProblem, amplification_matrix, parameters, spectral_properties


class Duffing(SecondOrderProblem):
    """``m q'' = -k q - eps q^3 - c q' + F cos(W t)`` per degree of freedom (no constraints)."""

    def __init__(self, m=1.0, k=1.0, eps=0.0, c=0.0, F=0.0, W=0.0, n=1):
        self.nq, self.nl = n, 0
        self.M = sp.identity(n, format="csr") * m
        self.k, self.eps, self.c, self.F, self.W = k, eps, c, F, W
        self._layout()

    def force(self, t, q, v):
        return -self.k * q - self.eps * q ** 3 - self.c * v + self.F * np.cos(self.W * t)

    def force_jacobians(self, t, q, v):
        return sp.diags(-self.k - 3 * self.eps * q ** 2), sp.diags(np.full(self.nq, -self.c))

    def g(self, q):
        return np.zeros(0)

    def G(self, q):
        return sp.csr_matrix((0, self.nq))

    def constraint_hessian(self, q, w):
        return sp.csr_matrix((self.nq, self.nq))

    def constraint_velocity_jacobian(self, q, v):
        return sp.csr_matrix((0, self.nq))

    def constraint_curvature(self, q, v):
        return np.zeros(0)

    def labels(self):
        return [f"q{i}" for i in range(self.nq)] + [f"v{i}" for i in range(self.nq)]


@pytest.mark.parametrize("rho", [0.0, 0.3, 0.5, 0.8, 1.0])
def test_spectral_radius_at_infinity(rho):
    r, _, _ = spectral_properties(1e9, rho)
    assert r == pytest.approx(rho, abs=1e-5)
    am, af, g, b = parameters(rho)
    assert g == pytest.approx(0.5 - am + af) and b == pytest.approx(0.25 * (1 - am + af) ** 2)


def test_trapezoidal_limit():
    """rho_inf = 1 is the trapezoidal rule: no damping, Omega_bar = 2 atan(Omega/2)."""
    for W in (0.1, 0.5, 2.0):
        r, xi, pe = spectral_properties(W, 1.0)
        assert r == pytest.approx(1.0, abs=1e-12) and abs(xi) < 1e-12
        assert pe == pytest.approx(W / (2 * np.arctan(W / 2)) - 1, rel=1e-10)


@pytest.mark.parametrize("rho", [0.0, 0.5, 1.0])
def test_damping_and_period_leading_terms(rho):
    """Leading terms of Chung & Hulbert's damping ratio and period elongation, from the series of the
    principal root of their characteristic polynomial (eq. 21): ``ln z = i W (1 - c W^2) - xi_3 W^4``,
    ``xi_bar = (1 - rho)^3 / (2 (1 + rho)^3) W^3``, ``T_bar/T - 1 = (11 rho^2 - 14 rho + 11) / (24 (1 + rho)^2) W^2``;
    the relative deviation of the exact values (eq. 24) shrinks like W^2."""
    dev = []
    for W in (0.1, 0.05):
        _, xi, pe = spectral_properties(W, rho)
        xi_lead = (1 - rho) ** 3 / (2 * (1 + rho) ** 3) * W ** 3
        pe_lead = (11 * rho ** 2 - 14 * rho + 11) / (24 * (1 + rho) ** 2) * W ** 2
        dev.append([abs(pe / pe_lead - 1), abs(xi / xi_lead - 1) if xi_lead else abs(xi)])
    dev = np.array(dev)
    assert np.all(dev[0] < 0.05)
    assert np.all((dev[1] < dev[0] / 3.5) | (dev[1] < 1e-12))


@pytest.mark.parametrize("rho", [0.0, 0.5, 1.0])
def test_simulated_damping_and_period_match_amplification_matrix(rho):
    """Single-dof oscillator at omega h = 0.1: decay per period and period from the simulation
    against the damping ratio and period elongation of Chung & Hulbert's amplification matrix."""
    Wh, w = 0.1, 2 * np.pi
    h = Wh / w
    n_per = 40
    prob = Duffing(k=w ** 2)
    res = solve(prob, (0.0, n_per * 2 * np.pi / w * 1.05), np.array([1.0, 0.0]), method="genalpha", dt=h,
                rho_inf=rho)
    q = res.y[:, 0]
    rho_s, xi, pe = spectral_properties(Wh, rho)
    # upward zero crossings -> numerical period
    k = np.flatnonzero((q[:-1] < 0) & (q[1:] >= 0))
    tc = res.t[k] - q[k] * (res.t[k + 1] - res.t[k]) / (q[k + 1] - q[k])
    T_num = (tc[-1] - tc[0]) / (len(tc) - 1)
    assert (T_num * w / (2 * np.pi) - 1) == pytest.approx(pe, rel=0.02, abs=2e-6)
    # amplitude decay: |z_n| ~ exp(-xi Omega_bar n) with Omega_bar = Omega / (1 + pe)
    E = 0.5 * res.y[:, 1] ** 2 + 0.5 * w ** 2 * q ** 2
    n = len(res.t) - 1
    xi_num = -np.log(E[-1] / E[0]) / (2 * n * Wh / (1 + pe))
    assert xi_num == pytest.approx(xi, rel=0.05, abs=1e-7)
    if rho < 1:
        assert xi > 0


@functools.lru_cache(maxsize=1)
def _duffing_reference():
    prob = Duffing(k=4.0, eps=2.0, c=0.1, F=1.0, W=1.3)
    return solve(prob, (0.0, 2.0), np.array([0.5, 0.2]), method="radau", rtol=1e-12, atol=1e-12).y[-1, 0]


def _duffing_error(rho, steps, consistent=True):
    prob = Duffing(k=4.0, eps=2.0, c=0.1, F=1.0, W=1.3)
    y0 = np.array([0.5, 0.2])
    acc0 = None if consistent else (np.zeros(1), np.zeros(1))
    res = solve(prob, (0.0, 2.0), y0, method="genalpha", dt=2.0 / steps, rho_inf=rho, acc0=acc0)
    return abs(res.y[-1, 0] - _duffing_reference())


@pytest.mark.parametrize("rho", [0.0, 0.5, 1.0])
def test_second_order_unconstrained(rho):
    errs = [_duffing_error(rho, n) for n in (50, 100, 200, 400)]
    rates = np.log2(np.array(errs[:-1]) / errs[1:])
    print("rho", rho, "errors", errs, "rates", rates)
    assert np.all(rates > 1.7) and np.all(rates < 2.3)


def test_zero_initial_acceleration_is_first_order():
    """The reason for the consistent start: with a0 = qdd0 = 0 the method is first order for rho_inf < 1."""
    errs = [_duffing_error(0.5, n, consistent=False) for n in (100, 200, 400, 800)]
    rates = np.log2(np.array(errs[:-1]) / errs[1:])
    assert np.all(np.abs(rates - 1.0) < 0.2)


def test_dense_output_third_order_in_position():
    prob = Duffing(k=4.0)
    t = np.linspace(0, 1, 7)[1:-1]
    errs = []
    for n in (20, 40, 80):
        res = solve(prob, (0.0, 1.0), np.array([1.0, 0.0]), method="genalpha", dt=1.0 / n, rho_inf=1.0,
                    t_eval=np.r_[0, t, 1.0])
        errs.append(np.max(np.abs(res.y[1:-1, 0] - np.cos(2 * t))))
    rates = np.log2(np.array(errs[:-1]) / errs[1:])
    assert np.all(rates > 1.8)


def test_options_are_checked():
    prob = Duffing()
    y0 = np.array([1.0, 0.0])
    for bad in (-0.1, 1.5, "x"):
        with pytest.raises(ValueError, match="rho_inf"):
            solve(prob, (0, 1), y0, method="genalpha", dt=0.1, rho_inf=bad)
    with pytest.raises(ValueError, match="dt"):
        solve(prob, (0, 1), y0, method="genalpha")
    with pytest.raises(ValueError, match="unknown option"):
        solve(prob, (0, 1), y0, method="genalpha", dt=0.1, alpha=0.3)


def test_other_objects_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="neither a second-order problem"):
        solve(object(), (0, 1), np.ones(2), method="genalpha", dt=0.1)


@pytest.mark.parametrize("rho", [0.0, 0.5, 1.0])
def test_first_order_form_second_order_on_index2_dae(rho):
    """First-order form (Jansen, Whiting & Hulbert 2000) on the index-2 DAE of the order tests:
    second order in the differential and in the algebraic variable."""
    from test_order import index2
    prob, exact = index2()
    errs = []
    te = np.linspace(0.0, 1.0, 7)                  # between step points: the dense output
    for n in (20, 40, 80, 160):
        res = solve(prob, (0.0, 1.0), exact(0.0), method="genalpha", dt=1.0 / n, rho_inf=rho, t_eval=te)
        errs.append(np.max(np.abs(res.y - np.array([exact(t) for t in te])), axis=0)[[1, 2]])
    rates = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    # the output times sit at other fractions of a step at each refinement: rates vary around 2
    assert np.all(rates > 1.6) and np.all(rates < 2.4) and np.all(np.abs(rates.mean(axis=0) - 2) < 0.15)


def test_first_order_form_on_an_assembled_mechanism():
    """The pH descriptor DAE of a pinned rod under gravity: second order in q, e and lam against
    Radau IIA, with the compiled Newton iteration and with the Python one."""
    from mechanisms import pendulum
    from phmech.solvers.genalpha import GeneralizedAlpha
    _, _, dae, e0 = pendulum()
    y0 = dae.initial_state(0.0, e0=e0)
    ref = solve(dae, (0.0, 1.0), y0, method="radau", rtol=1e-12, atol=1e-12)
    for compiled in (True, False):
        kernel = GeneralizedAlpha(dae, 0.0, y0, 1.0, dt=0.01, compiled=compiled)._kernel
        assert (kernel is not None) == (compiled and dae.compiled_residual() is not None)
        errs = []
        for n in (50, 100, 200, 400):
            res = solve(dae, (0.0, 1.0), y0, method="genalpha", dt=1.0 / n, rho_inf=0.8, compiled=compiled)
            errs.append([np.max(np.abs(res.y[-1, s] - ref.y[-1, s])) for s in (dae.sq, dae.se, dae.sl)])
            assert np.max(np.abs(res.constraint_residual())) < 1e-9
        rates = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
        assert np.all(rates > 1.9) and np.all(rates < 2.1)


@pytest.mark.parametrize("rho", [0.0, 0.5, 1.0])
def test_first_order_spectral_radius_at_infinity(rho):
    """y' = -w y, w h = 1e9: the one-step map of (y, h y') built column by column from solver steps
    has spectral radius rho_inf (Jansen, Whiting & Hulbert 2000)."""
    from phmech.solvers.problem import DAEProblem
    from phmech.solvers.genalpha import GeneralizedAlpha
    w, h = 1e9, 1.0
    prob = DAEProblem(np.eye(1), lambda t, y: -w * y, lambda t, y: np.array([[-w]]))
    A = np.empty((2, 2))
    for k, (y0, yd0) in enumerate(((1.0, 0.0), (0.0, 1.0 / h))):
        s = GeneralizedAlpha(prob, 0.0, np.array([y0]), 10.0, dt=h, rho_inf=rho, acc0=(np.array([yd0]),) * 2)
        s.step()
        A[:, k] = s.y[0], h * s.xd[0]
    assert np.max(np.abs(np.linalg.eigvals(A))) == pytest.approx(rho, abs=1e-4)


def test_failure_reports_time():
    prob = Duffing(k=1.0, eps=1e6)
    with pytest.raises(SolverError, match="genalpha failed at t"):
        solve(prob, (0, 1), np.array([10.0, 0.0]), method="genalpha", dt=0.5, max_newton=3)


def test_amplification_matrix_against_one_simulated_step():
    """The amplification matrix (independent code) reproduces one step of the solver."""
    prob = Duffing(k=9.0)
    for rho in (0.0, 0.6, 1.0):
        h = 0.07
        res = solve(prob, (0.0, h), np.array([0.3, -0.4]), method="genalpha", dt=h, rho_inf=rho)
        A = amplification_matrix(3.0 * h, rho)
        x1 = A @ np.array([0.3, -0.4 * h, -9.0 * 0.3 * h * h])
        assert res.y[-1, 0] == pytest.approx(x1[0], rel=1e-9)
        assert res.y[-1, 1] * h == pytest.approx(x1[1], rel=1e-9)

"""The nonsmooth generalized-alpha method in smooth phases with persistent contact: second order
of the motion and of the energy account, the three-level contact laws at the solution, and
Jellett's invariant of the tippe top."""
import numpy as np
import pytest

from phmech.contact import simulate
from phmech.solvers import prox_levels
from phmech.solvers.prox import ContactSet
from phmech.validation import tippe_top as tt

D0 = tt.DATA
#: the top touching the table exactly at t = 0 (consistent start on the contact)
TOUCH = dict(z0=D0["r1"] - D0["a1"] * np.cos(D0["tilt"]))
STEPS = (4e-4, 2e-4, 1e-4, 5e-5)


@pytest.fixture(scope="module")
def top_runs():
    out = {}
    for h in STEPS:
        p, y0 = tt.model(**TOUCH)
        out[h] = simulate(p, (0.0, 0.02), y0, method="nsgenalpha", dt=h, dt_out=2e-3)
    return out


def test_tippe_top_second_order(top_runs):
    """Persistent sliding contact with Coulomb--Contensou friction, gyroscopic terms and a rotating
    contact normal in the body (``zeta != 0``): the differences of the states at h, h/2, h/4, h/8
    fall with log2 ratios of 2 (three halvings)."""
    y = [top_runs[h].y[:, :13] for h in STEPS]
    d = [np.max(np.abs(a - b)) for a, b in zip(y, y[1:])]
    rates = np.log2(np.array(d[:-1]) / d[1:])
    assert np.all((rates > 1.8) & (rates < 2.2)), rates
    # the contact stays closed and carries the weight
    res = top_runs[STEPS[-1]]
    PN = res.steps["P_N"][1:, 0] / np.diff(res.t)             # mean normal force of each output interval
    assert np.all(PN > 0) and abs(PN[-1] / (D0["m"] * D0["g"]) - 1) < 0.05


def test_tippe_top_energy_account_second_order(top_runs):
    """``H(t) - H(0) - work_in + dissipated``: log2 ratios of 2 over three halvings."""
    e = np.array([np.max(np.abs(top_runs[h].energy_balance())) for h in STEPS])
    rates = np.log2(e[:-1] / e[1:])
    assert np.all((rates > 1.8) & (rates < 2.2)), (e, rates)
    assert e[0] < 1e-6 * top_runs[STEPS[0]].hamiltonian()[0]
    assert np.all(top_runs[STEPS[-1]].dissipated[1:, 0] > 0)


@pytest.mark.parametrize("solver", ["nsgenalpha", "moreau"])
def test_jellett_invariant(solver):
    """Coulomb friction only (Contensou radius 0): ``L . (a1 e3 - r1 ez)`` is an invariant of the
    motion on the big sphere; the schemes keep it to second order (ratio 4 per halving), although
    the tilt changes."""
    ch = {**TOUCH, "r_c": 0.0}
    drift = []
    for h in (4e-4, 2e-4, 1e-4):
        res = tt.run(t_end=0.02, dt=h, solver=solver, dt_out=2e-3, model_changes=ch)
        J = res.jellett[:, 0]
        drift.append(np.max(np.abs(J - J[0])) / abs(J[0]))
    rates = np.log2(np.array(drift[:-1]) / drift[1:])
    assert drift[0] < 1e-5 and np.all(rates > 1.7), (drift, rates)


def test_levels_laws_at_the_solution():
    """A random three-level problem with two contacts (one with Contensou friction), with the
    structure of a step: at the solution (semismooth Newton; here, from a cold start, its
    iterates cycle between index sets and the projected Gauss--Seidel fallback converges) each law holds (complementarity on the three levels, friction in its disc and
    opposing the sliding velocity) and the Newton Jacobian matches finite differences."""
    rng = np.random.default_rng(3)
    cs = ContactSet([0.3, 0.5], [2, 3])
    lv = prox_levels.Levels(cs)
    # the structure of a step (h = 1e-2, rho_inf = 0.8, no velocity-dependent forces): a = M^-1 (f +
    # W lam), U = M^-1 W (P - h lam), Q = M^-1 W_N (kappa_hat - h^2/2 lam_N)
    h, cv, cd = 1e-2, 0.7e-2 * 1.1, 0.35e-4 * 1.1
    ne, m = 12, cs.m
    A = rng.normal(size=(ne, ne))
    Minv = np.linalg.inv(A @ A.T + ne * np.eye(ne))
    W = rng.normal(size=(ne, cs.n))
    WN = W[:, :m]
    Ea, EU, EQ = np.zeros((cs.n, lv.N)), np.zeros((cs.n, lv.N)), np.zeros((m, lv.N))
    Ea[:, lv.L] = np.eye(cs.n)
    EU[:, lv.P], EU[:, lv.L] = np.eye(cs.n), -h * np.eye(cs.n)
    EQ[:, lv.K], EQ[:, lv.L[:m]] = np.eye(m), -0.5 * h * h * np.eye(m)
    Za, ZU, ZQ = Minv @ W @ Ea, Minv @ W @ EU, Minv @ WN @ EQ
    D = np.vstack([WN.T @ (cd * Za + ZQ), W.T @ (cv * Za + ZU), W.T @ Za])
    Y0 = rng.normal(size=lv.N)
    Y0[lv.K] = [-1e-3, -2e-3]                    # both gaps penetrate: closed
    Y0[lv.P[:2]] = [-1.0, -0.5]                  # approaching
    Y0[lv.L[:2]] = [-10.0, -5.0]                 # pressed on
    X, it, sw = prox_levels.solve(Y0, D, lv)
    Y = Y0 + D @ X
    K, P, L = X[lv.K], X[lv.P], X[lv.L]
    g, xi, acc = Y[lv.K], Y[lv.P], Y[lv.L]
    assert np.all(K >= -1e-12) and np.all(np.abs(g) < 1e-10)
    assert np.all(P[:2] >= -1e-12) and np.all(np.abs(P[:2] * xi[:2]) < 1e-10)
    assert np.all(L[:2] >= -1e-12) and np.all(np.abs(L[:2] * acc[:2]) < 1e-10)
    for k in range(2):
        F = cs.F[k]
        nP, nxi = np.linalg.norm(P[F]), np.linalg.norm(xi[F])
        assert nP <= cs.mu[k] * P[k] + 1e-10
        if nxi > 1e-9:
            assert abs(nP - cs.mu[k] * P[k]) < 1e-10
            assert np.allclose(P[F] / nP, -xi[F] / nxi, atol=1e-8)
    # Jacobian against central differences at a generic point
    r = prox_levels.parameters(D, lv)
    Xg = X + 0.01 * rng.normal(size=lv.N)
    _, J = prox_levels.residual(Xg, Y0, D, lv, r, jac=True)
    eps = 1e-7
    Jfd = np.column_stack([(prox_levels.residual(Xg + eps * e, Y0, D, lv, r)
                            - prox_levels.residual(Xg - eps * e, Y0, D, lv, r)) / (2 * eps)
                           for e in np.eye(lv.N)])
    assert np.max(np.abs(J - Jfd)) < 1e-5


def test_rho_inf_is_checked():
    p, y0 = tt.model(**TOUCH)
    with pytest.raises(ValueError, match="rho_inf must lie in"):
        simulate(p, (0, 0.01), y0, method="nsgenalpha", dt=1e-3, rho_inf=-0.1)


def test_pendulum_second_order_and_no_drift():
    """The double pendulum before it reaches the wall (joints on acceleration, velocity and
    position level): angle errors against the event-driven reference and the energy account
    fall with log2 ratios of 2 over three halvings; the joints do not drift."""
    from phmech.validation import contact_cases as cc
    steps = (8e-3, 4e-3, 2e-3, 1e-3)
    ang, energy = [], []
    for h in steps:
        res = cc.run_pendulum(h, "nsgenalpha", t_end=0.45)
        assert res.errors["n_impacts"] == 0
        assert res.errors["position_drift"] < 1e-13
        ang.append(res.errors["angles"])
        energy.append(np.max(np.abs(res.energy_balance())))
    for e in (ang, energy):
        rates = np.log2(np.array(e[:-1]) / e[1:])
        assert np.all((rates > 1.8) & (rates < 2.2)), (e, rates)

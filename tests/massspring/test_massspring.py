"""Mass-spring networks: source API, exact Jacobians, input errors, restart, constrained accuracy and
stability, energy account, agreement with an independent integrator."""
import numpy as np
from conftest import central_differences
import pytest
from scipy.special import ellipj, ellipk

from phmech import massspring as ms
from phmech.solvers import solve


def random_net(dim=3, seed=0):
    rng = np.random.default_rng(seed)
    mss = ms.MassSpringSystem(dim)
    mss.gravity = rng.normal(size=dim)
    fx = [mss.add(ms.Fix(rng.normal(size=dim))) for _ in range(2)]
    m = [mss.add(ms.Mass(rng.uniform(0.5, 2), rng.normal(size=dim) * 2, vel=rng.normal(size=dim))) for _ in range(6)]
    nodes = fx + m
    for k in range(10):
        a, b = rng.choice(len(nodes), 2, replace=False)
        if a < 2 and b < 2:
            b = 5
        pa = [*mss.fixes, *mss.masses][a].pos
        pb = [*mss.fixes, *mss.masses][b].pos
        dist = np.linalg.norm(pb - pa)
        L = dist * (1.3 if k % 2 else 0.8)            # slack and taut chains
        cls = ms.Chain if k % 3 == 0 else ms.Spring
        mss.add(cls(L, rng.uniform(1, 10), (nodes[a], nodes[b])))
    for k in range(3):
        mss.add(ms.Dashpot(rng.uniform(0.1, 1), (m[k], m[k + 3])))
    for k in range(3):
        mss.add(ms.DistanceConstraint(1.0, (m[2 * k], m[2 * k + 1] if k else fx[0])))
    return mss


def fd_matrix(fun, x, h=1e-6):
    return central_differences(fun, x, h)


@pytest.mark.parametrize("dim", [2, 3])
def test_exact_jacobians_against_finite_differences(dim):
    mss = random_net(dim)
    prob = mss.problem()
    q, v = mss.state()
    rng = np.random.default_rng(1)
    w = rng.normal(size=prob.nl)
    K, C = prob.force_jacobians(0.0, q, v)
    assert np.allclose(K.toarray(), fd_matrix(lambda x: prob.force(0, x, v), q), atol=1e-6)
    assert np.allclose(C.toarray(), fd_matrix(lambda x: prob.force(0, q, x), v), atol=1e-6)
    assert np.allclose(prob.G(q).toarray(), fd_matrix(prob.g, q), atol=1e-7)
    assert np.allclose(prob.constraint_hessian(q, w).toarray(), fd_matrix(lambda x: prob.G(x).T @ w, q), atol=1e-6)
    assert np.allclose(prob.constraint_velocity_jacobian(q, v).toarray(), fd_matrix(lambda x: prob.G(x) @ v, q),
                       atol=1e-6)
    # (G v)' = G qdd + curvature, along q(s) = q + s v + s^2/2 a
    a = rng.normal(size=len(q))
    s = 1e-5
    dGv = (prob.G(q + s * v + s * s / 2 * a) @ (v + s * a) - prob.G(q - s * v + s * s / 2 * a) @ (v - s * a)) / (2 * s)
    assert np.allclose(dGv, prob.G(q) @ a + prob.constraint_curvature(q, v), atol=1e-6)
    # the first-order form used by the other solvers
    y = np.r_[q, v, w]
    assert np.allclose(prob.jacobian(0.0, y).toarray(), fd_matrix(lambda x: prob.f(0.0, x), y), atol=1e-6)
    # material + geometric spring stiffness: some chains slack, some taut
    L, n, T, k_act = prob.net.spring_state(q)
    assert np.any((k_act == 0)) and np.any(k_act > 0)


def test_chain_jacobian_on_both_sides_of_the_kink():
    mss = ms.MassSpringSystem2d()
    f = mss.add(ms.Fix([0, 0]))
    for x, expect_k in ((1.0 + 1e-3, 5.0), (1.0 - 1e-3, 0.0)):
        mss.masses.clear()
        mss.springs.clear()
        m = mss.add(ms.Mass(1.0, [x, 0.2]))
        mss.add(ms.Chain(np.hypot(1.0, 0.2), 5.0, (f, m)))
        prob = mss.problem()
        q, v = mss.state()
        K, _ = prob.force_jacobians(0, q, v)
        assert np.allclose(K.toarray(), fd_matrix(lambda z: prob.force(0, z, v), q, h=1e-7), atol=1e-5)
        L, n, T, k_act = prob.net.spring_state(q)
        assert k_act[0] == expect_k and (T[0] > 0) == (expect_k > 0)


def test_bad_input_one_error_listing_every_problem():
    mss = ms.MassSpringSystem3d()
    f = mss.add(ms.Fix([0, 0, 0]))
    g = mss.add(ms.Fix([1, 0, 0]))
    a = mss.add(ms.Mass(-1.0, [0, 1, 0]))
    b = mss.add(ms.Mass(1.0, [0, 1, 0]))
    mss.add(ms.Spring(0.0, 10.0, (f, a)))
    mss.add(ms.Spring(1.0, 10.0, (a, b)))
    mss.add(ms.DistanceConstraint(1.0, (f, g)))
    mss.add(ms.Spring(1.0, 10.0, (a, ms.Connector("mass", 7))))
    mss.add(ms.Dashpot(-2.0, (a, f)))
    with pytest.raises(ValueError) as err:
        mss.simulate(1.0, 10)
    msg = str(err.value)
    for part in ("mass 0: mass must be positive and finite, got -1.0", "spring 0: length must be positive",
                 "spring 1: its ends", "same position", "distance constraint 0: both ends", "fixed points",
                 "spring 2: connector mass[7] is out of range", "dashpot 0: damping must be non-negative",
                 "6 problem(s)"):
        assert part in msg
    with pytest.raises(ValueError, match="gravity must be 3 finite numbers"):
        mss.gravity = [0, 1]


def pendulum(rho=None):
    mss = ms.MassSpringSystem3d()
    mss.gravity = [0, -9.81, 0]
    fix = mss.add(ms.Fix([0, 0, 0]))
    m = mss.add(ms.Mass(1.0, [1, 0, 0]))
    mss.add(ms.DistanceConstraint(1.0, [fix, m]))
    return mss


def pendulum_exact(t, L=1.0, g=9.81, theta0=np.pi / 2):
    k2 = np.sin(theta0 / 2) ** 2
    K = ellipk(k2)
    sn = ellipj(K - np.sqrt(g / L) * t, k2)[0]
    theta = 2 * np.arcsin(np.sqrt(k2) * sn)
    return np.array([L * np.sin(theta), -L * np.cos(theta), 0.0]), 4 * np.sqrt(L / g) * K


def test_source_api_positional_and_keyword_and_in_place_update():
    mss = pendulum()
    pos = mss.masses[0].pos
    r1 = mss.simulate(0.5, 50)
    assert mss.masses[0].pos is pos and not np.allclose(pos, [1, 0, 0])
    r2 = mss.simulate(tend=0.5, steps=50, rho_inf=0.8)
    assert r2.t[0] == pytest.approx(0.5) and r2.t[-1] == pytest.approx(1.0) and mss.t == pytest.approx(1.0)
    assert len(mss.masses) == 1 and len(mss.constraints) == 1 and mss.springs == []
    assert r1.positions().shape == (51, 1, 3) and r1.multipliers().shape == (51, 1)


@pytest.mark.parametrize("rho", [0.6, 1.0])
def test_restart_equals_uninterrupted(rho):
    """0-5 s in one call equals five 1 s calls (accelerations, multipliers and the point of the kept
    iteration matrix carried): identical to round-off with the matrix kept over steps (the
    default) and with a fresh one per step."""
    def build(load):
        mss = ms.MassSpringSystem2d()
        mss.gravity = [0.0, -9.81]
        f = mss.add(ms.Fix([0, 0]))
        a = mss.add(ms.Mass(1.0, [1, 0]))
        b = mss.add(ms.Mass(0.5, [1.5, -1.0]))
        mss.add(ms.DistanceConstraint(1.0, [f, a]))
        mss.add(ms.Spring(1.0, 50.0, [a, b]))
        mss.add(ms.Dashpot(0.2, [a, b]))
        if load:
            mss.add(ms.Force(b, lambda t: [0.3 * np.sin(t), 0.0]))
        return mss
    for load, tol, opts in ((False, 1e-13, {}), (True, 1e-13, {}), (True, 1e-13, {"reuse_jacobian": False})):
        one = build(load)
        r = one.simulate(5.0, 250, rho_inf=rho, **opts)
        five = build(load)
        for _ in range(5):
            rk = five.simulate(1.0, 50, rho_inf=rho, **opts)
        assert np.max(np.abs(one.state()[0] - five.state()[0])) < tol
        assert np.max(np.abs(one.state()[1] - five.state()[1])) < 10 * tol
        assert np.allclose(rk.multipliers()[-1], r.multipliers()[-1], rtol=10 * tol, atol=0)
        assert np.allclose(rk.y[0], r.y[200], rtol=10 * tol, atol=tol)


def _pendulum_error(rho, steps, tend=1.0):
    """Errors of position and of the rod tension (exact: 3 m g cos(theta) from the energy, released at 90 deg)."""
    mss = pendulum()
    res = mss.simulate(tend, steps, rho_inf=rho)
    x = pendulum_exact(tend)[0]
    return np.linalg.norm(mss.masses[0].pos - x), abs(res.multipliers()[-1, 0] - 3 * 9.81 * (-x[1]))


@pytest.mark.parametrize("rho", [0.0, 0.5, 1.0])
def test_constrained_second_order_against_elliptic_solution(rho):
    errs = np.array([_pendulum_error(rho, n) for n in (100, 200, 400, 800)])
    rates = np.log2(errs[:-1] / errs[1:])
    print("pendulum rho", rho, errs, rates)
    assert np.all(rates > 1.8) and np.all(rates < 2.3)


def test_rho_one_constrained_long_run_stays_bounded():
    """rho_inf = 1 with constraints (no numerical damping): a four-link chain swinging
    from rest at 60 degrees (2000 steps): no drift, bounded multipliers, energy error bounded."""
    mss = ms.MassSpringSystem2d()
    mss.gravity = [0, -9.81]
    prev = mss.add(ms.Fix([0, 0]))
    c, s = np.cos(np.pi / 6), np.sin(np.pi / 6)
    for i in range(4):
        m = mss.add(ms.Mass(1.0, [(i + 1.0) * c, -(i + 1.0) * s]))
        mss.add(ms.DistanceConstraint(1.0, [prev, m]))
        prev = m
    res = mss.simulate(40.0, 2000, rho_inf=1.0)
    e = res.energies()
    drift = res.constraint_drift()
    lam = res.multipliers()
    assert drift[0] < 1e-9 and drift[1] < 1e-8
    assert np.max(np.abs(e["total"] - e["total"][0])) < 0.05 * np.ptp(e["kinetic"])
    assert np.max(np.abs(lam[-500:])) < 1.5 * np.max(np.abs(lam[:500]))


def test_energy_account_dashpot_and_numerical_dissipation():
    """rho_inf = 1: loads, dashpots and energy balance up to O(h^2); rho_inf < 1: the reported numerical
    dissipation of a linear oscillator equals the energy loss predicted by the amplification matrix."""
    from phmech.solvers.genalpha import amplification_matrix

    def build():
        mss = ms.MassSpringSystem3d()
        mss.gravity = lambda t: [0, 0, -9.81 * (1 + 0.3 * np.sin(2 * t))]     # its work is a supplied work
        f = mss.add(ms.Fix([0, 0, 0]))
        a = mss.add(ms.Mass(1.0, [1.2, 0, 0]))
        b = mss.add(ms.Mass(2.0, [1.2, 1.0, 0.1]))
        mss.add(ms.Spring(1.0, 100.0, [f, a]))
        mss.add(ms.Spring(1.0, 80.0, [a, b]))
        mss.add(ms.Dashpot(0.5, [a, b]))
        mss.add(ms.Force(b, lambda t: [np.cos(3 * t), 0, 0]))
        return mss
    num = []
    for n in (250, 500, 1000):
        e = build().simulate(2.0, n, rho_inf=1.0).energies()
        assert e["dissipated_dashpots"][-1] > 0.01 and abs(e["work_loads"][-1]) > 1e-3
        assert np.all(e["gravity"] == 0.0)
        assert np.max(np.abs(e["constraint_power"])) == 0.0
        num.append(np.max(np.abs(e["numerical_dissipation"])))
    assert num[-1] < 1e-3 * e["dissipated_dashpots"][-1]
    rep = build().simulate(0.5, 100, rho_inf=0.7).energy_report()
    assert rep["total"] == pytest.approx(rep["kinetic"] + rep["spring"] + rep["gravity"])
    assert rep["numerical_dissipation"] > 0 and rep["constraint_power"] == 0.0
    assert np.all(np.log2(np.array(num[:-1]) / num[1:]) > 1.8)
    # linear oscillator along x: omega = 100 rad/s, omega h = 1
    mss = ms.MassSpringSystem3d()
    f = mss.add(ms.Fix([0, 0, 0]))
    mss.add(ms.Spring(1.0, 1e4, [f, mss.add(ms.Mass(1.0, [1.2, 0, 0]))]))
    for rho in (0.0, 0.5, 0.9):
        mss.masses[0].pos[:] = [1.2, 0, 0]
        mss.masses[0].vel[:] = 0.0
        e = mss.simulate(0.3, 30, rho_inf=rho).energies()
        x = np.linalg.matrix_power(amplification_matrix(1.0, rho), 30) @ np.array([0.2, 0.0, -1e4 * 0.2 * 1e-4])
        E_pred = 0.5 * 1e4 * x[0] ** 2 + 0.5 * (x[1] / 0.01) ** 2
        assert e["numerical_dissipation"][-1] == pytest.approx(e["total"][0] - E_pred, rel=1e-8)
        assert e["numerical_dissipation"][-1] > (0.05 if rho <= 0.5 else 1e-4) * e["total"][0]


def test_agrees_with_radau_on_the_first_order_form():
    mss = random_net(3, seed=3)
    prob = mss.problem()
    q, v = mss.state()
    q, v = mss.project(prob, q, v)
    from phmech.massspring.system import MassSpringSystem
    mss._write_state(q, v)
    res = mss.simulate(0.5, 1000, rho_inf=0.8)
    y0 = np.r_[q, v, res.y[0, prob.sl]]
    ref = solve(prob, (0.0, 0.5), y0, method="radau", rtol=1e-10, atol=1e-10)
    assert np.max(np.abs(ref.y[-1, prob.sq] - res.y[-1, prob.sq])) < 1e-4
    assert isinstance(mss, MassSpringSystem)


def test_inconsistent_start_is_projected_with_a_warning():
    mss = pendulum()
    mss.masses[0].pos[:] = [1.1, 0.0, 0.0]
    mss.masses[0].vel[:] = [0.5, 0.0, 0.0]
    with pytest.warns(UserWarning, match="violates the distance constraints"):
        res = mss.simulate(0.1, 10)
    assert res.constraint_drift()[0] < 1e-12 and abs(np.linalg.norm(mss.masses[0].pos) - 1) < 1e-12


# -- the validation cases (short runs) ---------------------------------------------------
def test_validation_chain_statics_modes_and_source_chain():
    from phmech.validation.mass_spring import run
    s = run("chain", steps=200, tend=2.0)["summary"]
    assert np.all(np.abs(np.array(s["source_chain"]["orders"]) - 2) < 0.15)
    for key in ("springs", "constraints"):
        assert s[key]["equilibrium_error"] < 1e-10 and s[key]["tension_error"] < 1e-8
        assert max(s[key]["frequency_relative_error"]) < 1e-6       # finite-difference Hessian accuracy
        assert s[key]["simulated_relative_error"] < 5e-4


def test_validation_kreisel_and_bridge_orders():
    from phmech.validation.mass_spring import run
    k = run("kreisel", steps=100, tend=1.0)["summary"]
    assert np.all(np.abs(np.array(k["breathing"]["orders"]) - 2) < 0.2)
    assert k["steady"]["radius_deviation"] < 1e-3 and k["steady"]["radius_exact"] == pytest.approx(2.2, rel=1e-12)
    drift = np.array(k["breathing"]["angular_momentum_drift"])
    assert np.all(np.log2(drift[:-1] / drift[1:]) > 1.7)
    b = run("bridge", steps=50, tend=0.5)["summary"]
    assert np.all(np.abs(np.array(b["orders"]) - 2) < 0.3)
    assert 0 < b["numerical_dissipation"] < 1e-2 * abs(b["work_loads"])


def test_validation_output_files(tmp_path):
    from phmech.validation import _mass_spring_output as output
    from phmech.validation.mass_spring import run
    out = run("pendulum", steps=100, tend=1.0, refinements=2)
    assert np.all(np.abs(np.array(out["summary"]["position_orders"]) - 2) < 0.2)
    output.write("pendulum", out, str(tmp_path), plot=True, animate_gif=False)
    for name in ("pendulum.csv", "pendulum_x.png", "pendulum_convergence.pdf", "pendulum_energy.png"):
        assert (tmp_path / name).exists()
    from phmech.validation._common import read_csv
    data = read_csv(tmp_path / "pendulum.csv")          # the provenance lines (#) skipped
    assert all(np.all(np.isfinite(data[k])) for k in data.dtype.names)
    assert np.max(np.abs(data["x"] - data["x_exact"])) < 0.05


def test_network_as_a_body_of_the_ph_assembly():
    """network_body: the same motion through the assembled descriptor DAE (Radau IIA, midpoint and the
    first-order generalized-alpha form), an exact work record, H + V balance, exact Jacobian."""
    from phmech import System
    from phmech.massspring import network_body

    def build():
        mss = ms.MassSpringSystem3d()
        mss.gravity = [0, -9.81, 0]
        f = mss.add(ms.Fix([0, 0, 0]))
        a = mss.add(ms.Mass(1.0, [1.2, 0, 0]))
        b = mss.add(ms.Mass(2.0, [1.2, 1.0, 0.1], vel=[0, 0, 1]))
        mss.add(ms.Spring(1.0, 100.0, (f, a)))
        mss.add(ms.Chain(1.0, 80.0, (a, b)))
        mss.add(ms.Dashpot(0.5, (a, b)))
        mss.add(ms.Force(b, lambda t: [np.cos(3 * t), 0, 0]))
        return mss
    body, loads = network_body(build())
    s = System([body])
    for ld in loads:
        s.add_load(ld)
    dae = s.assemble()
    y0 = np.r_[body.q0, body.v0]
    assert np.allclose(dae.jacobian(0.3, y0 + 0.01).toarray(), fd_matrix(lambda y: dae.f(0.3, y), y0 + 0.01),
                       atol=1e-5)
    ref = solve(dae, (0.0, 0.5), y0, method="radau", rtol=1e-10, atol=1e-10)
    second = build().simulate(0.5, 1000, rho_inf=0.8)
    assert np.max(np.abs(ref.y[-1] - second.y[-1])) < 1e-4
    first = solve(dae, (0.0, 0.5), y0, method="genalpha", dt=1e-3, rho_inf=0.8)
    assert first.solver == "genalpha" and np.max(np.abs(ref.y[-1] - first.y[-1])) < 1e-3
    mid = solve(dae, (0.0, 0.5), y0, method="midpoint", dt=1e-3)
    assert np.max(np.abs(mid.energy_balance())) < 1e-6
    HV = mid.hamiltonian() + dae.potential_energy(mid.y)
    assert [ld.name for ld in loads] == ["network.springs+gravity", "network.dashpots", "network.force0"]
    P = np.array([sum(ld.force(t, y[:6], y[6:]) @ y[6:][ld.cols] for ld in loads[1:])
                  for t, y in zip(mid.t, mid.y)])
    W = np.concatenate([[0], np.cumsum(0.5 * (P[1:] + P[:-1]) * np.diff(mid.t))])
    assert np.max(np.abs(HV - HV[0] - W)) < 1e-3 * np.ptp(HV)
    with pytest.raises(ValueError, match="distance constraint"):
        network_body(pendulum())

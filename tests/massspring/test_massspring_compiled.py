"""Network bodies in a System run compiled: the slot ``"networks"`` of the compiled residual, exact
Jacobians of both paths against finite differences, compiled runs equal to the Python runs, the
supplied power of the compiled kernel, and the energy of a conservative chain."""
import numpy as np
from conftest import central_differences
import pytest

from phmech import System
from phmech import massspring as ms
from phmech.massspring import network_body
from phmech.solvers import solve


def fd_matrix(fun, x, h=1e-6):
    return central_differences(fun, x, h)


def random_network(dim, seed, timed_gravity=False):
    """Fixed points, masses, springs and chains (some slack, some taut), dashpots, a nodal load."""
    rng = np.random.default_rng(seed)
    mss = ms.MassSpringSystem(dim)
    g = rng.normal(size=dim)
    mss.gravity = (lambda t: g * (1 + 0.5 * np.sin(t))) if timed_gravity else g
    nodes = [mss.add(ms.Fix(rng.normal(size=dim))) for _ in range(2)]
    nodes += [mss.add(ms.Mass(rng.uniform(0.5, 2), 2 * rng.normal(size=dim), vel=rng.normal(size=dim)))
              for _ in range(5)]
    X = [*mss.fixes, *mss.masses]
    for k in range(9):
        a, b = rng.choice(len(nodes), 2, replace=False)
        if a < 2 and b < 2:
            b = 4
        L = np.linalg.norm(X[b].pos - X[a].pos) * (1.3 if k % 2 else 0.8)
        mss.add((ms.Chain if k % 3 == 0 else ms.Spring)(L, rng.uniform(1, 10), (nodes[a], nodes[b])))
    for k in range(3):
        mss.add(ms.Dashpot(rng.uniform(0.1, 1), (nodes[2 + k], nodes[3 + k] if k else nodes[0])))
    mss.add(ms.Force(nodes[3], lambda t: np.cos(3 * t) * np.ones(dim)))
    return mss


def assembled(mss):
    body, loads = network_body(mss)
    s = System([body])
    for ld in loads:
        s.add_load(ld)
    return body, loads, s.assemble()


@pytest.mark.parametrize("dim, timed_gravity", [(2, False), (3, True)])
def test_network_system_is_compiled_with_exact_jacobians(dim, timed_gravity):
    body, loads, dae = assembled(random_network(dim, seed=dim, timed_gravity=timed_gravity))
    cr = dae.compiled_residual()
    assert cr.path == "compiled" and cr.leftovers == []
    rng = np.random.default_rng(5)
    t = 0.7
    y = np.r_[body.q0, body.v0] + 0.05 * rng.normal(size=dae.n)
    # compiled residual == Python residual (the loads' own methods) to round-off
    f_py, f_c = dae.f(t, y), cr.f(t, y)
    assert np.max(np.abs(f_c - f_py)) <= 1e-13 * np.max(np.abs(f_py))
    # exact Jacobians: the Python sparse one (the loads' force_q / force_e) and the compiled dense one
    J_fd = fd_matrix(lambda z: dae.f(t, z), y)
    scale = np.max(np.abs(J_fd))
    assert np.max(np.abs(dae.jacobian(t, y).toarray() - J_fd)) < 1e-7 * scale
    assert np.max(np.abs(cr.jacobian(y, t) - J_fd)) < 1e-7 * scale
    # some chains slack, some taut: both branches of the kink are in the check
    L, n, T, k_act = body.prob.net.spring_state(y[:dae.nq])
    assert np.any(k_act == 0) and np.any(k_act > 0)
    # the supplied power of the compiled kernel includes the network forces
    q, e = y[dae.sq], y[dae.se]
    P = sum(float(e[ld.cols] @ ld.force(t, q, e)) for ld in loads)
    assert dae.power(t, y) == pytest.approx(P, rel=1e-12)


@pytest.mark.parametrize("method", ["midpoint", "genalpha"])
def test_compiled_run_equals_python_run(method):
    """The compiled Newton iteration and the Python one (``compiled=False``) give the same steps."""
    runs = []
    for compiled in (True, False):
        body, loads, dae = assembled(random_network(2, seed=7))
        y0 = np.r_[body.q0, body.v0]
        res = solve(dae, (0.0, 0.2), y0, method=method, dt=2e-3, compiled=compiled)
        runs.append(res)
    a, b = runs
    assert a.stats["nfev"] == b.stats["nfev"] and a.stats["nlu"] == b.stats["nlu"]
    assert np.max(np.abs(a.y - b.y)) < 1e-10 * np.max(np.abs(a.y))


def hanging_chain(n, k=500.0, m=0.2):
    """``n`` masses on springs from a fixed point, released horizontal under gravity (conservative)."""
    mss = ms.MassSpringSystem2d()
    mss.gravity = [0.0, -9.81]
    prev = mss.add(ms.Fix([0.0, 0.0]))
    for i in range(n):
        node = mss.add(ms.Mass(m, [0.5 * (i + 1), 0.0]))
        mss.add(ms.Spring(0.5, k, (prev, node)))
        prev = node
    return mss


def test_conservative_chain_energy():
    """Midpoint rule on the compiled network: the kinetic energy equals the work of the network's
    loads to round-off at every step, and ``H + V`` of the conservative chain is kept to O(h^2)
    (second-order decrease of its largest deviation); the second-order form with ``rho_inf = 1``
    reports the same energy and a numerical dissipation of the same order."""
    drift = []
    for dt in (4e-3, 2e-3, 1e-3):
        body, loads, dae = assembled(hanging_chain(6))
        assert dae.compiled_residual().path == "compiled"
        res = solve(dae, (0.0, 1.0), np.r_[body.q0, body.v0], method="midpoint", dt=dt)
        H = res.hamiltonian()
        assert np.max(np.abs(res.energy_balance())) < 1e-9 * np.ptp(H)
        HV = H + dae.potential_energy(res.y)
        drift.append(np.max(np.abs(HV - HV[0])) / np.ptp(H))
    assert drift[-1] < 1e-3
    assert np.all(np.log2(np.array(drift[:-1]) / drift[1:]) > 1.8)
    e = hanging_chain(6).simulate(1.0, 1000, rho_inf=1.0).energies()
    assert e["total"][0] == pytest.approx(HV[0], rel=1e-12)
    assert np.max(np.abs(e["numerical_dissipation"])) < 1e-3 * np.ptp(e["kinetic"])

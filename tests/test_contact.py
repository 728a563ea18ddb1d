"""Contacts and the contact problem: force directions against gap derivatives, the exact
semismooth-Newton Jacobian against finite differences, the solution of the contact laws,
and one error for bad contact data."""
import numpy as np
import pytest
from conftest import needs_firedrake

from phmech import System
from phmech.bodies.rigid import PlanarRigidBody, PointMass
from phmech.contact import (ContactSet, NonsmoothProblem, PointPlane, ProxSolver, SphereSphere,
                            prox_parameters, residual)
from phmech.contact.bodies import Disc, Top


def _delassus(rng, n):
    A = rng.normal(size=(n, n))
    return A @ A.T + n * np.eye(n)


def test_semismooth_newton_jacobian_matches_finite_differences():
    rng = np.random.default_rng(3)
    cs = ContactSet([0.3, 0.5, 0.2], [2, 1, 3])
    D = _delassus(rng, cs.n)
    r = prox_parameters(D, cs)
    for trial in range(20):
        P = rng.normal(size=cs.n)
        P[:cs.m] = np.abs(P[:cs.m]) + 0.1
        xi0 = rng.normal(size=cs.n)
        R, J = residual(P, xi0, D, cs, r, jac=True)
        eps = 1e-7
        Jfd = np.column_stack([(residual(P + eps * ei, xi0, D, cs, r) - residual(P - eps * ei, xi0, D, cs, r))
                               / (2 * eps) for ei in np.eye(cs.n)])
        assert np.max(np.abs(J - Jfd)) < 1e-6, trial


@pytest.mark.parametrize("max_newton", [50, 1])
def test_contact_laws_hold_at_the_solution(max_newton):
    """Newton (and the Gauss-Seidel fallback when Newton is cut to one iteration) satisfy
    the Signorini and Coulomb conditions in their primal form."""
    rng = np.random.default_rng(7)
    cs = ContactSet([0.3, 0.5, 0.2, 0.0], [2, 2, 3, 0])
    D = _delassus(rng, cs.n)
    solver = ProxSolver(tol=1e-13, max_newton=max_newton)
    for _ in range(10):
        xi0 = rng.normal(size=cs.n)
        P = solver.solve(xi0, D, cs, scale=10.0)
        xi = xi0 + D @ P
        N = np.arange(cs.m)
        assert np.all(P[N] >= -1e-12) and np.all(xi[N] >= -1e-9)
        assert np.max(np.abs(P[N] * xi[N])) < 1e-9
        for i, F in enumerate(cs.F):
            if not len(F):
                continue
            nP = np.linalg.norm(P[F])
            assert nP <= cs.mu[i] * P[i] + 1e-10
            if np.linalg.norm(xi[F]) > 1e-8 and P[i] > 1e-12:              # sliding: force opposes the velocity on the cone
                assert abs(nP - cs.mu[i] * P[i]) < 1e-9
                assert np.allclose(P[F] / nP, -xi[F] / np.linalg.norm(xi[F]), atol=1e-7)
    if max_newton == 1:
        assert solver.stats["gs_fallbacks"] > 0


def _check_directions(problem, q, u, eps=1e-7):
    """``W_N^T u`` equals ``d g_N / dt`` along ``q' = T(q) u`` (central differences)."""
    gp, _ = problem.contact_state(q + eps * problem.qdot(q, u))
    gm, _ = problem.contact_state(q - eps * problem.qdot(q, u))
    _, Ws = problem.contact_state(q)
    for k, (WN, _) in enumerate(Ws):
        assert abs(WN @ u - (gp[k] - gm[k]) / (2 * eps)) < 1e-6 * max(1.0, np.abs(u).max())


def test_force_directions_are_gap_derivatives():
    rng = np.random.default_rng(1)
    disc = Disc("disc", 1.0, 0.005, position=(0.1, 0.3), angle=0.4, ports={"rim": (0.05, 0.02)})
    bar = PlanarRigidBody.rod("bar", 2.0, 0.5, position=(0.4, 0.2), angle=0.3)
    pm = PointMass("pm", 0.5, position=(-0.3, 0.4))
    top = Top("top", 0.1, (1e-4, 1e-4, 2e-4), position=(0.0, 0.0, 0.3),
              orientation=(0.9, 0.1, -0.2, 0.3), ports={"s": (0.01, 0.0, -0.02)})
    s = System([disc, bar, pm, top])
    contacts = [PointPlane(disc.port("rim"), (0.2, 1.0), radius=0.05, mu=0.3, name="c1"),
                PointPlane(bar.port("B"), (-1.0, 0.5), point=(1.0, 0.0), radius=0.02, mu=0.2, name="c2"),
                SphereSphere(bar.port("A"), pm.port("P"), 0.05, 0.04, name="c3"),
                SphereSphere(disc.port("C"), bar.port("B"), 0.1, 0.02, mu=0.4, name="c4"),
                PointPlane(top.port("s"), (0.0, 0.1, 1.0), radius=0.01, mu=0.3, contensou_radius=1e-3, name="c5")]
    p = NonsmoothProblem(s, contacts)
    q = p.dae.q0.copy()
    for _ in range(3):
        _check_directions(p, q, rng.normal(size=p.ne))
    # the friction rows of a point-plane contact are the contact point's tangential velocity:
    # a disc rolling without slip has zero friction velocity
    _, Ws = p.contact_state(q)
    n = np.array([0.2, 1.0]) / np.hypot(0.2, 1.0)
    t = np.array([-n[1], n[0]])
    u = np.zeros(p.ne)
    u[p.e_slices["disc"]] = [*(0.05 * 2.0 * t), -2.0]    # v = -omega x (rim - contact) for omega = -2
    R = np.array([[np.cos(0.4), -np.sin(0.4)], [np.sin(0.4), np.cos(0.4)]])
    arm = R @ np.array([0.05, 0.02]) - 0.05 * n             # centre of mass -> contact point
    u[p.e_slices["disc"]][:2] += 0.0
    v_contact = u[p.e_slices["disc"]][:2] + u[p.e_slices["disc"]][2] * np.array([-arm[1], arm[0]])
    assert abs(Ws[0][1][:, 0] @ u - t @ v_contact) < 1e-12
    assert Ws[0][1].shape == (p.ne, 1) and Ws[4][1].shape == (p.ne, 3) and Ws[2][1].shape == (p.ne, 0)


def test_bad_contact_data_is_one_error():
    disc = Disc("disc", 1.0, 0.005)
    pm = PointMass("stray", 1.0)
    s = System([disc])
    bad = [PointPlane(disc.port("C"), (0.0, 0.0), radius=-1, e_N=2.0, mu=-0.1, name="floor"),
           PointPlane(pm.port("P"), (0.0, 1.0), name="other"),
           PointPlane(disc.port("C"), (0.0, 1.0), contensou_radius=1e-3, mu=0.1, name="drill")]
    with pytest.raises(ValueError) as err:
        NonsmoothProblem(s, bad)
    msg = str(err.value)
    for part in ("'floor': normal", "'floor': radius", "'floor': e_N must lie in [0, 1], got 2.0",
                 "'floor': mu must be non-negative", "'other': body 'stray' is not in the system",
                 "'drill': contensou_radius needs a spatial port"):
        assert part in msg, part


@needs_firedrake
def test_flexible_beam_strikes_stop():
    """Cantilever pH beam against a stop: first impact within 1.5 steps of the smooth model's
    event time (Radau IIA), the energy account (kinetic + elastic - work of the tip force +
    impact dissipation) closes to round-off, the tip displacement recovered from the stresses
    equals the integrated tip velocity (no drift), and the generalized-alpha method refuses
    stress-dependent gaps; sphere contacts on floating beams are refused (plane contacts on
    them: tests/test_contact_floating.py)."""
    from phmech.validation._contact_beam import beam_model, first_impact, run_beam
    h = 5e-5
    res = run_beam(h, "moreau", t_end=0.012)
    e = res.errors
    assert abs(e["impact_times"][0] - first_impact()) <= 1.5 * h
    assert e["n_impacts"] >= 2 and e["dissipated"] > 0
    assert e["energy_balance"] < 1e-12 * e["energy_scale"]
    assert e["drift"] < 1e-12
    p, y0, _ = beam_model()
    from phmech.contact import simulate
    with pytest.raises(ValueError, match="depend on the stresses"):
        simulate(p, (0, 0.01), y0, method="nsgenalpha", dt=h)
    from phmech import System
    from phmech.contact import SphereSphere
    from phmech.fem.beam import FloatingEulerBernoulliBeam
    floating = FloatingEulerBernoulliBeam("arm", 0.5, 2, 7800.0, 1e-4, 2e11, 1e-8 / 12, frame="cantilever")
    other = FloatingEulerBernoulliBeam("arm2", 0.5, 2, 7800.0, 1e-4, 2e11, 1e-8 / 12, frame="cantilever")
    with pytest.raises(ValueError, match="'arm.B' of the floating flexible body 'arm' is not supported"):
        NonsmoothProblem(System([floating, other]), [SphereSphere(floating.port("B"), other.port("B"), name="tips")])


def test_prox_parameter_per_contact():
    """Contacts of very different effective masses (Delassus diagonal 1e-3 and 10): the
    fixed-point iteration converges with r_i = 1 / D_ii and diverges with one global r = 0.3
    (r D_ii > 2 on the stiff contact)."""
    from phmech.contact.prox import _gauss_seidel
    cs = ContactSet([0.5, 0.5], [1, 1])
    D = np.diag([1e-3, 10.0, 2e-3, 20.0])
    D[0, 2] = D[2, 0] = 5e-4
    D[1, 3] = D[3, 1] = 2.0
    xi0 = np.array([-1.0, -1.0, 0.3, -0.5])
    r_own = prox_parameters(D, cs)
    P, sweeps, res = _gauss_seidel(np.zeros(cs.n), xi0, D, cs, r_own, 1e-12, 500)
    assert res <= 1e-12 and sweeps < 500
    P_bad, _, res_bad = _gauss_seidel(np.zeros(cs.n), xi0, D, cs, np.full(cs.n, 0.3), 1e-12, 500)
    assert not res_bad <= 1e-3
    assert np.allclose(ProxSolver().solve(xi0, D, cs, scale=1e3), P, atol=1e-9)

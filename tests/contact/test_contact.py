"""Contacts and the contact problem: force directions against gap derivatives, the exact
semismooth-Newton Jacobian against finite differences, the solution of the contact laws,
and one error for bad contact data."""
import re

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
    """The parameters of a contact are checked when it is built (all its problems in one error,
    more cases in tests/contact/test_bad_input_contact.py); what needs the system is checked by the
    problem, all contacts together."""
    disc = Disc("disc", 1.0, 0.005)
    pm = PointMass("stray", 1.0)
    with pytest.raises(ValueError) as err:
        PointPlane(disc.port("C"), (0.0, 0.0), radius=-1, e_N=2.0, mu=-0.1, name="floor")
    msg = str(err.value)
    assert msg.startswith("contact 'floor': 4 invalid parameters")
    for part in ("normal must be 2 finite numbers", "radius must be non-negative and finite, got -1",
                 "e_N must lie in [0, 1], got 2.0", "mu must be non-negative and finite, got -0.1"):
        assert "\n  " + part in msg, part
    s = System([disc])
    bad = [PointPlane(pm.port("P"), (0.0, 1.0), name="other"),
           PointPlane(disc.port("C"), (0.0, 1.0), name="other")]
    with pytest.raises(ValueError) as err:
        NonsmoothProblem(s, bad)
    for part in ("'other': body 'stray' is not in the system", "'other': the name is used twice"):
        assert part in str(err.value), part


def _ball(y, y_dot=0.0, **law):
    """The ball of the bouncing-ball benchmark (radius 0.1) with its centre at height ``y``."""
    ball = Disc("ball", 1.0, 0.005, position=(0.0, y))
    s = System([ball])
    s.add_gravity((0.0, -9.81))
    p = NonsmoothProblem(s, [PointPlane(ball.port("C"), (0.0, 1.0), radius=0.1, name="ground", **law)])
    y0 = np.zeros(p.n)
    y0[p.sq] = [0.0, y, 0.0]
    y0[p.se] = [0.0, y_dot, 0.0]
    return p, y0


@pytest.mark.parametrize("method", ["moreau", "moreau_shifted", "nsgenalpha"])
def test_initial_penetration(method):
    """A ball that starts 5 cm inside the floor: a warning naming the contact and the depth; Moreau's
    schemes keep the penetration (they act on velocities: the ball rests 5 cm deep), the
    generalized-alpha method closes it in the first step.  With ``initial_penetration="project"``
    the run starts touching (gap zero to round-off) and the ball rests on the floor."""
    from phmech.contact import PenetrationWarning, simulate
    p, y0 = _ball(0.05)
    with pytest.warns(PenetrationWarning, match=r"the initial state penetrates at t = 0: contact 'ground' "
                      r"is 0\.05 deep \(its penetration_tol is 0\.01\)") as rec:
        res = simulate(p, (0.0, 0.1), y0, method=method, dt=1e-3)
    assert len(rec) == 1                       # the start is reported once, not again during the run
    depth = 0.1 - res.y[:, p.sq][:, 1]
    if method == "nsgenalpha":
        assert abs(depth[-1]) < 1e-9
    else:
        assert np.all(np.abs(depth - 0.05) < 1e-12)
    assert res.stats["max_penetration"] == pytest.approx(0.05, abs=1e-12)
    res = simulate(p, (0.0, 0.1), y0, method=method, dt=1e-3, initial_penetration="project")
    g0 = p.contact_state(res.y[0, p.sq])[0][0]
    assert abs(g0) < 1e-14 and np.max(np.abs(res.y[:, p.sq][:, 1] - 0.1)) < 1e-9


def test_projection_keeps_the_joints():
    """A rod hinged to the ground at an inner point M, its tip B 2 cm inside a wall: the projection
    turns the rod about the hinge (a 0.15 rad correction) until the tip touches the wall, and the
    hinge holds on position level; velocities are kept."""
    from phmech.joints import Revolute
    th = -0.3
    rod = PlanarRigidBody.rod("rod", 1.0, 0.5, angle=th, ports={"M": (0.1, 0.0)})
    s = System([rod])
    s.add_joint(Revolute(rod.port("M"), None, name="hinge"))
    hinge = 0.1 * np.array([np.cos(th), np.sin(th)])
    wall_x = 0.5 * np.cos(th) - 0.02
    p = NonsmoothProblem(s, [PointPlane(rod.port("B"), (-1.0, 0.0), point=(wall_x, 0.0), name="wall")])
    y0 = np.zeros(p.n)
    y0[p.sq] = p.dae.q0
    y0[p.se] = 0.3
    assert p.contact_state(y0[p.sq])[0][0] == pytest.approx(-0.02, abs=1e-12)
    y = p.project(y0)
    q = y[p.sq][p.q_slices["rod"]]
    assert abs(p.contact_state(y[p.sq])[0][0]) < 1e-12
    assert np.linalg.norm(rod.port_position(q, rod.port("M")) - hinge) < 1e-12
    tip = rod.port_position(q, rod.port("B"))
    assert abs(tip[0] - wall_x) < 1e-12 and abs(np.linalg.norm(tip - hinge) - 0.4) < 1e-12
    assert np.array_equal(y[p.se], y0[p.se])


def test_penetration_of_a_coarse_step_is_reported():
    """The bouncing ball (case 1) at a step of 50 ms sinks 14.8 cm into the floor: one warning naming
    the contact, the time and the depth; the deepest penetration (at the step points) is the one
    of the returned states, in the stats and per contact.  At the benchmark's step of 2 ms the
    penetration (2.7 mm) stays below the contact's tolerance (a tenth of the radius): no warning."""
    import warnings
    from phmech.contact import PenetrationWarning
    from phmech.validation import bouncing_ball as bb
    with pytest.warns(PenetrationWarning) as rec:
        res = bb.run(1, 0.05, "moreau")
    msgs = [str(w.message) for w in rec if issubclass(w.category, PenetrationWarning)]
    assert len(msgs) == 1, msgs
    m = re.search(r"moreau: contact 'ground' penetrates ([0-9.e-]+) deep at t = ([0-9.e-]+) \(beyond its "
                  r"penetration_tol 0\.01\)", msgs[0])
    assert m, msgs[0]
    depth, t = float(m.group(1)), float(m.group(2))
    rows = 0.1 - res.y[:, res.dae.sq][:, 1]
    k = int(np.flatnonzero(np.isclose(res.t, t, atol=1e-12))[0])
    assert depth == pytest.approx(rows[k], rel=1e-5) and depth > 0.01 and np.all(rows[:k] <= 0.01)
    assert res.stats["max_penetration"] == pytest.approx(rows.max(), abs=1e-15) and rows.max() > 0.14
    assert res.stats["max_penetration_time"] == res.t[int(np.argmax(rows))]
    assert res.max_penetration[0] == res.stats["max_penetration"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", PenetrationWarning)
        fine = bb.run(1, 2e-3, "moreau", t_end=1.0)
    assert 0 < fine.stats["max_penetration"] < 0.01


@needs_firedrake
def test_flexible_beam_strikes_stop():
    """Cantilever pH beam against a stop: first impact within 1.5 steps of the smooth model's
    event time (Radau IIA), the energy account (kinetic + elastic - work of the tip force +
    impact dissipation) closes to round-off, the tip displacement recovered from the stresses
    equals the integrated tip velocity (no drift), and the generalized-alpha method refuses
    stress-dependent gaps; sphere contacts on floating beams are refused (plane contacts on
    them: tests/contact/test_contact_floating.py)."""
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
    from phmech.solvers.prox import _gauss_seidel
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

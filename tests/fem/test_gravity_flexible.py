"""Gravity's potential on flexible bodies: the first moment of the deformed shape."""
import numpy as np
import pytest

pytest.importorskip("firedrake")

from phmech import System  # noqa: E402

SECTION = dict(rho=2700.0, A=1e-4, E=7e9, I=1e-9)      # a soft aluminium strip, 1 m


def pendulum(kind, n_elem=4):
    """A flexible arm pinned at its end under gravity, released horizontal."""
    from phmech.fem import FloatingEulerBernoulliBeam
    from phmech.fem.beam_nonlinear import NonlinearFloatingBeam
    if kind == "consistent":
        arm = NonlinearFloatingBeam("arm", 1.0, n_elem, frame="cantilever", strain="green", **SECTION)
    else:
        arm = FloatingEulerBernoulliBeam("arm", 1.0, n_elem, frame="cantilever", **SECTION)
    s = System([arm])
    s.pin(arm.port("A"))
    s.add_gravity((0.0, -9.81))
    return s, arm


def test_consistent_beam_conserves_h_plus_v_to_the_integrator_order():
    """The consistent beam's gravity force is exactly -dV/dt of the deformed shape's potential: the
    midpoint rule's H + V drift falls as dt^2 (log2 ratios near 2 over three refinements)."""
    drift = []
    for dt in (2e-3, 1e-3, 5e-4):
        s, _ = pendulum("consistent")
        dae = s.assemble()
        r = s.simulate(0.5, solver="midpoint", dt=dt, newton_tol=1e-12)
        E = r.hamiltonian() + dae.potential_energy(r.y)
        drift.append(np.ptp(E))
        assert np.ptp(r.hamiltonian()) > 1.0          # the arm swings: H changes by over a joule
    rates = np.log2(np.array(drift[:-1]) / np.array(drift[1:]))
    assert np.all(np.abs(rates - 2.0) < 0.2), (drift, rates)
    assert drift[-1] < 1e-6


def test_potential_is_the_deformed_first_moment():
    """V = -g . (m x_P + R S) with S = int rho A (X e1 + u): at a state with a known deformation the
    potential matches a direct quadrature of the deformed axis (independent of first_moment)."""
    s, arm = pendulum("consistent", n_elem=6)
    dae = s.assemble()
    y = dae.initial_state()
    q = y[dae.sq].copy()
    qa = q[dae.q_slices["arm"]]
    qa[3:] = 1e-2 * np.sin(np.arange(qa.size - 3))          # some displacement field
    q[dae.q_slices["arm"]] = qa
    y[dae.sq] = q
    x = np.linspace(0.0, 1.0, 2001)
    ux, uy = (R @ qa for R in arm.displacement_rows(x))
    rhoA = SECTION["rho"] * SECTION["A"]
    axis = np.column_stack([x + ux, uy]) @ arm.rotation(qa).T + arm.position(qa)
    height = np.trapezoid(rhoA * axis[:, 1], x)
    assert dae.potential_energy(y) == pytest.approx(9.81 * height, rel=1e-6)


def test_linear_floating_frame_drift_is_its_rotational_inertia_defect():
    """The linear floating frame's gravity power misses P_d = g . R (omega x int rho A u) (its
    rotational inertia uses the undeformed shape), so d(H + V)/dt = -P_d: H + V drifts, the same
    at every step size, and H + V + int P_d dt is constant up to the integration error (falling
    with dt^2)."""
    drift, closed = [], []
    for dt in (2e-3, 1e-3, 5e-4):
        s, arm = pendulum("linear")
        dae = s.assemble()
        r = s.simulate(0.5, solver="midpoint", dt=dt, newton_tol=1e-12)
        H, V = r.hamiltonian(), dae.potential_energy(r.y)
        _, rows, _ = arm.first_moment()
        g = np.array([0.0, -9.81])
        P = []
        for y in r.y:
            q, e = y[dae.sq], y[dae.se]
            Su = rows @ e
            P.append(float(g @ (arm.rotation(q) @ (e[2] * np.array([-Su[1], Su[0]])))))
        P = np.array(P)
        W = np.concatenate([[0.0], np.cumsum(0.5 * (P[1:] + P[:-1]) * np.diff(r.t))])
        drift.append(np.ptp(H + V))
        closed.append(np.ptp(H + V + W))
    assert drift[-1] > 1e-4 and abs(drift[0] / drift[-1] - 1) < 0.05
    rates = np.log2(np.array(closed[:-1]) / np.array(closed[1:]))
    assert np.all(rates > 1.7) and closed[-1] < 0.01 * drift[-1], (closed, rates)


def hanging_arm(E=SECTION["E"], n_elem=4, gravity=True, swing=0.0):
    from phmech.fem import FloatingEulerBernoulliBeam
    arm = FloatingEulerBernoulliBeam("arm", 1.0, n_elem, frame="cantilever", angle=-np.pi / 2 + swing,
                                     **{**SECTION, "E": E})
    s = System([arm])
    s.pin(arm.port("A"))
    if gravity:
        s.add_gravity((0.0, -9.81))
    return s


def test_a_flexible_pendulum_s_modes_carry_gravity():
    """About the hanging equilibrium the pendulum mode has gravity's stiffness: with a stiff arm it
    is the compound pendulum's sqrt(3 g / 2 L); the soft arm swings a little slower; without
    gravity the swing is a rigid (zero) mode."""
    rigid = np.sqrt(1.5 * 9.81)
    stiff = hanging_arm(E=7e13).linearize().eigenmodes(1).omega[0]
    assert stiff == pytest.approx(rigid, rel=1e-6)
    soft = hanging_arm().linearize().eigenmodes(2)
    assert 0.9 * rigid < soft.omega[0] < rigid
    free = hanging_arm(gravity=False).linearize().eigenmodes(1)
    assert free.n_rigid == 1 and free.omega[0] > 2 * rigid


def test_the_flexible_pendulum_s_frequency_against_a_time_run():
    """A swing of 0.01 rad about the hanging arm: the period from the zero crossings of the frame
    angle agrees with the linearization's lowest frequency to the run's resolution."""
    s = hanging_arm(swing=0.01)
    omega = hanging_arm().linearize().eigenmodes(1).omega[0]
    r = s.simulate(4.0, solver="midpoint", dt=1e-3)
    theta = r.y[:, 2] + np.pi / 2
    t = r.t
    i = np.flatnonzero(np.sign(theta[:-1]) != np.sign(theta[1:]))
    tz = t[i] - theta[i] * (t[i + 1] - t[i]) / (theta[i + 1] - theta[i])
    period = 2 * np.mean(np.diff(tz))
    assert 2 * np.pi / period == pytest.approx(omega, rel=2e-3)

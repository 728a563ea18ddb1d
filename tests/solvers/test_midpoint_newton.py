"""The stopping rule of the midpoint rule's Newton iteration: a step whose simplified Newton
iteration is too slow is retried with factors at its last iterate (going on from it while it
contracted), and that retry accepts an iteration stalled at the round-off floor; the Python and
the compiled iterations take the same decisions (one rule, :mod:`phmech.solvers._newton`)."""
import importlib.util

import numpy as np
import pytest

needs_numba = pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")


def governor(omega, alpha=0.5, length=0.2, mass=1.0):
    """A centrifugal governor: a shaft driven at ``omega`` about the vertical, two arms hinged at
    its top, under gravity (the arms start at ``alpha`` from the shaft)."""
    from phmech import SpatialRigidBody, System
    from phmech.joints import Revolute3
    shaft = SpatialRigidBody.bar("shaft", 2.0, (0, 0, 0), (0, 0, 0.3), section=(0.02, 0.02))
    top = np.array([0.0, 0.0, 0.3])
    arms = [SpatialRigidBody.bar(f"arm{k}", mass, tuple(top),
                                 tuple(top + length * np.array([sign * np.sin(alpha), 0.0, -np.cos(alpha)])),
                                 section=(0.01, 0.01))
            for k, sign in enumerate((1.0, -1.0))]
    s = System([shaft] + arms)
    s.add_joint(Revolute3(shaft.port("A"), None, axis=(0, 0, 1), name="base", rate=-omega))
    for k, arm in enumerate(arms):
        s.add_joint(Revolute3(shaft.port("B"), arm.port("A"), axis=(0, 1, 0), name=f"pivot{k}"))
    s.add_gravity((0.0, 0.0, -9.81))
    return s


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=needs_numba)], ids=["python", "compiled"])
def test_a_governor_at_omega_dt_0_13_runs_with_the_exact_power_balance(compiled):
    """Omega dt = 0.13: the simplified iteration contracts at about Omega dt, too slowly for
    seven iterations; it used to stop with "converged too slowly (last relative increment
    ... after 7 iterations)" at the first step.  The retry with factors at the last iterate
    converges, and the discrete power balance holds to the Newton tolerance."""
    res = governor(130.0).simulate(0.05, dt=1e-3, compiled=compiled)
    assert res.t[-1] == pytest.approx(0.05) and res.stats["nsteps"] == 50
    H = res.hamiltonian()
    assert np.max(np.abs(res.energy_balance())) < 1e-8 * np.max(np.abs(H))


@needs_numba
def test_the_python_and_the_compiled_iterations_take_the_same_decisions():
    s = governor(130.0)
    runs = [s.simulate(0.02, dt=1e-3, compiled=c) for c in (False, True)]
    assert runs[1].stats["path"] != "python"
    for key in ("nsteps", "nfev", "nlu"):
        assert runs[0].stats[key] == runs[1].stats[key], key
    dae = s.assemble()
    for block in (dae.sq, dae.se, dae.sl):            # positions, velocities, multipliers: to round-off
        a, b = runs[0].y[:, block], runs[1].y[:, block]
        assert np.max(np.abs(a - b)) < 1e-10 * np.max(np.abs(a))


def test_a_step_that_cannot_converge_names_the_iterations_it_took():
    """One iteration per attempt: the message counts the iterations of both attempts (not the
    maximum of one)."""
    from phmech.solvers.base import SolverError
    with pytest.raises(SolverError, match=r"midpoint failed at t = 0: Newton iteration converged too slowly "
                                          r"\(last relative increment [\d.e+-]+ after 2 iterations, also with a "
                                          r"fresh Jacobian\): reduce dt"):
        governor(130.0).simulate(0.01, dt=1e-3, compiled=False, max_newton=1)



@needs_numba
def test_a_compiled_block_that_stops_hands_one_step_to_python_and_goes_on(monkeypatch):
    """When a block of compiled steps stops at a step (here made to stop once, after 10 steps), that
    step runs in the Python iteration, which refreshes the factors or says why it fails, and the
    compiled steps go on after it: the run is ``"mixed"`` with one Python step and follows the
    uninterrupted compiled run to the Newton tolerance (before, the rest of the run stayed in Python)."""
    from phmech.mechanisms.tiny import loaded_rigid_crank_slider
    from phmech.solvers.midpoint import ImplicitMidpoint

    def run():
        s = loaded_rigid_crank_slider()
        dae = s.assemble()
        return s.simulate(0.05, y0=dae.initial_state(), dt=1e-4)

    plain = run()
    original, stopped = ImplicitMidpoint._call_steps, []

    def stop_once(self, hs, *args):
        if stopped or len(hs) <= 10:
            return original(self, hs, *args)
        stopped.append(True)
        out = original(self, hs[:10], *args)
        return (out[0], 0) + out[2:]             # as if step 11 of the block had not converged
    monkeypatch.setattr(ImplicitMidpoint, "_call_steps", stop_once)
    mixed = run()
    assert stopped and plain.stats["path"] == "compiled"
    assert mixed.stats["path"] == "mixed" and mixed.stats["python_steps"] == 1
    assert mixed.stats["nsteps"] == plain.stats["nsteps"]
    assert np.abs(mixed.y - plain.y).max() <= 1e-7 * np.abs(plain.y).max()

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


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=needs_numba)], ids=["python", "compiled"])
def test_a_step_that_cannot_converge_names_the_iterations_it_took(compiled):
    """One iteration per attempt: the message counts the iterations of both attempts (not the
    maximum of one), from the compiled steps as from the interpreted ones (one loop)."""
    from phmech.solvers.base import SolverError
    with pytest.raises(SolverError, match=r"midpoint failed at t = 0: Newton iteration converged too slowly "
                                          r"\(last relative increment [\d.e+-]+ after 2 iterations, also with a "
                                          r"fresh Jacobian\): reduce dt"):
        governor(130.0).simulate(0.01, dt=1e-3, compiled=compiled, max_newton=1)


@needs_numba
def test_a_compiled_block_keeps_the_steps_before_a_failing_one():
    """A block of compiled steps that stops at its eleventh step keeps the ten before (the run
    goes on from there with the next block) and follows the uninterrupted run to the Newton
    tolerance."""
    from phmech.mechanisms.tiny import loaded_rigid_crank_slider
    from phmech.solvers import midpoint_kernels as mk

    def run():
        s = loaded_rigid_crank_slider()
        return s.simulate(0.05, y0=s.assemble().initial_state(), dt=1e-4)

    plain = run()
    original, stopped = mk.midpoint_steps, []

    class StopOnce:
        """midpoint_steps, its eleventh step of the first long block reported as not converged"""
        def __call__(self, data, lu, y, z_prev, has_prev, lu_h, has_lu, hs, *rest):
            if stopped or hs.size <= 10:
                return original(data, lu, y, z_prev, has_prev, lu_h, has_lu, hs, *rest)
            stopped.append(True)
            out = original(data, lu, y, z_prev, has_prev, lu_h, has_lu, hs[:10], *rest)
            return (out[0], 0) + out[2:]
    mp = pytest.MonkeyPatch()
    mp.setattr(mk, "midpoint_steps", StopOnce())
    try:
        again = run()
    finally:
        mp.undo()
    assert stopped and plain.stats["path"] == again.stats["path"] == "compiled"
    assert again.stats["nsteps"] == plain.stats["nsteps"]
    assert np.abs(again.y - plain.y).max() <= 1e-7 * np.abs(plain.y).max()

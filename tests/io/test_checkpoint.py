"""Checkpoints and restarts: a continued run equals the uninterrupted one; damaged files
and other models are refused."""
import os

import numpy as np
import pytest
from conftest import needs_firedrake

pytest.importorskip("h5py")

from phmech import Result  # noqa: E402
from phmech.io.checkpoint import CheckpointError  # noqa: E402

T_END = 0.04
SOLVERS = [("midpoint", dict(dt=1e-4)), ("radau", dict(rtol=1e-8, atol=1e-8))]


class Killed(Exception):
    pass


def kill_after(t_kill):
    """A callback that stops the run like a killed process after ``t_kill``."""
    def cb(solver):
        if solver.t > t_kill:
            raise Killed
    return cb


def interrupted_and_continued(system, path, solver, opts, t_end, t_kill, every, **driver):
    """Run with periodic checkpoints, kill it after ``t_kill``, continue from the file."""
    with pytest.raises(Killed):
        system.simulate(t_end, solver=solver, checkpoint=path, checkpoint_every=every,
                        callbacks=[kill_after(t_kill)], **opts, **driver)
    saved = Result.load(path, system)
    assert saved.message == "checkpoint"
    return saved, system.simulate(t_end, solver=solver, restart=path, **opts, **driver)


@pytest.mark.parametrize("solver, opts", SOLVERS)
def test_restart_equals_uninterrupted(rigid_crank_slider, tmp_path, solver, opts):
    s = rigid_crank_slider[0]
    full = s.simulate(T_END, solver=solver, **opts)
    path = str(tmp_path / "run.h5")
    saved, cont = interrupted_and_continued(s, path, solver, opts, T_END, 0.021, 0.01)
    # killed after 0.021: the last checkpoint is the one at 0.02 (at most one interval lost)
    assert 0.02 - 1e-9 <= saved.t[-1] < 0.021 + 1e-3
    assert 0 < len(saved.t) < len(full.t)
    assert np.array_equal(cont.t, full.t)
    diff = np.max(np.abs(cont.y - full.y))
    if solver == "midpoint":
        assert diff == 0.0                    # bit for bit, work record included
        assert np.array_equal(cont.work, full.work)
    else:
        assert diff <= 1e-8 * np.max(np.abs(full.y))
    assert cont.stats["nsteps"] == full.stats["nsteps"]
    print(f"{solver}: max |y_restart - y_uninterrupted| = {diff:.3g}")


def test_restart_with_output_times_and_breakpoints(rigid_crank_slider, tmp_path):
    """Output grid and breakpoints of the original run are kept across the restart."""
    s = rigid_crank_slider[0]
    drv = dict(dt_out=1.5e-3, tstops=[0.0125, 0.031])
    full = s.simulate(T_END, solver="midpoint", dt=2e-4, **drv)
    _, cont = interrupted_and_continued(s, str(tmp_path / "r.h5"), "midpoint", dict(dt=2e-4), T_END,
                                        0.018, 0.007, **drv)
    assert np.array_equal(cont.t, full.t)
    assert np.array_equal(cont.y, full.y)


def test_save_load_round_trip(rigid_crank_slider, tmp_path):
    s, crank, coupler, slider = rigid_crank_slider
    res = s.simulate(0.01, solver="midpoint", dt=1e-4)
    path = res.save(str(tmp_path / "res.h5"))
    back = Result.load(path, s)
    assert np.array_equal(back.t, res.t) and np.array_equal(back.y, res.y)
    assert np.array_equal(back.work, res.work)
    assert back.solver == "midpoint" and back.options == {"dt": 1e-4}
    assert back.stats == res.stats
    np.testing.assert_array_equal(back.q(slider), res.q(slider))
    np.testing.assert_array_equal(back.energy_balance(), res.energy_balance())
    # without a model: the data and the identity, no per-body views
    bare = Result.load(path)
    assert bare.dae is None and bare.model_identity["bodies"][0][0] == "crank"
    # a finished run continued further: the stored rows, then new ones
    longer = s.simulate(0.02, solver="midpoint", restart=path, dt=1e-4)
    assert np.array_equal(longer.y[:len(res.t)], res.y)
    assert longer.t[-1] == 0.02
    ref = s.simulate(0.02, solver="midpoint", dt=1e-4)
    assert np.max(np.abs(longer.y[:, s.assemble().sq] - ref.y[:, s.assemble().sq])) < 1e-9


def _damage(path, how):
    data = bytearray(open(path, "rb").read())
    if how == "truncated":
        data = data[:len(data) // 2]
    else:                              # flip bits in the trajectory data (the largest block, at the end)
        i = len(data) - 200
        data[i:i + 8] = bytes(b ^ 0x5A for b in data[i:i + 8])
    open(path, "wb").write(bytes(data))


@pytest.mark.parametrize("how", ["truncated", "corrupted"])
def test_damaged_file_is_refused(rigid_crank_slider, tmp_path, how):
    s = rigid_crank_slider[0]
    path = s.simulate(0.01, solver="midpoint", dt=1e-4).save(str(tmp_path / "res.h5"))
    _damage(path, how)
    with pytest.raises(CheckpointError, match="truncated|corrupted|damaged"):
        Result.load(path)
    with pytest.raises(CheckpointError):
        s.simulate(0.02, solver="midpoint", restart=path, dt=1e-4)


def test_corrupted_state_entry_is_detected(rigid_crank_slider, tmp_path):
    """A changed number anywhere (here the solver's step size) fails the checksum."""
    import h5py
    s = rigid_crank_slider[0]
    path = s.simulate(0.01, solver="radau").save(str(tmp_path / "res.h5"))
    with h5py.File(path, "r+") as fh:
        y = fh["data/state/y"]
        y[0] = y[0] + 1e-12
    with pytest.raises(CheckpointError, match="corrupted"):
        Result.load(path)


def test_other_model_is_refused(rigid_crank_slider, tmp_path):
    from mechanisms import rigid_crank_slider as build
    s = rigid_crank_slider[0]
    path = s.simulate(0.01, solver="midpoint", dt=1e-4).save(str(tmp_path / "res.h5"))
    Result.load(path, build()[0])                            # the same model built again: accepted
    heavier = build()
    heavier[0].add_damper(heavier[3].port("P"), 0.1, name="damper")
    with pytest.raises(CheckpointError, match="another model.*loads"):
        heavier[0].simulate(0.02, solver="midpoint", restart=path, dt=1e-4)
    m, crank, _, _ = build()
    crank.M = 1.5 * crank.M                                   # a heavier crank: same layout, other matrix
    with pytest.raises(CheckpointError, match="matrix M differs"):
        Result.load(path, m)
    with pytest.raises(CheckpointError, match="solver 'midpoint'"):
        s.simulate(0.02, solver="radau", restart=path)


def test_unsupported_solver_and_bad_interval(rigid_crank_slider, tmp_path):
    s = rigid_crank_slider[0]
    with pytest.raises(ValueError, match="checkpoint_every must be positive"):
        s.simulate(0.01, solver="midpoint", dt=1e-4, checkpoint=str(tmp_path / "a.h5"), checkpoint_every=-1.0)
    with pytest.raises(ValueError, match="checkpoints are not supported"):
        s.simulate(0.01, solver="genalpha", checkpoint=str(tmp_path / "a.h5"), dt=1e-4)
    assert not os.path.exists(tmp_path / "a.h5")


@needs_firedrake
@pytest.mark.parametrize("solver, opts", [("midpoint", dict(dt=2e-4)), ("radau", dict(rtol=1e-6, atol=1e-6))])
def test_restart_flexible_crank_slider(tmp_path, solver, opts):
    """The crank-slider with a Firedrake beam coupler (4 elements): restart = uninterrupted."""
    from phmech.mechanisms import flexible_crank_slider
    system, _ = flexible_crank_slider(4)
    t_end = 0.01
    full = system.simulate(t_end, solver=solver, **opts)
    _, cont = interrupted_and_continued(system, str(tmp_path / "beam.h5"), solver, opts, t_end, 0.0055, 0.005)
    diff = np.max(np.abs(cont.y - full.y))
    assert np.array_equal(cont.t, full.t)
    if solver == "midpoint":
        assert diff == 0.0
    else:
        assert diff <= 1e-6 * np.max(np.abs(full.y))
    print(f"flexible {solver}: max |y_restart - y_uninterrupted| = {diff:.3g}")


def test_events_before_the_checkpoint_are_kept(rigid_crank_slider, tmp_path):
    """Zero crossings found before the interruption are in the continued result."""
    from mechanisms import L1, L2
    s = rigid_crank_slider[0]
    sq = s.assemble().q_slices["slider"]
    q_of = s.assemble().sq

    def slider_mid(t, y):
        return y[q_of][sq][0] - (L2 + 0.5 * L1)
    full = s.simulate(T_END, solver="midpoint", dt=1e-4, events=[slider_mid])
    assert len(full.t_events[0]) >= 2
    _, cont = interrupted_and_continued(s, str(tmp_path / "ev.h5"), "midpoint", dict(dt=1e-4), T_END,
                                        0.021, 0.01, events=[slider_mid])
    assert np.array_equal(cont.t_events[0], full.t_events[0])
    assert np.array_equal(cont.y_events[0], full.y_events[0])


def test_command_line_checkpoint_options(rigid_crank_slider, tmp_path):
    """The options of a case's command line reach the driver: checkpoint, then restart."""
    from phmech.validation import _common
    p = _common.parser("demo", tfinal=0.02, dt=1e-4, checkpoints=True)
    args = p.parse_args(["--outdir", str(tmp_path), "--checkpoint-every", "0.005"])
    opts = _common.checkpoint_options(args)
    assert opts == {"checkpoint": os.path.join(str(tmp_path), "checkpoint.h5"), "checkpoint_every": 0.005}
    s = rigid_crank_slider[0]
    first = s.simulate(args.tfinal, dt=args.dt, **opts)
    again = s.simulate(0.03, dt=args.dt,
                       **_common.checkpoint_options(p.parse_args(["--restart", opts["checkpoint"]])))
    assert np.array_equal(again.y[:len(first.t)], first.y) and again.t[-1] == 0.03
    with pytest.raises(SystemExit):
        p.parse_args(["--checkpoint-every", "-1"])
    assert _common.checkpoint_options(_common.parser("plain", tfinal=1.0).parse_args([])) == {}


def test_killed_process_loses_at_most_one_interval(rigid_crank_slider, tmp_path):
    """A process killed by SIGKILL in the middle of a run: the checkpoint on disk is intact,
    at most one interval old, and the continued run equals the uninterrupted one."""
    import subprocess
    import sys
    import textwrap
    path = str(tmp_path / "killed.h5")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # tests/
    script = textwrap.dedent(f"""
        import os, signal, sys
        sys.path.insert(0, {here!r})
        from mechanisms import rigid_crank_slider
        s = rigid_crank_slider()[0]
        def kill(solver):
            if solver.t > 0.0275:
                os.kill(os.getpid(), signal.SIGKILL)
        s.simulate({T_END}, solver="midpoint", dt=1e-4, checkpoint={path!r}, checkpoint_every=0.01,
                   callbacks=[kill])
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9, proc.stderr
    saved = Result.load(path)
    assert 0.0275 - 0.01 < saved.t[-1] <= 0.0275
    assert not [f for f in os.listdir(tmp_path) if f != "killed.h5"]     # no half-written file left
    s = rigid_crank_slider[0]
    cont = s.simulate(T_END, solver="midpoint", dt=1e-4, restart=path)
    full = s.simulate(T_END, solver="midpoint", dt=1e-4)
    assert np.array_equal(cont.y, full.y)


@needs_firedrake
def test_case_command_line_restart_equals_the_uninterrupted_run(tmp_path):
    """``--checkpoint`` then ``--restart`` of the crank-slider's command line: the same CSV as one run."""
    from phmech.validation import crank_slider
    common = ["--n-elem", "2", "--no-plot", "-q"]
    crank_slider.main(["--tfinal", "0.004", "--outdir", str(tmp_path / "a"),
                       "--checkpoint", str(tmp_path / "a.h5")] + common)
    crank_slider.main(["--tfinal", "0.008", "--outdir", str(tmp_path / "b"),
                       "--restart", str(tmp_path / "a.h5")] + common)
    crank_slider.main(["--tfinal", "0.008", "--outdir", str(tmp_path / "c")] + common)
    from phmech.validation._common import read_csv
    b, c = read_csv(tmp_path / "b" / "crank_slider.csv"), read_csv(tmp_path / "c" / "crank_slider.csv")
    assert b.shape == c.shape
    for name in ("t", "crank_angle", "slider_x", "uy_mid_over_L", "hamiltonian"):      # the states: bit for bit
        assert np.array_equal(b[name], c[name]), name
    # quantities derived through the restored work record or a recomputed displacement map: round-off
    for name in ("ux_mid_over_L", "energy_balance", "constraint_residual"):
        assert np.allclose(b[name], c[name], rtol=0, atol=1e-12 * max(1.0, np.abs(c[name]).max())), name


def loaded_crank_slider():
    """The crank-slider spun up by a drive function, under gravity, with a damper and a force function:
    every kind of parameter the model identity records."""
    from test_bad_input_checkpoint import crank_slider, spin_up
    return crank_slider(omega=spin_up(150.0), gravity=(0.0, -9.81), damper=0.05,
                        force=lambda t: np.array([0.5 * np.sin(200.0 * t), 0.0]))


def test_restart_of_a_rebuilt_model_with_functions_and_gravity(tmp_path):
    """The identity of drive and load functions (source, closure values), gravity and damping is the
    same for the model built again: the rebuilt model continues the checkpoint, bit for bit."""
    from phmech.io.checkpoint import model_identity
    first = loaded_crank_slider()
    params = model_identity(first.assemble())["parameters"]
    assert params["joint 'drive(crank.P)'"]["omega"]["closure"] == {"tau": 0.01, "w0": 150.0}
    assert params["load 'gravity(coupler)'"] == {"g": [0.0, -9.81]}
    assert params["load 'damper'"] == {"c": 0.05}
    assert "np.sin(200.0 * t)" in params["load 'push'"]["force"]["source"]
    path = str(tmp_path / "loaded.h5")
    with pytest.raises(Killed):
        first.simulate(T_END, solver="midpoint", dt=1e-4, checkpoint=path, checkpoint_every=0.01,
                       callbacks=[kill_after(0.021)])
    again = loaded_crank_slider()
    assert model_identity(again.assemble()) == Result.load(path).model_identity
    cont = again.simulate(T_END, solver="midpoint", dt=1e-4, restart=path)
    full = loaded_crank_slider().simulate(T_END, solver="midpoint", dt=1e-4)
    assert np.array_equal(cont.t, full.t) and np.array_equal(cont.y, full.y)
    assert np.array_equal(cont.work, full.work)


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_checkpoint_files_follow_the_umask(rigid_crank_slider, tmp_path, umask):
    """Periodic and final checkpoints get the mode 0666 less the umask (they used to be 0600)."""
    s = rigid_crank_slider[0]
    old = os.umask(umask)
    try:
        with pytest.raises(Killed):
            s.simulate(0.02, solver="midpoint", dt=1e-4, checkpoint=str(tmp_path / "periodic.h5"),
                       checkpoint_every=0.005, callbacks=[kill_after(0.006)])
        s.simulate(0.002, solver="midpoint", dt=1e-4, checkpoint=str(tmp_path / "final.h5"))
    finally:
        os.umask(old)
    for name in ("periodic.h5", "final.h5"):
        assert os.stat(tmp_path / name).st_mode & 0o777 == 0o666 & ~umask, name
    assert sorted(os.listdir(tmp_path)) == ["final.h5", "periodic.h5"]

"""Bad input and faults around checkpoints: each case raises one clear error of the exact type,
naming the file, parameter or value, before the run where it can.

* unusable checkpoint paths (API ``checkpoint=`` and ``--checkpoint``) and
  ``checkpoint_every`` without a file: refused before the first step;
* another model (drive values, loads, gravity, damping, functions by source,
  closure and globals): the restart names what differs; a model that cannot
  be identified is refused before the run;
* a full disk or a file size limit during a write: one error naming the file
  and the cause, the previous checkpoint intact, no temporary file left, and
  the process goes on.
"""
import os
import re
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

pytest.importorskip("h5py")

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mechanisms import L1, L2, OMEGA  # noqa: E402
from phmech import Result  # noqa: E402
from phmech.solvers.problem import DAEProblem  # noqa: E402
from phmech.io.checkpoint import TEMPORARY_PREFIX, CheckpointError, UnidentifiableError  # noqa: E402
from phmech.solvers import solve  # noqa: E402
from phmech.mechanisms import rigid_crank_slider  # noqa: E402
from phmech.validation import _common  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # tests/
DT = 1e-4


def crank_slider(omega=OMEGA, gravity=None, force=None, damper=None):
    """The rigid crank-slider of :mod:`mechanisms` with a chosen drive, gravity, force and damper."""
    s, _, _, slider = rigid_crank_slider(L1, L2, omega)
    if gravity is not None:
        s.add_gravity(gravity)
    if force is not None:
        s.apply_force(slider.port("P"), force, name="push")
    if damper is not None:
        s.add_damper(slider.port("P"), damper, name="damper")
    return s


def saved(system, path, t_end=0.002):
    """A short run of ``system`` written to ``path``."""
    system.simulate(t_end, solver="midpoint", dt=DT, checkpoint=str(path))
    return str(path)


def refused(stored_model, other_model, tmp_path, expected):
    """``other_model`` restarted from a checkpoint of ``stored_model``: one CheckpointError naming
    ``expected`` (exact text), for the restart and for loading with the model."""
    path = saved(stored_model, tmp_path / "run.h5")
    with pytest.raises(CheckpointError, match=re.escape(expected)) as err:
        other_model.simulate(0.004, solver="midpoint", dt=DT, restart=path)
    assert type(err.value) is CheckpointError and path in str(err.value)
    with pytest.raises(CheckpointError, match=re.escape(expected)):
        Result.load(path, other_model)
    return str(err.value)


class Steps:
    """A callback counting the steps taken (zero when a run is refused before it starts)."""

    def __init__(self):
        self.n = 0

    def __call__(self, solver):
        self.n += 1


#: the end of the message of a failed final write (the run's result is attached to the error)
FINAL = "; the run itself completed: its result is attached to this error as .result"


def leftovers(directory):
    return [f for f in os.listdir(directory) if f.startswith(TEMPORARY_PREFIX)]


# -- the checkpoint path and interval, checked before the run ------------------------------------
@pytest.fixture
def readonly_dir(tmp_path):
    """A directory where no file can be created: mode 0555, or (for root, who ignores the mode)
    a read-only tmpfs mounted there; skipped where neither works."""
    d = tmp_path / "readonly"
    d.mkdir()
    d.chmod(0o555)
    mounted = False
    try:
        open(d / "probe", "w").close()
        os.remove(d / "probe")
        d.chmod(0o755)
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(d)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            pytest.skip(f"no read-only directory can be made here: {proc.stderr.strip()}")
        mounted = True
    except PermissionError:
        pass
    yield d
    if mounted:
        subprocess.run(["umount", str(d)], check=False)
    else:
        d.chmod(0o755)


def test_checkpoint_in_a_missing_directory(tmp_path):
    path = str(tmp_path / "nowhere" / "run.h5")
    steps = Steps()
    with pytest.raises(ValueError, match=re.escape(f"checkpoint {path!r} cannot be written: the directory "
                                                   f"{str(tmp_path / 'nowhere')!r} does not exist")) as err:
        crank_slider().simulate(0.01, dt=DT, checkpoint=path, callbacks=[steps])
    assert type(err.value) is ValueError
    assert steps.n == 0 and not os.path.exists(tmp_path / "nowhere")


def test_checkpoint_in_a_readonly_directory(readonly_dir):
    path = str(readonly_dir / "run.h5")
    steps = Steps()
    with pytest.raises(ValueError, match=re.escape(f"checkpoint {path!r} cannot be written: no file can be "
                                                   f"created in {str(readonly_dir)!r} (")) as err:
        crank_slider().simulate(0.01, dt=DT, checkpoint=path, checkpoint_every=0.005, callbacks=[steps])
    assert type(err.value) is ValueError
    assert re.search(r"\((Permission denied|Read-only file system)\)$", str(err.value))
    assert steps.n == 0


def test_checkpoint_below_a_file(tmp_path):
    (tmp_path / "plain").write_text("not a directory")
    path = str(tmp_path / "plain" / "run.h5")
    with pytest.raises(ValueError, match=re.escape(f"the directory {str(tmp_path / 'plain')!r} is not a "
                                                   "directory")):
        crank_slider().simulate(0.01, dt=DT, checkpoint=path)


def test_checkpoint_that_is_a_directory(tmp_path):
    with pytest.raises(ValueError, match=re.escape(f"checkpoint {str(tmp_path)!r} is a directory; give a file "
                                                   f"in it, e.g. {os.path.join(str(tmp_path), 'checkpoint.h5')!r}")):
        crank_slider().simulate(0.01, dt=DT, checkpoint=str(tmp_path))


@pytest.mark.parametrize("value, error, text", [(3.5, TypeError, "checkpoint must be a file path, got 3.5"),
                                                ("", ValueError, "checkpoint must be a file path, got an empty "
                                                                 "string")])
def test_checkpoint_that_is_not_a_path(value, error, text):
    with pytest.raises(error, match=re.escape(text)) as err:
        crank_slider().simulate(0.01, dt=DT, checkpoint=value)
    assert type(err.value) is error


def test_interval_without_a_file(tmp_path):
    """``checkpoint_every`` alone used to write nothing and say nothing."""
    steps = Steps()
    with pytest.raises(ValueError, match=re.escape("midpoint: checkpoint_every=0.005 is given without "
                                                   "checkpoint=")) as err:
        crank_slider().simulate(0.01, dt=DT, checkpoint_every=0.005, callbacks=[steps])
    assert type(err.value) is ValueError and steps.n == 0
    # the same through the driver's lower level (a solver constructed by hand)
    from phmech.solvers.driver import integrate
    from phmech.solvers.midpoint import ImplicitMidpoint
    dae = crank_slider().assemble()
    solver = ImplicitMidpoint(dae, 0.0, dae.initial_state(0.0), 0.01, dt=DT)
    with pytest.raises(ValueError, match=re.escape("midpoint: checkpoint_every=0.005 is given without "
                                                   "checkpoint=")):
        integrate(solver, checkpoint_every=0.005)
    assert solver.t == 0.0 and os.listdir(tmp_path) == []


def test_command_line_checkpoint_in_a_readonly_directory(readonly_dir, capsys):
    p = _common.parser("demo", tfinal=0.01, dt=DT, checkpoints=True)
    path = str(readonly_dir / "sub" / "run.h5")
    with pytest.raises(SystemExit) as exc:
        p.parse_args(["--checkpoint", path])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "argument --checkpoint" in err and repr(path) in err
    assert re.search("Permission denied|Read-only file system", err)


def test_command_line_checkpoint_below_a_file(tmp_path, capsys):
    (tmp_path / "plain").write_text("x")
    path = str(tmp_path / "plain" / "run.h5")
    p = _common.parser("demo", tfinal=0.01, dt=DT, checkpoints=True)
    with pytest.raises(SystemExit) as exc:
        p.parse_args(["--checkpoint", path])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "argument --checkpoint" in err and repr(path) in err
    assert f"the directory {str(tmp_path / 'plain')!r} is not a directory" in err
    # a missing directory is created, as --outdir is
    made = tmp_path / "new" / "dir" / "run.h5"
    assert p.parse_args(["--checkpoint", str(made)]).checkpoint == str(made)
    assert made.parent.is_dir()


# -- another model: the restart names what differs ------------------------------------------------
def test_other_drive_value(tmp_path):
    refused(crank_slider(omega=150.0), crank_slider(omega=100.0), tmp_path,
            "joint 'drive(crank.P)' omega: 150.0 in the checkpoint, 100.0 in the model")


def test_other_gravity(tmp_path):
    text = refused(crank_slider(gravity=(0.0, -9.81)), crank_slider(gravity=(0.0, -1.62)), tmp_path,
                   "load 'gravity(crank)' g: [0.0, -9.81] in the checkpoint, [0.0, -1.62] in the model")
    assert "load 'gravity(slider)' g" in text                       # every body's gravity is named


def test_other_force(tmp_path):
    text = refused(crank_slider(force=(2.0, 0.0)), crank_slider(force=(3.0, 0.0)), tmp_path,
                   "load 'push' force: [2.0, 0.0] in the checkpoint, [3.0, 0.0] in the model")
    assert "load 'push' inertial" not in text


def test_other_damping(tmp_path):
    refused(crank_slider(damper=0.1), crank_slider(damper=0.2), tmp_path,
            "load 'damper' c: 0.1 in the checkpoint, 0.2 in the model")


def spin_up(w0, tau=0.01):
    """A drive ramping up to ``w0`` (a closure: its value is part of the model)."""
    return lambda t: w0 * (1.0 - np.exp(-t / tau))


def test_other_closure_value_of_a_drive_function(tmp_path):
    refused(crank_slider(omega=spin_up(150.0)), crank_slider(omega=spin_up(100.0)), tmp_path,
            "joint 'drive(crank.P)' omega closure w0: 150.0 in the checkpoint, 100.0 in the model")


def test_other_source_of_a_drive_function(tmp_path):
    def other_ramp(w0, tau=0.01):
        return lambda t: w0 * (t / tau) / (1.0 + t / tau)
    text = refused(crank_slider(omega=spin_up(150.0)), crank_slider(omega=other_ramp(150.0)), tmp_path,
                   "joint 'drive(crank.P)' omega: function test_bad_input_checkpoint.spin_up.<locals>.<lambda> "
                   "in the checkpoint, another source in the model")
    assert "np.exp" in text                                         # the stored source, shortened


SETTINGS = {"w": 150.0}


def driven_by_global(t):
    """A drive reading a module-level setting (a global: part of the model as well)."""
    return SETTINGS["w"]


def test_other_global_value_of_a_drive_function(tmp_path, monkeypatch):
    path = saved(crank_slider(omega=driven_by_global), tmp_path / "run.h5")
    monkeypatch.setitem(SETTINGS, "w", 120.0)
    with pytest.raises(CheckpointError, match=re.escape(
            "joint 'drive(crank.P)' omega globals SETTINGS w: 150.0 in the checkpoint, 120.0 in the model")):
        crank_slider(omega=driven_by_global).simulate(0.004, dt=DT, restart=path)


def test_other_function_of_a_hand_written_problem(tmp_path):
    def oscillator(k):
        return DAEProblem(np.eye(2), lambda t, y: np.array([y[1], -k * y[0]]), labels=["x", "v"])
    y0 = np.array([1.0, 0.0])
    path = str(tmp_path / "osc.h5")
    solve(oscillator(4.0), (0.0, 0.01), y0, dt=1e-3, checkpoint=path)
    with pytest.raises(CheckpointError, match=re.escape("problem f closure k: 4.0 in the checkpoint, "
                                                        "9.0 in the model")):
        solve(oscillator(9.0), (0.0, 0.02), y0, dt=1e-3, restart=path)


def mass_on_a_spring(x, **spring):
    """A point mass at ``(x, 0)`` on a spring to the origin (rest length: the initial distance
    unless given)."""
    from phmech import PointMass, System
    mass = PointMass("mass", 2.5, (x, 0.0))
    s = System([mass])
    s.add_spring(mass.port("P"), None, **{"stiffness": 90.0, "at": (0.0, 0.0), **spring})
    return s


def test_a_spring_started_elsewhere_has_another_rest_length(tmp_path):
    """The rest length taken from the initial configuration is part of the model."""
    refused(mass_on_a_spring(1.0), mass_on_a_spring(1.2), tmp_path,
            "load 'spring(mass.P, ground)' rest length from the initial configuration: 1.0 in the "
            "checkpoint, 1.2 in the model")


def test_a_spring_with_a_given_rest_length_started_elsewhere_is_the_same_model(tmp_path):
    """A given rest length does not depend on the start (the state comes from the checkpoint)."""
    path = saved(mass_on_a_spring(1.0, rest_length=0.9), tmp_path / "run.h5")
    more = mass_on_a_spring(1.2, rest_length=0.9).simulate(0.004, solver="midpoint", dt=DT, restart=path)
    assert more.t[-1] == pytest.approx(0.004)


def rod_on_a_bushing(x, angle=0.0):
    """A rod whose end A is held by a planar bushing to the ground where it starts."""
    from phmech import PlanarRigidBody, System
    rod = PlanarRigidBody.rod("rod", 0.5, 0.3, position=(x, 0.0), angle=angle)
    s = System([rod])
    s.add_bushing(rod.port("A"), None, stiffness=[[1e3, 0, 0], [0, 1e3, 0], [0, 0, 10.0]])
    return s


def test_a_bushing_started_elsewhere_has_another_ground_anchor(tmp_path):
    text = refused(rod_on_a_bushing(0.0), rod_on_a_bushing(0.1), tmp_path,
                   "load 'bushing(rod.A, ground)' ground anchor from the initial configuration: [0.0, 0.0] in "
                   "the checkpoint, [0.1, 0.0] in the model")
    assert "unloaded strain" not in text                       # the same relative state: only the anchor


def test_a_bushing_started_at_another_angle_has_another_unloaded_state(tmp_path):
    refused(rod_on_a_bushing(0.0), rod_on_a_bushing(0.0, angle=0.5), tmp_path,
            "load 'bushing(rod.A, ground)' unloaded strain from the initial configuration: "
            "[0.0, 0.0, 0.0, 0.0, 0.0, 0.0] in the checkpoint, [0.0, 0.0, -0.5, 0.0, 0.0, 0.0] in the model")


def pendulum_on_a_torsional_spring(angle):
    from phmech import PlanarRigidBody, System
    rod = PlanarRigidBody.rod("rod", 0.5, 0.3, angle=angle)
    s = System([rod])
    pin = s.pin(rod.port("A"), name="pin")
    s.add_torsional_spring(pin, 2.0)
    return s


def test_a_torsional_spring_started_at_another_angle_has_another_unloaded_angle(tmp_path):
    refused(pendulum_on_a_torsional_spring(0.0), pendulum_on_a_torsional_spring(0.25), tmp_path,
            "load 'torsion(pin)' unloaded strain from the initial configuration: 0.0 in the checkpoint, "
            "-0.25 in the model")


def test_a_law_reading_a_module_parameter_records_its_value(tmp_path, monkeypatch):
    """``cfg.k`` of a user module read by a law: its value is part of the model, not only the
    module's name."""
    (tmp_path / "spring_settings.py").write_text("k = 90.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import spring_settings as cfg
    monkeypatch.setattr(cfg, "k", 90.0)

    def law(length, rate):
        return cfg.k * (length - 1.0)
    stored = mass_on_a_spring(1.1, law=law, stiffness=0.0)
    path = saved(stored, tmp_path / "run.h5")
    monkeypatch.setattr(cfg, "k", 360.0)
    with pytest.raises(CheckpointError, match=re.escape(
            "law module values cfg.k: 90.0 in the checkpoint, 360.0 in the model")):
        mass_on_a_spring(1.1, law=law, stiffness=0.0).simulate(0.004, solver="midpoint", dt=DT, restart=path)


def test_model_that_cannot_be_identified(tmp_path):
    """A drive function referring to an object without recordable value (a lock): refused before the
    run, naming the joint, the parameter and the variable."""
    lock = threading.Lock()
    path = tmp_path / "run.h5"
    steps = Steps()
    s = crank_slider(omega=lambda t: 150.0 if lock else 0.0)
    with pytest.raises(UnidentifiableError, match=r"^joint 'drive\(crank.P\)' omega \(function .*<lambda>\) "
                                                  r"closure variable 'lock': lock <unlocked _thread.lock") as err:
        s.simulate(0.01, dt=DT, checkpoint=str(path), checkpoint_every=0.005, callbacks=[steps])
    assert isinstance(err.value, TypeError) and "the model cannot be identified" in str(err.value)
    assert steps.n == 0 and not path.exists()
    s.simulate(0.001, dt=DT)                                  # without a checkpoint, nothing to identify


# -- a full disk or a file size limit during a write ---------------------------------------------
def periodic_checkpoint_size(tmp_path):
    """Size of the periodic checkpoint at t = 0.02 of a run to 0.04 (interval 0.01)."""
    class Stop(Exception):
        pass

    def stop(solver):
        if solver.t > 0.021:
            raise Stop
    probe = str(tmp_path / "probe.h5")
    with pytest.raises(Stop):
        crank_slider().simulate(0.04, dt=DT, checkpoint=probe, checkpoint_every=0.01, callbacks=[stop])
    size = os.path.getsize(probe)
    os.remove(probe)
    return size


def test_file_size_limit_during_a_run(tmp_path):
    """Under ``RLIMIT_FSIZE`` the checkpoint at 0.03 does not fit: the run stops with one
    CheckpointError naming the file and the cause, the checkpoint at 0.02 stays and continues to
    the uninterrupted run, no temporary file remains, and a second failing write is the same clean
    error (it used to crash the process)."""
    limit = periodic_checkpoint_size(tmp_path) + 4096          # an interval adds ~19 kB
    path, good = str(tmp_path / "run.h5"), str(tmp_path / "good.h5")
    script = textwrap.dedent(f"""
        import os, resource, shutil, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)          # an oversized write fails with EFBIG
        sys.path[:0] = [{HERE!r}, {os.path.join(HERE, "io")!r}]
        from test_bad_input_checkpoint import crank_slider, leftovers
        from phmech import Result
        from phmech.io.checkpoint import CheckpointError
        s = crank_slider()
        full = s.simulate(0.04, dt={DT})                        # compiled and cached before the limit
        hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
        resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, hard))
        for attempt in ("run", "save"):
            try:
                if attempt == "run":
                    s.simulate(0.04, dt={DT}, checkpoint={path!r}, checkpoint_every=0.01)
                else:
                    full.save({path!r})
                print("NO ERROR")
            except CheckpointError as err:
                print("ERROR", attempt, err)
            print("KEPT", Result.load({path!r}, s).t[-1], "LEFT", leftovers({str(tmp_path)!r}))
            if attempt == "run":
                shutil.copy({path!r}, {good!r})
        resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
        full.save({path!r})
        print("SAVED", Result.load({path!r}, s).t[-1])
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    errors = [ln for ln in lines if ln.startswith("ERROR")]
    assert "NO ERROR" not in lines and len(errors) == 2, proc.stdout
    for line in errors:
        assert f"checkpoint {path!r} could not be written: File too large (the file size limit, ulimit -f, " \
               f"is {limit} bytes)" in line
        assert line.endswith(f"the previous checkpoint in {path!r} is unchanged")
    kept = [ln.split() for ln in lines if ln.startswith("KEPT")]
    assert len(kept) == 2 and all(k[2:] == ["LEFT", "[]"] and float(k[1]) == pytest.approx(0.02) for k in kept)
    assert lines[-1].startswith("SAVED") and float(lines[-1].split()[1]) == 0.04
    assert not leftovers(tmp_path)
    # the checkpoint kept at the failure continues to the uninterrupted run, bit for bit
    s = crank_slider()
    assert np.array_equal(s.simulate(0.04, dt=DT, restart=good).y, s.simulate(0.04, dt=DT).y)


@pytest.mark.parametrize("fault", [OSError(28, "No space left on device"), MemoryError(), ValueError("odd")])
def test_a_failing_final_write_keeps_the_result(tmp_path, monkeypatch, fault):
    """Any failure of the final write (not only the checked ones): one CheckpointError naming the
    file and the cause, saying that the run completed, with the result attached."""
    s = crank_slider()
    path = str(tmp_path / "run.h5")

    def failing_save(self, where):
        raise fault
    monkeypatch.setattr(Result, "save", failing_save)
    with pytest.raises(CheckpointError, match=re.escape(
            f"checkpoint {path!r} could not be written at the end of the run ({type(fault).__name__}: {fault})"
            + FINAL)) as err:
        s.simulate(0.004, dt=DT, checkpoint=path)
    assert err.value.__cause__ is fault
    monkeypatch.undo()
    res = err.value.result
    assert np.array_equal(res.y, s.simulate(0.004, dt=DT).y) and res.t[-1] == pytest.approx(0.004)
    res.save(path)                                            # written later, elsewhere or again
    assert Result.load(path, s).t[-1] == pytest.approx(0.004)


@pytest.fixture
def tiny_disk(tmp_path):
    """A 64 kB tmpfs (skipped where mounting is not allowed)."""
    d = tmp_path / "tiny"
    d.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(d)], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {proc.stderr.strip() or proc.returncode}")
    yield d
    subprocess.run(["umount", str(d)], check=False)


def test_full_disk(tiny_disk):
    s = crank_slider()
    path = saved(s, tiny_disk / "run.h5")                        # a few kB: fits
    before = open(path, "rb").read()
    with pytest.raises(CheckpointError) as err:
        s.simulate(0.04, dt=DT, checkpoint=path)                 # ~90 kB: does not
    assert type(err.value) is CheckpointError
    assert str(err.value).startswith(f"checkpoint {path!r} could not be written: No space left on device")
    assert str(err.value).endswith(f"the previous checkpoint in {path!r} is unchanged" + FINAL)
    assert err.value.result.t[-1] == pytest.approx(0.04)          # the run is not lost with the write
    assert open(path, "rb").read() == before and Result.load(path, s).t[-1] == pytest.approx(0.002)
    assert os.listdir(tiny_disk) == ["run.h5"]
    # a second write: the same clean error; then a small one succeeds
    long_run = s.simulate(0.04, dt=DT)
    with pytest.raises(CheckpointError, match="No space left on device"):
        long_run.save(path)
    s.simulate(0.003, dt=DT, checkpoint=path)
    assert Result.load(path, s).t[-1] == pytest.approx(0.003) and os.listdir(tiny_disk) == ["run.h5"]


@pytest.mark.parametrize("fault, text", [("flipped", r"the \d+ bytes read back differ from those written$"),
                                         ("short", r"the file holds \d+ of \d+ bytes after writing$")])
def test_silently_damaged_write(tmp_path, monkeypatch, fault, text):
    """A device that damages or drops bytes without an error: the check of what was written
    (size, SHA-256 of the bytes read back) refuses the file before it replaces the good one."""
    s = crank_slider()
    path = saved(s, tmp_path / "run.h5")
    before = open(path, "rb").read()
    real_write = os.write

    def bad_write(fd, data):
        data = bytes(data)
        if fault == "flipped":
            real_write(fd, data[:-1] + bytes([data[-1] ^ 0xFF]))
        else:
            real_write(fd, data[:-100])
        return len(data)
    monkeypatch.setattr(os, "write", bad_write)
    with pytest.raises(CheckpointError, match=re.escape(f"checkpoint {path!r} could not be written: ") +
                       text[:-1] + re.escape(FINAL) + "$") as err:
        s.simulate(0.004, dt=DT, checkpoint=path)
    assert type(err.value) is CheckpointError
    if fault == "short":                                      # the 100 dropped bytes are seen
        held, total = map(int, re.findall(r"(\d+) of (\d+) bytes", str(err.value))[0])
        assert total - held == 100
    monkeypatch.undo()
    assert open(path, "rb").read() == before and os.listdir(tmp_path) == ["run.h5"]
    assert np.array_equal(err.value.result.y, s.simulate(0.004, dt=DT).y)     # the computed run, kept


# -- crafted files: data, checked before use, never code ------------------------------------------
def crafted(tmp_path, change=None, meta_text=None, name="crafted.h5"):
    """A checkpoint of the crank-slider rewritten with ``change(meta, arrays)`` applied and a
    valid checksum (anyone can compute it: it guards against damage, not against intent)."""
    import json
    from phmech.io import checkpoint
    good = saved(crank_slider(), tmp_path / "good.h5")
    meta, arrays = checkpoint.read(good)
    if change is not None:
        change(meta, arrays)
    text = meta_text if meta_text is not None else json.dumps(meta, sort_keys=True)
    path = tmp_path / name
    path.write_bytes(checkpoint._image(text, arrays))
    return str(path)


def refused_file(path, text):
    """Result.load of ``path``: one CheckpointError naming the file and ``text``."""
    with pytest.raises(CheckpointError, match=re.escape(f"checkpoint {path!r}: {text}")) as err:
        Result.load(path)
    assert type(err.value) is CheckpointError
    return str(err.value)


def test_a_declared_dataset_the_file_does_not_hold_is_not_allocated(tmp_path):
    """30 kB declaring a 16 GiB compressed dataset that was never written: refused from the
    sizes alone, before anything is read."""
    import h5py
    import resource
    path = crafted(tmp_path)
    with h5py.File(path, "a") as fh:
        del fh["data/y"]
        fh["data"].create_dataset("y", shape=(2 ** 17, 2 ** 14), dtype="f8", compression="gzip",
                                  chunks=(256, 256))
    assert os.path.getsize(path) < 100_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    refused_file(path, "dataset 'data/y' declares 17179869184 bytes (compressed) but the file stores 0 for it")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000     # kB: nothing allocated


def test_an_unwritten_contiguous_dataset_is_refused(tmp_path):
    import h5py
    path = crafted(tmp_path)
    with h5py.File(path, "a") as fh:
        fh["data"].create_dataset("state/extra", shape=(10 ** 6,), dtype="f8")
    refused_file(path, "dataset 'data/state/extra' declares 8000000 bytes but the file stores 0 for it")


def test_datasets_declaring_more_than_the_limit_are_refused(tmp_path):
    from phmech.io import checkpoint
    path = saved(crank_slider(), tmp_path / "run.h5")
    with pytest.raises(CheckpointError, match=re.escape(f"checkpoint {path!r}: its datasets declare ") +
                       r"\d+ bytes, more than the limit of 1000 bytes"):
        checkpoint.read(path, limit=1000)
    assert checkpoint.read(path)[1]["t"][-1] == pytest.approx(0.002)


@pytest.mark.parametrize("dtype, shown", [("object", "object"), ("S8", "|S8"), ("V8", "|V8")])
def test_a_dataset_that_is_not_numbers_is_refused(tmp_path, dtype, shown):
    """Strings, opaque bytes (a pickle would be one) and objects are never read as data."""
    import h5py
    path = crafted(tmp_path)
    with h5py.File(path, "a") as fh:
        if dtype == "object":
            fh["data"].create_dataset("planted", data=["x"], dtype=h5py.string_dtype())
        elif dtype == "S8":
            fh["data"].create_dataset("planted", data=np.array([b"cos\nsystem"[:8]], "S8"))
        else:
            fh["data"].create_dataset("planted", data=np.void(b"\x80\x04K\x01." + b"\0" * 3))
    refused_file(path, "dataset 'data/planted' is of type ")


def _nest(depth):
    return "[" * depth + "]" * depth


def test_metadata_nested_beyond_the_recursion_limit(tmp_path):
    path = crafted(tmp_path, meta_text='{"solver": ' + _nest(10 ** 5) + "}")
    refused_file(path, "unreadable metadata (nested too deeply)")


def test_metadata_nested_deeper_than_phmech_writes(tmp_path):
    def deep(meta, arrays):
        meta["stats"]["x"] = [[[[[[[[[[[]]]]]]]]]]]
        for _ in range(120):
            meta["stats"]["x"] = [meta["stats"]["x"]]
    refused_file(crafted(tmp_path, deep), "the metadata is nested 133 levels deep (at most 100)")


def test_metadata_that_is_not_a_record(tmp_path):
    refused_file(crafted(tmp_path, meta_text="[1, 2]"), "the metadata is a list, not a record")


@pytest.mark.parametrize("key, value, text", [
    ("labels", "x", "the metadata entry 'labels' is 'x', not a list"),
    ("t0", True, "the metadata entry 't0' is True, not a number"),
    ("solver", None, "the metadata entry 'solver' is None, not a str"),
    ("labels", [1, 2], "the variable labels are not all strings"),
    ("n_events", -1, "the number of events -1 is not a count"),
])
def test_metadata_entries_of_the_wrong_kind(tmp_path, key, value, text):
    def change(meta, arrays):
        meta[key] = value
    refused_file(crafted(tmp_path, change), text)


def test_rows_one_value_short(tmp_path):
    def short(meta, arrays):
        arrays["y"] = arrays["y"][:, :-1]
    n_rows, n = Result.load(saved(crank_slider(), tmp_path / "plain.h5")).y.shape
    refused_file(crafted(tmp_path, short), f"the rows y[{n_rows}, {n - 1}] do not match the times t[{n_rows}] "
                                           f"and the {n} variables")


def test_a_ragged_solver_state_entry(tmp_path):
    def ragged(meta, arrays):
        meta["state"]["interval"] = [[0.0, 1.0], [2.0]]
    refused_file(crafted(tmp_path, ragged), "the solver state entry 'interval' is not a list of numbers of one shape")


def test_a_solver_state_of_another_size(tmp_path):
    def other(meta, arrays):
        arrays["state/y"] = arrays["state/y"][:-2]
    text = refused_file(crafted(tmp_path, other), "the solver state 'y' has shape [")
    assert "not the " in text


def test_a_work_record_of_another_length(tmp_path):
    def other(meta, arrays):
        arrays["work"] = arrays["work"][:-1]
    refused_file(crafted(tmp_path, other), "the work record has shape [")


def test_decreasing_stored_times(tmp_path):
    def backwards(meta, arrays):
        arrays["t"] = arrays["t"].copy()
        arrays["t"][5], arrays["t"][6] = arrays["t"][6], arrays["t"][5]
    path = crafted(tmp_path, backwards)
    text = refused_file(path, "the stored times decrease (row 6: t = ")
    s = crank_slider()
    with pytest.raises(CheckpointError, match=re.escape("the stored times decrease")):
        s.simulate(0.004, dt=DT, restart=path)
    assert text.count("checkpoint ") == 1


def test_non_finite_values_in_a_dataset(tmp_path):
    def nan(meta, arrays):
        arrays["y"] = arrays["y"].copy()
        arrays["y"][3, 0] = np.nan
    refused_file(crafted(tmp_path, nan), "dataset 'y' holds non-finite values")


def test_missing_rows(tmp_path):
    def no_t(meta, arrays):
        del arrays["t"]
    refused_file(crafted(tmp_path, no_t), "no t dataset")


def test_a_nul_in_a_checkpoint_path(tmp_path):
    bad = str(tmp_path / "run\0.h5")
    with pytest.raises(CheckpointError, match=re.escape(f"checkpoint {bad!r}: the path contains a NUL character")):
        Result.load(bad)
    run = crank_slider().simulate(0.001, dt=DT)
    with pytest.raises(CheckpointError, match=re.escape(f"checkpoint {bad!r}: the path contains a NUL character")):
        run.save(bad)
    with pytest.raises(ValueError, match=re.escape(f"checkpoint {bad!r}: the path contains a NUL character")):
        crank_slider().simulate(0.001, dt=DT, checkpoint=bad)
    assert os.listdir(tmp_path) == []

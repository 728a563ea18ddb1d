"""Bad input on the command lines (``phmech study``, ``phmech figures``, ``phmech run`` and the
validation cases' own options): one usage error, exit status 2, naming the option and the value,
before any computation."""
import importlib
import re

import pytest

from phmech import cli
from phmech import study as st

STUDY = ["study", "crank_slider", "--outdir", "{out}"]

#: (command line, the message on stderr (a regular expression)); {file}: an existing file, {out}: a directory
CASES = [
    pytest.param(STUDY + ["--param", "omega=100", "--param", "omega=150,200"],
                 r"study: --param 'omega' given twice \('omega=100' and 'omega=150,200'\); give all its values "
                 r"in one --param", id="study: --param name twice"),
    pytest.param(STUDY + ["--param", "omega=150,200", "--fixed", "omega=100"],
                 r"study: 'omega' given both with --param \(omega=150,200\) and with --fixed \(omega=100\); "
                 r"give it once", id="study: --param and --fixed for one name"),
    pytest.param(STUDY + ["--param", "omega=100", "--fixed", "t_end=0.1", "--fixed", "t_end=0.2"],
                 r"--fixed 't_end' given twice \('t_end=0.1' and 't_end=0.2'\)", id="study: --fixed name twice"),
    pytest.param(STUDY + ["--param", "omega=100,nan"], r"--param 'omega=100,nan': 'nan' is not a finite number",
                 id="study: NaN value"),
    pytest.param(STUDY + ["--param", "E=1e11,,2e11"], r"--param 'E=1e11,,2e11': an empty value in the list",
                 id="study: empty list entry"),
    pytest.param(STUDY + ["--param", "omega"], r"--param 'omega': expected name=value,value\.\.\.",
                 id="study: no values"),
    pytest.param(STUDY + ["--param", "omega=100", "--processes", "0"],
                 r"argument --processes: must be a positive integer, got '0'", id="study: --processes 0"),
    pytest.param(["study", "crank_slidr", "--param", "omega=100", "--outdir", "{out}"],
                 r"study: unknown case 'crank_slidr'; the cases are actuated_plate, .*crank_slider",
                 id="study: unknown case"),
    pytest.param(STUDY + ["--param", "omgea=100"],
                 r"study crank_slider: unknown parameter\(s\) \['omgea'\]; the case takes \[.*'omega'",
                 id="study: unknown parameter"),
    pytest.param(["study", "nosuchmodule:model", "--param", "a=1", "--outdir", "{out}"],
                 r"study: cannot import 'nosuchmodule' of 'nosuchmodule:model' \(ModuleNotFoundError",
                 id="study: user model not importable"),
    pytest.param(["study", "phmech.study:no_such_function", "--param", "a=1", "--outdir", "{out}"],
                 r"study: module 'phmech.study' has no function 'no_such_function'",
                 id="study: user function missing"),
    pytest.param(["study", "crank_slider", "--param", "omega=100", "--outdir", "{file}"],
                 r"--outdir '.*taken' cannot be used for the output", id="study: --outdir is a file"),
    pytest.param(["figures", "--cases", "crank_slider", "nope", "--outdir", "{out}"],
                 r"argument --cases: unknown case\(s\) 'nope'; the cases are actuated_plate",
                 id="figures: unknown case"),
    pytest.param(["figures", "--quick", "--outdir", "{file}"], r"--outdir '.*taken' cannot be used for the output",
                 id="figures: --outdir is a file"),
    pytest.param(["run", "tippe_tpo"], r"unknown case 'tippe_tpo'; the cases are", id="run: unknown case"),
    pytest.param(["run", "tippe_top", "--dt=-1e-4"], r"argument --dt: must be positive and finite, got '-1e-4'",
                 id="tippe_top: --dt < 0"),
    pytest.param(["run", "tippe_top", "--tfinal", "inf"], r"argument --tfinal: must be positive and finite, got 'inf'",
                 id="tippe_top: --tfinal inf"),
    pytest.param(["run", "contact_cases", "--dt", "0"], r"argument --dt: must be positive and finite, got '0'",
                 id="contact_cases: --dt 0"),
    pytest.param(["run", "contact_cases", "--cases", "wall"], r"argument --cases: invalid choice: 'wall'",
                 id="contact_cases: unknown case"),
    pytest.param(["run", "mass_spring", "--rho-inf", "1.5"], r"argument --rho-inf: must lie in \[0, 1\], got '1.5'",
                 id="mass_spring: --rho-inf > 1"),
    pytest.param(["run", "mass_spring", "--stability-tfinal=-5"],
                 r"argument --stability-tfinal: must be positive and finite, got '-5'",
                 id="mass_spring: negative --stability-tfinal"),
    pytest.param(["run", "mass_spring", "--refinements", "0"], r"argument --refinements: invalid choice: 0",
                 id="mass_spring: --refinements 0"),
    pytest.param(["run", "four_bar", "--n-angles", "0"], r"argument --n-angles: must be a positive integer, got '0'",
                 id="four_bar: --n-angles 0"),
    pytest.param(["run", "crank_slider", "--quasi-static"], r"--quasi-static needs --geometric-stiffness",
                 id="crank_slider: --quasi-static alone"),
    pytest.param(["run", "actuated_plate", "--level", "3"], r"argument --level: invalid choice: 3",
                 id="actuated_plate: --level 3"),
    pytest.param(["run", "plate_rigid", "--n=-2"], r"argument --n: must be a positive integer, got '-2'",
                 id="plate_rigid: --n < 0"),
    pytest.param(STUDY + ["--param", "omega=100,150", "--processes", "2", "--mpi"],
                 r"study: processes=2 with mpi=True \(--processes 2 with --mpi\): give one of them",
                 id="study: --processes with --mpi"),
    pytest.param(["run", "crank_slider", "--tfinal", "1e-300"],
                 r"argument --tfinal: 1e-300 s is too short a run \(at least 1e-09 s\)", id="crank_slider: --tfinal 1e-300"),
    pytest.param(["run", "crank_slider", "--tfinal", "0.001", "--dt", "0.01"],
                 r"argument --dt: the step 0\.01 s is longer than the run \(--tfinal 0\.001 s\); give --dt at most "
                 r"--tfinal", id="crank_slider: --dt longer than the run"),
    pytest.param(["run", "tippe_top", "--tfinal", "0.5", "--dt", "1"],
                 r"argument --dt: the step 1\.0 s is longer than the run \(--tfinal 0\.5 s\)",
                 id="tippe_top: --dt longer than the run"),
    pytest.param(["run", "hinged_beam", "--tfinal", "1e-12"], r"argument --tfinal: 1e-12 s is too short a run",
                 id="hinged_beam: --tfinal 1e-12"),
    pytest.param(["run", "beam_convergence", "--meshes", "4", "4", "8"],
                 r"argument --meshes: beam_convergence: meshes \[4, 4, 8\] give 4 elements more than once; each "
                 r"rate compares two different element sizes", id="beam_convergence: a mesh twice"),
    pytest.param(["run", "beam_convergence", "--meshes", "8"],
                 r"argument --meshes: beam_convergence: meshes \[8\]: a rate needs at least two meshes",
                 id="beam_convergence: one mesh"),
]


@pytest.mark.parametrize("argv, match", CASES)
def test_bad_command_line(argv, match, tmp_path, monkeypatch, capsys):
    def no_computation(*args, **kwargs):
        raise AssertionError("the computation started despite bad command-line input")

    monkeypatch.setattr(st, "evaluate", no_computation)
    monkeypatch.setattr(cli, "figures", no_computation)
    if argv[0] == "run" and argv[1] in cli.cases():
        monkeypatch.setattr(importlib.import_module(f"phmech.validation.{argv[1]}"), "run", no_computation)
    (tmp_path / "taken").write_text("")
    argv = [a.replace("{file}", str(tmp_path / "taken")).replace("{out}", str(tmp_path / "out")) for a in argv]
    if argv[0] == "run" and "--outdir" not in argv and argv[1] in cli.cases():
        argv += ["--outdir", str(tmp_path / "out")]
    try:
        code = cli.main(argv)
    except SystemExit as err:
        code = err.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage:"), err
    assert re.search(match, err), err


# -- studies whose points end their process or are interrupted: the good points are kept --------
POINTS = '''
import os
import signal
import sys


def point(x, how="exit", at=2.0):
    """x squared, except at x == at: the point ends its process (how) instead."""
    if x == at:
        if how == "exit":
            sys.exit(3)
        if how == "os_exit":
            os._exit(7)
        if how == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if how == "ctrl_c":
            raise KeyboardInterrupt
        if how == "sigint":                 # Ctrl-C at a terminal: the whole process group
            import time
            for _ in range(300):            # once the first point is done (another worker's)
                if os.path.exists("1.0.done"):
                    break
                time.sleep(0.1)
            time.sleep(1.0)
            os.killpg(os.getpgid(0), signal.SIGINT)
            time.sleep(30)
    open(f"{float(x)}.done", "w").close()
    return {"summary": {"square": x * x}}
'''


@pytest.fixture
def points(tmp_path, monkeypatch):
    """A user's module ``endpoints`` whose point ``x == at`` ends its process."""
    import sys
    (tmp_path / "endpoints.py").write_text(POINTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    sys.modules.pop("endpoints", None)


def _summary(outdir):
    import json
    return json.loads((outdir / "summary.json").read_text())


@pytest.mark.parametrize("processes", [1, 2])
def test_a_point_calling_sys_exit_fails_alone(points, processes):
    res = st.study("endpoints:point", {"x": [1.0, 2.0, 3.0]}, processes=processes, outdir=str(points / "out"),
                   plot=False)
    assert res.points == [{"x": 1.0}, {"x": 3.0}] and [v["square"] for v in res.values] == [1.0, 9.0]
    assert res.failed == [{"point": {"x": 2.0}, "error": "SystemExit: the point called sys.exit(3)"}]
    summary = _summary(points / "out")
    assert summary["points_run"] == 2 and summary["failed"] == [{"x": 2.0, "error": "SystemExit: the point "
                                                                                    "called sys.exit(3)"}]


@pytest.mark.parametrize("how, text", [("os_exit", "exit status 7"), ("kill", "killed by signal 9 (SIGKILL)")])
def test_a_dying_worker_is_named_and_the_other_points_are_kept(points, how, text):
    """A worker process that dies breaks the pool: its point is named with how the process
    ended, the points it left unfinished run again on their own and are kept."""
    res = st.study("endpoints:point", {"x": [1.0, 2.0, 3.0, 4.0]}, fixed={"how": how}, processes=2,
                   outdir=str(points / "out"), plot=False)
    assert res.points == [{"x": 1.0}, {"x": 3.0}, {"x": 4.0}]
    assert [v["square"] for v in res.values] == [1.0, 9.0, 16.0]
    assert res.failed == [{"point": {"x": 2.0}, "error": "WorkerDied: the worker process died while running "
                                                         f"this point ({text})"}]
    assert (points / "out" / "study.csv").exists() and _summary(points / "out")["points_failed"] == 1


def test_a_ctrl_c_in_a_point_writes_the_points_that_ran(points):
    with pytest.raises(KeyboardInterrupt, match=r"study endpoints:point: interrupted \(Ctrl-C\) at the point "
                                                r"x=2\.0; 1 of 3 points ran and were written to "):
        st.study("endpoints:point", {"x": [1.0, 2.0, 3.0]}, fixed={"how": "ctrl_c"}, outdir=str(points / "out"),
                 plot=False)
    summary = _summary(points / "out")
    assert [r["x"] for r in summary["results"]] == [1.0]
    assert summary["failed"] == [{"x": 2.0, "error": st.INTERRUPTED}, {"x": 3.0, "error": st.NOT_RUN}]


def _terminal_signals():
    """SIGINT as at a terminal: a command started in the background of a shell without job
    control inherits it ignored, and Python then never raises KeyboardInterrupt."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("processes", ["1", "2"])
def test_ctrl_c_at_the_terminal_writes_the_points_that_ran(points, processes):
    """SIGINT to the whole process group (as a terminal sends it) during a point of ``phmech
    study``: the command writes the points that ran, names the interrupted one and exits 130."""
    import os
    import subprocess
    import sys
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(points), os.environ.get("PYTHONPATH", "")]),
           "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-m", "phmech.cli", "study", "endpoints:point", "--param",
                           "x=1,2,3", "--fixed", "how=sigint", "--processes", processes, "--outdir",
                           str(points / "out"), "--no-plot"], capture_output=True, text=True, timeout=300,
                          cwd=str(points), env=env, start_new_session=True,
                          preexec_fn=_terminal_signals)
    assert proc.returncode == 130, proc.stderr
    assert "study endpoints:point: interrupted (Ctrl-C)" in proc.stderr
    summary = _summary(points / "out")
    ran = [r["x"] for r in summary["results"]]
    failed = {f["x"]: f["error"] for f in summary["failed"]}
    assert sorted(ran + list(failed)) == [1, 2, 3] and 1 in ran and 2 in failed
    if processes == "1":
        assert ran == [1] and failed == {2: st.INTERRUPTED, 3: st.NOT_RUN}
    else:                          # x=3 may have run on the other worker; the pool may break first
        assert failed[2] in (st.INTERRUPTED, st.NOT_RUN)
    assert "interrupted (Ctrl-C) at the point x=2" in proc.stderr or processes == "2"


def test_a_point_calling_sys_exit_on_the_command_line(points, capsys):
    code = cli.main(["study", "endpoints:point", "--param", "x=1,2", "--outdir", str(points / "out"),
                     "--no-plot"])
    err = capsys.readouterr().err
    assert code == 1 and "x=2: SystemExit: the point called sys.exit(3)" in err


def test_a_script_without_a_main_guard_is_told_so(points):
    """Spawned workers import the calling script: without ``if __name__ == "__main__":`` they die
    before running a point, and the error says why (no point is blamed)."""
    import subprocess
    import sys
    (points / "script.py").write_text("from phmech.study import study\n"
                                      "study('endpoints:point', {'x': [1.0, 3.0]}, processes=2)\n")
    proc = subprocess.run([sys.executable, "script.py"], capture_output=True, text=True, timeout=300,
                          cwd=str(points))
    assert proc.returncode == 1
    assert proc.stderr.rstrip().splitlines()[-1] == (
        "RuntimeError: study endpoints:point: the worker processes died before running any point; a script "
        "that calls study(..., processes=N) must do so under 'if __name__ == \"__main__\":' (the workers are "
        "spawned and import the script)")

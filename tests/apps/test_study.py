"""Parameter studies: the numbers of every grid point are those of the case's own run, whether
the points run here, in worker processes or on MPI ranks."""
import importlib.util
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from conftest import HAVE_FIREDRAKE, needs_firedrake

from phmech import study as st

CRANK_GRID = {"omega": [100.0, 150.0], "E": [1e11, 2e11]}
CRANK_FIXED = {"t_end": 0.002, "n_elem": 2}


@pytest.fixture(scope="module")
def crank_direct():
    """The crank-slider's run() at each point of the grid, called directly."""
    if not HAVE_FIREDRAKE:
        pytest.skip("Firedrake is not installed")
    from phmech.validation import crank_slider
    return [crank_slider.run(**CRANK_FIXED, omega=w, E=E).summary for w in CRANK_GRID["omega"]
            for E in CRANK_GRID["E"]]


def check_against_direct(res, direct):
    assert res.points == [{"omega": w, "E": E} for w in CRANK_GRID["omega"] for E in CRANK_GRID["E"]]
    for values, summary in zip(res.values, direct):
        for key in ("uy_mid_max_abs_over_L", "t_of_uy_mid_max", "slider_x_end"):
            assert values[key] == summary[key], key
        # the balance at rows between step points carries H of the dense output, whose dot products
        # round with the memory layout of the process: equal to that round-off
        assert abs(values["energy_balance_max_abs_J"] - summary["energy_balance_max_abs_J"]) <= 1e-12
    peaks = res.column("uy_mid_max_abs_over_L")
    # the numbers are not all alike: faster crank -> larger deflection, stiffer beam -> smaller
    assert peaks[2] > peaks[0] and peaks[1] < peaks[0]


@needs_firedrake
def test_crank_slider_study_serial(crank_direct, tmp_path):
    from phmech.validation._common import read_csv, read_header
    res = st.study("crank_slider", CRANK_GRID, fixed=CRANK_FIXED, outdir=str(tmp_path))
    check_against_direct(res, crank_direct)
    assert res.workers == 1
    data = read_csv(tmp_path / "study.csv")
    np.testing.assert_array_equal(data["omega"], [100, 100, 150, 150])
    np.testing.assert_allclose(data["uy_mid_max_abs_over_L"], res.column("uy_mid_max_abs_over_L"), rtol=1e-11)
    head = read_header(tmp_path / "study.csv")
    assert head[0].startswith("phmech ") and any(h.startswith("study grid: omega in [100.0, 150.0]") for h in head)
    assert {"study.png", "study.pdf", "summary.json"} <= set(os.listdir(tmp_path))


@needs_firedrake
def test_crank_slider_study_two_processes(crank_direct):
    res = st.study("crank_slider", CRANK_GRID, fixed=CRANK_FIXED, processes=2)
    assert res.workers == 2
    check_against_direct(res, crank_direct)
    print(f"2 processes: {res.wall_time:.1f} s wall, {sum(res.seconds):.1f} s in the points")


@needs_firedrake
def test_four_bar_angle_study_equals_the_sweep(four_bar_model):
    """Frequencies over crank angles: those of four_bar.run at 0, 90, 180, 270 deg."""
    from phmech.validation import four_bar
    angles = [0, 90, 180, 270]
    res = st.study("four_bar", {"theta1_deg": angles}, fixed={"n_elem": 2})
    ref = four_bar.run(n_angles=4, n_elem=2).summary["omega_at_deg_rad_s"]
    for a, v in zip(angles, res.values):
        # two eigen solves of the same pencil (a study worker may run another LAPACK thread count):
        # equal to the solver's accuracy, eps times the largest frequency of the dense pencil
        np.testing.assert_allclose([v[f"omega{i}_rad_s"] for i in (1, 2, 3)], ref[str(a)], rtol=1e-9)
        assert v["f1_hz"] == pytest.approx(v["omega1_rad_s"] / (2 * np.pi), rel=1e-14)


@needs_firedrake
@pytest.mark.skipif(shutil.which("mpiexec") is None, reason="mpiexec is not installed")
def test_four_bar_study_on_two_mpi_ranks(tmp_path):
    """``mpiexec -n 2 phmech study ... --mpi``: the same table as one process."""
    from phmech.validation._common import read_csv
    args = ["-m", "phmech.cli", "study", "four_bar", "--param", "theta1_deg=0,60,120", "--fixed", "n_elem=2",
            "--no-plot"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    mpi = subprocess.run(["mpiexec", "-n", "2", sys.executable, *args, "--mpi", "--outdir", str(tmp_path / "mpi")],
                         capture_output=True, text=True, timeout=600, env=env)
    assert mpi.returncode == 0, mpi.stderr[-2000:]
    assert "3 points on 2 ranks" in mpi.stdout
    serial = st.study("four_bar", {"theta1_deg": [0, 60, 120]}, fixed={"n_elem": 2})
    data = read_csv(tmp_path / "mpi" / "study.csv")
    for i in (1, 2, 3):
        np.testing.assert_allclose(data[f"omega{i}_rad_s"], serial.column(f"omega{i}_rad_s"), rtol=1e-11)


def test_bad_grids_are_refused():
    with pytest.raises(ValueError, match="unknown case 'nope'"):
        st.study("nope", {"a": [1]})
    with pytest.raises(ValueError, match=r"parameter 'omega' has no values.*parameter 'E': values must be a list"):
        st.study("crank_slider", {"omega": [], "E": "1e11"})
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['omgea'\]"):
        st.study("crank_slider", {"omgea": [1.0]})
    with pytest.raises(ValueError, match="processes must be a positive integer, got 0"):
        st.study("crank_slider", {"omega": [1.0]}, processes=0)
    assert st.parse_assignments(["omega=100,150", "E=2e11"], many=True) == {"omega": [100, 150], "E": [2e11]}
    with pytest.raises(ValueError, match="'omega'"):
        st.parse_assignments(["omega"], many=True)


@needs_firedrake
def test_cli_study(tmp_path, capsys):
    from phmech import cli
    assert cli.main(["study", "four_bar", "--param", "theta1_deg=0,90", "--fixed", "n_elem=2",
                     "--outdir", str(tmp_path), "--no-plot"]) == 0
    out = capsys.readouterr().out
    assert "study four_bar: 2 points on 1 processes" in out
    assert (tmp_path / "study.csv").exists() and not (tmp_path / "study.png").exists()
    with pytest.raises(SystemExit):
        cli.main(["study", "four_bar", "--param", "theta1_deg", "--outdir", str(tmp_path)])
    assert "expected name=value" in capsys.readouterr().err


# -- failing points, user models, the figure --------------------------------------------------
TOY = '''
import math


def drop(height, g=9.81, air=0.0):
    """Fall time and impact speed of a body dropped from ``height`` [m] (no air: closed form)."""
    if height < 0:
        raise ValueError(f"height must be non-negative, got {height}")
    if air:
        return {"summary": {"t_fall_s": float("nan")}}
    t = math.sqrt(2 * height / g)
    return {"summary": {"t_fall_s": t, "v_impact": g * t, "model": "free fall", "solver": "closed form",
                        "units": {"height": "m", "g": "m/s^2", "v_impact": "m/s"}}}


class NoSummary:
    pass


def nothing(height):
    return NoSummary()
'''


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A user's module ``toymodels`` in ``tmp_path``, importable by name (and as a file path)."""
    (tmp_path / "toymodels.py").write_text(TOY)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    sys.modules.pop("toymodels", None)


def check_drop(res, heights, g=9.81):
    assert res.points == [{"height": h} for h in heights]
    # the same closed forms, a few roundings apart (g t against sqrt(2 g h))
    np.testing.assert_allclose(res.column("t_fall_s"), np.sqrt(2 * np.asarray(heights) / g), rtol=1e-14)
    np.testing.assert_allclose(res.column("v_impact"), np.sqrt(2 * g * np.asarray(heights)), rtol=1e-14)


def test_a_failing_point_keeps_and_writes_the_good_ones(toy):
    import json
    from phmech.validation._common import read_csv, read_header
    res = st.study("toymodels:drop", {"height": [1.0, -2.0, 4.0]}, outdir=str(toy / "out"))
    check_drop(res, [1.0, 4.0])
    assert res.failed == [{"point": {"height": -2.0}, "error": "ValueError: height must be non-negative, got -2.0"}]
    data = read_csv(toy / "out" / "study.csv")
    np.testing.assert_array_equal(data["height"], [1.0, 4.0])
    assert any("failed point: height=-2.0: ValueError: height must be non-negative" in h
               for h in read_header(toy / "out" / "study.csv"))
    summary = json.load(open(toy / "out" / "summary.json"))
    assert summary["points"] == 3 and summary["points_run"] == 2 and summary["points_failed"] == 1
    assert summary["failed"] == [{"height": -2.0, "error": "ValueError: height must be non-negative, got -2.0"}]
    assert [r["height"] for r in summary["results"]] == [1.0, 4.0]
    assert (toy / "out" / "study.png").exists()


def test_non_finite_numbers_fail_the_point(toy):
    res = st.study("toymodels:drop", {"air": [0.0, 0.5]}, fixed={"height": 1.0})
    assert [p["air"] for p in res.points] == [0.0]
    assert res.failed[0]["point"] == {"air": 0.5} and "non-finite result(s) ['t_fall_s']" in res.failed[0]["error"]


def test_all_points_failing_raises_naming_each_and_writes_the_summary(toy):
    import json
    with pytest.raises(RuntimeError, match=r"all 2 grid points failed: height=-1.0: ValueError: height must be "
                                           r"non-negative, got -1.0; height=-2.0: ValueError"):
        st.study("toymodels:drop", {"height": [-1.0, -2.0]}, outdir=str(toy / "out"))
    summary = json.load(open(toy / "out" / "summary.json"))
    assert summary["points_run"] == 0 and [f["height"] for f in summary["failed"]] == [-1.0, -2.0]
    assert not (toy / "out" / "study.csv").exists()
    with pytest.raises(RuntimeError, match="has no summary: return a dict of numbers"):
        st.study("toymodels:nothing", {"height": [1.0]})


def test_user_model_by_module_and_by_path(toy):
    check_drop(st.study("toymodels:drop", {"height": [0.5, 2.0]}), [0.5, 2.0])
    by_path = st.study(str(toy / "toymodels.py") + ":drop", {"height": [0.5, 2.0]}, fixed={"g": 1.62})
    check_drop(by_path, [0.5, 2.0], g=1.62)


def test_user_model_in_two_processes(toy):
    """The spawned workers import the user's module (by name and by path) like the caller."""
    res = st.study("toymodels:drop", {"height": [0.5, 1.0, -1.0, 2.0]}, processes=2)
    assert res.workers == 2
    check_drop(res, [0.5, 1.0, 2.0])
    assert [f["point"] for f in res.failed] == [{"height": -1.0}]
    check_drop(st.study(str(toy / "toymodels.py") + ":drop", {"height": [0.5, 2.0]}, processes=2), [0.5, 2.0])


@pytest.mark.slow                  # about 30 s: every rank imports Firedrake (models on COMM_SELF)
@pytest.mark.skipif(shutil.which("mpiexec") is None or importlib.util.find_spec("mpi4py") is None,
                    reason="mpiexec or mpi4py is not installed")
def test_user_model_on_two_mpi_ranks(toy):
    from phmech.validation._common import read_csv
    args = ["-m", "phmech.cli", "study", "toymodels:drop", "--param", "height=0.5,-1,1,2", "--mpi", "--no-plot",
            "--outdir", str(toy / "mpi")]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(st.__file__))), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run(["mpiexec", "-n", "2", sys.executable, *args], capture_output=True, text=True,
                         timeout=600, env=env, cwd=toy)
    assert run.returncode == 1, run.stderr[-2000:]
    assert run.stdout.count("3 points on 2 ranks") == 1
    assert "height=-1: ValueError: height must be non-negative, got -1" in run.stderr
    assert run.stderr.count("grid point failed: height=-1") == 1        # rank 0 alone logs
    assert run.stderr.count("3 of 4 points on 2 ranks") == 1
    data = read_csv(toy / "mpi" / "study.csv")
    np.testing.assert_allclose(data["t_fall_s"], np.sqrt(2 * np.array([0.5, 1, 2]) / 9.81), rtol=1e-11)  # 12 digits


def test_user_model_errors_name_the_function(toy):
    with pytest.raises(ValueError, match=r"cannot import 'nosuchmodule' of 'nosuchmodule:f' \(ModuleNotFoundError"):
        st.study("nosuchmodule:f", {"a": [1]})
    with pytest.raises(ValueError, match=r"module 'toymodels' has no function 'fall' \(from 'toymodels:fall'\)"):
        st.study("toymodels:fall", {"height": [1]})
    with pytest.raises(ValueError, match=r"'toymodels:math' is not callable \(a module\)"):
        st.study("toymodels:math", {"height": [1]})
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['hieght'\]; the case takes \['air', 'g', 'height'\]"):
        st.study("toymodels:drop", {"hieght": [1]})
    with pytest.raises(ValueError, match=r"'height' given both in the grid and as fixed argument\(s\)"):
        st.study("toymodels:drop", {"height": [1.0]}, fixed={"height": 2.0})


def test_study_figure_names_units_model_and_solver(toy):
    res = st.study("toymodels:drop", {"height": [0.5, 1.0, 2.0]}, fixed={"g": 9.81})
    fig = st.study_figure(res)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "height [m]" and ax.get_ylabel() == "t_fall_s [s]"     # summary units, name suffix
    assert "free fall" in ax.get_title() and "closed form" in ax.get_title()
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), res.column("t_fall_s"))
    two = st.study("toymodels:drop", {"height": [0.5, 1.0], "g": [1.62, 9.81]})
    labels = [line.get_label() for line in st.study_figure(two).axes[0].get_lines()]
    assert labels == ["g = 1.62 m/s^2", "g = 9.81 m/s^2"]


def test_study_does_not_import_the_command_line():
    """One direction only (cli -> study); both read the case settings from the registry."""
    import ast
    import phmech.cli
    tree = ast.parse(open(st.__file__).read())
    imported = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    assert not {"cli", "phmech.cli", ".cli"} & imported
    assert not hasattr(phmech.cli, "QUICK") and not hasattr(phmech.cli, "KEY_FIGURES") and not hasattr(st, "FIGURE")


@needs_firedrake
def test_four_bar_study_figure_has_units_and_model(four_bar_model):
    res = st.study("four_bar", {"theta1_deg": [0, 90]}, fixed={"n_elem": 2})
    ax = st.study_figure(res).axes[0]
    assert ax.get_xlabel() == "theta1_deg [deg]" and ax.get_ylabel() == "value [rad/s]"
    assert "floating Euler-Bernoulli links (2 elements each)" in ax.get_title() and "eigen (dense)" in ax.get_title()
    assert [line.get_label() for line in ax.get_lines()] == [f"omega{i}_rad_s [rad/s]" for i in (1, 2, 3)]

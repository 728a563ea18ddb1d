"""Parameter studies: the numbers of every grid point are those of the case's own run, whether
the points run here, in worker processes or on MPI ranks."""
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
        for key in ("uy_mid_max_abs_over_L", "t_of_uy_mid_max", "slider_x_end", "energy_balance_max_abs_J"):
            assert values[key] == summary[key], key
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
        np.testing.assert_allclose([v[f"omega{i}_rad_s"] for i in (1, 2, 3)], ref[str(a)], rtol=1e-12)
        assert v["f1_hz"] == pytest.approx(v["omega1_rad_s"] / (2 * np.pi), rel=1e-15)


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

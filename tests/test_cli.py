"""The ``phmech`` command (called as ``phmech.cli.main([...])``)."""
import json
import os

import numpy as np
import pytest
from conftest import needs_firedrake

from phmech import cli

SIMEON = ["--tfinal", "0.005", "--tols", "1e-4", "--solvers", "radau"]


def test_list_shows_the_cases(capsys):
    assert cli.main(["list"]) == 0
    shown = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    here = os.path.join(os.path.dirname(cli.__file__), "validation")
    expected = sorted(f[:-3] for f in os.listdir(here) if f.endswith(".py") and not f.startswith("_")
                      and "\ndef main(" in open(os.path.join(here, f)).read())
    assert shown == expected
    assert "crank_slider" in shown and "simeon_crank" in shown
    assert not any(name.startswith("_") for name in shown)


def test_run_forwards_the_options(tmp_path, capsys):
    out = tmp_path / "sc"
    assert cli.main(["run", "simeon_crank", "--outdir", str(out), "--no-plot", *SIMEON]) == 0
    summary = json.load(open(out / "summary.json"))
    assert summary["t_end"] == 0.005 and summary["case"] == "simeon_crank"
    assert summary["provenance"]["phmech"]["version"]
    assert "wrote" in capsys.readouterr().out


def test_run_errors(tmp_path, capsys):
    with pytest.raises(SystemExit, match="unknown case 'nope'.*crank_slider"):
        cli.main(["run", "nope"])
    # an option the case does not take: the case's own usage error, exit status 2
    assert cli.main(["run", "simeon_crank", "--outdir", str(tmp_path), "--no-such-option"]) == 2
    assert "--no-such-option" in capsys.readouterr().err


def test_figures_table(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(cli.QUICK, "simeon_crank", SIMEON + ["--no-plot"])
    assert cli.main(["figures", "--outdir", str(tmp_path), "--quick", "--cases", "simeon_crank"]) == 0
    text = capsys.readouterr().out
    assert "[1/1] simeon_crank --tfinal 0.005" in text
    row = [line for line in text.splitlines() if line.startswith("simeon_crank ")]
    assert len(row) == 1 and " ok " in row[0]
    assert os.path.isfile(tmp_path / "simeon_crank" / "summary.json")
    # a failing case is reported in the table and in the exit status, the others still run
    monkeypatch.setitem(cli.QUICK, "simeon_crank", ["--tfinal", "-1"])
    assert cli.main(["figures", "--outdir", str(tmp_path), "--quick", "--cases", "simeon_crank"]) == 1
    assert "failed (exit 2)" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="unknown case"):
        cli.main(["figures", "--outdir", str(tmp_path), "--cases", "nope"])


@needs_firedrake
def test_figures_runs_a_firedrake_case(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(cli.QUICK, "crank_slider", ["--tfinal", "0.002", "--n-elem", "2", "--no-plot"])
    assert cli.main(["figures", "--outdir", str(tmp_path), "--quick", "--cases", "crank_slider"]) == 0
    row = [line for line in capsys.readouterr().out.splitlines() if line.startswith("crank_slider ")]
    assert " ok " in row[0] and "energy_balance_max_abs_J" in row[0]
    summary = json.load(open(tmp_path / "crank_slider" / "summary.json"))
    assert summary["parameters"]["t_end"] == 0.002
    assert summary["provenance"]["versions"]["firedrake"] is not None


def _restarted_and_uninterrupted(main, tmp_path, t1, t2, common, csv_names):
    """``main`` run to ``t1`` with ``--checkpoint``, continued to ``t2`` with ``--restart``, and run
    to ``t2`` in one go; returns the CSV tables ``(restarted, uninterrupted)`` of each name."""
    from phmech.validation._common import read_csv
    main(["--tfinal", str(t1), "--outdir", str(tmp_path / "a"), "--checkpoint", str(tmp_path / "a.h5")] + common)
    main(["--tfinal", str(t2), "--outdir", str(tmp_path / "b"), "--restart", str(tmp_path / "a.h5")] + common)
    main(["--tfinal", str(t2), "--outdir", str(tmp_path / "c")] + common)
    return [(read_csv(tmp_path / "b" / n), read_csv(tmp_path / "c" / n)) for n in csv_names]


def _max_difference(b, c, names):
    assert b.shape == c.shape and np.array_equal(b["t"], c["t"])
    return max(float(np.max(np.abs(b[n] - c[n]))) for n in names)


@needs_firedrake
def test_spin_up_command_line_restart_equals_the_uninterrupted_run(tmp_path, capsys):
    """Two models (one checkpoint file each): the restarted tip histories are those of one run, bit for bit."""
    from phmech.validation import spin_up
    common = ["--n-elem", "2", "--models", "linear", "stiffened", "--no-reference", "--no-plot", "-q"]
    (b, c), = _restarted_and_uninterrupted(spin_up.main, tmp_path, 0.1, 0.2, common, ["spin_up.csv"])
    assert sorted(os.listdir(tmp_path)) == ["a", "a_linear.h5", "a_stiffened.h5", "b", "c"]
    assert len(c) == 5 and np.abs(c["tip_stiffened"]).max() > 0
    diff = _max_difference(b, c, ["tip_linear", "tip_stiffened"])
    print(f"spin_up midpoint: max |restarted - uninterrupted| = {diff:.3g}")
    assert diff == 0.0


def test_bricard_command_line_restart_equals_the_uninterrupted_run(tmp_path, capsys):
    """Midpoint and Radau IIA through the command line: the restarted histories agree with one
    run to the solvers' tolerances.  (Not bit for bit for the midpoint rule here: the continued
    run builds a fresh Newton matrix where the uninterrupted one still reuses its old one, and
    the iterates then differ within the Newton tolerance, about 1e-9 in the states.)

    Step, output spacing and end times are binary fractions (``dt = 2^-10``, ``dt_out = 2^-5``):
    the step and output grids of the short and the long run then hold the same numbers, not ones
    that differ in the last bit."""
    from phmech.validation import bricard
    common = ["--no-convergence", "--compare", "radau", "--dt", str(2.0**-10), "--dt-out", "0.03125",
              "--no-plot", "-q"]
    (bm, cm), (br, cr) = _restarted_and_uninterrupted(bricard.main, tmp_path, 0.0625, 0.125, common,
                                                      ["bricard.csv", "bricard_radau.csv"])
    assert {"a_midpoint.h5", "a_radau.h5"} <= set(os.listdir(tmp_path))
    cols = ["P3_x", "P3_y", "P3_z", "rate_J1"]
    dm, dr = _max_difference(bm, cm, cols), _max_difference(br, cr, cols)
    print(f"bricard: max |restarted - uninterrupted| midpoint {dm:.3g}, radau {dr:.3g}")
    scale = max(np.abs(cm[n]).max() for n in cols)
    assert dm <= 1e-9 * scale and dr <= 1e-8 * scale


@needs_firedrake
def test_spatial_pendulum_command_line_restart_with_a_flexible_bar(tmp_path, capsys):
    """Rigid, equivalent rigid and flexible bar, one checkpoint each; binary step and output grids.
    (Checkpoints once reordered the flexible model's sparse Jacobian in place while hashing it,
    and the run then failed at its first step.)"""
    from phmech.validation import spatial_pendulum
    common = ["--flexible", "1e5", "--n-elem", "2", "--dt", str(2.0**-10), "--dt-out", "0.015625",
              "--no-plot", "-q"]
    pairs = _restarted_and_uninterrupted(spatial_pendulum.main, tmp_path, 0.03125, 0.0625, common,
                                         ["spatial_pendulum.csv", "spatial_pendulum_flexible.csv"])
    assert {"a_box.h5", "a_equivalent.h5", "a_EI100000.h5"} <= set(os.listdir(tmp_path))
    diffs = []
    for b, c in pairs:
        cols = [n for n in c.dtype.names if "tip" in n]
        diffs.append(_max_difference(b, c, cols))
        assert diffs[-1] <= 1e-9 * max(np.abs(c[n]).max() for n in cols)
    print(f"spatial_pendulum midpoint: max |restarted - uninterrupted| rigid {diffs[0]:.3g}, "
          f"equivalent and flexible {diffs[1]:.3g}")


@needs_firedrake
def test_crank_slider_animate_option(tmp_path, capsys):
    """``--animate gif``: one frame per output row of the run, the mechanism drawn in every frame."""
    iio = pytest.importorskip("imageio.v3")
    from phmech.validation import crank_slider
    crank_slider.main(["--tfinal", "0.002", "--n-elem", "2", "--no-plot", "-q", "--animate", "gif",
                       "--outdir", str(tmp_path)])
    frames = iio.imread(tmp_path / "crank_slider.gif", index=None)
    assert frames.shape[0] == 11                       # t = 0, 0.2 ms, ..., 2 ms
    assert all(np.any(f[..., :3].min(axis=-1) < 128) for f in frames)     # not blank

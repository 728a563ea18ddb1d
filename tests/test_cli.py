"""The ``phmech`` command (called as ``phmech.cli.main([...])``)."""
import json
import os

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

"""Papercuts of the command lines: the help names every command and the docs, a study's
parameters are listed, tables keep every column and whole headers, MPI ranks other than 0 are
quiet, the cases print labelled values."""
import logging
import sys
import types

import pytest
from conftest import needs_firedrake

from phmech import cli
from phmech import study as st


def test_help_lists_every_command_and_the_docs(capsys):
    with pytest.raises(SystemExit, match="0"):
        cli.main(["--help"])
    text = capsys.readouterr().out
    for command in ("list", "run", "figures", "study"):
        assert f"\n    {command} " in text, command
    assert "parameter studies (study)" in text
    assert "phmech study crank_slider --list-params" in text
    assert "make -C docs html" in text and "README.md" in text


def test_study_lists_the_parameters_of_a_case(capsys):
    assert cli.main(["study", "crank_slider", "--list-params"]) == 0
    lines = capsys.readouterr().out.splitlines()
    params = st.parameters("crank_slider")
    assert lines[0] == f"study crank_slider: {len(params)} parameters (--param NAME=V1,V2,... or --fixed NAME=VALUE)"
    assert lines[1].split() == ["parameter", "default", "unit"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    assert list(rows) == list(params)
    assert rows["omega"] == ["150.0", "rad/s"] and rows["E"] == ["200000000000.0", "Pa"]
    assert rows["n_elem"] == ["8"] and rows["solver"] == ["'midpoint'"]
    assert rows["t_end"][1:] == rows["dt"][1:] == rows["dt_out"][1:] == ["s"]     # every time in seconds
    # a parameter without a default, and a user function
    assert cli.main(["study", "four_bar", "--list-params"]) == 0
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()[2:]}
    assert rows["theta1_deg"] == ["(required)", "deg"]
    assert cli.main(["study", "phmech.study:parameters", "--list-params"]) == 0
    assert capsys.readouterr().out.splitlines()[2].split() == ["case", "(required)"]
    # without --param and without --list-params: a usage error that names both
    with pytest.raises(SystemExit, match="2"):
        cli.main(["study", "crank_slider"])
    assert "give the grid with --param NAME=V1,V2,... (phmech study CASE --list-params" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="2"):
        cli.main(["study", "nope", "--list-params"])
    assert "unknown case 'nope'" in capsys.readouterr().err


def test_console_tables_keep_whole_headers_and_every_column():
    header = ["omega", "E", "uy_mid_max_abs_over_L", "ux_mid_max_abs_over_L", "energy_balance_max_abs_J",
              "constraint_residual_max", "solver", "wall_time_s"]
    rows = [[100, 1e11, 0.0123456789, 1e-5, 3e-9, 1e-12, "midpoint", 1.5],
            [150, 2e11, 0.02, 2e-5, 4e-9, 2e-12, "radau", 2.25]]
    lines = cli.console_table(header, rows).splitlines()
    assert lines[0].split() == header                            # no header cut, no column dropped
    assert lines[1].split() == ["100", "1e+11", "0.0123457", "1e-05", "3e-09", "1e-12", "midpoint", "1.5"]
    assert lines[2].split() == ["150", "2e+11", "0.02", "2e-05", "4e-09", "2e-12", "radau", "2.25"]
    # numbers right-aligned under their header, text left-aligned
    assert lines[1].index("1.5") + 3 == len(lines[0]) and lines[0].index("solver") == lines[2].index("radau")


def test_figures_table_keeps_long_statuses():
    text = cli._table([("a_case_with_a_long_name_x", "skipped (needs Firedrake)", 0.0, []),
                       ("b", "ok", 1.0, ["x=1"])])
    lines = text.splitlines()
    assert lines[2].split()[:4] == ["a_case_with_a_long_name_x", "skipped", "(needs", "Firedrake)"]
    assert lines[3].index("ok") == lines[2].index("skipped")


@pytest.mark.parametrize("rank, level", [(0, logging.INFO), (1, logging.ERROR)])
def test_only_rank_0_logs_under_mpi(rank, level, monkeypatch):
    """The summary line and the failures of a study come from rank 0 alone (every rank holds the
    whole result)."""
    fake = types.ModuleType("mpi4py")
    fake.MPI = types.SimpleNamespace(COMM_WORLD=types.SimpleNamespace(rank=rank, size=2))
    monkeypatch.setitem(sys.modules, "mpi4py", fake)
    logger = logging.getLogger("phmech")
    monkeypatch.setattr(logger, "level", logging.INFO)
    assert cli._quiet_other_ranks() == rank
    assert logger.level == level


def test_tippe_top_prints_labelled_values(tmp_path, capsys):
    from phmech.validation import tippe_top
    tippe_top.main(["--tfinal", "0.02", "--dt", "1e-3", "--outdir", str(tmp_path), "--no-plot"])
    out = capsys.readouterr().out
    assert "np.float64" not in out and "{" not in out
    lines = out.splitlines()
    assert lines[0] == "tippe top (moreau, dt = 0.001 s, t_end = 0.02 s):"
    assert any(line.split()[:2] == ["inversion", "(first"] and line.endswith("not reached") for line in lines)
    tilt = next(line for line in lines if line.strip().startswith("final tilt"))
    assert tilt.endswith(" rad") and float(tilt.split()[-2]) > 0
    assert any(line.strip().startswith("energy balance error, max") and line.endswith(" J") for line in lines)


@needs_firedrake
def test_spin_up_without_reference_prints_values(tmp_path, capsys):
    from phmech.validation import spin_up
    spin_up.main(["--tfinal", "0.05", "--n-elem", "2", "--models", "linear", "--no-reference",
                  "--outdir", str(tmp_path), "--no-plot"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "  linear:"
    end = next(line for line in lines if "(end)" in line)
    assert end.split()[:5] == ["tip", "deflection", "at", "0.05", "s"] and end.endswith(" m")
    float(end.split()[-2])
    assert any(line.strip().startswith("max |tip deflection|") and line.endswith(" m") for line in lines)
    assert "  Ritz reference: not computed (--no-reference)" in lines


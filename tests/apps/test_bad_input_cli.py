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

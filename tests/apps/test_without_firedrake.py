"""What a user without Firedrake meets: one message at the first finite-element body, the case
commands print it alone and exit 1 without leaving an empty output folder, ``phmech list`` says
which cases need Firedrake, and a rigid case runs.

Firedrake is hidden from a subprocess by an import hook (installed or not, the subprocess cannot
import it), and the FE cache is switched off so that a beam has to be assembled.
"""
import os
import subprocess
import sys
import textwrap

import pytest

from phmech import _stack, cli
from phmech.validation import registry
from conftest import WITHOUT_FIREDRAKE

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BLOCK = WITHOUT_FIREDRAKE          # the prologue of every subprocess: Firedrake cannot be imported


def without_firedrake(code, tmp_path, timeout=600):
    """Run ``code`` in a Python subprocess that cannot import Firedrake; the finished process."""
    env = {**os.environ, "PHMECH_CACHE": "0", "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", BLOCK + textwrap.dedent(code)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_the_message_names_what_is_missing_and_both_ways_to_get_it():
    text = _stack.MESSAGE
    assert "needs Firedrake" in text and "no module named 'firedrake'" in text
    assert "bash scripts/install.sh" in text and "docker build -t phmech ." in text
    assert "phmech list" in text
    err = _stack.FiredrakeMissingError()
    assert isinstance(err, ModuleNotFoundError) and err.name == "firedrake" and str(err) == text
    # a missing module of the stack, also as the cause of another error, stands for the message
    try:
        try:
            raise ModuleNotFoundError("No module named 'petsc4py'", name="petsc4py")
        except ImportError as inner:
            raise RuntimeError("assembly failed") from inner
    except RuntimeError as outer:
        found = _stack.missing_stack(outer)
    assert isinstance(found, _stack.FiredrakeMissingError) and "'petsc4py'" in str(found)
    assert _stack.missing_stack(ModuleNotFoundError("No module named 'h5py'", name="h5py")) is None
    assert _stack.missing_stack(ValueError("x")) is None


def test_the_hook_answers_imports_not_probes(monkeypatch):
    """``import firedrake`` raises the message; ``importlib.util.find_spec`` passes on to the other
    finders (here one that answers with a spec), so probes keep working."""
    import importlib.machinery
    import importlib.util

    class Answer:
        def find_spec(self, name, path=None, target=None):
            return importlib.machinery.ModuleSpec(name, None) if name == "firedrake" else None
    monkeypatch.delitem(sys.modules, "firedrake", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_stack._Signpost(), Answer(), *sys.meta_path])
    assert importlib.util.find_spec("firedrake").name == "firedrake"
    with pytest.raises(_stack.FiredrakeMissingError, match="this model needs Firedrake"):
        import firedrake  # noqa: F401
    assert importlib.util.find_spec("numpy") is not None


def test_the_first_beam_raises_the_message(tmp_path):
    proc = without_firedrake("""
        import phmech.fem                                   # imports: the rigid outputs use its helpers
        from phmech import _stack
        from phmech.fem import FloatingEulerBernoulliBeam
        try:
            FloatingEulerBernoulliBeam("coupler", 0.3, 4, 7870.0, 2.8e-5, 2e11, 6.4e-11)
        except ImportError as err:
            assert isinstance(err, _stack.FiredrakeMissingError), type(err)
            assert str(err) == _stack.MESSAGE
            print("raised", err.name)
        from phmech.validation import contact_cases, spatial_pendulum   # their optional flexible parts
        print(_stack.available(), spatial_pendulum.have_firedrake())
        """, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:-1] == ["raised firedrake", "False False"]


#: the prologue of a subprocess without any module of the stack (as on a pip install): Firedrake,
#: FInAT, UFL, PyOP2, TSFC, FIAT, petsc4py and slepc4py cannot be imported
WITHOUT_STACK = textwrap.dedent("""\
    import importlib.abc, sys
    class BlockStack(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in %r:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    sys.meta_path.insert(0, BlockStack())
    """ % (_stack.STACK_MODULES + ("FIAT",),))


def test_every_fe_body_raises_the_message_without_the_stack(tmp_path):
    """Without any module of the stack the first body raises the message, also the bodies that
    import FInAT before Firedrake (the geometrically exact beams, the Mindlin plate)."""
    code = """
        from phmech import _stack
        from phmech.fem import GeometricallyExactBeam, KirchhoffPlate, MindlinPlate
        from phmech.fem.mesh_recipe import MeshRecipe
        bodies = {
            "exact": lambda: GeometricallyExactBeam("b", L=1.0, n_elem=4, rho=1.0, A=1.0, E=1e6, I=1e-6),
            "exact3d": lambda: GeometricallyExactBeam("b", L=1.0, n_elem=4, rho=1.0, A=1.0, E=1e6, I=1e-6,
                                                      dim=3),
            "kirchhoff": lambda: KirchhoffPlate("k", MeshRecipe("firedrake:UnitSquareMesh", 2, 2), 0.01, 1.0,
                                                1.0, 0.3, degree=2),
            "mindlin": lambda: MindlinPlate("m", MeshRecipe("firedrake:UnitSquareMesh", 2, 2), 0.1, 1.0, 1.0,
                                            0.3, degree=2),
        }
        for name, make in bodies.items():
            try:
                make()
            except ImportError as err:
                print(name, isinstance(err, _stack.FiredrakeMissingError) and str(err) == _stack.MESSAGE)
            else:
                print(name, "built")
        import ufl                                     # noqa: F401  (the stack's modules, as an import)
        """
    proc = subprocess.run([sys.executable, "-c", WITHOUT_STACK + textwrap.dedent(code)], cwd=tmp_path,
                          env={**os.environ, "PHMECH_CACHE": "0", "MPLBACKEND": "Agg",
                               "PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])},
                          capture_output=True, text=True, timeout=600)
    assert proc.stdout.split("\n")[:-1] == ["exact True", "exact3d True", "kirchhoff True", "mindlin True"], \
        proc.stderr
    assert proc.returncode == 1 and proc.stderr.rstrip().endswith(_stack.MESSAGE), proc.stderr[-2000:]


def test_case_commands_print_the_message_alone_and_leave_no_folder(tmp_path):
    proc = without_firedrake("""
        import runpy, sys
        sys.argv = ["crank_slider", "--outdir", "out/crank_slider", "--no-plot"]
        runpy.run_module("phmech.validation.crank_slider", run_name="__main__")
        """, tmp_path)
    assert proc.returncode == 1
    assert proc.stderr == _stack.MESSAGE + "\n"          # no traceback, nothing else
    assert proc.stdout == ""
    assert not os.path.exists(tmp_path / "out")           # neither out/crank_slider nor out
    # phmech run: the same message and status; an existing output folder is kept
    os.makedirs(tmp_path / "kept")
    proc = without_firedrake("""
        import sys
        from phmech import cli
        sys.exit(cli.main(["run", "four_bar", "--outdir", "kept/four_bar", "--no-plot"]))
        """, tmp_path)
    assert proc.returncode == 1
    assert proc.stderr == _stack.MESSAGE + "\n"
    assert os.listdir(tmp_path) == ["kept"] and os.listdir(tmp_path / "kept") == []


def test_a_study_of_such_a_case_stops_with_the_message(tmp_path):
    proc = without_firedrake("""
        import sys
        from phmech import cli
        sys.exit(cli.main(["study", "crank_slider", "--param", "omega=100,150", "--outdir", "s"]))
        """, tmp_path)
    assert proc.returncode == 1
    assert proc.stderr == _stack.MESSAGE + "\n"
    assert not os.path.exists(tmp_path / "s")


def test_every_case_declared_to_need_firedrake_stops_with_the_message(tmp_path):
    """The registry's ``firedrake=True`` cases (their quick runs) stop with the message, status 1."""
    names = [n for n, c in registry.CASES.items() if c.firedrake is True]
    proc = without_firedrake(f"""
        import io, contextlib
        from phmech.validation import _common, registry
        import importlib
        for name in {names!r}:
            module = importlib.import_module("phmech.validation." + name)
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                status = _common.run_main(module.main, registry.case(name).quick + ["--outdir", "o/" + name,
                                                                                   "--no-plot"])
            print(name, status, err.getvalue().startswith("phmech: this model needs Firedrake"))
        """, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:-1] == [f"{n} 1 True" for n in names]
    assert not os.path.exists(tmp_path / "o")


def test_a_rigid_case_runs_without_firedrake(tmp_path):
    """The README's first run (Simeon's crank, IVP test set) works on the pip install."""
    proc = without_firedrake("""
        import runpy, sys
        sys.argv = ["simeon_crank", "--outdir", "out/crank", "--no-plot", "--tfinal", "0.005",
                    "--tols", "1e-4", "--solvers", "radau"]
        runpy.run_module("phmech.validation.simeon_crank", run_name="__main__")
        """, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert os.path.isfile(tmp_path / "out" / "crank" / "summary.json")


def test_list_says_which_cases_need_firedrake(capsys, monkeypatch):
    assert cli.main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["case", "needs", "Firedrake", "description"]
    rows = {line.split()[0]: line for line in lines[2:] if line[:1] != " "}
    assert list(rows) == list(cli.cases())
    column = lines[0].index("needs Firedrake")
    for name, line in rows.items():
        assert line[column:].startswith(registry.case(name).firedrake_column + " "), line
    assert rows["crank_slider"][column:].startswith("yes ") and rows["simeon_crank"][column:].startswith("no ")
    assert rows["spatial_pendulum"][column:].startswith("with --flexible ")
    # read from the registry, in one place
    monkeypatch.setitem(registry.CASES, "tippe_top", registry.Case("tippe_top", firedrake="with --demo"))
    assert cli.main(["list"]) == 0
    row = [line for line in capsys.readouterr().out.splitlines() if line.startswith("tippe_top")][0]
    assert row[column:].startswith("with --demo ")


@pytest.mark.parametrize("name", sorted(registry.cases()))
def test_list_descriptions_are_whole_sentences(name, capsys):
    """The first paragraph of each case's docstring, whole (also when it spans several lines)."""
    text = registry.cases()[name]
    assert text.endswith((".", ")")) and "\n" not in text, text
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert " ".join(out.split()).count(text) == 1


def test_figures_skips_the_cases_that_need_firedrake(tmp_path):
    proc = without_firedrake("""
        import sys
        from phmech import cli
        sys.exit(cli.main(["figures", "--quick", "--cases", "crank_slider", "four_bar", "--outdir", "figs"]))
        """, tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "[1/2] crank_slider: skipped, needs Firedrake" in out
    rows = [line for line in out.splitlines() if line.startswith(("crank_slider ", "four_bar "))]
    assert len(rows) == 2 and all("skipped (needs Firedrake)" in r for r in rows)
    assert out.count(_stack.MESSAGE) == 1 and out.rstrip().endswith(_stack.MESSAGE.splitlines()[-1])
    assert os.listdir(tmp_path / "figs") == []

"""PETSc gets its own command-line options only, not a script's (``phmech._stack.petsc_arguments``):
Firedrake initializes PETSc with the whole command line, and PETSc then reports a script's
``--n-elem 4`` at exit as an option it did not use."""
import os
import re
import subprocess
import sys
import textwrap

import pytest

from phmech._stack import available, petsc_arguments


@pytest.mark.parametrize("argv, want", [
    (["run.py", "--n-elem", "4", "--outdir", "out"], ["run.py"]),
    (["run.py", "-o", "out", "case", "-v"], ["run.py"]),
    (["run.py", "--tfinal", "0.1", "-log_view", "-ksp_type", "gmres", "--dt", "1e-4"],
     ["run.py", "-log_view", "-ksp_type", "gmres"]),
    (["run.py", "-info", "--plot", "-mat_view", "::ascii_info"], ["run.py", "-info", "-mat_view", "::ascii_info"]),
    (["run.py", "-ksp_rtol", "-1e-3"], ["run.py", "-ksp_rtol"]),
    (["-c"], ["python"]),                               # python -c "...": no option "-c" left to PETSc
])
def test_petsc_takes_its_options_and_leaves_the_script_its_own(argv, want):
    assert petsc_arguments(argv) == want


@pytest.mark.skipif(not available("firedrake"), reason="needs Firedrake")
def test_a_script_s_own_arguments_are_not_reported_by_petsc(tmp_path):
    """A script that builds a Firedrake mesh through phmech.fem, run with its own arguments and
    one PETSc option: PETSc sees the PETSc option and reports nothing left unused at exit
    (``-options_left`` asks it to report)."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent("""
        import sys
        import phmech.fem
        import firedrake
        from petsc4py import PETSc
        mesh = firedrake.UnitIntervalMesh(4)
        print("ksp_type", PETSc.Options().getString("ksp_type", "none"))
    """))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, str(script), "--n-elem", "4", "-o", "out", "-ksp_type", "gmres",
                          "-options_left"], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    text = out.stdout + out.stderr
    assert "ksp_type gmres" in out.stdout
    assert not re.search(r"were not used|There are unused option|Option left", text), text[-2000:]
    assert "n-elem" not in text, text[-2000:]

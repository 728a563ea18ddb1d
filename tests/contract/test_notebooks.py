"""The notebooks of ``docs/notebooks/`` are stored executed, and their code runs today.

Each notebook's code cells are run again in one namespace (and, marked slow,
the whole notebook in a Jupyter kernel with nbclient), and what it prints is
checked against what is known about the mechanisms it shows: the slider on its
loop-closure curve, the discrete power balance of the implicit midpoint rule
and the conserved energy of Bricard's loop.
"""
import contextlib
import importlib.util
import io
import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "docs" / "notebooks").glob("*.ipynb"))
HAVE_NBCLIENT = all(importlib.util.find_spec(m) is not None for m in ("nbclient", "ipykernel"))


def _code_cells(nb):
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def _text(value):
    return value if isinstance(value, str) else "".join(value)


def _printed(nb):
    """The text the code cells printed, in order."""
    return "".join(_text(o["text"]) for c in _code_cells(nb) for o in c["outputs"]
                   if o["output_type"] == "stream")


def _figures(nb):
    return sum("image/png" in o.get("data", {}) for c in _code_cells(nb) for o in c["outputs"])


def _number(text, label):
    m = re.search(re.escape(label) + r"[^=\n]*=\s*([-+0-9.eE]+)", text)
    assert m, f"{label!r} not printed:\n{text}"
    return float(m.group(1))


def _check_tour(printed):
    """The tour's printed checks, bounded by what the integrator guarantees."""
    # one revolution at 150 rad/s with dt = 0.1 ms: the second-order global error of the
    # positions is of the order (omega dt)^2 (L1 + L2) = 1e-4 m; the loop closure holds within it
    assert _number(printed, "slider position") < (150.0 * 1e-4) ** 2 * (0.15 + 0.3)
    # the midpoint rule's discrete power balance is exact up to the Newton tolerance (1e-10,
    # relative) in each of the 419 steps: at most 419 * 1e-10 * H
    H = float(re.search(r"H up to ([0-9.]+) J", printed).group(1))
    assert _number(printed, "power balance") < 419 * 1e-10 * H
    assert "redundant rows: [('J6', 4)]" in printed
    # kinetic + potential energy of Bricard's loop under gravity: the midpoint rule's drift is
    # of second order (ratio 4 when the step is doubled) and of the order of (Omega dt)^2 times
    # the energies at most, Omega = sqrt(g / 1 m) the rate of the 1 m links
    m = re.search(r"kinetic up to ([0-9.]+) J, potential ([-0-9.]+) J", printed)
    scale = float(m.group(1)) + abs(float(m.group(2)))
    assert _number(printed, "energy drift at dt = 1 ms") < 9.81 * 1e-3**2 * scale
    assert 3.5 < _number(printed, "ratio") < 4.5


def _check_flexible_modes(printed):
    """The cantilever's modes converge to Euler-Bernoulli's at the element's fourth order (the
    error at 16 elements is ~7e-8 for mode 1, bounded here by 1e-6, with a rate above 3.5), and
    the free vibration's discrete power balance holds to the Newton tolerance (1e-10 relative)
    in each of its 1000 steps."""
    assert _number(printed, "mode 1 error at 16 elements") < 1e-6
    assert _number(printed, "mode 2 error at 16 elements") < 2e-5
    rate = float(re.search(r"observed orders \(log2 ratios\), mode 1: \[([-0-9. ]+)\]", printed)
                 .group(1).split()[-1])
    assert rate > 3.5
    H = float(re.search(r"H up to ([0-9.e+-]+) J", printed).group(1))
    assert _number(printed, "power balance") < 1000 * 1e-10 * H


def _check_plate_outputs(printed):
    """Navier's frequency parameters within the 8 x 8 mesh's error (3.8e-4, fourth order;
    bounded by 1e-3), the driven plate's discrete power balance to the Newton tolerance in each
    of its 40 steps, a ParaView frame for each step point and one page."""
    assert _number(printed, "largest relative error of lambda") < 1e-3
    H = float(re.search(r"H up to ([0-9.e+-]+) J", printed).group(1))
    assert _number(printed, "power balance") < 40 * 1e-10 * H
    assert re.search(r"plate\.pvd with 41 frame files", printed)
    assert re.search(r"viewer page: \S*plate\.html \([0-9.]+ MB, offline\)", printed)


CHECKS = {"tour": _check_tour, "flexible_modes": _check_flexible_modes, "plate_outputs": _check_plate_outputs}
#: the notebooks of FE bodies (skipped without Firedrake)
NEEDS_FIREDRAKE = {"flexible_modes", "plate_outputs"}
HAVE_FIREDRAKE = importlib.util.find_spec("firedrake") is not None


def _needs(path):
    if path.stem in NEEDS_FIREDRAKE and not HAVE_FIREDRAKE:
        pytest.skip(f"the notebook {path.name} needs Firedrake")


def test_notebooks_are_there():
    assert {p.stem for p in NOTEBOOKS} >= {"tour", "flexible_modes", "plate_outputs"}
    # each notebook beside its source (scripts/make_notebooks.py builds and executes it from it)
    sources = {p.stem for p in NOTEBOOKS[0].parent.glob("*.py")}
    assert sources >= {p.stem for p in NOTEBOOKS} - {"tour"}
    assert set(CHECKS) >= {p.stem for p in NOTEBOOKS}, "a notebook without checks of its results"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_executed(path):
    """Run from top to bottom in one session, without errors, its figures inline."""
    nb = json.loads(path.read_text())
    cells = _code_cells(nb)
    assert [c["execution_count"] for c in cells] == list(range(1, len(cells) + 1))
    errors = [o for c in cells for o in c["outputs"] if o["output_type"] == "error"]
    assert not errors, errors
    assert _figures(nb) >= 1
    CHECKS[path.stem](_printed(nb))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_code_runs(path, tmp_path, monkeypatch):
    """The code cells in turn, in one namespace, in this process."""
    _needs(path)
    nb = json.loads(path.read_text())
    monkeypatch.chdir(tmp_path)
    namespace, out = {"__name__": "__main__"}, io.StringIO()
    with contextlib.redirect_stdout(out):
        for cell in _code_cells(nb):
            exec(compile(_text(cell["source"]), path.name, "exec"), namespace)
    if "plt" in namespace:
        namespace["plt"].close("all")
    CHECKS[path.stem](out.getvalue())


@pytest.mark.slow          # a kernel's start and imports: about 25 s
@pytest.mark.skipif(not HAVE_NBCLIENT, reason="needs nbclient and ipykernel (the docs extra)")
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_in_a_kernel(path, tmp_path, monkeypatch):
    """Executed as Jupyter does, with matplotlib's default backend: the figures show inline."""
    import nbformat
    from nbclient import NotebookClient
    _needs(path)

    nb = nbformat.reads(path.read_text(), as_version=4)
    monkeypatch.delenv("MPLBACKEND", raising=False)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert _figures(nb) >= 1
    CHECKS[path.stem](_printed(nb))

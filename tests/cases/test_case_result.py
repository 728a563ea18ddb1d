"""One result type from the validation cases: CaseResult (summary, files, the solver results)."""
import os

import numpy as np
import pytest

from phmech.validation._common import CaseResult


def test_files_sorted_into_figures_and_tables():
    out = CaseResult(summary={"a": 1.0}, files=["d/x.png", "d/x.pdf", "d/t.csv", "d/summary.json", "d/m.GIF"])
    assert out.figures == ["d/x.png", "d/x.pdf", "d/m.GIF"]
    assert out.csv == ["d/t.csv"]
    assert out["a"] == 1.0
    with pytest.raises(KeyError, match="nope"):
        out["nope"]
    with pytest.raises(AttributeError, match="CaseResult has no attribute 'nope'"):
        out.nope  # noqa: B018


def test_mass_spring_case():
    """A case that used to return a dict: the summary, the generalized-alpha run in ``results`` and
    the case's arrays in ``data`` (also as ``out[...]``)."""
    from phmech.validation.mass_spring import run
    out = run("pendulum", steps=100, tend=1.0, refinements=1)
    assert isinstance(out, CaseResult)
    assert out["summary"] is out.summary and "max_position_error" in out.summary
    res = out.results["run"]
    assert res is out["result"] and len(res.t) == 101 and res.t[-1] == pytest.approx(1.0)
    assert out["steps"] == [100, 200]


def test_four_bar_case_writes_what_it_lists(tmp_path):
    """A case with fields of its own: the files it lists exist, figures and tables among them."""
    pytest.importorskip("firedrake")
    from phmech.validation import four_bar
    out = four_bar.run(n_angles=4, n_elem=2, outdir=str(tmp_path))
    assert isinstance(out, CaseResult)
    assert out.omega.shape == (4, 3) and np.all(out.omega > 0)
    assert out.figures and out.csv and all(os.path.exists(f) for f in out.files)
    assert any(f.endswith("summary.json") for f in out.files)


def test_contact_case_of_one_run():
    """A contact case returns a CaseResult of its one run; the run's trajectory and the case's
    errors read through it, and an unknown name still raises naming the case result."""
    from phmech.validation import bouncing_ball
    out = bouncing_ball.run(case=2, dt=5e-3)
    assert isinstance(out, CaseResult) and list(out.results) == ["run"]
    run = out.results["run"]
    assert out.t is run.t and out.errors is run.errors and out.y.shape == run.y.shape
    assert out.errors["n_impacts"] >= 1
    with pytest.raises(AttributeError, match="CaseResult has no attribute 'nope'"):
        out.nope  # noqa: B018

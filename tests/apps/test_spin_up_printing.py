"""The console lines of ``python -m phmech.validation.spin_up`` without Firedrake: the run is
replaced by stored numbers, so the labels, values and units that ``main`` prints are checked
on the light install (the full run is ``test_papercuts.test_spin_up_without_reference_prints_values``)."""
import numpy as np
import pytest

from phmech.validation import _common, spin_up


def summary(t_reached, tip, diverged=False, t_end=None):
    """A model's summary as ``spin_up.run_model`` writes it (tip at every 5 s reached)."""
    t = np.linspace(0.0, t_reached, len(tip))
    return {"t_reached": t_reached, "diverged": diverged, "wall_time_s": 1.25,
            "tip_max_abs_m": float(np.max(np.abs(tip))), "energy_balance_max_abs_J": 3.5e-9,
            "tip_at": {f"{tk:g}": float(np.interp(tk, t, tip)) for tk in (5, 10, 15, 20, 25, 30)
                       if tk <= t_reached}}


@pytest.fixture
def fake_run(monkeypatch):
    """``spin_up.run`` replaced: a short linear run (no reporting time reached) and a long
    stiffened one that left its range at 12 s; the Ritz reference when asked for."""
    tips = {"linear": np.array([0.0, -1.5e-4, -2.75e-4]),
            "stiffened": np.array([0.0, -0.25, -0.5, 10.5])}
    ends = {"linear": 0.05, "stiffened": 12.0}
    calls = {}

    def run(models, n_elem, t_end, dt, outdir, plot, reference, **kw):
        calls.update(models=models, reference=reference, plot=plot)
        sums = {m: summary(ends[m], tips[m], diverged=ends[m] < t_end) for m in models}
        models_out = {m: type("R", (), {"tip": tips[m]})() for m in models}
        s = {"models": sums}
        ref = None
        if reference:
            ref = {"t": np.array([0.0, 6.0, 12.0]), "tip": np.array([0.0, -0.2, -0.4])}
            s["reference"] = {"tip_at": {"5": -0.1667, "10": -0.3333}}
        return _common.CaseResult(summary=s, files=["a.csv", "summary.json"],
                                  data={"models": models_out, "reference": ref})
    monkeypatch.setattr(spin_up, "run", run)
    return calls


def value(lines, label):
    """The value and unit printed after ``label`` (``None`` when the line is missing)."""
    line = next((x for x in lines if x.strip().startswith(label)), None)
    return None if line is None else line.strip()[len(label):].split()


def test_no_reference_prints_values_with_their_labels(fake_run, tmp_path, capsys):
    spin_up.main(["--tfinal", "0.05", "--models", "linear", "--no-reference", "--outdir", str(tmp_path),
                  "--no-plot"])
    assert fake_run == {"models": ["linear"], "reference": False, "plot": False}
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "spin-up, 8 elements, dt = 0.005 s, t_end = 0.05 s"
    assert lines[1] == "  linear:"
    # no reporting time reached: the end of the run and the maximum still carry their values
    assert value(lines, "tip deflection at 0.05 s (end)") == ["-0.000275", "m"]
    assert value(lines, "max |tip deflection|") == ["0.000275", "m"]
    assert value(lines, "energy balance error, max") == ["3.5e-09", "J"]
    assert value(lines, "wall time") == ["1.25", "s"]
    assert not any(line.strip().startswith("tip deflection at 5 s") for line in lines)
    assert "  Ritz reference: not computed (--no-reference)" in lines
    assert lines[-1] == f"  wrote 2 files to {tmp_path}"
    # every labelled line has a value after its label
    for line in lines[2:-2]:
        assert len(line.split("  ")) > 1 and line.split()[-1] in ("m", "J", "s"), line


def test_a_diverged_model_and_the_reference(fake_run, tmp_path, capsys):
    spin_up.main(["--tfinal", "30", "--models", "stiffened", "--outdir", str(tmp_path), "--no-plot"])
    assert fake_run["reference"] is True
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "  stiffened: diverged"
    model = lines[2:lines.index("  Ritz reference:")]
    assert value(model, "tip deflection at 5 s") == [f"{np.interp(5, [0, 4, 8, 12], [0, -0.25, -0.5, 10.5]):.6g}", "m"]
    assert value(model, "tip deflection at 10 s") == [f"{np.interp(10, [0, 4, 8, 12], [0, -0.25, -0.5, 10.5]):.6g}", "m"]
    assert value(model, "tip deflection at 15 s") is None                 # past the end of the run
    assert value(model, "tip deflection at 12 s (end)") == ["10.5", "m"]
    ref = lines[lines.index("  Ritz reference:") + 1:-1]
    assert value(ref, "tip deflection at 5 s") == ["-0.1667", "m"]
    assert value(ref, "tip deflection at 12 s (end)") == ["-0.4", "m"]

"""The ``phmech`` command (called as ``phmech.cli.main([...])``)."""
import dataclasses
import importlib
import json
import os

import numpy as np
import pytest
from conftest import needs_firedrake

from phmech import cli
from phmech.validation import _common, registry

SIMEON = ["--tfinal", "0.005", "--tols", "1e-4", "--solvers", "radau"]


def set_quick(monkeypatch, case, argv):
    """Replace the quick preset of ``case`` in the registry for one test."""
    spec = registry.case(case)
    monkeypatch.setitem(registry.CASES, case, dataclasses.replace(spec, presets={**spec.presets, "quick": tuple(argv)}))


class Parsed(Exception):
    """Raised in place of the output-directory check: the command line was accepted."""


def test_registry_declares_every_case_once():
    """Each case has its quick preset and key figures in the registry, and the registry names no other."""
    assert set(registry.CASES) == set(cli.cases())
    for name, spec in registry.CASES.items():
        assert spec.name == name and spec.quick and spec.key_figures, name


@pytest.mark.parametrize("case", sorted(registry.CASES))
def test_quick_presets_are_accepted_by_the_cases(case, monkeypatch, tmp_path):
    """Every quick preset parses with its case's own command line (stopped before any computation)."""
    module = importlib.import_module(f"phmech.validation.{case}")

    def stop(path, parser=None):
        raise Parsed(path)
    monkeypatch.setattr(_common, "prepare_outdir", stop)
    if hasattr(module, "prepare_outdir"):
        monkeypatch.setattr(module, "prepare_outdir", stop)
    with pytest.raises(Parsed):
        module.main(registry.case(case).quick + ["--outdir", str(tmp_path), "--no-plot"])


def test_key_figures_follow_dotted_paths_into_dicts_and_lists():
    summary = {"rows": [{"position": 1.5e-3}, {"position": 2.0}], "energy_balance": 3.0,
               "provenance": {"x": 1.0}}
    assert cli._key_figures(summary, case="contact_cases") == ["rows.0.position=0.0015"]
    # undeclared case: errors, residuals and relative quantities first, provenance left out
    assert cli._key_figures({"a_err": 1.0, "b": 2.0, "provenance": {"c": 3.0}}, case="nope") == ["a_err=1", "b=2"]


def test_list_shows_the_cases(capsys):
    assert cli.main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("case ") and set(lines[1]) == {"-"}      # header and rule, then the rows
    shown = [line.split()[0] for line in lines[2:] if line[:1] != " "]   # continued descriptions indented
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
    with pytest.raises(SystemExit, match="2"):
        cli.main(["run", "nope"])
    assert "unknown case 'nope'; the cases are actuated_plate" in capsys.readouterr().err
    # an option the case does not take: the case's own usage error, exit status 2
    assert cli.main(["run", "simeon_crank", "--outdir", str(tmp_path), "--no-such-option"]) == 2
    assert "--no-such-option" in capsys.readouterr().err


def test_figures_table(tmp_path, capsys, monkeypatch):
    set_quick(monkeypatch, "simeon_crank", SIMEON + ["--no-plot"])
    assert cli.main(["figures", "--outdir", str(tmp_path), "--quick", "--cases", "simeon_crank"]) == 0
    text = capsys.readouterr().out
    assert "[1/1] simeon_crank --tfinal 0.005" in text
    row = [line for line in text.splitlines() if line.startswith("simeon_crank ")]
    assert len(row) == 1 and " ok " in row[0]
    assert os.path.isfile(tmp_path / "simeon_crank" / "summary.json")
    # a failing case is reported in the table and in the exit status, the others still run
    set_quick(monkeypatch, "simeon_crank", ["--tfinal", "-1"])
    assert cli.main(["figures", "--outdir", str(tmp_path), "--quick", "--cases", "simeon_crank"]) == 1
    assert "failed (exit 2)" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="2"):
        cli.main(["figures", "--outdir", str(tmp_path), "--cases", "nope"])
    assert "argument --cases: unknown case(s) 'nope'" in capsys.readouterr().err


@needs_firedrake
def test_figures_runs_a_firedrake_case(tmp_path, capsys, monkeypatch):
    set_quick(monkeypatch, "crank_slider", ["--tfinal", "0.002", "--n-elem", "2", "--no-plot"])
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


def test_crank_slider_scale_option(capsys):
    """``--scale`` is a positive number and goes with ``--animate``; the errors name the value."""
    from phmech.validation import crank_slider
    for argv, message in ((["--scale", "-2", "--animate"], "--scale: must be positive and finite, got '-2'"),
                          (["--scale", "5"], "--scale 5 needs --animate")):
        with pytest.raises(SystemExit):
            crank_slider.main(argv)
        assert message in capsys.readouterr().err


@needs_firedrake
def test_crank_slider_animate_scale(tmp_path):
    """``--animate gif --scale 50``: the deformation drawn magnified, the frames written."""
    iio = pytest.importorskip("imageio.v3")
    from phmech.validation import crank_slider
    crank_slider.main(["--tfinal", "0.002", "--n-elem", "2", "--no-plot", "-q", "--animate", "gif",
                       "--scale", "50", "--outdir", str(tmp_path)])
    assert iio.imread(tmp_path / "crank_slider.gif", index=None).shape[0] == 11


# -- the figures: model, solver and units named; nothing drawn misleadingly ------------------------
@needs_firedrake
def test_four_bar_modes_are_drawn_deformed_and_connected(four_bar_model):
    """Every mode (mode 3 included) is drawn with its largest displacement at 5 % of the ground
    link, the drawn field is the real part of the complex mode turned by the phase of that
    displacement, and the drawn links stay connected at the joints and supports."""
    from phmech.mechanisms.four_bar import L_GROUND
    fb = four_bar_model(3)
    theta = np.radians(90.0)
    omega, shapes = fb.mode_shapes(theta, 3, scale=0.05)
    q = fb.q(theta)
    modes = fb.linearize(theta).eigenmodes(3)
    np.testing.assert_allclose(omega, modes.omega, rtol=1e-10)
    for i, shape in enumerate(shapes):
        local, modal = [], []
        for n, b in fb.bodies.items():
            qb = q[fb.dae.q_slices[n]]
            rigid = b.deformed_axis(qb, np.zeros(b.ne), 21)
            local.append(((shape[n] - rigid) @ b.rotation(qb)).T.ravel())      # body-frame x rows, then y rows
            modal.append(np.vstack(b.velocity_rows(np.linspace(0, b.L, 21)))
                         @ modes.vectors[fb.dae.e_slices[n], i] / (1j * omega[i]))
        local, modal = np.concatenate(local), np.concatenate(modal)
        assert np.max(np.abs(local)) == pytest.approx(0.05 * L_GROUND, rel=1e-10), f"mode {i + 1}"
        turned = modal * np.exp(-1j * np.angle(modal[np.argmax(np.abs(modal))]))
        np.testing.assert_allclose(local, turned.real * 0.05 * L_GROUND / np.max(np.abs(modal)),
                                   atol=1e-9 * L_GROUND)
        assert np.max(np.abs(turned.imag)) <= 1e-6 * np.max(np.abs(modal))    # a standing wave: one phase
        tol = 1e-8 * L_GROUND
        np.testing.assert_allclose(shape["crank"][0], [0.0, 0.0], atol=tol)            # clamped crank
        np.testing.assert_allclose(shape["follower"][-1], [L_GROUND, 0.0], atol=tol)   # ground pin
        np.testing.assert_allclose(shape["crank"][-1], shape["coupler"][0], atol=tol)
        np.testing.assert_allclose(shape["coupler"][-1], shape["follower"][0], atol=tol)


@needs_firedrake
def test_four_bar_figures_name_model_solver_and_units():
    from phmech.validation import four_bar
    out = four_bar.run(n_angles=8, n_elem=2)
    figs = dict(four_bar.figures(out))
    ax = figs["FourBar_Om12"].axes[0]
    assert ax.get_xlabel().endswith("[deg]") and ax.get_ylabel().endswith("[rad/s]")
    assert "floating Euler-Bernoulli links (2 elements each)" in ax.get_title() and "eigen (dense)" in ax.get_title()
    modes = figs["FourBar_modes_90deg"]
    assert "eigen (dense)" in modes._suptitle.get_text() and modes.axes[0].get_xlabel() == "x [m]"


@needs_firedrake
def test_crank_slider_figures_name_the_model_and_compare_the_other():
    from phmech.validation import crank_slider
    out = crank_slider.run(t_end=0.004, n_elem=2, compare_model=True)
    figs = dict(crank_slider.figures(out))
    ax = figs["uM_disp"].axes[0]
    assert "linear floating frame (thesis)" in ax.get_title()
    assert "midpoint, dt = 0.0001 s, 2 elements" in ax.get_title()
    p = crank_slider._power_of_ten(out.ux_mid)
    assert ax.get_ylabel() == rf"$u_f^x(L/2)/L$ [$10^{{{p}}}$]"
    lines = {line.get_label(): line for line in ax.get_lines()}
    samples = lines["samples (every 0.2 ms)"]
    np.testing.assert_allclose(samples.get_ydata() * 10.0**p, out.ux_mid, rtol=1e-14)
    assert 1 <= np.max(np.abs(samples.get_ydata())) < 10 and samples.get_linewidth() < 0.5
    # the mean over 1/20 revolution (2 pi / 150 / 20 = 2.1 ms: 11 samples of 0.2 ms), centred
    mean = lines["mean over 1/20 revolution"].get_ydata()
    y = samples.get_ydata()
    # two summations of the same 11 samples: a few roundings of the samples' size (the mean may be near 0)
    np.testing.assert_allclose(mean[5:-5], [y[k - 5:k + 6].mean() for k in range(5, len(y) - 5)], rtol=0,
                               atol=64 * np.finfo(float).eps * np.max(np.abs(y)))
    ax = figs["wM_disp"].axes[0]
    assert ax.get_ylabel() == r"$u_f^y(L/2)/L$ [-]"
    linear, consistent = ax.get_lines()
    assert linear.get_label() == "linear floating frame (thesis)"
    assert consistent.get_label() == "geometrically consistent floating frame, Green-Lagrange axial strain"
    np.testing.assert_array_equal(consistent.get_ydata(), out.other.uy_mid)
    assert out.summary["compared_model"]["uy_mid_max_abs_over_L"] == np.max(np.abs(out.other.uy_mid))
    # the geometric stiffening of the consistent coupler lowers the peak deflection, by less than half
    assert 0.5 < np.max(np.abs(out.other.uy_mid)) / np.max(np.abs(out.uy_mid)) < 1.0


def test_python_dash_m_phmech_is_the_command():
    """``python -m phmech list`` runs the ``phmech`` command (as installed, ``phmech list``)."""
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(cli.__file__))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "phmech", "list"], capture_output=True, text=True, timeout=300,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].startswith("case ") and "crank_slider" in proc.stdout

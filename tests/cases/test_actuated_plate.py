"""Actuated cantilever plate: independent models, limits, frequency response both ways, power balance."""
import json

import numpy as np
import pytest

fd = pytest.importorskip("firedrake")

from phmech.validation import actuated_plate as ap  # noqa: E402


@pytest.fixture(scope="module")
def coarse():
    """Level 0 (1 cm cells, structured), k = 2."""
    return ap.ActuatedPlate(0.28, 2, mesh=ap.plate_mesh(0.28, 0, "structured"))


def test_structure(coarse):
    """M symmetric positive definite, J skew, one constraint row per attached degree of freedom."""
    m = coarse
    assert abs(m.M - m.M.T).max() <= 1e-14 * abs(m.M).max()
    assert abs(m.J + m.J.T).max() <= 1e-14 * abs(m.J).max()
    # a weld of six rows per attached body, independent; the body columns of G are minus the identity
    assert m.G.shape == (18, m.ne)
    assert np.linalg.matrix_rank(m.G.toarray()) == 18
    for name, i in m.body_index.items():
        block = m.G[:, i:i + 6].toarray()
        assert np.allclose(block[np.abs(block).sum(1) > 0], -np.eye(6))


def test_rigid_plate_limit():
    """Independent limit: on a (nearly) rigid plate the moving masses oscillate alone at sqrt(k/m),
    and the first plate mode is far above; the two modes are pure actuator modes."""
    m = ap.ActuatedPlate(0.28, 2, mesh=ap.plate_mesh(0.28, 0, "structured"), E=ap.E_MOD * 1e8)
    f, V = m.modes(3)
    f0 = np.sqrt(ap.SPRING / ap.MOVING_MASS) / (2 * np.pi)
    assert np.allclose(f[:2], f0, rtol=1e-6), (f, f0)
    assert f[2] > 50 * f0
    fr = m.energy_fractions(V[:, :2], n_grid=(3, 5))
    assert np.all(fr[:, 0] > 1 - 1e-6)
    assert ap.classify(fr) == ["actuator 1", "actuator 2"]


@pytest.mark.parametrize("length", ap.LENGTHS)
def test_against_beam_model(length):
    """Independent model (bending-torsion beam with lumped bodies, no Firedrake): the six lowest
    frequencies agree within 3 %; the plate is stiffer than the beam by its clamped root (restrained
    anticlastic curvature and warping), as for the bare strip (< 4 %)."""
    m = ap.ActuatedPlate(length, 2, mesh=ap.plate_mesh(length, 1, "structured"))
    f, V = m.modes(6)
    beam, bare_beam = ap.beam_check(length)
    rel = f / beam - 1
    assert np.all(rel > -1e-3) and np.all(rel < 0.03), rel
    bare = ap.ActuatedPlate(length, 2, mesh=m.plate.mesh, attachments=False).modes(4)[0]
    rel_bare = bare / bare_beam[:4] - 1
    assert np.all(rel_bare > 0) and np.all(rel_bare < 0.04), rel_bare
    # labels: the two modes near sqrt(k/m) are the actuators' ones, the others structural
    labels = ap.classify(m.energy_fractions(V))
    f0 = np.sqrt(ap.SPRING / ap.MOVING_MASS) / (2 * np.pi)
    for fi, lab in zip(f, labels):
        assert lab.startswith("actuator") == (abs(fi / f0 - 1) < 0.1), (f, labels)
    assert labels[0] == "bending 1" and "torsion 1" in labels


def test_frf_modal_equals_direct(coarse):
    """Receptance force -> mirror angles: 20 modes plus static residual against a sparse solve per
    frequency, below and between the resonances."""
    freqs = np.array([0.5, 3.0, 20.0, 40.0, 55.0, 90.0])
    Hd = coarse.frf_direct(freqs)
    Hm = coarse.frf_modal(freqs, 20)
    assert np.max(np.abs(Hm - Hd)) < 1e-7 * np.max(np.abs(Hd))
    # static residual matters: without it the low-frequency values are off
    f, V = coarse.modes(20)
    b, C = coarse.input_columns(), coarse.output_rows()
    w2 = (2 * np.pi * f) ** 2
    Hs = np.einsum("om,mi->oi", C @ V, (V.T @ b) / (w2[:, None] - (2 * np.pi * 0.5) ** 2))
    assert np.max(np.abs(Hs - Hd[0])) > 1e-4 * np.max(np.abs(Hd[0]))


def test_power_balance(coarse):
    """Midpoint rule under a sine burst on actuator 1: H(t) - H(0) = supplied work (to round-off)."""
    force = ap.burst(1.0, 10.0, 2)
    t, e, work = ap.simulate(coarse, force, 0.3, 1e-3)
    H = 0.5 * np.einsum("ij,ij->i", e, (coarse.M @ e.T).T)
    assert H.max() > 1e-6
    assert np.max(np.abs(H - H[0] - work)) < 1e-11 * H.max()
    # the constraints hold: the bodies move with the plate patches
    assert np.max(np.abs(coarse.G @ e.T)) < 1e-10 * np.max(np.abs(e))


def test_convergence_fast():
    """Frequencies on three nested meshes (1, 0.5, 0.25 cm): second-order convergence (corner-limited,
    as the bare cantilever), all six modes."""
    f, orders = ap.convergence(0.28, 2, (0, 1, 2))
    assert np.all(orders[0] > 1.7), orders
    assert np.max(np.abs(f[-1] - f[-2]) / f[-1]) < 1e-4


@pytest.mark.slow
def test_convergence_four_meshes():
    """Four nested meshes (three refinements): two observed orders per mode, each about 2 or above."""
    f, orders = ap.convergence(0.28, 2, (0, 1, 2), refine_last=1)
    assert orders.shape == (2, 6)
    assert np.all(orders > 1.7) and np.all(np.abs(orders[1] - 2.0) < 0.5), orders


def test_bad_input():
    with pytest.raises(ValueError, match=r"length=0.2 .*actuator"):
        ap.ActuatedPlate(0.2)
    with pytest.raises(ValueError, match=r"patch_radius=-0.01.*E=0"):
        ap.ActuatedPlate(0.28, patch_radius=-0.01, E=0.0)


def test_command_writes_files(tmp_path):
    ap.main(["--outdir", str(tmp_path), "--level", "0", "--tfinal", "0.05", "--dt", "1e-3",
             "--conv-levels", "--no-plot"])
    s = json.loads((tmp_path / "summary.json").read_text())
    assert len(s["freq_hz"]) == 6 and len(s["labels"]) == 6
    assert s["sim"]["power_balance_rel"] < 1e-11
    assert s["frf_modal_vs_direct_max_rel"] < 1e-6
    assert (tmp_path / "actuated_plate_frf.csv").stat().st_size > 0
    assert "nan" not in (tmp_path / "actuated_plate_time.csv").read_text().lower()


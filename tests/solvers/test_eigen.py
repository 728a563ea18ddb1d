"""Generalized eigenvalue layer and the four-bar eigenanalysis."""
import numpy as np
import pytest

from conftest import STEEL_ROD, needs_firedrake

pytestmark = needs_firedrake

RHO, E, A, I, L = (STEEL_ROD[k] for k in ("rho", "E", "A", "I", "L"))
C = np.sqrt(E * I / (RHO * A))


@pytest.mark.parametrize("support, beta_L", [
    ("cantilever", np.array([1.875104069, 4.694091133, 7.854757438])),
    ("pinned_pinned", np.pi * np.arange(1, 4)),
])
def test_single_beam_analytic_frequencies(support, beta_L, single_beam):
    exact = beta_L**2 / L**2 * C
    errs = []
    for n in (4, 8, 16):
        m = single_beam(support, n).eigenmodes(3, "dense")
        errs.append(np.abs(m.omega - exact) / exact)
        assert np.all(m.residuals < 1e-10)
    errs = np.array(errs)
    rates = np.log2(errs[:-1] / errs[1:])
    assert np.all(rates > 3.5) and np.all(rates[-1] > 3.9), rates    # order 4
    assert np.all(errs[-1] < 1e-4)


def test_dense_and_sparse_agree_and_spurious_rule(single_beam):
    import scipy.linalg as sla
    lin = single_beam("pinned_pinned", 6)
    d = lin.eigenmodes(4, "dense")
    s = lin.eigenmodes(4, "sparse")
    assert np.allclose(d.omega, s.omega, rtol=1e-9)
    # the axially pinned beam has one self-stress state (a zero mode): found and excluded
    assert d.n_rigid == 1 and s.n_rigid >= 1
    # the full pencil has exactly 2 nl infinite eigenvalues, the finite ones are the reduced ones
    Afull, Efull = lin.pencil()
    alpha, beta = sla.eig(Afull.toarray(), Efull.toarray(), homogeneous_eigvals=True)[0]
    infinite = np.abs(beta) < 1e-10 * np.abs(alpha)
    assert infinite.sum() == 2 * lin.nl
    lam = alpha[~infinite] / beta[~infinite]
    assert np.max(np.abs(lam.real)) < 1e-6 * np.max(np.abs(lam))
    w = np.sort(lam.imag[lam.imag > 1e-3 * d.omega[0]])
    assert np.allclose(w[:4], d.omega, rtol=1e-8)


def test_mode_shape_satisfies_constraints(single_beam):
    lin = single_beam("cantilever", 6)
    m = lin.eigenmodes(2, "dense")
    for i in range(2):
        assert np.max(np.abs(lin.G @ m.vectors[:, i])) < 1e-12 * np.max(np.abs(m.vectors[:, i]))
        assert m.body_vector("b", i).shape == (lin.ne,)


def test_four_bar_against_classical_frame_model(four_bar_model):
    from phmech.validation.four_bar_frame import frequencies
    fb = four_bar_model(6)
    for deg in (0, 90, 180, 270, 37):
        w = fb.linearize(np.radians(deg)).eigenmodes(3).omega
        wf = frequencies(np.radians(deg), n_elem=48)
        assert np.max(np.abs(w - wf) / wf) < 1e-4, (deg, w, wf)


def test_four_bar_mesh_convergence(four_bar_model):
    th = np.radians(90)
    w = np.array([four_bar_model(n).linearize(th).eigenmodes(3).omega for n in (2, 4, 8, 16)])
    diffs = np.max(np.abs(np.diff(w, axis=0)) / w[-1], axis=1)
    rates = np.log2(diffs[:-1] / diffs[1:])
    assert np.all(rates > 3.5), rates
    assert diffs[-1] < 2e-5


def test_four_bar_run_outputs(tmp_path):
    from phmech.validation import four_bar
    out = four_bar.run(n_angles=24, n_elem=3, outdir=str(tmp_path))
    assert out.omega.shape == (24, 3)
    assert np.all(np.diff(out.omega, axis=1) > 0)
    from phmech.validation._common import read_csv
    data = read_csv(tmp_path / "four_bar.csv")            # the provenance lines (#) skipped
    assert len(data) == 24 and np.all(np.isfinite(data["omega1_rad_s"]))
    assert np.allclose(data["f1_hz"], data["omega1_rad_s"] / (2 * np.pi))
    for name in ("FourBar_Om12.png", "FourBar_Om3.pdf", "FourBar_modes_90deg.png", "summary.json"):
        assert (tmp_path / name).exists()


def test_loop_closure():
    from phmech.mechanisms.four_bar import LINKS, L_GROUND, configuration
    for th in np.linspace(0, 2 * np.pi, 13):
        P, Q, phi = configuration(th)
        Ls = [LINKS[k][0] for k in ("crank", "coupler", "follower")]
        end = sum(Li * np.array([np.cos(p), np.sin(p)]) for Li, p in zip(Ls, phi))
        assert np.allclose(end, [L_GROUND, 0.0], atol=1e-12)


def test_example_parameter_sweep():
    import runpy
    from pathlib import Path
    mod = runpy.run_path(str(Path(__file__).parents[2] / "examples" / "eigen_sweep_tip_mass.py"))
    omega, rayleigh = mod["run"]((0.0, 0.1, 0.3))
    assert np.all(np.diff(omega[:, 0]) < 0)                 # heavier tip, lower frequency
    assert np.allclose(omega[1:, 0], rayleigh[1:], rtol=3e-3)  # Rayleigh's heavy-tip limit

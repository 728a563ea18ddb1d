"""Spatial validation cases: Bricard's mechanism and the spatial double pendulum."""
import json

import numpy as np
import pytest

from conftest import needs_firedrake


def test_bricard_redundancy_energy_and_outputs(tmp_path):
    from phmech.validation import bricard
    out = bricard.run(0.5, dt=1e-3, dt_out=0.05, outdir=str(tmp_path))
    assert out.summary["redundant_rows"] == ["J6[4]"]
    assert np.ptp(out.energy) < 1e-7 * 10.0          # H + V conserved (|V| ~ 10 J)
    assert np.max(out.position_residual) < 1e-6
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["energy_drift_J"] == pytest.approx(out.summary["energy_drift_J"])
    assert "nan" not in (tmp_path / "bricard.csv").read_text().lower()


def test_bricard_point_converges_with_second_order():
    from phmech.validation import bricard
    ref = bricard.run(0.5, dt=1.25e-4, dt_out=0.5).P3[-1]
    errs = [np.max(np.abs(bricard.run(0.5, dt=dt, dt_out=0.5).P3[-1] - ref)) for dt in (4e-3, 2e-3, 1e-3)]
    rates = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    assert np.all((rates > 1.7) & (rates < 2.3)), (errs, rates)
    # and it agrees with the adaptive Radau IIA solver
    rad = bricard.run(0.5, solver="radau", rtol=1e-9, atol=1e-9, dt_out=0.5).P3[-1]
    assert np.max(np.abs(rad - ref)) < 1e-5


def test_spatial_pendulum_conserves_energy():
    from phmech.validation import spatial_pendulum as sp
    errs = [sp.run(1.0, dt=dt).summary["energy_error_J"] for dt in (2e-3, 1e-3)]
    assert errs[1] < 1e-5 and errs[0] / errs[1] > 3.0    # second-order energy error of the midpoint rule


@needs_firedrake
def test_flexible_pendulum_tends_to_the_rigid_one():
    from phmech.validation import spatial_pendulum as sp
    rigid = sp.run(0.5, dt=1e-3, section=None).tip
    diffs = [np.max(np.abs(sp.run(0.5, dt=1e-3, flexible_EI=EI, section=None).tip - rigid)) for EI in (1e2, 1e3)]
    assert diffs[1] < 0.2 * diffs[0] and diffs[1] < 1e-3

"""The plate on a driven hub (``python -m phmech.validation.hub_plate``): the floating plate's modes
with the hub held against the fixed-base plate of the same discretization and Leissa's cantilever
plate, the fixed plate's observed order, and the spin-up of a strip against the floating
Euler-Bernoulli beam with the midpoint rule's power balance."""
import json

import numpy as np
import pytest

pytest.importorskip("firedrake")

from phmech.validation import hub_plate  # noqa: E402


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("hub_plate")
    hub_plate.main(["--outdir", str(out), "--meshes", "4", "--fixed-meshes", "4", "8", "16", "--n-spin", "8",
                    "--n-elem", "8", "--tfinal", "0.3", "--dt", "2e-3"])
    with open(out / "summary.json") as f:
        return out, json.load(f)


def test_modes_at_rest(quick):
    _, s = quick
    f = s["frequencies"]
    assert f["floating"]["4"]["max_rel_vs_fixed"] < 1e-7           # one discretization, two solvers
    # Leissa's Ritz values are upper bounds; the fixed plate on 16 x 16 within 1 % of them
    assert np.max(np.abs(f["fixed_finest_rel_vs_leissa"])) < 1e-2
    # CG_2 / DG_1: the frequencies converge at order 2-3 (errors against the finest mesh)
    assert min(f["observed_orders"][0]) > 1.8


def test_spin_up_against_the_beam(quick):
    out, s = quick
    u = s["spin_up"]
    # a strip a x a/10 with nu = 0 bends as the beam; both 8 cells along: within 1 %
    assert abs(u["tip_peak_difference_rel"]) < 1e-2
    assert u["tip_history_difference_rel"] < 2e-2
    # a slow ramp (T_s = 1 s against a first period of 0.1 s): near the quasi-static deflection
    assert u["tip_peak_plate_m"] == pytest.approx(u["tip_quasi_static_m"], rel=0.05)
    # the midpoint rule's power balance, to the Newton tolerance
    assert u["energy_balance_max_abs_J"] < 1e-9 * u["energy_max_J"]
    for name in ("frequencies.csv", "spin_up.csv", "summary.json", "hub_plate_tip.png"):
        assert (out / name).exists()


def test_bad_input():
    with pytest.raises(SystemExit):
        hub_plate.main(["--solver", "radau"])

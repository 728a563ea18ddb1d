"""The case ``python -m phmech.validation.elastica``: its table, order and files."""
import json

import numpy as np
import pytest

pytest.importorskip("firedrake")


def test_the_case_writes_the_table_and_its_orders(tmp_path):
    """Two loads on three meshes, the roll-up and the spatial helix: the summary's observed orders are
    near 4, the
    published elastica value is listed beside the reference, and every file is written (CSV
    without empty numbers where a value exists)."""
    from phmech.validation import elastica
    from phmech.validation._common import read_csv
    out = elastica.run(loads=(1.0, 10.0), meshes=(4, 8, 16), outdir=str(tmp_path))
    s = out.summary
    assert s["min_rate"] > 3.5 and s["finest_max_error"] < 2e-5
    assert min(s["roll_up"]["rates"]) > 3.5 and s["roll_up"]["tip_distance_finest"] < 5e-4
    assert min(s["helix"]["rates"]) > 3.5 and s["helix"]["error_finest"] < 5e-4
    el = s["cantilever"]["10"]["elastica"]
    assert abs(el["w_over_L"] - el["mattiasson_w_over_L"]) < 5e-6
    names = {p.name for p in tmp_path.iterdir()}
    assert {"elastica.csv", "roll_up.csv", "helix.csv", "summary.json", "elastica_shapes.png",
            "elastica_convergence.png"} <= names
    assert json.loads((tmp_path / "summary.json").read_text())["meshes"] == [4, 8, 16]
    table = read_csv(str(tmp_path / "elastica.csv"))
    assert len(table["alpha"]) == 6 and np.all(np.isfinite(np.asarray(table["w_over_L"], float)))


def test_the_meshes_must_halve():
    from phmech.validation import elastica
    with pytest.raises(ValueError, match=r"elastica: meshes \[4, 8\]: give at least three"):
        elastica.check_meshes((4, 8))
    with pytest.raises(ValueError, match=r"each twice the previous"):
        elastica.check_meshes((4, 8, 12))

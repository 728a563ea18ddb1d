"""ParaView output read back with vtk (geometry against the bodies and joints) and the
provenance recorded in summary.json."""
import json
import os
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from conftest import needs_firedrake

vtk = pytest.importorskip("vtk")
from vtk.util.numpy_support import vtk_to_numpy  # noqa: E402


def read_frames(pvd):
    """``[(time, points, cells, point data, cell data)]`` of a .pvd collection."""
    root = ET.parse(pvd).getroot()
    frames = []
    for ds in root.iter("DataSet"):
        reader = vtk.vtkXMLUnstructuredGridReader()
        reader.SetFileName(os.path.join(os.path.dirname(pvd), ds.get("file")))
        reader.Update()
        g = reader.GetOutput()
        cells = []
        for c in range(g.GetNumberOfCells()):
            ids = g.GetCell(c).GetPointIds()
            cells.append([ids.GetId(i) for i in range(ids.GetNumberOfIds())])
        pd = {g.GetPointData().GetArrayName(i): vtk_to_numpy(g.GetPointData().GetArray(i))
              for i in range(g.GetPointData().GetNumberOfArrays())}
        cd = {g.GetCellData().GetArrayName(i): vtk_to_numpy(g.GetCellData().GetArray(i))
              for i in range(g.GetCellData().GetNumberOfArrays())}
        frames.append((float(ds.get("timestep")), vtk_to_numpy(g.GetPoints().GetData()), cells, pd, cd))
    return frames


def test_rigid_crank_slider_pvd(rigid_crank_slider, tmp_path):
    s, crank, coupler, slider = rigid_crank_slider
    res = s.simulate(0.02, solver="midpoint", dt=1e-4, dt_out=1e-3)
    files = res.to_pvd(str(tmp_path / "rigid.pvd"), every=4)
    frames = read_frames(files[0])
    rows = list(range(0, len(res.t), 4))
    assert len(frames) == len(rows) == len(files) - 1
    for (t, P, cells, pd, cd), i in zip(frames, rows):
        assert t == res.t[i]
        assert len(cells) == 3 and [len(c) for c in cells] == [2, 2, 1]
        for c, body in zip(cells, (crank, coupler, slider)):
            q = res.q(body)[i]
            want = [body.port_position(q, body.port(n)) for n in (("P",) if body is slider else ("A", "B"))]
            np.testing.assert_allclose(P[c][:, :2], want, rtol=0, atol=1e-14)
        assert np.all(P[:, 2] == 0.0)
        # the joints hold in the picture (up to the position drift of velocity-level constraints):
        # crank tip = coupler start, coupler end = slider, slider on the guide
        tol = 1e-5 * 0.3
        np.testing.assert_allclose(P[cells[0][1]], P[cells[1][0]], atol=tol)
        np.testing.assert_allclose(P[cells[1][1]], P[cells[2][0]], atol=tol)
        assert abs(P[cells[2][0]][1]) < tol
        # crank tip speed = omega L1; slider velocity as the result reports it
        assert np.linalg.norm(pd["velocity"][cells[0][1]]) == pytest.approx(150.0 * 0.15, rel=1e-9)
        np.testing.assert_allclose(pd["velocity"][cells[2][0]][:2],
                                   res.port_velocity(slider.port("P"))[i], atol=1e-12)
        assert cd["energy"].sum() == pytest.approx(res.hamiltonian()[i], rel=1e-12)
        assert np.all(cd["has_velocity"] == 1)


def test_pvd_bad_arguments(rigid_crank_slider, tmp_path):
    s = rigid_crank_slider[0]
    res = s.simulate(0.002, solver="midpoint", dt=1e-4)
    with pytest.raises(ValueError, match="n_points"):
        res.to_pvd(str(tmp_path / "a.pvd"), n_points=1)
    with pytest.raises(ValueError, match="every"):
        res.to_pvd(str(tmp_path / "a.pvd"), every=0)


@needs_firedrake
def test_flexible_crank_slider_pvd(tmp_path):
    """The deformed coupler's axis starts at the crank pin and ends at the slider."""
    from phmech.mechanisms import flexible_crank_slider
    system, b = flexible_crank_slider(4)
    # constraints at the step points: the joint velocities match there exactly
    res = system.simulate(0.004, solver="midpoint", dt=1e-4, dt_out=1e-3, constraints="endpoint")
    n = 9
    frames = read_frames(res.to_pvd(str(tmp_path / "flex.pvd"), n_points=n)[0])
    assert len(frames) == len(res.t)
    L = b["coupler"].L
    deflection = []
    for (t, P, cells, pd, cd), i in zip(frames, range(len(res.t))):
        assert [len(c) for c in cells] == [2, n, 1]
        axis = P[cells[1]]
        tol = 3e-5 * L                       # position drift of the velocity-level constraints
        np.testing.assert_allclose(axis[0], P[cells[0][1]], atol=tol)
        np.testing.assert_allclose(axis[-1], P[cells[2][0]], atol=tol)
        np.testing.assert_allclose(P[cells[2][0]][:2], res.q("slider")[i], atol=1e-14)
        # velocities continuous across the joints
        v = pd["velocity"]
        np.testing.assert_allclose(v[cells[1][0]], v[cells[0][1]], atol=1e-9 * np.abs(v).max())
        np.testing.assert_allclose(v[cells[1][-1]], v[cells[2][0]], atol=1e-9 * np.abs(v).max())
        chord = axis[-1] - axis[0]
        normal = np.array([-chord[1], chord[0], 0.0]) / np.linalg.norm(chord)
        deflection.append(np.max(np.abs((axis - axis[0]) @ normal)))
        assert cd["energy"].sum() == pytest.approx(res.hamiltonian()[i], rel=1e-12)
    assert deflection[0] < 1e-12 and deflection[-1] > 1e-7          # starts straight, then bends


@needs_firedrake
def test_spatial_beam_pvd(tmp_path):
    """Hinged spatial beam: the axis starts at the hinge and its length is the beam's."""
    from phmech.mechanisms import hinged_spatial_beam
    s, beam = hinged_spatial_beam(n_elem=2)
    res = s.simulate(0.3, solver="midpoint", dt=0.01, dt_out=0.1)
    frames = read_frames(res.to_pvd(str(tmp_path / "hinged.pvd"), n_points=6)[0])
    for (t, P, cells, pd, cd), i in zip(frames, range(len(res.t))):
        axis = P[cells[0]]
        np.testing.assert_allclose(axis[0], 0.0, atol=1e-9 * beam.L)
        assert np.sum(np.linalg.norm(np.diff(axis, axis=0), axis=1)) == pytest.approx(beam.L, rel=1e-4)
    assert np.linalg.norm(frames[-1][1][cells[0][-1]] - frames[0][1][cells[0][-1]]) > 0   # it turned


def test_summary_records_provenance(tmp_path):
    import numpy
    import scipy
    from phmech import __version__
    from phmech.validation._common import write_summary
    path = write_summary(str(tmp_path), "demo", {"x": 1.0})
    data = json.load(open(path))
    prov = data["provenance"]
    assert data["x"] == 1.0 and data["case"] == "demo"
    assert prov["phmech"]["version"] == __version__
    assert prov["versions"]["numpy"] == numpy.__version__
    assert prov["versions"]["scipy"] == scipy.__version__
    for key in ("firedrake", "petsc", "petsc4py", "assimulo"):
        assert key in prov["versions"]
    assert prov["python"]["version"] and prov["machine"]["architecture"]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    head = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode == 0:
        assert prov["phmech"]["git_commit"] == head.stdout.strip()


def test_package_version_of_a_missing_module():
    from phmech.io.provenance import package_version
    assert package_version("no_such_module_here") is None


@needs_firedrake
def test_mode_series_of_a_cantilever(tmp_path, single_beam):
    """Animated mode shapes: the nodes of the second and third cantilever modes at the
    analytic positions x/L = 0.7834 and (0.5035, 0.8677) (roots of cos b cosh b = -1; e.g.
    Blevins, Formulas for natural frequency and mode shape, 1979, table 8-1); half a period
    later the shape is mirrored."""
    from phmech.io.paraview import write_modes_pvd
    modes = single_beam("cantilever", 8).eigenmodes(3)
    n = 24
    files = write_modes_pvd(modes, str(tmp_path / "cantilever.pvd"), n_frames=n, n_points=801, scale=0.05)
    assert [os.path.basename(f) for f in files] == [f"cantilever_mode{i}.pvd" for i in range(3)]
    from phmech.validation._common import reference
    L = 0.3
    table = reference("beams/cantilever.csv")          # the nodes x/L of the cantilever's modes
    nodes_expected = [[v for v in (row["node1"], row["node2"]) if np.isfinite(v)] for row in table[:3]]
    assert nodes_expected[1] == [pytest.approx(0.7834, abs=1e-4)]
    for i, f in enumerate(files):
        frames = read_frames(f)
        assert len(frames) == n
        period = 2 * np.pi / modes.omega[i]
        np.testing.assert_allclose([fr[0] for fr in frames], np.arange(n) * period / n, rtol=1e-14)
        P0, Ph = frames[0][1], frames[n // 2][1]
        x, y = P0[:, 0], P0[:, 1]
        assert abs(y[0]) < 1e-12 and np.abs(y).max() == pytest.approx(0.05 * L, rel=1e-6)
        crossing = np.flatnonzero(np.sign(y[2:]) != np.sign(y[1:-1])) + 1
        np.testing.assert_allclose(x[crossing] / L, nodes_expected[i], atol=3e-3)
        np.testing.assert_allclose(Ph[:, 1], -y, atol=1e-12 * L)
        assert np.abs(frames[n // 4][1][:, 1]).max() < 1e-12        # a quarter period: through rest


# -- provenance lines of the CSV files -----------------------------------------------------------
def test_csv_header_records_versions_solver_and_options(tmp_path):
    import numpy
    import scipy
    from phmech import __version__
    from phmech.io.provenance import git_commit
    from phmech.validation._common import read_csv, read_header, write_csv
    path = write_csv(str(tmp_path / "a.csv"), {"t": [0.0, 0.5], "x": [1.0, 2.0]}, case="demo",
                     solver="midpoint", options={"dt": 1e-4, "t_eval": np.linspace(0, 1, 11)},
                     notes=["parameters: L=0.3"])
    head = read_header(path)
    text = "\n".join(head)
    assert head[0].startswith(f"phmech {__version__} (git {git_commit()[0]}")
    assert f"numpy {numpy.__version__}" in text and f"scipy {scipy.__version__}" in text
    for name in ("firedrake", "petsc", "petsc4py", "assimulo"):
        assert f" {name} " in text
    assert "solver: midpoint" in head and "case demo" in text and "parameters: L=0.3" in head
    assert "options: dt=0.0001, t_eval=<11 values in [0, 1]>" in head
    lines = open(path).read().splitlines()
    assert all(line.startswith("# ") for line in lines[:len(head)]) and lines[len(head)] == "t,x"
    data = read_csv(path)
    assert data.dtype.names == ("t", "x") and np.array_equal(data["x"], [1.0, 2.0])
    # the usual readers skip the lines as comments
    assert np.loadtxt(path, delimiter=",", comments="#", skiprows=len(head) + 1).shape == (2, 2)


def test_result_to_csv_without_columns_writes_the_state(rigid_crank_slider, tmp_path):
    """``Result.to_csv(path)`` alone: the time, every state variable under its label and the stored
    energy, read back equal to the run's rows (12 significant digits)."""
    import csv
    s = rigid_crank_slider[0]
    res = s.simulate(0.002, dt=1e-4)
    path = res.to_csv(tmp_path / "run.csv")
    with open(path) as fh:
        rows = list(csv.reader(fh))
    header, data = rows[0], np.array(rows[1:], float)
    assert header == ["t"] + list(res.dae.labels()) + ["hamiltonian"]
    assert np.allclose(data[:, 0], res.t, rtol=1e-11, atol=0)
    assert np.allclose(data[:, 1:-1], res.y, rtol=1e-11, atol=1e-12 * np.abs(res.y).max())
    assert np.allclose(data[:, -1], res.hamiltonian(), rtol=1e-11)


def test_csv_writer_refuses_nan_and_ragged_columns(tmp_path):
    from phmech.validation._common import read_csv, write_csv, write_table
    with pytest.raises(ValueError, match=r"column 'x' has the non-finite value nan \(row 1\)"):
        write_csv(str(tmp_path / "b.csv"), {"t": [0.0, 1.0], "x": [1.0, np.nan]})
    with pytest.raises(ValueError, match="unequal length 'x' \\(1\\)"):
        write_csv(str(tmp_path / "b.csv"), {"t": [0.0, 1.0], "x": [1.0]})
    with pytest.raises(ValueError, match="row 0 has 1 values for 2 columns"):
        write_table(str(tmp_path / "b.csv"), ["a", "b"], [[1.0]])
    assert not os.path.exists(tmp_path / "b.csv")
    path = write_csv(str(tmp_path / "c.csv"), {"t": [0.0, 1.0], "x": [1.0]}, ragged=True)
    assert open(path).read().splitlines()[-1] == "1,"
    assert np.isnan(read_csv(path)["x"][1])


def test_every_case_writes_csv_through_the_provenance_helper():
    """No CSV writer of the validation cases bypasses ``_common.write_table`` (cases of other
    modules that still do are listed and reported)."""
    import re
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "phmech", "validation")
    bypass = re.compile(r"csv\.writer|np\.savetxt|\.to_csv\(")
    pending = {"plate_modes.py", "plate_rigid.py", "actuated_plate.py", "bouncing_ball.py", "contact_cases.py",
               "tippe_top.py"}
    offenders = []
    for name in sorted(os.listdir(here)):
        if not name.endswith(".py") or name == "_common.py":
            continue
        text = open(os.path.join(here, name)).read()
        writes = re.search(r"open\([^)]*[\"']w[\"']\)", text) and ".csv" in text
        if bypass.search(text) or writes:
            offenders.append(name)
    assert set(offenders) <= pending, sorted(set(offenders) - pending)


@needs_firedrake
def test_case_csv_starts_with_provenance(tmp_path):
    """A case's CSV file: provenance lines with its solver and step, then the same numbers."""
    from phmech.validation import crank_slider
    from phmech.validation._common import read_csv, read_header
    out = crank_slider.run(t_end=0.001, n_elem=2, dt=1e-4, outdir=str(tmp_path), plot=False)
    path = str(tmp_path / "crank_slider.csv")
    head = read_header(path)
    assert "solver: midpoint" in head and any(h.startswith("options: dt=0.0001") for h in head)
    assert any("case crank_slider" in h for h in head) and any("n_elem=2" in h for h in head)
    data = read_csv(path)
    np.testing.assert_allclose(data["uy_mid_over_L"], out.uy_mid, rtol=1e-11, atol=1e-15)


# -- the reference data of validation/ ----------------------------------------------------------
def test_reference_data_match_their_sources():
    """The files of validation/ hold the published numbers the models and tests use."""
    from scipy import special as ss
    from phmech.validation._common import reference
    from phmech.validation._classic_models import AndrewsSqueezer, SimeonCrank
    for name, model in (("crank", SimeonCrank), ("andrews", AndrewsSqueezer)):
        d = reference(f"ivp_testset/{name}.json")
        assert "Test Set for IVP Solvers" in d["source"] and d["t_end"] == model.T_END
        assert np.array_equal(d["reference_at_t_end"], model.REFERENCE)
        assert np.array_equal(d["y0"], model.Y0) and tuple(d["labels_p"]) == model.labels_p
    beams = reference("beams/cantilever.csv")
    b = beams["beta_L"]
    assert np.all(np.abs(np.cos(b) * np.cosh(b) + 1) < 1e-9 * np.cosh(b))        # the frequency equation
    np.testing.assert_allclose(b[:3], [1.8751, 4.6941, 7.8548], atol=5e-5)       # Blevins' table 8-1
    for row in beams:                                                            # nodes: zeros of the mode
        beta = row["beta_L"]
        s = (np.cosh(beta) + np.cos(beta)) / (np.sinh(beta) + np.sin(beta))
        x = np.array([row[f"node{i}"] for i in range(1, 5)])
        x = x[np.isfinite(x)]
        assert len(x) == row["mode"] - 1
        phi = np.cosh(beta * x) - np.cos(beta * x) - s * (np.sinh(beta * x) - np.sin(beta * x))
        assert np.all(np.abs(phi) < 1e-9)
    plates = reference("plates/leissa.json")
    lam = plates["circular_clamped"]["lam"]
    beta = np.sqrt(lam)
    assert abs(ss.j0(beta) * ss.i1(beta) + ss.i0(beta) * ss.j1(beta)) < 1e-4   # 4 published decimals
    with pytest.raises(FileNotFoundError, match="'nope.json' not found"):
        reference("nope.json")

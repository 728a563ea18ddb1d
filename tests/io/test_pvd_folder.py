"""``to_pvd``: the ``.vtu`` frames go to a sub-folder beside the ``.pvd`` by default."""
import os
import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("vtk")

from phmech import PlanarRigidBody, System                     # noqa: E402
from phmech.io.paraview import write_pvd                        # noqa: E402


@pytest.fixture(scope="module")
def swing():
    rod = PlanarRigidBody.rod("rod", 1.0, 1.0, angle=-1.2)
    s = System([rod])
    s.pin(rod.port("A"))
    s.add_gravity((0.0, -9.81))
    return s.simulate(0.1, dt=1e-3, dt_out=1e-3)                 # 101 output rows


def entries(pvd):
    return [d.get("file") for d in ET.parse(pvd).getroot().iter("DataSet")]


def test_frames_go_to_a_sub_folder(swing, tmp_path):
    files = swing.to_pvd(str(tmp_path / "out" / "mech.pvd"), every=20)
    assert sorted(os.listdir(tmp_path / "out")) == ["mech", "mech.pvd"]
    frames = sorted(os.listdir(tmp_path / "out" / "mech"))
    assert frames == [f"mech_{k:05d}.vtu" for k in range(6)]               # rows 0, 20, ..., 100
    assert entries(tmp_path / "out" / "mech.pvd") == [f"mech/{f}" for f in frames]
    assert files == [str(tmp_path / "out" / "mech.pvd")] + [str(tmp_path / "out" / "mech" / f) for f in frames]
    import vtk                                                    # the collection's files read back
    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(os.path.join(tmp_path, "out", entries(tmp_path / "out" / "mech.pvd")[-1]))
    reader.Update()
    assert reader.GetOutput().GetNumberOfPoints() > 0


def test_frames_beside_the_pvd_or_in_a_named_folder(swing, tmp_path):
    write_pvd(swing, str(tmp_path / "flat.pvd"), every=50, folder="")
    assert sorted(os.listdir(tmp_path)) == ["flat.pvd", "flat_00000.vtu", "flat_00001.vtu", "flat_00002.vtu"]
    write_pvd(swing, str(tmp_path / "named.pvd"), every=50, folder="frames")
    assert entries(tmp_path / "named.pvd") == [f"frames/named_{k:05d}.vtu" for k in range(3)]
    for bad in ("../up", "/abs"):
        with pytest.raises(ValueError, match=r"to_pvd: folder must be a sub-folder beside the \.pvd file, got"):
            write_pvd(swing, str(tmp_path / "x.pvd"), folder=bad)


def test_result_to_pvd_takes_the_folder(swing, tmp_path):
    """``Result.to_pvd`` passes ``folder`` on to :func:`write_pvd` (same files as the function)."""
    files = swing.to_pvd(str(tmp_path / "r.pvd"), every=50, folder="frames")
    assert entries(tmp_path / "r.pvd") == [f"frames/r_{k:05d}.vtu" for k in range(3)]
    assert files[1:] == [str(tmp_path / "frames" / f"r_{k:05d}.vtu") for k in range(3)]
    with pytest.raises(ValueError, match=r"to_pvd: folder must be a sub-folder"):
        swing.to_pvd(str(tmp_path / "x.pvd"), folder="../up")

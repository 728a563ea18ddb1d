"""The full mesh of a reduced body in ParaView: a reduced body keeps the mesh of the model it was
reduced from (vertices, cells, the vertices' velocity rows), in its file too, and a System with it
writes the deforming full mesh.  A hand-assembled rod (no Firedrake) against the displacement
integrated from its full stresses; a 3D solid reduced with Firedrake, loaded and run in a process
that cannot import Firedrake, against the full model's displacement evaluated on the mesh by
Firedrake."""
import glob
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from rods import HandRod  # noqa: E402

from phmech import PointMass, System  # noqa: E402
from phmech.joints import Revolute  # noqa: E402
from phmech.reduce import ReducedBody, craig_bampton  # noqa: E402
from phmech.reduce.picture import FullMesh, boundary_faces  # noqa: E402
from conftest import WITHOUT_FIREDRAKE

ROOT = os.path.dirname(os.path.dirname(HERE))


class MeshedRod(HandRod):
    """The hand rod with its mesh: nodes ``x_k = k h`` (k = 0 fixed), intervals between them."""

    def drawing_mesh(self):
        h = self.L / self.n
        rows = np.full((self.n + 1, 3), -1)
        rows[1:, 0] = self.velocity_dofs                     # node k's velocity is v_k
        X = (h * np.arange(self.n + 1))[:, None]
        return FullMesh(X, np.column_stack([np.arange(self.n), np.arange(1, self.n + 1)]), "line", rows)


def rod_displacement(rod, e_full):
    """The rod's nodal displacement from its full stresses: ``N_k = EA (u_{k+1} - u_k) / h``
    integrated from the fixed end (the compatibility of a motion that started undeformed)."""
    h, ea = rod.L / rod.n, 1200.0
    N = e_full[..., rod.stress_dofs]
    return np.concatenate([np.zeros(N.shape[:-1] + (1,)), np.cumsum(N * h / ea, axis=-1)], axis=-1)


def read_vtu(path, field="displacement"):
    """``(points, cell types, the point field)`` of a written ``.vtu``."""
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(path)
    reader.Update()
    grid = reader.GetOutput()
    types = np.array([grid.GetCellType(i) for i in range(grid.GetNumberOfCells())])
    return (vtk_to_numpy(grid.GetPoints().GetData()), types,
            vtk_to_numpy(grid.GetPointData().GetArray(field)))


def test_a_reduced_rod_draws_its_full_mesh_with_the_recovered_displacement(tmp_path):
    pytest.importorskip("vtk")
    rod = MeshedRod("rod", 24)
    red = craig_bampton(rod, ["tip"], 4, eigensolver="scipy")
    back = ReducedBody.load(red.save(tmp_path / "rod.h5"))
    for k in ("points", "cells", "rows"):
        assert np.array_equal(getattr(back.full_mesh, k), getattr(red.full_mesh, k)), k
    tip = PointMass("tip", 1.5, (rod.L, 0.0))
    s = System([back, tip])
    s.add_joint(Revolute(back.port("tip"), tip.port("P"), name="weld"))
    dae = s.assemble()
    e0 = np.zeros(dae.ne)
    e0[dae.e_slices["tip"].start] = 0.3
    e0[dae.e_slices["rod"].start + back.basis.rv[0]] = 0.3          # the rod's tip with the mass
    res = s.simulate(0.004, dt=1e-4, y0=dae.initial_state(e0=e0))
    files = res.to_pvd(str(tmp_path / "run.pvd"))
    last = sorted(files[1:])[-1]
    pts, types, disp = read_vtu(last)
    n = rod.n + 1
    assert len(pts) == n + 1 and list(types[:rod.n]) == [3] * rod.n and types[-1] == 1     # VTK_LINE, VTK_VERTEX
    u = rod_displacement(rod, back.recover(res.e(back)[-1]))
    assert np.abs(u).max() > 1e-5
    assert np.allclose(disp[:n, 0], u, rtol=0, atol=1e-12 * np.abs(u).max()), np.abs(disp[:n, 0] - u).max()
    assert np.all(disp[:n, 1:] == 0)
    assert np.allclose(pts[:n, 0], rod.L / rod.n * np.arange(n) + u, rtol=0, atol=1e-12)
    # a mode picture moves the vertices by the rows of the velocity basis
    e_r = np.zeros(back.ne)
    e_r[back.basis.rv[0]] = 0.5                                    # the tip moving at 0.5 m/s
    moved = back.mode_picture(np.zeros(0), e_r) - back.mode_picture(np.zeros(0), np.zeros(back.ne))
    assert np.isclose(moved[-1, 0], 0.5) and moved[0, 0] == 0.0


def test_boundary_faces_of_a_cube_of_six_tetrahedra():
    # the Kuhn split of the unit cube: six tetrahedra along the diagonal 0-7
    cube = np.array([[0, 1, 3, 7], [0, 1, 5, 7], [0, 2, 3, 7], [0, 2, 6, 7], [0, 4, 5, 7], [0, 4, 6, 7]])
    faces = boundary_faces(cube)
    assert faces.shape == (12, 3)                                  # two triangles on each of the six faces
    assert len({tuple(sorted(f)) for f in faces}) == 12


def test_a_mesh_record_that_does_not_fit_the_basis_is_refused():
    rod = HandRod("rod", 8)
    red = craig_bampton(rod, ["tip"], 2, eigensolver="scipy")
    bad = FullMesh(np.zeros((2, 1)), [[0, 1]], "line", [[rod.stress_dofs[0], -1, -1], [-1, -1, -1]])
    with pytest.raises(ValueError, match="no velocity unknown"):
        ReducedBody(red.name, red.M.toarray(), red.J0.toarray(), None, red.basis, mesh=bad)
    with pytest.raises(ValueError, match="tetra cells need 4 vertices"):
        FullMesh(np.zeros((3, 3)), [[0, 1, 2]], "tetra", -np.ones((3, 3), int))


BLOCK = WITHOUT_FIREDRAKE          # the prologue of every subprocess: Firedrake cannot be imported


def test_a_reduced_solid_writes_its_full_mesh_in_a_process_without_firedrake(tmp_path):
    fd = pytest.importorskip("firedrake")
    pytest.importorskip("vtk")
    from phmech.validation import reduced_bodies as case
    body = case.solid(1)                                            # 30 tetrahedra, CG2 velocity
    red = craig_bampton(body, ["tip"], 6)
    path = red.save(tmp_path / "solid.h5")
    code = BLOCK + textwrap.dedent(f"""
        import glob
        import numpy as np
        from phmech import System
        from phmech.reduce import ReducedBody
        try:
            import firedrake  # noqa: F401
            raise SystemExit("firedrake imported")
        except ImportError:
            pass
        red = ReducedBody.load({str(path)!r})
        s = System([red])
        dae = s.assemble()
        e0 = np.zeros(dae.ne)
        e0[dae.e_slices[red.name].start + red.basis.rv[:6]] = [0.0, 1.0, 0.5, 0.0, 0.0, 0.0]   # the tip moving
        res = s.simulate(0.001, dt=1e-4, y0=dae.initial_state(e0=e0))
        files = res.to_pvd("run.pvd")
        np.save("e_last.npy", res.e(red)[-1])
        loaded = [m.partition(".")[0] for m in sys.modules if sys.modules[m] is not None]
        print("ok", len(files) == len(res.t) + 1, "firedrake" in loaded)
        """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[-3:] == ["ok", "True", "False"], proc.stdout      # the .pvd and every frame
    pts, types, disp = read_vtu(sorted(glob.glob(str(tmp_path / "run" / "*.vtu")))[-1])
    mesh = body.mesh
    assert len(pts) == mesh.num_vertices() and len(types) == mesh.num_cells()
    assert np.all(types == 10)                                                    # VTK_TETRA
    # the full model's displacement (from its stresses) on its mesh, at the vertices
    e_full = red.recover(np.load(tmp_path / "e_last.npy"))
    u = body.field(body.displacement(e_full), index=0)
    P1 = fd.VectorFunctionSpace(mesh, "CG", 1)
    U = np.asarray(fd.Function(P1).interpolate(u).dat.data_ro).reshape(-1, 3)
    X = np.asarray(fd.Function(P1).interpolate(fd.SpatialCoordinate(mesh)).dat.data_ro).reshape(-1, 3)
    order = np.lexsort(X.T)                                       # vertices matched by their places
    drawn = np.lexsort((pts - disp).T)
    assert np.allclose((pts - disp)[drawn], X[order], rtol=0, atol=1e-12)
    scale = np.abs(U).max()
    assert scale > 1e-6
    assert np.abs(disp[drawn] - U[order]).max() <= 1e-9 * scale, np.abs(disp[drawn] - U[order]).max() / scale
    # the stress written from the record's vertex stresses (reduced coordinates) against the full
    # solid's picture of the recovered full state (its own rows from the stress field): two paths
    _, _, stress = read_vtu(sorted(glob.glob(str(tmp_path / "run" / "*.vtu")))[-1], "stress")
    full = body.picture(0.0, np.zeros((1, 0)), e_full[None, :], [0])(0)
    on_surface = np.lexsort((full.points - full.point_data["displacement"]).T)
    surface_drawn = {tuple(np.round(x, 12)): i for i, x in enumerate(pts - disp)}
    idx = [surface_drawn[tuple(np.round(x, 12))] for x in (full.points - full.point_data["displacement"])[on_surface]]
    top = np.abs(full.point_data["stress"]).max()
    assert top > 0
    assert np.abs(stress[idx] - full.point_data["stress"][on_surface]).max() <= 1e-9 * top

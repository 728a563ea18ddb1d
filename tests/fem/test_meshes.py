"""The gmsh meshes of meshes/: geometry and tags as read by Firedrake, and the clamped disc on them."""
import os

import numpy as np
import pytest

fd = pytest.importorskip("firedrake")

from phmech.fem.plate import load_mesh  # noqa: E402
from phmech.validation import plate_modes as pm  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MESHES = os.path.join(ROOT, "meshes")
STATIONS = {101: (0.01, 0.25), 102: (0.03, 0.105), 103: (0.02, 0.28)}


def _path(name):
    return os.path.join(MESHES, name)


def _measure(mesh, tag=None):
    one = fd.Constant(1.0)
    if tag is None:
        return fd.assemble(one * fd.dx(domain=mesh))
    return fd.assemble(one * fd.ds(tag, domain=mesh))


@pytest.mark.parametrize("length", [0.28, 0.30])
def test_rectangles(length):
    """Area, edge lengths per tag (1: x = 0, 2: x = b, 3: y = 0 clamped, 4: tip), stations as vertices,
    cells x 4 per level."""
    cells = []
    for lv in range(3):
        m = fd.Mesh(_path(f"plate_4x{round(100 * length)}_l{lv}.msh"))
        assert sorted(int(t) for t in m.exterior_facets.unique_markers) == [1, 2, 3, 4]
        assert abs(_measure(m) - 0.04 * length) < 1e-14
        for tag, L in {1: length, 2: length, 3: 0.04, 4: 0.04}.items():
            assert abs(_measure(m, tag) - L) < 1e-14, (lv, tag)
        X = m.coordinates.dat.data_ro
        for p in STATIONS.values():
            assert np.min(np.linalg.norm(X - np.array(p), axis=1)) < 1e-12
        cells.append(m.num_cells())
    assert cells[1] == 4 * cells[0] and cells[2] == 4 * cells[1]
    # cells of about 1 cm: 0.04 L / (sqrt(3)/4 cm^2) triangles
    assert 0.5 < cells[0] / (0.04 * length / (np.sqrt(3) / 4 * 1e-4)) < 2.0


def test_disc_polygons_converge():
    """The straight-sided disc meshes: boundary on the unit circle, tag 1 only; area and perimeter
    tend to pi and 2 pi at order 2 (inscribed polygons)."""
    area, perim = [], []
    for lv in range(4):
        m = fd.Mesh(_path(f"disc_l{lv}.msh"))
        assert [int(t) for t in m.exterior_facets.unique_markers] == [1]
        V = m.coordinates.function_space()
        nodes = fd.DirichletBC(V, fd.Constant((0.0, 0.0)), 1).nodes
        r = np.linalg.norm(m.coordinates.dat.data_ro[nodes], axis=1)
        assert np.allclose(r, 1.0, atol=1e-12)
        area.append(_measure(m))
        perim.append(_measure(m, 1))
    ea, ep = np.pi - np.array(area), 2 * np.pi - np.array(perim)
    assert np.all(ea > 0) and np.all(ep > 0)
    assert np.all(np.abs(np.log2(ea[:-1] / ea[1:]) - 2) < 0.15)
    assert np.all(np.abs(np.log2(ep[:-1] / ep[1:]) - 2) < 0.15)


def test_load_mesh_curved_disc():
    """load_mesh with quadratic coordinates on the circle: the area error drops far below the polygon's."""
    m = load_mesh(_path("disc_l2.msh"), coordinate_degree=2, circle=(0.0, 0.0, 1.0))
    m1 = fd.Mesh(_path("disc_l2.msh"))
    assert abs(_measure(m) - np.pi) < 1e-3 * abs(_measure(m1) - np.pi)
    with pytest.raises(ValueError, match="no mesh file"):
        load_mesh(_path("missing.msh"))
    with pytest.raises(ValueError, match="coordinate_degree"):
        load_mesh(_path("disc_l0.msh"), coordinate_degree=0)


@pytest.mark.parametrize("k, order, coord", [(1, 2.0, 1), (2, 4.0, 2)])
def test_clamped_disc_on_gmsh_meshes(k, order, coord):
    """Clamped circular Kirchhoff plate on the four gmsh levels: lam_1 -> 10.2158 (Leissa), observed
    orders 2 (k = 1, straight cells) and 4 (k = 2, quadratic cells on the circle)."""
    ref = pm.circular_clamped_exact()
    lam = []
    for lv in range(4):
        mesh = load_mesh(_path(f"disc_l{lv}.msh"), coordinate_degree=coord,
                         circle=(0.0, 0.0, 1.0) if coord > 1 else None)
        lam.append(pm.plate_lam("kirchhoff", mesh, k, {1: "clamped"}, n_modes=1)[0][0])
    err = np.array(lam) / ref - 1
    orders = np.log2(np.abs(err[:-1] / err[1:]))
    assert np.all(np.abs(orders[1:] - order) < 0.25) and orders[0] > order - 0.5, orders
    assert abs(err[-1]) < {1: 3e-3, 2: 2e-7}[k]


def test_physical_points_and_regeneration(tmp_path):
    """scripts/make_meshes.py regenerates the same meshes; the station tags 101-103 are single nodes."""
    gmsh = pytest.importorskip("gmsh")
    import importlib.util
    spec = importlib.util.spec_from_file_location("make_meshes", os.path.join(ROOT, "scripts", "make_meshes.py"))
    mk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mk)
    mk.main(["--outdir", str(tmp_path)])
    names = sorted(f for f in os.listdir(MESHES) if f.endswith(".msh"))
    assert sorted(os.listdir(tmp_path)) == names
    for name in names:
        a, b = fd.Mesh(_path(name)), fd.Mesh(str(tmp_path / name))
        assert a.num_cells() == b.num_cells() and abs(_measure(a) - _measure(b)) < 1e-14
    gmsh.initialize(["gmsh", "-v", "0"])
    try:
        for length in (28, 30):
            gmsh.open(_path(f"plate_4x{length}_l1.msh"))
            for tag, p in STATIONS.items():
                ents = gmsh.model.getEntitiesForPhysicalGroup(0, tag)
                assert len(ents) == 1
                _, coord, _ = gmsh.model.mesh.getNodes(0, int(ents[0]))
                assert np.allclose(coord[:2], p, atol=1e-14)
            gmsh.clear()
    finally:
        gmsh.finalize()


def test_coupler_meshes():
    """The solid coupler (round bar 6 mm x 0.3 m, the section the 8-gon inscribed in the circle): volume
    and the area of each tag (1, 2 the ends, 4 the interior midspan section, 3 the mantle of eight
    chords), 240 x 2^level tetrahedra, the levels refining the axis only."""
    r, L = 3e-3, 0.3
    area = 2 * np.sqrt(2) * r**2                          # the inscribed regular 8-gon
    chord = 2 * r * np.sin(np.pi / 8)
    for lv in range(3):
        m = fd.Mesh(_path(f"coupler_l{lv}.msh"))
        assert m.num_cells() == 240 * 2**lv
        # the mesh's labels list every tag under both kinds of facet; the facets carry them apart
        assert [m.exterior_facets.subset(t).size for t in (1, 2, 3)] == [8, 8, 160 * 2**lv]
        assert m.interior_facets.subset(4).size == 8
        assert abs(_measure(m) / (area * L) - 1) < 1e-12
        for tag in (1, 2):
            assert abs(_measure(m, tag) / area - 1) < 1e-12
        assert abs(_measure(m, 3) / (8 * chord * L) - 1) < 1e-12
        mid = fd.assemble(fd.Constant(1.0) * fd.dS(4, domain=m))
        assert abs(mid / area - 1) < 1e-12
        X = m.coordinates.dat.data_ro
        assert np.min(np.linalg.norm(X - np.array([L / 2, 0.0, 0.0]), axis=1)) < 1e-15

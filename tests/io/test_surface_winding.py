"""The drawn surfaces' triangles have one winding: a plate's and a plane solid's counter-clockwise
in their plane, a 3D solid's boundary with the outward normal.  A mesh's cells come in either
winding; a surface wound both ways gets vertex normals that cancel, drawn dark in patches."""
import numpy as np
import pytest

from conftest import needs_firedrake
from phmech.bodies.picture import counterclockwise, outward


def signed_areas(tri, xy):
    a, b = xy[tri[:, 1]] - xy[tri[:, 0]], xy[tri[:, 2]] - xy[tri[:, 0]]
    return a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]


def test_counterclockwise_turns_the_clockwise_triangles_only():
    xy = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    tri = np.array([[0, 1, 2], [0, 3, 2]])                 # the second one clockwise
    got = counterclockwise(tri, xy)
    assert got.tolist() == [[0, 1, 2], [0, 2, 3]] and np.all(signed_areas(got, xy) > 0)
    assert tri.tolist() == [[0, 1, 2], [0, 3, 2]]           # the input is left as it was
    assert counterclockwise(np.zeros((0, 3), int), xy).shape == (0, 3)


def test_outward_points_the_normals_away_from_the_inside():
    X = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    faces = np.array([[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]])     # face i opposite vertex i
    got = outward(faces, X, X[[0, 1, 2, 3]])
    n = np.cross(X[got[:, 1]] - X[got[:, 0]], X[got[:, 2]] - X[got[:, 0]])
    centroid = X.mean(axis=0)
    assert np.all(np.einsum("ij,ij->i", n, X[got[:, 0]] - centroid) > 0)


@needs_firedrake
@pytest.mark.parametrize("kind", ["kirchhoff", "mindlin"])
def test_a_plates_triangles_are_counterclockwise(kind):
    import firedrake as fd
    from phmech.fem import KirchhoffPlate, MindlinPlate
    from phmech.fem.plate_picture import plate_surface
    mesh = fd.UnitSquareMesh(4, 4)
    if kind == "kirchhoff":
        plate = KirchhoffPlate("p", mesh, 0.01, 2700.0, 70e9, 0.3, degree=2, boundary={1: "clamped"})
    else:
        plate = MindlinPlate("p", mesh, 0.05, 2700.0, 70e9, 0.3, degree=2, boundary={1: "clamped"})
    surf = plate_surface(plate)
    assert len(surf.triangles) == 4 * 2 * 16                     # each cell split in four
    assert np.all(signed_areas(surf.triangles, surf.xy) > 0)


@needs_firedrake
def test_a_solids_surface_is_wound_outward_and_a_plane_solid_counterclockwise():
    import firedrake as fd
    from phmech.fem import ElasticSolid
    from phmech.fem.solid_picture import solid_surface
    box = ElasticSolid("box", fd.BoxMesh(3, 2, 2, 0.3, 0.1, 0.1), 7800.0, 2e11, 0.3)
    surf = solid_surface(box)
    X, tri = surf.X, surf.triangles
    n = np.cross(X[tri[:, 1]] - X[tri[:, 0]], X[tri[:, 2]] - X[tri[:, 0]])
    centre = np.array([0.15, 0.05, 0.05])                        # the box is convex
    assert np.all(np.einsum("ij,ij->i", n, X[tri].mean(axis=1) - centre) > 0)
    plane = ElasticSolid("plane", fd.RectangleMesh(4, 2, 0.4, 0.1), 7800.0, 2e11, 0.3)
    surf = solid_surface(plane)
    assert np.all(signed_areas(surf.triangles, surf.X[:, :2]) > 0)

"""Bad input to elastic solids and form bodies: each one error naming the body, the parameter and
its value, raised before anything is assembled where it can be.

* a marker the mesh does not have (a clamped boundary, the frame's reference, a face port, an
  interior facet of a form);
* a port on no mesh entity (a face whose nodes a clamp removed; a frame port on a fixed body);
* a mesh with degenerate or inverted (folded) cells;
* a solid too large for ``max_dofs`` or for the available memory (counted from the mesh before
  any function space is built).
"""
import numpy as np
import pytest

fd = pytest.importorskip("firedrake")

from phmech.fem import ElasticSolid, FormBody  # noqa: E402
from phmech.fem import elastic_solid  # noqa: E402
from phmech.fem.form_body import FormError  # noqa: E402

RHO, E, NU = 7800.0, 2.0e11, 0.3


def box(n=2):
    return fd.BoxMesh(n, 1, 1, 0.2, 0.1, 0.1)


def test_a_boundary_marker_the_mesh_does_not_have():
    with pytest.raises(ValueError, match=r"body 'bar'.*boundary marker 9 \(boundary=\{9: 'clamped'\}\).*"
                                         r"its markers: \[1, 2, 3, 4, 5, 6\]"):
        ElasticSolid("bar", box(), RHO, E, NU, boundary={9: "clamped"})


def test_a_reference_marker_the_mesh_does_not_have():
    with pytest.raises(FormError, match=r"body 'fly'.*reference marker 8 is not a boundary marker"):
        ElasticSolid("fly", box(), RHO, E, NU, floating=True, reference=("clamped", 8))


def test_a_face_port_on_a_marker_the_mesh_does_not_have():
    solid = ElasticSolid("bar", box(), RHO, E, NU, boundary={1: "clamped"})
    with pytest.raises(ValueError, match=r"body 'bar', port 'tip': marker 7 is not a boundary marker.*\[1, 2"):
        solid.add_face_port("tip", 7)
    assert "tip" not in solid.ports


def test_a_form_on_an_interior_marker_the_mesh_does_not_have():
    solid = ElasticSolid("bar", box(), RHO, E, NU, boundary={1: "clamped"})
    with pytest.raises(FormError, match=r"body 'bar': the port 'mid' integrates over the interior facet "
                                        r"marker\(s\) \[4\]"):
        solid.add_form_port("mid", [lambda de: de[0]("+")[k] * fd.dS(4) for k in range(3)])


def test_a_port_on_no_mesh_entity():
    """A face port on the clamped face of a fixed solid would not move: refused; a frame port needs a
    floating body; a form port whose forms vanish on every kept unknown is refused."""
    solid = ElasticSolid("bar", box(), RHO, E, NU, boundary={1: "clamped"})
    with pytest.raises(ValueError, match=r"body 'bar', port 'root': the face 1 has no unknowns left"):
        solid.add_face_port("root", 1)
    with pytest.raises(ValueError, match=r"body 'bar', port 'p': add_frame_port is for a floating body"):
        solid.add_frame_port("p", (0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match=r"body 'bar', port 'q'.*vanish on every kept unknown"):
        solid.add_form_port("q", [lambda de: de[0][k] * fd.ds(1) for k in range(3)])
    # on a floating solid clamped to that face the port moves with the frame: accepted
    fly = ElasticSolid("fly", box(), RHO, E, NU, floating=True, reference=("clamped", 1))
    port = fly.add_face_port("root", 1)
    assert np.allclose(port.Y[:, 6:], 0.0) and np.allclose(port.Y[:, :3], np.eye(3))
    with pytest.raises(ValueError, match=r"body 'fly', port 'p': position must be 3 finite numbers"):
        fly.add_frame_port("p", (0.0, np.nan, 0.0))


def _interior_vertex(mesh):
    X = mesh.coordinates.dat.data_ro
    return int(np.argmin(np.linalg.norm(X - np.array([0.5, 0.5, 0.5]), axis=1)))


def test_a_mesh_with_inverted_cells():
    """The centre vertex of a 2 x 2 x 2 box pushed through a face of its star: the cells there fold
    over their neighbours (their volumes, taken absolutely by the integrals, no longer tile the box)."""
    mesh = fd.UnitCubeMesh(2, 2, 2)
    ElasticSolid("good", mesh, RHO, E, NU, boundary={1: "clamped"})          # the mesh as made: accepted
    folded = fd.UnitCubeMesh(2, 2, 2)
    folded.coordinates.dat.data[_interior_vertex(folded)] = (0.5, 0.5, 1.4)
    with pytest.raises(ValueError, match=r"body 'folded': the mesh has \d+ inverted cell\(s\).*folds over itself"):
        ElasticSolid("folded", folded, RHO, E, NU, boundary={1: "clamped"})


def test_a_mesh_with_a_degenerate_cell():
    flat = fd.UnitCubeMesh(2, 2, 2)
    X = flat.coordinates.dat.data
    X[_interior_vertex(flat)] = (0.5, 0.5, 1.0)          # onto the top face: its cells there are flat
    with pytest.raises(ValueError, match=r"body 'flat': the mesh has \d+ degenerate cell\(s\) \(zero volume"):
        ElasticSolid("flat", flat, RHO, E, NU, boundary={1: "clamped"})


def test_a_plane_mesh_with_an_inverted_triangle():
    mesh = fd.UnitSquareMesh(2, 2)
    X = mesh.coordinates.dat.data
    X[int(np.argmin(np.linalg.norm(X - np.array([0.5, 0.5]), axis=1)))] = (0.5, 1.3)
    with pytest.raises(ValueError, match=r"body 'strip': the mesh has .*inverted cell"):
        ElasticSolid("strip", mesh, RHO, E, NU, boundary={1: "clamped"})


def test_a_solid_too_large_is_refused_before_assembly(monkeypatch):
    """Above max_dofs, or when the estimated assembly memory exceeds the available memory, the solid is
    refused before any space is built (FormBody.__init__ is never reached); an explicit max_dofs
    builds it whatever the memory."""
    mesh = fd.BoxMesh(4, 2, 2, 0.4, 0.1, 0.1)

    def no_assembly(*args, **kwargs):
        raise AssertionError("assembled")
    monkeypatch.setattr(FormBody, "__init__", no_assembly)
    with pytest.raises(ValueError, match=r"body 'big': the solid has about [\d,]+ unknowns \(degree 2, 96 cells"
                                         r".*above max_dofs=100"):
        ElasticSolid("big", mesh, RHO, E, NU, max_dofs=100)
    monkeypatch.setattr(elastic_solid, "available_memory", lambda: 1e6)
    with pytest.raises(ValueError, match=r"body 'big': the solid has about .*needs about [\d.]+ GB of memory, more "
                                         r"than the 0.001 GB available"):
        ElasticSolid("big", mesh, RHO, E, NU)
    with pytest.raises(AssertionError, match="assembled"):                   # max_dofs given: built
        ElasticSolid("big", mesh, RHO, E, NU, max_dofs=10**6)


def test_the_size_estimate_counts_the_unknowns():
    """The count before assembly is the solid's number of unknowns (no condition removes any)."""
    for mesh, degree in ((fd.BoxMesh(3, 2, 1, 0.3, 0.2, 0.1), 2), (fd.BoxMesh(3, 2, 1, 0.3, 0.2, 0.1), 1),
                         (fd.RectangleMesh(4, 3, 0.4, 0.3), 2)):
        n = elastic_solid._check_size("s", mesh, degree, None)
        solid = ElasticSolid("s", mesh, RHO, E, NU, degree=degree)
        assert n == solid.ne, (degree, n, solid.ne)

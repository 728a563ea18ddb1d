"""The stress of a body at the mesh vertices, for its pictures (ParaView point data ``stress``).

A body that declares its stress field (``STRESS_FIELD``: a symmetric tensor field
of the mesh's dimension, the elastic solid's ``DG_{k-1}`` stress) gives at each vertex the mean over the cells
around it of the field's value there: each component interpolated into ``DG_1``
(nodes at the cells' vertices, exact for the ``DG_0`` and ``DG_1`` stresses) and
averaged over the cells that share the vertex, so a field continuous and linear
over the mesh is reproduced exactly.  The rows are linear in the efforts: a
sparse matrix per component over the body's ``e``, applied to a state (the
full body) or to the reduction basis (a reduced body, whose mesh record keeps
them: :mod:`phmech.reduce.picture`).

Components: ``xx, yy, zz, xy, yz, xz`` (the order of a symmetric tensor in VTK),
in the body frame; a plane solid's ``zz, yz, xz`` are zero.
"""
import numpy as np
import scipy.sparse as sp

from ..bodies.picture import SYMMETRIC_COMPONENTS as COMPONENTS


def stress_field(body):
    """The index of the body's stress field: the field it declares as its ``STRESS_FIELD`` (the
    elastic solid's symmetric stress), checked to be a tensor field of the mesh's dimension;
    None for a body that declares none."""
    f = getattr(body, "STRESS_FIELD", None)
    space = getattr(body, "space", None)
    if f is None or space is None:
        return None
    from .form_body import _dimension
    d = _dimension(body.mesh, "geometric")
    if not 0 <= f < len(space) or body._split_field(body._trial, f).ufl_shape != (d, d):
        raise ValueError(f"body '{body.name}': STRESS_FIELD {f!r} is no tensor field of dimension {d}")
    return f


def vertex_stress_rows(body):
    """``(6 * n_vertices, ne)`` sparse rows: the stress components (module docstring) at the mesh's
    vertices (the numbering of ``mesh.coordinates``), row ``6 i + c`` the component ``c`` at vertex
    ``i``; None for a body without a stress tensor field."""
    import firedrake as fd
    from ._petsc import to_scipy
    f = stress_field(body)
    if f is None:
        return None
    mesh = body.mesh
    d = body._split_field(body._trial, f).ufl_shape[0]
    Vs = body.space.sub(f).collapse()
    from scipy.spatial import cKDTree
    P1 = fd.FunctionSpace(mesh, "DG", 1, variant="equispaced")        # nodes at the vertices
    X = np.asarray(mesh.coordinates.dat.data_ro, float).reshape(len(mesh.coordinates.dat.data_ro), -1)
    Xd = np.asarray(fd.Function(fd.VectorFunctionSpace(mesh, "DG", 1, variant="equispaced")).interpolate(
        fd.SpatialCoordinate(mesh)).dat.data_ro, float).reshape(P1.dim(), -1)
    dist, vertex = cKDTree(X).query(Xd)                                # the vertex of each DG_1 node
    if np.max(dist, initial=0.0) > 1e-9 * (1.0 + np.abs(X).max()):
        return None                                                    # a curved mesh: no vertex nodes
    n_v = len(X)
    count = np.bincount(vertex, minlength=n_v).astype(float)
    A = sp.csr_matrix((1.0 / count[vertex], (vertex, np.arange(P1.dim()))), shape=(n_v, P1.dim()))
    off = body._offsets()
    full_to_e = np.asarray(body._full_to_e, np.int64)
    trial = fd.TrialFunction(Vs)
    blocks = []
    for a, b in COMPONENTS:
        if a >= d or b >= d:
            blocks.append(sp.csr_matrix((n_v, body.ne)))
            continue
        I = to_scipy(fd.assemble(fd.interpolate(trial[a, b], P1), mat_type="aij"))
        S = sp.coo_matrix(A @ I)
        cols = full_to_e[off[f] + S.col]
        keep = cols >= 0
        blocks.append(sp.csr_matrix((S.data[keep], (S.row[keep], cols[keep])), shape=(n_v, body.ne)))
    out = sp.vstack(blocks, format="csr")                            # component-major
    order = (np.arange(6)[None, :] * n_v + np.arange(n_v)[:, None]).ravel()
    return out[order]                                                 # vertex-major: row 6 i + c

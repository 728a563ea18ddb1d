"""The full mesh of a reduced body: what it keeps to draw the deforming mesh of the model it was reduced from.

A reduction (:func:`phmech.reduce.craig_bampton`, :func:`phmech.reduce.modal_reduction`)
of a body on a Firedrake mesh keeps a :class:`FullMesh`: the mesh's vertex
coordinates (body frame), its cells (intervals, triangles or tetrahedra, the
mesh's own numbering) and, for each vertex, the indices in the full body's
efforts of its velocity components along the body-frame axes.  With the
basis ``V_v`` of the reduction these rows give the full velocity and
displacement at the vertices from the reduced coordinates,
``v(X_i) = V_v[rows_i] v_r`` and ``u(X_i) = V_v[rows_i] s_r`` (the modal
displacements of the compatible stress basis), without Firedrake: the record
is stored with the reduced body (:meth:`~phmech.reduce.ReducedBody.save`), and
the reduced body draws the whole mesh (:meth:`FullMesh.picture`, the protocol of
:mod:`phmech.bodies.picture`) in ParaView output (:func:`phmech.io.paraview.write_pvd`)
and the other writers.

The vertices are nodes of the velocity fields (Lagrange elements of any
degree).  The velocity components are placed along the body-frame axes:
a vector field of the mesh's dimension (a solid, plane or spatial) and a
scalar field on an interval (an axial rod) along the mesh's axes, the velocity
fields of a floating body (``dim`` components) along the frame's axes, and a
scalar field on a plane mesh in a spatial body (a plate) along ``z``.  A body of
another kind keeps no mesh and draws itself by its ports.

Point data of the drawn part: ``velocity`` (inertial: the frame's rigid motion
plus the elastic velocity), ``displacement`` (the elastic displacement, inertial
components, unmagnified), ``stress`` (a solid's, when the record keeps its
vertex stresses: inertial axes) and, on surfaces, ``deflection`` (its ``z`` component:
a plate's ``w``).  The displacement is the modal one of the stress coordinates
(exact for a motion that started undeformed); where the velocity basis holds a
motion without strain, the trapezoidal integral of the stored velocities.
"""
import numpy as np

from ..bodies.picture import Part, pad3, rotate_symmetric
from .basis import ReductionError

#: Firedrake's cell names -> the cell type of the part
CELL_TYPES = {"interval": "line", "triangle": "triangle", "tetrahedron": "tetra"}
#: vertices per cell of each type
CELL_SIZES = {"line": 2, "triangle": 3, "tetra": 4}


class MeshPart(Part):
    """A :class:`~phmech.bodies.picture.Part` of mesh cells whose :meth:`triangles` are its surface
    (the boundary faces of a tetrahedral mesh, for writers that draw triangles)."""

    def __init__(self, name, kind, points, cells, surface, point_data=None):
        super().__init__(name, kind, points, cells, point_data)
        self._surface = surface

    def triangles(self):
        return self._surface


def boundary_faces(tets):
    """The faces ``(n, 3)`` of the tetrahedra ``tets`` that belong to one of them only (oriented
    outwards when the tetrahedra are positively oriented)."""
    tets = np.asarray(tets, np.int64)
    if not len(tets):
        return np.zeros((0, 3), np.int64)
    # face i of a tetrahedron is opposite vertex i, ordered so that its normal points away from it
    local = np.array([[1, 2, 3], [0, 3, 2], [0, 1, 3], [0, 2, 1]])
    faces = tets[:, local].reshape(-1, 3)
    key = np.sort(faces, axis=1)
    _, inverse, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    return faces[counts[inverse.ravel()] == 1]


class FullMesh:
    """The full body's mesh kept by a reduced body (module docstring).

    Parameters
    ----------
    points : ndarray (n, d)
        Vertex coordinates in the body frame (``d`` = the mesh's geometric dimension).
    cells : ndarray (nc, k)
        Vertex indices of each cell.
    cell_type : {"line", "triangle", "tetra"}
    rows : ndarray (n, 3) of int
        Index in the full body's efforts of each vertex's velocity along the body-frame
        axes x, y, z (``-1``: none, or removed by a condition).
    """

    def __init__(self, points, cells, cell_type, rows, stress=None):
        points = np.atleast_2d(np.asarray(points, float))
        cells = np.atleast_2d(np.asarray(cells, np.int64))
        rows = np.asarray(rows, np.int64)
        n = len(points)
        problems = []
        if cell_type not in CELL_SIZES:
            problems.append(f"cell type {cell_type!r} is none of {sorted(CELL_SIZES)}")
        elif cells.shape[1] != CELL_SIZES[cell_type]:
            problems.append(f"{cell_type} cells need {CELL_SIZES[cell_type]} vertices, got {cells.shape[1]}")
        if points.shape[1] > 3 or not np.all(np.isfinite(points)):
            problems.append(f"points must be finite rows of at most 3 coordinates, got shape {points.shape}")
        if cells.size and (cells.min() < 0 or cells.max() >= n):
            problems.append(f"cells refer to vertices outside [0, {n})")
        if rows.shape != (n, 3) or rows.size and rows.min() < -1:
            problems.append(f"rows must be ({n}, 3) indices (-1: none), got shape {rows.shape}")
        if stress is not None:
            stress = np.asarray(stress, float)
            if stress.ndim != 3 or stress.shape[:2] != (n, 6) or not np.all(np.isfinite(stress)):
                problems.append(f"stress must be finite ({n}, 6, n_r) rows, got shape {stress.shape}")
        if problems:
            raise ValueError("full mesh: " + "; ".join(problems))
        self.points, self.cells, self.cell_type, self.rows = points, cells, cell_type, rows
        #: ``(n, 6, n_r)``: the vertex stresses of unit reduced coordinates, or None
        self.stress = stress
        self._surface = None

    @property
    def kind(self):
        """The part's kind: ``"line"`` (intervals) or ``"surface"``."""
        return "line" if self.cell_type == "line" else "surface"

    def surface(self):
        """The drawn triangles: the cells of a triangle mesh, the boundary faces of a tetrahedral one."""
        if self._surface is None:
            self._surface = {"triangle": self.cells, "tetra": None, "line": np.zeros((0, 3), np.int64)}[
                self.cell_type]
            if self._surface is None:
                self._surface = boundary_faces(self.cells)
        return self._surface

    # -- file ---------------------------------------------------------------------------------
    def arrays(self):
        """The datasets of the record (``mesh/...``) and its metadata."""
        arrays = {"mesh/points": self.points, "mesh/cells": self.cells, "mesh/rows": self.rows}
        if self.stress is not None:
            arrays["mesh/stress"] = self.stress
        return (arrays, {"cell_type": self.cell_type, "n_points": len(self.points), "n_cells": len(self.cells),
                         "stress": self.stress is not None})

    @classmethod
    def from_arrays(cls, meta, arrays):
        """The record of :meth:`arrays` read back (``ValueError`` when the sizes disagree)."""
        mesh = cls(arrays["mesh/points"], arrays["mesh/cells"], meta["cell_type"], arrays["mesh/rows"],
                   arrays["mesh/stress"] if meta.get("stress") else None)
        if (len(mesh.points), len(mesh.cells)) != (meta["n_points"], meta["n_cells"]):
            raise ValueError("full mesh: its sizes differ from the recorded ones")
        return mesh

    # -- recovery at the vertices ---------------------------------------------------------------
    def vertex_basis(self, basis):
        """``(n, 3, n_r)``: the vertex velocities along x, y, z of unit velocity coordinates
        (the rows of ``V_v``; zero where a vertex has no unknown), with the rigid velocity of the
        frame block ``V_f`` where the modes move the frame (mean axes)."""
        where = np.full(basis.ne, -1, np.int64)
        where[basis.v] = np.arange(len(basis.v))
        rows = self.rows
        pos = np.where(rows >= 0, where[np.maximum(rows, 0)], -1)
        if np.any((rows >= 0) & (pos < 0)):
            raise ValueError("full mesh: a vertex row is no velocity unknown of the reduction's basis")
        out = np.zeros(rows.shape + (basis.Vv.shape[1],))
        have = pos >= 0
        out[have] = basis.Vv[pos[have]]
        if basis.moves_frame:
            kind = "spatial" if len(basis.f) == 6 else "planar"
            X = pad3(self.points)
            for j in range(out.shape[-1]):
                out[..., j] += rigid_velocity(kind, basis.Vf[:, j], X)
        return out


def with_stress(mesh, body, basis):
    """``mesh`` with the vertex stresses of the reduction ``basis`` (:mod:`phmech.fem.stress_picture`:
    the rows of a body that declares its stress field, times the basis), or as it is."""
    if mesh is None or getattr(body, "STRESS_FIELD", None) is None:
        return mesh
    from ..fem.stress_picture import vertex_stress_rows
    S = vertex_stress_rows(body)
    if S is None or S.shape[0] != 6 * len(mesh.points):
        return mesh
    return FullMesh(mesh.points, mesh.cells, mesh.cell_type, mesh.rows,
                    basis.rows(S).reshape(len(mesh.points), 6, basis.n))


def full_mesh(body):
    """The :class:`FullMesh` of a Firedrake body (a :class:`~phmech.fem.FormBody`, a plate), or None
    for a body of another kind (no Firedrake mesh, velocity fields that are no Lagrange fields or
    whose components have no place on the body-frame axes, a mesh distributed over ranks).

    Needs Firedrake (the body has it); read from the body's space, the velocity fields and their
    unknowns kept in its efforts.  A body of another kind may give its mesh itself by a method
    ``drawing_mesh()`` returning a :class:`FullMesh` (or None)."""
    own = getattr(body, "drawing_mesh", None)
    if callable(own):
        mesh = own()
        if mesh is not None and not isinstance(mesh, FullMesh):
            raise ReductionError(f"body '{body.name}': drawing_mesh() must return a FullMesh or None, "
                                 f"got {type(mesh).__name__}")
        return mesh
    mesh = getattr(body, "mesh", None)
    if mesh is None or not hasattr(mesh, "coordinates"):
        return None
    fields = _velocity_fields(body)
    if fields is None or getattr(mesh.comm, "size", 1) > 1:
        return None
    import firedrake as fd
    from scipy.spatial import cKDTree
    cell_type = CELL_TYPES.get(_value(mesh.ufl_cell(), "cellname"))
    coords = mesh.coordinates
    gdim = int(np.prod(coords.ufl_shape)) if coords.ufl_shape else 1
    if cell_type is None or _value(coords.function_space().ufl_element(), "degree") != 1:
        return None
    X = np.asarray(coords.dat.data_ro, float).reshape(-1, gdim)
    cells = np.asarray(coords.function_space().cell_node_list, np.int64)
    ncomp = sum(V.block_size for V, _ in fields)
    dim = int(getattr(body, "dim", 3))
    if ncomp == gdim or (getattr(body, "n_frame", 0) and ncomp == dim):
        axes = list(range(ncomp))
    elif ncomp == 1 and gdim == 2 and dim == 3:
        axes = [2]                                          # a plate's transverse velocity
    else:
        return None
    x = fd.SpatialCoordinate(mesh)
    rows = np.full((len(X), 3), -1, np.int64)
    full_to_e = np.asarray(body._full_to_e, np.int64)
    k = 0
    for V, offset in fields:
        bs = V.block_size
        cols = []
        for c in range(gdim):
            f = fd.Function(V).interpolate(x[c] if bs == 1 else fd.as_vector([x[c]] * bs))
            cols.append(np.asarray(f.dat.data_ro, float).reshape(-1, bs)[:, 0])
        nodes = np.column_stack(cols)
        dist, idx = cKDTree(nodes).query(X)
        if np.max(dist, initial=0.0) > 1e-9 * (1.0 + np.abs(X).max()):
            return None                                     # the vertices are no nodes of the field
        for b in range(bs):
            rows[:, axes[k + b]] = full_to_e[offset + idx * bs + b]
        k += bs
    return FullMesh(X, cells, cell_type, rows)


def _value(obj, name, default=None):
    """``obj.name``, called where it is a method (UFL has both, by version)."""
    v = getattr(obj, name, default)
    return v() if callable(v) else v


def _velocity_fields(body):
    """``[(collapsed space, offset in the full vector)]`` of the body's velocity fields (Lagrange
    ones), or None."""
    if hasattr(body, "space") and hasattr(body, "_velocity") and hasattr(body, "_offsets"):
        W, off = body.space, body._offsets()
        spaces = [(W.sub(i).collapse() if len(W) > 1 else W, int(off[i])) for i in body._velocity]
    elif isinstance(getattr(body, "spaces", None), (tuple, list)) and hasattr(body, "_full_to_e"):
        spaces = [(body.spaces[0], 0)]                      # a plate: the transverse velocity first
    else:
        return None
    for V, _ in spaces:
        family = _value(V.ufl_element(), "family", "")
        if "Lagrange" not in str(family) and str(family) not in ("Q", "CG"):
            return None
    return spaces


# -- drawing --------------------------------------------------------------------------------------
def rigid_velocity(kind, e_f, X):
    """The frame's rigid velocity ``v_P + omega x X`` at the body-frame points ``X`` ``(n, 3)``
    (body-frame components; zero for a fixed body)."""
    if kind == "fixed" or not len(e_f):
        return np.zeros_like(X)
    if kind == "spatial":
        return e_f[:3] + np.cross(e_f[3:6], X)
    out = np.zeros_like(X)
    out[:, :2] = e_f[:2] + e_f[2] * np.column_stack([-X[:, 1], X[:, 0]])
    return out


def _placement(body, q):
    """``(R, x_P)`` of the body frame, as 3 x 3 and 3 (identity and zero for a fixed body)."""
    R, xP = np.eye(3), np.zeros(3)
    if body.frame != "fixed":
        r = np.asarray(body.rotation(q), float)
        R[:r.shape[0], :r.shape[1]] = r
        p = np.asarray(body.position(q), float)
        xP[:len(p)] = p
    return R, xP


def displacement_history(body, t, E, rows):
    """The modal displacement coordinates ``(len(rows), n_r)`` at the output ``rows`` (module
    docstring): the stress coordinates, else the trapezoidal integral of the velocity ones."""
    E = np.atleast_2d(np.asarray(E, float))
    b = body.basis
    rows = np.asarray(rows, int)
    if body.info.get("modal_stresses", False):
        return E[rows][:, b.rs]
    V = E[:, b.rv]
    t = np.asarray(t, float)
    steps = 0.5 * np.diff(t)[:, None] * (V[1:] + V[:-1])
    U = np.vstack([np.zeros((1, V.shape[1])), np.cumsum(steps, axis=0)])
    return U[rows]


def mesh_picture(body, t, Q, E, rows, scale=1.0):
    """A function ``k -> Part``: the full mesh of the reduced ``body`` at ``rows[k]`` (module
    docstring)."""
    mesh = body.full_mesh
    X = pad3(mesh.points)
    Phi = body.vertex_basis()                                # (n, 3, n_r)
    b = body.basis
    Ur = displacement_history(body, t, E, rows)
    surface = mesh.surface()

    def part(k):
        q, e = Q[rows[k]], np.asarray(E[rows[k]], float)
        R, xP = _placement(body, q)
        u = Phi @ Ur[k]
        v = rigid_velocity(body.frame, e[b.rf], X) + Phi @ e[b.rv]
        data = {"velocity": v @ R.T, "displacement": u @ R.T}
        if mesh.stress is not None:
            data["stress"] = rotate_symmetric(mesh.stress @ e, R)
        if mesh.kind == "surface":
            data["deflection"] = data["displacement"][:, 2].copy()
        pts = xP + (X + scale * u) @ R.T
        return MeshPart(body.name, mesh.kind, pts, [(mesh.cell_type, mesh.cells)], surface, data)
    return part


def mesh_mode_picture(body, q, u):
    """The mesh's vertices displaced by the small motion ``u`` (reduced effort layout): the frame's
    rigid part and the elastic one, ``R (u_f-rigid + V_v[rows] u_v)``; linear in ``u``."""
    X = pad3(body.full_mesh.points)
    R, xP = _placement(body, q)
    u = np.asarray(u, float)
    b = body.basis
    d = rigid_velocity(body.frame, u[b.rf], X) + body.vertex_basis() @ u[b.rv]
    return xP + (X + d) @ R.T

"""The picture of an elastic solid: its boundary surface, moved by the frame and the displacement.

A solid's state holds velocities and stresses; its displacement is recovered
from the stresses (:meth:`~phmech.fem.form_body.FormBody.displacement`, exact for
a motion that starts undeformed, as the beams' and plates').  The drawn surface
is the mesh's boundary triangles (a 3D solid) or its cells (a plane solid) over
the mesh vertices, placed by the frame (a floating solid) and moved by ``scale``
times the displacement; a floating plate's (:mod:`phmech.fem.floating_plate`) its cells in the
frame's plane, its membrane and transverse velocities the three components.

Point data of the part: ``velocity`` (inertial: the frame's rigid motion plus the
elastic velocity), ``displacement`` (the elastic displacement in inertial
components, unmagnified) and, for a solid that declares its stress field,
``stress`` (its six components in inertial axes, :mod:`phmech.fem.stress_picture`).  Building the drawing data needs Firedrake; it is
kept per solid.
"""
import weakref

import numpy as np

from ..bodies.picture import Part, counterclockwise, outward, pad3, rotate_symmetric
from .stress_picture import vertex_stress_rows

_SURFACES = weakref.WeakKeyDictionary()


class SolidSurface:
    """The drawing data of a solid (built once with Firedrake).

    Attributes
    ----------
    X : ndarray (n, dim)
        The mesh vertices on the drawn surface (body frame).
    node_e : ndarray (n, dim)
        Index in the solid's ``e`` of each vertex's velocity components (``-1``: removed).
    triangles : ndarray (nt, 3)
        Indices into ``X``, wound with the outward normal (a 3D solid) or counter-clockwise (a
        plane solid).
    """

    def __init__(self, solid):
        import firedrake as fd
        from scipy.spatial import cKDTree

        from .form_body import _dimension

        mesh, dim = solid.mesh, solid.dim
        gdim = _dimension(mesh, "geometric")
        coords = mesh.coordinates
        Xv = np.asarray(coords.dat.data_ro, float).reshape(-1, gdim)
        cn = np.asarray(coords.function_space().cell_node_list, np.int64)
        if gdim == 3:
            ext = mesh.exterior_facets
            fc = np.asarray(ext.facet_cell, np.int64).reshape(-1)
            lf = np.asarray(ext.local_facet_dat.data_ro, np.int64).reshape(-1)
            keep = np.ones((len(fc), 4), bool)
            keep[np.arange(len(fc)), lf] = False              # local facet i is opposite vertex i
            tri = cn[fc][keep].reshape(-1, 3)
            tri = outward(tri, Xv, Xv[cn[fc, lf]])            # wound with the outward normal
        else:
            tri = counterclockwise(cn[:, :3], Xv)
        used, self.triangles = np.unique(tri, return_inverse=True)
        #: rows ``(6 n, ne)`` of the stress at the drawn vertices (:mod:`phmech.fem.stress_picture`), or None
        self.stress = vertex_stress_rows(solid)
        if self.stress is not None:
            self.stress = self.stress[(used[:, None] * 6 + np.arange(6)).ravel()]
        self.triangles = self.triangles.reshape(-1, 3)
        self.X = np.zeros((len(used), dim))
        self.X[:, :gdim] = Xv[used]                 # a plate's mesh lies in its frame's plane z = 0
        off = solid._offsets()
        columns = []
        for f in solid._velocity:                   # the velocity components, field by field
            V = solid.space.sub(f) if len(solid.space) > 1 else solid.space
            Vc = V.collapse() if hasattr(V, "collapse") else V
            fun = fd.Function(fd.VectorFunctionSpace(mesh, Vc.ufl_element().family(), Vc.ufl_element().degree()))
            nodes = np.asarray(fun.interpolate(fd.SpatialCoordinate(mesh)).dat.data_ro).reshape(-1, gdim)
            dist, idx = cKDTree(nodes).query(Xv[used])
            if np.max(dist, initial=0.0) > 1e-9 * (1.0 + np.abs(nodes).max()):
                raise ValueError(f"body '{solid.name}': the mesh vertices are not nodes of its velocity field {f}")
            bs = V.block_size
            columns += [off[f] + idx * bs + c for c in range(bs)]
        self.node_e = np.asarray(solid._full_to_e[np.column_stack(columns)], np.int64)

    def nodal(self, e):
        """Vertex values ``(..., n, dim)`` of the velocity field of ``e`` (or of rows of it; zero at
        removed nodes)."""
        e = np.asarray(e, float)
        out = np.zeros(e.shape[:-1] + self.node_e.shape)
        have = self.node_e >= 0
        out[..., have] = e[..., self.node_e[have]]
        return out


def solid_surface(solid):
    """The :class:`SolidSurface` of ``solid`` (built on first use, kept while the solid lives)."""
    surf = _SURFACES.get(solid)
    if surf is None:
        surf = _SURFACES[solid] = SolidSurface(solid)
    return surf


def rigid_velocity(solid, e, X):
    """The frame's rigid velocity ``v_P + omega x X`` at the body-frame points ``X`` (zero for a
    fixed solid)."""
    if not solid.floating:
        return np.zeros_like(X)
    d = solid.dim
    if d == 3:
        return e[:3] + np.cross(e[3:6], X)
    return e[:2] + e[2] * np.column_stack([-X[:, 1], X[:, 0]])


def solid_picture(solid, Q, E, rows, scale=1.0):
    """A function ``k -> Part``: the solid's surface at ``rows[k]`` (module docstring)."""
    surf = solid_surface(solid)
    rows = list(rows)
    try:
        U = surf.nodal(solid.displacement(np.asarray(E, float)[rows]))
    except ValueError:                          # a solid free to move rigidly: no recovery
        U = np.zeros((len(rows),) + surf.X.shape)

    def part(k):
        q, e = Q[rows[k]], E[rows[k]]
        if solid.floating:
            R, xP = solid.rotation(q), solid.position(q)
        else:
            R, xP = np.eye(solid.dim), np.zeros(solid.dim)
        v = rigid_velocity(solid, e, surf.X) + surf.nodal(e)
        pts = xP + (surf.X + scale * U[k]) @ R.T
        data = {"velocity": pad3(v @ R.T), "displacement": pad3(U[k] @ R.T)}
        if surf.stress is not None:
            data["stress"] = rotate_symmetric((surf.stress @ e).reshape(-1, 6), R)
        return Part(solid.name, "surface", pts, [("triangle", surf.triangles)], data)
    return part

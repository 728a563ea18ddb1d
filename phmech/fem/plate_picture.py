"""The picture of a plate: its mesh lifted by the deflection, coloured by the moments.

A plate's state holds velocities and moments, no deflection: the
deflection since the first stored time is recovered from the moments
through the plate's constitutive relation ``C (S(t) - S(t_0)) = B d(t)``
(:mod:`phmech.fem.plate_deflection`; exact for the discrete model at any output spacing, as the beams'
displacements are recovered from their stresses), when the plate's
supports leave no rigid motion.  A plate free to move rigidly gets the
trapezoidal integral of its stored velocities instead: the midpoint rule's
own displacement when every step is stored, else a second-order
quadrature of the stored ones.

Point data of a plate's part (besides ``velocity`` and ``displacement`` ``(0, 0, w)``):
``deflection`` ``w`` ``[m]``; cell data: ``bending_moment`` ``(M_xx, M_yy, M_xy)``, the
cell means ``[N m/m]``.  Building the drawing data needs Firedrake; it is kept per plate.
"""
import weakref

import numpy as np
import scipy.sparse as sp

from ..bodies.picture import Part, counterclockwise
from .plate_deflection import plate_held, recovered_deflection

_SURFACES = weakref.WeakKeyDictionary()


class PlateSurface:
    """The drawing data of a plate (built once per plate with Firedrake).

    Attributes
    ----------
    xy : ndarray (n, 2)
        The velocity field's Lagrange nodes (degree ``k``).
    node_e : ndarray (n,)
        Index of each node's velocity in the plate's ``e`` (``-1``: removed by a support).
    triangles : ndarray (nt, 3)
        Linear triangles over the nodes: the cells (``k = 1``), each cell
        split in four at its edge nodes (``k = 2``), the cells' vertices
        (``k >= 3``); each wound counter-clockwise in the plate's plane.
    cell_of_triangle : ndarray (nt,)
        The mesh cell of each triangle.
    moment_mean : sparse (3 ncell, ne)
        ``(M_xx, M_yy, M_xy)`` cell means from ``e``.
    """

    def __init__(self, plate):
        fd = plate._firedrake()
        from ..fem._petsc import to_scipy
        Vv, mesh = plate.spaces[0], plate.mesh
        k = plate.degree
        X = fd.Function(fd.VectorFunctionSpace(mesh, "CG", k)).interpolate(plate.x)
        self.xy = np.array(X.dat.data_ro, float).reshape(-1, 2)
        self.node_e = np.asarray(plate._full_to_e[:Vv.dim()], np.int64)
        cells = np.asarray(Vv.cell_node_list, np.int64)
        dofs = Vv.finat_element.entity_dofs()                   # local numbering: vertices, edges
        vcols = [dofs[0][i][0] for i in range(3)]
        ecols = [dofs[1][i][0] for i in range(3)] if k == 2 else []
        tri, self.cell_of_triangle = self._split(cells, vcols, ecols)
        self.triangles = counterclockwise(tri, self.xy)         # one winding: normals +z
        # cell means of the moment tensor: (int_T M_ij) / |T| from the moment part of the full vector
        ims = 1 if len(plate.spaces) == 2 else 2               # Kirchhoff (v, M); Mindlin (v, omega, M, q)
        Vm = plate.spaces[ims]
        offset = sum(V.dim() for V in plate.spaces[:ims])
        T0 = fd.TensorFunctionSpace(mesh, "DG", 0, shape=(2, 2))
        S0 = fd.FunctionSpace(mesh, "DG", 0)
        A = to_scipy(fd.assemble(fd.inner(fd.TrialFunction(Vm), fd.TestFunction(T0)) * fd.dx, mat_type="aij"))
        area = np.asarray(fd.assemble(fd.TestFunction(S0) * fd.dx).dat.data_ro).ravel()
        dof = np.asarray(S0.cell_node_list, np.int64)[:, 0]     # the DG0 dof of each cell
        comp = np.array([0, 3, 1])                              # xx, yy, xy of the 2x2 blocks
        rows = (4 * dof[:, None] + comp[None, :]).ravel()
        Am = sp.diags(1.0 / np.repeat(area[dof], 3)) @ A.tocsr()[rows]
        # columns: the moment space's part of the full mixed vector, then the kept unknowns
        full = sp.csr_matrix((Am.data, Am.indices + offset, Am.indptr), shape=(Am.shape[0], plate.nf))
        self.moment_mean = full[:, plate._keep].tocsr()

    def _split(self, cells, vcols, ecols):
        """Triangles over the nodes: each P2 cell split in four at its edge nodes, else the cells'
        vertices."""
        v = cells[:, vcols]
        whole = (v, np.arange(len(cells)))
        if not ecols:
            return whole
        # each edge node's vertex pair, from the geometry
        xy = self.xy
        tol = 1e-9 * (1.0 + np.abs(xy).max())
        mid = {}
        for col in ecols:
            node = xy[cells[:, col]]
            for a, b in ((1, 2), (0, 2), (0, 1)):
                ok = np.linalg.norm(node - 0.5 * (xy[v[:, a]] + xy[v[:, b]]), axis=1) < tol
                mid.setdefault((a, b), np.full(len(cells), -1))[ok] = cells[ok, col]
        m01, m02, m12 = mid[(0, 1)], mid[(0, 2)], mid[(1, 2)]
        if min(m01.min(), m02.min(), m12.min()) < 0:          # curved cells: the vertices only
            return whole
        tri = np.concatenate([np.column_stack(t) for t in ((v[:, 0], m01, m02), (v[:, 1], m12, m01),
                                                           (v[:, 2], m02, m12), (m01, m12, m02))])
        return tri, np.tile(np.arange(len(cells)), 4)

    def nodal(self, e):
        """Nodal values of the velocity field (zero at removed nodes) from ``e`` (or rows of it)."""
        e = np.asarray(e, float)
        out = np.zeros(e.shape[:-1] + (len(self.node_e),))
        have = self.node_e >= 0
        out[..., have] = e[..., self.node_e[have]]
        return out

    def moments(self, e):
        """``(M_xx, M_yy, M_xy)`` per triangle ``(nt, 3)``."""
        per_cell = (self.moment_mean @ np.asarray(e, float)).reshape(-1, 3)
        return per_cell[self.cell_of_triangle]


def plate_surface(plate):
    """The :class:`PlateSurface` of ``plate`` (built on first use, kept while the plate lives)."""
    surf = _SURFACES.get(plate)
    if surf is None:
        surf = _SURFACES[plate] = PlateSurface(plate)
    return surf


def deflection_history(plate, t, E, rows=None):
    """Nodal deflection ``w`` of a plate since the first stored time, at the output ``rows``.

    Parameters
    ----------
    plate : PlateBase
    t : array (N,)
        The stored times.
    E : array (N, ne)
        The plate's stored efforts.
    rows : list of int, optional
        The rows wanted (default: all).

    Returns
    -------
    W : ndarray (len(rows), n nodes)
    method : str
        ``"moments"`` (recovered from the moments, supported plates) or
        ``"velocities"`` (trapezoidal integral of the stored velocities).
    """
    surf = plate_surface(plate)
    E = np.atleast_2d(np.asarray(E, float))
    rows = np.arange(len(E)) if rows is None else np.asarray(rows, int)
    if plate_held(plate):
        s = plate.stress_dofs
        e = np.zeros((len(rows), plate.ne))
        e[:, plate.velocity_dofs] = recovered_deflection(plate, E[rows][:, s] - E[0, s])
        return surf.nodal(e), "moments"
    t = np.asarray(t, float)
    W = np.zeros((len(rows), len(surf.node_e)))
    w = np.zeros(len(surf.node_e))
    prev = surf.nodal(E[0])
    want = {int(r): i for i, r in enumerate(rows)}
    for n in range(len(E)):
        if n:
            cur = surf.nodal(E[n])
            w = w + 0.5 * (t[n] - t[n - 1]) * (cur + prev)
            prev = cur
        if n in want:
            W[want[n]] = w
    return W, "velocities"


def plate_picture(plate, t, E, rows, scale=1.0):
    """A function ``k -> Part``: the plate's surface at ``rows[k]`` (see :class:`PlateSurface`)."""
    surf = plate_surface(plate)
    W, _ = deflection_history(plate, t, E, rows)

    def part(k):
        e = E[rows[k]]
        z = np.zeros((len(surf.xy), 3))
        z[:, 2] = W[k]
        pts = np.column_stack([surf.xy, scale * W[k]])
        vel = np.zeros_like(z)
        vel[:, 2] = surf.nodal(e)
        return Part(plate.name, "surface", pts, [("triangle", surf.triangles)],
                    {"velocity": vel, "displacement": z, "deflection": W[k].copy()},
                    {"bending_moment": surf.moments(e)})
    return part

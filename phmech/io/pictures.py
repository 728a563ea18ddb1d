"""Pictures of the bodies of a run: the geometry that the ParaView output, the animations and the
HTML viewer draw.

Every body gives one :class:`Part` per output time:

* rigid bodies and point masses: the poly-line through their ports (a
  vertex for a single port);
* beams with a floating frame (planar and spatial, linear and geometrically
  consistent): a poly-line through ``n_points`` points of the current axis,
  the frame's rigid motion plus the deformation magnified by ``scale``;
* plates (:class:`~phmech.fem.plate.KirchhoffPlate`,
  :class:`~phmech.fem.plate_mindlin.MindlinPlate`): the triangles of the
  mesh in the plane ``z = 0`` lifted by ``scale`` times the deflection;
* mass-spring networks (:func:`phmech.massspring.network_body`, or the
  result of :meth:`~phmech.massspring.MassSpringSystem.simulate`): the
  masses and fixed points joined by their springs, dashpots and distance
  constraints.

Point data of a part: ``velocity`` (inertial ``[m/s]``, when the body
provides it), ``displacement`` (the deformation in inertial components,
unmagnified ``[m]``: zero for rigid bodies, the elastic displacement of a
beam's axis, ``(0, 0, w)`` on a plate, the motion since the first picture
for the nodes of a network) and, on plates, ``deflection`` ``w`` ``[m]``.
Cell data of a plate: ``bending_moment`` ``(M_xx, M_yy, M_xy)``, the
cell means ``[N m/m]``.

A plate's state holds velocities and moments, no deflection: the
deflection since the first stored time is recovered from the moments
through the plate's constitutive relation ``C (S(t) - S(t_0)) = B d(t)``
(:mod:`phmech.fem.plate_deflection`; exact for the discrete model at any output spacing, as the beams'
displacements are recovered from their stresses), when the plate's
supports leave no rigid motion.  A plate free to move rigidly gets the
trapezoidal integral of its stored velocities instead: the midpoint rule's
own displacement when every step is stored, else a second-order
quadrature of the stored ones.
"""
import weakref

import numpy as np
import scipy.sparse as sp

from ..fem.plate_deflection import plate_held, recovered_deflection  # noqa: F401 (plate_held: public here too)

#: kinds of a part
KINDS = ("vertex", "line", "surface", "network")


class Part:
    """The picture of one body at one time.

    Attributes
    ----------
    name : str
        The body.
    kind : {"vertex", "line", "surface", "network"}
    points : ndarray, shape (m, 3)
    cells : list of (str, ndarray)
        Blocks of cells, each ``(type, connectivity)`` with ``type`` one of
        ``"vertex"`` ``(n, 1)``, ``"polyline"`` ``(1, m)``, ``"line"``
        ``(n, 2)``, ``"triangle"`` ``(n, 3)`` (indices into ``points``).
    point_data : dict of ndarray
        Arrays with one row per point.
    cell_data : dict of ndarray
        Arrays with one row per cell (blocks in order).
    """

    def __init__(self, name, kind, points, cells, point_data=None, cell_data=None):
        self.name, self.kind = name, kind
        self.points = _pad3(points)
        self.cells = [(t, np.atleast_2d(np.asarray(c, np.int64))) for t, c in cells]
        self.point_data = dict(point_data or {})
        self.cell_data = dict(cell_data or {})

    @property
    def n_cells(self):
        return sum(len(c) for _, c in self.cells)

    def segments(self):
        """The drawn line segments ``(n, 2)`` (poly-lines split, networks' edges)."""
        out = [np.zeros((0, 2), np.int64)]
        for t, c in self.cells:
            if t == "line":
                out.append(c)
            elif t == "polyline":
                for row in c:
                    out.append(np.column_stack([row[:-1], row[1:]]))
        return np.vstack(out)

    def triangles(self):
        """The triangles ``(n, 3)`` of a surface (empty for other parts)."""
        tri = [c for t, c in self.cells if t == "triangle"]
        return np.vstack(tri) if tri else np.zeros((0, 3), np.int64)


def _pad3(a):
    a = np.atleast_2d(np.asarray(a, float))
    return np.hstack([a, np.zeros((a.shape[0], 3 - a.shape[1]))]) if a.shape[1] < 3 else a


def unique_ports(body):
    """The ports of a body, those at the same body point once."""
    ports = list(body.ports.values()) if isinstance(body.ports, dict) else list(body.ports)
    unique = []
    for p in ports:
        if not any(np.array_equal(p.position, u.position) for u in unique):
            unique.append(p)
    return unique


def has_axis(body):
    """True for a beam drawn by its axis (a floating frame and displacement rows)."""
    return getattr(body, "L", None) is not None and hasattr(body, "displacement_rows") and body.nq > 0


def axis_state(body, q, e, n_points=21, scale=1.0):
    """Current axis of a beam: ``(points, velocity or None, displacement)``.

    ``points`` are the frame's rigid placement of the reference axis plus
    ``scale`` times the deformation (both ``(n_points, 3)``, inertial);
    ``displacement`` is the unmagnified deformation in inertial components.
    The deformation comes from the configuration for the geometrically
    consistent beams (which carry it in ``q``) and from the stresses for the
    linear floating-frame beams.
    """
    L = body.L
    x = np.linspace(0.0, L, n_points)
    rows = body.displacement_rows(x)
    src = q if hasattr(body, "displacement_dofs") else e        # consistent beams: deformation in q
    if rows[0].shape[1] != len(src):
        raise ValueError(f"body '{body.name}': displacement rows have {rows[0].shape[1]} columns, "
                         f"the state has {len(src)}")
    local = np.stack([r @ src for r in rows], axis=1)
    ref = np.zeros_like(local)
    ref[:, 0] = x
    R = body.rotation(q)
    pts = body.position(q) + (ref + scale * local) @ R.T
    return _pad3(pts), _beam_velocity(body, q, e, x), _pad3(local @ R.T)


def _beam_velocity(body, q, e, x):
    """Inertial velocity along a beam axis from its ``velocity_rows`` (planar beams), else None."""
    rows = getattr(body, "velocity_rows", None)
    if rows is None:
        return None
    try:
        rx, ry = rows(x)
    except (TypeError, ValueError, NotImplementedError):
        return None
    if rx.shape[1] != len(e):
        return None
    return _pad3(np.stack([rx @ e, ry @ e], axis=1) @ body.rotation(q).T)


def port_state(body, q, e):
    """Ports of a body: ``(points, velocity)``, both ``(k, 3)`` inertial."""
    ports = unique_ports(body)
    if not ports:
        raise ValueError(f"body '{body.name}' ({type(body).__name__}) has neither ports nor an axis to draw")
    R = body.rotation(q)
    pts = np.array([body.port_position(q, p) for p in ports])
    vel = np.array([R @ (p.Y @ e) for p in ports])
    return _pad3(pts), _pad3(vel)


def is_plate(body):
    from ..fem.plate import PlateBase
    return isinstance(body, PlateBase)


def is_network(body):
    return hasattr(body, "prob") and hasattr(getattr(body, "prob"), "net")


# -- plates -----------------------------------------------------------------------------------
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
        (``k >= 3``).
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
        self.triangles, self.cell_of_triangle = self._split(cells, vcols, ecols)
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


# -- the pictures of a run ----------------------------------------------------------------------
def _network_cells(net):
    """Cells of a network: its springs, dashpots and constraints as lines, the masses as vertices."""
    edges = [np.column_stack([ps.i, ps.j]) for ps in (net.springs, net.dashpots, net.cons) if ps.m]
    lines = np.vstack(edges).astype(np.int64) if edges else np.zeros((0, 2), np.int64)
    return [("line", lines), ("vertex", np.arange(net.nm)[:, None])]


def _network_part(name, net, q, v, x0):
    pts = _pad3(net.nodes(q))
    cells = _network_cells(net)
    return Part(name, "network", pts, cells, {"velocity": _pad3(net.node_velocities(v)), "displacement": pts - x0})


def _body_pictures(bodies, t, Q, E, rows, n_points, scale):
    """For each body a function ``k -> Part`` at ``rows[k]``."""
    out = []
    for b, qh, eh in zip(bodies, Q, E):
        if is_plate(b):
            surf = plate_surface(b)
            W, _ = deflection_history(b, t, eh, rows)

            def plate_part(k, b=b, surf=surf, W=W, eh=eh):
                e = eh[rows[k]]
                z = np.zeros((len(surf.xy), 3))
                z[:, 2] = W[k]
                pts = np.column_stack([surf.xy, scale * W[k]])
                vel = np.zeros_like(z)
                vel[:, 2] = surf.nodal(e)
                return Part(b.name, "surface", pts, [("triangle", surf.triangles)],
                            {"velocity": vel, "displacement": z, "deflection": W[k].copy()},
                            {"bending_moment": surf.moments(e)})
            out.append(plate_part)
        elif is_network(b):
            x0 = _pad3(b.prob.net.nodes(qh[rows[0]]))
            out.append(lambda k, b=b, qh=qh, eh=eh, x0=x0: _network_part(b.name, b.prob.net, qh[rows[k]],
                                                                        eh[rows[k]], x0))
        elif has_axis(b):
            def axis_part(k, b=b, qh=qh, eh=eh):
                pts, vel, disp = axis_state(b, qh[rows[k]], eh[rows[k]], n_points, scale)
                pd = {"displacement": disp}
                if vel is not None:
                    pd["velocity"] = vel
                return Part(b.name, "line", pts, [("polyline", np.arange(len(pts))[None, :])], pd)
            out.append(axis_part)
        else:
            def port_part(k, b=b, qh=qh, eh=eh):
                pts, vel = port_state(b, qh[rows[k]], eh[rows[k]])
                kind, cells = ("vertex", [("vertex", [[0]])]) if len(pts) == 1 else \
                    ("line", [("polyline", np.arange(len(pts))[None, :])])
                return Part(b.name, kind, pts, cells, {"velocity": vel, "displacement": np.zeros_like(pts)})
            out.append(port_part)
    return out


def frame_rows(n_rows, every=None, max_frames=None):
    """Output rows to draw: every ``every``-th (default all), the last always; then at most
    ``max_frames`` of them, evenly sampled (first and last kept)."""
    for key, v in (("every", every), ("max_frames", max_frames)):
        if v is not None and not (isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1):
            raise ValueError(f"{key} must be a positive integer or None, got {v!r}")
    if n_rows < 1:
        raise ValueError("the result has no output rows to draw")
    rows = list(range(0, n_rows, every or 1))
    if rows[-1] != n_rows - 1:
        rows.append(n_rows - 1)
    if max_frames is not None and len(rows) > max_frames:
        pick = np.unique(np.round(np.linspace(0, len(rows) - 1, max_frames)).astype(int))
        rows = [rows[i] for i in pick]
    return rows


def sampled_trajectory(result, every, max_frames, n_points, scale, fps, caller):
    """The frames a moving picture draws: ``fps`` checked, the rows of :func:`frame_rows`
    and the pictures of :func:`trajectory_parts`, every error prefixed by ``caller``.

    Returns ``(times, names, frames)``."""
    if not (isinstance(fps, (int, np.integer)) and not isinstance(fps, bool) and fps >= 1):
        raise ValueError(f"{caller}: fps must be a positive integer, got {fps!r}")
    try:
        rows = frame_rows(len(result.t), every, max_frames)
        times, names, frames, _ = trajectory_parts(result, rows, n_points, scale)
    except ValueError as err:
        raise ValueError(f"{caller}: {err}") from None
    return times, names, frames


def check_drawing_options(n_points, scale):
    """One error for a bad number of axis points or deformation scale."""
    problems = []
    if not (isinstance(n_points, (int, np.integer)) and not isinstance(n_points, bool) and n_points >= 2):
        problems.append(f"n_points must be an integer >= 2, got {n_points!r}")
    if not (isinstance(scale, (int, float, np.integer, np.floating)) and not isinstance(scale, bool)
            and np.isfinite(scale)):
        problems.append(f"scale must be a finite number, got {scale!r}")
    if problems:
        raise ValueError("; ".join(problems))


def trajectory_parts(result, rows, n_points=21, scale=1.0):
    """The pictures of every body of ``result`` at the output ``rows``.

    Parameters
    ----------
    result : :class:`phmech.result.Result`
        A run of an assembled :class:`~phmech.System`, or of a
        :class:`~phmech.massspring.MassSpringSystem`.
    rows : list of int
        Output rows (:func:`frame_rows`).
    n_points : int
        Points along each beam axis.
    scale : float
        Magnification of the deformation (beams' axes, plates' deflection).

    Returns
    -------
    times : ndarray
    names : list of str
    frames : list of list of Part
        ``frames[k][b]``: body ``b`` at ``times[k]``.
    energies : ndarray (len(rows), n bodies)
        Each body's stored energy (the network's total for a mass-spring run).
    """
    check_drawing_options(n_points, scale)
    dae = result.dae
    t = np.asarray(result.t, float)
    rows = list(rows)
    system = getattr(dae, "system", None)
    if system is None and hasattr(dae, "net"):                      # a MassSpringSystem run
        q_all, v_all = result.y[:, dae.sq], result.y[:, dae.se]
        x0 = _pad3(dae.net.nodes(q_all[rows[0]]))
        frames = [[_network_part("network", dae.net, q_all[i], v_all[i], x0)] for i in rows]
        energies = np.array([[float(dae.hamiltonian(result.y[i]))] for i in rows])
        return t[rows], ["network"], frames, energies
    if system is None:
        raise ValueError("the result has no assembled system of bodies (load it with its model: "
                         "Result.load(path, system))")
    bodies = system.bodies
    Q = [result.y[:, dae.sq][:, dae.q_slices[b.name]] for b in bodies]
    E = [result.y[:, dae.se][:, dae.e_slices[b.name]] for b in bodies]
    pictures = _body_pictures(bodies, t, Q, E, rows, n_points, scale)
    frames = [[pic(k) for pic in pictures] for k in range(len(rows))]
    energies = np.array([[float(b.hamiltonian(eh[i])) for b, eh in zip(bodies, E)] for i in rows])
    return t[rows], [b.name for b in bodies], frames, energies

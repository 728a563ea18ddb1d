"""How a body draws itself: the :class:`Part` record and the drawing protocol of the bodies.

Every body answers two calls, which the writers of :mod:`phmech.io` (ParaView,
animations, the HTML viewer) use without asking for the body's type:

``body.picture(t, Q, E, rows, n_points=21, scale=1.0)``
    a function ``k -> Part``: the body at the output row ``rows[k]`` of its
    stored configurations ``Q`` and efforts ``E`` (one row per time ``t``;
    the whole history is given, since a plate recovers its deflection from
    it);
``body.mode_picture(q, u, n_points=21)``
    the points ``(m, 3)`` of the body displaced by the small modal
    displacement ``u`` (effort layout) about the configuration ``q``;
    linear in ``u``;
``body.picture_section()``
    ``(shape, radius)``: how a viewer draws the body's lines, ``"tube"`` (a
    beam: the round section of its area ``A``) or ``"bar"`` (a square
    section of the same area as the round one of ``radius`` [m]); None where
    the body gives no size (the viewer's default bar).

:class:`~phmech.bodies.base.Body` draws the poly-line through its ports
(a vertex for a single port), each moved by ``R (Y u)`` in a mode;
:class:`AxisPicture` draws a body with a floating frame by ``n_points``
points of its current axis, the frame's rigid motion plus the deformation
magnified by ``scale`` (the beams); plates draw their mesh
(:mod:`phmech.fem.plate_picture`) and networks their masses and springs
(:mod:`phmech.massspring.body`).

Point data of a part: ``velocity`` (inertial ``[m/s]``, where the body
provides it) and ``displacement`` (the deformation in inertial components,
unmagnified ``[m]``: zero for rigid bodies).
"""
import numpy as np

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
        if kind not in KINDS:
            raise ValueError(f"part '{name}': kind must be one of {KINDS}, got {kind!r}")
        self.name, self.kind = name, kind
        self.points = pad3(points)
        self.cells = [(t, np.atleast_2d(np.asarray(c, np.int64))) for t, c in cells]
        self.point_data = dict(point_data or {})
        self.cell_data = dict(cell_data or {})

    @classmethod
    def chain(cls, name, points, point_data=None):
        """A vertex (one point) or the poly-line through ``points``."""
        points = pad3(points)
        if len(points) == 1:
            return cls(name, "vertex", points, [("vertex", [[0]])], point_data)
        return cls(name, "line", points, [("polyline", np.arange(len(points))[None, :])], point_data)

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


#: the components of a symmetric tensor as point data, in VTK's order (XX, YY, ZZ, XY, YZ, XZ)
SYMMETRIC_COMPONENTS = ((0, 0), (1, 1), (2, 2), (0, 1), (1, 2), (0, 2))


def rotate_symmetric(S, R):
    """The symmetric tensors ``S`` (``(..., 6)``, :data:`SYMMETRIC_COMPONENTS`) in the axes turned
    by the rotation ``R`` (``R S R^T``; a 2 x 2 ``R`` turns the plane x-y)."""
    S = np.asarray(S, float)
    R3 = np.eye(3)
    R = np.asarray(R, float)
    R3[:R.shape[0], :R.shape[1]] = R
    T = np.zeros(S.shape[:-1] + (3, 3))
    for c, (a, b) in enumerate(SYMMETRIC_COMPONENTS):
        T[..., a, b] = T[..., b, a] = S[..., c]
    T = R3 @ T @ R3.T
    return np.stack([T[..., a, b] for a, b in SYMMETRIC_COMPONENTS], axis=-1)


def counterclockwise(triangles, xy):
    """The triangles ``(n, 3)`` over the points ``xy`` ``(m, 2)`` (a plane mesh), each wound
    counter-clockwise (normal ``+z``): a mesh's cells come in either winding, and a surface
    whose triangles are wound both ways gets vertex normals that cancel (drawn dark, in
    patches)."""
    tri = np.array(triangles, np.int64).reshape(-1, 3)
    if len(tri):
        xy = np.asarray(xy, float)
        a, b = xy[tri[:, 1], :2] - xy[tri[:, 0], :2], xy[tri[:, 2], :2] - xy[tri[:, 0], :2]
        flip = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0] < 0
        tri[flip] = tri[flip][:, [0, 2, 1]]
    return tri


def outward(triangles, X, inside):
    """The boundary triangles ``(n, 3)`` over the points ``X`` ``(m, 3)``, each wound so that its
    normal points away from the point ``inside[i]`` (``(n, 3)``: the opposite vertex of the
    triangle's tetrahedron): the outward normals of a solid's surface."""
    tri = np.array(triangles, np.int64).reshape(-1, 3)
    if len(tri):
        X = np.asarray(X, float)
        n = np.cross(X[tri[:, 1]] - X[tri[:, 0]], X[tri[:, 2]] - X[tri[:, 0]])
        flip = np.einsum("ij,ij->i", n, np.asarray(inside, float) - X[tri[:, 0]]) > 0
        tri[flip] = tri[flip][:, [0, 2, 1]]
    return tri


def pad3(a):
    """Points as rows of three coordinates (planar points get ``z = 0``)."""
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


def port_state(body, q, e):
    """Ports of a body: ``(points, velocity)``, both ``(k, 3)`` inertial."""
    ports = unique_ports(body)
    if not ports:
        raise ValueError(f"body '{body.name}' ({type(body).__name__}) has no ports to draw")
    R = body.rotation(q)
    pts = np.array([body.port_position(q, p) for p in ports])
    vel = np.array([R @ (p.Y @ e) for p in ports])
    return pad3(pts), pad3(vel)


def round_section(area):
    """The radius of the round section of ``area`` (None unless a positive finite number)."""
    try:
        a = float(area)
    except (TypeError, ValueError):
        return None
    return float(np.sqrt(a / np.pi)) if np.isfinite(a) and a > 0 else None


class PortPicture:
    """The drawing of a body by its ports (the default of every body)."""

    def picture_section(self):
        """``("bar", radius)`` of the body's ``section`` ``(b, h)`` when it has one (a rigid bar), else
        None (a viewer's default bar)."""
        section = getattr(self, "section", None)
        r = None if section is None else round_section(np.prod(np.asarray(section, float)))
        return None if r is None else ("bar", r)

    def picture(self, t, Q, E, rows, n_points=21, scale=1.0):
        """A function ``k -> Part``: the poly-line through the ports at ``rows[k]``."""
        def part(k):
            pts, vel = port_state(self, Q[rows[k]], E[rows[k]])
            return Part.chain(self.name, pts, {"velocity": vel, "displacement": np.zeros_like(pts)})
        return part

    def mode_picture(self, q, u, n_points=21):
        """The ports moved by the linearized motion ``R (Y u)`` of each."""
        pts, _ = port_state(self, q, np.zeros(self.ne))
        R = self.rotation(q)
        return pts + pad3(np.array([R @ (p.Y @ u) for p in unique_ports(self)]))


class AxisPicture:
    """The drawing of a body with a floating frame by its axis (the beams).

    The body provides ``L``, ``displacement_rows(x)`` (the local deformation
    of the axis points ``x`` from the configuration when the body has
    ``displacement_dofs``, else from the efforts, which then hold the
    stresses), optionally ``velocity_rows(x)`` and
    ``deformed_axis(q, u, n_points)`` for its mode shapes.
    """

    def picture_section(self):
        """``("tube", radius)``: the round section of the beam's area ``A``; None without one."""
        r = round_section(getattr(self, "A", None))
        return None if r is None else ("tube", r)

    def axis_state(self, q, e, n_points=21, scale=1.0):
        """Current axis: ``(points, velocity or None, displacement)``, each ``(n_points, 3)``.

        ``points`` are the frame's rigid placement of the reference axis plus
        ``scale`` times the deformation (inertial); ``displacement`` is the
        unmagnified deformation in inertial components.
        """
        x = np.linspace(0.0, self.L, n_points)
        rows = self.displacement_rows(x)
        src = q if hasattr(self, "displacement_dofs") else e
        if rows[0].shape[1] != len(src):
            raise ValueError(f"body '{self.name}': displacement rows have {rows[0].shape[1]} columns, "
                             f"the state has {len(src)}")
        local = np.stack([r @ src for r in rows], axis=1)
        ref = np.zeros_like(local)
        ref[:, 0] = x
        R = self.rotation(q)
        pts = self.position(q) + (ref + scale * local) @ R.T
        return pad3(pts), self._axis_velocity(q, e, x), pad3(local @ R.T)

    def _axis_velocity(self, q, e, x):
        rows = getattr(self, "velocity_rows", None)
        if rows is None:
            return None
        try:
            rx, ry = rows(x)
        except (TypeError, ValueError, NotImplementedError):
            return None
        if rx.shape[1] != len(e):
            return None
        return pad3(np.stack([rx @ e, ry @ e], axis=1) @ self.rotation(q).T)

    def picture(self, t, Q, E, rows, n_points=21, scale=1.0):
        """A function ``k -> Part``: the current axis at ``rows[k]``."""
        def part(k):
            pts, vel, disp = self.axis_state(Q[rows[k]], E[rows[k]], n_points, scale)
            data = {"displacement": disp}
            if vel is not None:
                data["velocity"] = vel
            return Part.chain(self.name, pts, data)
        return part

    def mode_picture(self, q, u, n_points=21):
        """The axis displaced by ``u`` (``deformed_axis(q, u, n_points)``), else undisplaced."""
        axis = getattr(self, "deformed_axis", None)
        if axis is not None and "u" in _parameters(axis):
            return pad3(axis(q, u, n_points=n_points))
        return self.axis_state(q, np.zeros(self.ne), n_points)[0]


def _parameters(method):
    import inspect
    return inspect.signature(method).parameters

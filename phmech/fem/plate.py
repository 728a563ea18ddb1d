"""Kirchhoff plates in port-Hamiltonian form with the Hellan-Herrmann-Johnson element (Firedrake).

Co-energy variables: the vertical velocity ``v = dw/dt`` and the bending
moment tensor ``Mb``; energy ``H = 1/2 int rho h v^2 + Mb : C : Mb`` with the
bending compliance ``C = D^-1``,

.. math::

    \\rho h\\, \\partial_t v = -\\operatorname{div}\\operatorname{div} M_b, \\qquad
    C\\, \\partial_t M_b = \\nabla\\nabla v

(Brugnoli, Alazard, Pommier-Budinger, Matignon, Appl. Math. Model. 75
(2019), Part II, eqs. 9-10).  The weak form uses the Hellan-Herrmann-Johnson
pairing (Hellan 1967, Herrmann 1967, Johnson 1973; see Arnold & Walker,
SIAM J. Numer. Anal. 58 (2020), eq. 2.3)

.. math::

    b(M_b, \\delta v) = \\sum_T \\int_T M_b : \\nabla\\nabla \\delta v
    - \\sum_{F} \\int_F M_{nn} [\\![\\partial_n \\delta v]\\!]
    - \\int_{\\partial\\Omega} M_{nn} \\partial_n \\delta v ,

with ``v`` in CG_k (continuous) and ``Mb`` in HHJ_{k-1} (symmetric tensors
with continuous normal-normal component), so that

.. math::

    (\\rho h \\dot v, \\delta v) = -b(M_b, \\delta v) + \\text{inputs}, \\qquad
    (C \\dot M_b, \\delta M) = b(\\delta M, v),

and the structure matrix ``J0 = [[0, -B^T], [B, 0]]`` is exactly skew.

Boundary conditions (all homogeneous ones are port choices of zero flow or
zero effort, imposed strongly by removing degrees of freedom, which keeps
``M`` symmetric positive definite and ``J0`` skew, with no multipliers and
no infinite eigenvalues):

* ``"clamped"``: ``v = 0`` strongly (CG degrees of freedom removed);
  ``d_n v = 0`` is natural -- the boundary term of ``b`` tested by the free
  ``M_nn`` enforces it;
* ``"simply_supported"``: ``v = 0`` and ``M_nn = 0`` strongly (the HHJ
  normal-normal degrees of freedom of the boundary facets removed);
* ``"free"``: ``M_nn = 0`` strongly; the effective shear vanishes naturally;
* ``"guided"``: nothing removed; ``d_n v = 0`` is natural as for the clamped
  edge and the shear vanishes.  An edge rotation port
  (:meth:`KirchhoffPlate.edge_moment_rows`) turns it into
  ``d_n v = g``: the boundary term becomes ``-int M_nn (d_n v - g)``, a
  skew coupling between the edge moments and the flow ``g`` (no multiplier).

Non-homogeneous or interconnected boundaries (a rigid body along an edge)
are Lagrange multipliers: the edge's nodal velocities
(:meth:`PlateBase.edge_nodes`, as in :mod:`phmech.validation.plate_rigid`)
or its weighted velocity rows (:meth:`PlateBase.edge_rows`) set equal to
the other body's velocity field; a multiplier is needed there because the
condition couples two bodies and carries the interconnection force.  An
edge rotation driven by another body can also enter without a multiplier
through a ``"guided"`` edge (:meth:`KirchhoffPlate.edge_moment_rows`).
"""
import hashlib

import numpy as np

from ..forces.loads import Load
from . import plate_deflection, plate_size
from .form_body import FormBody
from .mesh_recipe import MeshRecipe, expression_key, mesh_key
from .plate_forms import KIRCHHOFF_REMOVED, kirchhoff_conditions, kirchhoff_forms

KIRCHHOFF_CONDITIONS = tuple(KIRCHHOFF_REMOVED)


def real_number(value):
    """``value`` as a float if it is one real number (a Python or numpy number or a 0-d numeric
    array; not a bool), else None."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return None
    return float(value)


def check_plate_parameters(owner, **values):
    """One error listing every non-positive or non-finite parameter (numbers or 0-d arrays)."""
    bad = []
    for k, v in values.items():
        x = real_number(v)
        if x is None:
            bad.append(f"{k}={v!r} is not a number")
        elif not (np.isfinite(x) and x > 0):
            bad.append(f"{k}={v!r}")
    if bad:
        raise ValueError(f"plate '{owner}': parameters must be positive and finite: {', '.join(bad)}")


def check_poisson(owner, nu):
    """The Poisson ratio as a float in (-1, 0.5)."""
    x = real_number(nu)
    if x is None or not -1.0 < x < 0.5:
        raise ValueError(f"plate '{owner}': Poisson ratio nu must be a number in (-1, 0.5), got {nu!r}")
    return x


def check_degree(owner, degree, minimum, why=""):
    """The polynomial degree as an int ``>= minimum`` (a bool is refused: ``True`` is not a degree)."""
    if isinstance(degree, np.ndarray) and degree.ndim == 0:
        degree = degree[()]
    if isinstance(degree, (bool, np.bool_)) or not isinstance(degree, (int, np.integer)) or degree < minimum:
        raise ValueError(f"plate '{owner}': degree must be an integer >= {minimum}{why}, got {degree!r}")
    return int(degree)


def check_boundary(owner, markers, boundary, allowed):
    """Check a ``{marker: condition}`` map against the mesh markers; one error for all problems."""
    problems = []
    if not isinstance(boundary, dict):
        raise ValueError(f"plate '{owner}': boundary must be a dict {{marker: condition}}, got {boundary!r}")
    for m, c in boundary.items():
        if m not in markers:
            problems.append(f"marker {m!r} is not a boundary marker of the mesh {sorted(markers)}")
        if c not in allowed:
            problems.append(f"marker {m!r}: unknown condition {c!r} (choose from {list(allowed)})")
    if problems:
        raise ValueError(f"plate '{owner}': " + "; ".join(problems))


def patch_weight(fd, x, center, radius):
    """Cosine bump ``(1 + cos(pi r / radius)) / 2`` on the disc of ``radius`` around ``center`` (UFL).

    The patch is a function of space only, independent of the mesh, so the
    port it defines (a weighted mean) converges under mesh refinement.
    """
    rr = fd.sqrt((x[0] - center[0]) ** 2 + (x[1] - center[1]) ** 2)
    return fd.conditional(fd.lt(rr, radius), 0.5 * (1.0 + fd.cos(np.pi * rr / radius)), 0.0)


def load_mesh(path, coordinate_degree=1, circle=None, marker="on_boundary"):
    """A Firedrake mesh from a gmsh ``.msh`` file; its physical curve tags become the facet markers.

    Parameters
    ----------
    path : str
        The gmsh file (e.g. one of the repository's ``meshes/``).
    coordinate_degree : int
        Degree of the coordinate field (1: the straight-sided mesh as read).
    circle : (cx, cy, radius), optional
        Move the coordinate nodes of ``marker`` radially onto this circle
        (with ``coordinate_degree >= 2``: curved cells that follow a
        circular boundary, so the geometry error does not limit the order).
    marker : int or "on_boundary"
        The boundary part that lies on ``circle``.
    """
    import os

    import firedrake as fd

    if not os.path.isfile(path):
        raise ValueError(f"load_mesh: no mesh file {path!r}")
    if not isinstance(coordinate_degree, (int, np.integer)) or coordinate_degree < 1:
        raise ValueError(f"load_mesh: coordinate_degree must be an integer >= 1, got {coordinate_degree!r}")
    mesh = fd.Mesh(path)
    if circle is None and coordinate_degree == 1:
        return mesh
    V = fd.VectorFunctionSpace(mesh, "CG", int(coordinate_degree))
    X = fd.Function(V).interpolate(fd.SpatialCoordinate(mesh))
    if circle is not None:
        cx, cy, radius = (float(c) for c in circle)
        check_plate_parameters("load_mesh", radius=radius)
        nodes = fd.DirichletBC(V, fd.Constant((0.0, 0.0)), marker).nodes
        d = X.dat.data
        r = d[nodes] - np.array([cx, cy])
        d[nodes] = np.array([cx, cy]) + radius * r / np.linalg.norm(r, axis=1)[:, None]
    return fd.Mesh(X)


class PlateBase(FormBody):
    """What the Kirchhoff and the Mindlin plate share: a fixed plate in the plane z = 0, the
    :class:`~phmech.fem.FormBody` of its forms.

    A subclass names its fields (``FIELDS``; the first is the vertical velocity), its velocity
    fields (``VELOCITY``) and gives its forms and conditions by :meth:`_plate_definition`.  The
    plate has no configuration (``nq = 0``) and no frame variables; ports are spatial (``dim =
    3``): the vertical velocity in the third row of ``Y`` and the rotation rates about x and y
    in ``W``.

    The matrices, the port rows and the load vectors are kept in the FE cache
    (:mod:`phmech.fem.cache`), keyed by the mesh (a
    :class:`~phmech.fem.mesh_recipe.MeshRecipe` or a built mesh's content), the material, the
    degree and the boundary conditions.  With a recipe, a plate read from the cache builds its
    mesh and spaces (and imports Firedrake) only when they are used: ``mesh``, ``x``, ``n``,
    ``spaces``.
    """

    FIREDRAKE_ATTRIBUTES = ("space", "mesh", "_trial", "_test", "forms", "_fixed", "_fixed_forms",
                            "x", "n", "spaces", "_tests")
    CACHED = FormBody.CACHED + ("mesh_markers",)
    EXTRA_SOURCES = FormBody.EXTRA_SOURCES + ("phmech.fem.plate", "phmech.fem.plate_forms",
                                              "phmech.fem.mesh_recipe")
    #: mass and compliance of positive parameters (checked before): definite by construction
    CHECK_DEFINITE = False
    FIELDS = ()
    VELOCITY = (0,)

    def _setup_material(self, name, mesh, h, rho, E, nu):
        check_plate_parameters(name, h=h, rho=rho, E=E)
        nu = check_poisson(name, nu)
        self.name = name
        self.mesh_source = mesh
        self.h, self.rho, self.E_mod, self.nu = real_number(h), real_number(rho), real_number(E), nu
        self.D = self.E_mod * self.h ** 3 / (12.0 * (1.0 - nu ** 2))

    def _guard_size(self, max_dofs):
        """Refuse a plate whose unknowns exceed the limit, before anything is assembled (see
        :mod:`phmech.fem.plate_size`); a mesh whose size is not known before it is built is
        checked right after it is built."""
        self._max_dofs = plate_size.limit(self.name, max_dofs)
        counts = plate_size.mesh_counts(self.mesh_source)
        if counts is not None:
            plate_size.check(self.name, type(self).__name__, counts, self.degree, self._max_dofs,
                             getattr(self, "reduction", None))

    def _setup_plate(self, boundary, allowed, **extra):
        """Read the cached matrices of this plate or assemble them; check ``boundary``."""
        boundary = {} if boundary is None else dict(boundary)
        self._boundary_given, self._allowed = boundary, allowed
        bc = [[repr(m), str(c)] for m, c in sorted(boundary.items(), key=lambda mc: repr(mc[0]))]
        params = {"mesh": mesh_key(self.mesh_source), "h": self.h, "rho": self.rho, "E": self.E_mod,
                  "nu": self.nu, "boundary": bc, **extra}
        self._init_defined(self.name, params, velocity=self.VELOCITY, dim=3)
        self._set_boundary(self.mesh_markers, boundary, allowed)
        self.nf = int(self.nf)
        self.fields = {k: self.field_dofs[str(i)] for i, k in enumerate(self.FIELDS)}

    # -- the form body ---------------------------------------------------------
    def _build_mesh(self):
        """The mesh (built from a recipe), checked against the size limit once its size is known."""
        src = self.mesh_source
        mesh = src.build() if isinstance(src, MeshRecipe) else src
        if plate_size.mesh_counts(src) is None:          # a recipe of unknown size: checked now
            counts = plate_size.mesh_counts(mesh)
            if counts is not None:
                plate_size.check(self.name, type(self).__name__, counts, self.degree,
                                 getattr(self, "_max_dofs", plate_size.DEFAULT_MAX_DOFS),
                                 getattr(self, "reduction", None))
        return mesh

    def _definition(self):
        import firedrake as fd
        mesh = self._build_mesh()
        self._set_boundary(mesh.exterior_facets.unique_markers, self._boundary_given, self._allowed)
        d = self._plate_definition(fd, mesh)
        self.__dict__["spaces"] = d.pop("spaces")
        return d

    def _plate_definition(self, fd, mesh):
        """``dict(spaces=, space=, m=, j=, fixed=[, j_operator=])`` on ``mesh`` (``self.boundary``
        complete)."""
        raise NotImplementedError

    def _setup_firedrake(self):
        """The mesh, the spaces and forms (:meth:`_definition`), the coordinate and the normal."""
        FormBody._setup_firedrake(self)
        if "x" not in self.__dict__:
            self.x = self._fd.SpatialCoordinate(self.mesh)
            self.n = self._fd.FacetNormal(self.mesh)
            self._tests = self._test

    def _firedrake(self):
        """The firedrake module, after building the mesh and spaces if needed."""
        self._setup_firedrake()
        return self._fd

    def _assemble(self):
        out = FormBody._assemble(self)
        out["mesh_markers"] = np.array(sorted(self.markers), int)
        return out

    def _set_boundary(self, markers, boundary, allowed):
        """Check ``boundary`` against the mesh markers and complete it with ``"free"``."""
        self.markers = set(int(m) for m in markers)
        check_boundary(self.name, self.markers, boundary, allowed)
        self.boundary = {m: boundary.get(m, "free") for m in sorted(self.markers)}

    @staticmethod
    def _tag(kind, *parts):
        return kind + "_" + hashlib.sha256(repr(parts).encode()).hexdigest()[:16]

    def _shape_tag(self, kind, marker, shapes):
        """Memo tag of rows over ``shapes`` on edge ``marker`` (None: a shape the key cannot follow)."""
        keys = [expression_key(psi) for psi in shapes]
        return None if any(k is None for k in keys) else self._tag(kind, repr(marker), keys)

    # -- ports ----------------------------------------------------------------
    def _velocity_tests(self):
        """UFL ``(w, rot_x, rot_y)`` test fields: vertical velocity and rotation rates."""
        raise NotImplementedError

    def add_patch_port(self, name, center, radius, quadrature_degree=None):
        """Port on a patch of ``radius`` [m] around ``center`` (independent of the mesh).

        The port rows are means weighted by the cosine bump
        :func:`patch_weight`, normalized to unit integral over the plate:
        ``Y = (0, 0, <w>)``, ``W = (<rot_x>, <rot_y>, 0)``.  By virtual power a
        force ``F_z`` at the port is the pressure ``F_z * weight`` and a moment
        its distributed couple.
        """
        check_plate_parameters(self.name, patch_radius=radius)
        center = np.asarray(center, float)
        if center.shape != (2,) or not np.all(np.isfinite(center)):
            raise ValueError(f"plate '{self.name}', port '{name}': center must be 2 finite numbers, got {center!r}")
        qd = quadrature_degree or 2 * self.degree + 8
        tag = self._tag("patch", center.tobytes(), float(radius).hex(), int(qd))
        if tag not in self._memo:
            fd = self._firedrake()
            dxq = fd.dx(domain=self.mesh, metadata={"quadrature_degree": qd})
            wgt = patch_weight(fd, self.x, center, radius)
            area = fd.assemble(wgt * dxq)
            if area <= 0:
                raise ValueError(f"plate '{self.name}', port '{name}': the patch of radius {radius} around "
                                 f"{tuple(center)} does not meet the plate")
            self._remember(tag, np.array([self.row(wgt / area * t * dxq, f"the port '{name}'")
                                          for t in self._velocity_tests()]))
        rows = self._memo[tag]
        Y = np.zeros((3, self.ne))
        W = np.zeros((3, self.ne))
        Y[2] = rows[0]
        W[0], W[1] = rows[1], rows[2]
        return self.add_port(name, Y, W, np.r_[center, 0.0])

    def edge_rows(self, marker, shapes):
        """Distributed edge port: rows ``int_edge w psi_j ds`` and ``int_edge rot_n psi_j ds``.

        ``shapes`` is a list of callables ``psi_j(x)`` of the UFL spatial
        coordinate; ``rot_n`` is the rotation rate about the edge direction
        (``d_n w`` for Kirchhoff, the normal rotation for Mindlin).  The
        transposed rows are the input matrices of a distributed shear force
        and bending moment along the edge.  Returns ``(Yw, Yr)``, each
        ``(len(shapes), ne)``.
        """
        if marker not in self.markers:
            raise ValueError(f"plate '{self.name}': edge marker {marker!r} is not one of {sorted(self.markers)}")
        tag = self._shape_tag("edge", marker, shapes)
        if tag is not None and tag in self._memo:
            return tuple(np.array(a) for a in self._memo[tag])
        fd = self._firedrake()
        tw, tr = self._edge_tests()
        dsq = fd.ds(marker, domain=self.mesh, metadata={"quadrature_degree": 2 * self.degree + 6})
        Yw = np.array([self.row(psi(self.x) * tw * dsq, "an edge row") for psi in shapes])
        Yr = np.array([self.row(psi(self.x) * tr * dsq, "an edge row") for psi in shapes])
        if tag is not None:
            self._remember(tag, (Yw.copy(), Yr.copy()))
        return Yw, Yr

    def edge_nodes(self, marker):
        """Indices (into ``e``) and coordinates of the velocity nodes on an edge (CG_k Lagrange nodes)."""
        tag = self._tag("edge_nodes", repr(marker))
        if tag not in self._memo:
            fd = self._firedrake()
            Vv = self.spaces[0]
            nodes = fd.DirichletBC(Vv, 0.0, marker).nodes
            X = fd.Function(fd.VectorFunctionSpace(self.mesh, "CG", self.degree)).interpolate(self.x)
            self._remember(tag, (np.asarray(nodes, int), np.array(X.dat.data_ro)[nodes]))
        nodes, X = self._memo[tag]
        idx = self._full_to_e[nodes]
        if np.any(idx < 0):
            raise ValueError(f"plate '{self.name}': edge {marker} has velocity nodes removed by a condition")
        return idx, np.array(X)

    def load_vector(self, pressure):
        """Input column of a distributed pressure ``p(x)`` (callable of the UFL coordinate): ``int p dv``."""
        key = expression_key(pressure)
        tag = None if key is None else self._tag("load", key)
        if tag is not None and tag in self._memo:
            return np.array(self._memo[tag])
        fd = self._firedrake()
        tw = self._velocity_tests()[0]
        b = self.row(pressure(self.x) * tw * fd.dx(domain=self.mesh), "a load")
        if tag is not None:
            self._remember(tag, b.copy())
        return b

    def deflection_function(self, e):
        """A Firedrake Function on CG_k of the velocity field of an effort vector (for plots)."""
        fd = self._firedrake()
        f = fd.Function(self.spaces[0])
        f.dat.data[:] = self.field(e, 0).dat.data_ro
        return f

    # -- modes and pictures -------------------------------------------------------
    def lam(self, omega, length):
        """Nondimensional frequencies ``omega a^2 sqrt(rho h / D)`` for the length scale ``a``."""
        return np.asarray(omega) * length ** 2 * np.sqrt(self.rho * self.h / self.D)

    def picture(self, t, Q, E, rows, n_points=21, scale=1.0):
        """A function ``k -> Part``: the mesh lifted by ``scale`` times the deflection
        (:func:`phmech.fem.plate_picture.plate_picture`)."""
        from .plate_picture import plate_picture
        return plate_picture(self, t, E, rows, scale)

    # -- gravity (:mod:`phmech.fem.plate_deflection`) ----------------------------------
    #: gravity's force is exactly ``-dV/dt`` of the first moment's potential
    first_moment_exact = True

    def momentum_rows(self):
        """``(3, ne)`` rows ``int rho h (e_k . u)`` of the unit translations (gravity's input)."""
        return plate_deflection.momentum_rows(self)

    def first_moment(self):
        """``(s0, rows, "e")`` of the deflected mid-surface, or None for a plate free to move rigidly."""
        return plate_deflection.first_moment(self)


class KirchhoffPlate(PlateBase):
    """Kirchhoff plate, ``e = (v, Mb)``: CG_k velocity and HHJ_{k-1} moments (see the module docstring;
    the forms are :func:`phmech.fem.plate_forms.kirchhoff_forms`).

    Parameters
    ----------
    name : str
    mesh : firedrake mesh (2D) or :class:`~phmech.fem.mesh_recipe.MeshRecipe` (built on first use)
    h, rho, E, nu : thickness [m], density [kg/m^3], Young's modulus [Pa], Poisson ratio.
    degree : int
        ``k`` in 1, 2, 3 (any ``k >= 1`` works).
    boundary : dict
        ``{mesh marker: "clamped" | "simply_supported" | "free" | "guided"}``; markers not
        listed are free.
    max_dofs : int, optional
        Largest number of unknowns accepted (default ``$PHMECH_PLATE_MAX_DOFS``
        or :data:`phmech.fem.plate_size.DEFAULT_MAX_DOFS`): a larger plate is
        refused before it is built, with its estimated size and memory.
    """

    KIND = "KirchhoffPlate"
    FIELDS = ("v", "M")

    def __init__(self, name, mesh, h, rho, E, nu, degree=2, boundary=None, max_dofs=None):
        self._setup_material(name, mesh, h, rho, E, nu)
        self.degree = check_degree(name, degree, 1)
        self._guard_size(max_dofs)
        self._setup_plate(boundary, KIRCHHOFF_CONDITIONS, degree=self.degree)

    def _plate_definition(self, fd, mesh):
        W, m, j = kirchhoff_forms(mesh, self.h, self.rho, self.E_mod, self.nu, self.degree)
        return {"spaces": tuple(W.sub(i).collapse() for i in range(2)), "space": W, "m": m, "j": j,
                "fixed": kirchhoff_conditions(self.boundary)}

    def _velocity_tests(self):
        dv = self._tests[0]
        return dv, dv.dx(1), -dv.dx(0)

    def _edge_tests(self):
        dv = self._tests[0]
        fd = self._firedrake()
        return dv, fd.dot(fd.grad(dv), self.n)

    def edge_moment_rows(self, marker, shapes):
        """Rows ``int_edge M_nn psi_j ds`` over ``e`` of a ``"guided"`` edge (rotation port).

        Adding ``c_j`` times the row as a column of ``J0`` (flow ``g = sum_j
        c_j psi_j`` of the edge rotation rate) and minus it as a row gives
        ``d_n v = g`` on the edge with the edge moment as the conjugate
        effort.  Returns an array ``(len(shapes), ne)``.
        """
        if self.boundary.get(marker) != "guided":
            raise ValueError(f"plate '{self.name}': edge {marker!r} must be 'guided' for a rotation port, "
                             f"it is {self.boundary.get(marker)!r}")
        tag = self._shape_tag("edge_moment", marker, shapes)
        if tag is not None and tag in self._memo:
            return np.array(self._memo[tag])
        fd = self._firedrake()
        dM, n = self._tests[1], self.n
        dsq = fd.ds(marker, domain=self.mesh, metadata={"quadrature_degree": 2 * self.degree + 6})
        rows = np.array([self.row(psi(self.x) * fd.dot(fd.dot(dM, n), n) * dsq, "an edge moment row")
                         for psi in shapes])
        if tag is not None:
            self._remember(tag, rows.copy())
        return rows


class PlateLoad(Load):
    """A distributed load ``f(t) * b`` on a plate: ``b`` from :meth:`PlateBase.load_vector`
    (a pressure) or from edge rows (a line load); ``f`` a scalar function of time."""

    inertial = False

    def __init__(self, plate, b, fun, name=None):
        from .._checks import time_function

        self.name = name or f"distributed load({plate.name})"
        self.body = plate
        b = np.asarray(b, float)
        if b.shape != (plate.ne,) or not np.all(np.isfinite(b)):
            raise ValueError(f"load '{self.name}': b must be {plate.ne} finite numbers, got shape {b.shape}")
        self.cols = np.flatnonzero(b)
        self.A = b[self.cols][None, :]
        self.fun = time_function(fun, 1, "load factor", f"load '{self.name}'")

"""A flexible body defined by its port-Hamiltonian weak forms.

The user gives a Firedrake function space ``W`` of the co-energy variables
(a mixed space in general) and the bilinear forms of the pH system

.. math::  M \\dot e = (J - R) e + B u, \\qquad y = B^T e,

``m(e, de)`` (the energy metric: ``H = 1/2 e^T M e``), ``j(e, de)`` (the
structure, skew) and optionally ``r(e, de)`` (the dissipation, symmetric
positive semidefinite); each form is a UFL form with a trial and a test
function on ``W``, or a callable ``(e, de) -> form`` of the split trial and
test functions.  Homogeneous boundary conditions remove degrees of freedom
(``fixed=[(field, marker), ...]``: the nodes of field ``field`` on the
boundary ``marker``), as the plates do: no multipliers.

Ports are linear forms of the test function (``b(de)``, or callables of the
split test functions): :meth:`FormBody.add_form_port` assembles one row per
velocity (and angular-velocity) component, so a port's velocity is ``Y e``
and a joint's force enters through ``Y^T`` -- the power-conjugate pair
``y = B^T e`` of the pH form.  Loads are input columns of the same kind
(:meth:`FormBody.load_vector`).

The matrices are checked once (``M`` symmetric positive definite, ``J``
skew, ``R`` symmetric positive semidefinite, each to round-off; every defect
in one error naming the form and its size) and kept in the FE cache
(:mod:`phmech.fem.cache`), keyed by the forms' signatures, the mesh's
content and the values of every coefficient and constant of the forms
(:mod:`phmech.fem.form_checks`).

By default the body is fixed in space; ``floating=True`` puts it in a floating
frame of reference (:mod:`phmech.fem.form_frame`).

Bodies defined by their class
-----------------------------
A subclass whose matrices follow from a few parameters (the linear beams of
:mod:`phmech.fem.beam`) sets itself up by :meth:`FormBody._init_defined`: the cache key
is those parameters, the space and forms come from its :meth:`FormBody._definition` and
its ports from :meth:`FormBody._port_forms`, all made only when the entry is assembled
(or a Firedrake object is first used), so a body found in the cache is built without
Firedrake.
"""
import hashlib

import numpy as np
import scipy.sparse as sp

from ..bodies.base import FixedBody
from ._petsc import to_numpy, to_scipy
from .cache import CachedFE, store
from .floating_frame import frame_blocks, inertia_summary
from .form_checks import FormError, check_pH  # noqa: F401 (FormError public here)
from .form_frame import FormFrame, _floating_dim, floating_class  # noqa: F401 (public here)
from .mesh_recipe import mesh_content_key


def _split(fd, W, trial):
    """Split trial or test functions of ``W`` (a tuple for a mixed space, else the function)."""
    if len(W) > 1:
        return fd.TrialFunctions(W) if trial else fd.TestFunctions(W)
    return fd.TrialFunction(W) if trial else fd.TestFunction(W)


def _coefficient_digest(form):
    """Digest of the values of every coefficient and constant of ``form`` (the signature has
    only their numbering)."""
    h = hashlib.sha256()
    for c in list(form.coefficients()) + list(getattr(form, "constants", lambda: [])()):
        data = getattr(getattr(c, "dat", None), "data_ro", None)
        if data is None:
            data = getattr(c, "values", lambda: np.zeros(0))()
        a = np.ascontiguousarray(data)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _markers_used(form):
    """The ``(integral type, subdomain id)`` pairs of the facet integrals of ``form``."""
    return {(i.integral_type(), i.subdomain_id()) for i in form.integrals()
            if i.integral_type() in ("exterior_facet", "interior_facet")}


def _dimension(mesh, kind):
    """A mesh's ``"geometric"`` or ``"topological"`` dimension (a method or a property, by version)."""
    d = getattr(mesh, f"{kind}_dimension")
    return int(d() if callable(d) else d)


def _field_key(field):
    """A condition's field: an int, or ``(field, component)`` of a vector field."""
    if isinstance(field, (tuple, list)):
        return (int(field[0]), int(field[1]))
    return int(field)


def condition_field(field):
    """``(field index, component or None)`` of a condition's field (:func:`_field_key`)."""
    return (field, None) if isinstance(field, int) else field


def condition_nodes(fd, space, field, marker):
    """``(field index, nodes, block size, components)`` that a ``(field, marker)`` condition removes
    on a (mixed) ``space``: the nodes of the field, or of one component of it, on the boundary."""
    f, comp = condition_field(field)
    V = space.sub(f) if len(space) > 1 else space
    bs = V.block_size
    nodes = np.asarray(fd.DirichletBC(V if comp is None else V.sub(comp), 0.0, marker).nodes, int)
    return f, nodes, bs, tuple(range(bs)) if comp is None else (comp,)


def _components(u):
    """The scalar components of a split function (a scalar, a vector or a tensor field)."""
    shape = u.ufl_shape
    if shape == ():
        return [u]
    return [u[i] for i in np.ndindex(*shape)]


class FormBody(FormFrame, FixedBody, CachedFE):
    """A flexible body defined by its pH weak forms, fixed or in a floating frame (module docstring).

    Parameters
    ----------
    name : str
    space : firedrake.FunctionSpace
        The space ``W`` of the co-energy variables (mixed or not).
    m, j : UFL form or callable ``(e, de) -> form``
        Energy metric and structure.
    r : UFL form or callable, optional
        Dissipation.
    fixed : sequence of ``(field, marker)`` or of linear forms, optional
        Homogeneous conditions: the nodes of field ``field`` (index into the mixed space; 0
        for a plain space; ``(field, component)`` for one component of a vector field) on the
        boundary ``marker`` are removed; a linear form of the test
        function (or a callable of the split test functions) removes the unknowns on which it
        is not zero, e.g. ``lambda de: de[1].dx(0) * ds(1)`` the slope of a Hermite field
        at the boundary 1 (a clamp of a C1 element needs its value and its slope).
    velocity : sequence of int, optional
        The fields that are velocities (for :attr:`velocity_dofs`; default: field 0).  In a
        floating frame their components, in this order, are the body-frame velocity ``v`` of
        the material (``dim`` of them: a vector field, or scalar fields such as a beam's
        axial and transverse velocities).
    dim : {2, 3}
        Dimension of the ports' velocities (planar or spatial joints) and of the frame.
    floating : bool, keyword only
        True: the body moves in a floating frame of reference (module docstring).
    density : number or UFL expression, keyword only
        With ``floating``: the mass density of ``v`` per unit of the mesh's measure (``rho``
        of a solid, ``rho A`` of a beam), the kinetic part of ``m`` being ``int density v . dv``.
    reference : None, ``("clamped", marker)`` or ``("point", X)``, keyword only
        With ``floating``: how the frame is attached to the deformation (module docstring):
        ``"clamped"`` removes the velocity unknowns on the boundary ``marker`` (a marker or a
        list of them; the face moves with the frame), ``"point"`` only as many velocity
        unknowns as the frame has efforts, at the node nearest ``X`` and two far nodes (a 3-2-1
        support: no deformation is constrained, so a free body has the free-free modes of
        its mesh), None the conditions of ``fixed``.
    position : sequence of float, keyword only
        With ``floating``: the inertial position of the frame origin (the mesh's origin).
    orientation : float or quaternion, keyword only
        With ``floating``: the frame's angle (planar) or unit quaternion (spatial).
    spin : sequence of ``(field, axis, density)``, keyword only
        With ``floating``: scalar fields that are angular velocities of the material's sections
        about a body-frame ``axis`` (an index 0-2 or a vector; planar: None, the normal) relative
        to the frame, e.g. a beam's torsion rate.  Their kinetic energy is
        ``1/2 int density (omega . axis + w)^2``: ``m``'s part of the field must be
        ``int density w dw`` (checked), the frame's rotation moves them, and their momentum
        enters the frame's rotating-frame terms (:mod:`phmech.fem.form_frame`).
    """

    KIND = "form_body"
    CACHED = ("M", "J0", "R", "_keep", "nf", "field_dofs", "K_list", "Phi", "frame_inertia", "port_rows")
    FIREDRAKE_ATTRIBUTES = ()
    EXTRA_SOURCES = ("phmech.fem.form_body", "phmech.fem.form_frame", "phmech.fem.form_checks",
                     "phmech.fem.floating_frame")
    #: the frame class of a floating variant (set on the classes :func:`floating_class` makes)
    _frame_base = None
    #: False for a class whose metric is positive definite by construction (its parameters checked):
    #: the eigenvalue check of the assembled ``M`` is left out (the linear beams: a floating beam's
    #: ``M`` with its frame held at a point has a lowest eigenvalue falling like a power of the
    #: element size, below the check's 1e-10 from about 400 elements, and is positive definite all the same)
    CHECK_DEFINITE = True

    def __new__(cls, *args, **kwargs):
        if kwargs.get("floating", False) and cls._frame_base is None:
            cls = floating_class(cls, cls._frame_dim(args, kwargs))
        return super().__new__(cls)

    @classmethod
    def _frame_dim(cls, args, kwargs):
        """The dimension of the frame of a floating body built with ``args`` and ``kwargs``."""
        return _floating_dim(args, kwargs)

    def __init__(self, name, space, m, j, r=None, fixed=(), velocity=(0,), dim=3, *, floating=False,
                 density=None, reference=None, position=None, orientation=None, spin=()):
        self._setup_frame(name, dim, floating, density, reference, position, orientation, spin)
        self._define(space, m, j, r, fixed, velocity)
        self._check_fields_and_markers()
        self._load_or_assemble(self._params())
        self._setup_firedrake()             # the cache's loader resets it (its bodies build lazily)
        self._finish()

    def _init_defined(self, name, params, velocity=(0,), dim=3, *, floating=False, density=None, reference=None,
                      position=None, orientation=None, spin=()):
        """Set-up of a body whose class defines its space and forms (:meth:`_definition`): the cache
        key is ``params`` (plain numbers and text, no Firedrake object), so a body found in the cache
        is built without Firedrake; its spaces and forms are made on first use (the class names them
        in ``FIREDRAKE_ATTRIBUTES``) or when the entry is assembled, and its ports (:meth:`_port_forms`)
        are kept in the entry with the matrices."""
        self._setup_frame(name, dim, floating, density, reference, position, orientation, spin)
        self._velocity = tuple(int(v) for v in velocity)
        self._load_or_assemble(params)
        self._finish()

    def _definition(self):
        """``dict(space=, m=, j=, r=, fixed=)`` of a body set up by :meth:`_init_defined`; optionally
        ``j_operator``: a callable ``offsets -> sparse matrix`` over the full mixed space added to
        ``J``, for a structure that is an operator rather than one form (the Mindlin plate's shear
        strain reduced by an interpolation), checked skew with the rest of ``J``."""
        raise NotImplementedError(f"{type(self).__name__} gives its space and forms to FormBody.__init__")

    def _port_forms(self):
        """``{name: (velocity forms, angular forms or None, position)}``: the ports of a body set up by
        :meth:`_init_defined`, assembled with its matrices (:meth:`add_form_port`)."""
        return {}

    def _setup_firedrake(self):
        """The Firedrake side of the body: made at construction, or (:meth:`_init_defined`) from
        :meth:`_definition` when first needed."""
        if self.__dict__.get("_fd") is not None:
            return
        if "space" in self.__dict__:
            import firedrake as fd
            self._fd = fd
            return
        d = self._definition()
        self._define(d["space"], d["m"], d["j"], d.get("r"), d.get("fixed", ()), self._velocity,
                     d.get("j_operator"))
        self._check_fields_and_markers()


    def _define(self, space, m, j, r, fixed, velocity, j_operator=None):
        """The space, the split arguments, the conditions and the forms (Firedrake objects)."""
        import firedrake as fd
        self._fd = fd
        mesh = space.mesh()
        self.space, self.mesh = space, (mesh.unique() if hasattr(mesh, "unique") else mesh)
        self._trial, self._test = _split(fd, space, True), _split(fd, space, False)
        self._fixed = [(_field_key(c[0]), c[1]) for c in fixed if not self._is_form(c)]
        self._j_operator = j_operator
        self._fixed_forms = [self._linear("a condition of fixed", c) for c in fixed if self._is_form(c)]
        self._velocity = tuple(int(v) for v in velocity)
        forms = {"m": m, "j": j, "r": r}
        self.forms = {k: self._bilinear(k, f) for k, f in forms.items() if f is not None}

    def _finish(self):
        """What follows from the stored entry: the index maps, the labels, the frame's inertia, the
        ports of :meth:`_port_forms`."""
        #: the entry as read or assembled (what :meth:`_remember` stores again, not later changes)
        self._stored = {name: getattr(self, name) for name in self.CACHED}
        r0 = self.n_frame
        self._full_to_e = np.full(self.nf, -1)
        self._full_to_e[self._keep] = r0 + np.arange(len(self._keep))
        self.K_list = list(self.K_list)
        if not sp.csr_matrix(self.R).nnz:
            self.R = None
        frame_labels = ((["vx", "vy", "omega"] if self.dim == 2 else ["vx", "vy", "vz", "wx", "wy", "wz"])
                        if self.floating else [])
        self.e_labels = frame_labels + [f"e{i}" for i in range(self.ne - r0)]
        if self.floating:
            self.mass, center, self.inertia = self.frame_inertia
            self.center = np.asarray(center, float)
        for name, Y, W, position in self.port_rows:
            self.add_port(str(name), Y, W if W.size else None, position)

    def _remember(self, tag, value):
        """Keep a derived result in memory and in the cache entry (with the entry as stored, not
        the matrices as changed since, e.g. by a point mass)."""
        self._memo[tag] = value
        store(self._key, {**self._stored, "memo": self._memo})
        return value

    # -- forms ----------------------------------------------------------------
    def _bilinear(self, which, form):
        f = form if hasattr(form, "arguments") else form(self._trial, self._test)
        if len(f.arguments()) != 2:
            raise FormError(f"body '{self.name}': the form {which} must be bilinear (a trial and a test "
                            f"function), it has {len(f.arguments())} arguments")
        return f

    def _linear(self, what, form):
        f = form if hasattr(form, "arguments") else form(self._test)
        if len(f.arguments()) != 1:
            raise FormError(f"body '{self.name}': {what} must be a linear form of the test function, "
                            f"it has {len(f.arguments())} arguments")
        self._check_markers(what, f)
        return f

    @staticmethod
    def _is_form(c):
        """A condition given as a linear form (or a callable of the test functions), not a pair."""
        return callable(c) or (hasattr(c, "arguments") and not isinstance(c, (tuple, list)))

    def _markers(self, kind="exterior_facet"):
        """The boundary markers of the mesh (``kind="interior_facet"``: the markers of its interior
        facets)."""
        import logging
        facets = self.mesh.exterior_facets if kind == "exterior_facet" else self.mesh.interior_facets
        log = logging.getLogger("firedrake")
        level = log.level
        log.setLevel(logging.ERROR)          # an empty marker is reported below, not warned about
        try:                                 # (a mesh's labels list every marker under both kinds)
            return set(int(m) for m in facets.unique_markers if facets.subset(int(m)).size > 0)
        finally:
            log.setLevel(level)

    def _check_markers(self, what, form):
        for kind, sid in _markers_used(form):
            markers = self._markers(kind)
            ids = sid if isinstance(sid, tuple) else (sid,)
            bad = [s for s in ids if isinstance(s, (int, np.integer)) and s not in markers]
            if bad:
                where = "boundary" if kind == "exterior_facet" else "interior facet"
                raise FormError(f"body '{self.name}': {what} integrates over the {where} marker(s) {bad}, "
                                f"which the mesh does not have (its {where} markers: {sorted(markers)})")


    def _conditions(self):
        """The ``(field, marker)`` pairs whose nodes are removed: ``fixed`` and a clamped reference."""
        return self._fixed + [(f, mk) for mk in self._reference_markers() for f in self._moving_fields()]

    def _check_fields_and_markers(self):
        markers = self._markers()
        problems = []
        nfields = len(self.space)
        for v in self._velocity:
            if not 0 <= v < nfields:
                problems.append(f"body '{self.name}': velocity field {v} is not a field of the space "
                                f"(it has {nfields})")
        for field, _, _ in self._spin:
            if not 0 <= field < nfields:
                problems.append(f"body '{self.name}': spin field {field} is not a field of the space "
                                f"(it has {nfields})")
            elif field in self._velocity:
                problems.append(f"body '{self.name}': spin field {field} is also a velocity field")
            elif len(_components(self._split_field(self._trial, field))) != 1:
                problems.append(f"body '{self.name}': spin field {field} must be a scalar field (the angular "
                                "velocity of the sections about one axis)")
        if problems:
            raise FormError("\n".join(problems))
        try:
            conditions = self._conditions()
        except FormError as err:
            problems.append(str(err))
            conditions = self._fixed
        for field, marker in conditions:
            if not 0 <= condition_field(field)[0] < nfields:
                problems.append(f"body '{self.name}': fixed field {field} is not a field of the space "
                                f"(it has {nfields})")
            if marker != "on_boundary" and marker not in markers:
                what = "reference" if (field, marker) not in self._fixed else "fixed"
                problems.append(f"body '{self.name}': {what} marker {marker!r} is not a boundary marker of the "
                                f"mesh (its markers: {sorted(markers)})")
        for which, form in self.forms.items():
            try:
                self._check_markers(f"the form {which}", form)
            except FormError as err:
                problems.append(str(err))
        if self.floating:
            if self.density is None:
                problems.append(f"body '{self.name}': a floating body needs density= (the mass density of its "
                                "velocity field, the kinetic part of m)")
            ncomp = sum(len(_components(self._split_field(self._trial, v))) for v in self._velocity
                        if 0 <= v < nfields)
            if ncomp != self.dim:
                problems.append(f"body '{self.name}': the velocity fields {list(self._velocity)} have {ncomp} "
                                f"components; a floating frame in dim={self.dim} needs {self.dim} (the body-frame "
                                "velocity of the material)")
        if problems:
            raise FormError("\n".join(problems))

    def _split_field(self, split, index):
        return split[index] if len(self.space) > 1 else split

    def _velocity_vector(self, split):
        """The body-frame velocity of the material: the components of the velocity fields."""
        return [c for v in self._velocity for c in _components(self._split_field(split, v))]

    def _density_key(self, rho):
        """A density (a number or a UFL expression) as a part of the cache key."""
        from .mesh_recipe import _jsonable
        if isinstance(rho, (int, float, np.floating)):
            return _jsonable(float(rho))
        form = rho * self._fd.dx(domain=self.mesh)
        return [form.signature(), _coefficient_digest(form)]

    def _params(self):
        p = {"mesh": mesh_content_key(self.mesh), "space": str(self.space.ufl_element()),
             "forms": {k: [f.signature(), _coefficient_digest(f)] for k, f in self.forms.items()},
             "fixed": [[f, repr(m)] for f, m in self._fixed], "velocity": list(self._velocity),
             "fixed_forms": [[f.signature(), _coefficient_digest(f)] for f in self._fixed_forms]}
        if self.floating:
            p["frame"] = {"dim": self.dim, "reference": repr(self.reference),
                          "density": self._density_key(self.density)}
            if self._spin:
                p["frame"]["spin"] = [[f, list(d), self._density_key(rho_s)] for f, d, rho_s in self._spin]
        return p

    def _offsets(self):
        dims = [V.dim() for V in self.space] if len(self.space) > 1 else [self.space.dim()]
        return np.r_[0, np.cumsum(dims)]

    def _moving_fields(self):
        """The velocity fields and the section-spin fields (the fields a rigid motion moves)."""
        return list(self._velocity) + [field for field, _, _ in self._spin]

    def _full_velocity_dofs(self, off):
        """Indices (before removal) of the velocity and spin fields' unknowns."""
        return np.concatenate([np.arange(off[v], off[v + 1]) for v in self._moving_fields()])

    def _assemble(self):
        import firedrake as fd
        self._setup_firedrake()
        mat = {k: to_scipy(fd.assemble(f, mat_type="aij")) for k, f in self.forms.items()}
        nf = mat["m"].shape[0]
        off = self._offsets()
        if self._j_operator is not None:
            mat["j"] = sp.csr_matrix(mat["j"] + self._j_operator(off))
        frame = self._frame_fields(mat["m"], off) if self.floating else None
        drop = []
        for field, marker in self._conditions():
            f, nodes, bs, comps = condition_nodes(fd, self.space, field, marker)
            drop += list(off[f] + (nodes[:, None] * bs + np.asarray(comps)).ravel())
        for form in self._fixed_forms:
            b = np.abs(to_numpy(fd.assemble(form)))
            drop += list(np.flatnonzero(b > 1e-12 * b.max())) if b.max() > 0 else []
        if frame is not None and self._reference_point() is not None:
            drop += list(self._support_dofs(frame["Phi"], off))
        keep = np.setdiff1d(np.arange(nf), np.unique(np.asarray(drop, int)))
        red = {k: sp.csr_matrix(A[keep][:, keep]) for k, A in mat.items()}
        for A in red.values():
            A.eliminate_zeros()
        r = self.n_frame
        R = red.get("r", sp.csr_matrix(red["m"].shape))
        out = {"_keep": keep, "nf": nf, "K_list": (), "Phi": np.zeros((nf, 0)), "frame_inertia": ()}
        if frame is not None:
            f = frame
            M, J0, K_list = frame_blocks(f["Mrr"], f["Mfr"][keep], red["m"], red["j"], f["Krr"],
                                         [K[keep] for K in f["Kfr"]], [sp.csr_matrix(K[keep][:, keep]) for K in f["Kff"]])
            K_list = self._spin_gyroscopic(K_list, f["spin"], keep)
            R = sp.bmat([[sp.csr_matrix((r, r)), None], [None, R]], format="csr")
            out.update({"K_list": tuple(K_list), "Phi": f["Phi"], "frame_inertia": inertia_summary(f["Mrr"], self.dim)})
        else:
            M, J0 = red["m"], red["j"]
        problems = check_pH(self.name, M, J0, R if R.nnz else None, definite=self.CHECK_DEFINITE)
        if problems:
            if frame is not None and any("not positive definite" in p for p in problems):
                problems.append(f"body '{self.name}': in a floating frame the reference condition must remove "
                                "every rigid motion from the elastic field (reference=('clamped', marker), "
                                "('point', X), or conditions in fixed=)")
            raise FormError("\n".join(problems))
        full_to_e = np.full(nf, -1)
        full_to_e[keep] = r + np.arange(len(keep))
        field_dofs = {str(i): full_to_e[off[i]:off[i + 1]][full_to_e[off[i]:off[i + 1]] >= 0]
                      for i in range(len(off) - 1)}
        out.update({"M": M, "J0": J0, "R": R, "field_dofs": field_dofs})
        out["port_rows"] = self._assemble_ports(out["Phi"], keep)
        return out

    def _assemble_ports(self, Phi, keep):
        """The rows of the ports of :meth:`_port_forms`: ``(name, Y, W, position)`` each (``W`` with
        no rows when the port has no angular forms), as :meth:`add_form_port` makes them."""
        def rows(forms, what):
            out = []
            for f in forms:
                if f is None or f == 0:
                    out.append(np.zeros(Phi.shape[1] + len(keep)))
                else:
                    b = to_numpy(self._fd.assemble(self._linear(what, f)))
                    out.append(np.r_[b @ Phi, b[keep]])
            return np.array(out).reshape(len(forms), Phi.shape[1] + len(keep))
        return tuple((name, rows(v, f"the port '{name}'"), rows(w or (), f"the port '{name}'"),
                      np.asarray(pos, float)) for name, (v, w, pos) in self._port_forms().items())


    # -- degrees of freedom ---------------------------------------------------
    @property
    def velocity_dofs(self):
        """Indices of ``e`` of the velocity fields (the frame's efforts excluded)."""
        return np.sort(np.concatenate([self.field_dofs[str(v)] for v in self._moving_fields()]))

    @property
    def stress_dofs(self):
        """Indices of ``e`` of the other fields (stresses)."""
        return np.setdiff1d(np.arange(self.n_frame, self.ne), self.velocity_dofs)

    @property
    def translation_dofs(self):
        return np.arange(self.dim) if self.floating else np.arange(0)

    def row(self, form, what="a row"):
        """A linear form of the test function as a row on ``e``: its value on every kept unknown and,
        in a floating frame, on the frame's rigid velocity fields first."""
        self._setup_firedrake()
        b = to_numpy(self._fd.assemble(self._linear(what, form)))
        return np.r_[b @ self.Phi, b[self._keep]]

    # -- ports and loads -------------------------------------------------------
    def add_form_port(self, name, velocity, angular=None, position=None):
        """A port whose velocity components are the linear forms ``velocity`` (``dim`` of them) and,
        optionally, angular-velocity components ``angular`` (1 planar, 3 spatial).

        In a floating frame the rows follow the rigid motion as well (module docstring).  By
        virtual power a force ``F`` at the port enters the effort equations as ``Y^T F``."""
        owner = f"body '{self.name}', port '{name}'"
        nw = 1 if self.dim == 2 else 3
        if len(velocity) != self.dim or (angular is not None and len(angular) != nw):
            raise ValueError(f"{owner}: give {self.dim} velocity forms and {nw} angular ones (or none), got "
                             f"{len(velocity)} and {None if angular is None else len(angular)}")
        Y = np.array([np.zeros(self.ne) if f is None or f == 0 else self.row(f, f"the port '{name}'")
                      for f in velocity])
        W = None if angular is None else np.array(
            [np.zeros(self.ne) if f is None or f == 0 else self.row(f, f"the port '{name}'") for f in angular])
        if not np.any(Y) and (W is None or not np.any(W)):
            raise ValueError(f"{owner}: its forms vanish on every kept unknown (a port on no mesh entity, "
                             "or on nodes removed by a condition)")
        return self.add_port(name, Y, W, position)

    def add_face_port(self, name, marker, rotation=True):
        """A rigid-interface port on the boundary ``marker``: the mean velocity of the face and its
        rotation rate, power-conjugate to a force and a moment about the face's centroid.

        With ``r = X - c`` (``c`` the centroid, ``A`` the area) the rows are
        ``bar v = 1/A int v ds`` and ``bar omega = I^-1 int r x v ds``,
        ``I = int (|r|^2 1 - r r^T) ds`` (planar: ``int |r|^2 ds``): the least-squares rigid
        motion of the face, exact for a face that moves rigidly.  A force ``F`` and a moment
        ``T`` at the port act as the traction ``F / A + (I^-1 T) x r``, whose resultant and
        moment about ``c`` they are.  Needs a mesh of dimension ``dim`` (a solid, or a plane
        body in the plane).

        Parameters
        ----------
        name : str
        marker : int
            A boundary marker of the mesh.
        rotation : bool
            False: the velocity rows only (a point-like port: spherical joints, forces).

        Returns
        -------
        Port
        """
        self._setup_firedrake()
        fd = self._fd
        owner = f"body '{self.name}', port '{name}'"
        if _dimension(self.mesh, "geometric") != self.dim or _dimension(self.mesh, "topological") != self.dim:
            raise ValueError(f"{owner}: a face port needs a mesh of dimension {self.dim} (this mesh has "
                             f"topological dimension {_dimension(self.mesh, 'topological')})")
        markers = self._markers()
        if marker not in markers:
            raise ValueError(f"{owner}: marker {marker!r} is not a boundary marker of the mesh (its markers: "
                             f"{sorted(markers)})")
        # the forms do not depend on the face's geometry (one compiled kernel for every face): the
        # moments about the origin, shifted to the centroid afterwards
        ds = fd.ds(marker, domain=self.mesh)
        x = fd.SpatialCoordinate(self.mesh)
        d, what = self.dim, f"the port '{name}'"
        area = float(fd.assemble(fd.Constant(1.0) * ds))
        c = np.array([float(fd.assemble(x[k] * ds)) for k in range(d)]) / area
        XX = np.array([[float(fd.assemble(x[a] * x[b] * ds)) for b in range(d)] for a in range(d)])
        second = XX - area * np.outer(c, c)                      # int r r^T ds, r = X - c
        V = np.array([self.row(lambda de, k=k: self._velocity_vector(de)[k] * ds, what) for k in range(d)])
        Y = V / area
        W = None
        if rotation:
            XV = {(a, b): self.row(lambda de, a=a, b=b: x[a] * self._velocity_vector(de)[b] * ds, what)
                  for a in range(d) for b in range(d) if a != b}

            def moment(a, b):          # int (r_a v_b - r_b v_a) ds
                return XV[a, b] - XV[b, a] - c[a] * V[b] + c[b] * V[a]
            if d == 2:
                W = (moment(0, 1) / np.trace(second))[None, :]
            else:
                I = np.trace(second) * np.eye(3) - second
                if np.linalg.cond(I) > 1e12:
                    raise ValueError(f"{owner}: the face {marker} has no rotational inertia about its centroid "
                                     "(a line or a point); give rotation=False")
                W = np.linalg.solve(I, np.array([moment(1, 2), moment(2, 0), moment(0, 1)]))
        if not np.any(Y[:, self.n_frame:]) and not self.n_frame:
            raise ValueError(f"{owner}: the face {marker} has no unknowns left (its nodes are removed by a "
                             "condition, e.g. a clamped face): a port there does not move")
        return self.add_port(name, Y, W, c)


    def load_vector(self, form):
        """Input column ``b`` of a distributed load (a linear form of the test function)."""
        return self.row(form, "a load")

    # -- energy -----------------------------------------------------------------
    def hamiltonian(self, e):
        return 0.5 * float(e @ (self.M @ e))

    def efforts(self, u, frame=None):
        """The efforts ``e`` of a function ``u`` on the space (its values at the kept unknowns); in a
        floating frame ``frame`` gives the frame's efforts ``(v_P, omega)`` (default zero)."""
        head = np.zeros(self.n_frame) if frame is None else np.asarray(frame, float)
        if head.shape != (self.n_frame,):
            raise ValueError(f"body '{self.name}': frame efforts must be {self.n_frame} numbers, got {frame!r}")
        return np.r_[head, to_numpy(u)[self._keep]]

    def field(self, e, index=None, rigid=False):
        """The FE function of the efforts ``e`` (removed unknowns zero), or its field ``index``;
        ``rigid=True`` adds the frame's rigid velocity field to the velocities (the body-frame
        velocity of the material)."""
        full = np.zeros(self.nf)
        full[self._keep] = e[self.n_frame:]
        if rigid and self.n_frame:
            full += self.Phi @ e[:self.n_frame]
        self._setup_firedrake()
        u = self._fd.Function(self.space)
        off = 0
        for d in (u.dat if len(self.space) > 1 else [u.dat]):
            n = d.data_ro.size
            d.data[:] = full[off:off + n].reshape(d.data_ro.shape)
            off += n
        return u if index is None else u.subfunctions[index]

    def natural_frequencies(self, k=6, sigma=0.0):
        """Lowest ``k`` angular frequencies [rad/s] of a fixed body whose structure couples only
        velocities and stresses (:func:`phmech.fem.condensed.condensed_modes`); ``sigma < 0`` for a
        body with rigid motions.  A floating body's modes: ``System([body]).linearize()``."""
        from .condensed import condensed_modes
        if self.floating:
            raise ValueError(f"body '{self.name}': natural_frequencies is for a fixed body; linearize a "
                             "System with the floating body instead")
        v, s = self.velocity_dofs, self.stress_dofs
        J = sp.csr_matrix(self.J0)
        if abs(J[v][:, v]).max() > 0 or (len(s) and abs(J[s][:, s]).max() > 0) or abs(self.M[v][:, s]).max() > 0:
            raise ValueError(f"body '{self.name}': natural_frequencies needs M block-diagonal and J coupling "
                             "velocities to stresses only; linearize a System with the body instead")
        return condensed_modes(sp.csc_matrix(self.M[v][:, v]), sp.csc_matrix(self.M[s][:, s]),
                               sp.csc_matrix(J[s][:, v]), k, sigma)

    # -- gravity ----------------------------------------------------------------



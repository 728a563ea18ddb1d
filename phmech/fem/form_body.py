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
content and the values of every coefficient and constant of the forms.

The body is fixed in space (``nq = 0``); with constant matrices it runs in
the compiled residual like the plates.
"""
import hashlib

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..bodies.base import FixedBody
from ._petsc import to_numpy, to_scipy
from .cache import CachedFE
from .mesh_recipe import mesh_content_key

#: largest size of a dense positive-definiteness check (above it: the lowest eigenvalue by ARPACK)
DENSE_CHECK_MAX = 3000


class FormError(ValueError):
    """A form of a :class:`FormBody` does not define a port-Hamiltonian system (all defects listed)."""


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


def _symmetric_defect(A):
    A = sp.csr_matrix(A)
    scale = abs(A).max() if A.nnz else 0.0
    return (abs(A - A.T).max() / scale) if scale > 0 else 0.0


def _lowest_eigenvalue(A):
    """Lowest eigenvalue of the symmetric ``A`` and the largest magnitude (dense up to
    :data:`DENSE_CHECK_MAX`, else ARPACK)."""
    A = sp.csr_matrix(0.5 * (A + A.T))
    n = A.shape[0]
    if n <= DENSE_CHECK_MAX:
        w = np.linalg.eigvalsh(A.toarray())
        return float(w[0]), float(np.max(np.abs(w)))
    top = float(abs(spla.eigsh(A, k=1, which="LM", return_eigenvectors=False)[0]))
    low = float(spla.eigsh(A, k=1, sigma=-1e-3 * top, which="LM", return_eigenvectors=False)[0])
    return low, top


def check_pH(name, M, J, R=None, tol=1e-10):
    """Problems of ``(M, J, R)`` as a list of sentences (empty: a pH system to ``tol``)."""
    out = []
    d = _symmetric_defect(M)
    if d > tol:
        out.append(f"body '{name}': the energy metric m is not symmetric (relative defect {d:.2e})")
    low, top = _lowest_eigenvalue(M)
    if low <= tol * top:
        out.append(f"body '{name}': the energy metric m is not positive definite (lowest eigenvalue "
                   f"{low:.3e} of {top:.3e}: a field without energy, or a boundary condition missing)")
    J = sp.csr_matrix(J)
    scale = abs(J).max() if J.nnz else 0.0
    d = abs(J + J.T).max() / scale if scale > 0 else 0.0
    if d > tol:
        out.append(f"body '{name}': the structure form j is not skew-symmetric (relative defect {d:.2e})")
    if R is not None and sp.csr_matrix(R).nnz:
        d = _symmetric_defect(R)
        if d > tol:
            out.append(f"body '{name}': the dissipation form r is not symmetric (relative defect {d:.2e})")
        low, top = _lowest_eigenvalue(R)
        if low < -tol * top:
            out.append(f"body '{name}': the dissipation form r is not positive semidefinite (lowest "
                       f"eigenvalue {low:.3e} of {top:.3e})")
    return out


class FormBody(FixedBody, CachedFE):
    """A fixed flexible body defined by its pH weak forms (module docstring).

    Parameters
    ----------
    name : str
    space : firedrake.FunctionSpace
        The space ``W`` of the co-energy variables (mixed or not).
    m, j : UFL form or callable ``(e, de) -> form``
        Energy metric and structure.
    r : UFL form or callable, optional
        Dissipation.
    fixed : sequence of ``(field, marker)``, optional
        Homogeneous conditions: the nodes of field ``field`` (index into the mixed space; 0
        for a plain space) on the boundary ``marker`` are removed.
    velocity : sequence of int, optional
        The fields that are velocities (for :attr:`velocity_dofs`; default: field 0).
    dim : {2, 3}
        Dimension of the ports' velocities (planar or spatial joints).
    """

    KIND = "form_body"
    CACHED = ("M", "J0", "R", "_keep", "nf", "field_dofs")
    FIREDRAKE_ATTRIBUTES = ()

    def __init__(self, name, space, m, j, r=None, fixed=(), velocity=(0,), dim=3):
        import firedrake as fd
        FixedBody.__init__(self, name)
        if dim not in (2, 3):
            raise ValueError(f"body '{name}': dim must be 2 or 3, got {dim!r}")
        self.dim = dim
        mesh = space.mesh()
        self.space, self.mesh = space, (mesh.unique() if hasattr(mesh, "unique") else mesh)
        self._fd = fd
        self.q0 = np.zeros(0)
        self._trial, self._test = _split(fd, space, True), _split(fd, space, False)
        self._fixed = [(int(f), m_) for f, m_ in fixed]
        self._velocity = tuple(int(v) for v in velocity)
        forms = {"m": m, "j": j, "r": r}
        self.forms = {k: self._bilinear(k, f) for k, f in forms.items() if f is not None}
        self._check_fields_and_markers()
        self._load_or_assemble(self._params())
        self._fd = fd                       # the cache's loader resets it (its bodies build lazily)
        self._full_to_e = np.full(self.nf, -1)
        self._full_to_e[self._keep] = np.arange(len(self._keep))
        if not sp.csr_matrix(self.R).nnz:
            self.R = None
        self.e_labels = [f"e{i}" for i in range(self.ne)]

    # -- forms ----------------------------------------------------------------
    def _bilinear(self, which, form):
        f = form(self._trial, self._test) if callable(form) else form
        if len(f.arguments()) != 2:
            raise FormError(f"body '{self.name}': the form {which} must be bilinear (a trial and a test "
                            f"function), it has {len(f.arguments())} arguments")
        return f

    def _linear(self, what, form):
        f = form(self._test) if callable(form) else form
        if len(f.arguments()) != 1:
            raise FormError(f"body '{self.name}': {what} must be a linear form of the test function, "
                            f"it has {len(f.arguments())} arguments")
        self._check_markers(what, f)
        return f

    def _markers(self):
        """The boundary markers of the mesh."""
        return set(int(m) for m in self.mesh.exterior_facets.unique_markers)

    def _check_markers(self, what, form):
        markers = self._markers()
        for kind, sid in _markers_used(form):
            ids = sid if isinstance(sid, tuple) else (sid,)
            bad = [s for s in ids if kind == "exterior_facet" and isinstance(s, (int, np.integer)) and s not in markers]
            if bad:
                raise FormError(f"body '{self.name}': {what} integrates over the boundary marker(s) {bad}, "
                                f"which the mesh does not have (its markers: {sorted(markers)})")

    def _check_fields_and_markers(self):
        markers = self._markers()
        problems = []
        for field, marker in self._fixed:
            if not 0 <= field < len(self.space):
                problems.append(f"body '{self.name}': fixed field {field} is not a field of the space "
                                f"(it has {len(self.space)})")
            if marker != "on_boundary" and marker not in markers:
                problems.append(f"body '{self.name}': fixed marker {marker!r} is not a boundary marker of the "
                                f"mesh (its markers: {sorted(markers)})")
        for which, form in self.forms.items():
            try:
                self._check_markers(f"the form {which}", form)
            except FormError as err:
                problems.append(str(err))
        if problems:
            raise FormError("\n".join(problems))

    def _params(self):
        return {"mesh": mesh_content_key(self.mesh), "space": str(self.space.ufl_element()),
                "forms": {k: [f.signature(), _coefficient_digest(f)] for k, f in self.forms.items()},
                "fixed": [[f, repr(m)] for f, m in self._fixed], "velocity": list(self._velocity)}

    def _offsets(self):
        dims = [V.dim() for V in self.space] if len(self.space) > 1 else [self.space.dim()]
        return np.r_[0, np.cumsum(dims)]

    def _assemble(self):
        import firedrake as fd
        mat = {k: to_scipy(fd.assemble(f, mat_type="aij")) for k, f in self.forms.items()}
        nf = mat["m"].shape[0]
        off = self._offsets()
        drop = []
        for field, marker in self._fixed:
            V = self.space.sub(field) if len(self.space) > 1 else self.space
            nodes = np.asarray(fd.DirichletBC(V, 0.0, marker).nodes, int)
            bs = V.block_size
            drop += list(off[field] + (nodes[:, None] * bs + np.arange(bs)).ravel())
        keep = np.setdiff1d(np.arange(nf), np.unique(np.asarray(drop, int)))
        red = {k: sp.csr_matrix(A[keep][:, keep]) for k, A in mat.items()}
        for A in red.values():
            A.eliminate_zeros()
        problems = check_pH(self.name, red["m"], red["j"], red.get("r"))
        if problems:
            raise FormError("\n".join(problems))
        full_to_e = np.full(nf, -1)
        full_to_e[keep] = np.arange(len(keep))
        field_dofs = {str(i): full_to_e[off[i]:off[i + 1]][full_to_e[off[i]:off[i + 1]] >= 0]
                      for i in range(len(off) - 1)}
        R = red.get("r", sp.csr_matrix(red["m"].shape))
        return {"M": red["m"], "J0": red["j"], "R": R, "_keep": keep, "nf": nf, "field_dofs": field_dofs}

    # -- degrees of freedom ---------------------------------------------------
    @property
    def velocity_dofs(self):
        return np.sort(np.concatenate([self.field_dofs[str(v)] for v in self._velocity]))

    @property
    def stress_dofs(self):
        return np.setdiff1d(np.arange(self.ne), self.velocity_dofs)

    @property
    def translation_dofs(self):
        return np.arange(0)

    def row(self, form, what="a row"):
        """A linear form of the test function assembled over the kept unknowns."""
        b = to_numpy(self._fd.assemble(self._linear(what, form)))
        return b[self._keep]

    # -- ports and loads -------------------------------------------------------
    def add_form_port(self, name, velocity, angular=None, position=None):
        """A port whose velocity components are the linear forms ``velocity`` (``dim`` of them) and,
        optionally, angular-velocity components ``angular`` (1 planar, 3 spatial).

        By virtual power a force ``F`` at the port enters the effort equations as ``Y^T F``."""
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

    def load_vector(self, form):
        """Input column ``b`` of a distributed load (a linear form of the test function)."""
        return self.row(form, "a load")

    # -- energy -----------------------------------------------------------------
    def hamiltonian(self, e):
        return 0.5 * float(e @ (self.M @ e))

    def efforts(self, u):
        """The efforts ``e`` of a function ``u`` on the space (its values at the kept unknowns)."""
        return to_numpy(u)[self._keep]

    def field(self, e, index=None):
        """The FE function of the efforts ``e`` (removed unknowns zero), or its field ``index``."""
        full = np.zeros(self.nf)
        full[self._keep] = e
        u = self._fd.Function(self.space)
        off = 0
        for d in (u.dat if len(self.space) > 1 else [u.dat]):
            n = d.data_ro.size
            d.data[:] = full[off:off + n].reshape(d.data_ro.shape)
            off += n
        return u if index is None else u.subfunctions[index]

"""Linear elastic solids (3D, and plane stress in 2D) as form-defined pH bodies.

Linear elastodynamics in velocity-stress form (Brugnoli's thesis, the pH form of
elasticity): with the velocity ``v`` and the symmetric stress ``sigma``,

.. math::

    \\rho\\, \\partial_t v = \\operatorname{div} \\sigma, \\qquad
    \\mathcal{A}\\, \\partial_t \\sigma = \\varepsilon(v), \\qquad
    \\mathcal{A} \\sigma = \\frac{(1 + \\nu) \\sigma - \\nu \\operatorname{tr}(\\sigma) I}{E},

``A`` the compliance (the same formula in 3D and, with 2 x 2 tensors, in plane
stress), ``H = 1/2 int (rho |v|^2 + sigma : A sigma)``.  The weak forms on
``v`` in vector ``CG_k`` and ``sigma`` in symmetric-tensor ``DG_{k-1}`` are

.. math::

    m(e, \\delta e) = \\int \\rho\\, v \\cdot \\delta v + \\mathcal{A}\\sigma : \\delta\\sigma, \\qquad
    j(e, \\delta e) = \\int -\\sigma : \\varepsilon(\\delta v) + \\varepsilon(v) : \\delta\\sigma,

exactly skew; the boundary tractions enter through the ports (free faces carry
none), clamped faces remove the velocity unknowns.  Since ``DG_{k-1}`` holds the
strains of ``CG_k`` and the compliance is constant, eliminating the stresses
gives the displacement-based stiffness of ``CG_k`` elements: degree 2 converges
for bending, degree 1 locks in it.

The solid is a :class:`~phmech.fem.form_body.FormBody` (its forms and
parameters only): fixed, or floating (``floating=True``, the frame attached by
``reference=("clamped", marker)``), with rigid-interface ports on faces
(:meth:`~phmech.fem.form_body.FormBody.add_face_port`); it draws itself as its
deforming boundary surface (:mod:`phmech.fem.solid_picture`).

Bad input is refused before anything is assembled, in one error naming the body, the
parameter and its value: material values, a degree, a boundary marker the mesh does not
have, a mesh with degenerate or inverted (folded) cells (:func:`check_cells`), and a solid
too large for ``max_dofs`` or for the available memory (:func:`_check_size`, the unknowns
counted from the mesh).
"""
import os

import numpy as np

from .form_body import FormBody, FormError, _dimension

#: unknowns accepted by default; a larger solid is refused before any space is built
DEFAULT_MAX_DOFS = 1_000_000
#: approximate peak memory of assembling and checking a solid, per unknown (for the refusal):
#: measured 7.4 kB at 1.1e5 and 11.3 kB at 8.8e5 unknowns (degree 2, floating, the definiteness
#: check's sparse factorization growing faster than the unknowns; benchmarks/solid_assembly.py)
BYTES_PER_DOF = 12000


def compliance(sigma, E, nu, dim):
    """``A sigma = ((1 + nu) sigma - nu tr(sigma) I) / E`` (3D, and plane stress for ``dim = 2``)."""
    import firedrake as fd
    return ((1.0 + nu) * sigma - nu * fd.tr(sigma) * fd.Identity(dim)) / E


def solid_forms(rho, E, nu, dim):
    """The energy metric ``m`` and structure ``j`` of linear elastodynamics (module docstring), as
    callables of the split efforts ``(v, sigma)``."""
    import firedrake as fd

    def m(e, de):
        (v, s), (dv, ds_) = e, de
        return (rho * fd.inner(v, dv) + fd.inner(compliance(s, E, nu, dim), ds_)) * fd.dx

    def j(e, de):
        (v, s), (dv, ds_) = e, de
        return (-fd.inner(s, fd.sym(fd.grad(dv))) + fd.inner(fd.sym(fd.grad(v)), ds_)) * fd.dx
    return m, j


def _load_mesh(mesh):
    """A Firedrake mesh, or the mesh of a gmsh ``.msh`` file (its physical tags the markers)."""
    if isinstance(mesh, (str, os.PathLike)):
        mesh = os.fspath(mesh)
        import firedrake as fd
        if not os.path.exists(mesh):
            raise FileNotFoundError(f"mesh file {mesh!r} does not exist")
        return fd.Mesh(mesh)
    return mesh


def available_memory():
    """Bytes of memory available to a new allocation (``MemAvailable`` of ``/proc/meminfo``, else the
    physical memory; None where neither is known)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def _check_size(name, mesh, degree, max_dofs):
    """Refuse a solid whose unknowns exceed ``max_dofs`` or whose assembly would not fit in the
    available memory (:func:`available_memory`; with ``max_dofs`` given, that limit alone),
    counted from the mesh before any space is built; returns the count."""
    dim = _dimension(mesh, "topological")
    cells, vertices = mesh.num_cells(), mesh.num_vertices()
    k = degree
    if dim == 3:
        edges = mesh.num_edges()
        nodes = vertices + (edges if k == 2 else 0)
    else:
        nodes = vertices + ((vertices + cells - 1) if k == 2 else 0)         # Euler: E = V + T - 1
    per_cell = {2: (k * (k + 1)) // 2, 3: (k * (k + 1) * (k + 2)) // 6}[dim]    # dim P_{k-1}
    n = dim * nodes + (dim * (dim + 1) // 2) * per_cell * cells
    need = n * BYTES_PER_DOF
    size = f"the solid has about {n:,} unknowns (degree {degree}, {cells:,} cells, {vertices:,} vertices)"
    limit = DEFAULT_MAX_DOFS if max_dofs is None else max_dofs
    if n > limit:
        raise ValueError(f"body '{name}': {size}, above max_dofs={limit:,} (its assembly needs about "
                         f"{need / 1e9:.3g} GB); use a coarser mesh or a lower degree, or give a larger "
                         "max_dofs to build it anyway")
    free = available_memory() if max_dofs is None else None
    if free is not None and need > free:
        raise ValueError(f"body '{name}': {size}; its assembly needs about {need / 1e9:.3g} GB of memory, "
                         f"more than the {free / 1e9:.3g} GB available; use a coarser mesh or a lower degree "
                         "(max_dofs= given explicitly builds it anyway)")
    return n


def _point(vertices):
    """The centroid of a cell's vertices, as text."""
    return "(" + ", ".join(f"{v:.4g}" for v in vertices.mean(axis=0)) + ")"


def check_cells(name, mesh):
    """Refuse a mesh of straight simplices with degenerate or inverted cells.

    A cell is degenerate when its volume is below ``1e-10`` of its longest edge to the power of
    the dimension; a cell is inverted (the mesh folds over itself) when it lies on the same side
    of an interior facet as the neighbour across it.  Vertex order does not matter (Firedrake
    integrates with the absolute Jacobian), so a consistently oriented mesh is not needed, only
    one that tiles its domain.  One error naming the body, how many cells and the first ones."""
    dim = _dimension(mesh, "topological")
    coords = mesh.coordinates
    element = coords.function_space().ufl_element()
    deg = element.degree() if callable(getattr(element, "degree", None)) else getattr(element, "degree", 1)
    if deg != 1 or _dimension(mesh, "geometric") != dim:
        return
    X = np.asarray(coords.dat.data_ro, float).reshape(-1, dim)
    cn = np.asarray(coords.function_space().cell_node_list, np.int64)
    if cn.shape[1] != dim + 1:
        return                                          # not simplices
    P = X[cn]
    vol = np.abs(np.linalg.det(P[:, 1:] - P[:, :1]))
    edges = [np.linalg.norm(P[:, a] - P[:, b], axis=1) for a in range(dim + 1) for b in range(a)]
    h = np.max(edges, axis=0)
    problems = []
    flat = np.flatnonzero(vol <= 1e-10 * h ** dim)
    if len(flat):
        problems.append(f"{len(flat)} degenerate cell(s) (zero volume; the first at {_point(P[flat[0]])})")
    inner = mesh.interior_facets
    if inner.facet_cell.size:
        fc = np.asarray(inner.facet_cell, np.int64).reshape(-1, 2)
        lf = np.asarray(inner.local_facet_dat.data_ro, np.int64).reshape(-1, 2)
        # local facet i of a simplex is opposite its vertex i
        opp = [X[cn[fc[:, s], lf[:, s]]] for s in (0, 1)]
        keep = np.ones((len(fc), dim + 1), bool)
        keep[np.arange(len(fc)), lf[:, 0]] = False
        F = X[cn[fc[:, 0]][keep].reshape(len(fc), dim)]
        base = F[:, 1:] - F[:, :1]
        side = [np.linalg.det(np.concatenate([base, (o - F[:, 0])[:, None, :]], axis=1)) for o in opp]
        folded = np.flatnonzero(side[0] * side[1] > 0)
        if len(folded):
            cells = np.unique(fc[folded].ravel())
            problems.append(f"{len(cells)} inverted cell(s) (on the same side of a facet as their neighbour: the "
                            f"mesh folds over itself; the first at {_point(P[cells[0]])})")
    if problems:
        raise ValueError(f"body '{name}': the mesh has " + " and ".join(problems) + "; fix the mesh")


class ElasticSolid(FormBody):
    """A linear elastic solid in velocity-stress pH form (module docstring), fixed or floating.

    Parameters
    ----------
    name : str
    mesh : firedrake.Mesh or str
        A tetrahedral (3D) or triangular (2D: plane stress) mesh, or a gmsh ``.msh`` file.
    rho, E, nu : float
        Density, Young's modulus and Poisson's ratio (2D: ``rho`` per unit area, i.e. density
        times thickness, and ``E`` times thickness).
    degree : {1, 2}
        Degree ``k`` of the velocity (``CG_k``); the stress is ``DG_{k-1}`` symmetric.
    boundary : dict, optional
        ``{marker: "clamped" | "free"}`` (default free): clamped faces remove the velocity
        unknowns (a fixed solid; in a floating frame use ``reference``).
    floating : bool
        True: a floating frame of reference (:class:`~phmech.fem.form_body.FormBody`).
    reference : ``("clamped", marker)``, optional
        With ``floating``: the face the frame is attached to.
    position, orientation : optional
        With ``floating``: the frame's initial position and orientation (angle in 2D,
        quaternion in 3D); the frame's origin is the mesh's.
    max_dofs : int, optional
        Largest number of unknowns accepted (default :data:`DEFAULT_MAX_DOFS`).

    Attributes
    ----------
    rho, E, nu, degree : the parameters
    """

    #: the stress field (drawn as the point data ``stress``: :mod:`phmech.fem.stress_picture`)
    STRESS_FIELD = 1

    def __init__(self, name, mesh, rho, E, nu, degree=2, boundary=None, *, floating=False, reference=None,
                 position=None, orientation=None, max_dofs=None):
        import firedrake as fd
        mesh = _load_mesh(mesh)
        dim = _dimension(mesh, "geometric")
        owner = f"body '{name}'"
        bad = [f"{k}={v!r}" for k, v in (("rho", rho), ("E", E)) if not (np.isfinite(v) and v > 0)]
        if not (np.isfinite(nu) and -1.0 < nu < 0.5):
            bad.append(f"nu={nu!r} (must lie in (-1, 0.5))")
        if degree not in (1, 2):
            bad.append(f"degree={degree!r} (1 or 2)")
        if dim not in (2, 3) or _dimension(mesh, "topological") != dim:
            bad.append(f"mesh of dimension {_dimension(mesh, 'topological')} in {dim}D (a solid or a plane mesh)")
        boundary = dict(boundary or {})
        for mk, kind in boundary.items():
            if kind not in ("clamped", "free"):
                bad.append(f"boundary[{mk!r}]={kind!r} (\"clamped\" or \"free\")")
        if not bad:
            markers = sorted(int(m) for m in mesh.exterior_facets.unique_markers)
            bad += [f"boundary marker {mk!r} (boundary={{{mk!r}: {kind!r}}}) is not a boundary marker of the mesh "
                    f"(its markers: {markers})" for mk, kind in boundary.items() if mk not in markers]
        if bad:
            raise ValueError(f"{owner}: bad parameter(s): " + "; ".join(bad))
        _check_size(name, mesh, degree, max_dofs)
        check_cells(name, mesh)
        self.rho, self.E, self.nu, self.degree = float(rho), float(E), float(nu), int(degree)
        self.boundary = boundary
        V = fd.VectorFunctionSpace(mesh, "CG", degree)
        S = fd.TensorFunctionSpace(mesh, "DG", degree - 1, symmetry=True)
        # the parameters as constants: one compiled kernel for every material
        m, j = solid_forms(*(fd.Constant(c) for c in (self.rho, self.E, self.nu)), dim)
        fixed = [(0, mk) for mk, kind in boundary.items() if kind == "clamped"]
        kw = dict(floating=floating, reference=reference, position=position, orientation=orientation)
        if floating:
            kw["density"] = self.rho
        FormBody.__init__(self, name, V * S, m, j, fixed=fixed, velocity=(0,), dim=dim, **kw)

    @classmethod
    def _frame_dim(cls, args, kwargs):
        mesh = kwargs.get("mesh", args[1] if len(args) > 1 else None)
        if mesh is None:
            raise FormError("ElasticSolid: a mesh is needed")
        return _dimension(_load_mesh(mesh), "geometric")

    def picture(self, t, Q, E, rows, n_points=21, scale=1.0):
        """A function ``k -> Part``: the solid's boundary surface at ``rows[k]``, placed by its frame
        and moved by ``scale`` times the displacement (:func:`phmech.fem.solid_picture.solid_picture`)."""
        from .solid_picture import solid_picture
        return solid_picture(self, Q, E, rows, scale)

    def velocity_efforts(self, vector):
        """The nodal velocity vector (over ``e``) of a velocity field ``vector`` (a callable of the
        spatial coordinate giving ``dim`` components, or constants), stresses zero: e.g. the
        initial velocity of a motion."""
        import firedrake as fd
        u = fd.Function(self.space)
        x = fd.SpatialCoordinate(self.mesh)
        val = vector(x) if callable(vector) else vector
        u.subfunctions[0].interpolate(fd.as_vector(val))
        return self.efforts(u)

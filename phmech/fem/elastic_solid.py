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
(:meth:`~phmech.fem.form_body.FormBody.add_face_port`).
"""
import numpy as np

from .form_body import FormBody, FormError, _dimension

#: unknowns accepted by default; a larger solid is refused before any space is built
DEFAULT_MAX_DOFS = 1_000_000
#: approximate peak memory of assembling and checking a solid, per unknown (for the refusal)
BYTES_PER_DOF = 2500


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
    if isinstance(mesh, str):
        import os
        import firedrake as fd
        if not os.path.exists(mesh):
            raise FileNotFoundError(f"mesh file {mesh!r} does not exist")
        return fd.Mesh(mesh)
    return mesh


def _check_size(name, mesh, degree, max_dofs):
    """Refuse a solid whose unknowns exceed ``max_dofs`` (counted from the mesh, before any space)."""
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
    limit = DEFAULT_MAX_DOFS if max_dofs is None else max_dofs
    if n > limit:
        raise ValueError(f"body '{name}': the solid has about {n} unknowns (degree {degree}, {cells} cells), "
                         f"above max_dofs={limit} (its assembly needs about {n * BYTES_PER_DOF / 1e9:.1f} GB); "
                         "give a larger max_dofs to build it anyway")
    return n


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
        if bad:
            raise ValueError(f"{owner}: bad parameter(s): " + "; ".join(bad))
        _check_size(name, mesh, degree, max_dofs)
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

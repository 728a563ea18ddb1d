"""Mindlin-Reissner plates in port-Hamiltonian form (Firedrake).

Co-energy variables: vertical velocity ``v``, rotation rates ``omega``
(``theta ~ grad w`` for thin plates), bending moments ``Mb`` and shear
forces ``q``; energy ``H = 1/2 int rho h v^2 + rho I |omega|^2 + Mb : C_b : Mb
+ |q|^2 / (kappa G h)`` with ``I = h^3 / 12``,

.. math::

    \\rho h \\dot v = \\operatorname{div} q, \\quad
    \\rho I \\dot\\omega = \\operatorname{div} M_b + q, \\quad
    C_b \\dot M_b = \\varepsilon(\\omega), \\quad
    \\frac{1}{\\kappa G h} \\dot q = \\nabla v - \\omega

(Brugnoli, Alazard, Pommier-Budinger, Matignon, Appl. Math. Model. 75
(2019), Part I, eqs. 14-15).  The derivatives are put on the velocities
(weak form, Part I, sec. 4), so every force-type boundary condition is
natural and every velocity condition is strong:

.. math::

    (\\rho h \\dot v, \\delta v) = -(q, \\nabla \\delta v), \\quad
    (\\rho I \\dot\\omega, \\delta\\omega) = -(M_b, \\varepsilon(\\delta\\omega)) + (q, R_h \\delta\\omega),

    (C_b \\dot M_b, \\delta M) = (\\varepsilon(\\omega), \\delta M), \\quad
    (C_s \\dot q, \\delta q) = (\\nabla v - R_h \\omega, \\delta q),

with ``R_h`` the reduction of the shear strain (below; the identity in the
continuous model).

Spaces and reduction (degree ``k >= 2``): ``v`` in CG_k, ``Mb`` in DG
symmetric tensors, ``q`` in the Nedelec space of the first kind NED1_k
(H(curl)), and the shear strain reduced by the Nedelec interpolation
``R_h``: ``(C_s q', dq) = (grad v - R_h omega, dq)`` with the transposed
block in the rotation equation, so ``J`` stays skew.  For ``k = 2`` the
rotations are P2 plus the cubic bubble and the moments DG2: the MITC7
element (Bathe, Brezzi & Cho, Comput. Struct. 32 (1989); locking-free by
Brezzi, Bathe & Fortin, IJNME 28 (1989)) in pH form.  For ``k = 3``:
rotations CG_3, moments DG_2, no bubble.  Why: ``grad CG_k`` lies inside
NED1_k and ``R_h grad w = grad I_h w`` (commuting interpolants), so the
thin-limit constraint ``grad v = R_h omega`` keeps a rich kernel and the
error does not grow as h/a -> 0.  The same spaces with the L2 projection
in place of ``R_h`` (what a plain mixed form gives) degrade in the thin
limit.  Measured on the simply supported square (first mode, UnitSquareMesh
4, 8, 16), relative errors:

* k = 2: h/a = 0.01: 2.9e-3, 1.6e-4, -8.0e-6; h/a = 1e-4: 3.0e-3, 1.8e-4, -2.8e-6
  (thickness independent);
* k = 3: h/a = 1e-3: 2.1e-4, 7.9e-6, 9.7e-8; h/a = 1e-4: 2.2e-4, 1.1e-5, 5.6e-7
  (a mild growth on the finest mesh).

``reduction="projection"`` gives the plain mixed form (L2 projection, no
bubble, moments DG_{k-1}): faster asymptotic convergence for thick plates
(first mode, h/a = 0.1, k = 2: order 4, 4.4e-6 on 32 x 32 against order
about 2 and -4.7e-6 with the interpolation, whose consistency error is
O(h^2)), but its error grows as the plate thins (k = 2, 16 x 16: 6.9e-5 at
h/a = 0.1, 1.6e-3 at 0.01, 7.0e-3 at 1e-3, 1.3e-2 at 1e-4).

``k = 1`` is refused (CG_1 rotations with one shear unknown per edge lock
without the edge bubbles of the Duran-Liberman element).

Boundary conditions: ``"clamped"`` (``v = 0``, ``omega = 0``),
``"simply_supported"`` (hard: ``v = 0`` and the rotation about the edge
normal ``omega_t = 0``; straight edges parallel to an axis),
``"soft_simply_supported"`` (``v = 0`` only: both rotations free, the
moments ``M_nn`` and ``M_nt`` vanish naturally; any edge) and ``"free"``
(natural).  The soft support is the more flexible one (its twisting moment
is released): its frequencies lie below the hard support's, and both tend
to the Kirchhoff simply supported plate as the plate thins (the soft
support through a boundary layer of the width of the thickness).
"""
import scipy.sparse as sp

from ._petsc import to_scipy
from .plate import PlateBase, check_degree, check_plate_parameters, real_number

MINDLIN_CONDITIONS = ("clamped", "simply_supported", "soft_simply_supported", "free")
#: reductions of the shear strain: Nedelec interpolation (locking-free) or L2 projection
REDUCTIONS = ("interpolation", "projection")


def _edge_axis(fd, mesh, marker, owner):
    """0 if the edge ``marker`` is a line x = const, 1 if y = const (else an error)."""
    n = fd.FacetNormal(mesh)
    length = fd.assemble(fd.Constant(1.0) * fd.ds(marker, domain=mesh))
    nx = fd.assemble(abs(n[0]) * fd.ds(marker, domain=mesh)) / length
    ny = fd.assemble(abs(n[1]) * fd.ds(marker, domain=mesh)) / length
    if abs(nx - 1) < 1e-10:
        return 0
    if abs(ny - 1) < 1e-10:
        return 1
    raise ValueError(f"plate '{owner}': 'simply_supported' needs straight edges parallel to an axis; "
                     f"edge {marker} is not")


def mindlin_forms(fd, mesh, k, reduction, h, rho, E, nu, kappa):
    """Spaces and UFL forms of the Mindlin plate (shared by the serial and the distributed plate).

    Velocity CG_k, rotations CG_k^2 (plus the cubic bubble for ``k = 2`` with
    the interpolated shear: MITC7), moments DG (DG2 with the bubble), shear
    NED1_k.  Returns a dict with ``spaces`` ``(Vv, Vw, Vm, Vq)``, the mixed
    space ``W``, the ``tests``, the forms ``m`` and ``j`` (callables of the split
    trial and test functions: the energy metric and the structure without the
    shear-rotation coupling), ``E`` and ``J0`` (the same as forms on ``W``) and the
    coupling forms: ``"R"`` (the Nedelec interpolation of the rotations) and ``"Mq"``
    for the interpolation, or ``"P"`` (``(omega, dq)``) for the L2 projection
    (:func:`shear_coupling` makes the coupling's matrix).
    """
    from finat.ufl import EnrichedElement, FiniteElement, VectorElement

    bubble = k == 2 and reduction == "interpolation"
    cell = mesh.ufl_cell()
    Pk = FiniteElement("CG", cell, k)
    # k = 2: rotations P2 + cubic bubble (MITC7); the moments then need DG2 to hold eps(omega)
    rot = EnrichedElement(Pk, FiniteElement("Bubble", cell, 3)) if bubble else Pk
    Vv = fd.FunctionSpace(mesh, Pk)
    Vw = fd.FunctionSpace(mesh, VectorElement(rot, dim=2))
    Vm = fd.TensorFunctionSpace(mesh, "DG", 2 if bubble else k - 1, shape=(2, 2), symmetry=True)
    Vq = fd.FunctionSpace(mesh, "N1curl", k)
    W = fd.MixedFunctionSpace([Vv, Vw, Vm, Vq])
    D = E * h ** 3 / (12.0 * (1.0 - nu ** 2))
    Cs = 1.0 / (kappa * E / (2.0 * (1.0 + nu)) * h)

    def Cb(m):
        return (m - nu / (1.0 + nu) * fd.tr(m) * fd.Identity(2)) / (D * (1.0 - nu))

    eps = fd.sym
    dx = fd.dx

    def m(e, de):
        (v, w, Mb, q), (dv, dw, dM, dq) = e, de
        return (rho * h * dv * v + rho * h ** 3 / 12 * fd.inner(dw, w)
                + fd.inner(dM, Cb(Mb)) + Cs * fd.inner(dq, q)) * dx

    def j(e, de):
        (v, w, Mb, q), (dv, dw, dM, dq) = e, de
        return (-fd.inner(q, fd.grad(dv)) - fd.inner(Mb, eps(fd.grad(dw)))
                + fd.inner(eps(fd.grad(w)), dM) + fd.inner(fd.grad(v), dq)) * dx

    trial, tests = fd.TrialFunctions(W), fd.TestFunctions(W)
    out = {"spaces": (Vv, Vw, Vm, Vq), "W": W, "tests": tests, "D": D, "m": m, "j": j,
           "E": m(trial, tests), "J0": j(trial, tests)}
    if reduction == "interpolation":
        out["R"] = fd.interpolate(fd.TrialFunction(Vw), Vq)
        out["Mq"] = fd.inner(fd.TrialFunction(Vq), fd.TestFunction(Vq)) * dx
    else:
        out["P"] = fd.inner(fd.TrialFunction(Vw), fd.TestFunction(Vq)) * dx
    return out


def shear_coupling(fd, forms, off):
    """The skew coupling of the shear and the rotations over the full mixed space (offsets ``off``
    of its four fields): the rows ``(-R_h omega, dq)`` of the shear equation and their negative
    transpose in the rotation rows, ``R_h`` the Nedelec interpolation (``M_q R_h``) or the L2
    projection (``(omega, dq)``)."""
    if "R" in forms:
        MR = sp.coo_matrix(to_scipy(fd.assemble(forms["Mq"], mat_type="aij"))
                           @ to_scipy(fd.assemble(forms["R"], mat_type="aij")))
    else:
        MR = sp.coo_matrix(to_scipy(fd.assemble(forms["P"], mat_type="aij")))
    n = off[-1]
    Jqw = sp.csr_matrix((-MR.data, (MR.row + off[3], MR.col + off[1])), shape=(n, n))
    return Jqw - Jqw.T


def mindlin_conditions(fd, mesh, boundary, owner):
    """The ``(field, marker)`` pairs of :class:`~phmech.fem.FormBody` for ``{marker: condition}``:
    ``v = 0`` on every supported edge, both rotations on a clamped one, the rotation about the
    edge normal (``(1, component)``) on a hard simple support; nothing on a free edge."""
    out = []
    for m, cond in boundary.items():
        if cond == "free":
            continue
        out.append((0, m))
        if cond == "clamped":
            out.append((1, m))
        elif cond == "simply_supported":
            out.append(((1, 1 - _edge_axis(fd, mesh, m, owner)), m))    # x = const: omega_y is tangential
    return out


class MindlinPlate(PlateBase):
    """Mindlin-Reissner plate, ``e = (v, omega, Mb, q)`` (see the module docstring).

    Parameters
    ----------
    name : str
    mesh : firedrake mesh (2D) or :class:`~phmech.fem.mesh_recipe.MeshRecipe` (built on first use)
    h, rho, E, nu : thickness, density, Young's modulus, Poisson ratio.
    kappa : float
        Shear correction factor (default 5/6).
    degree : int
        ``k >= 2``.
    boundary : dict ``{marker: "clamped" | "simply_supported" | "soft_simply_supported" | "free"}``;
        unlisted markers are free (``"simply_supported"`` is the hard support, the rotation
        about the edge normal held; the soft one holds the deflection only).
    reduction : ``"interpolation"`` (default, locking-free) or ``"projection"``.
    max_dofs : int, optional
        Largest number of unknowns accepted (see :class:`~phmech.fem.plate.KirchhoffPlate`).
    """

    KIND = "MindlinPlate"
    FIELDS = ("v", "omega", "M", "q")
    VELOCITY = (0, 1)
    EXTRA_SOURCES = PlateBase.EXTRA_SOURCES + ("phmech.fem.plate_mindlin",)

    def __init__(self, name, mesh, h, rho, E, nu, kappa=5.0 / 6.0, degree=2, boundary=None,
                 reduction="interpolation", max_dofs=None):
        self._setup_material(name, mesh, h, rho, E, nu)
        check_plate_parameters(name, kappa=kappa)
        self.degree = check_degree(name, degree, 2, " (degree 1 locks in the thin limit)")
        if not isinstance(reduction, str) or reduction not in REDUCTIONS:
            raise ValueError(f"plate '{name}': reduction must be one of {REDUCTIONS}, got {reduction!r}")
        self.reduction = reduction
        self._guard_size(max_dofs)
        self.kappa = real_number(kappa)
        self._setup_plate(boundary, MINDLIN_CONDITIONS, degree=self.degree, kappa=self.kappa, reduction=reduction)

    def _plate_definition(self, fd, mesh):
        forms = mindlin_forms(fd, mesh, self.degree, self.reduction, self.h, self.rho, self.E_mod, self.nu,
                              self.kappa)
        return {"spaces": forms["spaces"], "space": forms["W"], "m": forms["m"], "j": forms["j"],
                "fixed": mindlin_conditions(fd, mesh, self.boundary, self.name),
                "j_operator": lambda off: shear_coupling(fd, forms, off)}

    def _velocity_tests(self):
        dv, dw = self._tests[:2]
        return dv, dw[1], -dw[0]

    def _edge_tests(self):
        dv, dw = self._tests[:2]
        return dv, self._firedrake().dot(dw, self.n)

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
    (\\rho I \\dot\\omega, \\delta\\omega) = -(M_b, \\varepsilon(\\delta\\omega)) + (q, \\delta\\omega),

    (C_b \\dot M_b, \\delta M) = (\\varepsilon(\\omega), \\delta M), \\quad
    (C_s \\dot q, \\delta q) = (\\nabla v - \\omega, \\delta q).

Spaces (degree ``k >= 2``): ``v`` in CG_k, ``omega`` in CG_k^2, ``Mb`` in
DG_{k-1} symmetric tensors (which contains ``eps(omega)``: bending is
exact) and ``q`` in the Nedelec space of the first kind NED1_k (H(curl)).
Why: the shear is an unknown of its own, so the thin limit ``C_s -> 0`` is
the constrained problem ``P_Q(grad v - omega) = 0`` with ``P_Q`` the L2
projection onto the shear space; ``grad CG_k`` lies inside NED1_k (the
discrete de Rham sequence), so the gradient part of the constraint is met
exactly by ``v`` and only the discrete curl of ``P_Q omega`` is
constrained (the mechanism of the MITC and Duran-Liberman elements, Duran
& Liberman, Math. Comp. 58 (1992), with the interpolation replaced by the
L2 projection that the mixed pH form produces).  Measured thin limit (simply supported
square, first mode, h/a = 1e-3, UnitSquareMesh 4, 8, 16):
k = 2: errors 35 %, 4.1 %, 0.70 % (order about 3); k = 3: 1.8 %, 0.11 %,
0.0022 %; at h/a = 0.1 the same meshes give 1.3 %, 0.10 %, 0.0067 % (k = 2).
``k = 1`` (CG_1 rotations, one shear unknown per edge) leaves almost no
rotation field that satisfies the constraint and locks (error 480 % on
16 x 16 at h/a = 1e-3), so it is refused.

Boundary conditions: ``"clamped"`` (``v = 0``, ``omega = 0``),
``"simply_supported"`` (hard: ``v = 0`` and the rotation about the edge
normal ``omega_t = 0``; straight edges parallel to an axis) and
``"free"`` (natural).
"""
import numpy as np

from ._petsc import to_scipy
from .plate import PlateBase, check_boundary, check_plate_parameters

MINDLIN_CONDITIONS = ("clamped", "simply_supported", "free")


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


class MindlinPlate(PlateBase):
    """Mindlin-Reissner plate, ``e = (v, omega, Mb, q)`` (see the module docstring).

    Parameters
    ----------
    name : str
    mesh : firedrake mesh (2D)
    h, rho, E, nu : thickness, density, Young's modulus, Poisson ratio.
    kappa : float
        Shear correction factor (default 5/6).
    degree : int
        ``k >= 1``.
    boundary : dict ``{marker: "clamped" | "simply_supported" | "free"}``;
        unlisted markers are free.
    """

    def __init__(self, name, mesh, h, rho, E, nu, kappa=5.0 / 6.0, degree=2, boundary=None):
        self._setup_mesh(name, mesh, h, rho, E, nu)
        check_plate_parameters(name, kappa=kappa)
        fd = self._fd
        if not isinstance(degree, (int, np.integer)) or degree < 2:
            raise ValueError(f"plate '{name}': degree must be an integer >= 2 (degree 1 locks in the "
                             f"thin limit), got {degree!r}")
        boundary = {} if boundary is None else dict(boundary)
        check_boundary(name, self.markers, boundary, MINDLIN_CONDITIONS)
        self.degree = k = int(degree)
        self.kappa = float(kappa)
        self.boundary = {m: boundary.get(m, "free") for m in sorted(self.markers)}
        Vv = fd.FunctionSpace(mesh, "CG", k)
        Vw = fd.VectorFunctionSpace(mesh, "CG", k)
        Vm = fd.TensorFunctionSpace(mesh, "DG", k - 1, shape=(2, 2), symmetry=True)
        Vq = fd.FunctionSpace(mesh, "N1curl", k)
        W = fd.MixedFunctionSpace([Vv, Vw, Vm, Vq])
        v, w, Mb, q = fd.TrialFunctions(W)
        dv, dw, dM, dq = fd.TestFunctions(W)
        h, rho, D, nu = self.h, self.rho, self.D, self.nu
        G = self.E_mod / (2.0 * (1.0 + nu))
        Cs = 1.0 / (self.kappa * G * h)

        def Cb(m):
            return (m - nu / (1.0 + nu) * fd.tr(m) * fd.Identity(2)) / (D * (1.0 - nu))

        eps = fd.sym
        dx = fd.dx
        Mfull = to_scipy(fd.assemble((rho * h * dv * v + rho * h ** 3 / 12 * fd.inner(dw, w)
                                      + fd.inner(dM, Cb(Mb)) + Cs * fd.inner(dq, q)) * dx, mat_type="aij"))
        Jfull = to_scipy(fd.assemble((-fd.inner(q, fd.grad(dv)) - fd.inner(Mb, eps(fd.grad(dw))) + fd.inner(q, dw)
                                      + fd.inner(eps(fd.grad(w)), dM) + fd.inner(fd.grad(v) - w, dq)) * dx,
                                     mat_type="aij"))
        sizes = [V.dim() for V in (Vv, Vw, Vm, Vq)]
        off = np.cumsum([0] + sizes)
        vel = {"v": np.arange(off[0], off[1]), "omega": np.arange(off[1], off[2])}
        stress = {"M": np.arange(off[2], off[3]), "q": np.arange(off[3], off[4])}
        drop = []
        for m, cond in self.boundary.items():
            if cond == "free":
                continue
            drop += list(fd.DirichletBC(Vv, 0.0, m).nodes)
            if cond == "clamped":
                nodes = fd.DirichletBC(Vw, fd.Constant((0.0, 0.0)), m).nodes
                drop += [off[1] + 2 * i + c for i in nodes for c in (0, 1)]
            else:
                tangential = 1 - _edge_axis(fd, mesh, m, name)   # x = const: omega_y is tangential
                nodes = fd.DirichletBC(Vw.sub(tangential), 0.0, m).nodes
                drop += [off[1] + 2 * i + tangential for i in nodes]
        self.spaces = (Vv, Vw, Vm, Vq)
        self._tests = (dv, dw, dM, dq)
        self._finish(Mfull, Jfull, np.unique(drop), vel, stress)

    def _velocity_tests(self):
        dv, dw = self._tests[:2]
        return dv, dw[1], -dw[0]

    def _edge_tests(self):
        dv, dw = self._tests[:2]
        return dv, self._fd.dot(dw, self.n)

r"""A flat plate in a floating frame: Mindlin-Reissner bending and plane-stress membrane (a flat shell).

The plate lies in the frame's plane ``z = 0`` (its mesh is 2D, coordinates ``(x, y)``); the
body-frame velocity of its material is ``(u_x, u_y, v)`` relative to the frame: the membrane
velocity ``u`` in vector ``CG_k`` with the membrane forces ``N`` in symmetric ``DG_{k-1}``, the
transverse velocity ``v`` in ``CG_k`` and the sections' rotation rates ``omega = (omega_1,
omega_2)`` (``omega ~ grad v`` for a thin plate) in ``CG_k`` with the bending moments ``M_b`` in
symmetric ``DG_{k-1}`` and the shear forces ``q`` in ``NED1_k`` (the Mindlin plate of
:mod:`phmech.fem.plate_mindlin` with the shear strain's L2 projection, ``reduction="projection"``;
Brugnoli et al., Appl. Math. Modelling 75, 2019, Part I):

.. math::

    m(e, \delta e) &= \int \rho h\, (\delta u \cdot u + \delta v\, v) + \rho \tfrac{h^3}{12}\,
                      \delta\omega \cdot \omega + \delta M_b : C_b M_b + \frac{\delta q \cdot q}{\kappa G h}
                      + \delta N : C_m N, \\
    j(e, \delta e) &= -(q, \nabla\delta v) - (M_b, \varepsilon(\delta\omega)) + (q, \delta\omega)
                      + (\nabla v - \omega, \delta q) + (\varepsilon(\omega), \delta M_b)
                      - (N, \varepsilon(\delta u)) + (\varepsilon(u), \delta N),

``C_m N = ((1 + nu) N - nu tr(N) I) / (E h)`` (plane stress), ``C_b`` the bending compliance.
In the floating frame the rotation rates are section-spin fields
(:class:`~phmech.fem.form_body.FormBody`'s ``spin=``): ``omega_1`` turns the sections about
``-e_2``, ``omega_2`` about ``e_1``, with the rotary inertia ``rho h^3 / 12``.  The frame is the
clamped edge's: ``clamped`` markers remove the velocity and rotation unknowns there (a clamp
holds the sections' rotation strongly, which a Kirchhoff plate's HHJ form holds only weakly: in
a floating frame that weak slope would leave the frame's rotation about the edge in the
deflection field); every other edge is free (natural).  Ports:
:meth:`~phmech.fem.form_body.FormBody.add_frame_port` at a point of the clamped edge (a hub),
:meth:`FloatingPlate.add_edge_port` the mean motion of an edge.
"""
import numpy as np

from .form_body import FormBody, FormError
from .plate import check_degree, check_plate_parameters, check_poisson

#: the fields of the shell's mixed space
FIELDS = ("u", "v", "omega1", "omega2", "Mb", "q", "N")


def shell_forms(mesh, h, rho, E, nu, kappa=5.0 / 6.0, degree=2):
    """``(W, m, j)`` of the flat shell (module docstring): the space of :data:`FIELDS` and the
    forms as callables of the split trial and test functions."""
    import firedrake as fd
    k = degree
    P = fd.FunctionSpace(mesh, "CG", k)
    S = fd.TensorFunctionSpace(mesh, "DG", k - 1, symmetry=True)
    W = fd.MixedFunctionSpace([fd.VectorFunctionSpace(mesh, "CG", k), P, P, P, S,
                               fd.FunctionSpace(mesh, "N1curl", k), S])
    D = E * h ** 3 / (12.0 * (1.0 - nu ** 2))
    Cs = 2.0 * (1.0 + nu) / (kappa * E * h)

    def cb(M):
        return (M - nu / (1.0 + nu) * fd.tr(M) * fd.Identity(2)) / (D * (1.0 - nu))

    def cm(N):
        return ((1.0 + nu) * N - nu * fd.tr(N) * fd.Identity(2)) / (E * h)

    def m(e, de):
        (u, v, w1, w2, M, q, N), (du, dv, dw1, dw2, dM, dq, dN) = e, de
        return (rho * h * (fd.inner(du, u) + dv * v) + rho * h ** 3 / 12 * (dw1 * w1 + dw2 * w2)
                + fd.inner(dM, cb(M)) + Cs * fd.inner(dq, q) + fd.inner(dN, cm(N))) * fd.dx

    def j(e, de):
        (u, v, w1, w2, M, q, N), (du, dv, dw1, dw2, dM, dq, dN) = e, de
        w, dw = fd.as_vector((w1, w2)), fd.as_vector((dw1, dw2))
        eps = lambda a: fd.sym(fd.grad(a))      # noqa: E731
        return (-fd.inner(q, fd.grad(dv)) - fd.inner(M, eps(dw)) + fd.inner(q, dw)
                + fd.inner(fd.grad(v) - w, dq) + fd.inner(eps(w), dM)
                - fd.inner(N, eps(du)) + fd.inner(eps(u), dN)) * fd.dx
    return W, m, j


class FloatingPlate(FormBody):
    """A flat plate (Mindlin bending and membrane) in a spatial floating frame, clamped to it.

    Parameters
    ----------
    name : str
    mesh : firedrake mesh (2D, the plate in the frame's plane ``z = 0``)
    h, rho, E, nu : thickness [m], density [kg/m^3], Young's modulus [Pa], Poisson ratio
    clamped : int or sequence of int
        The boundary markers held to the frame (a hub's edge).
    kappa : float
        Shear correction factor (default 5/6).
    degree : int
        ``k >= 2`` of the velocities and rotation rates (``CG_k``).
    position, orientation : the frame's initial position and unit quaternion.
    """

    KIND = "FloatingPlate"
    EXTRA_SOURCES = FormBody.EXTRA_SOURCES + ("phmech.fem.floating_plate",)

    def __new__(cls, *args, **kwargs):
        return FormBody.__new__(cls, floating=True)

    def __init__(self, name, mesh, h, rho, E, nu, clamped, kappa=5.0 / 6.0, degree=2, position=None,
                 orientation=None):
        import firedrake as fd
        check_plate_parameters(name, h=h, rho=rho, E=E, kappa=kappa)
        nu = check_poisson(name, nu)
        degree = check_degree(name, degree, 2)
        self.h, self.rho, self.E_mod, self.nu, self.degree = float(h), float(rho), float(E), nu, degree
        self.kappa = float(kappa)
        self.D = self.E_mod * self.h ** 3 / (12.0 * (1.0 - nu ** 2))
        clamped = [int(c) for c in np.atleast_1d(clamped)]
        markers = sorted(int(m) for m in mesh.exterior_facets.unique_markers)
        bad = [c for c in clamped if c not in markers]
        if bad or not clamped:
            raise FormError(f"body '{name}': clamped marker(s) {bad or clamped!r} are not boundary markers of the "
                            f"mesh (its markers: {markers})")
        self.clamped = clamped
        W, m, j = shell_forms(mesh, *(fd.Constant(c) for c in (self.h, self.rho, self.E_mod, self.nu, self.kappa)),
                              degree)
        rotary = fd.Constant(self.rho * self.h ** 3 / 12)
        FormBody.__init__(self, name, W, m, j, velocity=(FIELDS.index("u"), FIELDS.index("v")), dim=3, floating=True,
                          density=fd.Constant(self.rho * self.h), reference=("clamped", clamped),
                          spin=[(FIELDS.index("omega1"), (0.0, -1.0, 0.0), rotary),
                                (FIELDS.index("omega2"), (1.0, 0.0, 0.0), rotary)],
                          position=position, orientation=orientation)

    def picture(self, t, Q, E, rows, n_points=21, scale=1.0):
        """A function ``k -> Part``: the plate's cells placed by its frame and moved by ``scale``
        times the displacement (:func:`phmech.fem.solid_picture.solid_picture`)."""
        from .solid_picture import solid_picture
        return solid_picture(self, Q, E, rows, scale)

    def add_edge_port(self, name, marker):
        """A port with the mean velocity ``(u_x, u_y, v)`` of the edge ``marker`` (frame and
        deformation), power-conjugate to a force spread evenly along the edge."""
        self._setup_firedrake()
        fd = self._fd
        ds = fd.ds(int(marker), domain=self.mesh)
        length = float(fd.assemble(fd.Constant(1.0) * ds))
        forms = [(lambda de, k=k: self._velocity_vector(de)[k] * ds / length) for k in range(3)]
        return self.add_form_port(name, forms)

    def node_rows(self, points):
        """Rows ``(3, ne)`` per point: the body-frame velocity ``(u_x, u_y, v)`` of the
        deformation at the velocity node nearest each point (a vertex of the mesh for an exact
        value; the frame's rigid part not included)."""
        self._setup_firedrake()
        fd = self._fd
        X = np.asarray(fd.Function(fd.VectorFunctionSpace(self.mesh, "CG", self.degree)).interpolate(
            fd.SpatialCoordinate(self.mesh)).dat.data_ro)           # the nodes of u and w (one numbering)
        off = self._offsets()
        rows = []
        for P in np.atleast_2d(np.asarray(points, float)):
            R = np.zeros((3, self.ne))
            node = int(np.argmin(np.linalg.norm(X - P[:2], axis=1)))
            for k, full in enumerate((off[0] + 2 * node, off[0] + 2 * node + 1, off[1] + node)):
                if self._full_to_e[full] >= 0:
                    R[k, self._full_to_e[full]] = 1.0
            rows.append(R)
        return rows

r"""The Kirchhoff plate's port-Hamiltonian weak form, for a :class:`~phmech.fem.FormBody`.

Velocity ``v`` in CG_k and bending moments ``M`` in Hellan-Herrmann-Johnson HHJ_{k-1} (default ``k = 2``)
(Brugnoli et al., Appl. Math. Modelling 75 (2019), Part II):

.. math::

    m((v, M), (\delta v, \delta M)) &= \int \rho h\, \delta v\, v + \delta M : C M, \\
    j((v, M), (\delta v, \delta M)) &= -b(M, \delta v) + b(\delta M, v), \\
    b(M, u) &= \int M : \nabla\nabla u - \int_{\mathcal F_i} M_{nn} [\![\partial_n u]\!]
               - \int_{\partial\Omega} M_{nn} \partial_n u,

with the compliance ``C M = (M - nu/(1+nu) tr(M) I) / (D (1 - nu))``, ``D = E h^3 / (12 (1 - nu^2))``.
The homogeneous edge conditions remove unknowns (:func:`kirchhoff_conditions`).
"""

#: the fields removed on an edge, per condition: velocity ``v`` (field 0), moment ``M_nn`` (field 1)
KIRCHHOFF_REMOVED = {"clamped": (0,), "simply_supported": (0, 1), "free": (1,), "guided": ()}


def kirchhoff_conditions(boundary):
    """The ``(field, marker)`` pairs of :class:`~phmech.fem.FormBody` for ``{marker: condition}``:
    ``v = 0`` on clamped and simply supported edges, ``M_nn = 0`` (the normal-normal unknowns of the
    HHJ moments) on simply supported and free ones; nothing on a guided edge (``d_n v = 0`` and the
    shear are natural)."""
    return [(field, m) for m, cond in boundary.items() for field in KIRCHHOFF_REMOVED[cond]]


def kirchhoff_forms(mesh, h, rho, E, nu, degree=2):
    """``(W, m, j)``: the mixed space ``CG_k x HHJ_{k-1}`` (``k = degree``) and the energy and
    structure forms of a Kirchhoff plate (callables of the trial and test functions, as
    :class:`~phmech.fem.FormBody` takes them)."""
    import firedrake as fd

    D = E * h ** 3 / (12 * (1 - nu ** 2))
    W = fd.FunctionSpace(mesh, "CG", degree) * fd.FunctionSpace(mesh, "HHJ", degree - 1)
    n = fd.FacetNormal(mesh)

    def compliance(mm):
        return (mm - nu / (1 + nu) * fd.tr(mm) * fd.Identity(2)) / (D * (1 - nu))

    def b(mm, u):
        return (fd.inner(mm, fd.grad(fd.grad(u))) * fd.dx
                - fd.dot(fd.dot(mm("+"), n("+")), n("+")) * fd.jump(fd.grad(u), n) * fd.dS
                - fd.dot(fd.dot(mm, n), n) * fd.dot(fd.grad(u), n) * fd.ds)

    def m(e, de):
        return (rho * h * de[0] * e[0] + fd.inner(de[1], compliance(e[1]))) * fd.dx

    def j(e, de):
        return -b(e[1], de[0]) + b(de[1], e[0])

    return W, m, j

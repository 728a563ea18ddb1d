"""What the beams share: the size check before anything is allocated, the positive-parameter
check, point evaluation of FE functions in a cell, and the first moment of mass along an axis.

Used by the planar and spatial beams, linear and geometrically consistent
(:mod:`phmech.fem.beam`, :mod:`~phmech.fem.beam3d`, :mod:`~phmech.fem.beam_nonlinear`,
:mod:`~phmech.fem.beam3d_nonlinear`); :data:`MAX_ELEMENTS` is the limit
of all of them.
"""
import numpy as np

from ._petsc import to_numpy

#: beams with more elements are refused before Firedrake allocates anything
MAX_ELEMENTS = 200_000
#: set-up memory per element of a planar beam in a mechanism (build, assembly and initial
#: values grow linearly: about 1.3 GB for the crank-slider with 1e5 elements, measured with
#: ``benchmarks/setup_memory.py``); used for the estimate in the refusal message
BYTES_PER_ELEMENT = 13e3


def check_n_elem(owner, n_elem, fields=4):
    """Check a beam's number of elements before anything is allocated.

    Parameters
    ----------
    owner : str
        Name of the beam (for the message).
    n_elem : int
        Number of elements; must be a positive integer not above :data:`MAX_ELEMENTS`.
    fields : int
        Number of fields (for the memory estimate): 4 for the planar beam,
        8 for the spatial one.

    Returns
    -------
    int
    """
    if isinstance(n_elem, (bool, np.bool_)) or not isinstance(n_elem, (int, np.integer)) or n_elem < 1:
        raise ValueError(f"beam '{owner}': n_elem must be a positive integer, got {n_elem!r}")
    if n_elem > MAX_ELEMENTS:
        gb = n_elem * BYTES_PER_ELEMENT * fields / 4 / 1e9
        raise ValueError(f"beam '{owner}': n_elem={n_elem} is above phmech.fem.beam_common.MAX_ELEMENTS = "
                         f"{MAX_ELEMENTS} (set-up needs about {gb:.1f} GB of memory); raise "
                         "MAX_ELEMENTS to build it anyway")
    return int(n_elem)


def _check_positive(owner, **values):
    bad = [f"{k}={v!r}" for k, v in values.items()
           if not (isinstance(v, (int, float, np.floating)) and np.isfinite(v) and v > 0)]
    if bad:
        raise ValueError(f"beam '{owner}': parameters must be positive and finite: {', '.join(bad)}")


class CellPointEvaluator:
    """Point evaluation of cubic (Hermite) and lower-degree fields on an interval mesh as integrals.

    On the cell ``[a, b]`` containing ``x0``, ``f(x0) = int_a^b f w dx`` for
    every cubic ``f`` when ``w`` is the cubic Riesz representer of the point
    evaluation in ``L2(a, b)``: with ``s = (x - a) / h``, ``w = sum_k c_k s^k``
    and ``G c = (s0^k)_k``, ``G_kl = h / (k + l + 1)``.  The cell bounds and
    the coefficients are Firedrake ``Constant`` objects, so one compiled
    kernel per test function serves every point.

    Parameters
    ----------
    mesh : firedrake IntervalMesh
    """

    def __init__(self, mesh):
        import firedrake as fd

        self._fd = fd
        self.verts = np.unique(np.asarray(mesh.coordinates.dat.data_ro, float).ravel())
        x = fd.SpatialCoordinate(mesh)[0]
        self.a, self.b, self.h = fd.Constant(0.0), fd.Constant(1.0), fd.Constant(1.0)
        self.coef = fd.Constant(np.zeros(4))
        s = (x - self.a) / self.h
        c = self.coef
        w = c[0] + s * (c[1] + s * (c[2] + s * c[3]))
        self.weight = fd.conditional(fd.And(fd.gt(x, self.a), fd.lt(x, self.b)), w, 0.0)
        self.dx = fd.dx(domain=mesh, metadata={"quadrature_degree": 8})

    def set_point(self, x0):
        """Point the constants at ``x0`` (clipped into the mesh)."""
        verts = self.verts
        c = min(max(int(np.searchsorted(verts, x0, side="right")) - 1, 0), len(verts) - 2)
        a, b = verts[c], verts[c + 1]
        h = b - a
        k = np.arange(4)
        gram = h / (k[:, None] + k[None, :] + 1.0)
        self.a.assign(a)
        self.b.assign(b)
        self.h.assign(h)
        self.coef.assign(np.linalg.solve(gram, ((x0 - a) / h) ** k))

    def rows(self, points, tests):
        """For each test function in ``tests``, an array ``(npts, n)`` of evaluation rows."""
        fd = self._fd
        forms = [self.weight * v * self.dx for v in tests]
        out = [None] * len(forms)
        for i, x0 in enumerate(np.atleast_1d(points)):
            self.set_point(float(x0))
            for k, form in enumerate(forms):
                row = to_numpy(fd.assemble(form))
                if out[k] is None:
                    out[k] = np.zeros((len(points), row.size))
                out[k][i] = row
        return out


def axis_first_moment(body, rhoA, point_masses=(), n_gauss=4):
    """First moment of mass of a beam's deformed axis about its frame origin, in frame components.

    ``S = s0 + rows @ v``: ``s0`` that of the undeformed axis (``rho A L^2 / 2 e1`` plus the point
    masses), ``rows`` (dim x n) that of the displacement ``int rho A u dX + sum m_k u(x_k)`` from
    the body's :meth:`displacement_rows` (Gauss-Legendre points on the uniform elements, exact for
    the cubic fields), ``v`` the vector those rows act on (``q`` or ``e``).
    """
    xg, wg = np.polynomial.legendre.leggauss(n_gauss)
    h = body.L / body.n_elem
    left = h * np.arange(body.n_elem)
    pts = (left[:, None] + 0.5 * h * (xg[None, :] + 1.0)).ravel()
    w = np.tile(0.5 * h * wg, body.n_elem)
    rows = np.vstack([rhoA * (w @ R) for R in body.displacement_rows(pts)])
    s0 = np.zeros(rows.shape[0])
    s0[0] = 0.5 * rhoA * body.L ** 2
    for x, m in point_masses:
        s0[0] += m * x
        rows += m * np.vstack([R[0] for R in body.displacement_rows([x])])
    return s0, rows

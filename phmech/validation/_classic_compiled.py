"""The equations of the classic benchmarks as compiled (numba) kernels, and their index-2 form.

The one implementation of the mass matrices, forces and constraint
Jacobians of :class:`~phmech.validation._classic_models.SimeonCrank` and
:class:`~phmech.validation._classic_models.AndrewsSqueezer`: the models'
methods call these kernels (``NUMBA_DISABLE_JIT=1`` runs the same source as
Python), and the index-2 residual, its Jacobian and the ODE form below are
built on them, so that one evaluation costs a few microseconds instead of a
few hundred (``tests/kernels/test_compiled.py`` checks the compiled problems against
the models' Python assembly of the same kernels).  The index-2 residual is

.. math::

    (p', v', 0, 0) = (v,\\; w,\\; f(t, p, v) - M(p) w - G(p)^T \\lambda,\\;
                      G(p) v + g_t)

and its Jacobian has the constant blocks written directly and the ``p``
and ``v`` columns of the nonlinear rows by complex-step differentiation
(``h = 1e-30``, exact to rounding), as in the Python models.  Compiled
functions are cached on disk (``cache=True``): the first call of a fresh
installation compiles for a few seconds, later processes load the
machine code.
"""
import numpy as np

from ..kernels.jit import inline as _jit_inline, jit as _jit, numba
from ..solvers.radau_kernels import stage_kind

_H = 1e-30

#: parameter order of the compiled Andrews model
ANDREWS_KEYS = ("m1", "m2", "m3", "m4", "m5", "m6", "m7", "xa", "ya", "xb", "yb", "xc", "yc", "c0",
                "i1", "i2", "i3", "i4", "i5", "i6", "i7", "d", "da", "e", "ea", "rr", "ra", "l0", "ss",
                "sa", "sb", "sc", "sd", "ta", "tb", "u", "ua", "ub", "zf", "zt", "fa", "mom")


def available():
    """True when numba is importable."""
    return numba is not None


# ---------------------------------------------------------------- Andrews
@_jit
def andrews_mass(p, P):
    (m1, m2, m3, m4, m5, m6, m7, xa, ya, xb, yb, xc, yc, c0, i1, i2, i3, i4, i5, i6, i7, d, da, e, ea,
     rr, ra, l0, ss, sa, sb, sc, sd, ta, tb, u, ua, ub, zf, zt, fa, mom) = P
    ee, zff = e - ea, zf - fa
    M = np.zeros((7, 7), p.dtype)
    M[0, 0] = m1 * ra ** 2 + m2 * (rr ** 2 - 2 * da * rr * np.cos(p[1]) + da ** 2) + i1 + i2
    M[1, 0] = m2 * (da ** 2 - da * rr * np.cos(p[1])) + i2
    M[1, 1] = m2 * da ** 2 + i2
    M[2, 2] = m3 * (sa ** 2 + sb ** 2) + i3
    M[3, 3] = m4 * ee ** 2 + i4
    M[4, 3] = m4 * (ee ** 2 + zt * ee * np.sin(p[3])) + i4
    M[4, 4] = m4 * (zt ** 2 + 2 * zt * ee * np.sin(p[3]) + ee ** 2) + m5 * (ta ** 2 + tb ** 2) + i4 + i5
    M[5, 5] = m6 * zff ** 2 + i6
    M[6, 5] = m6 * (zff ** 2 - u * zff * np.sin(p[5])) + i6
    M[6, 6] = m6 * (zff ** 2 - 2 * u * zff * np.sin(p[5]) + u ** 2) + m7 * (ua ** 2 + ub ** 2) + i6 + i7
    for i in range(7):
        for j in range(i):
            M[j, i] = M[i, j]
    return M


@_jit
def andrews_spring(p, P):
    """``(x, y, l)``: the spring's attachment point D on body 3 and the spring's length."""
    xb, yb, xc, yc, sc, sd = P[9], P[10], P[11], P[12], P[31], P[32]
    cg, sg = np.cos(p[2]), np.sin(p[2])
    dx = sd * cg + sc * sg + xb
    dy = sd * sg - sc * cg + yb
    return dx, dy, np.sqrt((dx - xc) ** 2 + (dy - yc) ** 2)


@_jit
def andrews_forces(p, v, P):
    (m1, m2, m3, m4, m5, m6, m7, xa, ya, xb, yb, xc, yc, c0, i1, i2, i3, i4, i5, i6, i7, d, da, e, ea,
     rr, ra, l0, ss, sa, sb, sc, sd, ta, tb, u, ua, ub, zf, zt, fa, mom) = P
    ee, zff = e - ea, zf - fa
    cg, sg = np.cos(p[2]), np.sin(p[2])
    dx, dy, lng = andrews_spring(p, P)
    fs = -c0 * (lng - l0) / lng
    fx, fy = fs * (dx - xc), fs * (dy - yc)
    bp, tp, fp, dp, op, ep = v[0], v[1], v[3], v[4], v[5], v[6]
    out = np.empty(7, p.dtype)
    out[0] = mom - m2 * da * rr * tp * (tp + 2 * bp) * np.sin(p[1])
    out[1] = m2 * da * rr * bp ** 2 * np.sin(p[1])
    out[2] = fx * (sc * cg - sd * sg) + fy * (sd * cg + sc * sg)
    out[3] = m4 * zt * ee * dp ** 2 * np.cos(p[3])
    out[4] = -m4 * zt * ee * fp * (fp + 2 * dp) * np.cos(p[3])
    out[5] = -m6 * u * zff * ep ** 2 * np.cos(p[5])
    out[6] = m6 * u * zff * op * (op + 2 * ep) * np.cos(p[5])
    return out


@_jit
def andrews_G(p, P):
    rr, d, ss, e, zt, zf, u = P[25], P[21], P[28], P[23], P[39], P[38], P[35]
    bt, pd, oe = p[0] + p[1], p[3] + p[4], p[5] + p[6]
    G = np.zeros((6, 7), p.dtype)
    gx1, gx2 = -rr * np.sin(p[0]) + d * np.sin(bt), d * np.sin(bt)
    gy1, gy2 = rr * np.cos(p[0]) - d * np.cos(bt), -d * np.cos(bt)
    for r in (0, 2, 4):
        G[r, 0], G[r, 1] = gx1, gx2
        G[r + 1, 0], G[r + 1, 1] = gy1, gy2
    G[0, 2], G[1, 2] = -ss * np.cos(p[2]), -ss * np.sin(p[2])
    G[2, 3], G[2, 4] = -e * np.cos(pd), -e * np.cos(pd) + zt * np.sin(p[4])
    G[3, 3], G[3, 4] = -e * np.sin(pd), -e * np.sin(pd) - zt * np.cos(p[4])
    G[4, 5], G[4, 6] = zf * np.sin(oe), zf * np.sin(oe) - u * np.cos(p[6])
    G[5, 5], G[5, 6] = -zf * np.cos(oe), -zf * np.cos(oe) - u * np.sin(p[6])
    return G


@_jit
def _index2_residual(y, n, M, f, G, g_t, out):
    """``(v, w, f - M w - G^T lam, G v + g_t)`` into ``out``."""
    m = G.shape[0]
    for i in range(n):
        out[i] = y[n + i]
        out[n + i] = y[2 * n + i]
    for i in range(n):
        s = f[i]
        for j in range(n):
            s -= M[i, j] * y[2 * n + j]
        for k in range(m):
            s -= G[k, i] * y[3 * n + k]
        out[2 * n + i] = s
    for k in range(m):
        s = g_t[k]
        for j in range(n):
            s += G[k, j] * y[n + j]
        out[3 * n + k] = s


@_jit
def andrews_rhs(t, y, P):
    n = 7
    out = np.empty(y.shape[0], y.dtype)
    p, v = y[:n], y[n:2 * n]
    _index2_residual(y, n, andrews_mass(p, P), andrews_forces(p, v, P), andrews_G(p, P),
                     np.zeros(6), out)
    return out


# ---------------------------------------------------------------- Simeon's crank
@_jit_inline
def _dot(a, b):
    """``a . b`` for vectors of mixed real/complex type (numba's ``@`` needs one dtype)."""
    s = 0.0 * b[0]
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


@_jit_inline
def _mv(A, x):
    """``A x`` for a real matrix and a real or complex vector."""
    out = np.zeros(A.shape[0], x.dtype)
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[i] += A[i, j] * x[j]
    return out


@_jit_inline
def _vm(x, A):
    """``x^T A``."""
    out = np.zeros(A.shape[1], x.dtype)
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[j] += x[i] * A[i, j]
    return out

@_jit
def crank_mass(p, M0, MQ, c1, c2, c12, c21, BQ, rho, L1, m12):
    q = p[3:]
    c, s = np.cos(p[0] - p[1]), np.sin(p[0] - p[1])
    M = np.zeros((7, 7), p.dtype)
    M[:, :] = M0
    m01 = m12 * c + rho * L1 * (s * _dot(c2, q) + c * _dot(c1, q))
    M[0, 1] = m01
    M[1, 0] = m01
    M[1, 1] += _dot(q, _mv(MQ, q)) + 2 * rho * _dot(c12, q)
    a = rho * L1 * (-s * c1 + c * c2)
    b = rho * c21 + rho * _vm(q, BQ)
    for k in range(4):
        M[0, 3 + k] = a[k]
        M[3 + k, 0] = a[k]
        M[1, 3 + k] = b[k]
        M[3 + k, 1] = b[k]
    return M


@_jit
def crank_forces(p, v, MQ, KQ, BQ, c1, c2, c12, rho, L1, L2, m1, m2, g):
    q, qd = p[3:], v[3:]
    c, s = np.cos(p[0] - p[1]), np.sin(p[0] - p[1])
    c1q, c2q, c1qd, c2qd = _dot(c1, q), _dot(c2, q), _dot(c1, qd), _dot(c2, qd)
    mqq = _mv(MQ, q)
    bqd = _mv(BQ, qd)
    out = np.zeros(7, p.dtype)
    out[0] = (-0.5 * L1 * g * (m1 + 2 * m2) * np.cos(p[0]) - 0.5 * L1 * L2 * m2 * v[1] ** 2 * s
              + rho * L1 * v[1] ** 2 * (-s * c1q + c * c2q) - 2 * rho * L1 * v[1] * (c * c1qd + s * c2qd))
    out[1] = (-0.5 * L2 * g * m2 * np.cos(p[1]) + 0.5 * L1 * L2 * m2 * v[0] ** 2 * s
              + rho * L1 * v[0] ** 2 * (s * c1q - c * c2q) - 2 * rho * v[1] * _dot(c12, qd)
              - 2 * v[1] * _dot(qd, mqq) - rho * _dot(qd, bqd)
              - rho * g * (np.cos(p[1]) * c1q - np.sin(p[1]) * c2q))
    fq = (v[1] ** 2 * mqq + rho * (v[1] ** 2 * c12 + L1 * v[0] ** 2 * (c * c1 + s * c2)
                                   + 2 * v[1] * bqd)
          - rho * g * (np.sin(p[1]) * c1 + np.cos(p[1]) * c2) - _mv(KQ, q))
    out[3:] = fq
    return out


@_jit
def crank_G(p, L1, L2):
    r = L2 + p[6]
    G = np.zeros((3, 7), p.dtype)
    G[0, 0], G[0, 1], G[0, 6] = L1 * np.cos(p[0]), r * np.cos(p[1]), np.sin(p[1])
    G[1, 0], G[1, 1], G[1, 2], G[1, 6] = L1 * np.sin(p[0]), r * np.sin(p[1]), 1.0, -np.cos(p[1])
    G[2, 0] = 1.0
    return G


@_jit
def crank_M(p, A, V, S):
    """:func:`crank_mass` from the packed data ``A``: stacked 7x7 / 4x4 matrices, ``V``: 4-vectors,
    ``S``: scalars (see :func:`crank_data`)."""
    return crank_mass(p, A[0], A[1, :4, :4], V[0], V[1], V[2], V[3], A[3, :4, :4], S[0], S[1], S[6])


@_jit
def crank_f(p, v, A, V, S):
    """:func:`crank_forces` from the packed data (:func:`crank_M`)."""
    return crank_forces(p, v, A[1, :4, :4], A[2, :4, :4], A[3, :4, :4], V[0], V[1], V[2], S[0], S[1], S[2],
                        S[3], S[4], S[5])


@_jit
def crank_rhs(t, y, A, V, S):
    """The index-2 residual; ``A, V, S`` as in :func:`crank_M`."""
    n = 7
    p, v = y[:n], y[n:2 * n]
    g_t = np.zeros(3)
    g_t[2] = -S[7]
    out = np.empty(y.shape[0], y.dtype)
    _index2_residual(y, n, crank_M(p, A, V, S), crank_f(p, v, A, V, S), crank_G(p, S[1], S[2]), g_t, out)
    return out


# ---------------------------------------------------------------- index-2 Jacobians
ANDREWS, CRANK = 0, 1
#: placeholders of the crank's array arguments where Andrews' model runs
_NO_A, _NO_V = np.zeros((1, 1, 1)), np.zeros((1, 1))


@_jit
def _rhs(model, t, y, A, V, S):
    """The index-2 residual of ``model`` (``ANDREWS``: parameters ``S``; ``CRANK``: ``A, V, S``)."""
    if model == ANDREWS:
        return andrews_rhs(t, y, S)
    return crank_rhs(t, y, A, V, S)


@_jit
def _index2_jacobian(model, t, y, M, G, A, V, S):
    """The constant blocks from ``M`` and ``G``; the ``p`` and ``v`` columns of the nonlinear
    rows by complex steps of :func:`_rhs`."""
    n, N, m = M.shape[0], y.shape[0], G.shape[0]
    J = np.zeros((N, N))
    for i in range(2 * n):
        J[i, n + i] = 1.0
    for i in range(n):
        for j in range(n):
            J[2 * n + i, 2 * n + j] = -M[i, j]
        for k in range(m):
            J[2 * n + i, 3 * n + k] = -G[k, i]
            J[3 * n + k, n + i] = G[k, i]
    yc = y.astype(np.complex128)
    for k in range(2 * n):
        yc[k] += 1j * _H
        r = _rhs(model, t, yc, A, V, S)
        for i in range(2 * n, N):
            J[i, k] = r[i].imag / _H
        yc[k] = y[k]
    return J


@_jit
def andrews_jac(t, y, P):
    p = y[:7]
    return _index2_jacobian(ANDREWS, t, y, andrews_mass(p, P), andrews_G(p, P), _NO_A, _NO_V, P)


@_jit
def crank_jac(t, y, A, V, S):
    p = y[:7]
    return _index2_jacobian(CRANK, t, y, crank_M(p, A, V, S), crank_G(p, S[1], S[2]), A, V, S)


def crank_data(model):
    """The arrays ``(A, V, S)`` of :func:`crank_rhs` for a :class:`SimeonCrank` instance."""
    P = model.par
    A = np.zeros((4, 7, 7))
    A[0] = model.M0
    A[1, :4, :4], A[2, :4, :4], A[3, :4, :4] = model.MQ, model.KQ, model.BQ
    V = np.array([model.c1, model.c2, model.c12, model.c21], float)
    S = np.array([P["rho"], P["l1"], P["l2"], P["m1"], P["m2"], P["grav"], model.m12, P["omega"]], float)
    return A, V, S


def index2_functions(model):
    """``(f(t, y), jac(t, y))`` of the compiled index-2 form of ``model``, or None without numba."""
    if numba is None:
        return None
    name = type(model).__name__
    if name == "AndrewsSqueezer":
        P = model.kernel_data
        return (lambda t, y: andrews_rhs(t, y, P)), (lambda t, y: andrews_jac(t, y, P))
    if name == "SimeonCrank":
        A, V, S = model.kernel_data
        return (lambda t, y: crank_rhs(t, y, A, V, S)), (lambda t, y: crank_jac(t, y, A, V, S))
    return None


# ---------------------------------------------------------------- ODE form (for the scipy peers)
@_jit
def _augmented(M, G, f, gamma):
    """``(w, lambda)`` of ``[[M, G^T], [G, 0]] (w, lambda) = (f, -gamma)``."""
    n, m = M.shape[0], G.shape[0]
    A = np.zeros((n + m, n + m))
    A[:n, :n] = M
    A[:n, n:] = G.T
    A[n:, :n] = G
    rhs = np.empty(n + m)
    rhs[:n] = f
    rhs[n:] = -gamma
    return np.linalg.solve(A, rhs)


@_jit
def andrews_ode(t, x, P):
    n = 7
    p, v = x[:n], x[n:]
    G = andrews_G(p, P)
    Gc = andrews_G(p.astype(np.complex128) + 1j * _H * v, P)
    gamma = (Gc.imag / _H) @ v
    sol = _augmented(andrews_mass(p, P), G, andrews_forces(p, v, P), gamma)
    out = np.empty(2 * n)
    out[:n] = v
    out[n:] = sol[:n]
    return out


@_jit
def crank_ode(t, x, A, V, S):
    n = 7
    p, v = x[:n], x[n:]
    M, f, G = crank_M(p, A, V, S), crank_f(p, v, A, V, S), crank_G(p, S[1], S[2])
    Gc = crank_G(p.astype(np.complex128) + 1j * _H * v, S[1], S[2])
    gamma = (Gc.imag / _H) @ v
    sol = _augmented(M, G, f, gamma)
    out = np.empty(2 * n)
    out[:n] = v
    out[n:] = sol[:n]
    return out


def ode_functions(model):
    """``(rhs(t, x), jac(t, x))`` of the compiled ODE form (the Jacobian by forward differences,
    as :meth:`ConstrainedMBS.ode_jac`), or None without numba."""
    if numba is None:
        return None
    name = type(model).__name__
    if name == "AndrewsSqueezer":
        P = model.kernel_data
        rhs = lambda t, x: andrews_ode(t, np.asarray(x, float), P)
    elif name == "SimeonCrank":
        A, V, S = model.kernel_data
        rhs = lambda t, x: crank_ode(t, np.asarray(x, float), A, V, S)
    else:
        return None

    def jac(t, x, eps=1e-7):
        f0 = rhs(t, x)
        J = np.empty((len(x), len(x)))
        for k in range(len(x)):
            h = eps * max(1.0, abs(x[k]))
            xp = np.array(x, float)
            xp[k] += h
            J[:, k] = (rhs(t, xp) - f0) / h
        return J
    return rhs, jac


# ---------------------------------------------------------------- Radau IIA stage data
def _is_classic(data):
    return isinstance(data, tuple) and len(data) == 4 and isinstance(data[0], int)


def _is_classic_type(data):
    from numba import types
    return isinstance(data, types.BaseTuple) and len(data) == 4 and isinstance(data[0], types.Integer)


def classic_jacobian(t, y, data, J):
    """``J = df/dy`` of a classic problem with ``data = (model, A, V, S)`` (the Jacobian of
    :func:`index2_functions`, for :func:`phmech.solvers.radau_runs.radau_steps`)."""
    model, A, V, S = data
    if model == ANDREWS:
        J[:, :] = andrews_jac(t, y, S)
    else:
        J[:, :] = crank_jac(t, y, A, V, S)


@stage_kind(_is_classic, _is_classic_type, jacobian=classic_jacobian)
def classic_stage(i, t, Y, data, out):
    """Stage value of a classic problem: :func:`_rhs` with ``data = (model, A, V, S)``
    (Radau IIA's stage iteration, :func:`phmech.solvers.radau_kernels.stage_iteration`)."""
    model, A, V, S = data
    out[:] = _rhs(model, t, Y, A, V, S)


class CompiledRHS:
    """The compiled index-2 form of a classic problem as Radau IIA's stage source: ``f(t, y)``,
    the dense ``jacobian(t, y)`` and :meth:`stage_data` (the problem's ``compiled_rhs``)."""

    def __init__(self, model):
        name = type(model).__name__
        if name == "AndrewsSqueezer":
            self._data = (ANDREWS, _NO_A, _NO_V, model.kernel_data)
        elif name == "SimeonCrank":
            self._data = (CRANK, *model.kernel_data)
        else:
            raise ValueError(f"no compiled index-2 form of {name} (AndrewsSqueezer or SimeonCrank)")
        self.f, self.jacobian = index2_functions(model)      # the Jacobian dense, as the solver uses it

    def stage_data(self, times):
        """The model's kernel data (the same at every stage time)."""
        return self._data

    def run_data(self):
        """The stage data of every time (:func:`phmech.solvers.radau_runs.radau_steps`)."""
        return self._data


def compiled_rhs(model):
    """A :class:`CompiledRHS` of ``model``, or None without numba or for another model."""
    if numba is None or type(model).__name__ not in ("AndrewsSqueezer", "SimeonCrank"):
        return None
    return CompiledRHS(model)

"""The force elements between ports as compiled kernels: their strains, forces and exact derivatives.

Every element of :mod:`phmech.forces` is written in one form: a *strain*
``s(q)`` (``ns <= 6`` numbers: a length, an angle, a relative displacement
and rotation) whose rate is ``s' = B(q) e`` exactly, and a *stress*
``sigma(s, r)`` of the strain and its rate ``r = B e``.  The generalized
force on the efforts is ``f = -B(q)^T sigma``, so the power the element
takes is ``sigma . r``: with the linear law
``sigma = K (s - s0) + D r`` this is ``dV/dt + r^T D r`` with the potential
``V = 1/2 (s - s0)^T K (s - s0)``.

The elements (``I[k, TYPE]``):

* ``DAMPER``: a viscous damper between a port and the ground, ``s' = v``
  (the inertial port velocity, ``B = R Y``), ``sigma = c v``;
* ``SPRING``: point-to-point, ``s = |x_b - x_a|``,
  ``B = u^T [-R_a Y_a, R_b Y_b]`` with ``u`` the unit vector from a to b;
* ``TORSION``: the relative angle of a revolute joint.  Planar: the
  difference of the frame angles, ``B = W_b - W_a``.  Spatial: the relative
  rotation ``E = R_a^T R_b P0^T`` since the initial configuration has the
  quaternion ``p = conj(p_a) (x) p_b (x) conj(p_0)`` of the frames'
  quaternions (continuous along the motion, ``+1`` at the start; ``p_0``
  from the initial quaternions); with the axis ``n = d1 x d2`` (A's frame)
  ``phi = 2 atan2(n . p_v, p_0)``, continuous for ``|phi| < 2 pi`` (the
  quaternions' double cover: a full turn either way).  ``E' = [w]x E`` with
  ``w = R_a^T (omega_b - omega_a)`` is ``p' = 1/2 (0, w) (x) p`` and gives
  ``phi' = g . w`` (:func:`_twist`);
* ``BUSHING``: ``rho = R_a^T (x_b - x_a)`` (the position of b in A's frame)
  and a rotation measure: planar the angle difference, spatial the
  rotation vector ``theta = 2 atan2(|p_v|, p_0) p_v / |p_v|`` of ``E`` (the
  log map, continuous for ``|theta| < 2 pi``) with ``theta' = J^-1 w``
  (:func:`_rotation_vector`); ``rho' = R_a^T (v_b - v_a) + rho x Omega_a``.

The derivatives ``ds/dq`` and ``dB/dq`` that the Jacobian needs are taken by
the complex step of the same strain function (step ``1e-30``: no
subtraction, so exact to round-off), the derivatives by ``e`` in closed
form: ``df/de = -B^T D B``.

Packed data ``fd = (I, QI, F, PP, CI)``:

* ``I[k]``: the integers at the columns ``TYPE ... BOFF`` below;
* ``QI[k]``: 20 global ``q`` indices, 10 per port (position 3, rotation:
  one planar angle or 4 quaternion parameters, then up to 3 deformation
  variables of a flexible body whose port point moves with them), ``-1``
  where there is none;
* ``F[k]``: port positions (body frames), the ground point, ``s0``, ``K``
  and ``D`` (6 x 6, row-major, the first ``ns`` rows and columns used), the
  directions ``d1``, ``d2``, the initial relative quaternion ``p_0`` and the
  traces ``T_a``, ``T_b`` (3 x 3, row-major): the port point is
  ``x = r + R (s + T u)`` with ``u`` the port's deformation variables;
* ``PP``: the port rows ``Y_a, W_a, Y_b, W_b`` (3 rows each, padded,
  row-major) from ``I[k, POFF]``; ``CI``: the global ``e`` columns from
  ``I[k, COFF]`` (port a's, then port b's);
* ``LA[k]``: the handle of element ``k``'s user law (``I[k, LAW] == 1``), 0 for
  the linear law.

A user law ``sigma(s, r)`` of a one-strain element (a Python function of two
floats) is compiled when the element is packed (:func:`compile_law`: numba's
``njit`` applied to it, and to ``law_derivative`` where one is given, else the
derivatives by the complex step of the law itself) into a C function
``void(double s, double r, double *out)`` writing ``(sigma, dsigma/ds,
dsigma/dr)``; its address is the handle, which the kernels call through
:func:`law_values`.  So a model with such a law keeps the compiled path, and
the kernels, compiled once for every model, stay in the cache (the address is
data).  Run as Python (numba missing, or ``NUMBA_DISABLE_JIT=1``) the handle
names the law's Python evaluation (:data:`PYTHON_LAWS`).
"""
import itertools
import re
from collections import namedtuple

import numpy as np

from ..kernels.jit import borrowed, jit as _jit, numba
from ..math.jacobian_target import jac_add
from ..math.rotations import quadratic_into

#: the packed elements ``fd`` (see above)
ForcesData = namedtuple("ForcesData", "I QI F PP CI LA")

DAMPER, SPRING, TORSION, BUSHING = 0, 1, 2, 3
#: columns of ``I``: element type, strain size, port b present, columns of ports a and b, offsets
#: into CI and PP, rotation kinds of the ports (0 none, 1 planar angle, 2 quaternion), law
#: (0 linear, 1 a compiled user law, its handle in LA), planar (0/1), offset of the element's B values
TYPE, NS, HAS_B, NCA, NCB, COFF, POFF, KA, KB, LAW, PLANAR, BOFF = range(12)
N_INT = 12
#: offsets into ``F``
F_SA, F_SB, F_AT, F_S0, F_K, F_D, F_D1, F_D2, F_Q0, F_TA, F_TB = 0, 3, 6, 9, 15, 51, 87, 90, 93, 97, 106
N_FLOAT = 115
#: ``q`` columns of a port (frame position 3, rotation 4, deformation 3) and of an element
NQP = 10
NQE = 20
#: the complex step
STEP = 1e-30

#: the Python evaluations ``(s, r) -> (sigma, dsigma/ds, dsigma/dr)`` of the compiled user laws by
#: their handle, for the kernels run as Python
PYTHON_LAWS = {}
_HANDLES = itertools.count(1)


def law_values(handle, s, r, out):
    """``out[:3] = (sigma, dsigma/ds, dsigma/dr)`` of the user law ``handle`` at the strain ``s``
    and its rate ``r`` (in compiled code: a call of the law's C function at the address
    ``handle``)."""
    out[0], out[1], out[2] = PYTHON_LAWS[handle](s, r)


def _law_signature():
    from numba.core import types
    return types.void(types.float64, types.float64, types.CPointer(types.float64))


if numba is not None:
    from numba.extending import intrinsic, overload

    @intrinsic
    def _call_law(typingctx, handle, s, r, out):
        """Call the C function ``void(double, double, double *)`` at the address ``handle``."""
        from llvmlite import ir
        from numba.core import types

        def codegen(context, builder, signature, args):
            address, sv, rv, outv = args
            data = context.make_array(signature.args[3])(context, builder, outv).data
            fnty = ir.FunctionType(ir.VoidType(), [ir.DoubleType(), ir.DoubleType(), ir.DoubleType().as_pointer()])
            builder.call(builder.inttoptr(address, fnty.as_pointer()), [sv, rv, data])
            return context.get_dummy_value()
        return types.void(handle, s, r, out), codegen

    @overload(law_values)
    def _law_values_compiled(handle, s, r, out):
        def impl(handle, s, r, out):
            _call_law(handle, s, r, out)
        return impl


class LawError(TypeError):
    """A force element's user law that numba cannot compile."""


def _first_line(err):
    """The first line of numba's message that names the cause (without its terminal colours)."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(err))
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    useful = [ln for ln in lines if not ln.startswith(("During:", "File ", "^", "Failed in nopython"))]
    return (useful or lines or [type(err).__name__])[0]


def compile_law(law, law_derivative, name, python_evaluation):
    """The handle of the user law ``law(s, r) -> sigma`` of the force element ``name`` for
    :func:`law_values`, with its C function (kept alive by the caller): ``(handle, keep)``.

    ``law`` (and ``law_derivative(s, r) -> (dsigma/ds, dsigma/dr)``, optional) are compiled by
    ``numba.njit``; without ``law_derivative`` the derivatives are the complex step of ``law``,
    which must then accept complex arguments.  A law numba cannot compile raises
    :class:`LawError` naming the element.  Without compilation (numba missing,
    ``NUMBA_DISABLE_JIT=1``) the handle names ``python_evaluation(s, r) -> (sigma, dsigma/ds,
    dsigma/dr)`` and ``keep`` is None."""
    if numba is None or numba.config.DISABLE_JIT:
        handle = next(_HANDLES)
        PYTHON_LAWS[handle] = python_evaluation
        return handle, None
    from numba.core.registry import CPUDispatcher

    def jitted(fn):
        return fn if isinstance(fn, CPUDispatcher) else numba.njit(fn)

    what = "its law"
    try:
        lawj = jitted(law)
        lawj.compile("(float64, float64)")
        h = STEP
        if law_derivative is None:
            what = "its law with complex arguments (the complex step of its derivatives; give law_derivative)"
            lawj.compile("(complex128, float64)")
            lawj.compile("(float64, complex128)")

            def evaluate(s, r, p):
                out = numba.carray(p, 3)
                out[0] = lawj(s, r)
                out[1] = lawj(s + 1j * h, r).imag / h
                out[2] = lawj(s, r + 1j * h).imag / h
        else:
            what = "its law_derivative"
            derj = jitted(law_derivative)
            derj.compile("(float64, float64)")

            def evaluate(s, r, p):
                out = numba.carray(p, 3)
                out[0] = lawj(s, r)
                d = derj(s, r)
                out[1] = d[0]
                out[2] = d[1]
        what = "its law (as sigma(s, r) -> float)"
        cf = numba.cfunc(_law_signature())(evaluate)
    except Exception as err:
        raise LawError(f"force element '{name}': numba cannot compile {what}: {_first_line(err)} (a law "
                       "is a function of two floats, written with arithmetic, math and numpy calls on "
                       "scalars)") from None
    handle = int(cf.address)
    PYTHON_LAWS[handle] = python_evaluation
    return handle, cf


@_jit
def _catan2(y, x):
    """``atan2`` of complex arguments to first order in their imaginary parts (complex step)."""
    xr, yr = x.real, y.real
    return np.arctan2(yr, xr) + 1j * ((xr * y.imag - yr * x.imag) / (xr * xr + yr * yr))


@_jit
def _port(qc, o, kind, F, fo, to, PP, po, nc, x, R, Av, Aw):
    """Port at local ``q`` offset ``o``: point ``x = r + R (s + T u)`` (``s = F[fo:fo + 3]``,
    ``T = F[to:to + 9]``, ``u = qc[o + 7:o + 10]``), frame rotation ``R`` and the inertial velocity
    and angular velocity rows ``Av = R Y``, ``Aw = R W`` (``Y``, ``W`` from ``PP[po:]``, 3 x ``nc``
    each)."""
    R[:, :] = 0.0
    if kind == 2:
        quadratic_into(qc[o + 3], qc[o + 4], qc[o + 5], qc[o + 6], R)
        n2 = qc[o + 3] ** 2 + qc[o + 4] ** 2 + qc[o + 5] ** 2 + qc[o + 6] ** 2
        for a in range(3):
            for b in range(3):
                R[a, b] = R[a, b] / n2
    elif kind == 1:
        c, s = np.cos(qc[o + 3]), np.sin(qc[o + 3])
        R[0, 0], R[0, 1], R[1, 0], R[1, 1], R[2, 2] = c, -s, s, c, 1.0
    else:
        R[0, 0], R[1, 1], R[2, 2] = 1.0, 1.0, 1.0
    for a in range(3):
        x[a] = qc[o + a]
        for b in range(3):
            sb = F[fo + b] + F[to + 3 * b] * qc[o + 7] + F[to + 3 * b + 1] * qc[o + 8] + F[to + 3 * b + 2] * qc[o + 9]
            x[a] += R[a, b] * sb
    for c in range(nc):
        for a in range(3):
            av = 0.0 * R[0, 0]
            aw = 0.0 * R[0, 0]
            for b in range(3):
                av += R[a, b] * PP[po + b * nc + c]
                aw += R[a, b] * PP[po + (3 + b) * nc + c]
            Av[a, c] = av
            Aw[a, c] = aw


@_jit
def _relative_quaternion(qc, ka, kb, f, p):
    """``p = conj(p_a) (x) p_b (x) conj(p_0)``, the quaternion of ``E = R_a^T R_b P0^T`` (``p_a``,
    ``p_b`` the frames' quaternions, the identity for the ground; ``p_0 = F[F_Q0:]``), unnormalized
    and continuous along the motion (the frames' quaternions are)."""
    one, zero = 1.0 + 0.0 * qc[0], 0.0 * qc[0]
    a0, a1, a2, a3 = (qc[3], -qc[4], -qc[5], -qc[6]) if ka == 2 else (one, zero, zero, zero)
    b0, b1, b2, b3 = (qc[NQP + 3], qc[NQP + 4], qc[NQP + 5], qc[NQP + 6]) if kb == 2 else (one, zero, zero, zero)
    c0 = a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3
    c1 = a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2
    c2 = a0 * b2 + a2 * b0 + a3 * b1 - a1 * b3
    c3 = a0 * b3 + a3 * b0 + a1 * b2 - a2 * b1
    d0, d1, d2, d3 = f[F_Q0], -f[F_Q0 + 1], -f[F_Q0 + 2], -f[F_Q0 + 3]
    p[0] = c0 * d0 - c1 * d1 - c2 * d2 - c3 * d3
    p[1] = c0 * d1 + c1 * d0 + c2 * d3 - c3 * d2
    p[2] = c0 * d2 + c2 * d0 + c3 * d1 - c1 * d3
    p[3] = c0 * d3 + c3 * d0 + c1 * d2 - c2 * d1


@_jit
def _twist(p, f, Wa, nc, s, B):
    """The angle about the axis ``n = d1 x d2``: ``phi = 2 atan2(n . p_v, p_0)`` of the relative
    quaternion ``p`` (continuous along the motion while ``|phi| < 2 pi``) and its rate rows
    ``phi' = g . w``, ``g = (p_0 (p_0 n + p_v x n) + y p_v) / (p_0^2 + y^2)`` with ``y = n . p_v``
    (from ``p' = 1/2 (0, w) (x) p``)."""
    d1, d2 = f[F_D1:F_D1 + 3], f[F_D2:F_D2 + 3]
    n = (d1[1] * d2[2] - d1[2] * d2[1], d1[2] * d2[0] - d1[0] * d2[2], d1[0] * d2[1] - d1[1] * d2[0])
    x = p[0]
    y = n[0] * p[1] + n[1] * p[2] + n[2] * p[3]
    s[0] = 2.0 * _catan2(y, x)
    vn = (p[2] * n[2] - p[3] * n[1], p[3] * n[0] - p[1] * n[2], p[1] * n[1] - p[2] * n[0])
    den = x * x + y * y
    g0 = (x * (x * n[0] + vn[0]) + y * p[1]) / den
    g1 = (x * (x * n[1] + vn[1]) + y * p[2]) / den
    g2 = (x * (x * n[2] + vn[2]) + y * p[3]) / den
    for c in range(nc):
        B[0, c] = g0 * Wa[0, c] + g1 * Wa[1, c] + g2 * Wa[2, c]


@_jit
def _rotation_vector(p, Wa, nc, s, B):
    """The rotation vector ``theta = 2 atan2(|p_v|, p_0) p_v / |p_v|`` of the relative quaternion
    ``p`` (the log map of ``E``, continuous along the motion while ``|theta| < 2 pi``) into
    ``s[3:6]``, and its rate rows ``theta' = J^-1 w`` into ``B[3:6]``, with
    ``J^-1 = I - 1/2 [theta]x + c [theta]x^2``, ``c = (1 - a cot a) / (4 a^2)``, ``a = |theta| / 2``
    (series for small angles)."""
    x = p[0]
    s2 = p[1] * p[1] + p[2] * p[2] + p[3] * p[3]
    if x.real > 0.0 and s2.real <= 1e-4 * x.real * x.real:
        t = s2 / (x * x)
        fac = 2.0 / x * (1.0 - t / 3.0 + t * t / 5.0 - t * t * t / 7.0)
    else:
        sn = np.sqrt(s2)
        fac = 2.0 * _catan2(sn, x) / sn
    th = (fac * p[1], fac * p[2], fac * p[3])
    a2 = 0.25 * fac * fac * s2                  # (|theta| / 2)^2
    if a2.real < 2.5e-3:
        cc = 1.0 / 12.0 + a2 / 180.0 + a2 * a2 / 1890.0 + a2 * a2 * a2 / 18900.0
    else:
        a = np.sqrt(a2)
        cc = (1.0 - a * x / np.sqrt(s2)) / (4.0 * a2)
    t2 = 4.0 * a2
    for a in range(3):
        s[3 + a] = th[a]
    for c in range(nc):
        w0, w1, w2 = Wa[0, c], Wa[1, c], Wa[2, c]
        tw = th[0] * w0 + th[1] * w1 + th[2] * w2
        cr = (th[1] * w2 - th[2] * w1, th[2] * w0 - th[0] * w2, th[0] * w1 - th[1] * w0)
        for a in range(3):
            B[3 + a, c] = Wa[a, c] - 0.5 * cr[a] + cc * (th[a] * tw - t2 * Wa[a, c])


@_jit
def _strain(ik, f, PP, qc, s, B, xa, xb, Ra, Rb, Ava, Awa, Avb, Awb):
    """Strain ``s`` and rate rows ``B`` (ns x columns of a, then b) of one element at the local
    configuration ``qc`` (complex: the complex step passes through)."""
    typ, nca, ncb = ik[TYPE], ik[NCA], ik[NCB]
    _port(qc, 0, ik[KA], f, F_SA, F_TA, PP, ik[POFF], nca, xa, Ra, Ava, Awa)
    if ik[HAS_B]:
        _port(qc, NQP, ik[KB], f, F_SB, F_TB, PP, ik[POFF] + 6 * nca, ncb, xb, Rb, Avb, Awb)
    else:
        Rb[:, :] = 0.0
        for a in range(3):
            xb[a] = f[F_AT + a]
            Rb[a, a] = 1.0
    B[:, :] = 0.0
    s[:] = 0.0
    if typ == DAMPER:
        for a in range(3):
            s[a] = xa[a]
            for c in range(nca):
                B[a, c] = Ava[a, c]
    elif typ == SPRING:
        d0, d1, d2 = xb[0] - xa[0], xb[1] - xa[1], xb[2] - xa[2]
        ln = np.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
        s[0] = ln
        u0, u1, u2 = d0 / ln, d1 / ln, d2 / ln
        for c in range(nca):
            B[0, c] = -(u0 * Ava[0, c] + u1 * Ava[1, c] + u2 * Ava[2, c])
        for c in range(ncb):
            B[0, nca + c] = u0 * Avb[0, c] + u1 * Avb[1, c] + u2 * Avb[2, c]
    else:
        # relative quantities in A's frame: w rows (R_a^T Aw), the quaternion of E = R_a^T R_b P0^T
        d = np.empty(3, xa.dtype)
        for a in range(3):
            d[a] = xb[a] - xa[a]
        if ik[PLANAR]:
            tha = qc[3] if ik[KA] == 1 else 0.0 * qc[0]
            thb = qc[NQP + 3] if ik[KB] == 1 else 0.0 * qc[0]
            phi = thb - tha
            r0 = 0 if typ == TORSION else 2          # the angle's row
            s[r0] = phi
            for c in range(nca):
                B[r0, c] = -Awa[2, c]
            for c in range(ncb):
                B[r0, nca + c] = Awb[2, c]
        else:
            p = np.empty(4, xa.dtype)      # the relative quaternion of E = R_a^T R_b P0^T
            _relative_quaternion(qc, ik[KA], ik[KB] if ik[HAS_B] else 0, f, p)
            Wa = np.zeros((3, nca + ncb), xa.dtype)      # rows of w = R_a^T (omega_b - omega_a)
            for a in range(3):
                for c in range(nca):
                    Wa[a, c] = -(Ra[0, a] * Awa[0, c] + Ra[1, a] * Awa[1, c] + Ra[2, a] * Awa[2, c])
                for c in range(ncb):
                    Wa[a, nca + c] = Ra[0, a] * Awb[0, c] + Ra[1, a] * Awb[1, c] + Ra[2, a] * Awb[2, c]
            if typ == TORSION:
                _twist(p, f, Wa, nca + ncb, s, B)
            else:
                _rotation_vector(p, Wa, nca + ncb, s, B)
        if typ == BUSHING:
            rho = np.empty(3, xa.dtype)
            for a in range(3):
                rho[a] = Ra[0, a] * d[0] + Ra[1, a] * d[1] + Ra[2, a] * d[2]
            nrow = 2 if ik[PLANAR] else 3
            for a in range(nrow):
                s[a] = rho[a]
            # rho' = R_a^T (v_b - v_a) + rho x (R_a^T omega_a)
            for a in range(nrow):
                a1, a2 = (a + 1) % 3, (a + 2) % 3
                for c in range(nca):
                    acc = 0.0 * xa[0]
                    for m in range(3):
                        acc -= Ra[m, a] * Ava[m, c]
                        acc += (rho[a1] * Ra[m, a2] - rho[a2] * Ra[m, a1]) * Awa[m, c]
                    B[a, c] = acc
                for c in range(ncb):
                    B[a, nca + c] = Ra[0, a] * Avb[0, c] + Ra[1, a] * Avb[1, c] + Ra[2, a] * Avb[2, c]


@_jit
def _scratch(I):
    """Complex work arrays of :func:`_strain` for the largest element."""
    nc = 1
    for k in range(I.shape[0]):
        nc = max(nc, I[k, NCA], I[k, NCB])
    c = np.complex128
    return (np.zeros(6, c), np.zeros((6, 2 * nc), c), np.zeros(3, c), np.zeros(3, c), np.zeros((3, 3), c),
            np.zeros((3, 3), c), np.zeros((3, nc), c), np.zeros((3, nc), c), np.zeros((3, nc), c),
            np.zeros((3, nc), c))


@_jit
def _local(q, qi, qc):
    for m in range(NQE):
        qc[m] = q[qi[m]] if qi[m] >= 0 else 0.0


@_jit
def forces_strains(q, e, fd, S, Rr, Bv):
    """Strains ``S[k, :ns]``, their rates ``Rr[k, :ns] = B e`` and the values of ``B`` (element
    ``k`` from ``Bv[I[k, BOFF]]``, ns x columns, row-major) of every element."""
    I, QI, F, PP, CI = fd[0], fd[1], fd[2], fd[3], fd[4]
    s, B, xa, xb, Ra, Rb, Ava, Awa, Avb, Awb = _scratch(I)
    qc = np.zeros(NQE, np.complex128)
    for k in range(I.shape[0]):
        ik = I[k]
        _local(q, QI[k], qc)
        _strain(ik, F[k], PP, qc, s, B, xa, xb, Ra, Rb, Ava, Awa, Avb, Awb)
        ns, nc, co, bo = ik[NS], ik[NCA] + ik[NCB], ik[COFF], ik[BOFF]
        for i in range(ns):
            S[k, i] = s[i].real
            acc = 0.0
            for c in range(nc):
                b = B[i, c].real
                Bv[bo + i * nc + c] = b
                acc += b * e[CI[co + c]]
            Rr[k, i] = acc


@_jit
def forces_laws(fd, S, Rr, Sig, Ks, Dr):
    """The stresses ``Sig`` and their derivatives ``Ks = dsigma/ds``, ``Dr = dsigma/dr`` (6 x 6
    rows) of every element: ``sigma = K (s - s0) + D r`` of the linear law (``I[k, LAW] == 0``),
    or the compiled user law of ``LA[k]`` (:func:`law_values`)."""
    I, F, LA = fd[0], fd[2], fd[5]
    out = np.empty(3)
    for k in range(I.shape[0]):
        if I[k, LAW] != 0:
            law_values(LA[k], S[k, 0], Rr[k, 0], out)
            Sig[k, 0], Ks[k, 0], Dr[k, 0] = out[0], out[1], out[2]
            continue
        ns = I[k, NS]
        f = F[k]
        for i in range(ns):
            acc = 0.0
            for j in range(ns):
                kij, dij = f[F_K + 6 * i + j], f[F_D + 6 * i + j]
                acc += kij * (S[k, j] - f[F_S0 + j]) + dij * Rr[k, j]
                Ks[k, 6 * i + j] = kij
                Dr[k, 6 * i + j] = dij
            Sig[k, i] = acc


@_jit
def forces_apply(fd, Bv, Sig, fe):
    """``fe[cols] -= B^T sigma`` of every element."""
    I, CI = fd[0], fd[4]
    for k in range(I.shape[0]):
        ns, nc, co, bo = I[k, NS], I[k, NCA] + I[k, NCB], I[k, COFF], I[k, BOFF]
        for c in range(nc):
            acc = 0.0
            for i in range(ns):
                acc += Bv[bo + i * nc + c] * Sig[k, i]
            fe[CI[co + c]] -= acc


@_jit
def _sizes(I):
    nb = 0
    for k in range(I.shape[0]):
        nb += I[k, NS] * (I[k, NCA] + I[k, NCB])
    return nb


@_jit
def has_force_elements(fd):
    """Whether the packed force elements (:meth:`phmech.forces.ForceGroup.kernel_data`) have a
    member (the compiled residual calls their kernels only then)."""
    return fd[0].shape[0] > 0


@_jit
def forces_add(t, q, e, fd, fe):
    """``fe += f`` of the elements (the kernel family's forces)."""
    I = fd[0]
    n = I.shape[0]
    S, Rr, Sig = np.zeros((n, 6)), np.zeros((n, 6)), np.zeros((n, 6))
    Ks, Dr = np.zeros((n, 36)), np.zeros((n, 36))
    Bv = np.empty(_sizes(I))
    forces_strains(q, e, fd, S, Rr, Bv)
    forces_laws(fd, S, Rr, Sig, Ks, Dr)
    forces_apply(fd, Bv, Sig, fe)


@_jit
def forces_derivatives(q, e, fd, Sig, Ks, Dr, Vq, Ve):
    """Values of ``df/dq`` (``Vq[k]``: columns x the 20 ``q`` of the element) and ``df/de``
    (``Ve[k]``: columns x columns) of every element, with the stresses ``Sig`` and their
    derivatives ``Ks = dsigma/ds``, ``Dr = dsigma/dr`` (6 x 6 rows) at the same point."""
    I, QI, F, PP, CI = fd[0], fd[1], fd[2], fd[3], fd[4]
    s, B, xa, xb, Ra, Rb, Ava, Awa, Avb, Awb = _scratch(I)
    qc = np.zeros(NQE, np.complex128)
    B0 = np.zeros_like(B)
    ds, dr, dsig = np.zeros(6), np.zeros(6), np.zeros(6)
    for k in range(I.shape[0]):
        ik = I[k]
        ns, nc, co = ik[NS], ik[NCA] + ik[NCB], ik[COFF]
        _local(q, QI[k], qc)
        _strain(ik, F[k], PP, qc, s, B, xa, xb, Ra, Rb, Ava, Awa, Avb, Awb)
        for i in range(ns):
            for c in range(nc):
                B0[i, c] = B[i, c]
        for c1 in range(nc):
            for c2 in range(nc):
                acc = 0.0
                for i in range(ns):
                    for j in range(ns):
                        acc += B0[i, c1].real * Dr[k, 6 * i + j] * B0[j, c2].real
                Ve[k, c1, c2] = -acc
        for m in range(NQE):
            if QI[k, m] < 0:
                for c in range(nc):
                    Vq[k, c, m] = 0.0
                continue
            qc[m] += 1j * STEP
            _strain(ik, F[k], PP, qc, s, B, xa, xb, Ra, Rb, Ava, Awa, Avb, Awb)
            qc[m] -= 1j * STEP
            for i in range(ns):
                ds[i] = s[i].imag / STEP
                acc = 0.0
                for c in range(nc):
                    acc += B[i, c].imag / STEP * e[CI[co + c]]
                dr[i] = acc
            for i in range(ns):
                acc = 0.0
                for j in range(ns):
                    acc += Ks[k, 6 * i + j] * ds[j] + Dr[k, 6 * i + j] * dr[j]
                dsig[i] = acc
            for c in range(nc):
                acc = 0.0
                for i in range(ns):
                    acc += B[i, c].imag / STEP * Sig[k, i] + B0[i, c].real * dsig[i]
                Vq[k, c, m] = -acc


@_jit
def forces_residual_add(t, q, e, lam, fd, out, fe, fl):
    """The family's part of the residual: the forces of the elements added to ``fe``."""
    forces_add(t, q, e, fd, fe)


@_jit
def forces_jacobian_add(t, q, e, lam, fd, act, J, nq):
    """The derivatives of the elements' forces added to the Jacobian target ``J``: rows ``nq + e``
    column, ``q`` columns as they are, ``e`` columns from ``nq``."""
    J = borrowed(J)              # no reference counts of the target's arrays in the writes
    r0 = ce = nq
    I, QI, CI = fd[0], fd[1], fd[4]
    n = I.shape[0]
    nc = 1
    for k in range(n):
        nc = max(nc, I[k, NCA] + I[k, NCB])
    S, Rr, Sig = np.zeros((n, 6)), np.zeros((n, 6)), np.zeros((n, 6))
    Ks, Dr = np.zeros((n, 36)), np.zeros((n, 36))
    Bv = np.empty(_sizes(I))
    forces_strains(q, e, fd, S, Rr, Bv)
    forces_laws(fd, S, Rr, Sig, Ks, Dr)
    Vq, Ve = np.zeros((n, nc, NQE)), np.zeros((n, nc, nc))
    forces_derivatives(q, e, fd, Sig, Ks, Dr, Vq, Ve)
    for k in range(n):
        co, nck = I[k, COFF], I[k, NCA] + I[k, NCB]
        for c in range(nck):
            row = r0 + CI[co + c]
            for m in range(NQE):
                if QI[k, m] >= 0:
                    jac_add(J, row, QI[k, m], Vq[k, c, m])
            for c2 in range(nck):
                jac_add(J, row, ce + CI[co + c2], Ve[k, c, c2])

"""The rows of the spatial joints and their exact derivatives, as compiled kernels.

The one implementation of the formulas of :mod:`phmech.joints.spatial`
(see its docstring for the rows).  :class:`~phmech.joints.spatial.SpatialGroup`
packs its joints with :meth:`~phmech.joints.spatial.SpatialGroup.kernel_data`
into the tuple ``sj = (I, QI, F, PP, CI, Gr, Gc, Ar, Ac, Br, Bc)``:

* ``I[j]``: integers of joint ``j`` (the columns ``T_MODE ... ROW0`` below);
* ``QI[j]``: the 26 global ``q`` indices the rows depend on: the position (3)
  and the rotation parameters (up to 9: a quaternion's 4, a section matrix's 9,
  codes ``I[j, KIND_A]``, ``I[j, KIND_B]`` of :data:`~phmech.math.rotations.ROTATION_CODES`)
  of port ``a``'s frame (:meth:`~phmech.bodies.base.Body.port_frame`), then of port
  ``b``'s, then the gauge coordinates of the ports' rotation rows (see below);
  ``-1`` where there is none (the ground, a body without orientation, a port
  without gauge);
* ``I[j, YI_A]``, ``I[j, YI_B]``: 1 where a port's velocity rows ``Y`` give inertial
  components (the nodes of the exact spatial beam), 0 where they give components in the
  port's frame (every framed body); the translation rows turn ``Y e`` by the frame only then;
* ``F[j]``: the geometry (port positions, ground point, normal directions
  ``D``, axis, second cross axis) and the ports' gauges at the offsets ``F_*``;
* ``PP``: the port rows ``Y_a, W_a, Y_b, W_b`` (3 x columns each, row-major)
  from ``I[j, POFF]``; ``CI``: the global ``e`` columns of the ports from
  ``I[j, COFF]``;
* the fixed patterns of the values the kernels compute: ``G`` on
  ``(Gr, Gc)`` (``lam`` row, ``e`` column), ``d(G^T lam)/dq`` on
  ``(Ar, Ac)`` (``e`` row, ``q`` column) and ``d(G e)/dq`` on ``(Br, Bc)``
  (``lam`` row, ``q`` column), ``q`` columns ``-1`` where ``QI`` has none.

:func:`spatial_joints_G_triplets` gives ``G`` on its pattern,
:func:`spatial_joints_derivatives` the values of ``G`` and both
derivatives, which :func:`spatial_joints_jacobian_add` adds to the dense
Jacobian of the compiled residual; the assembled Python right-hand side and
the compiled residual both call them;
with numba's ``NUMBA_DISABLE_JIT=1`` the same source runs as Python.

A port whose rotation rows are scaled by a frame gauge (the root of a
consistent spatial beam, whose frame turns at ``(omega_1, sigma omega_2,
sigma omega_3)``, :mod:`phmech.math.gauge`) has ``sigma = d / (d + c q_g)``
on chosen rows of ``W``.  ``G`` is linear in the port rows, so the kernels
evaluate a gauged joint on its rows with ``W`` scaled by ``sigma`` and the
derivative by ``q_g`` as ``d sigma / d q_g`` times ``G`` of the unscaled
gauged rows alone (:func:`_joint_blocks_rows`).

A *tangent section* (code :data:`TANGENT_SECTION`: the end ``B`` of a consistent spatial beam)
turns with ``R = R_f Lambda(t, phi)``, its body frame's rotation times the frame of its tangent
``t`` and twist ``phi`` (:mod:`phmech.math.tangent_frame`; ``t``, ``phi`` affine in one ``q``
entry each, after the quaternion in the port's ``q`` columns), and its rotation rows in its own
axes are exact: ``W(q) e = Lambda^T Omega + P(t, phi) t' + e_1 phi'`` with the frame's rate
``Omega`` (gauged), ``t' = A e + t x Omega`` and ``phi' = s e - Omega_1`` from its base rows
``A`` (the tangent's rate ``a'``), ``Wf`` (the frame's angular velocity) and ``s`` (the spin),
stored after the joint's four blocks at ``I[j, TIP_A]``, ``I[j, TIP_B]``.  Its velocity rows are
in the body frame's axes (turned by ``R_f``).  The derivatives of ``W(q)`` by the tangent, the
twist and the gauge are complex steps (exact to round-off); those of ``Lambda`` too.
"""
from collections import namedtuple

import numpy as np

from ..kernels.jit import borrowed, inline as _jit_inline, jit as _jit
from ..math.gauge import frame_scale
from ..math.jacobian_target import jac_add
from ..math.rotations import N_ROTATION, frame_rotation, quat_rotation
from ..math.tangent_frame import COMPLEX_STEP, frame_derivatives, tangent_frame, tangent_rate_map
from .constraint_kernels import add_G_jacobian, add_G_terms

#: the packed joints ``sj`` (see above)
SpatialJointsData = namedtuple("SpatialJointsData", "I QI F PP CI Gr Gc Ar Ac Br Bc")

#: columns of ``I``: translation rows (0 all, to the ground in body axes; 1 all; 2 normal to the
#: axis), rotation rows (0 none; 1 normal to the axis; 2 cross axes; 3 all), driver (0/1), rows,
#: columns of port a and b, offsets into the values of G, into PP, into the values of
#: d(G^T lam)/dq and of d(G e)/dq, port b present (0/1), offset into CI, first multiplier row,
#: the rotation codes of the frames of ports a and b, and whether their velocity rows ``Y`` give
#: inertial components (1, the exact beam's nodes) or components in the port's frame (0)
#: and the offsets (from the joint's ``POFF``) of a section port's base rows (-1: none; below)
T_MODE, R_MODE, DRIVEN, NR, NA, NB, GOFF, POFF, AOFF, BOFF, HAS_B, COFF, ROW0, KIND_A, KIND_B, YI_A, YI_B, \
    TIP_A, TIP_B = range(19)
N_INT = 19
#: the code of a port whose section follows its body's tangent and twist (:data:`KIND_A`)
TANGENT_SECTION = 4
#: offsets into ``F``: port positions of a and b (body frames), ground point, the normal
#: directions d1, d2 and the axis (A's frame), the second cross axis (B's frame), the gauges of
#: the rotation rows of ports a and b (``d, c`` and a flag per row of ``W``)
#: and of the section ports' tangent and twist ``th_j = F[F_TIP + 8 p + 4 + j] + F[F_TIP + 8 p + j] q_j``
F_POS_A, F_POS_B, F_AT, F_D1, F_D2, F_AXIS, F_CROSS, F_GAUGE, F_TIP = 0, 3, 6, 9, 12, 15, 18, 21, 31
N_FLOAT = 47
#: ``q`` columns of a port's frame (its position and up to 9 rotation parameters)
NQP = 12
#: ``q`` columns of a joint (the frames of both ports, the ports' gauge coordinates)
NQJ = 2 * NQP + 2
#: the first of the gauge columns
QG = 2 * NQP


@_jit
def n_params(code):
    """The rotation parameters of a port frame of code ``code`` (a tangent section's: the
    quaternion, then its tangent and twist)."""
    return 8 if code == TANGENT_SECTION else N_ROTATION[code]


@_jit
def tangent_of(q, qi, o, f, ft, th):
    """A tangent section's ``th = (t, phi)`` from its ``q`` columns ``qi[o + 7:o + 11]``."""
    for j in range(4):
        th[j] = f[ft + 4 + j] + f[ft + j] * q[qi[o + 7 + j]]


@_jit
def _port_frame(q, qi, o, code, f, fo, ft, R, dR, RY, dRY, x, dx, deriv):
    """Rotation ``R`` of code ``code`` (with ``deriv`` also ``dR/dp``), the rotation ``RY`` that
    turns the port's velocity rows (``R``; the identity for inertial rows, set by the caller; the
    body frame's for a tangent section, whose ``R = R_f Lambda(t, phi)``, ``th`` from
    ``f[ft:ft + 8]``) and the port point ``x = r + RY s`` with ``dx`` over the port frame's
    :data:`NQP` columns ``qi[o:o + NQP]`` (``s = f[fo:fo + 3]``)."""
    if code == TANGENT_SECTION:
        quat_rotation(q, qi[o + 3], RY, dRY, deriv)
        th = np.empty(4)
        tangent_of(q, qi, o, f, ft, th)
        Lam = np.empty((3, 3))
        tangent_frame(th, Lam)
        for a in range(3):
            for b in range(3):
                R[a, b] = RY[a, 0] * Lam[0, b] + RY[a, 1] * Lam[1, b] + RY[a, 2] * Lam[2, b]
        if deriv:
            dL = np.empty((4, 3, 3))
            frame_derivatives(th, dL)
            for m in range(4):
                for a in range(3):
                    for b in range(3):
                        dR[m, a, b] = dRY[m, a, 0] * Lam[0, b] + dRY[m, a, 1] * Lam[1, b] + dRY[m, a, 2] * Lam[2, b]
                        dR[4 + m, a, b] = f[ft + m] * (RY[a, 0] * dL[m, 0, b] + RY[a, 1] * dL[m, 1, b]
                                                       + RY[a, 2] * dL[m, 2, b])
        ny = 4
    else:
        frame_rotation(q, code, qi[o + 3] if code != 0 else 0, R, dR, deriv)
        for a in range(3):
            for b in range(3):
                RY[a, b] = R[a, b]
                if deriv:
                    for m in range(N_ROTATION[code]):
                        dRY[m, a, b] = dR[m, a, b]
        ny = N_ROTATION[code]
    for a in range(3):
        x[a] = q[qi[o + a]] if qi[o + a] >= 0 else 0.0
        for b in range(3):
            x[a] += RY[a, b] * f[fo + b]
        if deriv:
            for k in range(NQP):
                dx[a, k] = 0.0
            if qi[o + a] >= 0:
                dx[a, a] = 1.0
            for m in range(ny):
                s = 0.0
                for b in range(3):
                    s += dRY[m, a, b] * f[fo + b]
                dx[a, 3 + m] = s


@_jit_inline
def _identity(R):
    for a in range(3):
        for b in range(3):
            R[a, b] = 1.0 if a == b else 0.0


@_jit_inline
def _dot_cols(u, PP, off, n, out, r, c0):
    """``out[r, c0 + c] = u . X[:, c]`` for the 3 x n port rows ``X = PP[off:]``."""
    for c in range(n):
        out[r, c0 + c] = u[0] * PP[off + c] + u[1] * PP[off + n + c] + u[2] * PP[off + 2 * n + c]


@_jit_inline
def _dot_cols_d(u, PP, off, n, dG, r, c0, k, sign):
    """``dG[r, c0 + c, k] += sign * u . X[:, c]`` (as :func:`_dot_cols`)."""
    for c in range(n):
        dG[r, c0 + c, k] += sign * (u[0] * PP[off + c] + u[1] * PP[off + n + c] + u[2] * PP[off + 2 * n + c])


@_jit_inline
def _tmul(M, v, u):
    """``u = M^T v``."""
    for b in range(3):
        u[b] = M[0, b] * v[0] + M[1, b] * v[1] + M[2, b] * v[2]


@_jit_inline
def _cross(a, b, out):
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@_jit
def workspace(I):
    """Scratch arrays of :func:`joint_blocks` for the joints ``I`` (allocated once per call)."""
    ncmax = 1
    for j in range(I.shape[0]):
        ncmax = max(ncmax, I[j, NA] + I[j, NB])
    return (np.empty((6, ncmax)), np.empty((6, ncmax, NQJ)), np.empty((5, 3, 3)), np.empty((6, 9, 3, 3)),
            np.empty((16, 3)), np.empty((2, 3, NQP)), np.empty((3, NQJ)))


@_jit
def joint_blocks(q, ij, qi, f, PP, deriv, ws):
    """Local ``G`` of one joint (rows x port columns of a then b) into ``ws[0]`` and, with
    ``deriv``, ``dG[r, c, k] = dG[r, c]/dq_k`` over its :data:`NQJ` columns into ``ws[1]``
    (``ws`` from :func:`workspace`)."""
    G, dG, M3, M4, V, X, drho = ws
    RA, RB, P, RYa, RYb = M3[0], M3[1], M3[2], M3[3], M3[4]
    dRA, dRB, dPa, dPb, dRYa, dRYb = M4[0], M4[1], M4[2], M4[3], M4[4], M4[5]
    xa, xb, d, u, v, rho, delta, dr = V[0], V[1], V[2], V[3], V[4], V[5], V[6], V[7]
    ax, cr, c1, c2, n, dc, dn = V[8], V[9], V[10], V[11], V[12], V[13], V[14]
    dxa, dxb = X[0], X[1]
    tmode, rmode, driven, nr, na, nb = ij[T_MODE], ij[R_MODE], ij[DRIVEN], ij[NR], ij[NA], ij[NB]
    hasb = ij[HAS_B] == 1
    npa, npb = n_params(ij[KIND_A]), n_params(ij[KIND_B]) if hasb else 0
    yia, yib = ij[YI_A] == 1, ij[YI_B] == 1
    # the parameters that turn the velocity rows (none for inertial rows; a tangent section's: its
    # body frame's quaternion)
    nya = 0 if yia else (4 if ij[KIND_A] == TANGENT_SECTION else npa)
    nyb = 0 if (yib or not hasb) else (4 if ij[KIND_B] == TANGENT_SECTION else npb)
    ob = NQP + 3                         # the first rotation column of port b
    ya = ij[POFF]
    wa = ya + 3 * na
    yb = wa + 3 * na
    wb = yb + 3 * nb
    nc = na + nb
    _port_frame(q, qi, 0, ij[KIND_A], f, F_POS_A, F_TIP, RA, dRA, RYa, dRYa, xa, dxa, deriv)
    if yia:
        _identity(RYa)
    if hasb:
        _port_frame(q, qi, NQP, ij[KIND_B], f, F_POS_B, F_TIP + 8, RB, dRB, RYb, dRYb, xb, dxb, deriv)
        if yib:
            _identity(RYb)
    else:
        RB[:, :] = 0.0
        dRB[:, :, :] = 0.0
        dxb[:, :] = 0.0
        _identity(RYb)
        for a in range(3):
            RB[a, a] = 1.0
            xb[a] = f[F_AT + a]
    for a in range(3):                   # P = R_A^T R_B
        for b in range(3):
            P[a, b] = RA[0, a] * RB[0, b] + RA[1, a] * RB[1, b] + RA[2, a] * RB[2, b]
    if deriv:                            # dP over the rotations of a (dPa) and b (dPb)
        for m in range(npa):
            for a in range(3):
                for b in range(3):
                    sa = 0.0
                    for i in range(3):
                        sa += dRA[m, i, a] * RB[i, b]
                    dPa[m, a, b] = sa
        for m in range(npb):
            for a in range(3):
                for b in range(3):
                    sb = 0.0
                    for i in range(3):
                        sb += RA[i, a] * dRB[m, i, b]
                    dPb[m, a, b] = sb
    for r in range(nr):
        for c in range(nc):
            G[r, c] = 0.0
            if deriv:
                for k in range(NQJ):
                    dG[r, c, k] = 0.0
    row = 0
    # -- translation
    if tmode == 0:                       # to the ground, body-frame components: constant rows
        for i in range(3):
            for c in range(na):
                G[i, c] = PP[ya + i * na + c]
        row = 3
    elif tmode == 1:                     # inertial relative velocity of the port points
        for i in range(3):
            _dot_cols(RYa[i], PP, ya, na, G, i, 0)
            for b in range(3):
                u[b] = -RYb[i, b]
            _dot_cols(u, PP, yb, nb, G, i, na)
            if deriv:
                for m in range(nya):
                    _dot_cols_d(dRYa[m, i], PP, ya, na, dG, i, 0, 3 + m, 1.0)
                for m in range(nyb):
                    _dot_cols_d(dRYb[m, i], PP, yb, nb, dG, i, na, ob + m, -1.0)
        row = 3
    else:                                # normal to the axis: D^T rho'
        for i in range(3):
            delta[i] = xb[i] - xa[i]
        _tmul(RA, delta, rho)
        if deriv:
            drho[:, :] = 0.0
            for k in range(NQP):
                for a in range(3):
                    sa, sb = 0.0, 0.0
                    for i in range(3):
                        sa += RA[i, a] * dxa[i, k]
                        sb += RA[i, a] * dxb[i, k]
                    drho[a, k] = -sa
                    drho[a, NQP + k] = sb
            for m in range(npa):
                for a in range(3):
                    drho[a, 3 + m] += dRA[m, 0, a] * delta[0] + dRA[m, 1, a] * delta[1] + dRA[m, 2, a] * delta[2]
        for r in range(2):
            for i in range(3):
                d[i] = f[F_D1 + 3 * r + i]
            # a: d . (-Y_a s + rho x W_a s) = (-d) . Y_a s + (d x rho) . W_a s (R_A^T Y_a s for
            # inertial rows Y_a; P Y_b s, or R_A^T Y_b s, for b)
            for i in range(3):
                u[i] = -(RA[i, 0] * d[0] + RA[i, 1] * d[1] + RA[i, 2] * d[2]) if yia else -d[i]
            _dot_cols(u, PP, ya, na, G, row + r, 0)
            _cross(d, rho, v)
            for c in range(na):
                G[row + r, c] += v[0] * PP[wa + c] + v[1] * PP[wa + na + c] + v[2] * PP[wa + 2 * na + c]
            if hasb:
                for b in range(3):
                    if yib:
                        u[b] = RA[b, 0] * d[0] + RA[b, 1] * d[1] + RA[b, 2] * d[2]
                    else:
                        u[b] = P[0, b] * d[0] + P[1, b] * d[1] + P[2, b] * d[2]
                _dot_cols(u, PP, yb, nb, G, row + r, na)
            if deriv:
                for k in range(NQJ):
                    if drho[0, k] == 0.0 and drho[1, k] == 0.0 and drho[2, k] == 0.0:
                        continue
                    for i in range(3):
                        dr[i] = drho[i, k]
                    _cross(d, dr, v)          # d . (drho x w) = (d x drho) . w
                    _dot_cols_d(v, PP, wa, na, dG, row + r, 0, k, 1.0)
                if yia or (hasb and yib):     # R_A d of the inertial rows, by R_A's parameters
                    for m in range(npa):
                        for i in range(3):
                            u[i] = dRA[m, i, 0] * d[0] + dRA[m, i, 1] * d[1] + dRA[m, i, 2] * d[2]
                        if yia:
                            _dot_cols_d(u, PP, ya, na, dG, row + r, 0, 3 + m, -1.0)
                        if hasb and yib:
                            _dot_cols_d(u, PP, yb, nb, dG, row + r, na, 3 + m, 1.0)
                if hasb and not yib:
                    for m in range(npa):
                        _tmul(dPa[m], d, u)
                        _dot_cols_d(u, PP, yb, nb, dG, row + r, na, 3 + m, 1.0)
                    for m in range(npb):
                        _tmul(dPb[m], d, u)
                        _dot_cols_d(u, PP, yb, nb, dG, row + r, na, ob + m, 1.0)
        row = 2
    # -- rotation
    if rmode == 1 or rmode == 3:
        nrot = 3 if rmode == 3 else 2
        for r in range(nrot):
            for i in range(3):
                d[i] = (1.0 if i == r else 0.0) if rmode == 3 else f[F_D1 + 3 * r + i]
            _dot_cols(d, PP, wa, na, G, row + r, 0)
            if hasb:
                _tmul(P, d, u)
                for i in range(3):
                    u[i] = -u[i]
                _dot_cols(u, PP, wb, nb, G, row + r, na)
                if deriv:
                    for m in range(npa):
                        _tmul(dPa[m], d, u)
                        _dot_cols_d(u, PP, wb, nb, dG, row + r, na, 3 + m, -1.0)
                    for m in range(npb):
                        _tmul(dPb[m], d, u)
                        _dot_cols_d(u, PP, wb, nb, dG, row + r, na, ob + m, -1.0)
        row += nrot
    elif rmode == 2:                     # universal: n . (R_A W_a e_a - R_B W_b e_b)
        for i in range(3):
            ax[i], cr[i] = f[F_AXIS + i], f[F_CROSS + i]
        for i in range(3):
            c1[i] = RA[i, 0] * ax[0] + RA[i, 1] * ax[1] + RA[i, 2] * ax[2]
            c2[i] = RB[i, 0] * cr[0] + RB[i, 1] * cr[1] + RB[i, 2] * cr[2]
        _cross(c1, c2, n)
        _tmul(RA, n, u)
        _dot_cols(u, PP, wa, na, G, row, 0)
        _tmul(RB, n, v)
        for i in range(3):
            v[i] = -v[i]
        _dot_cols(v, PP, wb, nb, G, row, na)
        if deriv:
            for m in range(npa):
                # over the rotation of a: c1 and R_A change
                for i in range(3):
                    dc[i] = dRA[m, i, 0] * ax[0] + dRA[m, i, 1] * ax[1] + dRA[m, i, 2] * ax[2]
                _cross(dc, c2, dn)
                _tmul(RA, dn, u)
                _dot_cols_d(u, PP, wa, na, dG, row, 0, 3 + m, 1.0)
                _tmul(dRA[m], n, u)
                _dot_cols_d(u, PP, wa, na, dG, row, 0, 3 + m, 1.0)
                _tmul(RB, dn, u)
                _dot_cols_d(u, PP, wb, nb, dG, row, na, 3 + m, -1.0)
            for m in range(npb):         # over the rotation of b: c2 and R_B change
                for i in range(3):
                    dc[i] = dRB[m, i, 0] * cr[0] + dRB[m, i, 1] * cr[1] + dRB[m, i, 2] * cr[2]
                _cross(c1, dc, dn)
                _tmul(RA, dn, u)
                _dot_cols_d(u, PP, wa, na, dG, row, 0, ob + m, 1.0)
                _tmul(RB, dn, u)
                _dot_cols_d(u, PP, wb, nb, dG, row, na, ob + m, -1.0)
                _tmul(dRB[m], n, u)
                _dot_cols_d(u, PP, wb, nb, dG, row, na, ob + m, -1.0)
        row += 1
    # -- driver: a . (P W_b e_b - W_a e_a)
    if driven == 1:
        for i in range(3):
            d[i] = f[F_AXIS + i]
            u[i] = -d[i]
        _dot_cols(u, PP, wa, na, G, row, 0)
        if hasb:
            _tmul(P, d, u)
            _dot_cols(u, PP, wb, nb, G, row, na)
            if deriv:
                for m in range(npa):
                    _tmul(dPa[m], d, u)
                    _dot_cols_d(u, PP, wb, nb, dG, row, na, 3 + m, 1.0)
                for m in range(npb):
                    _tmul(dPb[m], d, u)
                    _dot_cols_d(u, PP, wb, nb, dG, row, na, ob + m, 1.0)


@_jit
def _rows_of_q(ij, qi):
    """True for a joint whose port rows depend on ``q``: a gauged port or a tangent section."""
    return qi[QG] >= 0 or qi[QG + 1] >= 0 or ij[KIND_A] == TANGENT_SECTION or ij[KIND_B] == TANGENT_SECTION


@_jit
def _tangent_rows(th, sig, PP, off, nc, Lam, Pm, out):
    """The rotation rows of a tangent section in its axes, ``W(q) e = Lambda^T Omega + P t' + e_1
    phi'`` with the frame's rate ``Omega = S Wf e`` (``S = diag(1, sig, sig)``, the gauge),
    ``t' = A e + t x Omega`` and ``phi' = s e - Omega_1`` (the base rows ``A, Wf, s`` at
    ``PP[off:]``, 7 x ``nc``), into ``out`` (3 x ``nc``); real or complex ``th``, ``sig``."""
    tangent_frame(th, Lam)
    tangent_rate_map(th, Pm)
    for c in range(nc):
        om0 = PP[off + 3 * nc + c] + 0.0 * sig
        om1 = sig * PP[off + 4 * nc + c]
        om2 = sig * PP[off + 5 * nc + c]
        td0 = PP[off + c] + th[1] * om2 - th[2] * om1
        td1 = PP[off + nc + c] + th[2] * om0 - th[0] * om2
        td2 = PP[off + 2 * nc + c] + th[0] * om1 - th[1] * om0
        for r in range(3):
            out[r, c] = (Lam[0, r] * om0 + Lam[1, r] * om1 + Lam[2, r] * om2
                         + Pm[r, 0] * td0 + Pm[r, 1] * td1 + Pm[r, 2] * td2)
        out[0, c] += PP[off + 6 * nc + c] - om0


@_jit
def _scale(q, qi, f, p):
    """``(sigma, d sigma / dq)`` of port ``p``'s gauge (1, 0 without one)."""
    if qi[QG + p] < 0:
        return 1.0, 0.0
    g = F_GAUGE + 5 * p
    return frame_scale(f[g], f[g + 1], q[qi[QG + p]])


@_jit
def _rows_pool(q, ij, qi, f, PP, pool, keep):
    """The joint's port rows ``Y_a, W_a, Y_b, W_b`` into ``pool``: with ``keep`` -1 all of them at
    ``q`` (the gauged rows of ``W`` times ``sigma``, a tangent section's ``W(q)``); with ``keep``
    0 or 1 only the gauged rows of ``W`` of port a or b (unscaled), the rest zero."""
    na, nb, o = ij[NA], ij[NB], ij[POFF]
    n = 6 * (na + nb)
    for i in range(n):
        pool[i] = PP[o + i] if keep < 0 else 0.0
    for p in range(2):
        nc = na if p == 0 else nb
        w0 = 3 * na if p == 0 else 6 * na + 3 * nb          # the W rows of the port in the pool
        if ij[KIND_A + p] == TANGENT_SECTION:
            if keep < 0:
                th = np.empty(4)
                tangent_of(q, qi, NQP * p, f, F_TIP + 8 * p, th)
                W = np.empty((3, nc))
                _tangent_rows(th, _scale(q, qi, f, p)[0], PP, o + ij[TIP_A + p], nc, np.empty((3, 3)),
                              np.empty((3, 3)), W)
                for r in range(3):
                    for c in range(nc):
                        pool[w0 + r * nc + c] = W[r, c]
            continue
        if qi[QG + p] < 0:
            continue
        g = F_GAUGE + 5 * p
        s = _scale(q, qi, f, p)[0]
        for r in range(3):
            if f[g + 2 + r] == 0.0:
                continue
            for c in range(nc):
                if keep < 0:
                    pool[w0 + r * nc + c] = s * PP[o + w0 + r * nc + c]
                elif keep == p:
                    pool[w0 + r * nc + c] = PP[o + w0 + r * nc + c]


@_jit
def _add_rows_derivative(q, local, qi, f, pool, ws2, dG, col, scale, nr, nc):
    """``dG[:, :, col] += scale * G(pool)`` (``G`` is linear in the port rows)."""
    joint_blocks(q, local, qi, f, pool, False, ws2)
    G2 = ws2[0]
    for r in range(nr):
        for c in range(nc):
            dG[r, c, col] += scale * G2[r, c]


@_jit
def _joint_blocks_rows(q, ij, qi, f, PP, deriv, ws, ws2):
    """:func:`joint_blocks` of a joint whose port rows depend on ``q`` (a gauged port, see the module
    docstring, or a tangent section); the derivatives by the gauge coordinates go to columns
    :data:`QG`, ``QG + 1`` of ``ws[1]``, those of a tangent section's rows by its tangent and
    twist (complex steps of :func:`_tangent_rows`) to the columns of those parameters."""
    local = ij.copy()
    local[POFF] = 0
    na, nb = ij[NA], ij[NB]
    pool = np.empty(6 * (na + nb))
    _rows_pool(q, ij, qi, f, PP, pool, -1)
    joint_blocks(q, local, qi, f, pool, deriv, ws)
    if not deriv:
        return
    dG = ws[1]
    nr, nc = ij[NR], na + nb
    for p in range(2):
        if ij[KIND_A + p] == TANGENT_SECTION:
            npc = na if p == 0 else nb
            w0 = 3 * na if p == 0 else 6 * na + 3 * nb
            o = NQP * p
            th = np.empty(4)
            tangent_of(q, qi, o, f, F_TIP + 8 * p, th)
            sig, dsig = _scale(q, qi, f, p)
            z = np.empty(4, np.complex128)
            Lc, Pc = np.empty((3, 3), np.complex128), np.empty((3, 3), np.complex128)
            Wc = np.empty((3, npc), np.complex128)
            for j in range(5):                       # the tangent and twist, then the gauge
                if j == 4 and qi[QG + p] < 0:
                    continue
                for i in range(4):
                    z[i] = th[i]
                sz = sig + 0j
                if j < 4:
                    z[j] = z[j] + 1j * COMPLEX_STEP
                else:
                    sz = sz + 1j * COMPLEX_STEP
                _tangent_rows(z, sz, PP, ij[POFF] + ij[TIP_A + p], npc, Lc, Pc, Wc)
                for i in range(pool.size):
                    pool[i] = 0.0
                for r in range(3):
                    for c in range(npc):
                        pool[w0 + r * npc + c] = Wc[r, c].imag / COMPLEX_STEP
                if j < 4:
                    _add_rows_derivative(q, local, qi, f, pool, ws2, dG, o + 7 + j, f[F_TIP + 8 * p + j], nr, nc)
                else:
                    _add_rows_derivative(q, local, qi, f, pool, ws2, dG, QG + p, dsig, nr, nc)
            continue
        if qi[QG + p] < 0:
            continue
        _rows_pool(q, ij, qi, f, PP, pool, p)
        _add_rows_derivative(q, local, qi, f, pool, ws2, dG, QG + p, _scale(q, qi, f, p)[1], nr, nc)


@_jit
def spatial_joints_G_triplets(q, sj):
    """``G(q)`` of all packed joints as triplets ``(rows, cols, values)`` on the pattern
    ``(Gr, Gc)``."""
    I, QI, F, PP = sj[0], sj[1], sj[2], sj[3]
    Gv = np.empty(sj[5].size)
    ws = workspace(I)
    G = ws[0]
    for j in range(I.shape[0]):
        if _rows_of_q(I[j], QI[j]):
            _joint_blocks_rows(q, I[j], QI[j], F[j], PP, False, ws, ws)
        else:
            joint_blocks(q, I[j], QI[j], F[j], PP, False, ws)
        nr, nc, o = I[j, NR], I[j, NA] + I[j, NB], I[j, GOFF]
        for r in range(nr):
            for c in range(nc):
                Gv[o + r * nc + c] = G[r, c]
    return sj[5], sj[6], Gv


@_jit
def spatial_joints_derivatives(q, e, lam, sj, Gv, Av, Bv):
    """Values of ``G`` (pattern ``(Gr, Gc)``), ``d(G^T lam)/dq`` (``(Ar, Ac)``) and
    ``d(G e)/dq`` (``(Br, Bc)``) of all packed joints into ``Gv``, ``Av``, ``Bv``."""
    I, QI, F, PP, CI = sj[0], sj[1], sj[2], sj[3], sj[4]
    ws = workspace(I)
    ws2 = workspace(I)
    G, dG = ws[0], ws[1]
    for j in range(I.shape[0]):
        if _rows_of_q(I[j], QI[j]):
            _joint_blocks_rows(q, I[j], QI[j], F[j], PP, True, ws, ws2)
        else:
            joint_blocks(q, I[j], QI[j], F[j], PP, True, ws)
        nr, nc = I[j, NR], I[j, NA] + I[j, NB]
        go, ao, bo, co, r0 = I[j, GOFF], I[j, AOFF], I[j, BOFF], I[j, COFF], I[j, ROW0]
        for r in range(nr):
            for c in range(nc):
                Gv[go + r * nc + c] = G[r, c]
        for c in range(nc):
            for k in range(NQJ):
                s = 0.0
                for r in range(nr):
                    s += dG[r, c, k] * lam[r0 + r]
                Av[ao + c * NQJ + k] = s
        for r in range(nr):
            for k in range(NQJ):
                s = 0.0
                for c in range(nc):
                    s += dG[r, c, k] * e[CI[co + c]]
                Bv[bo + r * NQJ + k] = s


@_jit
def has_spatial_joints(sj):
    """Whether the packed data ``sj`` holds any joint."""
    return sj[0].shape[0] > 0


@_jit
def spatial_joints_residual_add(t, q, e, lam, sj, out, fe, fl):
    """The joints' terms of the residual: ``G^T lam`` added to the efforts ``fe`` and ``-G e``
    to the constraint rows ``fl``."""
    R, C, V = spatial_joints_G_triplets(q, sj)
    add_G_terms(R, C, V, e, lam, fe, fl)


@_jit
def spatial_joints_jacobian_add(t, q, e, lam, sj, act, J, nq):
    """The exact derivatives of the joints' terms ``G^T lam`` and ``-G e`` added to the dense
    ``J`` of the residual (``q`` columns from 0, ``e`` from ``nq``, then ``lam``; ``act`` marks
    the active constraint rows)."""
    J = borrowed(J)              # no reference counts of the target's arrays in the writes
    Sv, Av, Bv = np.empty(sj[5].size), np.empty(sj[7].size), np.empty(sj[9].size)
    spatial_joints_derivatives(q, e, lam, sj, Sv, Av, Bv)
    Ar, Ac, Br, Bc = sj[7], sj[8], sj[9], sj[10]
    cl = nq + e.size
    add_G_jacobian(nq, cl, sj[5], sj[6], Sv, act, J)
    for m in range(Av.size):
        if Ac[m] >= 0:
            jac_add(J, nq + Ar[m], Ac[m], Av[m])
    for m in range(Bv.size):
        if Bc[m] >= 0 and act[Br[m]]:
            jac_add(J, cl + Br[m], Bc[m], -Bv[m])

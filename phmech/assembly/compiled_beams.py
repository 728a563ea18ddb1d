"""Compiled kinematics and effort terms of the geometrically consistent planar beams.

:class:`~phmech.fem.beam_nonlinear.NonlinearFloatingBeam` evaluates
``q' = T(q) e`` (:meth:`qdot`) and its state-dependent efforts
(:meth:`effort_force`) from sparse operators at the quadrature points.
Here all such beams of a system are packed into one set of stacked CSR
operators (rows grouped by beam, columns global in ``q`` or ``e``) and
evaluated by :func:`nl_beams_residual`, with the same formulas in the
same order:

.. math::

    \\sigma = d / (d + c\\cdot q), \\quad \\theta' = \\sigma\\,\\omega, \\quad
    u_x' = P_{e,x} e + \\theta' u_y, \\quad u_y' = P_{e,y} e - \\theta' (X + u_x),

and, for Green's strain, ``f = N^T W (s_x F_x e + s_y F_y e) - F_x^T W s_x N
- F_y^T W s_y N - θ' (P_m^T b + K e)`` with ``f_ω += σ b·P_m e`` (see the
beam's module docstring for the symbols).  The beam class stays the
reference (``tests/test_compiled.py``).
"""
import numpy as np
import scipy.sparse as sp

from .._jit import jit as _jit

#: the operators of a beam, in the order of the packed tuple
OPERATORS = ("Pq_x", "Pq_y", "Pe_x", "Pe_y", "_Sx", "_Sy", "_Fx", "_Fy", "_Nn", "_DmPx", "Pm", "K")
_QCOL = {"Pq_x", "Pq_y", "_Sx", "_Sy", "_DmPx"}          # operators acting on q (others on e)


@_jit
def _rows_mv(op, b, x):
    """Rows of beam ``b`` of a packed operator times the global vector ``x``."""
    indptr, indices, data, start = op
    r0, r1 = start[b], start[b + 1]
    out = np.zeros(r1 - r0)
    for i in range(r0, r1):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * x[indices[k]]
        out[i - r0] = s
    return out


@_jit
def _rows_tmv_add(op, b, v, out, scale):
    """``out += scale * A_b^T v`` (``out`` global, columns of the operator)."""
    indptr, indices, data, start = op
    r0, r1 = start[b], start[b + 1]
    for i in range(r0, r1):
        vi = scale * v[i - r0]
        for k in range(indptr[i], indptr[i + 1]):
            out[indices[k]] += data[k] * vi


@_jit
def _effort_state(q, e, b, Sx, Sy, Nn, DmPx, W):
    """Slopes ``s_x, s_y`` and axial forces ``N`` at the quadrature points of beam ``b``, its
    curvature term ``b = D_m P_x q`` and the quadrature weights ``w``."""
    sx, sy = _rows_mv(Sx, b, q), _rows_mv(Sy, b, q)
    g0 = Sx[3][b]
    return sx, sy, _rows_mv(Nn, b, e), _rows_mv(DmPx, b, q), W[g0:g0 + sx.size]


@_jit
def nl_beams_residual(q, e, nb, qoff, nqb, eoff, dg, cqi, cqv, green, xi, W, ops, outq, fe):
    """Kinematic rows of the beams into ``outq`` (global q rows) and their effort terms added
    to ``fe`` (global e rows).  ``xi`` and ``W`` are stacked like ``Pq_x`` and ``_Sx`` rows."""
    Pq_x, Pq_y, Pe_x, Pe_y, Sx, Sy, Fx, Fy, Nn, DmPx, Pm, K = ops
    for b in range(nb):
        iq, ie = qoff[b], eoff[b]
        sig = dg[b] / (dg[b] + cqv[b] * q[cqi[b]])
        th = e[ie + 2] * sig
        c, s = np.cos(q[iq + 2]), np.sin(q[iq + 2])
        # kinematics
        ux, uy = _rows_mv(Pq_x, b, q), _rows_mv(Pq_y, b, q)
        x0 = Pq_x[3][b]
        udx = _rows_mv(Pe_x, b, e) + th * uy
        udy = _rows_mv(Pe_y, b, e) - th * (xi[x0:x0 + ux.size] + ux)
        for i in range(iq + 3, iq + nqb[b]):
            outq[i] = 0.0
        _rows_tmv_add(Pq_x, b, udx, outq, 1.0)
        _rows_tmv_add(Pq_y, b, udy, outq, 1.0)
        outq[iq] = c * e[ie] - s * e[ie + 1]
        outq[iq + 1] = s * e[ie] + c * e[ie + 1]
        outq[iq + 2] = th
        # efforts
        sx, sy, N, bm, w = _effort_state(q, e, b, Sx, Sy, Nn, DmPx, W)
        if green[b]:
            Fxe, Fye = _rows_mv(Fx, b, e), _rows_mv(Fy, b, e)
            _rows_tmv_add(Nn, b, w * (sx * Fxe + sy * Fye), fe, 1.0)
            _rows_tmv_add(Fx, b, w * sx * N, fe, -1.0)
            _rows_tmv_add(Fy, b, w * sy * N, fe, -1.0)
        else:
            g = np.zeros(fe.size)
            _rows_tmv_add(Nn, b, w * sy, g, 1.0)
            ge = 0.0
            for i in range(fe.size):
                ge += g[i] * e[i]
            for i in range(fe.size):
                fe[i] += th * g[i]
            fe[ie + 2] -= sig * ge
        _rows_tmv_add(Pm, b, bm, fe, -th)
        Ke = _rows_mv(K, b, e)
        for i in range(Ke.size):
            fe[ie + i] -= th * Ke[i]
        Pme = _rows_mv(Pm, b, e)
        bp = 0.0
        for i in range(bm.size):
            bp += bm[i] * Pme[i]
        fe[ie + 2] += sig * bp


def pack(beams, layout):
    """The arguments of :func:`nl_beams_residual` after ``(q, e)`` (without the outputs),
    for the beams ``[(beam, q slice, e slice), ...]``."""
    nb = len(beams)
    i64 = lambda xs: np.asarray(xs, np.int64)
    qoff = i64([sq.start for _, sq, _ in beams])
    eoff = i64([se.start for _, _, se in beams])
    nqb = i64([b.nq for b, _, _ in beams])
    dg = np.array([b._d for b, _, _ in beams], float)
    cqi = i64([sq.start + b._gauge_q for b, sq, _ in beams])
    cqv = np.array([b._cq[b._gauge_q] for b, _, _ in beams], float)
    green = np.array([b.strain == "green" for b, _, _ in beams], np.bool_)
    xi = np.concatenate([b.fe.xi for b, _, _ in beams]) if beams else np.zeros(0)
    W = np.concatenate([b._W for b, _, _ in beams]) if beams else np.zeros(0)
    ops = []
    for name in OPERATORS:
        blocks, start = [], [0]
        for b, sq, se in beams:
            A = sp.csr_matrix(getattr(b, name))
            off = sq.start if name in _QCOL else se.start
            A = sp.csr_matrix((A.data, A.indices + off, A.indptr), shape=(A.shape[0], layout.n))
            blocks.append(A)
            start.append(start[-1] + A.shape[0])
        if blocks:
            S = sp.vstack(blocks, format="csr")
            S.sort_indices()
            ops.append((S.indptr.astype(np.int64), S.indices.astype(np.int64), S.data.astype(float), i64(start)))
        else:
            ops.append((np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(1, np.int64)))
    return (nb, qoff, nqb, eoff, dg, cqi, cqv, green, xi, W, tuple(ops))


def is_compilable(body):
    """True for the beams this module evaluates (exactly :class:`NonlinearFloatingBeam`)."""
    from ..fem.beam_nonlinear import NonlinearFloatingBeam
    return type(body) is NonlinearFloatingBeam


@_jit
def _sandwich_add(A, B, b, d, J, r0, c0, scale, rmin):
    """``J[r0 + i, c0 + j] += scale * (A_b^T diag(d) B_b)[i, j]`` over the rows of beam ``b``
    (``A``, ``B`` with the same rows; ``d`` all ones for the plain product).
    Rows ``r0 + i < rmin`` are skipped (they are overwritten in the residual)."""
    Ap, Ai, Ad, As = A
    Bp, Bi, Bd, Bs = B
    a0, a1, b0 = As[b], As[b + 1], Bs[b]
    for i in range(a1 - a0):
        ia, ib = a0 + i, b0 + i
        di = scale * d[i]
        for k in range(Ap[ia], Ap[ia + 1]):
            r = r0 + Ai[k]
            if r < rmin:
                continue
            v = di * Ad[k]
            for m in range(Bp[ib], Bp[ib + 1]):
                J[r, c0 + Bi[m]] += v * Bd[m]


@_jit
def _column_add(J, r0, col, v, scale, rmin):
    """``J[r0 + i, col] += scale * v[i]`` (rows below ``rmin`` skipped)."""
    for i in range(v.size):
        if v[i] != 0.0 and r0 + i >= rmin:
            J[r0 + i, col] += scale * v[i]


@_jit
def _row_add(J, row, c0, v, scale):
    """``J[row, c0 + j] += scale * v[j]``."""
    for j in range(v.size):
        if v[j] != 0.0:
            J[row, c0 + j] += scale * v[j]


@_jit
def nl_beams_jacobian(q, e, nq, nb, qoff, nqb, eoff, dg, cqi, cqv, green, xi, W, ops, J):
    """The exact derivatives of :func:`nl_beams_residual` added to the dense ``J`` (rows and
    columns of ``y = (q, e, lam)``): the kinematic rows ``q' = T(q) e`` and the effort terms.

    With ``s = sigma`` depending on one entry ``q_c`` (``ds/dq_c = -s^2 c / d``) and
    ``theta' = omega s``, every term is a sparse sandwich ``A^T diag(d) B`` of the packed
    operators, an outer product with the ``omega`` column or the ``q_c`` column, or a row
    of ``omega`` (the same formulas as ``NonlinearFloatingBeam.effort_terms`` and
    ``qdot_jacobians``)."""
    Pq_x, Pq_y, Pe_x, Pe_y, Sx, Sy, Fx, Fy, Nn, DmPx, Pm, K = ops
    nqg, neg = q.size, e.size
    for b in range(nb):
        iq, ie = qoff[b], eoff[b]
        kc = cqi[b]
        sig = dg[b] / (dg[b] + cqv[b] * q[kc])
        dsig = -sig * sig * cqv[b] / dg[b]
        om = e[ie + 2]
        th = om * sig
        dth = om * dsig                       # d theta' / d q_c
        c, s = np.cos(q[iq + 2]), np.sin(q[iq + 2])
        ew = nq + ie + 2                      # column of omega
        # -- kinematics: rows iq .. iq + 2 (frame), iq + 3 ... (displacements)
        J[iq, iq + 2] += -s * e[ie] - c * e[ie + 1]
        J[iq + 1, iq + 2] += c * e[ie] - s * e[ie + 1]
        J[iq, nq + ie] += c
        J[iq, nq + ie + 1] += -s
        J[iq + 1, nq + ie] += s
        J[iq + 1, nq + ie + 1] += c
        J[iq + 2, ew] += sig
        J[iq + 2, kc] += om * dsig
        lo = iq + 3
        ux, uy = _rows_mv(Pq_x, b, q), _rows_mv(Pq_y, b, q)
        x0 = Pq_x[3][b]
        xu = xi[x0:x0 + ux.size] + ux
        one = np.ones(ux.size)
        # u_x' = Pe_x e + th u_y ;  u_y' = Pe_y e - th (xi + u_x), mapped by Pq_x^T, Pq_y^T
        _sandwich_add(Pq_x, Pe_x, b, one, J, 0, nq, 1.0, lo)
        _sandwich_add(Pq_y, Pe_y, b, one, J, 0, nq, 1.0, lo)
        _sandwich_add(Pq_x, Pq_y, b, one, J, 0, 0, th, lo)
        _sandwich_add(Pq_y, Pq_x, b, one, J, 0, 0, -th, lo)
        vx = np.zeros(nqg)
        _rows_tmv_add(Pq_x, b, uy, vx, 1.0)
        _rows_tmv_add(Pq_y, b, xu, vx, -1.0)
        _column_add(J, 0, ew, vx, sig, lo)
        _column_add(J, 0, kc, vx, om * dsig, lo)
        # -- efforts
        sx, sy, N, bm, w = _effort_state(q, e, b, Sx, Sy, Nn, DmPx, W)
        if green[b]:
            Fxe, Fye = _rows_mv(Fx, b, e), _rows_mv(Fy, b, e)
            _sandwich_add(Nn, Fx, b, w * sx, J, nq, nq, 1.0, 0)
            _sandwich_add(Nn, Fy, b, w * sy, J, nq, nq, 1.0, 0)
            _sandwich_add(Fx, Nn, b, w * sx, J, nq, nq, -1.0, 0)
            _sandwich_add(Fy, Nn, b, w * sy, J, nq, nq, -1.0, 0)
            _sandwich_add(Nn, Sx, b, w * Fxe, J, nq, 0, 1.0, 0)
            _sandwich_add(Nn, Sy, b, w * Fye, J, nq, 0, 1.0, 0)
            _sandwich_add(Fx, Sx, b, w * N, J, nq, 0, -1.0, 0)
            _sandwich_add(Fy, Sy, b, w * N, J, nq, 0, -1.0, 0)
        else:
            # f += th g, f_w -= s g.e with g = Nn^T (w s_y)
            g = np.zeros(neg)
            _rows_tmv_add(Nn, b, w * sy, g, 1.0)
            ge = 0.0
            for i in range(neg):
                ge += g[i] * e[i]
            _column_add(J, nq, ew, g, sig, 0)
            _row_add(J, ew, nq, g, -sig)
            _column_add(J, nq, kc, g, dth, 0)
            _sandwich_add(Nn, Sy, b, w, J, nq, 0, th, 0)
            J[ew, kc] -= dsig * ge
            r = np.zeros(nqg)
            _rows_tmv_add(Sy, b, w * N, r, 1.0)
            _row_add(J, ew, 0, r, -sig)
        # bending: f -= th Pm^T b, f_w += s b.(Pm e)
        pb = np.zeros(neg)
        _rows_tmv_add(Pm, b, bm, pb, 1.0)
        _column_add(J, nq, ew, pb, -sig, 0)
        _column_add(J, nq, kc, pb, -dth, 0)
        _sandwich_add(Pm, DmPx, b, np.ones(bm.size), J, nq, 0, -th, 0)
        Pme = _rows_mv(Pm, b, e)
        bp = 0.0
        for i in range(bm.size):
            bp += bm[i] * Pme[i]
        _row_add(J, ew, nq, pb, sig)
        J[ew, kc] += dsig * bp
        r = np.zeros(nqg)
        _rows_tmv_add(DmPx, b, Pme, r, 1.0)
        _row_add(J, ew, 0, r, sig)
        # rotating frame: f_i -= th (K e)_i (rows local to the beam)
        Kp, Ki, Kd, Ks = K
        k0 = Ks[b]
        for i in range(Ks[b + 1] - k0):
            ke = 0.0
            for m in range(Kp[k0 + i], Kp[k0 + i + 1]):
                ke += Kd[m] * e[Ki[m]]
                J[nq + ie + i, nq + Ki[m]] -= th * Kd[m]
            J[nq + ie + i, ew] -= sig * ke
            J[nq + ie + i, kc] -= dth * ke

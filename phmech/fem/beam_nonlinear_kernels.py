"""Kinematics and effort terms of the geometrically consistent planar beams, as kernels.

The one implementation of :class:`~phmech.fem.beam_nonlinear.NonlinearFloatingBeam`'s
state-dependent terms (see that module's docstring for the symbols): the
beam's own :meth:`qdot`, :meth:`effort_force`, :meth:`effort_terms` and
:meth:`qdot_jacobians` call these kernels with the data of the one beam,
the compiled residual with the data of all the beams of a system
(:func:`pack`, the slot ``"planar_consistent_beams"``):

.. math::

    \\sigma = d / (d + c\\cdot q), \\quad \\theta' = \\sigma\\,\\omega, \\quad
    u_x' = P_{e,x} e + \\theta' u_y, \\quad u_y' = P_{e,y} e - \\theta' (X + u_x),

and, for Green's strain, ``f = N^T W (s_x F_x e + s_y F_y e) - F_x^T W s_x N
- F_y^T W s_y N - theta' (P_m^T b + K e)`` with ``f_omega += sigma b.P_m e``;
for the linear strain ``f = theta' g`` with ``f_omega -= sigma g.e``,
``g = N^T W s_y``.  The frame rows are :func:`~phmech.bodies.frames.planar_frames_qdot`
with the rotation rate ``theta'``.  The Jacobians are exact, as triplets in
``y = (q, e, lam)`` (:mod:`phmech.fem.beam_operators`).
"""
from collections import namedtuple

import numpy as np

from ..kernels.jit import jit as _jit
from ..kernels.families import register_family
from ..bodies.frames import planar_frames_jacobian, planar_frames_qdot
from ..math.gauge import frame_scale
from .beam_operators import (beams_jacobian_add, beams_residual_add, count_triplets, emit, emit_column, emit_entries,
                             emit_row, emit_sandwich, has_beams, op, rows, rows_mv, rows_mv_to, rows_tmv, rows_tmv_add,
                             stack_all)

#: the operators of a beam, in the order of the packed tuple (``q``: columns in the beam's ``q``)
OPERATORS = ("Pq_x", "Pq_y", "Pe_x", "Pe_y", "Sx", "Sy", "Fx", "Fy", "Nn", "DmPx", "Pm", "K")


#: the packed beams (:func:`pack`), the data of the kernel family ``"planar_consistent_beams"``
PlanarBeamsData = namedtuple("PlanarBeamsData", "nb nnz qoff eoff nqb neb dg kc cqv green xi W ops")

def pack(items, dae=None):
    """The kernels' data of the beams ``[(beam, q slice, e slice), ...]`` (any number, also none).

    ``(nb, nnz, qoff, eoff, nqb, neb, dg, kc, cqv, green, xi, W, ops)``: ``nnz`` holds the number of
    triplets of the kinematic and the effort Jacobian (filled by counting), ``kc`` the local ``q``
    entry of the gauge, ``xi`` and ``W`` are stacked like the rows of ``Pq_x`` and ``Sx``."""
    i64 = lambda xs: np.asarray(xs, np.int64)
    ops = stack_all([b.kernel_operators() for b, _, _ in items], OPERATORS)
    data = PlanarBeamsData(len(items), np.zeros(2, np.int64), i64([sq.start for _, sq, _ in items]),
            i64([se.start for _, _, se in items]), i64([b.nq for b, _, _ in items]),
            i64([b.ne for b, _, _ in items]), np.array([b._d for b, _, _ in items], float),
            i64([b._gauge_q for b, _, _ in items]),
            np.array([b._cq[b._gauge_q] for b, _, _ in items], float),
            np.array([b.strain == "green" for b, _, _ in items], np.bool_),
            np.concatenate([b.fe.xi for b, _, _ in items]) if items else np.zeros(0),
            np.concatenate([b.fe.wq for b, _, _ in items]) if items else np.zeros(0), ops)
    return count_triplets(data, items, qdot_jacobian, effort_jacobian)


@_jit
def _frame(q, e, data, b):
    """``(iq, ie, sigma, d sigma / d q_kc, kc)`` of beam ``b`` (``kc`` global in ``q``)."""
    qoff, eoff, dg, kc, cqv = data[2], data[3], data[6], data[7], data[8]
    iq, ie = qoff[b], eoff[b]
    s, ds = frame_scale(dg[b], cqv[b], q[iq + kc[b]])
    return iq, ie, s, ds, iq + kc[b]


@_jit
def qdot(q, e, data, out):
    """``out[q rows of the beams] = T(q) e``."""
    nb, nqb, xi, ops = data[0], data[4], data[10], data[12]
    Pq_x, Pq_y, Pe_x, Pe_y = op(ops, 0), op(ops, 1), op(ops, 2), op(ops, 3)
    pq, pe = np.zeros((3, 1), np.int64), np.arange(3).reshape(3, 1)
    fr = np.empty(3)
    for b in range(nb):
        iq, ie, sig, _, _ = _frame(q, e, data, b)
        th = e[ie + 2] * sig
        m = rows(Pq_x, b)
        work = np.empty(3 * m)          # one allocation for the beam's vectors: u_x, u_y, u'
        ux, uy, ud = work[:m], work[m:2 * m], work[2 * m:]
        rows_mv_to(Pq_x, b, q, iq, ux)
        rows_mv_to(Pq_y, b, q, iq, uy)
        x0 = Pq_x[3][b] - Pq_x[3][0]
        for i in range(iq + 3, iq + nqb[b]):
            out[i] = 0.0
        rows_mv_to(Pe_x, b, e, ie, ud)              # u_x' = Pe_x e + th u_y
        for i in range(m):
            ud[i] = ud[i] + th * uy[i]
        rows_tmv_add(Pq_x, b, ud, out, iq, 1.0)
        rows_mv_to(Pe_y, b, e, ie, ud)              # u_y' = Pe_y e - th (xi + u_x)
        for i in range(m):
            ud[i] = ud[i] - th * (xi[x0 + i] + ux[i])
        rows_tmv_add(Pq_y, b, ud, out, iq, 1.0)
        fr[0], fr[1], fr[2] = e[ie], e[ie + 1], th
        for a in range(3):
            pq[a, 0] = iq + a
        planar_frames_qdot(q, fr, pq, pe, out)


@_jit
def qdot_jacobian(q, e, nq, data, R, C, V, k):
    """The triplets of ``d(T(q) e)/dy`` from ``k`` on (``nq``: the first column of ``e`` in ``y``);
    returns the next free index."""
    nb, nqb, xi, ops = data[0], data[4], data[10], data[12]
    Pq_x, Pq_y, Pe_x, Pe_y = op(ops, 0), op(ops, 1), op(ops, 2), op(ops, 3)
    pq, pe = np.zeros((3, 1), np.int64), np.arange(3).reshape(3, 1)
    fr, T = np.empty(3), np.empty((1, 3, 6))
    for b in range(nb):
        iq, ie, sig, dsig, kc = _frame(q, e, data, b)
        om = e[ie + 2]
        th = om * sig
        ce = nq + ie
        fr[0], fr[1], fr[2] = e[ie], e[ie + 1], th
        for a in range(3):
            pq[a, 0] = iq + a
        planar_frames_jacobian(q, fr, pq, pe, T)
        for a in range(3):
            for m in range(3):
                k = emit(R, C, V, k, iq + a, iq + m, T[0, a, m])
            k = emit(R, C, V, k, iq + a, ce, T[0, a, 3])
            k = emit(R, C, V, k, iq + a, ce + 1, T[0, a, 4])
            k = emit(R, C, V, k, iq + a, ce + 2, T[0, a, 5] * sig)
            k = emit(R, C, V, k, iq + a, kc, T[0, a, 5] * om * dsig)
        # u_x' = Pe_x e + th u_y ;  u_y' = Pe_y e - th (xi + u_x), mapped by Pq_x^T, Pq_y^T
        ux, uy = rows_mv(Pq_x, b, q, iq), rows_mv(Pq_y, b, q, iq)
        x0 = Pq_x[3][b] - Pq_x[3][0]
        ones = np.ones(ux.size)
        k = emit_sandwich(Pq_x, Pe_x, b, ones, 1.0, iq, ce, R, C, V, k)
        k = emit_sandwich(Pq_y, Pe_y, b, ones, 1.0, iq, ce, R, C, V, k)
        k = emit_sandwich(Pq_x, Pq_y, b, ones, th, iq, iq, R, C, V, k)
        k = emit_sandwich(Pq_y, Pq_x, b, ones, -th, iq, iq, R, C, V, k)
        vx = rows_tmv(Pq_x, b, uy, nqb[b])
        rows_tmv_add(Pq_y, b, xi[x0:x0 + ux.size] + ux, vx, 0, -1.0)
        vx[:3] = 0.0
        k = emit_column(vx, sig, iq, ce + 2, R, C, V, k)
        k = emit_column(vx, om * dsig, iq, kc, R, C, V, k)
    return k


@_jit
def _quadrature_values(q, e, data, b, iq, ie):
    """``(u_x', u_y', n, the bending rows of q, weights)`` of beam ``b`` at its quadrature points:
    the slopes ``Sx q``, ``Sy q``, the axial force ``Nn e``, ``DmPx q`` and the weights ``W``
    (stacked like the rows of ``Sx``), shared by :func:`efforts` (in its work array,
    :func:`_quadrature_values_to`) and :func:`effort_jacobian`."""
    ops = data[12]
    m, mb = rows(op(ops, 4), b), rows(op(ops, 9), b)
    work = np.empty(3 * m + mb)
    return _quadrature_values_to(q, e, data, b, iq, ie, work)


@_jit
def _quadrature_values_to(q, e, data, b, iq, ie, work):
    """:func:`_quadrature_values` as views of ``work`` (at least ``3 m + mb`` long: ``m`` rows
    of ``Sx``, ``mb`` of ``DmPx``)."""
    W, ops = data[11], data[12]
    Sx = op(ops, 4)
    m, mb = rows(Sx, b), rows(op(ops, 9), b)
    sx, sy, N, bm = work[:m], work[m:2 * m], work[2 * m:3 * m], work[3 * m:3 * m + mb]
    rows_mv_to(Sx, b, q, iq, sx)
    rows_mv_to(op(ops, 5), b, q, iq, sy)
    rows_mv_to(op(ops, 8), b, e, ie, N)
    rows_mv_to(op(ops, 9), b, q, iq, bm)
    g0 = Sx[3][b] - Sx[3][0]
    return sx, sy, N, bm, W[g0:g0 + m]


@_jit
def efforts(q, e, data, fe):
    """``fe[e rows of the beams] +=`` the state-dependent effort terms."""
    nb, neb, green, ops = data[0], data[5], data[9], data[12]
    Fx, Fy, Nn, Pm, K = op(ops, 6), op(ops, 7), op(ops, 8), op(ops, 10), op(ops, 11)
    for b in range(nb):
        iq, ie, sig, _, _ = _frame(q, e, data, b)
        th = e[ie + 2] * sig
        eb = e[ie:ie + neb[b]]
        m, mb, nk = rows(op(ops, 4), b), rows(op(ops, 9), b), rows(K, b)
        # one allocation for the beam's vectors: the quadrature values, three more at the
        # quadrature points, and one of the effort rows (K e, then P_m e)
        work = np.empty(6 * m + mb + max(nk, rows(Pm, b)))
        sx, sy, N, bm, w = _quadrature_values_to(q, e, data, b, iq, ie, work)
        t, u = work[3 * m + mb:4 * m + mb], work[4 * m + mb:5 * m + mb]
        v = work[5 * m + mb:6 * m + mb]
        if green[b]:
            rows_mv_to(Fx, b, e, ie, u)
            rows_mv_to(Fy, b, e, ie, v)
            for i in range(m):
                t[i] = w[i] * (sx[i] * u[i] + sy[i] * v[i])
            rows_tmv_add(Nn, b, t, fe, ie, 1.0)
            for i in range(m):
                t[i] = w[i] * sx[i] * N[i]
            rows_tmv_add(Fx, b, t, fe, ie, -1.0)
            for i in range(m):
                t[i] = w[i] * sy[i] * N[i]
            rows_tmv_add(Fy, b, t, fe, ie, -1.0)
        else:
            for i in range(m):
                t[i] = w[i] * sy[i]
            g = rows_tmv(Nn, b, t, neb[b])
            ge = 0.0
            for i in range(g.size):
                ge += g[i] * eb[i]
                fe[ie + i] += th * g[i]
            fe[ie + 2] -= sig * ge
        rows_tmv_add(Pm, b, bm, fe, ie, -th)
        r = work[6 * m + mb:]
        rows_mv_to(K, b, e, ie, r)
        for i in range(nk):
            fe[ie + i] -= th * r[i]
        rows_mv_to(Pm, b, e, ie, r)
        bp = 0.0
        for i in range(bm.size):
            bp += bm[i] * r[i]
        fe[ie + 2] += sig * bp


@_jit
def effort_jacobian(q, e, nq, data, R, C, V, k):
    """The triplets of the derivatives of :func:`efforts` by ``y`` from ``k`` on (rows ``nq +``
    the effort row); returns the next free index.

    With ``theta' = omega sigma(q_c)``, every term is a sparse sandwich ``A^T diag(d) B`` of the
    operators, a column of ``omega`` or ``q_c``, or a row of ``omega``."""
    nb, nqb, neb, green, ops = data[0], data[4], data[5], data[9], data[12]
    Sx, Sy, Fx, Fy = op(ops, 4), op(ops, 5), op(ops, 6), op(ops, 7)
    Nn, DmPx, Pm, K = op(ops, 8), op(ops, 9), op(ops, 10), op(ops, 11)
    for b in range(nb):
        iq, ie, sig, dsig, kc = _frame(q, e, data, b)
        om = e[ie + 2]
        th, dth = om * sig, om * dsig
        re, ce, ew = nq + ie, nq + ie, nq + ie + 2          # first row and column of e, row/column of omega
        eb = e[ie:ie + neb[b]]
        sx, sy, N, bm, w = _quadrature_values(q, e, data, b, iq, ie)
        if green[b]:
            Fxe, Fye = rows_mv(Fx, b, e, ie), rows_mv(Fy, b, e, ie)
            k = emit_sandwich(Nn, Fx, b, w * sx, 1.0, re, ce, R, C, V, k)
            k = emit_sandwich(Nn, Fy, b, w * sy, 1.0, re, ce, R, C, V, k)
            k = emit_sandwich(Fx, Nn, b, w * sx, -1.0, re, ce, R, C, V, k)
            k = emit_sandwich(Fy, Nn, b, w * sy, -1.0, re, ce, R, C, V, k)
            k = emit_sandwich(Nn, Sx, b, w * Fxe, 1.0, re, iq, R, C, V, k)
            k = emit_sandwich(Nn, Sy, b, w * Fye, 1.0, re, iq, R, C, V, k)
            k = emit_sandwich(Fx, Sx, b, w * N, -1.0, re, iq, R, C, V, k)
            k = emit_sandwich(Fy, Sy, b, w * N, -1.0, re, iq, R, C, V, k)
        else:
            # f += th g, f_w -= s g.e with g = Nn^T (w s_y)
            g = rows_tmv(Nn, b, w * sy, neb[b])
            ge = 0.0
            for i in range(g.size):
                ge += g[i] * eb[i]
            k = emit_column(g, sig, re, ew, R, C, V, k)
            k = emit_row(g, -sig, ew, ce, R, C, V, k)
            k = emit_column(g, dth, re, kc, R, C, V, k)
            k = emit_sandwich(Nn, Sy, b, w, th, re, iq, R, C, V, k)
            k = emit(R, C, V, k, ew, kc, -dsig * ge)
            k = emit_row(rows_tmv(Sy, b, w * N, nqb[b]), -sig, ew, iq, R, C, V, k)
        # bending: f -= th Pm^T b, f_w += s b.(Pm e)
        pb = rows_tmv(Pm, b, bm, neb[b])
        k = emit_column(pb, -sig, re, ew, R, C, V, k)
        k = emit_column(pb, -dth, re, kc, R, C, V, k)
        k = emit_sandwich(Pm, DmPx, b, np.ones(bm.size), -th, re, iq, R, C, V, k)
        Pme = rows_mv(Pm, b, e, ie)
        bp = 0.0
        for i in range(bm.size):
            bp += bm[i] * Pme[i]
        k = emit_row(pb, sig, ew, ce, R, C, V, k)
        k = emit(R, C, V, k, ew, kc, dsig * bp)
        k = emit_row(rows_tmv(DmPx, b, Pme, nqb[b]), sig, ew, iq, R, C, V, k)
        # rotating frame: f -= th K e
        Ke = rows_mv(K, b, e, ie)
        k = emit_entries(K, b, -th, re, ce, R, C, V, k)
        k = emit_column(Ke, -sig, re, ew, R, C, V, k)
        k = emit_column(Ke, -dth, re, kc, R, C, V, k)
    return k


register_family("planar_consistent_beams", PlanarBeamsData, pack=pack, has=has_beams, residual_add=beams_residual_add,
                jacobian_add=beams_jacobian_add)

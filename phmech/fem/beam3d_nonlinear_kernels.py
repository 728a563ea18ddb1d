"""Kinematics and effort terms of the geometrically consistent spatial beams, as kernels.

The one implementation of :class:`~phmech.fem.beam3d_nonlinear.NonlinearSpatialBeam`'s
state-dependent terms (symbols of that module's docstring): the beam's
:meth:`qdot`, :meth:`qdot_jacobians`, :meth:`effort_force` and
:meth:`effort_terms` call these kernels with the data of the one beam, the
compiled residual with those of all the beams of a system (:func:`pack`,
the slot ``"spatial_consistent_beams"``).  With ``d = (1, sigma, sigma)``,
``sigma = 1 / (1 + u_x'(0))`` and ``Omega = d * omega``:

* the frame ``r' = R(p) v_P``, ``p' = 1/2 p (x) (0, Omega)``
  (:func:`~phmech.bodies.frames.spatial_frames_qdot`), the displacement
  ``u' = a - Omega x (X e1 + u)`` and the twist ``phi' = s_f``;
* the efforts ``f = N^T W sum_c s_c (F_c e) - sum_c F_c^T W s_c N`` (Green's
  strain; ``s_c = S_c q`` the slopes, ``N`` the axial force at the quadrature
  points) and ``f += Omega_i (beta_i - K_i e)``, ``f_{omega_i} -= d_i beta_i . e``
  with ``beta_i = B_i q``.

The Jacobians are exact, as triplets in ``y = (q, e, lam)``
(:mod:`phmech.fem.beam_operators`).
"""
from collections import namedtuple

import numpy as np

from ..kernels.jit import jit as _jit
from ..kernels.families import register_family
from ..bodies.frames import spatial_frames_jacobian, spatial_frames_qdot
from ..math.gauge import frame_scale
from .beam_operators import (beams_jacobian_add, beams_residual_add, count_triplets, emit, emit_column, emit_entries,
                             emit_row, emit_sandwich, has_beams, op, rows_mv, rows_tmv, rows_tmv_add, stack_all)

#: the operators of a beam, in the order of the packed tuple
OPERATORS = ("Pq_x", "Pq_y", "Pq_z", "Pq_phi", "Sel_s", "PeR_x", "PeR_y", "PeR_z", "S_x", "S_y", "S_z",
             "F_x", "F_y", "F_z", "Nn", "B_0", "B_1", "B_2", "K_0", "K_1", "K_2")
_PQ, _PQPHI, _SELS, _PER, _S, _F, _NN, _B, _K = 0, 3, 4, 5, 8, 11, 14, 15, 18


#: the packed beams (:func:`pack`), the data of the kernel family ``"spatial_consistent_beams"``
SpatialBeamsData = namedtuple("SpatialBeamsData", "nb nnz qoff eoff nqb neb kc cqv green xi W ops")

def pack(items, dae=None):
    """The kernels' data of the beams ``[(beam, q slice, e slice), ...]`` (any number, also none).

    ``(nb, nnz, qoff, eoff, nqb, neb, kc, cqv, green, xi, W, ops)``: ``nnz`` holds the number of
    triplets of the kinematic and the effort Jacobian, ``kc`` the local ``q`` entry of the gauge
    ``u_x'(0)`` with coefficient ``cqv``; ``xi`` and ``W`` are stacked like the rows of ``Pq_x`` and
    ``S_x``."""
    i64 = lambda xs: np.asarray(xs, np.int64)
    ops = stack_all([b.kernel_operators() for b, _, _ in items], OPERATORS)
    data = SpatialBeamsData(len(items), np.zeros(2, np.int64), i64([sq.start for _, sq, _ in items]),
            i64([se.start for _, _, se in items]), i64([b.nq for b, _, _ in items]),
            i64([b.ne for b, _, _ in items]), i64([b._gauge_q for b, _, _ in items]),
            np.array([b._cq[b._gauge_q] for b, _, _ in items], float),
            np.array([b.strain == "green" for b, _, _ in items], np.bool_),
            np.concatenate([b.xi for b, _, _ in items]) if items else np.zeros(0),
            np.concatenate([b._W for b, _, _ in items]) if items else np.zeros(0), ops)
    return count_triplets(data, items, qdot_jacobian, effort_jacobian)


@_jit
def _frame(q, e, data, b):
    """``(iq, ie, d, d d / d q_kc, kc)`` of beam ``b`` (``kc`` global in ``q``)."""
    qoff, eoff, kc, cqv = data[2], data[3], data[6], data[7]
    iq, ie = qoff[b], eoff[b]
    s, ds = frame_scale(1.0, cqv[b], q[iq + kc[b]])
    d, dd = np.ones(3), np.zeros(3)
    d[1], d[2], dd[1], dd[2] = s, s, ds, ds
    return iq, ie, d, dd, iq + kc[b]


@_jit
def _positions(q, data, b, iq):
    """``X e1 + u`` at the Hermite coefficients of beam ``b``, shape ``(3, nV)``."""
    xi, ops = data[9], data[11]
    Pq_x = op(ops, _PQ)
    x0 = Pq_x[3][b] - Pq_x[3][0]
    n = Pq_x[3][b + 1] - Pq_x[3][b]
    pos = np.empty((3, n))
    for c in range(3):
        pos[c] = rows_mv(op(ops, _PQ + c), b, q, iq)
    pos[0] += xi[x0:x0 + n]
    return pos


@_jit
def qdot(q, e, data, out):
    """``out[q rows of the beams] = T(q) e``."""
    nb, nqb, ops = data[0], data[4], data[11]
    one, zero = np.zeros(1, np.int64), np.zeros(1, np.int64)
    fr = np.empty(6)
    for b in range(nb):
        iq, ie, d, _, _ = _frame(q, e, data, b)
        for i in range(3):
            fr[i] = e[ie + i]
            fr[3 + i] = d[i] * e[ie + 3 + i]
        one[0] = iq
        spatial_frames_qdot(q, fr, one, zero, out)
        pos = _positions(q, data, b, iq)
        for i in range(iq + 7, iq + nqb[b]):
            out[i] = 0.0
        for c in range(3):
            # (Omega x p)_c = Omega_{c+1} p_{c+2} - Omega_{c+2} p_{c+1}
            i1, i2 = (c + 1) % 3, (c + 2) % 3
            rate = rows_mv(op(ops, _PER + c), b, e, ie) - fr[3 + i1] * pos[i2] + fr[3 + i2] * pos[i1]
            rows_tmv_add(op(ops, _PQ + c), b, rate, out, iq, 1.0)
        rows_tmv_add(op(ops, _PQPHI), b, rows_mv(op(ops, _SELS), b, e, ie), out, iq, 1.0)


@_jit
def qdot_jacobian(q, e, nq, data, R, C, V, k):
    """The triplets of ``d(T(q) e)/dy`` from ``k`` on (``nq``: the first column of ``e`` in ``y``);
    returns the next free index."""
    nb, nqb, ops = data[0], data[4], data[11]
    one, zero = np.zeros(1, np.int64), np.zeros(1, np.int64)
    fr, T = np.empty(6), np.empty((1, 7, 13))
    for b in range(nb):
        iq, ie, d, dd, kc = _frame(q, e, data, b)
        ce = nq + ie
        for i in range(3):
            fr[i] = e[ie + i]
            fr[3 + i] = d[i] * e[ie + 3 + i]
        one[0] = iq
        spatial_frames_jacobian(q, fr, one, zero, T)
        for a in range(7):
            for m in range(10):
                k = emit(R, C, V, k, iq + a, iq + m if m < 7 else ce + m - 7, T[0, a, m])
            dk = 0.0
            for i in range(3):
                k = emit(R, C, V, k, iq + a, ce + 3 + i, T[0, a, 10 + i] * d[i])
                dk += T[0, a, 10 + i] * e[ie + 3 + i] * dd[i]
            k = emit(R, C, V, k, iq + a, kc, dk)
        pos = _positions(q, data, b, iq)
        ones = np.ones(pos.shape[1])
        for c in range(3):
            Pc = op(ops, _PQ + c)
            k = emit_sandwich(Pc, op(ops, _PER + c), b, ones, 1.0, iq, ce, R, C, V, k)
            for i, j, sgn in (((c + 1) % 3, (c + 2) % 3, 1.0), ((c + 2) % 3, (c + 1) % 3, -1.0)):
                # rate_c -= sgn Omega_i pos_j
                k = emit_sandwich(Pc, op(ops, _PQ + j), b, ones, -sgn * fr[3 + i], iq, iq, R, C, V, k)
                pj = rows_tmv(Pc, b, pos[j], nqb[b])
                k = emit_column(pj, -sgn * d[i], iq, ce + 3 + i, R, C, V, k)
                if i:
                    k = emit_column(pj, -sgn * e[ie + 3 + i] * dd[i], iq, kc, R, C, V, k)
        Pphi = op(ops, _PQPHI)
        k = emit_sandwich(Pphi, op(ops, _SELS), b, np.ones(Pphi[3][b + 1] - Pphi[3][b]),
                          1.0, iq, ce, R, C, V, k)
    return k


@_jit
def efforts(q, e, data, fe):
    """``fe[e rows of the beams] +=`` the state-dependent effort terms."""
    nb, neb, green, W, ops = data[0], data[5], data[8], data[10], data[11]
    Nn = op(ops, _NN)
    for b in range(nb):
        iq, ie, d, _, _ = _frame(q, e, data, b)
        eb = e[ie:ie + neb[b]]
        if green[b]:
            N = rows_mv(Nn, b, e, ie)
            g0 = op(ops, _S)[3][b] - op(ops, _S)[3][0]
            w = W[g0:g0 + N.size]
            rate = np.zeros(N.size)
            for c in range(3):
                sv = rows_mv(op(ops, _S + c), b, q, iq)
                rate += sv * rows_mv(op(ops, _F + c), b, e, ie)
                rows_tmv_add(op(ops, _F + c), b, w * sv * N, fe, ie, -1.0)
            rows_tmv_add(Nn, b, w * rate, fe, ie, 1.0)
        for i in range(3):
            Om = d[i] * e[ie + 3 + i]
            beta = rows_mv(op(ops, _B + i), b, q, iq)
            Ke = rows_mv(op(ops, _K + i), b, e, ie)
            be = 0.0
            for r in range(beta.size):
                be += beta[r] * eb[r]
                fe[ie + r] += Om * (beta[r] - Ke[r])
            fe[ie + 3 + i] -= d[i] * be


@_jit
def effort_jacobian(q, e, nq, data, R, C, V, k):
    """The triplets of the derivatives of :func:`efforts` by ``y`` from ``k`` on (rows ``nq +``
    the effort row); returns the next free index."""
    nb, nqb, neb, green, W, ops = data[0], data[4], data[5], data[8], data[10], data[11]
    Nn = op(ops, _NN)
    for b in range(nb):
        iq, ie, d, dd, kc = _frame(q, e, data, b)
        re = ce = nq + ie
        eb = e[ie:ie + neb[b]]
        if green[b]:
            N = rows_mv(Nn, b, e, ie)
            g0 = op(ops, _S)[3][b] - op(ops, _S)[3][0]
            w = W[g0:g0 + N.size]
            for c in range(3):
                S, F = op(ops, _S + c), op(ops, _F + c)
                sv = rows_mv(S, b, q, iq)
                k = emit_sandwich(Nn, F, b, w * sv, 1.0, re, ce, R, C, V, k)
                k = emit_sandwich(F, Nn, b, w * sv, -1.0, re, ce, R, C, V, k)
                k = emit_sandwich(Nn, S, b, w * rows_mv(F, b, e, ie), 1.0, re, iq, R, C, V, k)
                k = emit_sandwich(F, S, b, w * N, -1.0, re, iq, R, C, V, k)
        for i in range(3):
            wi = ce + 3 + i
            om = e[ie + 3 + i]
            Om = d[i] * om
            B, K = op(ops, _B + i), op(ops, _K + i)
            beta = rows_mv(B, b, q, iq)
            Ke = rows_mv(K, b, e, ie)
            be = 0.0
            for r in range(beta.size):
                be += beta[r] * eb[r]
            # f += Omega_i beta_i, f_wi -= d_i beta_i . e
            k = emit_column(beta, d[i], re, wi, R, C, V, k)
            k = emit_row(beta, -d[i], wi, ce, R, C, V, k)
            k = emit_entries(B, b, Om, re, iq, R, C, V, k)
            k = emit_row(rows_tmv(B, b, eb, nqb[b]), -d[i], wi, iq, R, C, V, k)
            # f -= Omega_i K_i e
            k = emit_entries(K, b, -Om, re, ce, R, C, V, k)
            k = emit_column(Ke, -d[i], re, wi, R, C, V, k)
            if i:      # Omega_i = sigma(q) omega_i: its q-derivative
                k = emit(R, C, V, k, wi, kc, -be * dd[i])
                k = emit_column(beta - Ke, om * dd[i], re, kc, R, C, V, k)
    return k


register_family("spatial_consistent_beams", SpatialBeamsData, pack=pack, has=has_beams, residual_add=beams_residual_add,
                jacobian_add=beams_jacobian_add)

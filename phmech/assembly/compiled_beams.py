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

from ._jit import jit as _jit

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
        sx, sy = _rows_mv(Sx, b, q), _rows_mv(Sy, b, q)
        N = _rows_mv(Nn, b, e)
        bm = _rows_mv(DmPx, b, q)
        g0 = Sx[3][b]
        w = W[g0:g0 + sx.size]
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

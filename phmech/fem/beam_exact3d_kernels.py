"""Kinematics and effort terms of the spatial geometrically exact beams, as kernels.

The one implementation of the state-dependent terms of
:class:`~phmech.fem.beam_exact3d.GeometricallyExactBeam3D` (see that module's docstring
for the formulation): the beam's own methods call these kernels with the data of the
one beam, the compiled residual with the data of all the beams of a system
(:func:`pack`, the family ``"spatial_exact_beams"``).

Per node ``a`` the configuration is ``x_a = (r_a, d_a1, d_a2, d_a3)`` (position and the
columns of the rotation ``R_a``, 12 numbers), the efforts ``(v_a, omega_a)`` (inertial
velocity, material angular velocity); per quadrature point ``g`` the efforts are the
stress resultants ``sigma_g = (N, Q_2, Q_3, T, M_2, M_3)``.  At a point, with the
interpolated ``r'``, ``d_i`` and ``d_i'``, the strains are

.. math::

    \\Gamma_i = d_i \\cdot r' - \\delta_{i1}, \\qquad
    \\kappa_m = \\tfrac12 \\epsilon_{mnp}\\, d_p \\cdot d_n',

quadratic in ``q``.  The nodal rates ``d_ai' = R_a (omega_a x e_i)`` are linear in ``q``.
:func:`_point` evaluates, from the power ``P = w sigma . (Gamma, kappa)'`` (linear in the
velocities and in the stresses), the stress rows ``f_sigma = dP/dsigma`` and the velocity
rows ``f_u = -dP/du``: ``e . f = P - P = 0``.  The nodes' gyroscopic terms
``-omega_a x pi_a`` (``pi_a = sum_b M_ab J omega_b``, the nodes' angular momenta in their
material frames) complete the effort terms.

The Jacobian of the point terms in ``q`` is exact by polarization: they are quadratic in
``q``, so the central difference over any step ``h`` is their derivative (no truncation;
the step ``1 + |x_m|`` keeps the round-off at the level of the values); in the
velocities and stresses they are linear and their columns are their values at unit
vectors.  Every entry of a point's dense block is emitted (their number does not depend
on the state).
"""
from collections import namedtuple

import numpy as np

from ..kernels.families import register_family
from ..kernels.jit import jit as _jit
from .beam_exact_kernels import pack_tables
from .beam_operators import beams_jacobian_add, beams_residual_add, count_triplets, emit, has_beams

#: the packed beams (:func:`pack`), the data of the kernel family ``"spatial_exact_beams"``; ``J``
#: (nb, 3): the sections' inertia per length, ``mp, mi, mv, noff``: the velocity mass matrices
#: (CSR, node rows of beam ``b`` from ``noff[b]``, local columns)
ExactBeams3Data = namedtuple("ExactBeams3Data", "nb nnz qoff eoff nn ng nl goff conn Nt Dt W J mp mi mv noff")


def pack(items, dae=None):
    """The kernels' data of the beams ``[(beam, q slice, e slice), ...]`` (any number, also none)."""
    tables = pack_tables(items)
    mats = [b.fe.Mv for b, _, _ in items]
    nnz = np.cumsum([0] + [m.nnz for m in mats])
    rows = np.cumsum([0] + [m.shape[0] for m in mats])
    mp = np.concatenate([np.zeros(1, np.int64)] + [m.indptr[1:].astype(np.int64) + nnz[k] for k, m in enumerate(mats)])
    data = ExactBeams3Data(*tables, np.array([b.section_inertia for b, _, _ in items], float).reshape(-1, 3), mp,
                           np.concatenate([np.zeros(0, np.int64)] + [m.indices.astype(np.int64) for m in mats]),
                           np.concatenate([np.zeros(0)] + [m.data.astype(float) for m in mats]),
                           rows[:-1].astype(np.int64))
    return count_triplets(data, items, qdot_jacobian, effort_jacobian)


@_jit
def _eps(i, j, k):
    """The Levi-Civita symbol of the indices 0, 1, 2."""
    return 0.5 * (i - j) * (j - k) * (k - i)


@_jit
def qdot(q, e, data, out):
    """``out[q rows of the beams] = T(q) e``: ``r_a' = v_a``, ``d_ai' = R_a (omega_a x e_i)``."""
    nb, qoff, eoff, nn = data[0], data[2], data[3], data[4]
    for b in range(nb):
        for a in range(nn[b]):
            k, m = qoff[b] + 12 * a, eoff[b] + 6 * a
            w1, w2, w3 = e[m + 3], e[m + 4], e[m + 5]
            for c in range(3):
                out[k + c] = e[m + c]
                d1, d2, d3 = q[k + 3 + c], q[k + 6 + c], q[k + 9 + c]
                out[k + 3 + c] = w3 * d2 - w2 * d3
                out[k + 6 + c] = w1 * d3 - w3 * d1
                out[k + 9 + c] = w2 * d1 - w1 * d2


@_jit
def qdot_jacobian(q, e, nq, data, R, C, V, k):
    """The triplets of ``d(T(q) e)/dy`` from ``k`` on (``nq``: the first column of ``e`` in ``y``);
    returns the next free index."""
    nb, qoff, eoff, nn = data[0], data[2], data[3], data[4]
    for b in range(nb):
        for a in range(nn[b]):
            r, m = qoff[b] + 12 * a, eoff[b] + 6 * a
            w = (e[m + 3], e[m + 4], e[m + 5])
            for c in range(3):
                k = emit(R, C, V, k, r + c, nq + m + c, 1.0)
                for i in range(3):              # d_ai' = sum_k omega_k sum_j eps(k, i, j) d_aj
                    for j in range(3):
                        for kk in range(3):
                            s = _eps(kk, i, j)
                            if s != 0.0:
                                k = emit(R, C, V, k, r + 3 + 3 * i + c, r + 3 + 3 * j + c, s * w[kk])
                                k = emit(R, C, V, k, r + 3 + 3 * i + c, nq + m + 3 + kk, s * q[r + 3 + 3 * j + c])
    return k


@_jit
def point_workspace(width):
    """The scratch arrays of :func:`_point` for elements of ``width`` nodes (allocated once per
    kernel call, not per quadrature point)."""
    return (np.empty(3), np.empty((3, 3)), np.empty((3, 3)), np.empty(3), np.empty((3, 3)), np.empty((3, 3)),
            np.empty((width, 3, 3)), np.empty(3), np.empty((3, 3)))


@_jit
def _point(x, u, sig, Nr, Dr, nl, w, fs, fu, ws):
    """The terms of one quadrature point from the local configuration ``x`` (12 nl), velocities
    ``u`` (6 nl) and stresses ``sig`` (6): ``fs = w (Gamma, kappa)'`` and ``fu = -w B^T sig``
    (overwritten; ``ws`` from :func:`point_workspace`)."""
    rp, db, dp, rr, tb, tp, t, SG, ca = ws
    # rp: r', db: d_i at the point (rows), dp: d_i', rr: the rate of r', tb, tp: the rates of
    # d_i and d_i', t: the nodal rates of the directors
    rp[:] = 0.0
    db[:, :] = 0.0
    dp[:, :] = 0.0
    rr[:] = 0.0
    tb[:, :] = 0.0
    tp[:, :] = 0.0
    t[:nl] = 0.0
    for a in range(nl):
        Na, Da = Nr[a], Dr[a]
        o = 12 * a
        om = (u[6 * a + 3], u[6 * a + 4], u[6 * a + 5])
        for c in range(3):
            rp[c] += Da * x[o + c]
            rr[c] += Da * u[6 * a + c]
            for i in range(3):
                db[i, c] += Na * x[o + 3 + 3 * i + c]
                dp[i, c] += Da * x[o + 3 + 3 * i + c]
        for i in range(3):
            for j in range(3):
                for kk in range(3):
                    s = _eps(kk, i, j)
                    if s != 0.0:
                        for c in range(3):
                            t[a, i, c] += s * om[kk] * x[o + 3 + 3 * j + c]
            for c in range(3):
                tb[i, c] += Na * t[a, i, c]
                tp[i, c] += Da * t[a, i, c]
    for i in range(3):
        acc = 0.0
        for c in range(3):
            acc += tb[i, c] * rp[c] + db[i, c] * rr[c]
        fs[i] = w * acc
    for m in range(3):
        acc = 0.0
        for n in range(3):
            for p in range(3):
                s = _eps(m, n, p)
                if s != 0.0:
                    for c in range(3):
                        acc += s * (tb[p, c] * dp[n, c] + db[p, c] * tp[n, c])
        fs[3 + m] = 0.5 * w * acc
    SG[:] = 0.0
    for i in range(3):
        for c in range(3):
            SG[c] += sig[i] * db[i, c]
    for a in range(nl):
        Na, Da = Nr[a], Dr[a]
        for c in range(3):
            fu[6 * a + c] = -w * Da * SG[c]
        for i in range(3):              # the conjugate of the nodal rate t[a, i]
            for c in range(3):
                ca[i, c] = Na * sig[i] * rp[c]
            for m in range(3):
                for n in range(3):
                    s = _eps(m, n, i)
                    if s != 0.0:
                        for c in range(3):
                            ca[i, c] += 0.5 * sig[3 + m] * s * (Na * dp[n, c] - Da * db[n, c])
        o = 12 * a
        for kk in range(3):
            acc = 0.0
            for i in range(3):
                for j in range(3):
                    s = _eps(kk, i, j)
                    if s != 0.0:
                        for c in range(3):
                            acc += s * x[o + 3 + 3 * j + c] * ca[i, c]
            fu[6 * a + 3 + kk] = -w * acc


@_jit
def _gather(q, e, iq, ie, s0, conn, row, nl, x, u, sig):
    """The local configuration, velocities and stresses of the quadrature point ``row``."""
    for a in range(nl):
        n = conn[row, a]
        for c in range(12):
            x[12 * a + c] = q[iq + 12 * n + c]
        for c in range(6):
            u[6 * a + c] = e[ie + 6 * n + c]
    for c in range(6):
        sig[c] = e[s0 + c]


@_jit
def _node_momentum(e, data, b, a, pi):
    """``pi`` (3): the angular momentum ``sum_c M_ac J omega_c`` of node ``a`` of beam ``b`` in its axes."""
    ie, J, mp, mi, mv, noff = data[3][b], data[12], data[13], data[14], data[15], data[16]
    pi[:] = 0.0
    for k in range(mp[noff[b] + a], mp[noff[b] + a + 1]):
        m = ie + 6 * mi[k] + 3
        for c in range(3):
            pi[c] += mv[k] * J[b, c] * e[m + c]


@_jit
def _gyro(e, data, b, fe):
    """``fe +=`` the nodes' gyroscopic terms ``-omega_a x pi_a`` of beam ``b``."""
    ie, nn = data[3][b], data[4][b]
    pi = np.empty(3)
    for a in range(nn):
        _node_momentum(e, data, b, a, pi)
        m = ie + 6 * a + 3
        w1, w2, w3 = e[m], e[m + 1], e[m + 2]
        fe[m] -= w2 * pi[2] - w3 * pi[1]
        fe[m + 1] -= w3 * pi[0] - w1 * pi[2]
        fe[m + 2] -= w1 * pi[1] - w2 * pi[0]


@_jit
def efforts(q, e, data, fe):
    """``fe[e rows of the beams] +=`` the strain-rate coupling and the gyroscopic terms."""
    nb, qoff, eoff, nn, ng, nl_, goff = data[0], data[2], data[3], data[4], data[5], data[6], data[7]
    conn, Nt, Dt, W = data[8], data[9], data[10], data[11]
    width = conn.shape[1]
    x, u, sig = np.empty(12 * width), np.empty(6 * width), np.empty(6)
    fs, fu = np.empty(6), np.empty(6 * width)
    ws = point_workspace(width)
    for b in range(nb):
        iq, ie, nl = qoff[b], eoff[b], nl_[b]
        for g in range(ng[b]):
            row = goff[b] + g
            s0 = ie + 6 * nn[b] + 6 * g
            _gather(q, e, iq, ie, s0, conn, row, nl, x, u, sig)
            _point(x, u, sig, Nt[row], Dt[row], nl, W[row], fs, fu, ws)
            for c in range(6):
                fe[s0 + c] += fs[c]
            for a in range(nl):
                m = ie + 6 * conn[row, a]
                for c in range(6):
                    fe[m + c] += fu[6 * a + c]
        _gyro(e, data, b, fe)


@_jit
def effort_jacobian(q, e, nq, data, R, C, V, k):
    """The triplets of the derivatives of :func:`efforts` by ``y`` from ``k`` on (rows ``nq +``
    the effort row); returns the next free index."""
    nb, qoff, eoff, nn, ng, nl_, goff = data[0], data[2], data[3], data[4], data[5], data[6], data[7]
    conn, Nt, Dt, W = data[8], data[9], data[10], data[11]
    J, mp, mi, mv, noff = data[12], data[13], data[14], data[15], data[16]
    width = conn.shape[1]
    x, u, sig = np.empty(12 * width), np.empty(6 * width), np.empty(6)
    fs, fu = np.empty(6), np.empty(6 * width)
    fs2, fu2 = np.empty(6), np.empty(6 * width)
    zu, zs, pi = np.zeros(6 * width), np.zeros(6), np.empty(3)
    ws = point_workspace(width)
    for b in range(nb):
        iq, ie, nl = qoff[b], eoff[b], nl_[b]
        for g in range(ng[b]):
            row = goff[b] + g
            s0 = ie + 6 * nn[b] + 6 * g
            _gather(q, e, iq, ie, s0, conn, row, nl, x, u, sig)
            Nr, Dr, w = Nt[row], Dt[row], W[row]
            for j in range(12 * nl):            # configuration: polarization of the quadratic terms
                h = 1.0 + abs(x[j])
                xj = x[j]
                x[j] = xj + h
                _point(x, u, sig, Nr, Dr, nl, w, fs, fu, ws)
                x[j] = xj - h
                _point(x, u, sig, Nr, Dr, nl, w, fs2, fu2, ws)
                x[j] = xj
                col = iq + 12 * conn[row, j // 12] + j % 12
                for c in range(6):
                    k = emit(R, C, V, k, nq + s0 + c, col, (fs[c] - fs2[c]) / (2.0 * h))
                for a in range(nl):
                    m = nq + ie + 6 * conn[row, a]
                    for c in range(6):
                        k = emit(R, C, V, k, m + c, col, (fu[6 * a + c] - fu2[6 * a + c]) / (2.0 * h))
            for j in range(6 * nl):             # velocities: the stress rows are linear in them
                zu[j] = 1.0
                _point(x, zu, sig, Nr, Dr, nl, w, fs, fu, ws)
                zu[j] = 0.0
                col = nq + ie + 6 * conn[row, j // 6] + j % 6
                for c in range(6):
                    k = emit(R, C, V, k, nq + s0 + c, col, fs[c])
            for j in range(6):                  # stresses: the velocity rows are linear in them
                zs[j] = 1.0
                _point(x, u, zs, Nr, Dr, nl, w, fs, fu, ws)
                zs[j] = 0.0
                for a in range(nl):
                    m = nq + ie + 6 * conn[row, a]
                    for c in range(6):
                        k = emit(R, C, V, k, m + c, nq + s0 + j, fu[6 * a + c])
        for a in range(nn[b]):                  # gyroscopic: d(-omega_a x pi_a)
            ra = nq + ie + 6 * a + 3
            w1, w2, w3 = e[ra - nq], e[ra - nq + 1], e[ra - nq + 2]
            _node_momentum(e, data, b, a, pi)
            # d/d omega_a of -omega_a x pi: +[pi]x
            k = emit(R, C, V, k, ra, ra + 1, -pi[2])
            k = emit(R, C, V, k, ra, ra + 2, pi[1])
            k = emit(R, C, V, k, ra + 1, ra, pi[2])
            k = emit(R, C, V, k, ra + 1, ra + 2, -pi[0])
            k = emit(R, C, V, k, ra + 2, ra, -pi[1])
            k = emit(R, C, V, k, ra + 2, ra + 1, pi[0])
            for kk in range(mp[noff[b] + a], mp[noff[b] + a + 1]):   # d/d omega_b: -[omega_a]x M_ab J
                cb = nq + ie + 6 * mi[kk] + 3
                s = mv[kk]
                k = emit(R, C, V, k, ra, cb + 1, s * w3 * J[b, 1])
                k = emit(R, C, V, k, ra, cb + 2, -s * w2 * J[b, 2])
                k = emit(R, C, V, k, ra + 1, cb, -s * w3 * J[b, 0])
                k = emit(R, C, V, k, ra + 1, cb + 2, s * w1 * J[b, 2])
                k = emit(R, C, V, k, ra + 2, cb, s * w2 * J[b, 0])
                k = emit(R, C, V, k, ra + 2, cb + 1, -s * w1 * J[b, 1])
    return k


@_jit
def strains(q, data, b, out):
    """``out (ng, 6)``: ``(Gamma_1, Gamma_2, Gamma_3, kappa_1, kappa_2, kappa_3)`` at the quadrature
    points of beam ``b``."""
    qoff, ng, nl_, goff, conn, Nt, Dt = data[2], data[5], data[6], data[7], data[8], data[9], data[10]
    iq, nl = qoff[b], nl_[b]
    for g in range(ng[b]):
        row = goff[b] + g
        rp, db, dp = np.zeros(3), np.zeros((3, 3)), np.zeros((3, 3))
        for a in range(nl):
            o = iq + 12 * conn[row, a]
            Na, Da = Nt[row, a], Dt[row, a]
            for c in range(3):
                rp[c] += Da * q[o + c]
                for i in range(3):
                    db[i, c] += Na * q[o + 3 + 3 * i + c]
                    dp[i, c] += Da * q[o + 3 + 3 * i + c]
        for i in range(3):
            out[g, i] = db[i, 0] * rp[0] + db[i, 1] * rp[1] + db[i, 2] * rp[2] - (1.0 if i == 0 else 0.0)
        for m in range(3):
            acc = 0.0
            for n in range(3):
                for p in range(3):
                    s = _eps(m, n, p)
                    if s != 0.0:
                        acc += s * (db[p, 0] * dp[n, 0] + db[p, 1] * dp[n, 1] + db[p, 2] * dp[n, 2])
            out[g, 3 + m] = 0.5 * acc


register_family("spatial_exact_beams", ExactBeams3Data, pack=pack, has=has_beams, residual_add=beams_residual_add,
                jacobian_add=beams_jacobian_add)

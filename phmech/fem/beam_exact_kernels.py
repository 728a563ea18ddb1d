"""Kinematics and effort terms of the geometrically exact planar beams, as kernels.

The one implementation of the state-dependent terms of
:class:`~phmech.fem.beam_exact.GeometricallyExactBeam` (see that module's docstring
for the formulation): the beam's own :meth:`qdot`, :meth:`effort_force`,
:meth:`effort_terms` and :meth:`qdot_jacobians` call these kernels with the data of
the one beam, the compiled residual with the data of all the beams of a system
(:func:`pack`, the family ``"planar_exact_beams"``).

Per node ``i`` the configuration is ``(x_i, y_i, c_i, s_i)`` (position and director
``d_i = (c_i, s_i)``), the efforts ``(vx_i, vy_i, omega_i)``; per quadrature point
``g`` the efforts are the stress resultants ``(N_g, Q_g, M_g)``.  With the values
``N_a`` and derivatives ``D_a`` of the element's shape functions at ``g``:

.. math::

    X = \\sum D_a x_a,\\ Y = \\sum D_a y_a,\\ C = \\sum N_a c_a,\\ S = \\sum N_a s_a,\\
    C' = \\sum D_a c_a,\\ S' = \\sum D_a s_a,

    \\Gamma_1 = C X + S Y - 1, \\quad \\Gamma_2 = -S X + C Y, \\quad \\kappa = C S' - S C',

quadratic in ``q``.  The kinematics ``x_i' = vx_i``, ``y_i' = vy_i``,
``d_i' = omega_i (-s_i, c_i)`` is linear in ``q``; the strain rates are
``(Gamma_1, Gamma_2, kappa)' = B_g(q) e_v`` with ``B_g`` below.  The effort terms are
``f_sigma_g = w_g B_g e_v`` on the stress rows and ``f_v = -sum_g w_g B_g^T sigma_g``
on the velocity rows: a skew structure, ``e . f = 0`` exactly.  The Jacobians are
exact, written as triplets in ``y = (q, e, lam)`` (:mod:`phmech.fem.beam_operators`),
every entry of a point's dense block (their number does not depend on the state).
"""
from collections import namedtuple

import numpy as np

from ..kernels.families import register_family
from ..kernels.jit import jit as _jit
from .beam_operators import beams_jacobian_add, beams_residual_add, count_triplets, emit, has_beams

#: the packed beams (:func:`pack`), the data of the kernel family ``"planar_exact_beams"``
ExactBeamsData = namedtuple("ExactBeamsData", "nb nnz qoff eoff nn ng nl goff conn Nt Dt W")


def pack_tables(items):
    """The fields ``nb`` to ``W`` of the data of the exact beams ``[(beam, q slice, e slice), ...]``
    (planar or spatial; any number, also none): ``nnz`` (to be filled by counting), the offsets of
    their ``q`` and ``e``, their numbers of nodes, quadrature points and element nodes, and their
    stacked quadrature tables ``conn`` (local node numbers), ``Nt``, ``Dt`` (values and derivatives
    of the shape functions) and ``W`` (weights), beam ``b``'s rows from ``goff[b]``."""
    i64 = lambda xs: np.asarray(xs, np.int64)
    width = max([b.fe.conn.shape[1] for b, _, _ in items], default=1)

    def stacked(name, dtype):
        blocks = [getattr(b.fe, name) for b, _, _ in items]
        out = np.zeros((sum(len(x) for x in blocks), width), dtype)
        r = 0
        for x in blocks:
            out[r:r + len(x), :x.shape[1]] = x
            r += len(x)
        return out

    return (len(items), np.zeros(2, np.int64), i64([sq.start for _, sq, _ in items]),
            i64([se.start for _, _, se in items]), i64([b.n_nodes for b, _, _ in items]),
            i64([len(b.fe.W) for b, _, _ in items]), i64([b.fe.conn.shape[1] for b, _, _ in items]),
            i64(np.cumsum([0] + [len(b.fe.W) for b, _, _ in items])), stacked("conn", np.int64),
            stacked("Nt", float), stacked("Dt", float),
            np.concatenate([b.fe.W for b, _, _ in items]) if items else np.zeros(0))


def pack(items, dae=None):
    """The kernels' data of the beams ``[(beam, q slice, e slice), ...]`` (any number, also none):
    :func:`pack_tables`, ``nnz`` the numbers of triplets of the kinematic and the effort Jacobian."""
    return count_triplets(ExactBeamsData(*pack_tables(items)), items, qdot_jacobian, effort_jacobian)


@_jit
def qdot(q, e, data, out):
    """``out[q rows of the beams] = T(q) e``: ``r_i' = v_i``, ``d_i' = omega_i S d_i``."""
    nb, qoff, eoff, nn = data[0], data[2], data[3], data[4]
    for b in range(nb):
        iq, ie = qoff[b], eoff[b]
        for i in range(nn[b]):
            k, m = iq + 4 * i, ie + 3 * i
            w = e[m + 2]
            out[k] = e[m]
            out[k + 1] = e[m + 1]
            out[k + 2] = -w * q[k + 3]
            out[k + 3] = w * q[k + 2]


@_jit
def qdot_jacobian(q, e, nq, data, R, C, V, k):
    """The triplets of ``d(T(q) e)/dy`` from ``k`` on (``nq``: the first column of ``e`` in ``y``);
    returns the next free index."""
    nb, qoff, eoff, nn = data[0], data[2], data[3], data[4]
    for b in range(nb):
        iq, ie = qoff[b], eoff[b]
        for i in range(nn[b]):
            r, c = iq + 4 * i, nq + ie + 3 * i
            w = e[ie + 3 * i + 2]
            k = emit(R, C, V, k, r, c, 1.0)
            k = emit(R, C, V, k, r + 1, c + 1, 1.0)
            k = emit(R, C, V, k, r + 2, r + 3, -w)
            k = emit(R, C, V, k, r + 2, c + 2, -q[r + 3])
            k = emit(R, C, V, k, r + 3, r + 2, w)
            k = emit(R, C, V, k, r + 3, c + 2, q[r + 2])
    return k


@_jit
def _point_values(q, iq, conn, Nt, Dt, row, nl):
    """``(X, Y, C, S, C', S')`` at the quadrature point ``row``: the axis' tangent ``r'`` and the
    interpolated director and its derivative."""
    X = Y = Cg = Sg = Cd = Sd = 0.0
    for a in range(nl):
        k = iq + 4 * conn[row, a]
        Na, Da = Nt[row, a], Dt[row, a]
        X += Da * q[k]
        Y += Da * q[k + 1]
        Cg += Na * q[k + 2]
        Sg += Na * q[k + 3]
        Cd += Da * q[k + 2]
        Sd += Da * q[k + 3]
    return X, Y, Cg, Sg, Cd, Sd


@_jit
def _strain_rate_matrix(q, iq, conn, Nt, Dt, row, nl, B, dB, derivatives):
    """``B`` (3, 3 nl): the strain rates ``(Gamma_1, Gamma_2, kappa)'`` at the quadrature point
    ``row`` by the local velocities ``(vx_a, vy_a, omega_a)``; with ``derivatives`` also
    ``dB`` (3, 3 nl, 4 nl), its derivatives by the local ``(x_a, y_a, c_a, s_a)``."""
    X, Y, Cg, Sg, Cd, Sd = _point_values(q, iq, conn, Nt, Dt, row, nl)
    for a in range(nl):
        k = iq + 4 * conn[row, a]
        ca, sa = q[k + 2], q[k + 3]
        Na, Da = Nt[row, a], Dt[row, a]
        j = 3 * a
        B[0, j], B[0, j + 1], B[0, j + 2] = Cg * Da, Sg * Da, Na * (-sa * X + ca * Y)
        B[1, j], B[1, j + 1], B[1, j + 2] = -Sg * Da, Cg * Da, -Na * (ca * X + sa * Y)
        B[2, j], B[2, j + 1] = 0.0, 0.0
        B[2, j + 2] = -Na * (ca * Cd + sa * Sd) + Da * (sa * Sg + ca * Cg)
    if not derivatives:
        return
    dB[:, :3 * nl, :4 * nl] = 0.0
    for a in range(nl):
        k = iq + 4 * conn[row, a]
        ca, sa = q[k + 2], q[k + 3]
        Na, Da = Nt[row, a], Dt[row, a]
        j = 3 * a
        for b in range(nl):
            Nb, Db = Nt[row, b], Dt[row, b]
            m = 4 * b
            dB[0, j, m + 2] += Nb * Da                 # C D_a
            dB[0, j + 1, m + 3] += Nb * Da             # S D_a
            dB[0, j + 2, m] += -Na * sa * Db           # N_a (-s_a X + c_a Y)
            dB[0, j + 2, m + 1] += Na * ca * Db
            dB[1, j, m + 3] += -Nb * Da                # -S D_a
            dB[1, j + 1, m + 2] += Nb * Da             # C D_a
            dB[1, j + 2, m] += -Na * ca * Db           # -N_a (c_a X + s_a Y)
            dB[1, j + 2, m + 1] += -Na * sa * Db
            dB[2, j + 2, m + 2] += ca * (Da * Nb - Na * Db)    # -N_a (c_a C' + s_a S') + D_a (s_a S + c_a C)
            dB[2, j + 2, m + 3] += sa * (Da * Nb - Na * Db)
        m = 4 * a
        dB[0, j + 2, m + 3] += -Na * X                 # the node's own director in B[., omega_a]
        dB[0, j + 2, m + 2] += Na * Y
        dB[1, j + 2, m + 2] += -Na * X
        dB[1, j + 2, m + 3] += -Na * Y
        dB[2, j + 2, m + 2] += -Na * Cd + Da * Cg
        dB[2, j + 2, m + 3] += -Na * Sd + Da * Sg


@_jit
def _velocities(e, ie, conn, row, nl, v):
    """The local velocities ``(vx_a, vy_a, omega_a)`` of the quadrature point ``row`` into ``v``."""
    for a in range(nl):
        m = ie + 3 * conn[row, a]
        v[3 * a], v[3 * a + 1], v[3 * a + 2] = e[m], e[m + 1], e[m + 2]


@_jit
def efforts(q, e, data, fe):
    """``fe[e rows of the beams] +=`` the strain-rate coupling ``[[0, -B^T], [B, 0]](q) e``."""
    nb, qoff, eoff, nn, ng, nl_, goff = data[0], data[2], data[3], data[4], data[5], data[6], data[7]
    conn, Nt, Dt, W = data[8], data[9], data[10], data[11]
    width = conn.shape[1]
    B, dB = np.empty((3, 3 * width)), np.empty((1, 1, 1))
    v = np.empty(3 * width)
    for b in range(nb):
        iq, ie, nl = qoff[b], eoff[b], nl_[b]
        s0 = ie + 3 * nn[b]
        for g in range(ng[b]):
            row = goff[b] + g
            _strain_rate_matrix(q, iq, conn, Nt, Dt, row, nl, B, dB, False)
            _velocities(e, ie, conn, row, nl, v)
            w = W[row]
            sg = s0 + 3 * g
            for r in range(3):
                acc = 0.0
                for j in range(3 * nl):
                    acc += B[r, j] * v[j]
                fe[sg + r] += w * acc
            for a in range(nl):
                m = ie + 3 * conn[row, a]
                for c in range(3):
                    j = 3 * a + c
                    fe[m + c] -= w * (B[0, j] * e[sg] + B[1, j] * e[sg + 1] + B[2, j] * e[sg + 2])


@_jit
def effort_jacobian(q, e, nq, data, R, C, V, k):
    """The triplets of the derivatives of :func:`efforts` by ``y`` from ``k`` on (rows ``nq +``
    the effort row); returns the next free index."""
    nb, qoff, eoff, nn, ng, nl_, goff = data[0], data[2], data[3], data[4], data[5], data[6], data[7]
    conn, Nt, Dt, W = data[8], data[9], data[10], data[11]
    width = conn.shape[1]
    B, dB = np.empty((3, 3 * width)), np.empty((3, 3 * width, 4 * width))
    v = np.empty(3 * width)
    for b in range(nb):
        iq, ie, nl = qoff[b], eoff[b], nl_[b]
        s0 = ie + 3 * nn[b]
        for g in range(ng[b]):
            row = goff[b] + g
            _strain_rate_matrix(q, iq, conn, Nt, Dt, row, nl, B, dB, True)
            _velocities(e, ie, conn, row, nl, v)
            w = W[row]
            sg = s0 + 3 * g
            for r in range(3):                 # stress rows: w B (velocities), w dB v (q)
                for a in range(nl):
                    for c in range(3):
                        k = emit(R, C, V, k, nq + sg + r, nq + ie + 3 * conn[row, a] + c, w * B[r, 3 * a + c])
                for a in range(nl):
                    for c in range(4):
                        m = 4 * a + c
                        acc = 0.0
                        for j in range(3 * nl):
                            acc += dB[r, j, m] * v[j]
                        k = emit(R, C, V, k, nq + sg + r, iq + 4 * conn[row, a] + c, w * acc)
            for a in range(nl):                # velocity rows: -w B^T (stresses), -w dB^T sigma (q)
                for c in range(3):
                    j, rv = 3 * a + c, nq + ie + 3 * conn[row, a] + c
                    for r in range(3):
                        k = emit(R, C, V, k, rv, nq + sg + r, -w * B[r, j])
                    for a2 in range(nl):
                        for c2 in range(4):
                            m = 4 * a2 + c2
                            acc = dB[0, j, m] * e[sg] + dB[1, j, m] * e[sg + 1] + dB[2, j, m] * e[sg + 2]
                            k = emit(R, C, V, k, rv, iq + 4 * conn[row, a2] + c2, -w * acc)
    return k


@_jit
def strains(q, data, b, out):
    """``out (ng, 3)``: ``(Gamma_1, Gamma_2, kappa)`` at the quadrature points of beam ``b``."""
    qoff, ng, nl_, goff, conn, Nt, Dt = data[2], data[5], data[6], data[7], data[8], data[9], data[10]
    iq, nl = qoff[b], nl_[b]
    for g in range(ng[b]):
        row = goff[b] + g
        X, Y, Cg, Sg, Cd, Sd = _point_values(q, iq, conn, Nt, Dt, row, nl)
        out[g, 0] = Cg * X + Sg * Y - 1.0
        out[g, 1] = -Sg * X + Cg * Y
        out[g, 2] = Cg * Sd - Sg * Cd


register_family("planar_exact_beams", ExactBeamsData, pack=pack, has=has_beams, residual_add=beams_residual_add,
                jacobian_add=beams_jacobian_add)

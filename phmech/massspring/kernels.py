"""The forces of a mass-spring network and their exact Jacobians, as compiled kernels.

The one implementation of the spring, chain and dashpot laws: the
second-order network problem (:class:`~phmech.massspring.network.Network`),
the network loads of a :class:`phmech.System`
(:mod:`phmech.massspring.body`) and the compiled residual of the assembly
(family ``"networks"``) all call these kernels; with ``NUMBA_DISABLE_JIT=1``
the same source runs as Python.

A set of pair elements is packed into two arrays (:func:`element_arrays`):

* ``I[s]`` (int64, columns ``AQ, AE, BQ, BE, DIM, TENSION_ONLY``): the first
  ``q`` index and the first velocity (effort) index of the nodes ``a`` and
  ``b`` (``-1`` for a fixed point), the dimension, tension only (0/1);
* ``F[s]`` (float, columns ``L0, K, C, XA, XB``): rest length, stiffness,
  axial damping, the positions of fixed ends (3 each, zero padded).

With ``d = x_b - x_a``, ``L = |d|``, ``n = d / L``, ``P = I - n n^T`` and
``u = n . (v_b - v_a)`` the element pulls node ``a`` with ``F = (T + c u) n``
and node ``b`` with ``-F``; ``T = k (L - L0)`` (zero for a slack chain).  Its
exact derivatives are the blocks

    dF/dd = k n n^T + (T / L) P + (c / L) (u P + n (v_b - v_a)^T P),    dF/d(v_b - v_a) = c n n^T,

entering the node rows ``a`` with the signs ``(-, +)`` for the columns of
``a`` and ``b`` and the rows ``b`` with ``(+, -)``.

The data of the kernel family ``"networks"`` (:mod:`phmech.kernels.families`)
is ``nw = (I, F, Cc, Cv)`` (:data:`NetworksData`) with global indices and the
constant forces ``Cv`` on the effort columns ``Cc`` (gravity of constant
direction).
"""
from collections import namedtuple

import numpy as np

from ..kernels.jit import borrowed, inline as _jit_inline, jit as _jit
from ..kernels.families import register_family
from ..math.jacobian_target import jac_add

#: the family's packed data (:func:`pack_family`)
NetworksData = namedtuple("NetworksData", "I F Cc Cv")

#: columns of ``I``
AQ, AE, BQ, BE, DIM, TENSION_ONLY = range(6)
N_INT = 6
#: columns of ``F``
L0, K, C, XA, XB = 0, 1, 2, 3, 6
N_FLOAT = 9


def element_arrays(iq_a, ie_a, iq_b, ie_b, dim, tension_only, L0_, k, c, xa, xb):
    """The packed ``(I, F)`` of pair elements from per-element sequences (see the module docstring);
    ``xa``, ``xb``: positions of fixed ends, rows of ``dim`` numbers (ignored for free ends)."""
    m = len(iq_a)
    I = np.zeros((m, N_INT), np.int64)
    F = np.zeros((m, N_FLOAT))
    if m:
        I[:, AQ], I[:, AE], I[:, BQ], I[:, BE] = iq_a, ie_a, iq_b, ie_b
        I[:, DIM], I[:, TENSION_ONLY] = dim, np.asarray(tension_only, bool)
        F[:, L0], F[:, K], F[:, C] = L0_, k, c
        F[:, XA:XA + dim] = np.asarray(xa, float).reshape(m, dim)
        F[:, XB:XB + dim] = np.asarray(xb, float).reshape(m, dim)
    return I, F


def _empty():
    """The family's data of a model without networks (typed like a full one)."""
    I, F = element_arrays([], [], [], [], 3, [], [], [], [], np.zeros((0, 3)), np.zeros((0, 3)))
    return I, F, np.zeros(0, np.int64), np.zeros(0)


@_jit_inline
def _geometry(q, e, I, F, s, d, dv):
    """``d = x_b - x_a`` and ``dv = v_b - v_a`` of element ``s``; returns ``L = |d|``."""
    L2 = 0.0
    for a in range(I[s, DIM]):
        xa = q[I[s, AQ] + a] if I[s, AQ] >= 0 else F[s, XA + a]
        xb = q[I[s, BQ] + a] if I[s, BQ] >= 0 else F[s, XB + a]
        va = e[I[s, AE] + a] if I[s, AE] >= 0 else 0.0
        vb = e[I[s, BE] + a] if I[s, BE] >= 0 else 0.0
        d[a] = xb - xa
        dv[a] = vb - va
        L2 += d[a] * d[a]
    return np.sqrt(L2)


@_jit_inline
def _spring(I, F, s, L):
    """``(T, k_active)``: spring tension ``k (L - L0)`` and active stiffness (zero for a slack chain)."""
    stretch = L - F[s, L0]
    k = F[s, K]
    if I[s, TENSION_ONLY] != 0 and stretch <= 0.0:
        k = 0.0
    return k * stretch, k


@_jit
def network_state(q, e, I, F, S):
    """Per element ``S[s] = (L, n_0, n_1, n_2, T, k_active, u)``: length, direction, spring
    tension, active stiffness and axial relative velocity."""
    d, dv = np.zeros(3), np.zeros(3)
    for s in range(I.shape[0]):
        L = _geometry(q, e, I, F, s, d, dv)
        T, k = _spring(I, F, s, L)
        u = 0.0
        for a in range(I[s, DIM]):
            u += d[a] * dv[a] / L
        S[s, 0] = L
        for a in range(3):
            S[s, 1 + a] = d[a] / L
        S[s, 4], S[s, 5], S[s, 6] = T, k, u


@_jit
def elements_force_add(q, e, I, F, fe):
    """``fe[a] += (T + c u) n``, ``fe[b] -= (T + c u) n`` for every element (free ends only)."""
    d, dv = np.zeros(3), np.zeros(3)
    for s in range(I.shape[0]):
        L = _geometry(q, e, I, F, s, d, dv)
        T, _ = _spring(I, F, s, L)
        dim = I[s, DIM]
        if F[s, C] != 0.0:
            u = 0.0
            for a in range(dim):
                u += d[a] * dv[a]
            T += F[s, C] * u / L
        ia, ib = I[s, AE], I[s, BE]
        for a in range(dim):
            f = T * d[a] / L
            if ia >= 0:
                fe[ia + a] += f
            if ib >= 0:
                fe[ib + a] -= f


@_jit
def elements_blocks(q, e, I, F, B):
    """``B[s, 0] = dF/dd`` and ``B[s, 1] = dF/d(v_b - v_a)`` (3 x 3, zero padded) of every element."""
    d, dv, n, Pdv = np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3)
    for s in range(I.shape[0]):
        L = _geometry(q, e, I, F, s, d, dv)
        T, k = _spring(I, F, s, L)
        dim = I[s, DIM]
        c = F[s, C]
        u = 0.0
        for a in range(dim):
            n[a] = d[a] / L
            u += n[a] * dv[a]
        for a in range(dim):
            Pdv[a] = dv[a] - u * n[a]              # P (v_b - v_a)
        B[s, :, :, :] = 0.0
        for a in range(dim):
            for b in range(dim):
                nn = n[a] * n[b]
                P = (1.0 if a == b else 0.0) - nn
                B[s, 0, a, b] = k * nn + (T / L) * P + (c / L) * (u * P + n[a] * Pdv[b])
                B[s, 1, a, b] = c * nn


@_jit
def has_network_forces(nw):
    """Whether the data ``nw`` (:func:`pack_family`) has elements or constant forces."""
    return nw[0].shape[0] > 0 or nw[2].size > 0


@_jit
def network_forces_add(t, q, e, nw, fe):
    """The family's forces: the elements' and the constant ones, added to the efforts ``fe``."""
    I, F, Cc, Cv = nw
    for k in range(Cc.size):
        fe[Cc[k]] += Cv[k]
    elements_force_add(q, e, I, F, fe)


@_jit
def networks_residual_add(t, q, e, lam, nw, out, fe, fl):
    """The family's part of the residual: its forces added to the efforts ``fe``."""
    network_forces_add(t, q, e, nw, fe)


@_jit
def network_jacobian_add(t, q, e, lam, nw, act, J, nq):
    """The family's exact ``d f/dq`` and ``d f/de`` added to the Jacobian target ``J`` (effort rows from
    ``nq``, ``q`` columns from 0, effort columns from ``nq``)."""
    J = borrowed(J)              # no reference counts of the target's arrays in the writes
    I, F = nw[0], nw[1]
    B = np.empty((I.shape[0], 2, 3, 3))
    elements_blocks(q, e, I, F, B)
    for s in range(I.shape[0]):
        dim = I[s, DIM]
        for p in range(2):
            r = I[s, AE] if p == 0 else I[s, BE]
            if r < 0:
                continue
            for m in range(2):
                cq = I[s, AQ] if m == 0 else I[s, BQ]
                ce = I[s, AE] if m == 0 else I[s, BE]
                if cq < 0:
                    continue
                sign = -1.0 if p == m else 1.0
                for a in range(dim):
                    for b in range(dim):
                        jac_add(J, nq + r + a, cq + b, sign * B[s, 0, a, b])
                        jac_add(J, nq + r + a, nq + ce + b, sign * B[s, 1, a, b])


@_jit
def scatter_blocks(B, which, entry, sign, pos, data):
    """``data[pos[t]] += sign[t] * B[:, which].ravel()[entry[t]]`` (values of a fixed CSR pattern)."""
    data[:] = 0.0
    for t in range(pos.size):
        s = entry[t] // 9
        ab = entry[t] - 9 * s
        data[pos[t]] += sign[t] * B[s, which, ab // 3, ab % 3]


def pack_family(items, dae=None):
    """The family's data (:data:`NetworksData`) from the assembled loads ``(load, q slice, e slice)``
    that name it (each gives its ``kernel_entry(q offset, e offset)``)."""
    parts = [ld.kernel_entry(sq.start, se.start) for ld, sq, se in items] + [_empty()]
    dtypes = (np.int64, float, np.int64, float)
    return NetworksData(*(np.ascontiguousarray(np.concatenate([p[k] for p in parts]), dtypes[k])
                          for k in range(4)))


register_family("networks", NetworksData, pack=pack_family, has=has_network_forces,
                residual_add=networks_residual_add, jacobian_add=network_jacobian_add,
                port_forces_add=network_forces_add)

"""Sparse operators of many beams stacked into one set of CSR arrays, and the kernels applying them.

The consistent beams (:mod:`phmech.fem.beam_nonlinear_kernels`,
:mod:`phmech.fem.beam3d_nonlinear_kernels`) evaluate their state-dependent
terms from sparse operators at the quadrature points.  A *packed operator*
``(indptr, indices, data, start)`` holds one operator of every beam of a
family, the rows of beam ``b`` being ``start[b]:start[b + 1]`` and its
columns local to the beam (offset by the beam's first ``q`` or ``e`` entry
at evaluation).  All operators of a family share one set of CSR arrays
(:func:`stack_all`; ``start`` of operator ``k`` is row ``k`` of a 2-d
array, :func:`op`): a call of a compiled function receives four arrays
for them instead of four per operator, which keeps the cost of passing
the model's data to the kernels small.  The Jacobians are written as triplets ``(row, column,
value)`` in the unknowns ``y = (q, e, lam)``; their number does not depend
on the state (no value is skipped), so one call with empty arrays counts
them (:func:`emit` writes only what fits).
"""
import sys

import numpy as np
import scipy.sparse as sp

from ..kernels.jit import borrowed, inline as _jit_inline, jit as _jit
from ..kernels.families import by_data_class
from ..math.jacobian_target import jac_add


def stack(mats):
    """The packed operator of the sparse matrices ``mats`` (one per beam, local columns)."""
    if not mats:
        return (np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(1, np.int64))
    width = max(A.shape[1] for A in mats)       # local columns: pad to the widest beam
    blocks = [sp.csr_matrix(A) for A in mats]
    blocks = [sp.csr_matrix((A.data, A.indices, A.indptr), shape=(A.shape[0], width)) for A in blocks]
    S = sp.vstack(blocks, format="csr")
    S.sort_indices()
    start = np.cumsum([0] + [A.shape[0] for A in blocks]).astype(np.int64)
    return (S.indptr.astype(np.int64), S.indices.astype(np.int64), S.data.astype(float), start)


def stack_all(operators, names):
    """The operators ``names`` of every beam (``operators``: one dict name -> local sparse matrix
    per beam) in one CSR set ``(indptr, indices, data, start)``; ``start[k, b]:start[k, b + 1]`` are the rows of
    operator ``k`` of beam ``b`` (:func:`op` gives it as a packed operator)."""
    ops = [stack([o[name] for o in operators]) for name in names]
    row0 = np.cumsum([0] + [o[0].size - 1 for o in ops])       # first row of each operator
    nnz0 = np.cumsum([0] + [o[1].size for o in ops])           # first stored entry of each
    indptr = np.concatenate([np.zeros(1, np.int64)] + [o[0][1:] + nnz0[k] for k, o in enumerate(ops)])
    start = np.array([o[3] + row0[k] for k, o in enumerate(ops)], np.int64).reshape(len(ops), len(operators) + 1)
    return (indptr.astype(np.int64), np.concatenate([o[1] for o in ops]).astype(np.int64),
            np.concatenate([o[2] for o in ops]).astype(float), start)


@_jit
def op(ops, k):
    """Operator ``k`` of the packed set ``ops`` of :func:`stack_all`."""
    return ops[0], ops[1], ops[2], ops[3][k]


def _beam_kernel(name):
    """The kernel ``name`` of a beam family: the function of the module of its data class."""
    def resolve(cls):
        return getattr(sys.modules[cls.__module__], name)
    return resolve


@by_data_class(2, _beam_kernel("qdot"))
def beam_qdot(q, e, data, out):
    """``qdot(q, e, data, out)`` of the data's family."""


@by_data_class(2, _beam_kernel("efforts"))
def beam_efforts(q, e, data, fe):
    """``efforts(q, e, data, fe)`` of the data's family."""


@by_data_class(3, _beam_kernel("qdot_jacobian"))
def beam_qdot_jacobian(q, e, nq, data, R, C, V, k):
    """``qdot_jacobian(q, e, nq, data, R, C, V, k)`` of the data's family."""


@by_data_class(3, _beam_kernel("effort_jacobian"))
def beam_effort_jacobian(q, e, nq, data, R, C, V, k):
    """``effort_jacobian(q, e, nq, data, R, C, V, k)`` of the data's family."""


@_jit
def has_beams(data):
    """Whether a beam family's packed data (``data[0]``: the number of beams) holds a beam."""
    return data[0] > 0


@_jit
def beams_residual_add(t, q, e, lam, data, out, fe, fl):
    """A beam family's part of the residual (:mod:`phmech.kernels.families`): the kinematic rows
    into ``out``, the effort terms added to ``fe``, by the kernels of the data's family."""
    beam_qdot(q, e, data, out)
    beam_efforts(q, e, data, fe)


@_jit
def beams_jacobian_add(t, q, e, lam, data, act, J, nq):
    """The exact derivatives of :func:`beams_residual_add` added to the Jacobian target ``J``: the family's
    kinematic, then effort Jacobian kernels write triplets (their counts are ``data[1]``)."""
    J = borrowed(J)              # no reference counts of the target's arrays in the writes
    n = data[1][0] + data[1][1]
    R, C, V = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n)
    k = beam_qdot_jacobian(q, e, nq, data, R, C, V, 0)
    k = beam_effort_jacobian(q, e, nq, data, R, C, V, k)
    for m in range(k):
        jac_add(J, R[m], C[m], V[m])


def counted(count, data, q, e, nq):
    """The number of triplets the Jacobian kernel ``count(q, e, nq, data, R, C, V, 0)`` writes."""
    z = np.zeros(0, np.int64)
    return int(count(q, e, nq, data, z, z, np.zeros(0), 0))


def count_triplets(data, items, qdot_jacobian, effort_jacobian):
    """Fill ``data[1]`` (the ``nnz`` of a family's packed data) with the numbers of triplets of its
    kinematic and effort Jacobian kernels for the beams ``items`` (counted at their initial
    configurations: the numbers do not depend on the state); returns ``data``."""
    if items:
        nq = max(sq.stop for _, sq, _ in items)
        q = np.zeros(nq)
        for b, sq, _ in items:
            q[sq] = b.q0
        e = np.zeros(max(se.stop for _, _, se in items))
        data[1][0] = counted(qdot_jacobian, data, q, e, nq)
        data[1][1] = counted(effort_jacobian, data, q, e, nq)
    return data


@_jit_inline
def rows(op, b):
    """The number of rows of beam ``b`` in a packed operator."""
    return op[3][b + 1] - op[3][b]


@_jit_inline
def rows_mv_to(op, b, x, c0, out):
    """``out[:rows] =`` the rows of beam ``b`` of a packed operator times ``x[c0:]`` (columns
    offset by ``c0``): for the kernels that keep their vectors in one work array."""
    indptr, indices, data, start = op
    r0, r1 = start[b], start[b + 1]
    for i in range(r0, r1):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * x[c0 + indices[k]]
        out[i - r0] = s


@_jit
def rows_mv(op, b, x, c0):
    """The rows of beam ``b`` of a packed operator times ``x[c0:]`` (columns offset by ``c0``)."""
    out = np.zeros(rows(op, b))
    rows_mv_to(op, b, x, c0, out)
    return out


@_jit
def rows_tmv_add(op, b, v, out, c0, scale):
    """``out[c0 + j] += scale * (A_b^T v)[j]``."""
    indptr, indices, data, start = op
    r0, r1 = start[b], start[b + 1]
    for i in range(r0, r1):
        vi = scale * v[i - r0]
        for k in range(indptr[i], indptr[i + 1]):
            out[c0 + indices[k]] += data[k] * vi


@_jit
def rows_tmv(op, b, v, n):
    """``A_b^T v`` as a vector of the ``n`` local columns."""
    out = np.zeros(n)
    rows_tmv_add(op, b, v, out, 0, 1.0)
    return out


@_jit_inline
def emit(R, C, V, k, r, c, v):
    """Triplet number ``k`` (written only where the arrays have room); returns ``k + 1``."""
    if k < R.size:
        R[k] = r
        C[k] = c
        V[k] = v
    return k + 1


# The writers below store their triplets in their own loops rather than through emit: a call
# of a compiled helper with arrays in an inner loop costs about 20 ns (the arrays' reference
# counts), five times the store itself (the effort Jacobian of a 4-element beam: 46 -> 12 us).

@_jit
def emit_sandwich(A, B, b, d, scale, r0, c0, R, C, V, k):
    """The triplets of ``scale * A_b^T diag(d) B_b`` at rows ``r0 +`` (columns of ``A``) and
    columns ``c0 +`` (columns of ``B``); ``A`` and ``B`` have the same rows."""
    Ap, Ai, Ad, As = A
    Bp, Bi, Bd, Bs = B
    a0, a1, b0 = As[b], As[b + 1], Bs[b]
    room = R.size
    for i in range(a1 - a0):
        ia, ib = a0 + i, b0 + i
        di = scale * d[i]
        for m in range(Ap[ia], Ap[ia + 1]):
            v = di * Ad[m]
            r = r0 + Ai[m]
            for n in range(Bp[ib], Bp[ib + 1]):
                if k < room:
                    R[k] = r
                    C[k] = c0 + Bi[n]
                    V[k] = v * Bd[n]
                k += 1
    return k


@_jit
def emit_entries(A, b, scale, r0, c0, R, C, V, k):
    """The triplets of ``scale * A_b`` (rows ``r0 +`` local row, columns ``c0 +`` column)."""
    Ap, Ai, Ad, As = A
    room = R.size
    for i in range(As[b], As[b + 1]):
        for m in range(Ap[i], Ap[i + 1]):
            if k < room:
                R[k] = r0 + i - As[b]
                C[k] = c0 + Ai[m]
                V[k] = scale * Ad[m]
            k += 1
    return k


@_jit
def emit_column(v, scale, r0, col, R, C, V, k):
    """The triplets ``(r0 + i, col, scale * v[i])`` of every ``i``."""
    room = R.size
    for i in range(v.size):
        if k < room:
            R[k] = r0 + i
            C[k] = col
            V[k] = scale * v[i]
        k += 1
    return k


@_jit
def emit_row(v, scale, row, c0, R, C, V, k):
    """The triplets ``(row, c0 + j, scale * v[j])`` of every ``j``."""
    room = R.size
    for j in range(v.size):
        if k < room:
            R[k] = row
            C[k] = c0 + j
            V[k] = scale * v[j]
        k += 1
    return k


def triplets_to_dense(R, C, V, k, shape):
    """The dense matrix of the first ``k`` triplets (duplicates summed)."""
    out = np.zeros(shape)
    np.add.at(out, (R[:k], C[:k]), V[:k])
    return out


def split_effort_triplets(R, C, V, nq, ne):
    """``(df/dq, df/de)`` (sparse COO) of effort-Jacobian triplets in ``y = (q, e)`` of one body."""
    r, isq = R - nq, C < nq
    return (sp.coo_matrix((V[isq], (r[isq], C[isq])), shape=(ne, nq)),
            sp.coo_matrix((V[~isq], (r[~isq], C[~isq] - nq)), shape=(ne, ne)))


class KernelBeam:
    """The kernel data of a consistent beam: the class names its family's kernel module
    (``_kernels``, with ``pack``, which also packs the family's beams for the compiled
    residual); a beam's own methods run the kernels on its data alone."""

    _kernels = None

    def _own_data(self):
        """The kernels' data of this beam alone (local ``q`` and ``e``), built once."""
        if getattr(self, "_kernel_data", None) is None:
            self._kernel_data = self._kernels.pack([(self, slice(0, self.nq), slice(0, self.ne))])
        return self._kernel_data

    def qdot(self, q, e):
        """The kinematic equation ``q' = T(q) e`` by the family's kernel."""
        out = np.empty(self.nq)
        self._kernels.qdot(np.asarray(q, float), np.asarray(e, float), self._own_data(), out)
        return out

    def qdot_jacobians(self, q, e):
        """Exact dense ``(d qdot/dq, d qdot/de)`` from the family's kinematic Jacobian kernel."""
        R, C, V = self._triplets(self._kernels.qdot_jacobian, q, e, 0)
        T = triplets_to_dense(R, C, V, R.size, (self.nq, self.nq + self.ne))
        return T[:, :self.nq], T[:, self.nq:]

    def effort_force(self, t, q, e):
        """The effort terms ``f(q, e)`` by the family's kernel."""
        f = np.zeros(self.ne)
        self._kernels.efforts(np.asarray(q, float), np.asarray(e, float), self._own_data(), f)
        return f

    def effort_terms(self, t, q, e):
        """``(f, df/dq, df/de)``: the state-dependent structure of the beam (its module's docstring),
        exact derivatives from the family's effort Jacobian kernel."""
        R, C, V = self._triplets(self._kernels.effort_jacobian, q, e, 1)
        return self.effort_force(t, q, e), *split_effort_triplets(R, C, V, self.nq, self.ne)

    def _triplets(self, kernel, q, e, which):
        """The triplets of one of the family's Jacobian kernels on this beam alone (``which``: the
        entry of the data counting them)."""
        data = self._own_data()
        n = int(data[1][which])
        R, C, V = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n)
        kernel(np.asarray(q, float), np.asarray(e, float), self.nq, data, R, C, V, 0)
        return R, C, V

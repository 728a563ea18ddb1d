"""The loads of the packed form ``f = A^T R(q)^T u(t)``: their data and their kernels.

A load whose force is the base class's (:class:`~phmech.loads.Load`: a
constant input matrix ``A`` on a body's effort columns, the input ``u(t)``
in inertial or body components) is evaluated for all such loads at once:
:func:`pack_loads` gives their data, :func:`_loads_add` the forces and
:func:`loads_jacobian_values` their exact derivatives by the rotation
coordinates (planar angle or quaternion).  The compiled residual and the
assembled Jacobian call them; other loads (dampers, custom forces) keep
their own methods.
"""
import numpy as np
import scipy.sparse as sp

from ._jit import jit as _jit
from .math.rotations import PlanarAngle, UnitQuaternion, quadratic_halfgrad_into, quadratic_into

#: the codes of the rotation kinds: no rotation, planar angle, quaternion
KINDS = {None: 0, PlanarAngle: 1, UnitQuaternion: 2}


def pack_loads(loads):
    """``(packed, others, arrays)`` for the assembled loads ``(load, q slice, e slice)``:
    the loads of the packed form, the others, and ``(kind, rot, dim, ptr, cols, AT)``
    (``AT``: the rows of ``A^T`` padded to 3 columns)."""
    from .loads import Load
    packed = [(ld, sq, se) for ld, sq, se in loads
              if type(ld).force is Load.force and type(ld).force_e is Load.force_e
              and (not ld.inertial or getattr(ld.body, "rotation_kind", None) in KINDS)]
    others = [item for item in loads if item not in packed]
    kind, rot, dim, ptr, cols, AT = [], [], [], [0], [], []
    for ld, sq, se in packed:
        A = np.asarray(ld.A.toarray() if sp.issparse(ld.A) else ld.A, float)
        m = A.shape[0]
        kind.append(KINDS[ld.body.rotation_kind] if ld.inertial else 0)
        rot.append(sq.start + (ld.body.rotation_index if ld.inertial else 0))
        dim.append(m)
        cols.append(se.start + np.asarray(ld.cols, int))
        block = np.zeros((A.shape[1], 3))
        block[:, :m] = A.T
        AT.append(block)
        ptr.append(ptr[-1] + A.shape[1])
    arrays = (np.array(kind, np.int64), np.array(rot, np.int64), np.array(dim, np.int64), np.array(ptr, np.int64),
              np.concatenate(cols).astype(np.int64) if cols else np.zeros(0, np.int64),
              np.vstack(AT) if AT else np.zeros((0, 3)))
    return packed, others, arrays


@_jit
def _loads_add(q, loads, fe):
    """``fe[cols] += A^T R^T u`` of every compiled load (kind 0: no rotation, 1: planar angle,
    2: quaternion ``R = Q(p) / |p|^2``)."""
    kind, rot, dim, ptr, cols, AT, U = loads
    ub = np.empty(3)
    Q = np.empty((3, 3))
    for k in range(kind.size):
        u = U[k]
        ub[:] = 0.0
        if kind[k] == 0:
            for i in range(3):
                ub[i] = u[i]
        elif kind[k] == 1:
            c, s = np.cos(q[rot[k]]), np.sin(q[rot[k]])
            ub[0] = c * u[0] + s * u[1]
            ub[1] = -s * u[0] + c * u[1]
        else:
            o = rot[k]
            pw, px, py, pz = q[o], q[o + 1], q[o + 2], q[o + 3]
            n2 = pw * pw + px * px + py * py + pz * pz
            quadratic_into(pw, px, py, pz, Q)
            for i in range(3):
                ub[i] = (Q[0, i] * u[0] + Q[1, i] * u[1] + Q[2, i] * u[2]) / n2
        for j in range(ptr[k], ptr[k + 1]):
            acc = 0.0
            for i in range(dim[k]):
                acc += AT[j, i] * ub[i]
            fe[cols[j]] += acc


@_jit
def loads_jacobian_values(q, loads, vals):
    """``d(A^T R(q)^T u)/dq`` of the compiled loads: ``vals[4 j + m]`` is the derivative of
    the force on column ``cols[j]`` by rotation coordinate ``rot[k] + m`` of its load ``k``
    (zero for loads without rotation and for ``m`` beyond a planar angle)."""
    kind, rot, dim, ptr, cols, AT, U = loads
    dub = np.empty((3, 4))                    # d(R^T u)_i / d(rotation coordinate m)
    Q, dQ = np.empty((3, 3)), np.empty((4, 3, 3))
    vals[:] = 0.0
    for k in range(kind.size):
        if kind[k] == 0:
            continue
        u = U[k]
        o = rot[k]
        nrot = 1 if kind[k] == 1 else 4
        dub[:, :] = 0.0
        if kind[k] == 1:
            c, s = np.cos(q[o]), np.sin(q[o])
            dub[0, 0] = -s * u[0] + c * u[1]
            dub[1, 0] = -c * u[0] - s * u[1]
        else:
            pw, px, py, pz = q[o], q[o + 1], q[o + 2], q[o + 3]
            p = (pw, px, py, pz)
            n2 = pw * pw + px * px + py * py + pz * pz
            quadratic_into(pw, px, py, pz, Q)
            quadratic_halfgrad_into(pw, px, py, pz, dQ)
            for i in range(3):
                qu = Q[0, i] * u[0] + Q[1, i] * u[1] + Q[2, i] * u[2]
                for m in range(4):
                    dqu = dQ[m, 0, i] * u[0] + dQ[m, 1, i] * u[1] + dQ[m, 2, i] * u[2]
                    dub[i, m] = 2 * dqu / n2 - 2 * p[m] * qu / (n2 * n2)
        for j in range(ptr[k], ptr[k + 1]):
            for m in range(nrot):
                acc = 0.0
                for i in range(dim[k]):
                    acc += AT[j, i] * dub[i, m]
                vals[4 * j + m] = acc


@_jit
def _loads_jacobian_add(q, loads, J, r0):
    """:func:`loads_jacobian_values` added to ``J[r0 + cols, q]``."""
    kind, rot, ptr, cols = loads[0], loads[1], loads[3], loads[4]
    vals = np.empty(4 * cols.size)
    loads_jacobian_values(q, loads, vals)
    for k in range(kind.size):
        if kind[k] == 0:
            continue
        for j in range(ptr[k], ptr[k + 1]):
            for m in range(1 if kind[k] == 1 else 4):
                J[r0 + cols[j], rot[k] + m] += vals[4 * j + m]

"""Where the Jacobian kernels write: one ``jac_add(J, r, c, v)`` for a dense matrix, or for the
values of a sparse matrix whose writes were recorded once.

Each Jacobian kernel of the package (the frames', the joints', the families', the loads' and
the assembly's :func:`~phmech.assembly.compiled_jacobian.jacobian_kernel`) adds its entries
with :func:`jac_add`; the *target* ``J`` decides where they go:

dense
    a 2-D float array: ``J[r, c] += v`` (the iteration matrices of the compiled Newton loops);
sparse
    ``(a, b, data, counter)``, with ``counter = [k, mode, n, misses]``:

    * recording (``mode == 1``, :func:`recording_target`): the ``k``-th write goes to
      ``(a[k], b[k]) = (r, c)`` while ``k < a.size``, and ``k`` counts them all, so that a
      second pass with room for them all records the whole sequence (:func:`record_writes`);
    * values (``mode == 0``, :meth:`Writes.target`): the ``k``-th write adds ``v`` to
      ``data[a[k]]``, ``a`` mapping each recorded write to its entry of the CSR pattern, after
      checking that it is the recorded one (``b[k] == r * n + c``); a write that is not (a
      state whose kernels write elsewhere or more often) is left out and counted in ``misses``,
      and the caller records the writes again at that state
      (:meth:`~phmech.assembly.compiled.CompiledResidual.sparse_jacobian`).

The kernels write their entries in the same order at every call of a model (their loops run
over its structure), so a sparse evaluation reads ``a`` and ``b`` in order and makes no search.
The sparse Jacobian of the models above the dense limit is thus the same compiled kernels'
values scattered into CSR, not a second assembly: the kernels are written once against
:func:`jac_add`, and compiled in two versions (dense and sparse).  Compiled, the target's type
selects its version when numba compiles the caller (:func:`numba.extending.overload`; LLVM
inlines it, as fast as writing ``J[r, c] += v`` there: numba's own inlining of the IR loses the
writes through the tuple); interpreted, :func:`jac_add` tells the targets apart by their types.
"""
import numpy as np

from ..kernels.jit import numba


def _dense_add(J, r, c, v):
    J[r, c] += v


def _sparse_add(J, r, c, v):
    a, b, data, counter = J
    k = counter[0]
    if counter[1] == 1:                  # recording
        if k < a.size:
            a[k] = r
            b[k] = c
    elif k < a.size and b[k] == r * counter[2] + c:
        data[a[k]] += v
    else:
        counter[3] += 1
    counter[0] = k + 1


def jac_add(J, r, c, v):
    """``J[r, c] += v`` for the target ``J`` (module docstring)."""
    if isinstance(J, np.ndarray):
        J[r, c] += v
    else:
        _sparse_add(J, r, c, v)


if numba is not None and not numba.config.DISABLE_JIT:
    from numba import types
    from numba.extending import overload

    @overload(jac_add, inline="always")
    def _jac_add_typed(J, r, c, v):
        if isinstance(J, types.Array):
            return _dense_add
        if isinstance(J, types.BaseTuple) and len(J) == 4:
            return _sparse_add
        return None


def recording_target(room, n):
    """An empty recording target with room for ``room`` writes into an ``n x n`` matrix."""
    return np.empty(room, np.int64), np.empty(room, np.int64), np.zeros(0), np.array([0, 1, n, 0], np.int64)


class Writes:
    """The recorded writes of a Jacobian evaluation into an ``n x n`` matrix: their CSR pattern
    (``indptr``, sorted ``indices``) and, for each write in order, its entry ``slot`` of the
    pattern and its key ``r * n + c``."""

    def __init__(self, rows, cols, n):
        self.n = n
        self.keys = rows * n + cols
        unique, self.slot = np.unique(self.keys, return_inverse=True)
        self.slot = self.slot.astype(np.int64).ravel()
        indptr = np.zeros(n + 1, np.int64)
        np.add.at(indptr, unique // n + 1, 1)
        self.indptr = np.cumsum(indptr)
        self.indices = (unique % n).astype(np.int64)

    def target(self):
        """A values target of these writes, its values zero."""
        return self.slot, self.keys, np.zeros(self.indices.size), np.array([0, 0, self.n, 0], np.int64)

    def values_complete(self, target):
        """Whether the evaluation into ``target`` made exactly the recorded writes."""
        return target[3][3] == 0 and target[3][0] == self.slot.size


def record_writes(write, n, room):
    """The :class:`Writes` that ``write(target)`` makes into an ``n x n`` matrix, with ``room`` a
    first guess of their number."""
    target = recording_target(max(int(room), 1), n)
    write(target)
    if target[3][0] > target[0].size:          # more writes than room: once more with enough
        target = recording_target(int(target[3][0]), n)
        write(target)
    k = int(target[3][0])
    return Writes(target[0][:k], target[1][:k], n)

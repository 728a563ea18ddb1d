"""The Jacobian targets of the kernels (:mod:`phmech.math.jacobian_target`): the same writes
give a dense matrix and, recorded once, the values of the sparse one, compiled and interpreted."""
import numpy as np
import pytest
import scipy.sparse as sp

from phmech.kernels.jit import numba
from phmech.math.jacobian_target import jac_add, record_writes


def _writes(x, J):
    """Entries of a matrix that depend on the state: ``(i, i)`` always, ``(i, i + 1)`` where
    ``x[i] != 0``, with repeated writes to the diagonal."""
    n = x.size
    for i in range(n):
        jac_add(J, i, i, 1.0 + x[i])
        if x[i] != 0.0:
            jac_add(J, i, (i + 1) % n, x[i])
        jac_add(J, i, i, 0.5)


_compiled = [False] + ([True] if numba is not None and not numba.config.DISABLE_JIT else [])


def _csr(writes, target):
    return sp.csr_matrix((target[2], writes.indices, writes.indptr), shape=(writes.n, writes.n)).toarray()


@pytest.mark.parametrize("compiled", _compiled)
def test_dense_and_sparse_targets_agree(compiled):
    """Recorded with too little room (a second pass), then evaluated at two states that write
    the same entries: the CSR values are the dense matrix's."""
    write = numba.njit(_writes) if compiled else _writes
    x = np.array([0.0, 2.0, 0.0, -3.0, 1.5])
    writes = record_writes(lambda target: write(x, target), 5, room=2)
    assert writes.indptr.tolist() == [0, 1, 3, 4, 6, 8] and writes.slot.size == 13
    for z in (x, 2.0 * x):
        D = np.zeros((5, 5))
        write(z, D)
        target = writes.target()
        write(z, target)
        assert writes.values_complete(target)
        assert np.array_equal(_csr(writes, target), D)


@pytest.mark.parametrize("compiled", _compiled)
def test_writes_other_than_the_recorded_ones_are_counted_not_made(compiled):
    """A state that writes entries the recorded evaluation did not: those writes are left out
    and counted, so the caller records the writes again."""
    write = numba.njit(_writes) if compiled else _writes
    n = 4
    writes = record_writes(lambda target: write(np.zeros(n), target), n, room=16)
    target = writes.target()
    write(np.array([0.0, 1.0, 0.0, 2.0]), target)
    assert not writes.values_complete(target)
    assert target[3][3] > 0

"""Conversion of assembled Firedrake objects to scipy/numpy."""
import numpy as np
import scipy.sparse as sp


def to_scipy(A):
    """Assembled Firedrake matrix (monolithic AIJ) -> scipy CSR."""
    mat = A.petscmat
    indptr, indices, data = mat.getValuesCSR()
    return sp.csr_matrix((data, indices, indptr), shape=mat.getSize())


def to_numpy(b):
    """Assembled Firedrake cofunction on a (mixed) space -> one flat array."""
    data = b.dat.data_ro
    if isinstance(data, tuple):
        return np.concatenate([np.asarray(d).ravel() for d in data])
    return np.asarray(data).ravel().copy()

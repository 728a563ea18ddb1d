"""Triple products ``A^T diag(d) B`` with a fixed sparsity pattern, for exact Jacobians."""
import numpy as np
import scipy.sparse as sp


class Sandwich:
    """``A^T diag(d) B`` for fixed sparse ``A`` (nQ, m) and ``B`` (nQ, n) and varying ``d``, as triplets."""

    def __init__(self, A, B):
        A, B = sp.csr_matrix(A), sp.csr_matrix(B)
        I, J, K, C = [], [], [], []
        for k in range(A.shape[0]):
            ai, av = A.indices[A.indptr[k]:A.indptr[k + 1]], A.data[A.indptr[k]:A.indptr[k + 1]]
            bj, bv = B.indices[B.indptr[k]:B.indptr[k + 1]], B.data[B.indptr[k]:B.indptr[k + 1]]
            I.append(np.repeat(ai, len(bj)))
            J.append(np.tile(bj, len(ai)))
            K.append(np.full(len(ai) * len(bj), k))
            C.append(np.outer(av, bv).ravel())
        I, J = np.concatenate(I), np.concatenate(J)
        self.k, self.c = np.concatenate(K), np.concatenate(C)
        keys, self.idx = np.unique(I * B.shape[1] + J, return_inverse=True)
        self.I, self.J = keys // B.shape[1], keys % B.shape[1]
        self.n = len(keys)

    def __call__(self, d):
        return self.I, self.J, np.bincount(self.idx, weights=self.c * d[self.k], minlength=self.n)

"""The solves of the reduction on distributed PETSc matrices (MPI): normal modes by SLEPc and
constraint modes by a MUMPS factorization, each rank owning a block of rows.

The full body's matrices are on every rank (assembled on ``COMM_SELF``); each rank hands its
own rows to PETSc, so the factorizations and the Krylov--Schur iteration are distributed, and
the modes are gathered on every rank for the projection (small: ``n x r``).  The eigen solver
is :func:`phmech.solvers.eigen_slepc.condensed_modes_slepc` and the factor its saddle-point
factor, the same as on one process.
"""
import numpy as np
import scipy.sparse as sp

from .basis import ReductionError


def _petsc():
    from petsc4py import PETSc
    return PETSc


def split_rows(n, size, rank):
    """The rows ``[start, stop)`` of ``rank`` of ``n`` rows over ``size`` ranks (PETSc's default split)."""
    base, extra = divmod(n, size)
    start = rank * base + min(rank, extra)
    return start, start + base + (1 if rank < extra else 0)


def distributed(A, comm):
    """The global scipy matrix ``A`` (the same on every rank) as a PETSc ``aij`` matrix on ``comm``
    whose rows and columns are split as :func:`split_rows` splits them."""
    PETSc = _petsc()
    A = sp.csr_matrix(A, dtype=float)
    size, rank = comm.getSize(), comm.getRank()
    r0, r1 = split_rows(A.shape[0], size, rank)
    c0, c1 = split_rows(A.shape[1], size, rank)
    local = A[r0:r1]
    local.sort_indices()
    return PETSc.Mat().createAIJ(((r1 - r0, A.shape[0]), (c1 - c0, A.shape[1])),
                                 csr=(local.indptr.astype(PETSc.IntType), local.indices.astype(PETSc.IntType),
                                      local.data), comm=comm)


def gather(vec, comm):
    """The global array of a distributed PETSc vector, on every rank."""
    parts = comm.tompi4py().allgather(vec.getArray().copy())
    return np.concatenate(parts)


def normal_modes(split, G, k, comm):
    """:func:`phmech.reduce.basis.normal_modes` on ``comm`` (SLEPc with distributed matrices)."""
    from ..solvers.eigen_slepc import condensed_modes_slepc
    if k == 0:
        return np.zeros(0), np.zeros((split.nv, 0))
    mats = [distributed(X, comm) for X in (split.Mv, split.C, split.D)]
    Gp = distributed(G, comm) if G.shape[0] else None
    omega, vecs = condensed_modes_slepc(*mats, k=k, G=Gp, comm=comm)
    Phi = np.column_stack([gather(x, comm) for x in vecs])
    big = np.argmax(np.abs(Phi), axis=0)
    Phi *= np.sign(Phi[big, np.arange(Phi.shape[1])])
    return np.asarray(omega, float), Phi


def constraint_modes(split, G, comm):
    """Static constraint modes ``Psi = K^{-1} G^T (G K^{-1} G^T)^{-1}`` on ``comm``: the solves
    ``K^{-1} G^T`` with the saddle-point factor of ``[[0, D^T], [D, -C]]`` (MUMPS, distributed),
    for a body that its own conditions hold (``K`` definite)."""
    from ..solvers.eigen_slepc import _saddle_factor, transpose
    nG = G.shape[0]
    if not nG:
        return np.zeros((split.nv, 0))
    Mv, C, D = (distributed(X, comm) for X in (split.Mv, split.C, split.D))
    try:
        shell = _saddle_factor(Mv, C, D, transpose(D), None, None, 0.0, comm)
    except ValueError:
        raise ReductionError(f"body '{split.body.name}': its stiffness is singular without the interface (a "
                             "motion without strain); the distributed constraint modes need a body that its "
                             "own conditions hold") from None
    r, y = Mv.createVecs()
    r0, r1 = r.getOwnershipRange()
    X = np.zeros((split.nv, nG))
    for i in range(nG):
        r.setArray(np.ascontiguousarray(G[i, r0:r1]))
        shell.apply(None, r, y)
        X[:, i] = gather(y, comm)
    return X @ np.linalg.inv(G @ X)

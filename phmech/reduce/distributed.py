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

from .basis import ReductionError, fixed_signs


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
    return np.asarray(omega, float), fixed_signs(Phi)


def constraint_modes(split, G, comm, rtol=1e-14):
    """Static constraint modes ``Psi = K^{-1} G^T (G K^{-1} G^T)^{-1}`` on ``comm``, for a body that its
    own conditions hold (``K`` definite).

    ``K^{-1} G^T`` by conjugate gradients on ``K = D^T C^{-1} D`` (never formed), preconditioned
    by the factor of ``K + mu M_v`` with ``mu`` of the order of the lowest eigenvalue (the
    quasi-definite saddle-point factor of the eigen solver, distributed by MUMPS without
    pivoting): the preconditioned spectrum lies in ``[1/2, 1)``, so a few iterations reach
    ``rtol``.  (At ``mu = 0`` the zero velocity block of the saddle-point matrix would make
    a distributed MUMPS delay most pivots.)"""
    from ..solvers.eigen_slepc import _Condensed, _negative_shift, transpose
    PETSc = _petsc()
    nG = G.shape[0]
    if not nG:
        return np.zeros((split.nv, 0))
    Mv, C, D = (distributed(X, comm) for X in (split.Mv, split.C, split.D))
    Dt = transpose(D)
    K = PETSc.Mat().createPython(Mv.getSizes(), _Condensed(C, D, Dt, comm), comm=comm)
    K.setUp()
    try:
        _, shell = _negative_shift(Mv, C, D, Dt, None, None, K, comm)
    except ValueError as err:
        raise ReductionError(f"body '{split.body.name}': the preconditioner of the static modes failed ({err})") from None
    ksp = PETSc.KSP().create(comm)
    ksp.setOperators(K)
    ksp.setType("cg")
    ksp.getPC().setType("python")
    ksp.getPC().setPythonContext(shell)
    ksp.setTolerances(rtol=rtol, atol=0.0, max_it=500)
    r, y = Mv.createVecs()
    r0, r1 = r.getOwnershipRange()
    X = np.zeros((split.nv, nG))
    for i in range(nG):
        r.setArray(np.ascontiguousarray(G[i, r0:r1]))
        y.set(0.0)
        ksp.solve(r, y)
        if ksp.getConvergedReason() <= 0:
            raise ReductionError(f"body '{split.body.name}': the static solve K u = G^T e_{i} did not converge "
                                 f"({ksp.getIterationNumber()} iterations, reason {ksp.getConvergedReason()}): "
                                 "is the body held by its own conditions?")
        X[:, i] = gather(y, comm)
    return X @ np.linalg.inv(G @ X)

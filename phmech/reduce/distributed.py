"""The solves of the reduction on distributed PETSc matrices (MPI), each rank owning a block of
rows: the static solves ``K^{-1} r`` by preconditioned conjugate gradients (:class:`_Stiffness`)
and the fixed-interface modes by SLEPc's Krylov--Schur with the held compliance
``(I - Psi G) K^{-1}`` as its shift-and-invert operator (:class:`_HeldInverse`).

The full body's matrices are on every rank (assembled on ``COMM_SELF``); each rank hands its
own rows to PETSc, so the factorizations (MUMPS), the iterations and the eigen solve are
distributed, and the modes are gathered on every rank for the projection (small: ``n x r``).
The eigen solver is :func:`phmech.solvers.eigen_slepc.condensed_modes_slepc`, the
preconditioner its quasi-definite saddle-point factor.
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


class _Stiffness:
    """``K^{-1}`` on ``comm``: conjugate gradients on ``K = D^T C^{-1} D`` (never formed),
    preconditioned by the factor of ``K + mu M_v`` with ``mu`` of the order of the lowest
    eigenvalue (the quasi-definite saddle-point factor of the eigen solver, distributed by MUMPS
    without pivoting): the preconditioned spectrum lies in ``[1/2, 1)``, so a few iterations
    reach ``rtol``.  (At ``mu = 0`` the zero velocity block of the saddle-point matrix makes a
    distributed MUMPS delay most pivots, and so does a border of interface rows.)"""

    def __init__(self, split, comm, rtol=1e-14):
        from ..solvers.eigen_slepc import _Condensed, _negative_shift, transpose
        PETSc = _petsc()
        self.split, self.comm = split, comm
        self.Mv, self.C, self.D = (distributed(X, comm) for X in (split.Mv, split.C, split.D))
        Dt = transpose(self.D)
        K = PETSc.Mat().createPython(self.Mv.getSizes(), _Condensed(self.C, self.D, Dt, comm), comm=comm)
        K.setUp()
        try:
            _, shell = _negative_shift(self.Mv, self.C, self.D, Dt, None, None, K, comm)
        except ValueError as err:
            raise ReductionError(f"body '{split.body.name}': the preconditioner of the static solves failed "
                                 f"({err})") from None
        self.ksp = PETSc.KSP().create(comm)
        self.ksp.setOperators(K)
        self.ksp.setType("cg")
        self.ksp.getPC().setType("python")
        self.ksp.getPC().setPythonContext(shell)
        self.ksp.setTolerances(rtol=rtol, atol=0.0, max_it=500)
        self.r0, self.r1 = self.Mv.getOwnershipRange()

    def solve(self, r, y):
        """``y = K^{-1} r`` (PETSc vectors of the velocities)."""
        y.set(0.0)
        self.ksp.solve(r, y)
        if self.ksp.getConvergedReason() <= 0:
            raise ReductionError(f"body '{self.split.body.name}': the static solve did not converge "
                                 f"({self.ksp.getIterationNumber()} iterations, reason "
                                 f"{self.ksp.getConvergedReason()}): is the body held by its own conditions?")


class _HeldInverse:
    """PETSc python PC: ``y = (I - Psi G) K^{-1} r``, the compliance with the interface rows ``G``
    held (symmetric, onto ``ker G``): the shift-invert operator of the fixed-interface modes."""

    def __init__(self, stiffness, Psi, G):
        self.K, self.comm = stiffness, stiffness.comm.tompi4py()
        r0, r1 = stiffness.r0, stiffness.r1
        self.Psi, self.G = np.ascontiguousarray(Psi[r0:r1]), np.ascontiguousarray(G[:, r0:r1])

    def apply(self, pc, r, y):
        self.K.solve(r, y)
        if self.G.shape[0]:
            a = y.getArray()
            g = self.comm.allreduce(self.G @ a)
            y.setArray(a - self.Psi @ g)


def modes(split, G, k, comm):
    """``(Psi, omega, Phi)`` on ``comm``: the static constraint modes of the interface rows ``G``,
    ``Psi = K^{-1} G^T (G K^{-1} G^T)^{-1}``, and the ``k`` lowest normal modes with ``G`` held (SLEPc,
    :func:`phmech.solvers.eigen_slepc.condensed_modes_slepc` with the operator of
    :class:`_HeldInverse`); for a body that its own conditions hold (``K`` definite)."""
    from ..solvers.eigen_slepc import condensed_modes_slepc
    stiffness = _Stiffness(split, comm)
    r, y = stiffness.Mv.createVecs()
    nG = G.shape[0]
    X = np.zeros((split.nv, nG))
    for i in range(nG):
        r.setArray(np.ascontiguousarray(G[i, stiffness.r0:stiffness.r1]))
        stiffness.solve(r, y)
        X[:, i] = gather(y, comm)
    Psi = X @ np.linalg.inv(G @ X) if nG else X
    if k == 0:
        return Psi, np.zeros(0), np.zeros((split.nv, 0))
    omega, vecs = condensed_modes_slepc(stiffness.Mv, stiffness.C, stiffness.D, k=k, comm=comm,
                                        inverse=_HeldInverse(stiffness, Psi, G))
    Phi = np.column_stack([gather(x, comm) for x in vecs])
    return Psi, np.asarray(omega, float), fixed_signs(Phi)

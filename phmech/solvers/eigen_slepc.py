"""Vibration modes of large condensed pH pencils with SLEPc (serial or MPI).

For ``J = [[0, -B^T], [B, 0]]`` and ``E = diag(Mv, C)`` (velocities ``v``,
stresses ``s``) the pencil ``J e = j omega E e`` is equivalent, for
``omega != 0``, to the generalized Hermitian problem

.. math::  K v = \\omega^2 M_v v, \\qquad K = B^T C^{-1} B

(the self-equilibrated stresses, ``B^T s = 0``, are the zero eigenvalues
and drop out).  :func:`condensed_modes_slepc` solves it with SLEPc's
Krylov-Schur (Hermitian Lanczos in the ``Mv`` inner product) in
shift-and-invert mode.  ``K`` is never formed: ``(K - sigma Mv)^{-1} r`` is
the velocity part of the solution of the saddle-point system

.. math::

    \\begin{bmatrix} -\\sigma M_v & B^T & G^T \\\\ B & -C & 0 \\\\ G & 0 & 0 \\end{bmatrix}
    \\begin{bmatrix} y \\\\ s \\\\ \\mu \\end{bmatrix} =
    \\begin{bmatrix} r \\\\ 0 \\\\ 0 \\end{bmatrix},

scaled by its diagonal blocks and factorized by MUMPS (symmetric
indefinite LDL^T, distributed under MPI) and applied as the
preconditioner of the spectral transformation's ``preonly`` solver
(``STSINVERT`` with ``STSetMatMode(SHELL)``: SLEPc applies ``Mv`` and the
back-transformation ``lambda = sigma + 1/theta`` itself).  Velocity
constraints ``G v = 0`` border the factor, as in
:func:`phmech.fem.condensed.condensed_modes`: the operator maps into ``ker G``
and the multipliers' infinite eigenvalues are its zero eigenvalues, never
among the largest-magnitude ones returned.

For ``sigma = 0`` (the default: the lowest modes) the zero velocity
block would make MUMPS delay most pivots; since ``K`` is positive
semi-definite, the modes nearest 0 are those nearest any negative shift
``-mu2``, and with it the matrix is quasi-definite (``mu2 Mv`` and ``-C``
definite), factorized without pivoting in any order.  ``mu2`` is a
Rayleigh quotient after a few steps of inverse iteration, of the order of
the lowest eigenvalue (:func:`_negative_shift`; one to four extra
factorizations): the first modes stay well separated after the
transformation (six plate modes: one or two restarts).  Other shifts use the matrix as it is, with
threshold pivoting and, on one process, an ordering of the graph
compressed by a weighted matching (:class:`_SaddleShiftInvert`).

The matrices may be scipy sparse (serial; converted to PETSc) or
assembled PETSc ``aij`` matrices with the same row distribution (MPI).
"""
import logging

import numpy as np

log = logging.getLogger("phmech")


def _petsc():
    from .._stack import init_petsc
    init_petsc()                 # PETSc's own command-line options only
    from petsc4py import PETSc
    return PETSc


def import_slepc():
    """``slepc4py.SLEPc``.

    When the extension module cannot find ``libslepc`` (a pip-built SLEPc
    whose library directory is not on the extension's run path), the
    library of the installed ``slepc`` package is loaded first by its full
    path, after which the extension links against it.
    """
    _petsc()
    try:
        from slepc4py import SLEPc
    except ImportError as err:
        if "libslepc" not in str(err):
            raise
        import ctypes
        import glob
        import os

        import slepc
        libs = sorted(glob.glob(os.path.join(slepc.get_slepc_dir(), "lib", "libslepc.so.*")))
        if not libs:
            raise
        log.info("slepc4py: loading %s by path (not on the extension's run path)", libs[0])
        ctypes.CDLL(libs[0], mode=ctypes.RTLD_GLOBAL)
        from slepc4py import SLEPc
    return SLEPc


def have_slepc():
    """True when ``slepc4py.SLEPc`` can be imported (see :func:`import_slepc`)."""
    try:
        import_slepc()
    except ImportError:
        return False
    return True


def to_petsc(A, comm=None):
    """A scipy sparse matrix as a PETSc ``aij`` matrix on one process (``comm`` default SELF)."""
    import scipy.sparse as sp
    PETSc = _petsc()
    A = sp.csr_matrix(A, dtype=float)
    A.sort_indices()
    return PETSc.Mat().createAIJ(A.shape, csr=(A.indptr.astype(PETSc.IntType), A.indices.astype(PETSc.IntType),
                                               A.data), comm=comm or PETSc.COMM_SELF)


def transpose(A):
    """Explicit transpose of a PETSc matrix (a new matrix)."""
    return A.transpose(_petsc().Mat())


def scaled(A, alpha):
    """``alpha * A`` as a new PETSc matrix."""
    S = A.copy()
    S.scale(alpha)
    return S


#: MUMPS errors of a too small work space estimate (INFOG(1)), cured by a larger ICNTL(14)
_WORKSPACE_ERRORS = (-8, -9, -11, -12, -14, -15, -17, -20)


def mumps_solver(A, comm, what, symmetric=False, workspace=50, pivot_threshold=None, icntl=None):
    """``preonly`` KSP with a MUMPS factorization of ``A`` (LU, or LDL^T when ``symmetric``:
    MUMPS's general symmetric mode, 2 x 2 pivots for indefinite matrices, half the storage).

    ``workspace`` is MUMPS's ICNTL(14), the extra work space in percent of
    its estimate; saddle-point matrices (zero diagonal blocks) delay pivots
    beyond the estimate, so a work-space failure is retried with four times
    more, up to three times.  Any other failure raises ``ValueError``
    naming ``what`` and MUMPS's INFOG(1).  ``icntl`` sets further MUMPS
    integer controls ``{index: value}``.
    """
    PETSc = _petsc()
    if symmetric:
        A.setOption(PETSc.Mat.Option.SYMMETRIC, True)
    info = 0
    for _ in range(4):
        ksp = PETSc.KSP().create(comm)
        ksp.setOperators(A)
        ksp.setType("preonly")
        pc = ksp.getPC()
        pc.setType("cholesky" if symmetric else "lu")
        pc.setFactorSolverType("mumps")
        pc.setFactorSetUpSolverType()
        F = pc.getFactorMatrix()
        F.setMumpsIcntl(14, int(workspace))
        if pivot_threshold is not None:
            F.setMumpsCntl(1, float(pivot_threshold))
        for key, value in (icntl or {}).items():
            F.setMumpsIcntl(key, value)
        ksp.setErrorIfNotConverged(True)
        try:
            ksp.setUp()
        except PETSc.Error:
            pass
        info = F.getMumpsInfog(1)
        if info >= 0:
            return ksp
        if info not in _WORKSPACE_ERRORS:
            break
        log.debug("%s: MUMPS work space too small (INFOG(1) = %d), ICNTL(14) %d -> %d",
                  what, info, workspace, 4 * workspace)
        workspace *= 4
    raise ValueError(f"{what}: the MUMPS factorization failed (INFOG(1) = {info}"
                     + ("; the matrix is numerically singular)" if info == -10 else ")"))


#: MUMPS controls of the saddle-point factor (see :class:`_SaddleShiftInvert`)
SADDLE_ICNTL = {6: 5, 12: 2}


class _SaddleShiftInvert:
    """PETSc python PC: ``y = (K - sigma Mv)^{-1} r`` by the bordered saddle-point factor.

    The saddle-point matrix is scaled symmetrically by ``d = diag(Mv, C, 1)^(-1/2)``
    and factorized as ``L D L^T`` with MUMPS's largest pivot threshold
    (CNTL(1) = 0.5): its blocks differ by many orders of magnitude (masses,
    bending and shear compliances) and the velocity block is zero for
    ``sigma = 0``.  With MUMPS's default threshold, or without the scaling,
    the velocity part of a solve of a Mindlin plate loses three to five
    digits (measured against a dense solve: 2e-9 and 7e-8 relative, against
    2e-13 with both).  The ordering is computed on the graph compressed by a
    maximum weighted matching (ICNTL(6) = 5, ICNTL(12) = 2), which pairs each
    velocity with a stress: with the plain ordering the zero velocity block
    delays about twice as many pivots as there are unknowns (Kirchhoff,
    24 x 24: 19205 of 9216, work space exhausted, factorization 5 to 20 times
    slower), with the compressed one a few percent.  MUMPS applies the
    matching only to a centralized matrix, so under MPI the quasi-definite
    form of :func:`_negative_shift` (``pivot_threshold = 0``) is what keeps
    the factorization cheap.
    """

    def __init__(self, S, d, is_v, comm, pivot_threshold=0.5):
        self.S = S
        self.d = d
        S.diagonalScale(d, d)
        self.ksp = mumps_solver(S, comm, "condensed_modes_slepc: K - sigma Mv", symmetric=True,
                                pivot_threshold=pivot_threshold, icntl=SADDLE_ICNTL)
        self.is_v = is_v
        self.rhs, self.sol = S.createVecs()
        self.rhs.set(0.0)

    def apply(self, pc, r, y):
        self.rhs.set(0.0)
        rv = self.rhs.getSubVector(self.is_v)
        r.copy(rv)
        self.rhs.restoreSubVector(self.is_v, rv)
        self.rhs.pointwiseMult(self.rhs, self.d)
        self.ksp.solve(self.rhs, self.sol)
        self.sol.pointwiseMult(self.sol, self.d)
        sv = self.sol.getSubVector(self.is_v)
        sv.copy(y)
        self.sol.restoreSubVector(self.is_v, sv)


class _Condensed:
    """PETSc python Mat: ``K x = B^T C^{-1} B x`` (``C`` factorized on first use)."""

    def __init__(self, C, B, Bt, comm):
        self.C, self.B, self.Bt, self.comm = C, B, Bt, comm
        self.kspC = None
        self.s, self.Bx = C.createVecs()

    def mult(self, mat, x, y):
        if self.kspC is None:
            self.kspC = mumps_solver(self.C, self.comm, "condensed_modes_slepc: compliance C")
        self.B.mult(x, self.Bx)
        self.kspC.solve(self.Bx, self.s)
        self.Bt.mult(self.s, y)


def _saddle_factor(Mv, C, B, Bt, G, Gt, shift, comm):
    """The scaled, factorized saddle-point matrix of ``(K - shift Mv)^{-1}`` as a python PC context."""
    PETSc = _petsc()
    blocks = [[scaled(Mv, -shift) if shift else None, Bt], [B, scaled(C, -1.0)]]
    if G is not None:
        blocks[0].append(Gt)
        blocks[1].append(None)
        blocks.append([G, None, None])
    nest = PETSc.Mat().createNest(blocks, comm=comm)
    S = nest.convert("aij", PETSc.Mat())
    is_v = nest.getNestISs()[0][0]
    d = S.createVecLeft()
    d.set(1.0)
    for X, iset in zip((Mv, C), nest.getNestISs()[0]):
        sub = d.getSubVector(iset)
        X.getDiagonal(sub)
        d.restoreSubVector(iset, sub)
    d.sqrtabs()
    d.reciprocal()
    try:
        # quasi-definite (shift < 0, no constraints): any pivot order is stable enough, and
        # threshold pivoting would only delay pivots (MUMPS's matching is not applied to
        # distributed matrices); otherwise threshold pivoting
        quasi = shift < 0 and G is None
        return _SaddleShiftInvert(S, d, is_v, comm, pivot_threshold=0.0 if quasi else 0.5)
    except ValueError:
        raise ValueError(f"condensed_modes_slepc: K - sigma M is singular at sigma = {shift:g} (rigid-body "
                         "modes of a plate without enough supports?); pass a shift sigma < 0") from None


def _negative_shift(Mv, C, B, Bt, G, Gt, K, comm, iterations=3, factorizations=4):
    """A shift ``-mu2`` with ``mu2`` of the order of the lowest eigenvalue, and its factor.

    ``mu2`` starts at the Rayleigh quotient of the vector of ones and
    becomes the Rayleigh quotient after three steps of inverse iteration at
    ``-mu2``, refactorized while it drops by more than a factor 4 (at most
    ``factorizations``).  Rayleigh quotients bound the lowest eigenvalue
    from above, so ``-mu2`` stays below the spectrum.
    """
    x = Mv.createVecRight()
    x.set(1.0)
    Kx, Mx = x.duplicate(), x.duplicate()

    def rayleigh(x):
        K.mult(x, Kx)
        Mv.mult(x, Mx)
        return x.dot(Kx) / x.dot(Mx)

    mu2 = rayleigh(x)
    for attempt in range(factorizations):
        shell = _saddle_factor(Mv, C, B, Bt, G, Gt, -mu2, comm)
        for _ in range(iterations):
            Mv.mult(x, Mx)
            shell.apply(None, Mx, x)
            x.scale(1.0 / x.norm())
        new = rayleigh(x)
        log.debug("condensed_modes_slepc: internal shift %.6g, Rayleigh quotient after inverse iteration %.6g",
                  -mu2, new)
        if new > mu2 / 4 or attempt == factorizations - 1:
            return -mu2, shell
        mu2 = new


def _as_petsc(A, comm):
    import scipy.sparse as sp
    if A is None:
        return None
    if sp.issparse(A) or isinstance(A, np.ndarray):
        return to_petsc(A, comm)
    return A


def condensed_modes_slepc(Mv, C, B, k=6, sigma=0.0, G=None, tol=1e-12, comm=None, return_vecs=True, inverse=None):
    """Lowest ``k`` vibration modes of ``J = [[0, -B^T], [B, 0]]``, ``E = diag(Mv, C)`` with SLEPc.

    The SLEPc counterpart of :func:`phmech.fem.condensed.condensed_modes` (see
    the module docstring for the method).

    Parameters
    ----------
    Mv, C, B : scipy sparse or PETSc ``aij`` matrices
        Velocity mass ``(nv, nv)``, compliance ``(ns, ns)`` and ``B`` ``(ns, nv)``.
        PETSc matrices may be distributed (then ``comm`` is theirs).
    k : int
        Number of modes.
    sigma : float
        Shift of ``omega^2``; ``sigma < 0`` for plates with rigid-body modes.
    G : scipy sparse, ndarray or PETSc matrix ``(nl, nv)``, optional
        Velocity constraints ``G v = 0`` (multipliers border the factor).
    tol : float
        Relative tolerance of SLEPc's convergence test.
    inverse : PETSc python PC context, optional
        Applies ``(K - sigma Mv)^{-1}`` (restricted to ``ker G``) instead of the saddle-point
        factor, e.g. by an iterative solve; ``G`` is then left to it.

    Returns
    -------
    omega : ndarray (k,)
        Ascending angular frequencies [rad/s] (the same on every rank).
    V : ndarray ``(nv, k)`` (scipy input) or list of PETSc Vec (PETSc input), or None
        Velocity parts, ``V^T Mv V = I``; None when ``return_vecs`` is False.
    """
    import scipy.sparse as sp
    SLEPc = import_slepc()
    PETSc = _petsc()
    scipy_in = sp.issparse(Mv)
    if comm is None:
        comm = PETSc.COMM_SELF if scipy_in else Mv.getComm()
    Mv, C, B, G = (_as_petsc(X, comm) for X in (Mv, C, B, G))
    nv = Mv.getSize()[0]
    if not (isinstance(k, (int, np.integer)) and 1 <= k < nv):
        raise ValueError(f"condensed_modes_slepc: k must be an integer in [1, {nv - 1}], got {k!r}")
    if not np.isfinite(sigma):
        raise ValueError(f"condensed_modes_slepc: the shift sigma must be finite, got {sigma!r}")
    Bt = transpose(B)
    Gt = None if G is None else transpose(G)
    condensed = _Condensed(C, B, Bt, comm)
    K = PETSc.Mat().createPython(Mv.getSizes(), condensed, comm=comm)
    K.setUp()
    if inverse is not None:
        shift, shell = float(sigma), inverse
    elif sigma == 0.0:
        # K is positive semi-definite: the modes nearest 0 are those nearest any negative shift,
        # whose saddle-point matrix is quasi-definite
        shift, shell = _negative_shift(Mv, C, B, Bt, G, Gt, K, comm)
    else:
        shift = float(sigma)
        shell = _saddle_factor(Mv, C, B, Bt, G, Gt, shift, comm)

    eps = SLEPc.EPS().create(comm)
    eps.setOperators(K, Mv)
    eps.setProblemType(SLEPc.EPS.ProblemType.GHEP)
    eps.setType(SLEPc.EPS.Type.KRYLOVSCHUR)
    eps.setDimensions(nev=k)
    eps.setWhichEigenpairs(SLEPc.EPS.Which.TARGET_MAGNITUDE)
    eps.setTarget(shift)
    eps.setTolerances(tol=tol, max_it=1000)
    st = eps.getST()
    st.setType(SLEPc.ST.Type.SINVERT)
    st.setShift(shift)
    st.setMatMode(SLEPc.ST.MatMode.SHELL)
    ksp = st.getKSP()
    ksp.setType("preonly")
    pc = ksp.getPC()
    pc.setType("python")
    pc.setPythonContext(shell)
    eps.solve()
    nconv = eps.getConverged()
    if nconv < k:
        raise RuntimeError(f"condensed_modes_slepc: {nconv} of {k} modes converged "
                           f"({eps.getIterationNumber()} restarts)")
    w2 = np.array([eps.getEigenvalue(i).real for i in range(nconv)])
    order = np.argsort(w2)[:k]
    omega = np.sqrt(np.maximum(w2[order], 0.0))
    log.debug("condensed_modes_slepc: %d of %d pairs converged, %d restarts", nconv, k, eps.getIterationNumber())
    if not return_vecs:
        return omega, None
    vecs = []
    for i in order:
        x = Mv.createVecRight()
        eps.getEigenvector(int(i), x)
        vecs.append(x)
    if scipy_in:
        return omega, np.column_stack([x.getArray().copy() for x in vecs])
    return omega, vecs

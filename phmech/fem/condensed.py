"""The vibration modes of a pH body whose structure couples velocities and stresses only.

``J = [[0, -B^T], [B, 0]]`` and ``E = diag(M_v, C)`` (plates, fixed form bodies): the pencil
reduces to the stiffness ``K = B^T C^-1 B`` against the mass ``M_v`` without forming ``C^-1``.
"""
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def condensed_modes(Mv, C, B, k=6, sigma=0.0, G=None):
    """Lowest ``k`` vibration modes of ``J = [[0, -B^T], [B, 0]]``, ``E = diag(Mv, C)``.

    With ``e = (v, s)`` (velocities, stresses) the pencil ``J e = j omega E e``
    is equivalent to ``B^T C^-1 B v = omega^2 Mv v`` for ``omega != 0`` (the
    self-equilibrated stresses, ``B^T s = 0``, are the zero eigenvalues and
    drop out).  Shift-invert Lanczos with the sparse saddle-point factor
    ``[[-sigma Mv, B^T], [B, -C]]``: no inverse of ``C`` is formed.  Velocity
    constraints ``G v = 0`` (with multipliers) border the factor, so that
    the operator maps into ``ker G`` and the multipliers' infinite
    eigenvalues become its zero eigenvalues, never among those returned.

    Returns
    -------
    omega : ndarray (k,)  ascending [rad/s]
    V : ndarray (nv, k)   velocity parts, ``V^T Mv V = I``
    """
    nv = Mv.shape[0]
    nl = 0 if G is None else G.shape[0]
    if nl:
        Gs = sp.csr_matrix(G)
        S = sp.bmat([[-sigma * Mv, B.T, Gs.T], [B, -C, None], [Gs, None, None]], format="csc")
    else:
        S = sp.bmat([[-sigma * Mv, B.T], [B, -C]], format="csc")
    try:
        lu = spla.splu(S)
    except RuntimeError:
        raise ValueError("condensed_modes: K - sigma M is singular (rigid-body modes of a plate without "
                         "enough supports); pass a shift sigma < 0") from None
    luC = spla.splu(sp.csc_matrix(C))

    def opinv(f):
        return lu.solve(np.concatenate([f, np.zeros(C.shape[0] + nl)]))[:nv]

    K = spla.LinearOperator((nv, nv), matvec=lambda x: B.T @ luC.solve(B @ x), dtype=float)
    Op = spla.LinearOperator((nv, nv), matvec=opinv, dtype=float)
    # a fixed (generic) start vector: the same matrices give the same frequencies in every process
    v0 = np.random.default_rng(12345).standard_normal(nv)
    w2, V = spla.eigsh(K, k=k, M=Mv, sigma=sigma, OPinv=Op, which="LM", tol=1e-12, v0=v0)
    order = np.argsort(w2)
    w2, V = w2[order], V[:, order]
    return np.sqrt(np.maximum(w2, 0.0)), V

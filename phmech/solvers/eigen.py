"""Natural frequencies of linearized, constrained pH systems.

Equilibrium and tangent stiffness
---------------------------------
A model with loads, force elements or effort terms is linearized about a
static equilibrium ``y* = (q*, e*, lam*)`` (:mod:`phmech.solvers.static`).
Its tangent stiffness ``K = -A_eq T`` is read from the model's exact
Jacobian ``A`` at ``y*`` (``T = dq'/de``): gravity and the loads, the
springs with their preload, the geometric stiffness ``lam* . d2g/dq2`` of the
joint reactions.  On the motions the joints allow it is written as
``C^T C`` with stress variables ``z = C delta`` (``delta' = e``), so the
pencil below keeps its form with ``M -> diag(M, I)`` and
``J0 -> [[A_ee, -C^T], [C, 0]]``.

Without loads the equilibrium is any configuration at rest (``e = 0``,
``lam = 0``): the gyroscopic terms and the configuration-dependent parts of
the Jacobian vanish, and the vibrations obey the descriptor system

.. math::  M \\dot e = J_0 e + G(q)^T \\lambda, \\qquad 0 = G(q)\\, e ,

i.e. the generalized eigenvalue problem ``E Phi Lambda = A Phi`` with
``E = diag(M, 0)`` and ``A = [[J0, G^T], [-G, 0]]``.  ``J0`` is skew and
``M`` symmetric positive definite, so the finite eigenvalues are purely
imaginary, ``lambda = +- j omega``.

Spurious modes
--------------
The pencil has exactly ``2 nl`` infinite eigenvalues, which come from
the multipliers (``nl`` independent constraints).  They are removed by
rule, not by index:

* ``method="hermitian"`` eliminates the multipliers exactly: with an
  orthonormal basis ``Z`` of ``ker G`` the reduced pencil
  ``(Z^T M Z, Z^T J0 Z)`` has only the ``ne - nl`` finite eigenvalues;
  it is solved as the Hermitian problem ``i L^-1 Z^T J0 Z L^-T`` with the
  Cholesky factor ``L`` of ``Z^T M Z``, so the eigenvalues come out purely
  imaginary by construction.  It works for any pencil of this form.
* ``method="dense"`` uses the real split of the efforts when the pencil
  has one (see below) and the Hermitian reduction otherwise.
* ``method="sparse"`` works on the full sparse pencil with ARPACK in
  shift-invert mode around ``sigma``: the infinite eigenvalues become the
  zero eigenvalues of ``(A - sigma E)^-1 E`` and are never among the
  largest-magnitude ones returned; every returned value is kept only if it
  is finite, imaginary to ``1e-6`` relative and has a small residual.

Real split
----------
In the mixed pH formulations the efforts fall into two groups ``P``
(velocities) and ``Q`` (stresses) with ``M = diag(M_P, M_Q)``, ``J0``
coupling only ``P`` with ``Q``, and each joint row acting on one group
only.  With the Cholesky factors ``M_P = L_P L_P^T``, ``M_Q = L_Q L_Q^T``,
the whitened coupling ``C = L_P^-1 J0_PQ L_Q^-T`` and orthonormal bases
``W_P``, ``W_Q`` of the kernels of the whitened constraint rows
``G_P L_P^-T``, ``G_Q L_Q^-T``, the reduced skew matrix is
``[[0, B], [-B^T, 0]]`` with ``B = W_P^T C W_Q``: its eigenvalues are
``+- j sigma_i`` with the singular values ``sigma_i`` of ``B`` and
``|dim W_P - dim W_Q|`` zeros.  The frequencies are therefore the
singular values of a real matrix of half the size, with the same absolute
accuracy ``eps * max(omega)`` as the Hermitian reduction (a form through
``omega^2``, e.g. ``K phi = omega^2 M phi``, would square the spread of the
spectrum).  The split is found from the sparsity of ``M``, ``J0`` and
``G`` (a two-colouring); ``L_P``, ``L_Q`` and ``C`` do not depend on the
configuration, so :func:`sweep` factors them once and solves all values
of a configuration sweep in stacked LAPACK calls.

Modes with ``omega < zero_tol * max(omega)`` are rigid-body (mechanism)
modes and are reported separately, not as vibration modes.
"""
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import connected_components

from ..math.modal import match as match_modes


@dataclass
class LinearSystem:
    """The pencil of a system linearized about the equilibrium at configuration ``q``.

    ``y`` is the equilibrium state (efforts and reactions included; None at rest without
    loads) and ``stiffness_asymmetry`` the relative skew part of the tangent stiffness on
    the allowed motions (see :func:`_stiffness`; zero for conservative loads)."""

    dae: object
    q: np.ndarray
    M: sp.csr_matrix
    J: sp.csr_matrix
    G: np.ndarray
    y: np.ndarray = None
    stiffness_asymmetry: float = 0.0

    @property
    def ne(self):
        return self.M.shape[0]

    @property
    def nl(self):
        return self.G.shape[0]

    def pencil(self):
        """Sparse ``(A, E)`` of the full descriptor pencil."""
        Gs = sp.csr_matrix(self.G)
        A = sp.bmat([[self.J, Gs.T], [-Gs, None]], format="csc")
        E = sp.bmat([[self.M, None], [None, sp.csr_matrix((self.nl, self.nl))]], format="csc")
        return A, E

    def eigenmodes(self, k=3, method="auto", sigma=0.0, zero_tol=1e-8, tol=1e-8):
        """The ``k`` lowest vibration modes; see :func:`eigenmodes`."""
        return eigenmodes(self, k, method, sigma, zero_tol, tol)


def linearize(dae, q=None, t=0.0, about="equilibrium", q0=None):
    """Linearize an assembled system about a static equilibrium.

    Parameters
    ----------
    dae : DescriptorDAE
    q : array, optional
        Configuration.  Without it the system is linearized about the static
        equilibrium near ``q0`` (:func:`phmech.solvers.static.equilibrium`); with it,
        ``q`` must be an equilibrium (the efforts and reactions that hold it are solved
        for; an error says when there are none).
    q0 : array, optional
        Where the equilibrium is sought without ``q`` (default: the initial configuration;
        a sweep over configurations of a loaded mechanism gives each one here).
    t : float
        Time of the loads.
    about : {"equilibrium", "rest"}
        ``"rest"`` keeps the pencil at rest with ``e = 0``, ``lam = 0`` and only ``J0``
        (no stiffness of gravity, loads or reactions), allowed only where those vanish.

    Notes
    -----
    Every term that the model's potentials and reactions add enters through the one
    exact Jacobian ``A = df/dy`` at the equilibrium ``y*``: the tangent stiffness
    ``K = -A_eq T`` (``T = dq'/de``) holds the stiffness of gravity and of every load,
    of the springs and bushings with their preload and the geometric stiffness of the
    joint reactions ``lam* . d2g/dq2``; see :func:`_stiffness`.  Models without loads,
    force elements or effort terms keep the pencil ``(M, J0 - R, G)`` itself.
    """
    from .static import balance, equilibrium
    if about not in ("equilibrium", "rest"):
        raise ValueError(f"linearize: about must be 'equilibrium' or 'rest', got {about!r}")
    start = q is None
    if q0 is not None and not start:
        raise ValueError("linearize: give q (an equilibrium) or q0 (where to seek one), not both")
    q = (dae.q0 if q0 is None else np.asarray(q0, float)) if start else np.asarray(q, float)
    if q.shape != (dae.nq,):
        raise ValueError(f"linearize: {'q' if q0 is None else 'q0'} needs {dae.nq} values, got shape {q.shape}")
    M, J = dae.M, dae.J0 - dae.R if dae.has_R else dae.J0
    static = bool(getattr(dae, "forces", None) or dae.loads)
    if not static and dae.effort_bodies:       # effort terms (consistent beams): static if not at rest
        static = not _at_rest_in_balance(dae, q, t)
    if not static:
        return LinearSystem(dae, q, M, J, _active_G(dae, q))
    if about == "rest":
        if not _at_rest_in_balance(dae, q, t):
            raise ValueError("linearize(about='rest'): the loads or springs of this model do not vanish at "
                             "rest, and their stiffness would be dropped; linearize about the equilibrium")
    y = equilibrium(dae, q0=q, t=t) if start and about == "equilibrium" else balance(dae, q, t)
    return _about(dae, y, t)


def _active_G(dae, q):
    """Dense ``G(q)`` without the redundant rows (see :mod:`phmech.assembly.initial`): the pencil
    stays regular."""
    return _dense_array(dae.G(q))[getattr(dae, "active", slice(None))]


def _at_rest_in_balance(dae, q, t):
    """Whether the effort equations balance at rest (``e = 0``, ``lam = 0``) at ``q``."""
    y = np.zeros(dae.n)
    y[dae.sq] = q
    return np.max(np.abs(dae.f(t, y)[dae.se]), initial=0.0) <= 1e-12 * max(1.0, float(np.max(np.abs(q))))


def _about(dae, y, t):
    """The pencil about the equilibrium ``y``: the efforts followed by the stress variables of
    the tangent stiffness (see :func:`_stiffness`)."""
    nq, ne = dae.nq, dae.ne
    q = y[dae.sq]
    A = sp.csr_matrix(dae.jacobian(t, y))
    se = slice(nq, nq + ne)
    Ke = -(A[se, :nq] @ A[:nq, se])
    G = _active_G(dae, q)
    J = A[se, se]
    Cl, Cr, asym = _stiffness(dae, Ke, G, _elastic_stiffness(dae, J))
    nr = Cr.shape[0]
    M = sp.block_diag([dae.M, sp.identity(nr)], format="csr")
    Jz = sp.bmat([[J, -Cl], [Cr, None]], format="csr") if nr else sp.csr_matrix(J)
    Gz = np.hstack([G, np.zeros((G.shape[0], nr))])
    return LinearSystem(dae, q, M, Jz, Gz, y, asym)


#: relative skew part of the tangent stiffness above which it is kept as it is (not symmetrized)
ASYMMETRY_TOL = 1e-8


def _factors(K):
    """``(Cl, Cr)`` with ``K = Cl Cr`` of the rank of ``K`` (an SVD of its nonzero columns)."""
    ne = K.shape[0]
    cols = np.unique(K.tocoo().col)
    U, sv, Vt = np.linalg.svd(K[:, cols].toarray(), full_matrices=False)
    r = int(np.sum(sv > 1e-12 * max(sv[0] if sv.size else 0.0, 1e-300)))
    Cr = np.zeros((r, ne))
    Cr[:, cols] = Vt[:r]
    return sp.csr_matrix(U[:, :r] * sv[:r]), sp.csr_matrix(Cr)


def _elastic_stiffness(dae, J):
    """The elastic stiffness ``-J_as C^-1 J_sa`` of the stress states of the bodies that keep a
    displacement beside them (the consistent beams; zero without them), on the efforts: their
    stiffness is not in ``K`` (it acts through the stresses ``C s' = J_sa a``), but it carries
    their geometric stiffness under compression."""
    from ._constitutive import stress_bodies
    laws = stress_bodies(dae)
    if not laws:
        return None
    s = np.concatenate([rows for *_, rows, _ in laws])
    J = sp.csr_matrix(J)
    C = sp.csc_matrix(sp.csr_matrix(dae.M)[s][:, s])
    X = spla.splu(C).solve(J[s].toarray())
    return -(J[:, s] @ X)


def _stiffness(dae, K, G, elastic=None):
    """``(Cl, Cr, asymmetry)`` with ``Cl Cr`` the tangent stiffness ``K`` on the constrained motions.

    Where ``K`` is symmetric on the allowed motions, ``Cl = C^T``, ``Cr = C`` (below); the
    pencil keeps its pH form and an unstable equilibrium is an error.  Where it is not
    (``asymmetry`` above :data:`ASYMMETRY_TOL`: follower loads, or the gravity of a flexible
    body in its floating frame, whose elastic load turns with the frame while the frame's
    moment does not see the deformation), ``K = Cl Cr`` is kept exactly, with ``z = Cr delta``,
    and the eigenvalues come from the general (QZ) path.

    Only ``Z^T K Z`` matters, ``Z`` a basis of ``ker G`` (the motions the joints allow).  On
    the support ``S`` of ``K`` and of ``G``'s columns the orthogonal projector
    ``P = I - G^+ G`` onto ``ker G`` gives ``K' = P sym(K) P``, equal to ``K`` on the allowed
    motions and positive semidefinite exactly when the equilibrium is stable; then
    ``K' = C^T C`` from its eigenpairs.  ``asymmetry`` is ``||P skew(K) P|| / ||P K P||``:
    zero for conservative loads at an equilibrium, not for follower loads (whose skew part
    is dropped by the symmetric form; it is reported, not hidden).  An indefinite ``K'``
    is an unstable equilibrium: an error naming the direction.

    ``elastic`` (:func:`_elastic_stiffness`) is the stiffness of stress states outside ``K``:
    the geometric stiffness of a compressed consistent beam is indefinite alone and stable
    beside its bending stiffness.  Then stability is judged on ``K + elastic``, and an
    indefinite ``K`` of a stable equilibrium is kept exactly as ``Cl Cr`` (the general QZ path:
    the pencil is not of pH form there).
    """
    ne = K.shape[0]
    K = sp.csr_matrix(K)
    K.eliminate_zeros()
    Kc = K.tocoo()
    S = np.union1d(np.union1d(Kc.row, Kc.col), np.flatnonzero(np.any(G != 0, axis=0)))
    if not Kc.nnz:
        return sp.csr_matrix((ne, 0)), sp.csr_matrix((0, ne)), 0.0
    KS = K[S][:, S].toarray()
    GS = G[:, S]
    P = np.eye(S.size) - np.linalg.pinv(GS) @ GS if GS.size else np.eye(S.size)
    Ks = P @ (0.5 * (KS + KS.T)) @ P
    Ka = P @ (0.5 * (KS - KS.T)) @ P
    norm = max(np.linalg.norm(Ks), 1e-300)
    asym = float(np.linalg.norm(Ka) / norm)
    if asym > ASYMMETRY_TOL:
        return (*_factors(K), asym)
    lam, V = np.linalg.eigh(0.5 * (Ks + Ks.T))
    scale = max(np.max(np.abs(lam), initial=0.0), 1e-300)
    if lam.size and lam[0] < -1e-10 * scale and elastic is not None:
        # the stresses' own stiffness beside it: judged on the whole (on its support too)
        T = sp.csr_matrix(K + elastic)
        T.eliminate_zeros()
        Tc = T.tocoo()
        S = np.union1d(np.union1d(Tc.row, Tc.col), np.flatnonzero(np.any(G != 0, axis=0)))
        GS = G[:, S]
        P = np.eye(S.size) - np.linalg.pinv(GS) @ GS if GS.size else np.eye(S.size)
        TS = T[S][:, S].toarray()
        lam, V = np.linalg.eigh(P @ (0.5 * (TS + TS.T)) @ P)
        scale = max(np.max(np.abs(lam), initial=0.0), 1e-300)
        if not (lam[0] < -1e-10 * scale):
            return (*_factors(K), asym)
    if lam.size and lam[0] < -1e-10 * scale:
        labels = dae.labels()
        v = V[:, 0]
        top = [labels[dae.nq + S[i]] for i in np.argsort(-np.abs(v))[:3] if abs(v[i]) > 0.1 * np.max(np.abs(v))]
        raise ValueError(f"linearize: the equilibrium is unstable: the tangent stiffness has the negative "
                         f"eigenvalue {lam[0]:.6g} (of {scale:.6g}) in the motion of " + ", ".join(top))
    pos = lam > 1e-12 * scale
    CS = np.sqrt(lam[pos])[:, None] * V[:, pos].T
    C = sp.csr_matrix((CS.ravel(), (np.repeat(np.arange(CS.shape[0]), S.size), np.tile(S, CS.shape[0]))),
                      shape=(CS.shape[0], ne))
    C.eliminate_zeros()
    return C.T.tocsr(), C, asym


@dataclass
class Modes:
    """Vibration modes: ``omega`` [rad/s] ascending, ``vectors[:, i]`` the efforts ``e``.

    ``residuals[i] = ||J phi + G^T mu - lambda M phi|| / (|lambda| ||M phi||)`` on the
    constrained pencil (the multipliers ``mu`` of the mode included), and
    ``n_rigid`` the number of zero (mechanism) modes found and excluded.

    With damping the eigenvalues are ``lambda = -zeta omega +- j omega sqrt(1 - zeta^2)``:
    ``omega = |lambda|`` is the natural frequency, ``zeta`` the damping ratio (zero without
    damping), ``eigenvalues`` the ``lambda`` with positive imaginary part, and ``overdamped``
    the real eigenvalues (decay rates, ``zeta >= 1``) apart, ascending in magnitude.
    """

    omega: np.ndarray
    vectors: np.ndarray
    residuals: np.ndarray
    n_rigid: int
    method: str
    linear: LinearSystem
    zeta: np.ndarray = None
    eigenvalues: np.ndarray = None
    overdamped: np.ndarray = None

    def __post_init__(self):
        if self.eigenvalues is None:
            self.eigenvalues = 1j * np.asarray(self.omega, float)
        if self.zeta is None:
            self.zeta = np.zeros(len(self.omega))
        if self.overdamped is None:
            self.overdamped = np.zeros(0)

    @property
    def freq_hz(self):
        return self.omega / (2 * np.pi)

    def body_vector(self, body, i):
        """Mode ``i`` restricted to one body's efforts (complex)."""
        name = body if isinstance(body, str) else body.name
        return self.vectors[self.linear.dae.e_slices[name], i]

    def to_pvd(self, path, which=None, **options):
        """The modes as animated ParaView series (:func:`phmech.io.paraview.write_modes_pvd`)."""
        from ..io.paraview import write_modes_pvd
        return write_modes_pvd(self, path, which, **options)

    def to_html(self, path, i=0, **options):
        """Mode ``i`` in the self-contained HTML viewer, animated over one period
        (:func:`phmech.io.html_viewer.write_modes_html`)."""
        from ..io.html_viewer import write_modes_html
        return write_modes_html(self, i, path, **options)


def _residual(lin, ev, e, mu):
    """Relative residual of the pair (eigenvalue ``ev``, efforts ``e``, multipliers ``mu``)."""
    r = lin.J @ e + lin.G.T @ mu - ev * (lin.M @ e)
    return np.linalg.norm(r) / max(abs(ev) * np.linalg.norm(lin.M @ e), 1e-300)


def _constrained_basis(lin):
    """An orthonormal basis of ``ker G``: the motions the joints allow."""
    return sla.null_space(_dense_array(lin.G)) if lin.nl else np.eye(lin.ne)


def _damped(lin):
    """Whether ``J`` has a symmetric part (dissipation): the eigenvalues leave the imaginary axis."""
    J = sp.csr_matrix(lin.J)
    sym = abs(J + J.T)
    return sym.nnz > 0 and sym.max() > 1e-12 * max(abs(J).max(), 1e-300)


def _damped_dense(lin, k, zero_tol):
    """Damped modes by QZ of the pencil reduced to ``ker G``: ``(Z^T J Z, Z^T M Z)``.

    Returns ``(eigenvalues, efforts, multipliers, n_rigid, overdamped)``."""
    Z = _constrained_basis(lin)
    M, J = _dense_array(lin.M), _dense_array(lin.J)
    Mr, Jr = Z.T @ M @ Z, Z.T @ J @ Z
    try:
        # whitened (a QZ of the pencil itself loses the fields whose energy metric is 1e-15 of the
        # others', a solid's compliance beside its mass, and finds no finite modes)
        L, S = _whitened(Mr, Jr)
        ev, W = sla.eig(S)
        V = sla.solve_triangular(L.T, W, lower=False)
    except np.linalg.LinAlgError:
        ev, V = sla.eig(Jr, Mr)
    scale = max(float(np.max(np.abs(ev), initial=0.0)), 1e-300)
    zero = np.abs(ev) <= zero_tol * scale
    osc = ~zero & (ev.imag > zero_tol * np.abs(ev))
    real = ~zero & (np.abs(ev.imag) <= zero_tol * np.abs(ev))
    order = np.flatnonzero(osc)[np.argsort(np.abs(ev[osc]))][:k]
    vecs = Z @ V[:, order]
    overdamped = np.sort(ev[real].real)[::-1]
    return ev[order], vecs, _multipliers(lin, ev[order], vecs), int(zero.sum()), overdamped


def _whitened(Mr, Jr):
    """``(L, S)``: the Cholesky factor ``M_r = L L^T`` of the SPD mass and ``S = L^-1 J_r L^-T``,
    whose eigenvalues are those of the pencil ``(J_r, M_r)`` (eigenvectors ``V = L^-T W``)."""
    L = np.linalg.cholesky(0.5 * (Mr + Mr.T))
    X = sla.solve_triangular(L, Jr, lower=True)
    return L, sla.solve_triangular(L, X.T, lower=True).T


def _hermitian(lin, k, zero_tol):
    Z = _constrained_basis(lin)
    M = lin.M.toarray()
    J = lin.J.toarray() if sp.issparse(lin.J) else lin.J
    L, S = _whitened(Z.T @ M @ Z, Z.T @ J @ Z)             # S skew
    H = 1j * 0.5 * (S - S.T)                               # Hermitian, eigenvalues -omega
    w, V = np.linalg.eigh(H)
    omega = -w
    pos = omega > 0
    omega, V = omega[pos], V[:, pos]
    order = np.argsort(omega)
    omega, V = omega[order], V[:, order]
    scale = max(np.max(omega, initial=0.0), 1e-300)
    n_rigid = int(np.sum(np.abs(w) <= zero_tol * scale))
    keep = omega > zero_tol * scale
    omega, V = omega[keep][:k], V[:, keep][:, :k]
    vecs = Z @ sla.solve_triangular(L.T, V, lower=False)
    return 1j * omega, vecs, _multipliers(lin, 1j * omega, vecs), n_rigid


def _multipliers(lin, ev, vecs):
    """Multipliers of each mode (eigenvalues ``ev``): least squares on the momentum equation."""
    lams = np.zeros((lin.nl, vecs.shape[1]), complex)
    if lin.nl:
        for i in range(vecs.shape[1]):
            rhs = ev[i] * (lin.M @ vecs[:, i]) - lin.J @ vecs[:, i]
            lams[:, i] = np.linalg.lstsq(lin.G.T, rhs, rcond=None)[0]
    return lams


@dataclass
class _Split:
    """The real split of a pencil (module docstring): groups, factors, whitened coupling."""

    P: np.ndarray          # effort indices of the two groups
    Q: np.ndarray
    rows_P: np.ndarray     # constraint rows acting on P, on Q
    rows_Q: np.ndarray
    L_P: np.ndarray        # Cholesky factors of M_P, M_Q (lower)
    L_Q: np.ndarray
    C: np.ndarray          # L_P^-1 J_PQ L_Q^-T


def _dense_array(A):
    return A.toarray() if sp.issparse(A) else np.asarray(A)


def _split(M, J, G):
    """The real split of the pencil ``(M, J)`` with constraint rows ``G`` (array ``(nl, ne)``,
    or ``(n, nl, ne)``: the union of the supports of ``n`` configurations); None if none."""
    ne = M.shape[0]
    Ms, Js = sp.coo_matrix(M), sp.coo_matrix(J)
    G = np.asarray(G)
    support = np.any(G != 0, axis=0) if G.ndim == 3 else G != 0      # (nl, ne)
    r, c = np.nonzero(support)
    chain = r[1:] == r[:-1]                                # the columns of one row: one group
    same = (np.concatenate([Ms.row[Ms.data != 0], c[:-1][chain]]),
            np.concatenate([Ms.col[Ms.data != 0], c[1:][chain]]))
    diff = (Js.row[Js.data != 0], Js.col[Js.data != 0])
    # two-colouring as connectivity of the doubled graph: i and ne + i are the two colours of i
    rows = np.concatenate([same[0], same[0] + ne, diff[0], diff[0] + ne])
    cols = np.concatenate([same[1], same[1] + ne, diff[1] + ne, diff[1]])
    graph = sp.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(2 * ne, 2 * ne))
    _, label = connected_components(graph, directed=False)
    if np.any(label[:ne] == label[ne:]):
        return None                                        # J or M couples a group with itself
    in_P = label[:ne] < label[ne:]
    P, Q = np.flatnonzero(in_P), np.flatnonzero(~in_P)
    if len(P) == 0 or len(Q) == 0:
        return None
    row_in_P = np.array([np.all(in_P[support[i]]) for i in range(support.shape[0])], bool)
    Md, Jd = _dense_array(M), _dense_array(J)
    MP, MQ = Md[np.ix_(P, P)], Md[np.ix_(Q, Q)]
    try:
        L_P = np.linalg.cholesky(0.5 * (MP + MP.T))
        L_Q = np.linalg.cholesky(0.5 * (MQ + MQ.T))
    except np.linalg.LinAlgError:
        return None                                        # M singular on a group: general path
    X = sla.solve_triangular(L_P, 0.5 * (Jd[np.ix_(P, Q)] - Jd[np.ix_(Q, P)].T), lower=True)   # skew part
    C = sla.solve_triangular(L_Q, X.T, lower=True).T
    return _Split(P, Q, np.flatnonzero(row_in_P), np.flatnonzero(~row_in_P), L_P, L_Q, C)


def _kernels(L, GT, rtol=1e-10):
    """Orthonormal bases ``(n, m, m - r)`` of the kernels of the whitened rows ``GT^T L^-T``
    for stacked ``GT`` ``(n, m, r)``, and a flag per configuration: the rows are independent."""
    n, m, r = GT.shape
    if r == 0:
        return np.broadcast_to(np.eye(m), (n, m, m)), np.ones(n, bool)
    A = sla.solve_triangular(L, GT.transpose(1, 0, 2).reshape(m, n * r), lower=True)
    Qf, R = np.linalg.qr(A.reshape(m, n, r).transpose(1, 0, 2), mode="complete")
    d = np.abs(np.diagonal(R, axis1=1, axis2=2))
    return Qf[:, :, r:], np.min(d, axis=1) > rtol * np.max(d, axis=1)


def _reduce(split, G):
    """Kernel bases ``W_P``, ``W_Q``, ``B = W_P^T C W_Q`` and the flags for stacked ``G``."""
    GP = G[:, split.rows_P][:, :, split.P].transpose(0, 2, 1)
    GQ = G[:, split.rows_Q][:, :, split.Q].transpose(0, 2, 1)
    W_P, ok_P = _kernels(split.L_P, GP)
    W_Q, ok_Q = _kernels(split.L_Q, GQ)
    B = np.matmul(W_P.transpose(0, 2, 1), split.C)
    if len(split.rows_Q):
        B = np.matmul(B, W_Q)
    return W_P, W_Q, B, ok_P & ok_Q


def _lowest(sigma, k, zero_tol):
    """From descending singular values ``(n, m)``: the ``k`` lowest nonzero ones ascending
    (NaN where there are fewer) and the number of zero ones of each configuration."""
    n, m = sigma.shape
    scale = np.maximum(sigma[:, 0] if m else np.zeros(n), 1e-300)
    n_zero = m - np.sum(sigma > zero_tol * scale[:, None], axis=1)
    asc = np.concatenate([sigma[:, ::-1], np.full((n, k), np.nan)], axis=1)
    return np.take_along_axis(asc, n_zero[:, None] + np.arange(k), axis=1), n_zero


def _dense_split(lin, k, zero_tol, split):
    W_P, W_Q, B, ok = _reduce(split, _dense_array(lin.G)[None])
    if not ok[0]:
        return None
    U, sigma, Vt = np.linalg.svd(B[0], full_matrices=False)
    omega, n_zero = _lowest(sigma[None], k, zero_tol)
    omega, n_zero = omega[0][np.isfinite(omega[0])], int(n_zero[0])
    n_rigid = 2 * n_zero + abs(B.shape[1] - B.shape[2])   # +-j sigma pairs and the unpaired zeros
    j = len(sigma) - 1 - n_zero - np.arange(len(omega))     # their columns in U, V
    # S (u, j v) = j sigma (u, j v) for B v = sigma u, B^T u = sigma v
    vecs = np.zeros((lin.ne, len(omega)), complex)
    vecs[split.P] = sla.solve_triangular(split.L_P.T, W_P[0] @ U[:, j], lower=False) / np.sqrt(2)
    vecs[split.Q] = 1j * sla.solve_triangular(split.L_Q.T, W_Q[0] @ Vt[j].T, lower=False) / np.sqrt(2)
    return 1j * omega, vecs, _multipliers(lin, 1j * omega, vecs), n_rigid


def _sparse(lin, k, sigma, tol, zero_tol, damped=False):
    A, E = lin.pencil()
    n = A.shape[0]
    # Jacobi scaling of the efforts by the mass diagonal (the multipliers unscaled): the same
    # eigenvalues, and fields whose energy metric is 1e-15 of the others' (a solid's compliance
    # beside its mass) keep their digits in the factorization and the Arnoldi vectors
    d = np.ones(n)
    diag = lin.M.diagonal()
    d[:lin.ne] = np.where(diag > 0, 1.0 / np.sqrt(np.where(diag > 0, diag, 1.0)), 1.0)
    Sd = sp.diags(d)
    A, E = (Sd @ A @ Sd).tocsc(), (Sd @ E @ Sd).tocsc()
    shift = complex(0.0, sigma) if sigma else 0.0
    try:
        lu = spla.splu((A - shift * E).tocsc().astype(complex if shift else float))
    except RuntimeError:
        # zero eigenvalues (mechanism modes, self-stress states): shift off the
        # imaginary axis, where no eigenvalue lies
        scale = abs(A).max() / max(abs(E).max(), 1e-300)
        shift = shift - 1e-4 * scale
        lu = spla.splu((A - shift * E).tocsc().astype(complex if shift.imag else float))
    dtype = complex if (isinstance(shift, complex) and shift.imag) else float
    shift = shift.real if dtype is float else shift
    op = spla.LinearOperator((n, n), matvec=lambda x: lu.solve(np.asarray(E @ x, dtype=dtype)), dtype=dtype)
    nev = min(2 * k + 8, n - 2)
    while True:
        lam, V, zero = _shift_invert(op, nev, shift, tol, zero_tol, damped)
        # zero eigenvalues (rigid motions, the self-equilibrated stresses of a velocity-stress body:
        # hundreds on a fine plate) are the nearest to a shift at zero and can take every Ritz
        # value: ask for more until k vibration modes are among them
        if len(lam) >= k or nev >= n - 2:
            break
        nev = min(max(2 * nev, nev + 2 * zero + 2 * k), n - 2)
    if not damped:
        lam = 1j * lam.imag
    order = np.argsort(np.abs(lam))
    lam, V = lam[order][:k], d[:, None] * V[:, order][:, :k]
    return lam, V[:lin.ne], V[lin.ne:], zero


def _shift_invert(op, nev, shift, tol, zero_tol, damped):
    """``(eigenvalues, vectors, zeros)``: the ``nev`` eigenvalues of the shift-invert operator
    ``op`` nearest ``shift``, the vibration ones kept (imaginary, positive) and the number of zero
    ones."""
    mu, V = spla.eigs(op, k=nev, which="LM", tol=tol * 1e-2)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = shift + 1.0 / mu
    ok = np.isfinite(lam) & (np.abs(mu) > 1e-12 * np.max(np.abs(mu)))
    scale = np.max(np.abs(lam[ok]), initial=0.0)
    zero = ok & (np.abs(lam) <= zero_tol * scale)
    # undamped: imaginary to 1e-6 relative; damped: decaying (real eigenvalues left out)
    ok &= ~zero & ((lam.real <= 1e-6 * np.abs(lam)) if damped else (np.abs(lam.real) <= 1e-6 * np.abs(lam)))
    lam, V = lam[ok], V[:, ok]
    sel = lam.imag > zero_tol * np.abs(lam)
    return lam[sel], V[:, sel], int(zero.sum())


def _method(lin, method):
    if method == "auto":
        return "dense" if lin.ne + lin.nl <= 2000 else "sparse"
    if method not in ("dense", "hermitian", "sparse"):
        raise ValueError(f"eigenmodes: method must be 'dense', 'hermitian', 'sparse' or 'auto', got {method!r}")
    return method


def eigenmodes(lin, k=3, method="auto", sigma=0.0, zero_tol=1e-8, tol=1e-8):
    """Lowest ``k`` natural frequencies and modes of a :class:`LinearSystem`.

    Parameters
    ----------
    k : int
        Number of vibration modes.
    method : ``"dense"``, ``"hermitian"``, ``"sparse"`` or ``"auto"``
        ``"dense"``: the real split if the pencil has one, else the Hermitian
        reduction; ``"hermitian"``: always the Hermitian reduction; ``"auto"``:
        dense up to 2000 unknowns, else sparse (see the module docstring).
    sigma : float
        Shift (rad/s) of the sparse path: modes nearest ``sigma`` are found.
    zero_tol : float
        Relative threshold below which a mode is a rigid-body mode (dense paths).
    tol : float
        Largest accepted relative residual of a returned pair.
    """
    method = _method(lin, method)
    out, overdamped, damped = None, np.zeros(0), _damped(lin)
    if method in ("dense", "hermitian") and damped:
        *out, overdamped = _damped_dense(lin, k, zero_tol)
    elif method == "dense":
        split = _split(lin.M, lin.J, _dense_array(lin.G))
        out = None if split is None else _dense_split(lin, k, zero_tol, split)
    if method in ("dense", "hermitian") and out is None:
        out = _hermitian(lin, k, zero_tol)
    elif method == "sparse":
        out = _sparse(lin, k, sigma, tol, zero_tol, damped)
    ev, vecs, lams, n_rigid = out
    omega = np.abs(ev)
    res = np.array([_residual(lin, w, vecs[:, i], lams[:, i]) for i, w in enumerate(ev)])
    good = res <= max(tol, 1e-14) * 1e3
    if not np.all(good):
        bad = ", ".join(f"{w:.6g} rad/s (residual {r:.1e})" for w, r in zip(omega[~good], res[~good]))
        raise RuntimeError(f"eigenmodes ({method}): inaccurate pairs: {bad}")
    if len(omega) < k:
        more = f" and {len(overdamped)} overdamped (real) ones" if len(overdamped) else ""
        raise RuntimeError(f"eigenmodes ({method}): found {len(omega)} vibration modes{more}, {k} requested")
    zeta = -ev.real / np.maximum(omega, 1e-300) if damped else np.zeros(len(omega))
    return Modes(omega, vecs, res, n_rigid, method, lin, zeta, ev, overdamped)


class SweepModes(Sequence):
    """The :class:`Modes` of each value of a :func:`sweep`, each computed (by
    :func:`eigenmodes`, residuals checked) when first accessed."""

    def __init__(self, lins, k, method, kw):
        self.lins, self.k, self.method, self.kw = lins, k, method, kw
        self._modes = [None] * len(lins)
        #: with ``sweep(..., track=True)``: the MAC of each tracked mode with its predecessor and
        #: the index of tracked mode ``j`` among each value's modes (see :func:`track_modes`)
        self.mac = self.order = None

    def __len__(self):
        return len(self.lins)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if self._modes[i] is None:
            self._modes[i] = eigenmodes(self.lins[i], self.k, self.method, **self.kw)
        return self._modes[i]


#: bytes of the stacked work arrays of one chunk of a sweep
SWEEP_CHUNK_BYTES = 64 * 2**20


def _sweep_split(lins, k, zero_tol):
    """Frequencies ``(n, k)`` of linear systems sharing ``M`` and ``J`` by the real split in
    stacked calls; NaN rows where a value needs the general path (or None: no split)."""
    G = np.stack([_dense_array(lin.G) for lin in lins])
    split = _split(lins[0].M, lins[0].J, G)
    if split is None:
        return None
    n = max(len(split.P), len(split.Q))
    chunk = max(1, SWEEP_CHUNK_BYTES // (3 * 8 * n * n))
    omega = np.empty((len(lins), k))
    for i in range(0, len(lins), chunk):
        _, _, B, ok = _reduce(split, G[i:i + chunk])
        omega[i:i + chunk] = _lowest(np.linalg.svd(B, compute_uv=False), k, zero_tol)[0]
        omega[i:i + chunk][~ok] = np.nan
    return omega


def track_modes(modes):
    """Follow the modes of a sweep from each value to the next by the modal assurance criterion.

    Parameters
    ----------
    modes : sequence of :class:`Modes`
        The modes of consecutive parameter values (e.g. the :class:`SweepModes` of :func:`sweep`),
        the same number ``k`` at each.

    Returns
    -------
    omega : ndarray (n, k)
        The frequencies with each column one mode followed along the sweep (a crossing keeps
        its column; sorted by frequency at the first value).
    mac : ndarray (n, k)
        The MAC of each mode's velocity shape with its predecessor's (kinetic-energy metric
        ``M``; 1 at the first value): a small value says the step in the parameter was too large to follow it.
    order : ndarray (n, k) of int
        ``order[i, j]``: the index in ``modes[i]`` of tracked mode ``j``.
    """
    n = len(modes)
    if n == 0:
        return np.zeros((0, 0)), np.zeros((0, 0)), np.zeros((0, 0), int)
    k = len(modes[0].omega)
    omega, mac, order = np.full((n, k), np.nan), np.ones((n, k)), np.zeros((n, k), int)
    order[0] = np.arange(k)
    omega[0] = modes[0].omega

    def efforts(m):                  # the velocity shapes (a stiffness factor's coordinates change with the value)
        ne = m.linear.dae.ne
        return m.vectors[:ne], m.linear.dae.M

    prev = efforts(modes[0])[0]
    for i in range(1, n):
        m = modes[i]
        shapes, W = efforts(m)
        pick, value = match_modes(prev, shapes, W)
        if any(b is None for b in pick):
            raise ValueError(f"track_modes: value {i} has {len(m.omega)} modes, the first has {k}")
        order[i], mac[i] = pick, value
        omega[i] = m.omega[pick]
        prev = shapes[:, pick]
    return omega, mac, order


def sweep(values, setup, k=3, method="auto", track=False, **kw):
    """Eigen study over a parameter.

    ``setup(value) -> LinearSystem`` builds (or updates) the system for one
    value; returns an array ``(len(values), k)`` of angular frequencies and
    the :class:`Modes` of each value (a :class:`SweepModes`, computed on access).

    When all systems share the objects ``M`` and ``J`` (a configuration sweep:
    only ``G`` changes) and have the real split, the dense path factors the
    configuration-independent parts once and computes all frequencies with
    stacked LAPACK calls (the residuals of the pairs are checked when a
    value's :class:`Modes` are accessed); other values (and configurations
    where the constraint rows are dependent) go one by one through
    :func:`eigenmodes`.

    Parameters
    ----------
    values : sequence
        Parameter values.
    setup : callable
        ``setup(value) -> LinearSystem``.
    k : int
        Number of vibration modes per value.
    method : str
        As in :func:`eigenmodes`.
    track : bool
        Follow each mode along the sweep by the modal assurance criterion
        (:func:`track_modes`: every value's modes are computed): the columns of the frequencies
        are then modes, not ranks, and the returned :class:`SweepModes` carry ``mac`` and
        ``order`` (``modes[i].omega[order[i, j]]`` is tracked mode ``j``).
    **kw
        Further options of :func:`eigenmodes` (``sigma``, ``zero_tol``, ``tol``).

    Examples
    --------
    >>> omegas, modes = sweep(np.radians(range(360)), lambda th: fourbar.linearize(th))
    """
    lins = [setup(v) for v in values]
    modes = SweepModes(lins, k, method, kw)
    if not lins:
        return np.zeros((0, k)), modes
    omega = None
    first = lins[0]
    if (_method(first, method) == "dense" and not _damped(first)
            and all(lin.M is first.M and lin.J is first.J and lin.G.shape == first.G.shape for lin in lins)):
        omega = _sweep_split(lins, k, kw.get("zero_tol", 1e-8))
    if omega is None:
        omega = np.full((len(lins), k), np.nan)
    for i in np.flatnonzero(np.any(np.isnan(omega), axis=1)):
        omega[i] = modes[i].omega
    if track:
        omega, modes.mac, modes.order = track_modes(modes)
    return omega, modes

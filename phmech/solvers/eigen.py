"""Natural frequencies of linearized, constrained pH systems.

At a configuration ``q`` and at rest (``e = 0``, ``lam = 0``) the
gyroscopic terms and the configuration-dependent parts of the Jacobian
vanish, and the vibrations obey the descriptor system

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

* ``method="dense"`` eliminates the multipliers exactly: with an
  orthonormal basis ``Z`` of ``ker G`` the reduced pencil
  ``(Z^T M Z, Z^T J0 Z)`` has only the ``ne - nl`` finite eigenvalues;
  it is solved as the Hermitian problem ``i L^-1 Z^T J0 Z L^-T`` with the
  Cholesky factor ``L`` of ``Z^T M Z``, so the eigenvalues come out purely
  imaginary by construction.
* ``method="sparse"`` works on the full sparse pencil with ARPACK in
  shift-invert mode around ``sigma``: the infinite eigenvalues become the
  zero eigenvalues of ``(A - sigma E)^-1 E`` and are never among the
  largest-magnitude ones returned; every returned value is kept only if it
  is finite, imaginary to ``1e-6`` relative and has a small residual.

Modes with ``omega < zero_tol * max(omega)`` are rigid-body (mechanism)
modes and are reported separately, not as vibration modes.
"""
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla


@dataclass
class LinearSystem:
    """The pencil of a system linearized at rest at configuration ``q``."""

    dae: object
    q: np.ndarray
    M: sp.csr_matrix
    J: sp.csr_matrix
    G: np.ndarray

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


def linearize(dae, q=None):
    """Linearize an assembled system at rest at configuration ``q`` (default: initial)."""
    q = dae.q0 if q is None else np.asarray(q, float)
    if q.shape != (dae.nq,):
        raise ValueError(f"linearize: q needs {dae.nq} values, got shape {q.shape}")
    # redundant rows (see phmech.assembly.initial) are left out: the pencil stays regular
    G = dae.G(q)
    G = (G.toarray() if hasattr(G, "toarray") else G)[getattr(dae, "active", slice(None))]
    return LinearSystem(dae, q, dae.M, dae.J0 - dae.R if dae.has_R else dae.J0, G)


@dataclass
class Modes:
    """Vibration modes: ``omega`` [rad/s] ascending, ``vectors[:, i]`` the efforts ``e``.

    ``residuals[i] = ||J phi - j omega M phi|| / (omega ||M phi||)`` on the
    constrained pencil (the multiplier part of ``phi`` included), and
    ``n_rigid`` the number of zero (mechanism) modes found and excluded.
    """

    omega: np.ndarray
    vectors: np.ndarray
    residuals: np.ndarray
    n_rigid: int
    method: str
    linear: LinearSystem

    @property
    def freq_hz(self):
        return self.omega / (2 * np.pi)

    def body_vector(self, body, i):
        """Mode ``i`` restricted to one body's efforts (complex)."""
        name = body if isinstance(body, str) else body.name
        return self.vectors[self.linear.dae.e_slices[name], i]


def _residual(lin, omega, e, lam):
    r = lin.J @ e + lin.G.T @ lam - 1j * omega * (lin.M @ e)
    return np.linalg.norm(r) / max(omega * np.linalg.norm(lin.M @ e), 1e-300)


def _dense(lin, k, zero_tol):
    G = lin.G
    ne = lin.ne
    if lin.nl:
        Z = sla.null_space(G)
    else:
        Z = np.eye(ne)
    M = lin.M.toarray()
    J = lin.J.toarray() if sp.issparse(lin.J) else lin.J
    Mr = Z.T @ M @ Z
    Jr = Z.T @ J @ Z
    L = np.linalg.cholesky(0.5 * (Mr + Mr.T))
    X = sla.solve_triangular(L, Jr, lower=True)
    S = sla.solve_triangular(L, X.T, lower=True).T       # L^-1 Jr L^-T, skew
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
    # multipliers of each mode: least squares on the momentum equation
    lams = np.zeros((lin.nl, vecs.shape[1]), complex)
    if lin.nl:
        for i in range(vecs.shape[1]):
            rhs = 1j * omega[i] * (M @ vecs[:, i]) - J @ vecs[:, i]
            lams[:, i] = np.linalg.lstsq(G.T, rhs, rcond=None)[0]
    return omega, vecs, lams, n_rigid


def _sparse(lin, k, sigma, tol, zero_tol):
    A, E = lin.pencil()
    n = A.shape[0]
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
    nev = min(2 * k + 8, n - 2)
    op = spla.LinearOperator((n, n), matvec=lambda x: lu.solve(np.asarray(E @ x, dtype=dtype)), dtype=dtype)
    mu, V = spla.eigs(op, k=nev, which="LM", tol=tol * 1e-2)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = shift + 1.0 / mu
    ok = np.isfinite(lam) & (np.abs(mu) > 1e-12 * np.max(np.abs(mu)))
    scale = np.max(np.abs(lam[ok]), initial=0.0)
    zero = ok & (np.abs(lam) <= zero_tol * scale)
    ok &= ~zero & (np.abs(lam.real) <= 1e-6 * np.abs(lam))
    lam, V = lam[ok], V[:, ok]
    sel = lam.imag > 0
    omega, V = lam.imag[sel], V[:, sel]
    order = np.argsort(omega)
    omega, V = omega[order][:k], V[:, order][:, :k]
    return omega, V[:lin.ne], V[lin.ne:], int(zero.sum())


def eigenmodes(lin, k=3, method="auto", sigma=0.0, zero_tol=1e-8, tol=1e-8):
    """Lowest ``k`` natural frequencies and modes of a :class:`LinearSystem`.

    Parameters
    ----------
    k : int
        Number of vibration modes.
    method : ``"dense"``, ``"sparse"`` or ``"auto"`` (dense up to 2000 unknowns).
    sigma : float
        Shift (rad/s) of the sparse path: modes nearest ``sigma`` are found.
    zero_tol : float
        Relative threshold below which a mode is a rigid-body mode (dense path).
    tol : float
        Largest accepted relative residual of a returned pair.
    """
    if method == "auto":
        method = "dense" if lin.ne + lin.nl <= 2000 else "sparse"
    if method == "dense":
        omega, vecs, lams, n_rigid = _dense(lin, k, zero_tol)
    elif method == "sparse":
        omega, vecs, lams, n_rigid = _sparse(lin, k, sigma, tol, zero_tol)
    else:
        raise ValueError(f"eigenmodes: method must be 'dense', 'sparse' or 'auto', got {method!r}")
    res = np.array([_residual(lin, w, vecs[:, i], lams[:, i]) for i, w in enumerate(omega)])
    good = res <= max(tol, 1e-14) * 1e3
    if not np.all(good):
        bad = ", ".join(f"{w:.6g} rad/s (residual {r:.1e})" for w, r in zip(omega[~good], res[~good]))
        raise RuntimeError(f"eigenmodes ({method}): inaccurate pairs: {bad}")
    if len(omega) < k:
        raise RuntimeError(f"eigenmodes ({method}): found {len(omega)} vibration modes, {k} requested")
    return Modes(omega, vecs, res, n_rigid, method, lin)


def sweep(values, setup, k=3, method="auto", **kw):
    """Eigen study over a parameter.

    ``setup(value) -> LinearSystem`` builds (or updates) the system for one
    value; returns an array ``(len(values), k)`` of angular frequencies and
    the list of :class:`Modes`.

    Examples
    --------
    >>> omegas, modes = sweep(np.radians(range(360)), lambda th: fourbar.linearize(th))
    """
    out, modes = [], []
    for v in values:
        m = eigenmodes(setup(v), k, method, **kw)
        out.append(m.omega)
        modes.append(m)
    return np.array(out), modes

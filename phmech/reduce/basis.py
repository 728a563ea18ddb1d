"""Structure-preserving bases of a linear velocity--stress pH body and their Galerkin projection.

A linear pH finite-element body in co-energy variables ``e = (e_f, v, s)``
(frame efforts, velocities, stresses) has

.. math::

    M = \\begin{bmatrix} M_{ff} & M_{fv} & 0 \\\\ M_{vf} & M_v & 0 \\\\ 0 & 0 & C \\end{bmatrix},
    \\qquad
    J = \\begin{bmatrix} J_{ff} & J_{fv} & 0 \\\\ J_{vf} & J_{vv} & -D^T \\\\ 0 & D & J_{ss} \\end{bmatrix},

the velocity equations ``M_v v' = -D^T s + ...`` and the compatibility
``C s' = D v``: a motion that starts undeformed has the stresses
``s = C^{-1} D u`` of its displacement ``u`` (``u' = v``), and the elastic
energy ``1/2 s^T C s = 1/2 u^T K u`` with ``K = D^T C^{-1} D``.

The reduction keeps the frame efforts and replaces the fields by
``v = V_v v_r``, ``s = V_s s_r`` with the *compatible* stress basis
``V_s = C^{-1} D V_v``: ``V = blockdiag(I, V_v, V_s)``.  The Galerkin
projection in energy coordinates (Polyuga & van der Schaft, Automatica 46
(2010) 665--672; Egger, Kugler, Liljegren-Sailer, Marheineke & Mehrmann,
SIAM J. Sci. Comput. 40 (2018) A331--A365)

.. math::  M_r = V^T M V, \\quad J_r = V^T J V, \\quad R_r = V^T R V, \\quad B_r = V^T B

keeps the pH structure for any full-rank ``V`` (``M_r`` SPD, ``J_r`` skew,
``R_r`` PSD; a port's rows are ``Y V``, so its output is ``B_r^T e_r``),
and with the compatible ``V_s`` the reduced elastic block is
``V_s^T C V_s = V_v^T K V_v = K_r`` and ``V_s^T D V_v = K_r``: the reduced
compatibility ``K_r s_r' = K_r v_r`` makes ``s_r`` the modal displacement
amplitudes (``u = V_v s_r``), so the reduced body is the classical
second-order modal model ``M_r v_r' = -K_r s_r + ...`` written as a pH system.

The velocity basis of Craig & Bampton (AIAA J. 6 (1968) 1313--1319) for an
interface given as rows ``G`` on the velocities (the stacked port rows:
point values, face means and rotations):

* static constraint modes ``Psi``: ``K Psi + G^T mu = 0``, ``G Psi = I`` (the
  deformation of a unit displacement of one interface row, the others held);
* fixed-interface normal modes ``Phi``: ``K phi + G^T mu = omega^2 M_v phi``,
  ``G phi = 0``, the ``k`` lowest.

A static load through the interface, ``f = G^T F``, has its exact
displacement ``u = K^{-1} G^T F`` in the span of ``Psi``: the Galerkin
solution reproduces it, and the interface stiffness, to round-off.

Mean axes (``Split(body, frame="mean_axis")``, a body in a floating frame): the
modes move the frame efforts and the velocities together, ``w = (e_f, v)``, the
body's whole velocity field ``N e_f + v`` (``N`` the frame's rigid fields).  The
frame's efforts carry no strain (``J[s, f] = 0``), so ``K`` on ``w`` is singular
with the rigid motions ``(I, 0)`` as its null space; holding the momentum rows
``G = [M_ff, M_fv]`` (``G w = int rho N_a . (N e_f + v)``, the mean-axis
conditions ``int rho u = 0`` and ``int rho X x u = 0``) leaves the free-free
elastic modes, ``K phi = omega^2 M phi`` with ``G phi = 0``: the same bordered
eigen solve as the fixed-interface modes, with ``G`` for the interface.  With a
statically determinate reference (a 3-2-1 point support, a cantilever frame)
the span of ``w`` is the free body's whole velocity space, and these are the
free-free modes of the unconstrained body.  The basis then has a frame block,
``e_f = e_{f,r} + V_f v_r``: a mode moves the full body's frame as well.
"""
import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla


class ReductionError(ValueError):
    """A body, an interface or a parameter that the reduction cannot take (the message names it)."""


#: the frames of the free-interface modes: the body's own reference condition, or mean axes
MODE_FRAMES = ("reference", "mean_axis")


class Split:
    """The blocks of a body's efforts the reduction works on.

    Parameters
    ----------
    body : Body
    velocity : sequence of int, optional
        The velocity unknowns (default: ``body.velocity_dofs``).
    frame : {"reference", "mean_axis"}
        ``"reference"``: the modes move the velocities ``v`` (relative to the body's frame as its
        reference condition fixes it); ``"mean_axis"``: the modes move the frame efforts and the
        velocities, ``w = (e_f, v)`` (module docstring), for a body in a floating frame.

    Attributes
    ----------
    f, v, s : ndarray of int
        Frame efforts, velocities and stresses (indices of the body's ``e``).
    w : ndarray of int
        The unknowns the modes move: ``v``, or ``(f, v)`` with mean axes.
    Mv, C, D : sparse
        ``M[w, w]``, ``M[s, s]`` and ``J0[s, w]``.
    n_frame : int
        The frame efforts at the head of ``w`` (0 without mean axes).
    """

    def __init__(self, body, velocity=None, frame="reference"):
        owner = f"body '{body.name}'"
        if not isinstance(frame, str) or frame not in MODE_FRAMES:
            raise ReductionError(f"{owner}: frame must be one of {list(MODE_FRAMES)}, got frame={frame!r}")
        ne = body.ne
        f = np.asarray(body.frame_dofs, int)
        if len(f) and not np.array_equal(f, np.arange(len(f))):
            raise ReductionError(f"{owner}: its frame efforts {f.tolist()} are not the leading ones")
        if velocity is None:
            velocity = getattr(body, "velocity_dofs", None)
        if velocity is None:
            raise ReductionError(f"{owner}: the reduction needs the velocity unknowns (velocity_dofs, or "
                                 "velocity= of the reduction); this body has none")
        v = np.unique(np.asarray(velocity, int))
        if len(v) and (v[0] < len(f) or v[-1] >= ne):
            raise ReductionError(f"{owner}: velocity unknowns outside the flexible efforts "
                                 f"[{len(f)}, {ne}) of the body")
        s = np.setdiff1d(np.arange(len(f), ne), v)
        if not len(v) or not len(s):
            raise ReductionError(f"{owner}: a velocity-stress body needs velocity and stress unknowns "
                                 f"(it has {len(v)} and {len(s)})")
        M, J = sp.csr_matrix(body.M), sp.csr_matrix(body.J0)
        Mvs = M[v][:, s]
        scale = abs(M).max()
        if Mvs.nnz and abs(Mvs).max() > 1e-12 * scale or (len(f) and M[f][:, s].nnz
                                                            and abs(M[f][:, s]).max() > 1e-12 * scale):
            raise ReductionError(f"{owner}: its energy metric couples stresses to velocities (M[s, v] != 0); "
                                 "the reduction needs kinetic and elastic energy apart")
        if frame == "mean_axis" and not len(f):
            raise ReductionError(f"{owner}: frame='mean_axis' needs a body in a floating frame; this body has no "
                                 "frame efforts (it is fixed in space)")
        self.body, self.f, self.v, self.s, self.frame = body, f, v, s, frame
        self.n_frame = len(f) if frame == "mean_axis" else 0
        self.w = np.r_[f, v] if self.n_frame else v
        self.Mv = sp.csc_matrix(M[self.w][:, self.w])
        self.C = sp.csc_matrix(M[s][:, s])
        self.D = sp.csr_matrix(J[s][:, self.w])
        if not self.D.nnz:
            raise ReductionError(f"{owner}: its structure does not couple stresses to velocities (J[s, v] = 0)")
        if self.n_frame:
            Df = self.D[:, :self.n_frame]
            if Df.nnz and abs(Df).max() > 1e-12 * abs(self.D).max():
                raise ReductionError(f"{owner}: its frame efforts strain the body (J[s, f] != 0), so the rigid "
                                     "motions are no free-free modes and mean axes are not defined")
        self._luC = None

    @property
    def nv(self):
        """The number of unknowns the modes move (``len(w)``)."""
        return len(self.w)

    def rigid_rows(self):
        """``G = [M_ff, M_fv]`` (dense, ``n_frame x nv``): the momenta of the rigid fields, ``G w = 0``
        the mean-axis conditions ``int rho u = 0``, ``int rho X x u = 0`` (module docstring)."""
        nf = self.n_frame
        return sp.csr_matrix(self.Mv)[:nf].toarray()

    def to_mean_axes(self, Phi):
        """The modes ``Phi`` (columns on ``w``) less their rigid part: the ``M``-orthogonal projection
        ``Phi - (I, 0)^T M_ff^{-1} G Phi`` onto ``G phi = 0``, which puts the mean-axis conditions
        of computed modes at round-off (the eigen solver leaves its own tolerance there)."""
        nf = self.n_frame
        G = self.rigid_rows()
        out = np.array(Phi, float)
        out[:nf] -= np.linalg.solve(G[:, :nf], G @ out)
        return out

    def compatible_stresses(self, Vv):
        """``V_s = C^{-1} D V_v``: the stresses of the displacements ``V_v``."""
        if self._luC is None:
            self._luC = spla.splu(self.C)
        return self._luC.solve(np.ascontiguousarray(self.D @ Vv))

    def interface_rows(self, ports):
        """The independent rows ``G`` (on ``w``) of the ports' velocity and angular-velocity rows:
        ``(G, labels)``, chosen by QR with column pivoting (the rows on the flexible velocities)."""
        rows, labels = [], []
        for p in ports:
            A = p.Y if p.W is None else np.vstack([p.Y, p.W])
            names = [f"{p.name}.v{i}" for i in range(p.Y.shape[0])]
            names += [] if p.W is None else [f"{p.name}.w{i}" for i in range(p.W.shape[0])]
            rows.append(np.asarray(A, float)[:, self.w])
            labels += names
        if not rows:
            return np.zeros((0, self.nv)), []
        A = np.vstack(rows)
        scale = np.abs(A).max()
        if scale == 0:
            return np.zeros((0, self.nv)), []
        _, R, piv = sla.qr(A.T / scale, mode="economic", pivoting=True)
        d = np.abs(np.diag(R))
        rank = int(np.sum(d > 1e-10 * d[0])) if len(d) else 0
        keep = np.sort(piv[:rank])
        return A[keep], [labels[i] for i in keep]


def constraint_modes(split, G):
    """Static constraint modes ``Psi`` (``nv x n_G``): ``K Psi + G^T mu = 0``, ``G Psi = I``.

    Solved with the bordered saddle-point matrix ``[[0, D^T, G^T], [D, -C, 0], [G, 0, 0]]``
    (one sparse LU, no ``C^{-1}`` formed)."""
    nG = G.shape[0]
    if not nG:
        return np.zeros((split.nv, 0))
    ns = split.C.shape[0]
    S = sp.bmat([[None, split.D.T, sp.csr_matrix(G).T], [split.D, -split.C, None], [sp.csr_matrix(G), None, None]],
                format="csc")
    try:
        lu = spla.splu(S)
    except RuntimeError:
        raise ReductionError(f"body '{split.body.name}': the interface does not hold the body statically "
                             "(K with the interface held is singular: a motion without strain is left)") from None
    rhs = np.zeros((S.shape[0], nG))
    rhs[split.nv + ns:] = np.eye(nG)
    Psi = lu.solve(rhs)[:split.nv]
    return Psi


def normal_modes(split, G, k, eigensolver="auto"):
    """The ``k`` lowest normal modes with the interface rows ``G`` held (``G phi = 0``):
    ``(omega, Phi)``, ``Phi^T M_v Phi = I``.

    ``eigensolver``: ``"scipy"`` (:func:`phmech.fem.condensed.condensed_modes`, ARPACK on the
    bordered saddle-point factor), ``"slepc"``
    (:func:`phmech.solvers.eigen_slepc.condensed_modes_slepc`, Krylov-Schur with MUMPS) or
    ``"auto"`` (SLEPc where it imports)."""
    if k == 0:
        return np.zeros(0), np.zeros((split.nv, 0))
    Gs = sp.csr_matrix(G) if G.shape[0] else None
    if eigensolver == "auto":
        from ..solvers.eigen_slepc import have_slepc
        eigensolver = "slepc" if have_slepc() else "scipy"
    if eigensolver == "slepc":
        from ..solvers.eigen_slepc import condensed_modes_slepc
        omega, Phi = condensed_modes_slepc(split.Mv, split.C, split.D, k=k, G=Gs)
    elif eigensolver == "scipy":
        from ..fem.condensed import condensed_modes
        omega, Phi = condensed_modes(split.Mv, split.C, split.D, k=k, G=Gs)
    else:
        raise ReductionError(f"body '{split.body.name}': eigensolver must be 'auto', 'slepc' or 'scipy', "
                             f"got {eigensolver!r}")
    return np.asarray(omega, float), fixed_signs(np.asarray(Phi, float))


def fixed_signs(Phi):
    """The modes ``Phi`` (columns) with a fixed sign: a generic weighting of their entries
    positive (a largest entry can be tied in a symmetric mode), so that the same matrices give
    the same basis, on one process or many."""
    w = np.random.default_rng(20100101).standard_normal(Phi.shape[0])
    s = np.sign(w @ Phi)
    s[s == 0] = 1.0
    return Phi * s


def max_modes(split, n_interface):
    """The most normal modes the eigen solvers return for a body with ``n_interface`` held rows."""
    return split.nv - n_interface - 1


def check_mode_count(split, n_modes, n_interface, what="n_modes", held="held by the interface"):
    """Refuse a mode count that is no integer in ``[0, max_modes]``, naming the body and the sizes
    (``held``: what holds the ``n_interface`` rows)."""
    top = max_modes(split, n_interface)
    owner = f"body '{split.body.name}'"
    if isinstance(n_modes, bool) or not isinstance(n_modes, (int, np.integer)) or n_modes < 0:
        raise ReductionError(f"{owner}: {what} must be a non-negative integer, got {n_modes!r}")
    if n_modes > top:
        unknowns = "velocity unknowns" if not split.n_frame else "frame and velocity unknowns"
        raise ReductionError(f"{owner}: {what}={n_modes} is more than the body has: {split.nv} {unknowns}, "
                             f"{n_interface} of them {held}, so at most {max(top, 0)} normal modes")


class Basis:
    """``V``: the reduced efforts ``e_r = (e_f, v_r, s_r)`` and the full ones ``e = V e_r``,
    ``V = blockdiag(I_f, V_v, V_s)`` with, for modes that move the frame (mean axes, module
    docstring), the frame block ``e_f = e_{f,r} + V_f v_r``.

    Parameters
    ----------
    ne : int
        Size of the full body's efforts.
    f, v, s : ndarray of int
        Frame, velocity and stress indices of the full efforts.
    Vv, Vs : ndarray
        Velocity and stress bases.
    Vf : ndarray, optional
        ``(len(f), n_r)``: the frame efforts of the velocity modes (default: zero).
    """

    def __init__(self, ne, f, v, s, Vv, Vs, Vf=None):
        self.ne = int(ne)
        self.f, self.v, self.s = (np.asarray(x, np.int64) for x in (f, v, s))
        # C order, as a file gives them back: the same products bit for bit before and after a round trip
        self.Vv, self.Vs = np.ascontiguousarray(Vv, float), np.ascontiguousarray(Vs, float)
        nf, nr, nsr = len(self.f), self.Vv.shape[1], self.Vs.shape[1]
        self.Vf = np.zeros((nf, nr)) if Vf is None else np.ascontiguousarray(np.reshape(Vf, (nf, nr)), float)
        #: reduced indices of the frame efforts, velocity and stress coordinates
        self.rf = np.arange(nf)
        self.rv = nf + np.arange(nr)
        self.rs = nf + nr + np.arange(nsr)

    @property
    def n(self):
        """Size of the reduced efforts."""
        return len(self.f) + self.Vv.shape[1] + self.Vs.shape[1]

    @property
    def moves_frame(self):
        """Whether the velocity modes move the frame efforts (``V_f != 0``: mean axes)."""
        return bool(np.any(self.Vf))

    def full(self, e_r):
        """``V e_r`` (the last axis of ``e_r``: reduced efforts, e.g. one row per time)."""
        e_r = np.asarray(e_r, float)
        out = np.zeros(e_r.shape[:-1] + (self.ne,))
        out[..., self.f] = e_r[..., self.rf] + e_r[..., self.rv] @ self.Vf.T
        out[..., self.v] = e_r[..., self.rv] @ self.Vv.T
        out[..., self.s] = e_r[..., self.rs] @ self.Vs.T
        return out

    def rows(self, A):
        """``A V`` of rows ``A`` on the full efforts (dense ``(m, n)``)."""
        A = A.tocsc() if sp.issparse(A) else np.asarray(A, float)
        out = np.zeros((A.shape[0], self.n))
        for cols, r, B in ((self.f, self.rf, None), (self.v, self.rv, self.Vv), (self.s, self.rs, self.Vs)):
            if len(cols) and len(r):
                block = A[:, cols]
                out[:, r] = (block.toarray() if sp.issparse(block) else block) if B is None else block @ B
        if len(self.f) and len(self.rv) and self.moves_frame:
            out[:, self.rv] += A[:, self.f] @ self.Vf
        return out

    def project(self, A):
        """``V^T A V`` (dense ``(n, n)``) of a full matrix ``A`` (sparse or dense)."""
        AV = self.rows(A)
        return self.columns(AV)

    def columns(self, B):
        """``V^T B`` of columns ``B`` on the full efforts (``(ne, m)`` -> ``(n, m)``)."""
        B = np.asarray(B, float)
        out = np.zeros((self.n,) + B.shape[1:])
        out[self.rf] = B[self.f]
        out[self.rv] = self.Vv.T @ B[self.v] + self.Vf.T @ B[self.f]
        out[self.rs] = self.Vs.T @ B[self.s]
        return out


def compatible_basis(split, Vv):
    """The basis ``blockdiag(I, V_v, C^{-1} D V_v)`` of velocity modes ``V_v`` (on ``split.w``: with
    mean axes their frame rows are the basis' frame block ``V_f``).

    The stress block is kept as it is when ``K_r = V_v^T K V_v`` is definite (then ``s_r`` are
    the modal displacements); a velocity basis holding a motion without strain makes its
    columns dependent, and they are replaced by a ``C``-orthonormal basis of their span."""
    Vs = split.compatible_stresses(Vv)
    if Vs.shape[1]:
        Kr = Vs.T @ (split.C @ Vs)
        w = np.linalg.eigvalsh(0.5 * (Kr + Kr.T))
        if w[0] <= 1e-12 * max(w[-1], 0.0):
            w, Q = np.linalg.eigh(0.5 * (Kr + Kr.T))
            keep = w > 1e-12 * w[-1]
            Vs = Vs @ (Q[:, keep] / np.sqrt(w[keep]))
    nf = split.n_frame
    return Basis(split.body.ne, split.f, split.v, split.s, Vv[nf:], Vs, Vf=Vv[:nf] if nf else None)


def independent_columns(split, Vv, what):
    """``V_v``, refused when its columns are dependent: the lowest eigenvalue of their mass
    (``V_v^T M_v V_v``, scaled to a unit diagonal) at round-off."""
    Mr = Vv.T @ (split.Mv @ Vv)
    d = np.sqrt(np.abs(np.diag(Mr)))
    if np.any(d == 0):
        raise ReductionError(f"body '{split.body.name}': one of the {what} vanishes")
    w = np.linalg.eigvalsh(0.5 * (Mr + Mr.T) / np.outer(d, d))
    if len(w) and w[0] <= 1e-12:
        raise ReductionError(f"body '{split.body.name}': the {what} are linearly dependent (lowest eigenvalue "
                             f"{w[0]:.3e} of their scaled mass)")
    return Vv

"""A planar floating-frame beam with geometric stiffening and exact rotating-frame inertia.

The linear floating frame of :class:`~phmech.fem.beam.FloatingEulerBernoulliBeam`
writes the inertia of the flexible part with the undeformed geometry and
uses the linear axial strain.  It has no geometric (centrifugal) stiffening,
and its rotating-frame terms do not follow from a kinetic energy of the
deformed body.  This module gives the geometrically consistent model.

Kinematics
----------
A material point ``X`` of the axis is at ``r = r_P + R(theta) (X e1 + u(X))``
with the displacement ``u = (u_x, u_y)`` in the floating frame.  Its
absolute velocity, in frame components, is ``v_P + a(X)`` with
``a = omega S X e1 + a_f`` split into a rigid rotation (``omega``) and the
rest ``a_f``.  These are the efforts: the kinetic energy
``T = 1/2 int rho A |v_P + a|^2 dX`` is exact for the deformed body and
its mass matrix is *constant*, so the port-Hamiltonian form with
``H = 1/2 e^T M e`` holds.  The displacement is part of the configuration
and follows ``u' = a - theta' S (X e1 + u)``.

The frame is attached to the deformation by a gauge that is invariant under
rotations of ``X e1 + u``: ``u(0) = 0`` and

* ``frame="cantilever"``: the tangent of the axis at ``X = 0`` is the frame's
  ``e1`` (``u_y'(0) = 0``), so ``theta' = omega / (1 + u_x'(0))``;
* ``frame="simply_supported"``: the chord to ``X = L`` is ``e1``
  (``u_y(L) = 0``), so ``theta' = omega L / (L + u_x(L))``.

The gauge degree of freedom is removed from both ``u_y`` and ``a_f``; the
kinematic equation keeps it at zero exactly (also in the discrete
updates, since the rate of the removed component vanishes identically).

Elasticity and structure
------------------------
Stored energy ``1/2 int (n^2 / EA + m^2 / EI) dX`` in the co-energy
variables axial force ``n`` and bending moment ``m``, with

* ``strain="green"`` (geometric stiffening): ``eps = u_x' + (u_x'^2 + u_y'^2) / 2``,
  the Green-Lagrange strain of the axis (it contains the von Karman term
  ``u_y'^2 / 2``); it is invariant under rigid rotations of ``X e1 + u``, so
  ``eps' = (1 + u_x') a_x' + u_y' a_y'``;
* ``strain="linear"``: ``eps = u_x'`` (consistent inertia without stiffening:
  the classical model that diverges in the spin-up benchmark);

and the linear curvature ``kappa = u_y''`` (small rotations relative to the
frame), ``kappa' = a_y'' - theta' u_x''``.  The stress equations are
``C_n n' = B_n(q) e`` and ``C_m m' = B_m(q) e`` with the strain-rate operators
above; the velocity equations receive ``-B(q)^T (n, m)`` and the
rotating-frame term ``-theta' K e`` (``theta' = sigma(q) omega``).  So
``J(q, e)`` is skew: ``e . J e = 0`` for every state, the Hamiltonian is the
stored energy and the implicit midpoint rule keeps an exact discrete power
balance.  The constitutive relations ``C_n n = int dn eps(u)`` and
``C_m m = int dm u_y''`` are invariants of the flow and of the midpoint rule
(``eps`` is quadratic in ``u``).  Angular momentum is conserved where the
continuum conserves it, since ``T`` and the stored energy are invariant
under rotations of the frame.

Neglected: shear and rotary inertia of the sections (Euler-Bernoulli), the
nonlinear part of the curvature (rotations relative to the frame are
small), and the axial strain in the curvature.

Discretization (Firedrake, assembled once): cubic Hermite for ``a_x, a_y,
u_x, u_y`` (one space for both components, so ``S`` maps it onto itself),
continuous P2 for ``n`` (``d/dX`` maps the Hermite fields with ``u(0) = 0``
one to one onto it) and DG1 for ``m``.  The state-dependent terms are
integrated with a Gauss rule exact for their polynomial degree, from
sparse matrices that evaluate derivatives at the quadrature points.

Ports ``A`` (``X = 0``) and ``B`` (``X = L``) carry velocity rows only (their
rotation rates depend on the configuration); the frame's rotation is
driven or coupled with :class:`FrameRate`.
"""
import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from ..bodies.picture import AxisPicture
from ..bodies.base import FloatingFrameBody
from ..math.gauge import frame_scale
from . import beam_nonlinear_kernels as _kernels
from ._petsc import to_numpy, to_scipy
from .beam_operators import KernelBeam
from .cache import CachedFE
from .beam_common import _check_positive, check_n_elem
from .frame_rate import FrameRate

__all__ = ["NonlinearFloatingBeam", "NonlinearBeamFE", "FrameRate", "GAUGES", "STRAINS"]

#: gauge of each frame: (end, trace) of the removed u_y degree of freedom and the length d
GAUGES = {"cantilever": ("A", "slope", 1.0), "simply_supported": ("B", "value", None)}
STRAINS = ("green", "linear")


def _single_dof(row, what, owner):
    nz = np.flatnonzero(np.abs(row) > 1e-12 * np.abs(row).max())
    if len(nz) != 1:
        raise RuntimeError(f"beam '{owner}': {what} is not a single degree of freedom ({len(nz)} nonzeros)")
    return int(nz[0])


class NonlinearBeamFE(CachedFE):
    """Mixed FE matrices of the nonlinear planar beam on ``[0, L]``.

    Attributes
    ----------
    M, J, K : scipy CSR over ``(a_x, a_y, n, m)`` (offsets in ``offsets``)
    E1 : CSR (nQ, nV): first derivative of a Hermite field at the quadrature points
    Nq : CSR (nQ, nVn): the P2 axial-force field at the quadrature points
    wq : (nQ,) quadrature weights (times the cell Jacobians)
    xi, one : (nV,) Hermite coefficients of ``X`` and of ``1``
    Dm : CSR (nVm, nV): ``int dm phi''``
    """

    KIND = "NonlinearBeamFE"
    #: what the FE cache (:mod:`phmech.fem.cache`) keeps of this object
    CACHED = ("M", "J", "K", "offsets", "nV", "xi", "one", "Dm", "wq", "E1", "Nq", "trace")
    FIREDRAKE_ATTRIBUTES = ("mesh", "V", "_test")

    def __init__(self, name, L, n_elem, rhoA, EA, EI):
        self.name, self.L, self.n_elem = name, L, n_elem
        self.rhoA, self.EA, self.EI = rhoA, EA, EI
        self._load_or_assemble([float(L), int(n_elem), float(rhoA), float(EA), float(EI)])
        self.nV = int(self.nV)

    def _setup_firedrake(self):
        if self._fd is not None:
            return
        import firedrake as fd

        self._fd = fd
        self.mesh = fd.IntervalMesh(self.n_elem, self.L)
        self.V = fd.FunctionSpace(self.mesh, "Hermite", 3)
        self._test = fd.TestFunction(self.V)

    def _assemble(self):
        import finat.ufl

        self._setup_firedrake()
        fd, mesh, V = self._fd, self.mesh, self.V
        rhoA, EA, EI = self.rhoA, self.EA, self.EI
        x = fd.SpatialCoordinate(mesh)[0]
        Vn = fd.FunctionSpace(mesh, "CG", 2)
        Vm = fd.FunctionSpace(mesh, "DG", 1)
        W = V * V * Vn * Vm
        sizes = [V.dim(), V.dim(), Vn.dim(), Vm.dim()]
        edges = np.cumsum([0] + sizes)
        out = {"offsets": {k: slice(int(edges[i]), int(edges[i + 1]))
                           for i, k in enumerate(("ax", "ay", "n", "m"))}, "nV": V.dim()}
        ax, ay, n, m = fd.TrialFunctions(W)
        dax, day, dn, dm = fd.TestFunctions(W)
        dx = fd.dx
        out["M"] = to_scipy(fd.assemble((rhoA * (dax * ax + day * ay) + dn * n / EA + dm * m / EI) * dx,
                                        mat_type="aij"))
        out["J"] = to_scipy(fd.assemble((-dax.dx(0) * n - day.dx(0).dx(0) * m
                                         + dn * ax.dx(0) + dm * ay.dx(0).dx(0)) * dx, mat_type="aij"))
        out["K"] = to_scipy(fd.assemble(rhoA * (day * ax - dax * ay) * dx, mat_type="aij"))
        for k in ("M", "J", "K"):
            out[k].eliminate_zeros()
        u, v = fd.TrialFunction(V), fd.TestFunction(V)
        MV = to_scipy(fd.assemble(u * v * dx, mat_type="aij"))

        lu = splu(MV.tocsc())
        out["xi"] = lu.solve(to_numpy(fd.assemble(x * v * dx)))      # X (exact: X is in the space)
        out["one"] = lu.solve(to_numpy(fd.assemble(v * dx)))         # the constant 1
        out["Dm"] = to_scipy(fd.assemble(fd.TestFunction(Vm) * u.dx(0).dx(0) * dx, mat_type="aij"))
        # quadrature points: 4 Gauss points per cell (exact for the degree-6 integrands)
        Qe = finat.ufl.FiniteElement("Quadrature", mesh.ufl_cell(), degree=7, quad_scheme="default")
        Q = fd.FunctionSpace(mesh, Qe)
        out["wq"] = to_numpy(fd.assemble(fd.TestFunction(Q) * fd.dx(metadata={"quadrature_degree": 7})))
        out["E1"] = self._interp(fd, u.dx(0), Q)
        out["Nq"] = self._interp(fd, fd.TrialFunction(Vn), Q)
        out["trace"] = {}
        for end, mark in (("A", 1), ("B", 2)):
            out["trace"][end] = {"value": to_numpy(fd.assemble(v * fd.ds(mark))),
                                 "slope": to_numpy(fd.assemble(v.dx(0) * fd.ds(mark)))}
        return out

    @staticmethod
    def _interp(fd, expr, Q):
        A = to_scipy(fd.assemble(fd.interpolate(expr, Q)))
        A.eliminate_zeros()
        return A.tocsr()

    def point_rows(self, points):
        """Rows evaluating a Hermite field at ``points`` (array ``(npts, nV)``), cached per point set."""
        from .beam_common import CellPointEvaluator
        points = np.clip(np.atleast_1d(np.asarray(points, float)), 0.0, self.L)
        tag = self.points_tag(points)
        if tag not in self._memo:
            self._setup_firedrake()
            if self._points is None:
                self._points = CellPointEvaluator(self.mesh)
            self._remember(tag, self._points.rows(points, (self._test,))[0])
        return self._memo[tag]


class NonlinearFloatingBeam(KernelBeam, AxisPicture, FloatingFrameBody):
    """A planar beam in a floating frame with exact rotating-frame inertia and,
    with ``strain="green"``, geometric stiffening (see the module docstring).

    ``q = (x_P, y_P, theta, u_x, u_y)``, ``e = (v_P^x, v_P^y, omega, a_x, a_y, n, m)``
    (flexible fields after the gauge).

    Parameters
    ----------
    name : str
    L, n_elem : length [m] and number of elements.
    rho, A, E, I : density [kg/m^3], area [m^2], Young's modulus [Pa], second moment of area [m^4].
    frame : ``"simply_supported"`` (chord frame) or ``"cantilever"`` (tangent frame at ``X = 0``).
    strain : ``"green"`` (geometric stiffening, default) or ``"linear"``.
    position, angle : initial configuration of the frame.
    """

    kinematics_group = None
    omega_indices = ()
    has_effort_terms = True
    #: the family's kernels (:mod:`phmech.fem.beam_nonlinear_kernels`)
    _kernels = _kernels
    #: the kernel family evaluating the beams' kinematics and effort terms
    #: (:mod:`phmech.kernels.families`; data by the kernel module's ``pack``)
    kernel_slot = "planar_consistent_beams"

    def __init__(self, name, L, n_elem, rho, A, E, I, frame="simply_supported", strain="green",
                 position=(0.0, 0.0), angle=0.0):
        FloatingFrameBody.__init__(self, name, position, angle)
        n_elem = check_n_elem(name, n_elem)
        _check_positive(name, L=L, rho=rho, A=A, E=E, I=I)
        problems = []
        if frame not in GAUGES:
            problems.append(f"frame must be one of {sorted(GAUGES)}, got {frame!r}")
        if strain not in STRAINS:
            problems.append(f"strain must be one of {list(STRAINS)}, got {strain!r}")
        if problems:
            raise ValueError(f"beam '{name}': " + "; ".join(problems))
        self.L, self.n_elem, self.frame, self.strain = float(L), n_elem, frame, strain
        self.rho, self.A, self.E_mod, self.I = rho, A, E, I
        self.rhoA, self.EA, self.EI = rho * A, E * A, E * I
        fe = self.fe = NonlinearBeamFE(name, self.L, n_elem, self.rhoA, self.EA, self.EI)
        nV = fe.nV
        end, kind, d = GAUGES[frame]
        self._d = self.L if d is None else d
        zero = _single_dof(fe.trace["A"]["value"], "the value at X = 0", name)
        gauge_row = fe.trace[end][kind]
        gauge = _single_dof(gauge_row, f"the {kind} at {end}", name)
        self._c = gauge_row                         # u_x functional of the gauge: u_x'(0) or u_x(L)
        kx = np.setdiff1d(np.arange(nV), [zero])
        ky = np.setdiff1d(np.arange(nV), [zero, gauge])
        nn = fe.offsets["n"].stop - fe.offsets["n"].start
        nm = fe.offsets["m"].stop - fe.offsets["m"].start
        r = 3
        self.sizes = dict(ax=len(kx), ay=len(ky), n=nn, m=nm)
        o_ax, o_ay = r, r + len(kx)
        o_n, o_m = o_ay + len(ky), o_ay + len(ky) + nn
        ne = o_m + nm
        self.fields = {"ax": np.arange(o_ax, o_ay), "ay": np.arange(o_ay, o_n),
                       "n": np.arange(o_n, o_m), "m": np.arange(o_m, ne)}
        # maps from the local e and q to full field vectors
        sel = lambda keep, col0, ncol: sp.csr_matrix((np.ones(len(keep)), (keep, col0 + np.arange(len(keep)))),
                                                     shape=(nV, ncol))
        Pe_x = sel(kx, o_ax, ne)
        Pe_y = (sel(ky, o_ay, ne) + sp.csr_matrix((fe.xi, (np.arange(nV), np.full(nV, 2))), shape=(nV, ne))).tocsr()
        nq = 3 + len(kx) + len(ky)
        self.Pq_x, self.Pq_y = sel(kx, 3, nq), sel(ky, 3 + len(kx), nq)
        self.Pn = sp.csr_matrix((np.ones(nn), (np.arange(nn), o_n + np.arange(nn))), shape=(nn, ne))
        self.Pm = sp.csr_matrix((np.ones(nm), (np.arange(nm), o_m + np.arange(nm))), shape=(nm, ne))
        self.Pe_x, self.Pe_y = Pe_x, Pe_y
        self._sel_x, self._sel_y = Pe_x, sel(ky, o_ay, ne)      # a_f only (Pe_y also holds omega X)
        # the full-field map of the flexible and rigid velocities, then M, J0 and K in local e
        Pfield = sp.hstack([Pe_x.T, Pe_y.T, self.Pn.T, self.Pm.T]).tocsr()   # ne x nW
        rigid = np.zeros((fe.M.shape[0], 3))
        rigid[fe.offsets["ax"], 0] = fe.one
        rigid[fe.offsets["ay"], 1] = fe.one
        # translations: a_x = const and a_y = const are Hermite fields with values 1, slopes 0
        Tr = sp.csr_matrix(rigid)
        full = (Pfield + sp.hstack([Tr, sp.csr_matrix((fe.M.shape[0], ne - 3))]).T).tocsr()     # ne x nW
        self.M = (full @ fe.M @ full.T).tocsr()
        self.K = (full @ fe.K @ full.T).tocsr()
        self.J0 = (Pfield @ fe.J @ Pfield.T).tocsr()
        for A_ in (self.M, self.K, self.J0):
            A_.eliminate_zeros()
        self.K_list = []
        self._full = full
        # operators at the quadrature points (the kernels' data: kernel_operators)
        self._Fx, self._Fy = (fe.E1 @ Pe_x).tocsr(), (fe.E1 @ Pe_y).tocsr()
        self._Sx, self._Sy = (fe.E1 @ self.Pq_x).tocsr(), (fe.E1 @ self.Pq_y).tocsr()
        self._Nn = (fe.Nq @ self.Pn).tocsr()
        self._DmPx = (fe.Dm @ self.Pq_x).tocsr()
        self._cq = np.asarray(self.Pq_x.T @ self._c).ravel()         # gauge functional on q
        self._gauge_q = _single_dof(self._cq, "the gauge functional on q", name)
        self._dense = {k: getattr(self, k).toarray() for k in ("Pq_x", "Pq_y")}
        self.q_labels = ["x", "y", "theta"] + [f"ux{i}" for i in range(len(kx))] + [f"uy{i}" for i in range(len(ky))]
        self.q0 = np.r_[self.q0, np.zeros(nq - 3)]
        self.e_labels = ["vx", "vy", "omega"]
        self.mass = float(self.M[0, 0])
        # ports: velocity rows only
        for pname, X, tr in (("A", 0.0, fe.trace["A"]["value"]), ("B", self.L, fe.trace["B"]["value"])):
            Y = np.zeros((2, ne))
            Y[0] = full[:, fe.offsets["ax"]] @ tr
            Y[1] = full[:, fe.offsets["ay"]] @ tr
            self.add_port(pname, Y, None, (X, 0.0))
        self._trace_q = {p: (np.asarray(self.Pq_x.T @ fe.trace[p]["value"]).ravel(),
                             np.asarray(self.Pq_y.T @ fe.trace[p]["value"]).ravel()) for p in ("A", "B")}

    # -- the kernels --------------------------------------------------------
    def kernel_operators(self):
        """The sparse operators of :mod:`phmech.fem.beam_nonlinear_kernels` (local columns)."""
        return {"Pq_x": self.Pq_x, "Pq_y": self.Pq_y, "Pe_x": self.Pe_x, "Pe_y": self.Pe_y,
                "Sx": self._Sx, "Sy": self._Sy, "Fx": self._Fx, "Fy": self._Fy, "Nn": self._Nn,
                "DmPx": self._DmPx, "Pm": self.Pm, "K": self.K}

    # -- kinematics ---------------------------------------------------------
    def sigma(self, q):
        """``theta' / omega`` and its gradient with respect to ``q``."""
        s, ds = frame_scale(self._d, self._cq[self._gauge_q], q[self._gauge_q])
        grad = np.zeros(self.nq)
        grad[self._gauge_q] = ds
        return s, grad

    def frame_rate(self, q):
        """Row ``l`` with ``theta' = l . e`` and ``d(l . e)/dq = omega dsigma/dq`` (for :class:`FrameRate`)."""
        s, ds = self.sigma(q)
        row = np.zeros(self.ne)
        row[2] = s
        return row, ds

    def frame_rate_gauge(self):
        """``g`` with the frame rate ``theta' = omega / (1 + g . q)`` (:mod:`phmech.fem.frame_rate`)."""
        return self._cq / self._d

    def retract(self, q, v):
        """Move the frame (``v = (v_P, omega)`` over unit time) with the deformed shape unchanged."""
        out = np.array(q, float)
        out[:2] += self.rotation(q) @ v[:2]
        out[2] += v[2] * self.sigma(q)[0]
        return out

    # -- rigid motions of the deformed shape (quasi-static start) --------------
    @property
    def flexible_velocity_dofs(self):
        """Local indices of ``a_f`` in ``e`` (same order as :attr:`displacement_dofs` in ``q``)."""
        return np.r_[self.fields["ax"], self.fields["ay"]]

    @property
    def displacement_dofs(self):
        """Local indices of ``u`` in ``q``."""
        return np.arange(3, self.nq)

    def rigid_rotation_field(self, q):
        """``rho(q)``: with ``e = omega (e_omega + rho)`` the deformed body turns rigidly (``u' = 0``)."""
        sig = self.sigma(q)[0]
        ux, uy = self.Pq_x @ q, self.Pq_y @ q
        return self._sel_x.T @ (-sig * uy) + self._sel_y.T @ (sig * (self.fe.xi + ux) - self.fe.xi)

    @property
    def stress_dofs(self):
        """Local indices of the stresses in ``e`` (they follow every velocity)."""
        return np.r_[self.fields["n"], self.fields["m"]]

    def rotation_velocity(self, q, axis, point):
        """Body-frame ``(v_x, v_y, omega)`` of the deformed beam turning rigidly at unit rate: the
        frame turns at ``theta' = sigma(q) omega = 1`` (the flexible part: :meth:`rigid_motion_map`)."""
        v = FloatingFrameBody.rotation_velocity(self, q, axis, point)
        v[2] /= self.sigma(q)[0]
        return v

    def rigid_motion_map(self, q):
        """``B`` (ne x 3): efforts ``B (v_P, omega)`` move the deformed body rigidly (``u' = 0``)."""
        B = np.zeros((self.ne, 3))
        B[[0, 1, 2], [0, 1, 2]] = 1.0
        B[:, 2] += self.rigid_rotation_field(q)
        return B

    def elastic_stiffness(self):
        """Cholesky factor (``scipy.linalg.cho_factor``) of the linear stiffness ``B0^T C^-1 B0`` on ``u``."""
        import scipy.linalg as sla
        sig_rows = np.r_[self.fields["n"], self.fields["m"]]
        a = self.flexible_velocity_dofs
        B0 = self.J0[sig_rows][:, a].toarray()
        C = self.M[sig_rows][:, sig_rows].toarray()
        return sla.cho_factor(B0.T @ np.linalg.solve(C, B0))

    def port_position(self, q, port):
        tx, ty = self._trace_q[port.name]
        return self.position(q) + self.rotation(q) @ (port.position + np.array([tx @ q, ty @ q]))

    # -- state-dependent structure -------------------------------------------
    # -- state helpers ---------------------------------------------------------
    def stresses_of(self, q):
        """Axial force and bending moment in equilibrium with the displacement in ``q``
        (the constitutive relations), as an effort vector with zero velocities."""

        fe = self.fe
        ux, uy = self.Pq_x @ q, self.Pq_y @ q
        sx, sy = fe.E1 @ ux, fe.E1 @ uy
        eps = sx if self.strain == "linear" else sx + 0.5 * (sx * sx + sy * sy)
        if getattr(self, "_compliance", None) is None:      # factors of the stress blocks of M, once
            self._compliance = tuple(splu(fe.M[fe.offsets[f], :][:, fe.offsets[f]].tocsc()) for f in ("n", "m"))
        Cn, Cm = self._compliance
        e = np.zeros(self.ne)
        e[self.fields["n"]] = Cn.solve(fe.Nq.T @ (fe.wq * eps))
        e[self.fields["m"]] = Cm.solve(fe.Dm @ uy)
        return e

    def first_moment(self):
        """``(s0, rows, "q")``: first moment of mass about the frame origin ``s0 + rows @ q`` (frame
        components, the displacement in the configuration)."""
        from .beam_common import axis_first_moment
        return (*axis_first_moment(self, self.rhoA), "q")

    def displacement_rows(self, points):
        """Rows giving ``(u_x, u_y)`` at ``points`` from ``q`` (two arrays ``(npts, nq)``)."""
        P = self.fe.point_rows(points)
        return P @ self._dense["Pq_x"], P @ self._dense["Pq_y"]

    def deformed_axis(self, q, n_points=21):
        """Inertial coordinates of the deformed axis, array ``(n_points, 2)``."""
        x = np.linspace(0.0, self.L, n_points)
        rx, ry = self.displacement_rows(x)
        local = np.stack([x + rx @ q, ry @ q], axis=1)
        return q[:2] + local @ self.rotation(q).T

    def angular_momentum(self, q, e):
        """Angular momentum about the inertial origin (z component)."""
        fe = self.fe
        ux, uy = self.Pq_x @ q, self.Pq_y @ q
        X = fe.xi
        px, py = self._full[:, fe.offsets["ax"]].T @ e, self._full[:, fe.offsets["ay"]].T @ e  # absolute velocity fields
        Mv = fe.M[fe.offsets["ax"], :][:, fe.offsets["ax"]]
        # r x v with r = r_P + R (X e1 + u), v = R (v_P + a): z component is frame-invariant
        rel = (X + ux) @ (Mv @ py) - uy @ (Mv @ px)
        P = np.array([px @ (Mv @ fe.one), py @ (Mv @ fe.one)])   # linear momentum (frame)
        rP = self.rotation(q).T @ q[:2]
        return rel + rP[0] * P[1] - rP[1] * P[0]


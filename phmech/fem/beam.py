"""Planar Euler-Bernoulli beams from mixed finite elements (Firedrake).

The flexible part is the velocity-stress (pH) form of the beam,

.. math::

    \\rho A\\, \\partial_t v_x = \\partial_x n, \\qquad
    \\tfrac{1}{EA}\\, \\partial_t n = \\partial_x v_x, \\qquad
    \\rho A\\, \\partial_t v_y = -\\partial_{xx} m, \\qquad
    \\tfrac{1}{EI}\\, \\partial_t m = \\partial_{xx} v_y,

discretized with P1 Lagrange for ``v_x``, cubic Hermite for ``v_y``, DG0
for the axial force ``n`` and DG1 for the bending moment ``m``.  The
derivatives are taken on the velocities (``d/dx`` maps P1 onto DG0 and
``d2/dx2`` maps Hermite onto DG1), so the strains are exact derivatives of
discrete displacements and the structure matrix is exactly skew.  Boundary
forces and moments enter weakly through the port rows; velocity conditions
(clamped, pinned, roller) remove velocity degrees of freedom.

In the floating frame (Brugnoli et al., Multibody Syst. Dyn. 51, 2021) the
body-frame velocity of the material point at ``x`` is
``v = v_P + omega e_z x (x e_1) + v_f(x)``.  The velocity equations are the
rotating-frame Newton law ``rho A (v' + omega S v) = ...`` tested with the
full virtual velocity, which gives the constant mass matrix ``M`` and the
gyroscopic part ``-omega K e`` of ``J(e)``.  The frame is fixed to the
deformation by conditions on ``v_f``: ``"cantilever"`` (clamped at x=0) or
``"simply_supported"`` (pinned at x=0, transverse roller at x=L).  This is
the linear floating-frame model: it has no geometric stiffening.  The
axial force is an explicit state (``n``), so a von Karman geometric
stiffness term, a state-dependent coupling of ``n`` and ``v_y`` in ``J``,
can be added by overriding :meth:`FloatingEulerBernoulliBeam.Je` later
without changing the system layer.

The matrices are assembled once with Firedrake and converted to scipy; no
Firedrake call happens during time integration.
"""

import numpy as np
import scipy.sparse as sp

from ..bodies.picture import AxisPicture
from ..bodies.base import Body, FixedBody, FloatingFrameBody
from ._petsc import to_numpy, to_scipy
from .beam_common import (BYTES_PER_ELEMENT, MAX_ELEMENTS, CellPointEvaluator,  # noqa: F401 (public here)
                          _check_positive, axis_first_moment, check_n_elem)
from .cache import CachedFE
from .floating_frame import frame_blocks, gyroscopic_forms, rigid_couplings, rigid_fields

#: velocity conditions per end: which of (v_x, v_y, slope) vanish
END_CONDITIONS = {
    "free": (),
    "roller": ("vy",),
    "pinned": ("vx", "vy"),
    "clamped": ("vx", "vy", "slope"),
}
#: floating-frame conditions on the deformation field, as end conditions (A, B)
FRAME_CONDITIONS = {
    "cantilever": ("clamped", "free"),
    "simply_supported": ("pinned", "roller"),
}


class EulerBernoulliFE(CachedFE):
    """Mixed FE matrices of a beam on ``[0, L]`` (flexible part only).

    Attributes (all over the flexible unknowns ``(v_x, v_y, n, m)``)
    ----------
    M, J, K : scipy CSR
        Mass/compliance, structure and gyroscopic (``v . S v``) matrices.
    offsets : dict of slices for the four fields.

    The matrices, the boundary traces, the rigid-body couplings and the
    point-evaluation rows are kept in the FE cache (:mod:`phmech.fem.cache`)
    under the beam's parameters: a second process with the same beam reads
    them back and never imports Firedrake (``from_cache`` says which).
    """

    KIND = "EulerBernoulliFE"
    CACHED = ("M", "J", "K", "offsets", "nf", "trace")
    EXTRA_SOURCES = ("phmech.fem.floating_frame",)
    #: Firedrake objects, built on first use (a model read from the cache has none)
    FIREDRAKE_ATTRIBUTES = ("mesh", "x", "Vx", "Vy", "Vn", "Vm", "W", "_trials", "_tests")

    def __init__(self, name, L, n_elem, rhoA, EA, EI):
        self.name, self.L, self.n_elem = name, L, n_elem
        self.rhoA, self.EA, self.EI = rhoA, EA, EI
        self._load_or_assemble([float(L), int(n_elem), float(rhoA), float(EA), float(EI)])
        self.nf = int(self.nf)

    def _setup_firedrake(self):
        """Mesh, spaces and test functions (only when something is not in the cache)."""
        if self._fd is not None:
            return
        import firedrake as fd

        self._fd = fd
        self.mesh = mesh = fd.IntervalMesh(self.n_elem, self.L)
        self.x = fd.SpatialCoordinate(mesh)[0]
        self.Vx = fd.FunctionSpace(mesh, "CG", 1)
        self.Vy = fd.FunctionSpace(mesh, "Hermite", 3)
        self.Vn = fd.FunctionSpace(mesh, "DG", 0)
        self.Vm = fd.FunctionSpace(mesh, "DG", 1)
        self.W = W = self.Vx * self.Vy * self.Vn * self.Vm
        self._trials = fd.TrialFunctions(W)
        self._tests = fd.TestFunctions(W)

    def _assemble(self):
        self._setup_firedrake()
        fd = self._fd
        rhoA, EA, EI = self.rhoA, self.EA, self.EI
        sizes = [V.dim() for V in (self.Vx, self.Vy, self.Vn, self.Vm)]
        edges = np.cumsum([0] + sizes)
        offsets = {k: slice(int(edges[i]), int(edges[i + 1])) for i, k in enumerate(("vx", "vy", "n", "m"))}
        vx, vy, n, m = self._trials
        dvx, dvy, dn, dm = self._tests
        dx = fd.dx
        out = {"offsets": offsets, "nf": int(edges[-1])}
        out["M"] = to_scipy(fd.assemble((rhoA * (dvx * vx + dvy * vy) + dn * n / EA + dm * m / EI) * dx,
                                        mat_type="aij"))
        out["J"] = to_scipy(fd.assemble((-dvx.dx(0) * n - dvy.dx(0).dx(0) * m
                                         + dn * vx.dx(0) + dm * vy.dx(0).dx(0)) * dx, mat_type="aij"))
        out["K"] = to_scipy(fd.assemble(gyroscopic_forms(rhoA, (vx, vy), (dvx, dvy), dx, 2)[0], mat_type="aij"))
        for k in ("M", "J", "K"):
            out[k].eliminate_zeros()
        # boundary traces: ds(1) is x = 0, ds(2) is x = L
        out["trace"] = {}
        for end, mark in (("A", 1), ("B", 2)):
            out["trace"][end] = {
                "vx": to_numpy(fd.assemble(dvx * fd.ds(mark))),
                "vy": to_numpy(fd.assemble(dvy * fd.ds(mark))),
                "slope": to_numpy(fd.assemble(dvy.dx(0) * fd.ds(mark))),
            }
        return out

    def frame_coupling(self):
        """:meth:`rigid_coupling` of the planar frame's three rigid fields
        (translations along x and y, rotation about the origin), cached."""
        if "frame" not in self._memo:
            self._setup_firedrake()
            fd = self._fd
            one, zero = fd.Constant(1.0), fd.Constant(0.0)
            self._remember("frame", tuple(self.rigid_coupling(rigid_fields((self.x, zero), 2, one, zero))))
        return self._memo["frame"]

    def rigid_coupling(self, modes):
        """Columns of ``M`` and ``K`` between the flexible unknowns and rigid velocity fields
        (:func:`phmech.fem.floating_frame.rigid_couplings`).

        ``modes`` is a list of UFL pairs ``(N_x, N_y)``: the velocity field of
        each rigid variable.  Returns ``(Mfr, Kfr, Mrr, Krr)``.
        """
        self._setup_firedrake()
        fd = self._fd
        dvx, dvy, _, _ = self._tests
        Mfr, Kfr, Mrr, Krr = rigid_couplings(fd, self.rhoA, (dvx, dvy), modes, fd.dx(domain=self.mesh), 2)
        return Mfr, Kfr[0], Mrr, Krr[0]

    def point_rows(self, points):
        """Rows evaluating ``v_x`` and ``v_y`` at ``points`` (two arrays, shape (npts, nf)).

        Point evaluation of the (physically mapped) Hermite element is not
        available in Firedrake, so each evaluation is written as an exact
        integral (see :class:`CellPointEvaluator`).  Cached per point set.
        """
        points = np.atleast_1d(np.asarray(points, float))
        if np.any(points < -1e-12 * self.L) or np.any(points > self.L * (1 + 1e-12)):
            raise ValueError(f"beam '{self.name}': evaluation points must lie in [0, {self.L}], got {points}")
        tag = self.points_tag(points)
        if tag not in self._memo:
            self._setup_firedrake()
            if self._points is None:
                self._points = CellPointEvaluator(self.mesh)
            dvx, dvy, _, _ = self._tests
            self._remember(tag, tuple(self._points.rows(np.clip(points, 0.0, self.L), (dvx, dvy))))
        return self._memo[tag]


def _eliminate(trace, conditions, nf, owner):
    """Indices of flexible unknowns that the velocity conditions remove."""
    drop = []
    for end, cond in conditions.items():
        if cond not in END_CONDITIONS:
            raise ValueError(f"beam '{owner}': end {end}: unknown condition {cond!r}; "
                             f"choose from {sorted(END_CONDITIONS)}")
        for field in END_CONDITIONS[cond]:
            row = trace[end][field]
            nz = np.flatnonzero(np.abs(row) > 1e-12 * np.abs(row).max())
            if len(nz) != 1:
                raise RuntimeError(f"beam '{owner}': trace of {field} at {end} is not a single degree "
                                   f"of freedom ({len(nz)} nonzeros); cannot eliminate it")
            drop.append(int(nz[0]))
    keep = np.setdiff1d(np.arange(nf), drop)
    return keep



class _BeamBase:
    """Shared set-up of the fixed and the floating beam."""

    def _setup_fe(self, name, L, n_elem, rho, A, E, I):
        n_elem = check_n_elem(name, n_elem)
        _check_positive(name, L=L, rho=rho, A=A, E=E, I=I)
        self.L, self.n_elem = float(L), n_elem
        self.rho, self.A, self.E_mod, self.I = rho, A, E, I
        self.rhoA, self.EA, self.EI = rho * A, E * A, E * I
        self.fe = EulerBernoulliFE(name, self.L, self.n_elem, self.rhoA, self.EA, self.EI)

    def _reduced_fields(self, keep, r):
        """Index arrays (into ``e``) of each field after elimination; ``r`` rigid variables first."""
        pos = {int(k): r + i for i, k in enumerate(keep)}
        fields = {}
        for key, sl in self.fe.offsets.items():
            fields[key] = np.array([pos[i] for i in range(sl.start, sl.stop) if i in pos], dtype=int)
        return fields

    def _displacement_recovery(self):
        """Matrices mapping stresses to the displacements ``u_x`` (P1) and ``u_y`` (Hermite).

        ``n = EA u_x'`` and ``m = EI u_y''`` hold exactly for the discrete
        fields when the beam starts undeformed, so the displacements follow
        from the stresses by solving these relations with the velocity
        conditions (least squares picks the unique solution).
        """
        fe = self.fe
        Cn = (fe.M[fe.offsets["n"], :][:, fe.offsets["n"]]).toarray()
        Cm = (fe.M[fe.offsets["m"], :][:, fe.offsets["m"]]).toarray()
        D = fe.J.toarray()
        kx = [i for i in self._keep if fe.offsets["vx"].start <= i < fe.offsets["vx"].stop]
        ky = [i for i in self._keep if fe.offsets["vy"].start <= i < fe.offsets["vy"].stop]
        Dx = D[fe.offsets["n"], :][:, kx]
        Dy = D[fe.offsets["m"], :][:, ky]
        if np.linalg.matrix_rank(Dx) < len(kx) or np.linalg.matrix_rank(Dy) < len(ky):
            return None
        Ux = np.zeros((fe.nf, fe.offsets["n"].stop - fe.offsets["n"].start))
        Uy = np.zeros((fe.nf, fe.offsets["m"].stop - fe.offsets["m"].start))
        Ux[kx] = np.linalg.lstsq(Dx, Cn, rcond=None)[0]
        Uy[ky] = np.linalg.lstsq(Dy, Cm, rcond=None)[0]
        return Ux, Uy

    def displacement_rows(self, points):
        """Rows giving the flexible displacements ``(u_x, u_y)`` at ``points`` from ``e``.

        Returns two arrays of shape ``(npts, ne)``; valid for trajectories
        that start undeformed (``n = m = 0`` at t0), as the simulations here do.
        """
        rec = self._displacement_recovery()
        if rec is None:
            raise ValueError(f"beam '{self.name}': displacements cannot be recovered without "
                             "conditions that fix the rigid motion of the deformation field")
        Ux, Uy = rec
        Px, Py = self.fe.point_rows(points)
        rows_x = np.zeros((Px.shape[0], self.ne))
        rows_y = np.zeros((Py.shape[0], self.ne))
        rows_x[:, self.fields["n"]] = Px @ Ux
        rows_y[:, self.fields["m"]] = Py @ Uy
        return rows_x, rows_y

    def flexible_velocity_rows(self, points):
        """Rows giving ``v_f`` (body frame) at ``points``, shape ``(npts, ne)`` each."""
        Px, Py = self.fe.point_rows(points)
        keep = self._keep
        rx = np.zeros((Px.shape[0], self.ne))
        ry = np.zeros((Py.shape[0], self.ne))
        rx[:, self._r:] = Px[:, keep]
        ry[:, self._r:] = Py[:, keep]
        return rx, ry


class FloatingEulerBernoulliBeam(_BeamBase, AxisPicture, FloatingFrameBody):
    """A planar Euler-Bernoulli beam in a floating frame (pH subsystem).

    ``e = (v_P^x, v_P^y, omega, v_x, v_y, n, m)``: body-frame velocity of the
    frame origin (the end x = 0), angular velocity of the frame, then the
    flexible velocities and the stresses (after the frame conditions).

    Parameters
    ----------
    name : str
    L, n_elem : length [m] and number of elements.
    rho, A, E, I : density [kg/m^3], section area [m^2], Young's modulus
        [Pa], second moment of area [m^4].
    frame : ``"simply_supported"`` or ``"cantilever"``
        Condition that attaches the frame to the deformation field.
    point_masses : list of ``(x, m)``
        Point masses attached to the beam axis (e.g. joint hardware).
    position, angle : initial configuration of the frame.
    geometric_stiffness : bool
        True builds the geometrically consistent beam instead
        (:class:`~phmech.fem.beam_nonlinear.NonlinearFloatingBeam`: exact
        rotating-frame inertia, Green-Lagrange axial strain; no point masses).

    Ports ``A`` (x = 0) and ``B`` (x = L).
    """

    def __new__(cls, *args, geometric_stiffness=False, **kwargs):
        if geometric_stiffness:
            from .beam_nonlinear import NonlinearFloatingBeam
            if kwargs.pop("point_masses", ()):
                raise ValueError("beam: point_masses are not available with geometric_stiffness=True")
            return NonlinearFloatingBeam(*args, **kwargs)
        return super().__new__(cls)

    def __init__(self, name, L, n_elem, rho, A, E, I, frame="simply_supported",
                 point_masses=(), position=(0.0, 0.0), angle=0.0, geometric_stiffness=False):
        FloatingFrameBody.__init__(self, name, position, angle)
        if frame not in FRAME_CONDITIONS:
            raise ValueError(f"beam '{name}': frame must be one of {sorted(FRAME_CONDITIONS)}, got {frame!r}")
        self._setup_fe(name, L, n_elem, rho, A, E, I)
        self.frame = frame
        fe = self.fe
        condA, condB = FRAME_CONDITIONS[frame]
        self._keep = keep = _eliminate(fe.trace, {"A": condA, "B": condB}, fe.nf, name)
        Mfr, Kfr, Mrr, Krr = fe.frame_coupling()
        self._r = r = 3
        Mff = fe.M[keep][:, keep]
        Kff = fe.K[keep][:, keep]
        Jff = fe.J[keep][:, keep]
        self.M, self.J0, self.K_list = frame_blocks(Mrr, Mfr[keep], Mff, Jff, [Krr], [Kfr[keep]], [Kff])
        self.fields = self._reduced_fields(keep, r)
        self.e_labels = ["vx", "vy", "omega"]
        self.mass = float(Mrr[0, 0])
        # ports: v(end) = v_P + omega S (x e1) + v_f(end); angular velocity omega + v_f'(end)
        for end, xe in (("A", 0.0), ("B", self.L)):
            tr = fe.trace[end]
            Y = np.zeros((2, self.ne))
            Y[0, 0] = 1.0
            Y[1, 1] = 1.0
            Y[1, 2] = xe
            Y[0, r:] = tr["vx"][keep]
            Y[1, r:] = tr["vy"][keep]
            W = np.zeros((1, self.ne))
            W[0, 2] = 1.0
            W[0, r:] = tr["slope"][keep]
            self.add_port(end, Y, W, (xe, 0.0))
        self.point_masses = []
        for xm, mm in point_masses:
            self.add_point_mass(xm, mm)

    def velocity_rows(self, points):
        """Rows giving the total body-frame velocity ``v_P + omega S x e1 + v_f`` at ``points``."""
        rx, ry = self.flexible_velocity_rows(points)
        rx[:, 0] += 1.0
        ry[:, 1] += 1.0
        ry[:, 2] += np.asarray(points, float)
        return rx, ry

    def deformed_axis(self, q, u, n_points=21):
        """Inertial coordinates of the axis displaced by ``u`` (body-frame displacement field).

        ``u`` is a vector in the effort layout whose velocity part is read as
        a displacement (e.g. a mode's velocity amplitude divided by ``j omega``);
        returns an array ``(n_points, 2)``.
        """
        x = np.linspace(0.0, self.L, n_points)
        rx, ry = self.velocity_rows(x)
        local = np.stack([x + rx @ u, ry @ u], axis=1)
        return q[:2] + local @ self.rotation(q).T

    def add_point_mass(self, x, mass):
        """Attach a point mass at body coordinate ``x`` (adds to ``M`` and ``K``)."""
        _check_positive(self.name, point_mass=mass)
        rx, ry = self.flexible_velocity_rows([x])
        N = np.vstack([rx[0], ry[0]])
        N[0, 0] += 1.0
        N[1, 1] += 1.0
        N[1, 2] += x
        S = np.array([[0.0, -1.0], [1.0, 0.0]])
        self.M = sp.csr_matrix(self.M + mass * N.T @ N)
        self.K_list = [sp.csr_matrix(self.K_list[0] + mass * N.T @ S @ N)]
        self.mass += mass
        self.point_masses.append((float(x), float(mass)))

    def first_moment(self):
        """``(s0, rows, "e")``: first moment of mass about the frame origin ``s0 + rows @ e`` (frame
        components; the displacement recovered from the stresses, :meth:`displacement_rows`)."""
        return (*axis_first_moment(self, self.rhoA, self.point_masses), "e")


class EulerBernoulliBeam(_BeamBase, FixedBody):
    """A planar Euler-Bernoulli beam along the inertial x axis, without floating frame.

    ``e = (v_x, v_y, n, m)`` after the velocity end conditions ``ends =
    (condA, condB)``, each one of ``"free"``, ``"roller"``, ``"pinned"``,
    ``"clamped"``.  Used for vibration studies of single beams.
    """

    def __init__(self, name, L, n_elem, rho, A, E, I, ends=("pinned", "roller")):
        Body.__init__(self, name)
        self._setup_fe(name, L, n_elem, rho, A, E, I)
        fe = self.fe
        self._keep = keep = _eliminate(fe.trace, {"A": ends[0], "B": ends[1]}, fe.nf, name)
        self._r = 0
        self.ends = tuple(ends)
        self.M = sp.csr_matrix(fe.M[keep][:, keep])
        self.J0 = sp.csr_matrix(fe.J[keep][:, keep])
        self.fields = self._reduced_fields(keep, 0)
        self.q0 = np.zeros(0)
        for end, xe in (("A", 0.0), ("B", self.L)):
            tr = fe.trace[end]
            self.add_port(end, np.vstack([tr["vx"][keep], tr["vy"][keep]]), tr["slope"][keep][None, :],
                           (xe, 0.0))


#: convenience alias: the simply supported beam of the convergence study
def SimplySupportedBeam(name, L, n_elem, rho, A, E, I):
    """A fixed beam pinned at x = 0 and on a roller at x = L."""
    return EulerBernoulliBeam(name, L, n_elem, rho, A, E, I, ends=("pinned", "roller"))

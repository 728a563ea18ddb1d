"""Planar Euler-Bernoulli beams as form-defined bodies (Firedrake).

The beam is a :class:`~phmech.fem.form_body.FormBody` of the velocity-stress (pH) forms of
:mod:`phmech.fem.beam_forms` (P1 ``v_x``, cubic Hermite ``v_y``, DG0 axial force ``n``, DG1
bending moment ``m``); this module keeps its parameters, the conditions of its ends and its
ports ``A`` (x = 0) and ``B`` (x = L), the end traces of the velocities and of the slope.
Velocity conditions (clamped, pinned, roller) remove the unknowns of those traces.

In the floating frame (:mod:`phmech.fem.floating_frame`; Brugnoli et al., Multibody Syst. Dyn.
51, 2021) the body-frame velocity of the material point at ``x`` is
``v = v_P + omega e_z x (x e_1) + v_f(x)``; the frame is fixed to the deformation by
conditions on ``v_f``: ``"cantilever"`` (clamped at x = 0) or ``"simply_supported"`` (pinned at
x = 0, transverse roller at x = L).  This is the linear floating-frame model: it has no
geometric stiffening (:class:`~phmech.fem.beam_nonlinear.NonlinearFloatingBeam` has).

The matrices and port rows are assembled once and kept in the FE cache under the beam's
parameters: a second process with the same beam reads them back and never imports
Firedrake; the mesh and spaces are built on first use.
"""

import numpy as np
import scipy.sparse as sp

from ..bodies.base import Body, FloatingFrameBody
from ..bodies.picture import AxisPicture
from .beam_common import (BYTES_PER_ELEMENT, MAX_ELEMENTS, CellPointEvaluator,  # noqa: F401 (public here)
                          _check_positive, axis_first_moment, check_n_elem)
from .beam_forms import FIELDS, beam_forms, beam_space, end_traces
from .floating_frame import inertia_summary
from .form_body import FormBody

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
#: boundary markers of the ends of the interval mesh
END_MARKERS = {"A": 1, "B": 2}


class AxisBeam(FormBody):
    """A beam on ``[0, L]`` as a form body, evaluated along its axis: the point rows of its velocity
    fields and the displacement recovered from its stresses (the planar and the spatial linear
    beams).  A subclass names its fields (``FIELDS``), the velocity fields along the axis
    (``AXIS_FIELDS``) and the (velocity, stress) pairs of the recovery (``PAIRS``)."""

    CHECK_DEFINITE = False          # mass and compliance of positive parameters (checked before)
    EXTRA_SOURCES = FormBody.EXTRA_SOURCES + ("phmech.fem.beam_forms",)
    FIELDS = FIELDS
    AXIS_FIELDS = ("vx", "vy")
    PAIRS = (("vx", "n"), ("vy", "m"))

    @property
    def fe(self):
        """The finite-element beam (the body itself: its spaces, fields and point rows)."""
        return self

    def _name_fields(self):
        """``fields`` (index arrays into ``e`` per named field) and the frame's effort labels."""
        self.fields = {k: self.field_dofs[str(i)] for i, k in enumerate(self.FIELDS)}
        self._r = self.n_frame
        self.e_labels = self.e_labels[:self.n_frame]             # the frame's efforts are named

    # -- evaluation along the axis ------------------------------------------------
    def point_rows(self, points):
        """Rows evaluating the axis velocities (``AXIS_FIELDS``) at ``points`` (one array each, shape
        (npts, nf), over the full flexible vector).

        Point evaluation of the (physically mapped) Hermite element is not available in
        Firedrake, so each evaluation is written as an exact integral (see
        :class:`CellPointEvaluator`).  Cached per point set.
        """
        points = np.atleast_1d(np.asarray(points, float))
        if np.any(points < -1e-12 * self.L) or np.any(points > self.L * (1 + 1e-12)):
            raise ValueError(f"beam '{self.name}': evaluation points must lie in [0, {self.L}], got {points}")
        tag = self.points_tag(points)
        if tag not in self._memo:
            self._setup_firedrake()
            if self._points is None:
                self._points = CellPointEvaluator(self.mesh)
            tests = tuple(self._test[self.FIELDS.index(k)] for k in self.AXIS_FIELDS)
            self._remember(tag, tuple(self._points.rows(np.clip(points, 0.0, self.L), tests)))
        return self._memo[tag]

    def flexible_velocity_rows(self, points):
        """Rows giving ``v_f`` (body frame) at ``points``, shape ``(npts, ne)`` each."""
        out = []
        for P in self.point_rows(points):
            rows = np.zeros((P.shape[0], self.ne))
            rows[:, self._r:] = P[:, self._keep]
            out.append(rows)
        return tuple(out)

    def _recovery(self):
        """``[(velocity dofs, stress dofs, U)]`` with ``u = U sigma`` for each pair of ``PAIRS``:
        ``C sigma = D u`` (the stress rows of ``M`` and ``J0``) solved in the least-squares sense,
        or None when ``D`` is not injective (conditions that leave a rigid motion)."""
        if getattr(self, "_recovery_rows", None) is None:
            M, J = sp.csr_matrix(self.M), sp.csr_matrix(self.J0)
            out = []
            for vel, stress in self.PAIRS:
                v, s = self.fields[vel], self.fields[stress]
                D = J[s][:, v].toarray()
                if np.linalg.matrix_rank(D) < len(v):
                    out = False
                    break
                out.append((v, s, np.linalg.lstsq(D, M[s][:, s].toarray(), rcond=None)[0]))
            self._recovery_rows = out
        return self._recovery_rows or None

    def displacement_rows(self, points):
        """Rows giving the flexible displacements along the axis (``u_x, u_y`` planar, ``u_x, u_y,
        u_z`` spatial) at ``points`` from ``e``.

        Returns one array of shape ``(npts, ne)`` per component; valid for trajectories that start
        undeformed (zero stresses at t0), as the simulations here do: ``n = EA u_x'`` and
        ``m = EI u_y''`` hold exactly for the discrete fields, so the displacements follow from
        the stresses.
        """
        rec = self._recovery()
        if rec is None:
            raise ValueError(f"beam '{self.name}': displacements cannot be recovered without "
                             "conditions that fix the rigid motion of the deformation field")
        out = []
        for P in self.flexible_velocity_rows(points):
            rows = np.zeros_like(P)
            for v, s, U in rec:
                rows[:, s] += P[:, v] @ U
            out.append(rows)
        return tuple(out)


class EulerBernoulliFE(AxisBeam):
    """A planar Euler-Bernoulli beam on ``[0, L]`` fixed in space with free ends: the form body of
    :mod:`phmech.fem.beam_forms` over all flexible unknowns ``(v_x, v_y, n, m)``, and the base of
    the beams below (their end conditions and frame).

    Parameters
    ----------
    name : str
    L, n_elem : length and number of elements
    rhoA, EA, EI : mass per length, axial and bending stiffness

    Attributes
    ----------
    fields : dict of index arrays into ``e`` of the four fields (after the conditions)
    offsets : dict of slices of the four fields in the full flexible vector (before them)
    mesh, x, Vx, Vy, Vn, Vm, W : the Firedrake mesh, coordinate and spaces, built on first use
    """

    KIND = "EulerBernoulliFE"
    #: Firedrake objects, built on first use (a beam read from the cache has none)
    FIREDRAKE_ATTRIBUTES = ("space", "mesh", "_trial", "_test", "forms", "_fixed", "_fixed_forms",
                            "x", "Vx", "Vy", "Vn", "Vm", "W")

    def __init__(self, name, L, n_elem, rhoA, EA, EI):
        n_elem = check_n_elem(name, n_elem)
        _check_positive(name, L=L, rhoA=rhoA, EA=EA, EI=EI)
        self._setup_beam(name, L, n_elem, rhoA, EA, EI, ("free", "free"))

    def _setup_beam(self, name, L, n_elem, rhoA, EA, EI, ends, floating=False, position=None, angle=None):
        for end, cond in zip("AB", ends):
            if cond not in END_CONDITIONS:
                raise ValueError(f"beam '{name}': end {end}: unknown condition {cond!r}; "
                                 f"choose from {sorted(END_CONDITIONS)}")
        self.L, self.n_elem = float(L), int(n_elem)
        self.rhoA, self.EA, self.EI = float(rhoA), float(EA), float(EI)
        self.ends = tuple(ends)
        params = {"L": self.L, "n_elem": self.n_elem, "rhoA": self.rhoA, "EA": self.EA, "EI": self.EI,
                  "ends": list(self.ends), "floating": bool(floating)}
        self._init_defined(name, params, velocity=(0, 1), dim=2, floating=floating,
                           density=self.rhoA if floating else None, position=position, orientation=angle)
        n = self.n_elem
        edges = np.cumsum([0, n + 1, 2 * (n + 1), n, 2 * n])        # dims of P1, Hermite, DG0, DG1
        self.offsets = {k: slice(int(edges[i]), int(edges[i + 1])) for i, k in enumerate(FIELDS)}
        self._name_fields()

    # -- the form body ---------------------------------------------------------
    def _definition(self):
        import firedrake as fd
        m, j = beam_forms(self.rhoA, self.EA, self.EI)
        fixed = [end_traces(END_MARKERS[end])[field]
                 for end, cond in zip("AB", self.ends) for field in END_CONDITIONS[cond]]
        return {"space": beam_space(fd.IntervalMesh(self.n_elem, self.L)), "m": m, "j": j, "fixed": fixed}

    def _port_forms(self):
        out = {}
        for end, xe in (("A", 0.0), ("B", self.L)):
            t = end_traces(END_MARKERS[end])
            out[end] = ([t["vx"], t["vy"]], [t["slope"]], (xe, 0.0))
        return out

    def _setup_firedrake(self):
        FormBody._setup_firedrake(self)
        if "Vx" not in self.__dict__:
            self.W = self.space
            self.x = self._fd.SpatialCoordinate(self.mesh)[0]
            self.Vx, self.Vy, self.Vn, self.Vm = (self.space.sub(i).collapse() for i in range(4))



class FloatingEulerBernoulliBeam(AxisPicture, FloatingFrameBody, EulerBernoulliFE):
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

    _frame_base = FloatingFrameBody
    port_position = Body.port_position

    def __new__(cls, *args, geometric_stiffness=False, **kwargs):
        if geometric_stiffness:
            from .beam_nonlinear import NonlinearFloatingBeam
            if kwargs.pop("point_masses", ()):
                raise ValueError("beam: point_masses are not available with geometric_stiffness=True")
            return NonlinearFloatingBeam(*args, **kwargs)
        return super().__new__(cls)

    def __init__(self, name, L, n_elem, rho, A, E, I, frame="simply_supported",
                 point_masses=(), position=(0.0, 0.0), angle=0.0, geometric_stiffness=False):
        if frame not in FRAME_CONDITIONS:
            raise ValueError(f"beam '{name}': frame must be one of {sorted(FRAME_CONDITIONS)}, got {frame!r}")
        n_elem = check_n_elem(name, n_elem)
        _check_positive(name, L=L, rho=rho, A=A, E=E, I=I)
        self.rho, self.A, self.E_mod, self.I = rho, A, E, I
        self.frame = frame
        self._setup_beam(name, L, n_elem, rho * A, E * A, E * I, FRAME_CONDITIONS[frame], floating=True,
                         position=position, angle=angle)
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
        """Attach a point mass at body coordinate ``x`` (adds to ``M``, ``K`` and the rigid-body
        inertia data ``mass``, ``center``, ``inertia``)."""
        _check_positive(self.name, point_mass=mass)
        rx, ry = self.velocity_rows([x])
        N = np.vstack([rx[0], ry[0]])
        S = np.array([[0.0, -1.0], [1.0, 0.0]])
        self.M = sp.csr_matrix(self.M + mass * N.T @ N)
        self.K_list = [sp.csr_matrix(self.K_list[0] + mass * N.T @ S @ N)]
        self.mass, self.center, self.inertia = inertia_summary(self.M[:3, :3].toarray(), 2)
        self.point_masses.append((float(x), float(mass)))

    def first_moment(self):
        """``(s0, rows, "e")``: first moment of mass about the frame origin ``s0 + rows @ e`` (frame
        components; the displacement recovered from the stresses, :meth:`displacement_rows`)."""
        return (*axis_first_moment(self, self.rhoA, self.point_masses), "e")


class EulerBernoulliBeam(EulerBernoulliFE):
    """A planar Euler-Bernoulli beam along the inertial x axis, without floating frame.

    ``e = (v_x, v_y, n, m)`` after the velocity end conditions ``ends =
    (condA, condB)``, each one of ``"free"``, ``"roller"``, ``"pinned"``,
    ``"clamped"``.  Used for vibration studies of single beams.
    """

    def __init__(self, name, L, n_elem, rho, A, E, I, ends=("pinned", "roller")):
        n_elem = check_n_elem(name, n_elem)
        _check_positive(name, L=L, rho=rho, A=A, E=E, I=I)
        self.rho, self.A, self.E_mod, self.I = rho, A, E, I
        self._setup_beam(name, L, n_elem, rho * A, E * A, E * I, tuple(ends))


#: convenience alias: the simply supported beam of the convergence study
def SimplySupportedBeam(name, L, n_elem, rho, A, E, I):
    """A fixed beam pinned at x = 0 and on a roller at x = L."""
    return EulerBernoulliBeam(name, L, n_elem, rho, A, E, I, ends=("pinned", "roller"))

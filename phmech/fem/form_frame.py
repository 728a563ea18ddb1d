"""The floating frame of a form-defined body (:class:`~phmech.fem.form_body.FormBody`).

By default the body is fixed in space (``nq = 0``).  With ``floating=True`` it
moves in a floating frame of reference (:mod:`phmech.fem.floating_frame`, the
one implementation shared with the linear beams): its efforts are
``e = (v_P, omega, e_f)``, the frame's velocity and angular velocity (body-frame
components) followed by the flexible efforts, and the body-frame velocity of the
material point at ``X`` is ``v_P + omega x X + v(X)``, ``v`` the velocity fields
of the space (``velocity=``, ``dim`` components in all).  The inertia shape
integrals (mass, first moment, inertia tensor of the undeformed body, the
couplings ``int rho phi`` and ``int rho X x phi``) and the gyroscopic matrices
``K_i`` of ``J(e) = J0 - sum_i omega_i K_i`` are assembled from the density
(``density=``) once; ``m``'s kinetic part must be ``int density v . dv`` (checked).
The frame is attached to the deformation by a reference condition:
``reference=("clamped", marker)`` removes the velocity fields' unknowns on the
boundary ``marker`` (the frame is the clamped face's), ``reference=("point", X)``
removes only as many as the frame has efforts, at nodes near ``X`` (a 3-2-1
support, a statically determinate attachment that constrains no deformation),
and ``reference=None`` leaves it to the conditions of ``fixed`` (e.g. a pinned
end and a roller).  (Mean axes, ``int rho v = 0`` and ``int rho X x v = 0``,
couple every velocity unknown and would make the mass matrix dense; they are
not offered.)
Conditions that leave a rigid motion in the elastic field are an error.  A
port's and a load's rows follow the rigid and the elastic motion: the rigid
velocity fields are represented exactly in the velocity space (checked), and a
linear form ``b`` contributes ``b(N_a)`` to the frame's effort ``a``.

Sections that turn (``spin=[(field, d, density)]``: the torsion rate ``w`` of a beam's
sections about its axis ``d``, with the rotary inertia ``density = rho I_p``) add the
kinetic energy ``1/2 int density (omega . d + w)^2``: the field's rigid part is
``omega . d``, its momentum ``h = d int density (omega . d + w)`` enters the frame's
rotation equations through ``-omega x h`` (skew in every ``K_i``).

With constant matrices (and the gyroscopic slots of the frame) the body runs in
the compiled residual like the beams and plates.
"""
import sys

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..bodies.base import Body, FixedBody, FloatingFrameBody, SpatialFrameBody
from ._petsc import to_numpy, to_scipy
from .floating_frame import N_FRAME, gyroscopic_forms, kinetic_form, rigid_couplings, rigid_fields
from .form_checks import FormError


def _floating_dim(args, kwargs, index=7):
    """``dim`` of a FormBody's arguments (keyword or positional at ``index``)."""
    return kwargs.get("dim", args[index] if len(args) > index else 3)


def _spin_entry(owner, dim, entry):
    """``(field, axis, density)`` of one section-spin field, the axis a unit vector of 3 components
    (planar: the normal ``e_z``, the only axis of the frame)."""
    try:
        field, axis, density = entry
    except (TypeError, ValueError):
        raise ValueError(f"{owner}: each spin entry is (field, axis, density), got {entry!r}") from None
    if dim == 2:
        if axis not in (None, 2):
            raise ValueError(f"{owner}: spin field {field}: a planar frame turns about e_z only; give axis None "
                             f"or 2, got {axis!r}")
        d = np.array([0.0, 0.0, 1.0])
    else:
        d = np.eye(3)[axis] if isinstance(axis, (int, np.integer)) and 0 <= axis < 3 else np.asarray(axis, float)
        if d.shape != (3,) or not np.all(np.isfinite(d)) or np.linalg.norm(d) == 0:
            raise ValueError(f"{owner}: spin field {field}: axis must be 0, 1, 2 or 3 numbers not all zero, "
                             f"got {axis!r}")
        d = d / np.linalg.norm(d)
    if isinstance(density, (int, float, np.floating)) and not density > 0:
        raise ValueError(f"{owner}: spin field {field}: density must be positive, got {density!r}")
    return int(field), tuple(float(c) for c in d), density


class FormFrame:
    """The floating-frame part of :class:`~phmech.fem.form_body.FormBody` (module docstring): the
    frame's set-up and reference condition, its inertia blocks, its ports, the displacement
    recovered from the stresses and the moments of mass and momentum."""

    def _setup_frame(self, name, dim, floating, density, reference, position, orientation, spin=()):
        owner = f"body '{name}'"
        if dim not in (2, 3):
            raise ValueError(f"{owner}: dim must be 2 or 3, got {dim!r}")
        floating = bool(floating)
        if spin and not floating:
            raise ValueError(f"{owner}: spin only applies to a floating body (floating=True)")
        if floating:
            frame_args = {} if position is None else {"position": position}
            if orientation is not None:
                frame_args["angle" if dim == 2 else "orientation"] = orientation
            # the frame's own checks and initial configuration (on a plain frame body)
            frame = self._frame_base.__new__(self._frame_base)
            self._frame_base.__init__(frame, name, **frame_args)
            Body.__init__(self, name)
            self.q_labels, self.q0 = frame.q_labels, frame.q0
        else:
            extra = [k for k, v in (("density", density), ("reference", reference), ("position", position),
                                    ("orientation", orientation)) if v is not None]
            if extra:
                raise ValueError(f"{owner}: {', '.join(extra)} only apply to a floating body (floating=True)")
            FixedBody.__init__(self, name)
            self.q0 = np.zeros(0)
        self.dim = dim
        self.floating = floating
        #: number of frame efforts (3 planar, 6 spatial; 0 for a fixed body)
        self.n_frame = N_FRAME[dim] if floating else 0
        self.density = density
        self.reference = reference
        #: the section-spin fields ``(field, axis, density)`` (:meth:`_spin_fields`)
        self._spin = tuple(_spin_entry(owner, dim, entry) for entry in spin)

    def _reference_markers(self):
        """The boundary markers of a clamped reference (empty without one)."""
        ref = self.reference
        if ref is None:
            return []
        if isinstance(ref, str) and ref == "mean_axes":
            raise FormError(f"body '{self.name}': reference='mean_axes' is not available: the mean-axis "
                            "conditions couple every velocity unknown (a dense mass matrix); attach the frame "
                            "by reference=('clamped', marker) or by the conditions of fixed=")
        if isinstance(ref, (tuple, list)) and len(ref) == 2 and ref[0] == "point":
            return []
        if not (isinstance(ref, (tuple, list)) and len(ref) == 2 and ref[0] == "clamped"):
            raise FormError(f"body '{self.name}': reference must be None, ('clamped', marker) or ('point', X), "
                            f"got {ref!r}")
        markers = ref[1] if isinstance(ref[1], (tuple, list)) else [ref[1]]
        return list(markers)

    def _reference_point(self):
        ref = self.reference
        if isinstance(ref, (tuple, list)) and len(ref) == 2 and ref[0] == "point":
            return np.asarray(ref[1], float)
        return None

    def _support_dofs(self, Phi, off):
        """The unknowns of a point reference (3-2-1 support): the velocity at the node ``A`` nearest
        the point, at the node ``B`` farthest from ``A`` and at the node ``C`` farthest from the line
        ``AB``, of which as many as the frame has efforts are chosen (greedily) so that the rigid
        fields restricted to them are independent: they remove the rigid motions from the elastic
        field and constrain no deformation."""
        import firedrake as fd
        f = self._velocity[0]
        V = self.space.sub(f) if len(self.space) > 1 else self.space
        elem = V.ufl_element()
        family = getattr(elem, "family", lambda: "")
        family = family() if callable(family) else family
        if len(self._velocity) != 1 or V.block_size != self.dim or "Lagrange" not in str(family):
            raise FormError(f"body '{self.name}': reference=('point', X) needs one vector Lagrange velocity "
                            "field; use reference=('clamped', marker)")
        P = self._reference_point()
        if P.shape != (self.dim,):
            raise FormError(f"body '{self.name}': the reference point must have {self.dim} coordinates, "
                            f"got {self.reference[1]!r}")
        Vc = V.collapse() if hasattr(V, "collapse") else V
        X = np.asarray(fd.Function(Vc).interpolate(fd.SpatialCoordinate(self.mesh)).dat.data_ro).reshape(-1, self.dim)
        a = int(np.argmin(np.linalg.norm(X - P, axis=1)))
        b = int(np.argmax(np.linalg.norm(X - X[a], axis=1)))
        t = (X[b] - X[a]) / np.linalg.norm(X[b] - X[a])
        d = X - X[a]
        c = int(np.argmax(np.linalg.norm(d - np.outer(d @ t, t), axis=1)))
        nodes = [a, b] if self.dim == 2 else [a, b, c]
        cand = [off[f] + n * self.dim + k for n in nodes for k in range(self.dim)]
        chosen = []
        for dof in cand:
            trial = chosen + [dof]
            if np.linalg.matrix_rank(Phi[trial], tol=1e-10 * np.abs(Phi[cand]).max()) == len(trial):
                chosen = trial
            if len(chosen) == self.n_frame:
                break
        if len(chosen) < self.n_frame:
            raise FormError(f"body '{self.name}': the nodes near the reference point {P.tolist()} do not fix "
                            "the rigid motions (a degenerate mesh)")
        return chosen

    def _frame_fields(self, m_full, off):
        """The floating frame's blocks over the whole space (:func:`~phmech.fem.floating_frame.rigid_couplings`,
        the gyroscopic forms) and the rigid velocity fields ``Phi`` as vectors of the space."""
        import firedrake as fd
        dim, rho = self.dim, self.density
        if isinstance(rho, (int, float, np.floating)):
            rho = fd.Constant(float(rho))           # one compiled kernel for every density
        dx = fd.dx(domain=self.mesh)
        v, dv = self._velocity_vector(self._trial), self._velocity_vector(self._test)
        x = fd.SpatialCoordinate(self.mesh)
        one, zero = fd.Constant(1.0), fd.Constant(0.0)
        X = [x[k] if k < len(x) else zero for k in range(dim)]
        Mkin = to_scipy(fd.assemble(kinetic_form(rho, v, dv, dx), mat_type="aij"))
        spins = self._spin_fields(fd, dx)
        for dw, w, _, rho_s in spins:
            Mkin = Mkin + to_scipy(fd.assemble(rho_s * w * dw * dx, mat_type="aij"))
        vd = self._full_velocity_dofs(off)
        scale = abs(Mkin).max()
        defect = abs((m_full - Mkin)[vd]).max() / scale if scale > 0 else np.inf
        if not defect <= 1e-10:
            raise FormError(f"body '{self.name}': the velocity part of the energy metric m is not the kinetic "
                            f"form int density v . dv of the floating frame (relative defect {defect:.2e}): "
                            "give the density of m's kinetic term, and no coupling of the velocities to other "
                            "fields in m")
        Kff = [to_scipy(fd.assemble(g, mat_type="aij")) for g in gyroscopic_forms(rho, v, dv, dx, dim)]
        Mfr, Kfr, Mrr, Krr = rigid_couplings(fd, rho, dv, rigid_fields(X, dim, one, zero), dx, dim)
        spin = []
        for dw, _, d, rho_s in spins:             # the sections' rotary inertia about their axes d
            rot = self._rotation_components(d)          # e_a . d of each frame effort a
            c, total = to_numpy(fd.assemble(rho_s * dw * dx)), float(fd.assemble(rho_s * dx))
            Mfr, Mrr = Mfr + np.outer(c, rot), Mrr + total * np.outer(rot, rot)
            spin.append((c, total, d))
        # the rigid fields as vectors of the space: int rho phi . Phi_a = int rho phi . N_a on the velocities
        Phi = np.zeros((m_full.shape[0], Mrr.shape[0]))
        Phi[vd] = spla.splu(sp.csc_matrix(Mkin[vd][:, vd])).solve(np.ascontiguousarray(Mfr[vd]))
        # the zeros of the rigid fields exactly (the solve leaves round-off there, which a trace row
        # scaled by 1 / h, a Hermite slope, would carry into a port's frame columns)
        Phi[np.abs(Phi) <= 1e-12 * np.abs(Phi).max(axis=0, initial=0.0)] = 0.0
        err = np.abs(Phi.T @ (Mkin @ Phi) - Mrr).max() / np.abs(Mrr).max()
        if not err <= 1e-8:
            raise FormError(f"body '{self.name}': the velocity space does not contain the rigid motions of the "
                            f"frame (relative defect {err:.2e} of their mass); a floating frame needs velocity "
                            "fields that represent translations and rotations exactly")
        return {"Mfr": Mfr, "Kfr": Kfr, "Mrr": Mrr, "Krr": Krr, "Kff": Kff, "Phi": Phi, "spin": spin}

    def _spin_fields(self, fd, dx):
        """``[(test, trial, axis, density)]`` of the section-spin fields: the angular velocity
        ``w`` of the material's sections about the body-frame axis ``d`` relative to the frame, whose
        kinetic energy is ``1/2 int density (omega . d + w)^2`` (the torsion of a beam's sections,
        ``density = rho I_p``)."""
        out = []
        for field, d, rho_s in self._spin:
            if isinstance(rho_s, (int, float, np.floating)):
                rho_s = fd.Constant(float(rho_s))
            out.append((self._split_field(self._test, field), self._split_field(self._trial, field),
                        np.asarray(d), rho_s))
        return out

    def _rotation_components(self, d):
        """``e_a . d`` for each frame effort ``a`` (zero for the translations)."""
        rot = np.zeros(self.n_frame)
        rot[self.dim:] = d if self.dim == 3 else d[2]
        return rot

    def _spin_gyroscopic(self, K_list, spin, keep):
        """``K_i`` with the section spins' rotating-frame terms: the spin momentum
        ``h = d int density (omega . d + w)`` enters the frame's rotation rows as ``-omega x h``,
        ``sum_i omega_i (e_i x d) (s . e)``, ``s`` the row of ``int density (omega . d + w)``; each
        ``K_i`` gets ``S_i - S_i^T`` (skew; the added column terms vanish along the motion, since
        ``omega . (omega x d) = 0``).  None in the plane (``e_z x e_z = 0``)."""
        if self.dim == 2 or not spin:
            return K_list
        rows = [np.r_[total * self._rotation_components(d), c[keep]] for c, total, d in spin]
        out = []
        for i, K in enumerate(K_list):
            block = sum(np.outer(np.cross(np.eye(3)[i], d), srow) for (_, _, d), srow in zip(spin, rows))
            S = sp.csr_matrix(block)                             # the rows of omega_1..3 (e_i x d)
            S = sp.vstack([sp.csr_matrix((self.dim, K.shape[1])), S,
                           sp.csr_matrix((K.shape[0] - self.dim - 3, K.shape[1]))], format="csr")
            out.append(sp.csr_matrix(K + S - S.T))
        return out

    def add_frame_port(self, name, position):
        """A port at the body-frame point ``position`` moving with the frame of a floating body: rows
        ``v_P + omega x r`` and ``omega`` on the frame's efforts only.

        The point must move with the frame, as every point of a boundary does that the reference
        ``("clamped", marker)`` holds to it (e.g. the clamped edge of a plate, whose faces are not
        solids' faces for :meth:`add_face_port`)."""
        owner = f"body '{self.name}', port '{name}'"
        if not self.floating:
            raise ValueError(f"{owner}: add_frame_port is for a floating body (floating=True); a fixed body's "
                             "ports are forms (add_form_port, add_face_port)")
        r = np.asarray(position, float)
        if r.shape != (self.dim,) or not np.all(np.isfinite(r)):
            raise ValueError(f"{owner}: position must be {self.dim} finite numbers, got {position!r}")
        d, nw = self.dim, self.n_frame - self.dim
        Y, W = np.zeros((d, self.ne)), np.zeros((nw, self.ne))
        Y[:, :d] = np.eye(d)
        if d == 3:
            Y[:, 3:6] = -np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])
        else:
            Y[:, 2] = (-r[1], r[0])
        W[:, d:self.n_frame] = np.eye(nw)
        return self.add_port(name, Y, W, r)

    def first_moment(self):
        """``(s0, rows, "e")``: the first moment of mass about the frame origin, ``s0 + rows @ e``
        (frame components), of a floating body; None for a fixed one.

        ``s0 = m c`` is that of the undeformed body; ``rows`` give ``int rho u`` of the
        displacement ``u`` recovered from the stresses: the stress equations
        ``C sigma' = D v`` (``C``, ``D`` the stress rows of ``M`` and ``J0``) integrate to
        ``C sigma = D u`` for a motion that starts undeformed, solved in the least-squares sense
        (exact when ``D`` is injective on the kept velocities).  Zero rows when the body's
        structure is not of this form."""
        if not self.floating:
            return None
        if getattr(self, "_first_moment", None) is None:
            self._first_moment = (self.mass * self.center, self._displacement_moment_rows(), "e")
        return self._first_moment

    def _displacement_operator(self):
        """``(D, C, lu)`` of the displacement recovery (:meth:`displacement`), or None where the
        structure is not ``C sigma' = D v`` with ``D`` injective."""
        if getattr(self, "_displacement_lu", None) is None:
            v, s = self.velocity_dofs, self.stress_dofs
            J = sp.csr_matrix(self.J0)
            self._displacement_lu = False
            if len(s) and abs(J[s][:, s]).max() == 0 and abs(J[v][:, v]).max() == 0:
                D = J[s][:, v]
                try:
                    self._displacement_lu = (D, sp.csr_matrix(self.M)[s][:, s], spla.splu(sp.csc_matrix(D.T @ D)))
                except RuntimeError:
                    pass
        return self._displacement_lu or None

    def displacement(self, e):
        """The displacement field recovered from the stresses of ``e``, as a vector in the layout of
        ``e`` (the velocity slots hold ``u``, the rest zero): ``C sigma = D u`` solved in the
        least-squares sense, exact for a motion that started undeformed (:meth:`first_moment`)."""
        rec = self._displacement_operator()
        if rec is None:
            raise ValueError(f"body '{self.name}': its displacement cannot be recovered from its stresses "
                             "(the structure is not C sigma' = D v with D injective)")
        D, C, lu = rec
        e = np.asarray(e, float)
        out = np.zeros_like(e)
        out[..., self.velocity_dofs] = lu.solve(np.ascontiguousarray((D.T @ (C @ e[..., self.stress_dofs].T)))).T
        return out

    def _displacement_moment_rows(self):
        rows = np.zeros((self.dim, self.ne))
        rec = self._displacement_operator()
        if rec is None:
            return rows
        D, C, lu = rec
        Mfr = sp.csr_matrix(self.M)[self.velocity_dofs][:, :self.dim].toarray()     # int rho phi_j . e_k
        rows[:, self.stress_dofs] = (C @ (D @ lu.solve(np.ascontiguousarray(Mfr)))).T
        return rows

    def inertial_angular_momentum(self, q, e, deformed=False):
        """Inertial angular momentum about the inertial origin of a floating body (spatial: a vector;
        planar: a number): ``x_P x R p + R h``, ``p`` and ``h = int rho X x v`` the ``v_P`` and
        ``omega`` rows of ``M e``.  ``deformed=True`` takes the moment arms of the deformed body,
        ``h + int rho u x v`` with the displacement ``u`` of :meth:`displacement`
        (``(int rho u x v)_i = e^T K_i u``): the linear floating frame's rotational terms use the
        undeformed shape, so that of the model varies at first order in ``u``, this one at second."""
        if not self.floating:
            raise ValueError(f"body '{self.name}': inertial_angular_momentum is for a floating body")
        e = np.asarray(e, float)
        Me = self.M @ e
        h = Me[self.dim:self.n_frame].copy()
        if deformed:
            u = self.displacement(e)
            h += np.array([e @ (K @ u) for K in self.K_list])
        Rq = self.rotation(q)
        p, xP = Rq @ Me[:self.dim], np.asarray(q[:self.dim], float)
        if self.dim == 2:
            return float(xP[0] * p[1] - xP[1] * p[0] + h[0])
        return np.cross(xP, p) + Rq @ h


class _FloatingForm:
    """The floating variant of a form body: the frame's kinematics from its frame class, the
    ports following the frame (:func:`floating_class`)."""

    _fixed_class = None

    def __init__(self, *args, **kwargs):
        self._fixed_class.__init__(self, *args, **kwargs)

    port_position = Body.port_position


_FLOATING = {}


def floating_class(cls, dim):
    """The floating variant of the form body class ``cls`` in ``dim`` dimensions: the class with
    the frame kinematics of :class:`~phmech.bodies.base.SpatialFrameBody` (or
    :class:`~phmech.bodies.base.FloatingFrameBody`) before those of ``cls`` (made once, kept in
    ``cls``' module under its name so that its instances pickle)."""
    if dim not in (2, 3):
        raise ValueError(f"{cls.__name__}: dim must be 2 or 3, got {dim!r}")
    key = (cls, dim)
    if key not in _FLOATING:
        frame = SpatialFrameBody if dim == 3 else FloatingFrameBody
        name = f"Floating{cls.__name__}{dim}D"
        new = type(name, (_FloatingForm, frame, cls),
                   {"_fixed_class": cls, "_frame_base": frame, "__module__": cls.__module__,
                    "__qualname__": name, "__doc__": cls.__doc__})
        setattr(sys.modules[cls.__module__], name, new)
        _FLOATING[key] = new
    return _FLOATING[key]

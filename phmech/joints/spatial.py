"""Spatial joints between two bodies (rigid or flexible, at any ports) or a body and the ground.

One class, :class:`SpatialJoint`, with the joint types as data: a joint
is a set of *translational* rows and a set of *rotational* rows,

===========  =====================  =================================
type         translation            rotation
===========  =====================  =================================
spherical    all 3                  --
revolute     all 3                  2, normal to the axis
universal    all 3                  1, the two cross axes stay normal
prismatic    2, normal to the axis  all 3
cylindrical  2, normal to the axis  2, normal to the axis
weld         all 3                  all 3
===========  =====================  =================================

and optionally a driver row prescribing the relative rotation rate (and
angle) about the axis of a revolute or cylindrical joint.

Notation: ``R_A``, ``R_B`` are the frame rotations of the bodies of ports
``a`` and ``b`` (``R_B = I`` for the ground), ``Y``, ``W`` the port rows,
``P = R_A^T R_B`` the relative rotation, ``D`` the directions normal to
the axis fixed in body A (``a = d1 x d2`` the axis).  The rows are

* translation, all: ``R_A Y_a e_a - R_B Y_b e_b`` (inertial components of
  the relative velocity; multipliers are the inertial joint force; a port whose
  rows ``Y`` are inertial already, ``port_velocity = "inertial"``, is not turned);
* translation, normal to the axis: ``D^T rho'`` with
  ``rho = R_A^T (x_b - x_a)`` the relative position in A's frame,
  ``rho' = P Y_b e_b - Y_a e_a + rho x W_a e_a``;
* rotation: ``D^T (W_a e_a - P W_b e_b)`` (the relative angular velocity in
  A's frame has no component along ``D``; with ``D = I`` none at all);
* universal: ``n^T (R_A W_a e_a - R_B W_b e_b)`` with ``n = c_1 x c_2`` the
  normal of the cross axes ``c_1 = R_A a_1``, ``c_2 = R_B b_2``;
* driver: ``a^T (P W_b e_b - W_a e_a) = theta'(t)``.

Each row is the exact time derivative of a position-level residual
(relative position of the port points; ``D^T rho``; the axis of B seen from
A, ``[d2, -d1]^T P a_B``; ``c_1 . c_2``; the relative angle), so the
velocity constraints are integrable and the positions do not drift at the
rate of the discretization.  The rows and the exact derivatives of
``G(q) e`` and ``G(q)^T lam`` with respect to ``q`` are computed once, by the
kernels of :mod:`phmech.joints.spatial_kernels` on the data each joint packs
(:meth:`SpatialJoint.kernel_entry`); the assembled right-hand side and the
compiled residual both call them.
"""
import numpy as np

from ..kernels.families import register_family
from ..math.rotations import ROTATION_CODES, RotationMatrix, UnitQuaternion, quat_from_matrix, quat_multiply
from . import spatial_kernels as K
from .base import Joint, as_function, as_port, finite_vector, require_rotation

VARIANTS = {
    "spherical": ("all", None),
    "revolute": ("all", "normal"),
    "universal": ("all", "cross"),
    "prismatic": ("normal", "all"),
    "cylindrical": ("normal", "normal"),
    "weld": ("all", "all"),
}


def _normal_basis(a):
    """Two unit vectors ``d1, d2`` with ``(d1, d2, a)`` right-handed and orthonormal."""
    a = a / np.linalg.norm(a)
    helper = np.eye(3)[int(np.argmin(np.abs(a)))]
    d1 = np.cross(helper, a)
    d1 /= np.linalg.norm(d1)
    return np.column_stack([d1, np.cross(a, d1)])


class SpatialGroup:
    """All spatial joints of a system, evaluated by the kernels of
    :mod:`phmech.joints.spatial_kernels` on the data of :meth:`kernel_data`."""

    #: the kernel family of :meth:`kernel_data` (:mod:`phmech.kernels.families`)
    kernel_slot = "spatial_joints"

    def __init__(self, joints, layout):
        self.joints, self.layout = list(joints), layout
        self._data = None

    def kernel_data(self):
        """The packed joints (see :mod:`phmech.joints.spatial_kernels`), built at the first
        evaluation (the joints are bound to the initial configuration after the group is made)."""
        if self._data is None:
            self._data = self._pack()
        return self._data

    def _pack(self):
        L = self.layout
        I, QI, F, PP, CI = [], [], [], [], []
        off = np.zeros(5, np.int64)              # offsets into G, A, B values, PP and CI
        for j in self.joints:
            ints, qi, f, pool, cols = j.kernel_entry(L)
            nr, nc = ints[K.NR], ints[K.NA] + ints[K.NB]
            ints[K.GOFF], ints[K.AOFF], ints[K.BOFF], ints[K.POFF], ints[K.COFF] = off
            ints[K.ROW0] = L.lam_slices[j.name].start
            off += (nr * nc, nc * K.NQJ, nr * K.NQJ, pool.size, cols.size)
            I.append(ints)
            QI.append(qi)
            F.append(f)
            PP.append(pool)
            CI.append(cols)
        I = np.array(I, np.int64).reshape(-1, K.N_INT)
        QI = np.array(QI, np.int64).reshape(-1, K.NQJ)
        F = np.array(F, float).reshape(-1, K.N_FLOAT)
        PP = np.concatenate(PP) if PP else np.zeros(0)
        CI = np.concatenate(CI).astype(np.int64) if CI else np.zeros(0, np.int64)
        pattern = [[] for _ in range(6)]
        for ij, qi in zip(I, QI):
            nr, nc = ij[K.NR], ij[K.NA] + ij[K.NB]
            rows = ij[K.ROW0] + np.arange(nr)
            cols = CI[ij[K.COFF]:ij[K.COFF] + nc]
            for i, x in enumerate((np.repeat(rows, nc), np.tile(cols, nr), np.repeat(cols, K.NQJ),
                                   np.tile(qi, nc), np.repeat(rows, K.NQJ), np.tile(qi, nr))):
                pattern[i].append(x)
        pattern = [np.concatenate(x).astype(np.int64) if x else np.zeros(0, np.int64) for x in pattern]
        self._keep_a, self._keep_b = pattern[3] >= 0, pattern[5] >= 0
        return K.SpatialJointsData(I, QI, F, PP, CI, *pattern)

    def G_triplets(self, q):
        """``G(q)`` as triplets ``(rows, cols, values)``."""
        return K.spatial_joints_G_triplets(np.asarray(q, float), self.kernel_data())

    def add_G(self, q, G):
        r, c, v = self.G_triplets(q)
        G[r, c] += v                   # no pair (row, column) repeats: rows are the joints' own

    def jacobian_triplets(self, q, e, lam):
        """``d(G^T lam)/dq`` (rows in ``e``) and ``d(G e)/dq`` (rows in ``lam``) as triplets."""
        sj = self.kernel_data()
        Gv, Av, Bv = np.empty(sj[5].size), np.empty(sj[7].size), np.empty(sj[9].size)
        K.spatial_joints_derivatives(np.asarray(q, float), np.asarray(e, float), np.asarray(lam, float),
                                     sj, Gv, Av, Bv)
        ka, kb = self._keep_a, self._keep_b
        return (sj[7][ka], sj[8][ka], Av[ka]), (sj[9][kb], sj[10][kb], Bv[kb])


class SpatialJoint(Joint):
    """A joint between spatial ports (see the module docstring for the rows).

    Parameters
    ----------
    kind : one of ``spherical, revolute, universal, prismatic, cylindrical, weld``
    a, b : Port (or body, meaning its port ``P``); ``b=None`` is the ground.
    axis : 3-vector
        Joint axis (revolute, prismatic, cylindrical) or first cross axis
        (universal, fixed in A), in the components of ``axis_frame``.
    axis2 : 3-vector
        Second cross axis of a universal joint (fixed in B), default
        ``axis x`` (the line from a to ... ) -- must be normal to ``axis``.
    axis_frame : ``"inertial"`` (at the initial configuration, default), ``"a"`` or ``"b"``
    rate, angle : driver of the relative rotation about the axis (revolute,
        cylindrical): ``rate`` (constant or ``f(t)``) prescribes the angular
        velocity of B relative to A; ``angle(t)`` adds the position-level
        residual ``theta - (angle(t) - angle(t0))``.
    at : ground point of a ground joint (default: the port's initial position).
    """

    Group = SpatialGroup

    def __init__(self, kind, a, b=None, axis=None, axis2=None, axis_frame="inertial",
                 rate=None, angle=None, at=None, name=None):
        if kind not in VARIANTS:
            raise ValueError(f"joint '{name}': unknown spatial joint type {kind!r}; "
                             f"choose one of {sorted(VARIANTS)}")
        a = as_port(a, name)
        b = as_port(b, name)
        name = name or f"{kind}({a.label}, {b.label if b is not None else 'ground'})"
        self.kind = kind
        self.translation, self.rotation = VARIANTS[kind]
        self.driven = rate is not None or angle is not None
        n_trans = {"all": 3, "normal": 2}[self.translation]
        n_rot = {None: 0, "normal": 2, "cross": 1, "all": 3}[self.rotation]
        self.n_rows = n_trans + n_rot + (1 if self.driven else 0)
        super().__init__(name)
        for p in (a, b):
            if p is not None and p.dim != 3:
                raise ValueError(f"joint '{name}': port '{p.label}' belongs to a planar body; "
                                 "use the planar joints of phmech.joints.planar")
        if b is not None and a.body is b.body:
            raise ValueError(f"joint '{name}': both ports belong to body '{a.body.name}'")
        if self.rotation is not None or self.driven or self.translation == "normal":
            require_rotation(a, name)
            require_rotation(b, name)
        needs_axis = kind in ("revolute", "universal", "prismatic", "cylindrical")
        if needs_axis and axis is None:
            raise ValueError(f"joint '{name}': a {kind} joint needs an axis")
        if self.driven and kind not in ("revolute", "cylindrical"):
            raise ValueError(f"joint '{name}': only revolute and cylindrical joints take a driver")
        if axis_frame not in ("inertial", "a", "b"):
            raise ValueError(f"joint '{name}': axis_frame must be 'inertial', 'a' or 'b', got {axis_frame!r}")
        if axis_frame == "b" and b is None:
            raise ValueError(f"joint '{name}': axis_frame='b' needs a body b (it is the ground)")
        self.a, self.b = a, b
        tips = [p.label for p in (a, b) if p is not None and _tangent_section(p) is not None]
        if tips and self.translation == "normal":
            raise ValueError(f"joint '{name}': a {kind} joint at port(s) {tips}, whose section follows the "
                             "beam's tangent, is not supported (its sliding rows would need the deformed tip's "
                             "position in the section's axes): use a revolute, spherical, universal or weld joint")
        self.axis = None if axis is None else finite_vector(axis, 3, "axis", name)
        self.axis2 = None if axis2 is None else finite_vector(axis2, 3, "axis2", name)
        self.axis_frame = axis_frame
        self.at = None
        if at is not None:
            self.at = np.asarray(at, dtype=float)
            if self.at.shape != (3,) or not np.all(np.isfinite(self.at)):
                raise ValueError(f"joint '{name}': at must be 3 finite numbers, got {at!r}")
        if self.driven:
            if rate is None:
                raise ValueError(f"joint '{name}': an angle driver needs its rate as well (rate=...)")
            self._w = as_function(rate, 1, "rate", name)
            full = self._w
            self._w = lambda t, full=full, n=self.n_rows: np.r_[np.zeros(n - 1), full(t)]
            self._w.constant = getattr(full, "constant", False)
            self._w.what, self._w.value = full.what, full.value
            self._angle = None if angle is None else as_function(angle, 1, "angle", name)
            sections = [p.label for p in (a, b) if p is not None and _turns_with_a_section(p)]
            if angle is not None and sections:
                raise ValueError(f"joint '{name}': an angle driver at port(s) {sections}, whose rotation is "
                                 "a section's (defined up to the sign of its quaternion), would wrap at half "
                                 "a turn: drive the rate alone (rate=...)")
        else:
            self._w = as_function(None, self.n_rows, "velocity", name)
        self._bound = False

    # -- set-up ------------------------------------------------------------
    def ports(self):
        return [self.a] if self.b is None else [self.a, self.b]

    def _RB(self, q_of):
        return np.eye(3) if self.b is None else self.b.body.port_rotation(q_of(self.b.body), self.b)

    def bind(self, q_of):
        RA = self.a.body.port_rotation(q_of(self.a.body), self.a)
        RB = self._RB(q_of)
        if self.b is None and self.at is None:
            self.at = self.a.body.port_position(q_of(self.a.body), self.a)
        self.P0 = RA.T @ RB
        p0 = self._relative_quaternion(q_of)
        self._p0 = p0 / np.linalg.norm(p0)            # the relative rotation's quaternion at the start
        if self.axis is not None:
            v = self.axis / np.linalg.norm(self.axis)
            aA = {"inertial": RA.T @ v, "a": v, "b": self.P0 @ v}[self.axis_frame]
            self.axis_A = aA
            self.axis_B = self.P0.T @ aA
            self.D = _normal_basis(aA)
            if self.kind == "universal":
                if self.axis2 is None:
                    b2A = self.D[:, 0]
                else:
                    w = self.axis2 / np.linalg.norm(self.axis2)
                    b2A = {"inertial": RA.T @ w, "a": w, "b": self.P0 @ w}[self.axis_frame]
                if abs(b2A @ aA) > 1e-9:
                    raise ValueError(f"joint '{self.name}': the cross axes of a universal joint must be "
                                     f"normal, got axis {self.axis} and axis2 {self.axis2}")
                self.cross_B = self.P0.T @ b2A
        if self.driven and self._angle is not None:
            self._angle0 = float(self._angle(0.0)[0])
        self._bound = True

    # -- rows ------------------------------------------------------------
    def kernel_entry(self, layout):
        """The joint's data for :mod:`~phmech.joints.spatial_kernels`: ``(ints, QI row,
        F row, port rows Y_a, W_a, Y_b, W_b flattened, global e columns)``; the group sets
        the offsets in ``ints``."""
        ints = np.zeros(K.N_INT, np.int64)
        inertial = [p.inertial_rows for p in self.ports()]
        tips = [_tangent_section(p) for p in self.ports()]
        ints[K.T_MODE] = {"all": 1 if self.b is not None or not _rows_in_port_axes(self.a) else 0,
                          "normal": 2}[self.translation]
        ints[K.TIP_A] = ints[K.TIP_B] = -1
        ints[K.R_MODE] = {None: 0, "normal": 1, "cross": 2, "all": 3}[self.rotation]
        ints[K.DRIVEN] = int(self.driven)
        ints[K.NR] = self.n_rows
        ints[K.HAS_B] = int(self.b is not None)
        qi = np.full(K.NQJ, -1, np.int64)
        f = np.zeros(K.N_FLOAT)
        pool, cols, extra = [], [], []
        for k, port in enumerate(self.ports()):
            body = port.body
            q0 = layout.q_slices[body.name].start
            pos, kind, rot, offset = body.port_frame(port)
            o = K.NQP * k
            if pos >= 0:
                qi[o:o + 3] = q0 + pos + np.arange(3)
            code = ROTATION_CODES.get(kind)
            tip = tips[k]
            if tip is not None:                     # a section that follows its tangent and twist
                code = K.TANGENT_SECTION
                qi[o + 3:o + 7] = q0 + rot + np.arange(4)          # the frame's quaternion
                qi[o + 7:o + 11] = q0 + np.asarray(tip.theta_q)
                f[K.F_TIP + 8 * k:K.F_TIP + 8 * k + 8] = (*tip.theta_c, *tip.theta_0)
            elif kind is not None:
                if code not in (2, 3):
                    raise ValueError(f"joint '{self.name}': body '{body.name}' has no spatial orientation "
                                     f"(a quaternion or section rotations) at port '{port.label}'")
                qi[o + 3:o + 3 + kind.n_params] = q0 + rot + np.arange(kind.n_params)
            ints[(K.KIND_A, K.KIND_B)[k]] = code
            ints[(K.YI_A, K.YI_B)[k]] = int(inertial[k])
            if inertial[k] and np.any(np.asarray(offset) != 0.0):
                raise ValueError(f"joint '{self.name}': port '{port.label}' of body '{body.name}' lies off the "
                                 "point whose inertial velocity the body's efforts carry: joints at such ports are "
                                 "not supported (join the body at that point, its port 'C')")
            pc = port.cols if tip is None else np.union1d(port.cols, np.flatnonzero(np.any(
                np.vstack([tip.A, tip.Wf, tip.s]) != 0, axis=0)))
            ints[K.NA + k] = len(pc)
            f[(K.F_POS_A, K.F_POS_B)[k] + np.arange(3)] = offset
            W = np.zeros((3, body.ne)) if port.W is None else port.W
            pool += [port.Y[:, pc].ravel(), W[:, pc].ravel()]
            gauge = port.gauge if tip is None else tip.gauge
            if gauge is not None:                   # rotation rows scaled by the body's frame gauge
                kg, d, c, rows = gauge
                qi[K.QG + k] = q0 + kg
                f[K.F_GAUGE + 5 * k:K.F_GAUGE + 5 * k + 5] = (d, c, *rows)
            if tip is not None:
                extra.append((k, np.vstack([tip.A, tip.Wf, tip.s])[:, pc].ravel()))
            cols.append(layout.e_slices[body.name].start + pc)
        base = sum(x.size for x in pool)
        for k, rows in extra:                       # the tangent sections' base rows after the blocks
            ints[(K.TIP_A, K.TIP_B)[k]] = base
            pool.append(rows)
            base += rows.size
        if self.b is None:
            f[K.F_AT:K.F_AT + 3] = self.at
        if self.axis is not None:
            f[K.F_D1:K.F_D1 + 3], f[K.F_D2:K.F_D2 + 3] = self.D[:, 0], self.D[:, 1]
            f[K.F_AXIS:K.F_AXIS + 3] = self.axis_A
        if self.kind == "universal":
            f[K.F_CROSS:K.F_CROSS + 3] = self.cross_B
        return ints, qi, f, np.concatenate(pool).astype(float), np.concatenate(cols)

    # -- position level ------------------------------------------------------
    def position_residual(self, q_of, t):
        a, b = self.a, self.b
        RA = a.body.port_rotation(q_of(a.body), a)
        RB = self._RB(q_of)
        xa = a.body.port_position(q_of(a.body), a)
        xb = self.at if b is None else b.body.port_position(q_of(b.body), b)
        P = RA.T @ RB
        out = []
        if self.translation == "all":
            out.append(RA.T @ (xa - xb) if b is None and _rows_in_port_axes(a) else xa - xb)
        else:
            out.append(self.D.T @ (RA.T @ (xb - xa)))
        if self.rotation == "all":
            Rerr = P @ self.P0.T
            out.append(-0.5 * np.array([Rerr[2, 1] - Rerr[1, 2], Rerr[0, 2] - Rerr[2, 0], Rerr[1, 0] - Rerr[0, 1]]))
        elif self.rotation == "normal":
            aB = P @ self.axis_B
            out.append(np.array([self.D[:, 1] @ aB, -self.D[:, 0] @ aB]))
        elif self.rotation == "cross":
            out.append(np.array([(RA @ self.axis_A) @ (RB @ self.cross_B)]))
        if self.driven:
            if self._angle is None:
                out.append(np.zeros(1))
            else:
                out.append(np.array([self.relative_angle(q_of) - (self._angle(t)[0] - self._angle0)]))
        return np.concatenate(out)

    def _relative_quaternion(self, q_of):
        """``conj(p_a) (x) p_b`` of the ports' frame quaternions (the identity for the ground or a
        body without one), unnormalized: continuous along the motion, as the frames' are."""
        pa, pb = (_frame_quaternion(p, q_of) for p in (self.a, self.b))
        return quat_multiply(pa * np.array([1.0, -1.0, -1.0, -1.0]), pb)

    def relative_angle(self, q_of):
        """Rotation of B relative to A about the axis since the initial configuration [rad].

        ``phi = 2 atan2(n . p_v, p_0)`` of the quaternion ``p`` of ``E = R_a^T R_b P0^T``
        taken from the frames' quaternions (as the torsional spring's,
        :mod:`phmech.forces.elements_kernels`), so it is continuous along the motion while
        ``|phi| < 2 pi`` (a full turn either way) instead of wrapping at ``pi``."""
        p = quat_multiply(self._relative_quaternion(q_of), self._p0 * np.array([1.0, -1.0, -1.0, -1.0]))
        n = np.cross(self.D[:, 0], self.D[:, 1])
        return float(2.0 * np.arctan2(n @ p[1:], p[0]))


def _tangent_section(port):
    """The port's :class:`~phmech.fem.beam3d_nonlinear.TangentSection` (its section follows its
    body's tangent and twist: the end B of a consistent spatial beam), or None."""
    section = getattr(port.body, "tangent_section", None)
    return None if section is None else section(port)


def _rows_in_port_axes(port):
    """True where the port's velocity rows give components in the axes of its rotation rows (a
    framed body's port), not inertial ones or the body frame's (a tangent section)."""
    return not port.inertial_rows and _tangent_section(port) is None


def _turns_with_a_section(port):
    """True where the port's rotation is its own section's (a node of the exact spatial beam, the
    tangent section of a consistent one), whose quaternion has no continuous sign."""
    return port.body.port_frame(port)[1] is RotationMatrix or _tangent_section(port) is not None


def _frame_quaternion(port, q_of):
    """The quaternion of the frame of ``port``'s body (the identity for the ground), or of the
    port's section (determined up to its sign: continuous only within half a turn)."""
    body = getattr(port, "body", None)
    if body is None:
        return np.array([1.0, 0.0, 0.0, 0.0])
    if _turns_with_a_section(port):
        return quat_from_matrix(body.port_rotation(q_of(body), port))
    if body.port_frame(port)[1] is not UnitQuaternion:
        return np.array([1.0, 0.0, 0.0, 0.0])
    k = body.port_frame(port)[2]
    return np.asarray(q_of(body)[k:k + 4], float)


def Spherical(a, b=None, name=None, at=None):
    """Spherical joint (3 rows): the port points coincide (``b=None``: a fixed point)."""
    return SpatialJoint("spherical", a, b, name=name, at=at)


def Revolute3(a, b=None, axis=(0.0, 0.0, 1.0), name=None, axis_frame="inertial", rate=None, angle=None):
    """Revolute joint about ``axis`` (5 rows; 6 with a driver ``rate``/``angle``)."""
    return SpatialJoint("revolute", a, b, axis=axis, axis_frame=axis_frame, rate=rate, angle=angle, name=name)


def Universal(a, b=None, axis=(0.0, 0.0, 1.0), axis2=None, name=None, axis_frame="inertial"):
    """Universal (cardan) joint (4 rows): ``axis`` fixed in A, ``axis2`` fixed in B, normal to each other."""
    return SpatialJoint("universal", a, b, axis=axis, axis2=axis2, axis_frame=axis_frame, name=name)


def Prismatic(a, b=None, axis=(1.0, 0.0, 0.0), name=None, axis_frame="inertial"):
    """Prismatic joint along ``axis`` (5 rows)."""
    return SpatialJoint("prismatic", a, b, axis=axis, axis_frame=axis_frame, name=name)


def Cylindrical(a, b=None, axis=(1.0, 0.0, 0.0), name=None, axis_frame="inertial", rate=None, angle=None):
    """Cylindrical joint along and about ``axis`` (4 rows)."""
    return SpatialJoint("cylindrical", a, b, axis=axis, axis_frame=axis_frame, rate=rate, angle=angle, name=name)


def Weld3(a, b=None, name=None):
    """Rigid connection of two spatial ports, or a clamp to the ground (6 rows)."""
    return SpatialJoint("weld", a, b, name=name)


def _pack_family(groups, dae):
    """The family's data: the group's packed joints, or none."""
    return (groups[0] if groups else SpatialGroup([], dae.layout)).kernel_data()


register_family("spatial_joints", K.SpatialJointsData, pack=_pack_family, has=K.has_spatial_joints,
                residual_add=K.spatial_joints_residual_add, jacobian_add=K.spatial_joints_jacobian_add)

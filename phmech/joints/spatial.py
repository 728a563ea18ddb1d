"""Spatial joints between two bodies (rigid or flexible, at any ports) or a body and the ground.

One class, :class:`SpatialJoint`, with the joint types as data: a joint
is a set of *translational* rows and a set of *rotational* rows,

============  ====================  ============================
type          translation           rotation
============  ====================  ============================
spherical     all 3                 --
revolute      all 3                 2, normal to the axis
universal     all 3                 1, the two cross axes stay normal
prismatic     2, normal to the axis all 3
cylindrical   2, normal to the axis 2, normal to the axis
weld          all 3                 all 3
============  ====================  ============================

and optionally a driver row prescribing the relative rotation rate (and
angle) about the axis of a revolute or cylindrical joint.

Notation: ``R_A``, ``R_B`` are the frame rotations of the bodies of ports
``a`` and ``b`` (``R_B = I`` for the ground), ``Y``, ``W`` the port rows,
``P = R_A^T R_B`` the relative rotation, ``D`` the directions normal to
the axis fixed in body A (``a = d1 x d2`` the axis).  The rows are

* translation, all: ``R_A Y_a e_a - R_B Y_b e_b`` (inertial components of
  the relative velocity; multipliers are the inertial joint force);
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
rate of the discretization.  The derivatives of ``G(q) e`` with respect to
``q`` are exact (from :mod:`phmech.math.rotations`).
"""
import numpy as np

from ..math.rotations import skew
from .base import Joint, as_function, as_port, finite_vector, require_rotation

VARIANTS = {
    "spherical": ("all", None),
    "revolute": ("all", "normal"),
    "universal": ("all", "cross"),
    "prismatic": ("normal", "all"),
    "cylindrical": ("normal", "normal"),
    "weld": ("all", "all"),
}


def _frame_data(port, q, derivatives=True):
    """Rotation, its derivatives and the port position with its Jacobian."""
    body = port.body
    R = body.rotation(q)
    x = body.position(q) + R @ port.position
    if not derivatives:
        return R, (), None, x, None
    ridx, dR = body.rotation_derivatives(q)
    dx = np.zeros((3, body.nq))
    dx[:, :3] = np.eye(3)
    for k, i in enumerate(ridx):
        dx[:, i] += dR[k] @ port.position
    return R, ridx, dR, x, dx


def _normal_basis(a):
    """Two unit vectors ``d1, d2`` with ``(d1, d2, a)`` right-handed and orthonormal."""
    a = a / np.linalg.norm(a)
    helper = np.eye(3)[int(np.argmin(np.abs(a)))]
    d1 = np.cross(helper, a)
    d1 /= np.linalg.norm(d1)
    return np.column_stack([d1, np.cross(a, d1)])


class GenericGroup:
    """Joints evaluated one by one from their local ``G`` block and its ``q``-derivative."""

    def __init__(self, joints, layout):
        self.items = []
        self.constant = []          # (rows, cols, block) of joints whose G does not depend on q
        self.q_of = layout.q_getter
        for j in joints:
            rows = np.arange(layout.lam_slices[j.name].start, layout.lam_slices[j.name].stop)
            cols = np.concatenate([layout.e_slices[p.body.name].start + p.cols for p in j.ports()])
            qidx = np.concatenate([np.arange(layout.q_slices[b.name].start, layout.q_slices[b.name].stop)
                                   for b in j.bodies()])
            if getattr(j, "constant", False):
                self.constant.append((np.ix_(rows, cols), j, qidx))
            else:
                self.items.append((j, rows, cols, qidx))
        self._G0 = None

    def add_G(self, q, G):
        q_of = self.q_of(q)
        if self.constant:
            if self._G0 is None:   # joints are bound at assembly, before the first evaluation
                self._G0 = [(ix, j.local_G(q_of)) for ix, j, qidx in self.constant]
            for ix, block in self._G0:
                G[ix] += block
        for j, rows, cols, _ in self.items:
            G[np.ix_(rows, cols)] += j.local_G(q_of)

    def G_triplets(self, q):
        q_of = self.q_of(q)
        out = []
        if self._G0 is None:
            self._G0 = [(ix, j.local_G(q_of)) for ix, j, qidx in self.constant]
        for (r, c), block in self._G0:
            out.append((np.broadcast_to(r, block.shape).ravel(), np.broadcast_to(c, block.shape).ravel(),
                        block.ravel()))
        for j, rows, cols, _ in self.items:
            block = j.local_G(q_of)
            out.append((np.repeat(rows, len(cols)), np.tile(cols, len(rows)), block.ravel()))
        return tuple(np.concatenate([o[i] for o in out]) for i in range(3)) if out else \
            (np.zeros(0, int), np.zeros(0, int), np.zeros(0))

    def jacobian_triplets(self, q, e, lam):
        q_of = self.q_of(q)
        gt, ge = [], []
        for j, rows, cols, qidx in self.items:
            dG = j.local_dG(q_of)
            A = np.einsum("ijk,i->jk", dG, lam[rows])       # cols x qidx
            B = np.einsum("ijk,j->ik", dG, e[cols])         # rows x qidx
            gt.append((np.repeat(cols, len(qidx)), np.tile(qidx, len(cols)), A.ravel()))
            ge.append((np.repeat(rows, len(qidx)), np.tile(qidx, len(rows)), B.ravel()))
        cat = (lambda xs: tuple(np.concatenate([x[i] for x in xs]) for i in range(3)) if xs
               else (np.zeros(0, int), np.zeros(0, int), np.zeros(0)))
        return cat(gt), cat(ge)


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

    Group = GenericGroup

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
        else:
            self._w = as_function(None, self.n_rows, "velocity", name)
        self._bound = False

    @property
    def constant(self):
        """True when ``G`` does not depend on ``q`` (ground joints without cross or normal-translation rows)."""
        return self.b is None and self.translation == "all" and self.rotation != "cross"

    # -- set-up ------------------------------------------------------------
    def ports(self):
        return [self.a] if self.b is None else [self.a, self.b]

    def _RB(self, q_of):
        return np.eye(3) if self.b is None else self.b.body.rotation(q_of(self.b.body))

    def bind(self, q_of):
        RA = self.a.body.rotation(q_of(self.a.body))
        RB = self._RB(q_of)
        if self.b is None and self.at is None:
            self.at = self.a.body.port_position(q_of(self.a.body), self.a)
        self.P0 = RA.T @ RB
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
    def _blocks(self, q_of, with_derivatives):
        """``(G_a, G_b, dG_a, dG_b)`` over the port columns; ``dG_*`` over the joint's q."""
        a, b = self.a, self.b
        qa = q_of(a.body)
        RA, ia, dRA, xa, dxa = _frame_data(a, qa, with_derivatives)
        nqa = a.body.nq
        if b is not None:
            qb = q_of(b.body)
            RB, ib, dRB, xb, dxb = _frame_data(b, qb, with_derivatives)
            nqb = b.body.nq
            Yb = b.Yc
            Wb = b.Wc
        else:
            RB, ib, dRB, xb, dxb, nqb = np.eye(3), [], np.zeros((0, 3, 3)), self.at, np.zeros((3, 0)), 0
        nq = nqa + nqb
        Ya, Wa = a.Yc, a.Wc
        P = RA.T @ RB
        # derivatives of P over the joint's q (index, dP)
        dP = ([(i, dRA[k].T @ RB) for k, i in enumerate(ia)] + [(nqa + i, RA.T @ dRB[k]) for k, i in enumerate(ib)]
              if with_derivatives else [])
        na, nb = len(a.cols), (0 if b is None else len(b.cols))
        rows_a, rows_b, dga, dgb = [], [], [], []

        def new_d(k):
            return np.zeros((k, na, nq)), np.zeros((k, nb, nq))

        if self.translation == "all" and b is None:
            # to the ground: body-frame components, constant rows (the rate of R_A^T (x_a - at)
            # on the constraint manifold); the multipliers are the joint force in body axes
            rows_a.append(Ya)
            rows_b.append(np.zeros((3, 0)))
            if with_derivatives:
                da, db = new_d(3)
                dga.append(da)
                dgb.append(db)
        elif self.translation == "all":
            rows_a.append(RA @ Ya)
            rows_b.append(-RB @ Yb)
            if with_derivatives:
                da, db = new_d(3)
                for k, i in enumerate(ia):
                    da[:, :, i] = dRA[k] @ Ya
                for k, i in enumerate(ib):
                    db[:, :, nqa + i] = -dRB[k] @ Yb
                dga.append(da)
                dgb.append(db)
        else:  # normal to the axis, relative position in A's frame
            D = self.D
            delta = xb - xa
            rho = RA.T @ delta
            rows_a.append(D.T @ (-Ya + skew(rho) @ Wa))
            rows_b.append(D.T @ P @ Yb if b is not None else np.zeros((2, 0)))
            if with_derivatives:
                da, db = new_d(2)
                drho = np.zeros((3, nq))
                drho[:, :nqa] = -RA.T @ dxa
                if b is not None:
                    drho[:, nqa:] = RA.T @ dxb
                for k, i in enumerate(ia):
                    drho[:, i] += dRA[k].T @ delta
                for j in range(nq):
                    if np.any(drho[:, j]):
                        da[:, :, j] = D.T @ skew(drho[:, j]) @ Wa
                if b is not None:
                    for j, dPj in dP:
                        db[:, :, j] = D.T @ dPj @ Yb
                dga.append(da)
                dgb.append(db)
        if self.rotation in ("all", "normal"):
            D = np.eye(3) if self.rotation == "all" else self.D
            rows_a.append(D.T @ Wa)
            rows_b.append(-D.T @ P @ Wb if b is not None else np.zeros((D.shape[1], 0)))
            if with_derivatives:
                da, db = new_d(D.shape[1])
                if b is not None:
                    for j, dPj in dP:
                        db[:, :, j] = -D.T @ dPj @ Wb
                dga.append(da)
                dgb.append(db)
        elif self.rotation == "cross":
            c1, c2 = RA @ self.axis_A, RB @ self.cross_B
            n = np.cross(c1, c2)
            rows_a.append((n @ RA @ Wa)[None, :])
            rows_b.append((-n @ RB @ Wb)[None, :] if b is not None else np.zeros((1, 0)))
            if with_derivatives:
                da, db = new_d(1)
                for k, i in enumerate(ia):
                    dn = np.cross(dRA[k] @ self.axis_A, c2)
                    da[0, :, i] = dn @ RA @ Wa + n @ dRA[k] @ Wa
                    if b is not None:
                        db[0, :, i] = -dn @ RB @ Wb
                for k, i in enumerate(ib):
                    dn = np.cross(c1, dRB[k] @ self.cross_B)
                    da[0, :, nqa + i] = dn @ RA @ Wa
                    db[0, :, nqa + i] = -dn @ RB @ Wb - n @ dRB[k] @ Wb
                dga.append(da)
                dgb.append(db)
        if self.driven:
            ax = self.axis_A
            rows_a.append(-(ax @ Wa)[None, :])
            rows_b.append((ax @ P @ Wb)[None, :] if b is not None else np.zeros((1, 0)))
            if with_derivatives:
                da, db = new_d(1)
                if b is not None:
                    for j, dPj in dP:
                        db[0, :, j] = ax @ dPj @ Wb
                dga.append(da)
                dgb.append(db)
        Ga, Gb = np.vstack(rows_a), np.vstack(rows_b)
        if not with_derivatives:
            return Ga, Gb
        return Ga, Gb, np.concatenate(dga, axis=0), np.concatenate(dgb, axis=0)

    def local_G(self, q_of):
        """``G`` restricted to the joint's port columns, shape (n_rows, n_cols)."""
        Ga, Gb = self._blocks(q_of, False)
        return np.hstack([Ga, Gb])

    def local_dG(self, q_of):
        """``dG/dq`` over the joint's port columns and bodies' q, shape (n_rows, n_cols, nq)."""
        _, _, da, db = self._blocks(q_of, True)
        return np.concatenate([da, db], axis=1)

    # -- position level ------------------------------------------------------
    def position_residual(self, q_of, t):
        a, b = self.a, self.b
        RA = a.body.rotation(q_of(a.body))
        RB = self._RB(q_of)
        xa = a.body.port_position(q_of(a.body), a)
        xb = self.at if b is None else b.body.port_position(q_of(b.body), b)
        P = RA.T @ RB
        out = []
        if self.translation == "all":
            out.append(RA.T @ (xa - xb) if b is None else xa - xb)
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

    def relative_angle(self, q_of):
        """Rotation of B relative to A about the axis since the initial configuration [rad]."""
        P = self.a.body.rotation(q_of(self.a.body)).T @ self._RB(q_of)
        Rerr = P @ self.P0.T
        d1, d2 = self.D[:, 0], self.D[:, 1]
        return float(np.arctan2(d2 @ Rerr @ d1, d1 @ Rerr @ d1))


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

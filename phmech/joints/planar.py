"""Planar joints: revolute, weld, slider and the angular-velocity driver.

Every row block is ``sign * P R(theta) Y`` (inertial components of a port
velocity, ``P`` an optional selector) or ``sign * W`` (a port's angular
velocity).  With ``R(theta) = cos(theta) I + sin(theta) S`` the whole
constraint matrix is ``G(q) = G0 + sum_k cos(theta_k) Gc_k + sin(theta_k) Gs_k``
over the frame angles involved: :class:`PlanarGroup` evaluates it, and its
exact derivatives, with a few array operations for all planar joints at once.
"""
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from ..kernels.families import register_family
from ..kernels.jit import borrowed, jit as _jit
from ..math.jacobian_target import jac_add
from ..math.rotations import S2
from .base import Joint, as_function, as_port, finite_vector, require_rotation
from .constraint_kernels import add_G_jacobian, add_G_terms


@dataclass
class Block:
    """One contribution ``sign * P R(theta) Y`` (or ``sign * W``) to a joint's rows."""

    rows: slice        # joint-local rows
    port: object       # Port
    rotational: bool   # True: uses the angular-velocity row W
    sign: float = 1.0
    P: np.ndarray = None  # selector applied after the rotation (rows x 2)


class PlanarGroup:
    """All planar joints of a system: ``G(q)`` from its cos/sin decomposition."""

    def __init__(self, joints, layout):
        nl, ne = layout.nl, layout.ne
        terms = []
        for j in joints:
            base = layout.lam_slices[j.name].start
            for blk in j.blocks:
                body, port = blk.port.body, blk.port
                A = port.Wc if blk.rotational else port.Yc
                cols = layout.e_slices[body.name].start + port.cols
                angle = None
                if not blk.rotational and body.rotation_kind is not None:
                    angle = layout.q_slices[body.name].start + body.rotation_index
                rows = np.arange(base + blk.rows.start, base + blk.rows.stop)
                terms.append((rows, cols, A, angle, blk.P, blk.sign))
        angles = sorted({t[3] for t in terms if t[3] is not None})
        self.angles = np.array(angles, dtype=int)
        na = len(angles)
        k_of = {a: k for k, a in enumerate(angles)}
        # entries of G as triplets: value at rest, and the cos and sin parts of their angle
        R, C, V0, VC, VS, K = [], [], [], [], [], []
        for rows, cols, A, angle, P, sign in terms:
            Pm = np.eye(2) if P is None else P
            rr, cc = np.repeat(rows, len(cols)), np.tile(cols, len(rows))
            R.append(rr)
            C.append(cc)
            if angle is None:
                V0.append(sign * (A if P is None else P @ A).ravel())
                VC.append(np.zeros(rr.size))
                VS.append(np.zeros(rr.size))
                K.append(np.full(rr.size, -1))
            else:
                V0.append(np.zeros(rr.size))
                VC.append(sign * (Pm @ A).ravel())
                VS.append(sign * (Pm @ S2 @ A).ravel())
                K.append(np.full(rr.size, k_of[angle]))
        cat = (lambda xs, dt=float: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt))
        R, C, V0, VC, VS, K = cat(R, int), cat(C, int), cat(V0), cat(VC), cat(VS), cat(K, int)
        keep = (V0 != 0) | (VC != 0) | (VS != 0)
        R, C, V0, VC, VS, K = R[keep], C[keep], V0[keep], VC[keep], VS[keep], K[keep]
        # the pattern of G (row-major), its values at rest on it (duplicates summed), and the angle
        # terms: entry m gains c cos(theta) + s sin(theta) of the angle at q index a
        key = R * ne + C
        pattern, where = np.unique(key, return_inverse=True)
        self._r, self._c = pattern // ne, pattern % ne
        nnz = pattern.size
        self._v0 = np.bincount(where, V0, minlength=nnz)
        on = K >= 0
        term, inv = np.unique(where[on] * max(na, 1) + K[on], return_inverse=True)
        m_of, k_of_term = term // max(na, 1), term % max(na, 1)
        self._cs = np.vstack([np.bincount(inv, VC[on], minlength=term.size),
                              np.bincount(inv, VS[on], minlength=term.size)]).astype(float)
        self._mq = np.vstack([m_of, self.angles[k_of_term]]).astype(np.int64)
        self._shape = (nl, ne)

    #: the kernel family of the planar joints (:data:`PlanarJointsData`)
    kernel_slot = "planar_joints"

    def kernel_data(self):
        """:data:`PlanarJointsData` on the pattern of ``G`` (:func:`planar_G_values`)."""
        return PlanarJointsData(self._r.astype(np.int64), self._c.astype(np.int64), self._v0.astype(float),
                                np.ascontiguousarray(self._cs, float), np.ascontiguousarray(self._mq, np.int64))

    def add_G(self, q, G):
        r, c, v = self.G_triplets(q)
        np.add.at(G, (r, c), v)

    def G_triplets(self, q):
        """``G(q)`` as triplets ``(rows, cols, values)``."""
        return self._r, self._c, planar_G_values(np.asarray(q, float), self._v0, self._cs, self._mq)

    def jacobian_triplets(self, q, e, lam):
        """``d(G^T lam)/dq`` (rows in ``e``) and ``d(G e)/dq`` (rows in ``lam``) as triplets."""
        dv = np.empty(self._mq.shape[1])
        planar_G_derivatives(np.asarray(q, float), self._cs, self._mq, dv)
        m, a = self._mq
        r, c = self._r[m], self._c[m]
        return (c, a, dv * lam[r]), (r, a, dv * e[c])          # duplicates are summed by the caller


@_jit
def planar_G_values(q, v0, cs, mq):
    """The values of the planar joints' ``G`` on its pattern: ``v0[m]`` plus
    ``c_t cos(theta_t) + s_t sin(theta_t)`` of every angle term ``t`` of entry ``m = mq[0, t]``,
    ``theta_t = q[mq[1, t]]`` (``cs = (c, s)``, the body-frame port rows rotated by the angle)."""
    G = v0.copy()
    for t in range(mq.shape[1]):
        th = q[mq[1, t]]
        G[mq[0, t]] += cs[0, t] * np.cos(th) + cs[1, t] * np.sin(th)
    return G


@_jit
def planar_G_derivatives(q, cs, mq, dv):
    """``dv[t]``: the derivative of angle term ``t`` of :func:`planar_G_values` by its angle."""
    for t in range(mq.shape[1]):
        th = q[mq[1, t]]
        dv[t] = -cs[0, t] * np.sin(th) + cs[1, t] * np.cos(th)


#: the planar joints' family data: rows ``r``, columns ``c`` and values at rest ``v0`` of ``G``'s
#: pattern, ``(c, s)`` of the angle terms ``cs`` and their ``(entry, angle index)`` ``mq``
PlanarJointsData = namedtuple("PlanarJointsData", "r c v0 cs mq")


def _pack_planar(groups, dae):
    """The data of the model's planar joint group (there is at most one), or empty."""
    if groups:
        return groups[0].kernel_data()
    i0 = np.zeros(0, np.int64)
    return PlanarJointsData(i0, i0, np.zeros(0), np.zeros((2, 0)), np.zeros((2, 0), np.int64))


@_jit
def has_planar_joints(data):
    """Whether the model has planar joints."""
    return data.r.size > 0


@_jit
def planar_joints_residual_add(t, q, e, lam, data, out, fe, fl):
    """``fe += G(q)^T lam`` and ``fl -= G(q) e`` of the planar joints."""
    add_G_terms(data.r, data.c, planar_G_values(q, data.v0, data.cs, data.mq), e, lam, fe, fl)


@_jit
def planar_joints_jacobian_add(t, q, e, lam, data, act, J, nq):
    """The exact derivatives of :func:`planar_joints_residual_add` by ``lam``, ``e`` and the angles,
    added to the Jacobian target ``J`` (the rows of the inactive constraints, ``act`` false, left)."""
    J = borrowed(J)              # no reference counts of the target's arrays in the writes
    r, c, mq = data.r, data.c, data.mq
    cl = nq + e.size
    add_G_jacobian(nq, cl, r, c, planar_G_values(q, data.v0, data.cs, mq), act, J)
    dG = np.empty(mq.shape[1])
    planar_G_derivatives(q, data.cs, mq, dG)
    for t in range(dG.size):
        m, a = mq[0, t], mq[1, t]
        jac_add(J, nq + c[m], a, dG[t] * lam[r[m]])
        if act[r[m]]:
            jac_add(J, cl + r[m], a, -dG[t] * e[c[m]])


register_family("planar_joints", PlanarJointsData, pack=_pack_planar, has=has_planar_joints,
                residual_add=planar_joints_residual_add, jacobian_add=planar_joints_jacobian_add)


def _require_planar(port, joint):
    if port is not None and port.dim != 2:
        raise ValueError(f"joint '{joint}': port '{port.label}' belongs to a spatial body; "
                         "use the spatial joints of phmech.joints.spatial")


class PlanarJoint(Joint):
    """Base of the planar joints: rows are lists of :class:`Block`."""

    Group = PlanarGroup

    def __init__(self, name, ports):
        super().__init__(name)
        for p in ports:
            _require_planar(p, name)
        self.blocks = []

    def ports(self):
        out = []
        for b in self.blocks:
            if all(b.port is not p for p in out):
                out.append(b.port)
        return out


class Revolute(PlanarJoint):
    """Pin joint: the inertial velocities of two ports are equal (2 rows).

    With ``b=None`` the port ``a`` is pinned to the ground (at its initial
    position, or at ``at``), optionally moving with a prescribed inertial
    velocity ``velocity(t)``.
    """

    kind = "revolute"
    n_rows = 2

    def __init__(self, a, b=None, name=None, at=None, velocity=None):
        a = as_port(a, name)
        b = as_port(b, name)
        name = name or f"{self.kind}({a.label}, {b.label if b else 'ground'})"
        super().__init__(name, [a, b])
        if a is b:
            raise ValueError(f"joint '{name}': both ends are the same port '{a.label}'")
        self.a, self.b = a, b
        self.at = None if at is None else finite_vector_or_zero(at, 2, "at", name)
        self.blocks = [Block(slice(0, 2), a, False, 1.0)]
        if b is not None:
            self.blocks.append(Block(slice(0, 2), b, False, -1.0))
        if velocity is not None:
            if b is not None:
                raise ValueError(f"joint '{name}': a prescribed velocity needs b=None (ground)")
            self._w = as_function(velocity, 2, "velocity", name)
        self._velocity_given = velocity is not None

    def bind(self, q_of):
        if self.b is None and self.at is None and not self._velocity_given:
            self.at = self.a.body.port_position(q_of(self.a.body), self.a)

    def _translation_residual(self, q_of):
        ra = self.a.body.port_position(q_of(self.a.body), self.a)
        if self.b is not None:
            return ra - self.b.body.port_position(q_of(self.b.body), self.b)
        if self.at is not None and not self._velocity_given:
            return ra - self.at
        return np.zeros(2)

    def position_residual(self, q_of, t):
        return self._translation_residual(q_of)


def finite_vector_or_zero(value, n, what, joint):
    v = np.asarray(value, dtype=float)
    if v.shape != (n,) or not np.all(np.isfinite(v)):
        raise ValueError(f"joint '{joint}': {what} must be {n} finite numbers, got {value!r}")
    return v


def _angle(port, q_of):
    """The angle of ``port``: its body's ``port_angle`` where the material turns at the port
    (a geometrically exact beam's director), else the frame angle."""
    body = port.body
    if hasattr(body, "port_angle"):
        return float(body.port_angle(q_of(body), port))
    return 0.0 if body.rotation_kind is None else float(q_of(body)[body.rotation_index])


def _wrapped(angle):
    """``angle`` in ``(-pi, pi]``."""
    return float(-(np.remainder(-angle + np.pi, 2.0 * np.pi) - np.pi))


class Weld(Revolute):
    """Rigid connection (clamp): equal velocities and equal angular velocities (3 rows)."""

    kind = "weld"
    n_rows = 3

    def __init__(self, a, b=None, name=None, at=None):
        super().__init__(a, b, name=name, at=at)
        self._w = as_function(None, 3, "velocity", self.name)
        require_rotation(self.a, self.name)
        require_rotation(self.b, self.name)
        self.blocks.append(Block(slice(2, 3), self.a, True, 1.0))
        if self.b is not None:
            self.blocks.append(Block(slice(2, 3), self.b, True, -1.0))
        self.relative_angle = None
        self._wraps = any(p is not None and hasattr(p.body, "port_angle") for p in (self.a, self.b))

    def bind(self, q_of):
        super().bind(q_of)
        rel = _angle(self.a, q_of) - (_angle(self.b, q_of) if self.b is not None else 0.0)
        self.relative_angle = rel

    def position_residual(self, q_of, t):
        rel = _angle(self.a, q_of) - (_angle(self.b, q_of) if self.b is not None else 0.0)
        rel -= self.relative_angle
        if self._wraps:         # an angle of a director is known modulo a full turn
            rel = _wrapped(rel)
        return np.r_[self._translation_residual(q_of), rel]


class Slider(PlanarJoint):
    """Prismatic guide: the port's velocity normal to a fixed line is zero (1 row).

    Parameters
    ----------
    a : Port or body
    direction : (float, float)
        Inertial direction of the guide.
    through : (float, float), optional
        A point of the guide; default: the port's initial position.
    """

    kind = "slider"
    n_rows = 1

    def __init__(self, a, direction=(1.0, 0.0), through=None, name=None):
        a = as_port(a, name)
        name = name or f"slider({a.label})"
        super().__init__(name, [a])
        d = finite_vector(direction, 2, "direction", name)
        self.a = a
        self.normal = S2 @ (d / np.linalg.norm(d))
        self.through = None if through is None else finite_vector_or_zero(through, 2, "through", name)
        self.blocks = [Block(slice(0, 1), a, False, 1.0, self.normal[None, :])]

    def bind(self, q_of):
        if self.through is None:
            self.through = self.a.body.port_position(q_of(self.a.body), self.a)

    def position_residual(self, q_of, t):
        ra = self.a.body.port_position(q_of(self.a.body), self.a)
        return np.array([self.normal @ (ra - self.through)])


class AngularVelocity(PlanarJoint):
    """Prescribed absolute angular velocity ``W e = omega(t)`` at a port (1 row); a driver.

    ``omega`` is a constant or a function of time; ``omega_rate(t)``, its
    derivative, may be given for exact consistent initial multipliers.
    """

    kind = "angular_velocity"
    n_rows = 1

    def __init__(self, a, omega, name=None, omega_rate=None):
        a = as_port(a, name)
        name = name or f"drive({a.label})"
        super().__init__(name, [a])
        require_rotation(a, name)
        self.a = a
        self._w = as_function(omega, 1, "omega", name)
        if omega_rate is not None:
            self._dw = as_function(omega_rate, 1, "omega_rate", name)
        self.blocks = [Block(slice(0, 1), a, True, 1.0)]

    def position_residual(self, q_of, t):
        return np.zeros(1)

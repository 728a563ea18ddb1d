"""Rotation parametrizations with exact derivatives.

A body's orientation is a property of its configuration ``q``: a planar
angle ``theta`` or a spatial quaternion ``p = (p0, p1, p2, p3)`` (Euler
parameters, scalar first).  Each parametrization gives the rotation matrix
``R`` (body-frame to inertial components), its exact derivatives with
respect to the parameters, and the kinematic map from the body-frame
angular velocity to the parameter rates with its derivative.

Quaternion normalization.  The rotation is evaluated as
``R(p) = Q(p) / |p|^2`` with the quadratic form ``Q`` of the unit-quaternion
formula, which is an exact rotation for *every* ``p != 0``.  The kinematic
equation ``p' = Omega(omega) p`` has a skew ``Omega``, so ``|p|`` is a
quadratic invariant of the exact flow (kept to round-off by the implicit
midpoint rule, slowly drifting with other integrators); since nothing in the
model depends on ``|p|`` (rotations, joint rows, loads and energy all use
``R(p)``), a drift of the norm never shows in the motion and no projection
step is needed.  Outputs and initial values are normalized.

The quadratic form, its gradient, ``(R, dR/dp)`` and the quaternion rate
``p' = 1/2 p (x) (0, omega)`` with its exact Jacobians are compiled kernels
(:func:`quadratic_into`, :func:`quadratic_halfgrad_into`, :func:`quat_rotation`,
:func:`quat_rate_into`, :func:`quat_rate_jacobian_into`): the one
implementation used by the bodies, the frame kinematics, the joints, the
loads and the compiled residual.

A third kind, :class:`RotationMatrix`, is the rotation stored as its nine
entries (the columns ``d_1, d_2, d_3`` one after the other): the sections of the
geometrically exact spatial beam, whose kinematics keep them rotations.  It has
no rate of its own here (the beam's kernel integrates it); joints and loads at
such a section read ``R`` and its derivatives (the unit matrices) through
:func:`frame_rotation`, by the codes :data:`ROTATION_CODES`.
"""
import numpy as np

from ..kernels.jit import jit as _jit


def skew(a):
    """Cross-product matrix: ``skew(a) @ b == a x b``."""
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


#: skew matrices of the unit vectors
E3 = [skew(np.eye(3)[i]) for i in range(3)]
#: the planar cross-product matrix: ``S2 @ v`` is ``e_z x v``
S2 = np.array([[0.0, -1.0], [1.0, 0.0]])


def rot2(theta):
    """Planar rotation matrix ``R(theta)``."""
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


@_jit
def quadratic_into(pw, px, py, pz, Q):
    """``Q(p)`` with ``R(p) = Q(p) / |p|^2`` (the unit-quaternion formula, exact for any norm)
    written into ``Q`` (3, 3)."""
    Q[0, 0], Q[0, 1], Q[0, 2] = pw * pw + px * px - py * py - pz * pz, 2 * (px * py - pw * pz), 2 * (px * pz + pw * py)
    Q[1, 0], Q[1, 1], Q[1, 2] = 2 * (px * py + pw * pz), pw * pw - px * px + py * py - pz * pz, 2 * (py * pz - pw * px)
    Q[2, 0], Q[2, 1], Q[2, 2] = 2 * (px * pz - pw * py), 2 * (py * pz + pw * px), pw * pw - px * px - py * py + pz * pz


@_jit
def quadratic(pw, px, py, pz):
    """``Q(p)`` of :func:`quadratic_into` as a new array."""
    Q = np.empty((3, 3))
    quadratic_into(pw, px, py, pz, Q)
    return Q


@_jit
def quadratic_halfgrad_into(pw, px, py, pz, dQ):
    """``dQ[m] = (1/2) dQ(p)/dp_m`` of :func:`quadratic_into` (``m`` over ``w, x, y, z``; linear
    in ``p``) written into ``dQ`` (4, 3, 3)."""
    dQ[0, 0, 0], dQ[0, 0, 1], dQ[0, 0, 2] = pw, -pz, py
    dQ[0, 1, 0], dQ[0, 1, 1], dQ[0, 1, 2] = pz, pw, -px
    dQ[0, 2, 0], dQ[0, 2, 1], dQ[0, 2, 2] = -py, px, pw
    dQ[1, 0, 0], dQ[1, 0, 1], dQ[1, 0, 2] = px, py, pz
    dQ[1, 1, 0], dQ[1, 1, 1], dQ[1, 1, 2] = py, -px, -pw
    dQ[1, 2, 0], dQ[1, 2, 1], dQ[1, 2, 2] = pz, pw, -px
    dQ[2, 0, 0], dQ[2, 0, 1], dQ[2, 0, 2] = -py, px, pw
    dQ[2, 1, 0], dQ[2, 1, 1], dQ[2, 1, 2] = px, py, pz
    dQ[2, 2, 0], dQ[2, 2, 1], dQ[2, 2, 2] = -pw, pz, -py
    dQ[3, 0, 0], dQ[3, 0, 1], dQ[3, 0, 2] = -pz, -pw, px
    dQ[3, 1, 0], dQ[3, 1, 1], dQ[3, 1, 2] = pw, -pz, py
    dQ[3, 2, 0], dQ[3, 2, 1], dQ[3, 2, 2] = px, py, pz


@_jit
def quat_rotation(q, o, R, dR, deriv):
    """``R = R(p)`` of the quaternion ``p = q[o:o + 4]`` written into ``R`` (3, 3) and, with
    ``deriv``, ``dR[m] = dR/dp_m = (dQ_m - 2 p_m R) / |p|^2`` into ``dR`` (4, 3, 3)."""
    pw, px, py, pz = q[o], q[o + 1], q[o + 2], q[o + 3]
    n2 = pw * pw + px * px + py * py + pz * pz
    quadratic_into(pw, px, py, pz, R)
    for a in range(3):
        for b in range(3):
            R[a, b] /= n2
    if deriv:
        quadratic_halfgrad_into(pw, px, py, pz, dR)
        for m in range(4):
            pm = q[o + m]
            for a in range(3):
                for b in range(3):
                    dR[m, a, b] = 2.0 * (dR[m, a, b] - pm * R[a, b]) / n2


@_jit
def quat_rate_into(pw, px, py, pz, wx, wy, wz, out, o):
    """``out[o:o + 4] = p' = 1/2 p (x) (0, omega) = Omega(omega) p`` (``omega`` in body components)."""
    out[o] = -0.5 * (wx * px + wy * py + wz * pz)
    out[o + 1] = 0.5 * (pw * wx + py * wz - pz * wy)
    out[o + 2] = 0.5 * (pw * wy + pz * wx - px * wz)
    out[o + 3] = 0.5 * (pw * wz + px * wy - py * wx)


@_jit
def quat_rate_jacobian_into(pw, px, py, pz, wx, wy, wz, Tp, Tw):
    """Exact Jacobians of :func:`quat_rate_into`: ``Tp = dp'/dp = Omega(omega)`` (4, 4, skew) and
    ``Tw = dp'/d omega = 1/2 [-p_v^T; p0 I + skew(p_v)]`` (4, 3), written into the arrays."""
    Tp[0, 0], Tp[0, 1], Tp[0, 2], Tp[0, 3] = 0.0, -0.5 * wx, -0.5 * wy, -0.5 * wz
    Tp[1, 0], Tp[1, 1], Tp[1, 2], Tp[1, 3] = 0.5 * wx, 0.0, 0.5 * wz, -0.5 * wy
    Tp[2, 0], Tp[2, 1], Tp[2, 2], Tp[2, 3] = 0.5 * wy, -0.5 * wz, 0.0, 0.5 * wx
    Tp[3, 0], Tp[3, 1], Tp[3, 2], Tp[3, 3] = 0.5 * wz, 0.5 * wy, -0.5 * wx, 0.0
    Tw[0, 0], Tw[0, 1], Tw[0, 2] = -0.5 * px, -0.5 * py, -0.5 * pz
    Tw[1, 0], Tw[1, 1], Tw[1, 2] = 0.5 * pw, -0.5 * pz, 0.5 * py
    Tw[2, 0], Tw[2, 1], Tw[2, 2] = 0.5 * pz, 0.5 * pw, -0.5 * px
    Tw[3, 0], Tw[3, 1], Tw[3, 2] = -0.5 * py, 0.5 * px, 0.5 * pw


def rot3(p):
    """Rotation matrix of the quaternion ``p`` (any non-zero norm): ``Q(p) / |p|^2``."""
    p = np.asarray(p, float)
    return quadratic(p[0], p[1], p[2], p[3]) / (p @ p)


def quat_multiply(a, b):
    """Quaternion product ``a (x) b`` (scalar first)."""
    a0, av = a[0], np.asarray(a[1:])
    b0, bv = b[0], np.asarray(b[1:])
    return np.r_[a0 * b0 - av @ bv, a0 * bv + b0 * av + np.cross(av, bv)]


def quat_from_axis_angle(axis, angle):
    """Unit quaternion of the rotation by ``angle`` about ``axis``."""
    axis = np.asarray(axis, float)
    n = np.linalg.norm(axis)
    if not np.isfinite(n) or n == 0:
        raise ValueError(f"quat_from_axis_angle: axis must be a finite non-zero vector, got {axis!r}")
    return np.r_[np.cos(angle / 2), np.sin(angle / 2) * axis / n]


def quat_from_matrix(R):
    """A unit quaternion of the rotation matrix ``R`` (Shepperd's branch choice)."""
    R = np.asarray(R, float)
    tr = np.trace(R)
    k = int(np.argmax([tr, R[0, 0], R[1, 1], R[2, 2]]))
    if k == 0:
        w = 0.5 * np.sqrt(1 + tr)
        p = np.array([w, (R[2, 1] - R[1, 2]) / (4 * w), (R[0, 2] - R[2, 0]) / (4 * w),
                      (R[1, 0] - R[0, 1]) / (4 * w)])
    else:
        i = k - 1
        j, l = (i + 1) % 3, (i + 2) % 3
        v = np.zeros(3)
        v[i] = 0.5 * np.sqrt(1 + 2 * R[i, i] - tr)
        v[j] = (R[j, i] + R[i, j]) / (4 * v[i])
        v[l] = (R[l, i] + R[i, l]) / (4 * v[i])
        p = np.r_[(R[l, j] - R[j, l]) / (4 * v[i]), v]
    return p / np.linalg.norm(p)


@_jit
def frame_rotation(q, code, o, R, dR, deriv):
    """``R`` (3, 3) of the spatial rotation of kind ``code`` (:data:`ROTATION_CODES`: 2 the
    quaternion ``q[o:o + 4]``, 3 the matrix of columns ``q[o:o + 9]``, 0 none: the identity) and,
    with ``deriv``, ``dR[m] = dR/dq[o + m]`` for its :data:`N_ROTATION` parameters into ``dR``
    (at least (9, 3, 3))."""
    if code == 2:
        quat_rotation(q, o, R, dR, deriv)
        return
    for a in range(3):
        for b in range(3):
            R[a, b] = (q[o + 3 * b + a] if code == 3 else (1.0 if a == b else 0.0))
    if deriv and code == 3:
        for m in range(9):
            for a in range(3):
                for b in range(3):
                    dR[m, a, b] = 0.0
            dR[m, m % 3, m // 3] = 1.0


class PlanarAngle:
    """Planar orientation ``theta``: one parameter, ``theta' = omega``."""

    dim = 2
    n_params = 1

    @staticmethod
    def matrix(p):
        return rot2(p[0])

    @staticmethod
    def derivatives(p):
        """``dR/dtheta``, shape (1, 2, 2)."""
        c, s = np.cos(p[0]), np.sin(p[0])
        return np.array([[[-s, -c], [c, -s]]])

    @staticmethod
    def rate(p, omega):
        """Parameter rate ``theta' = omega`` for the (scalar) angular velocity."""
        return np.array([omega[0]])

    @staticmethod
    def rate_jacobians(p, omega):
        """``(d rate/dp, d rate/d omega)``."""
        return np.zeros((1, 1)), np.ones((1, 1))

    @staticmethod
    def retract(p, dphi):
        """Configuration after a small rotation ``dphi`` (body frame)."""
        return p + dphi[:1]


class UnitQuaternion:
    """Spatial orientation by a quaternion ``p``; ``p' = 1/2 p (x) (0, omega)``."""

    dim = 3
    n_params = 4

    @staticmethod
    def matrix(p):
        return rot3(p)

    @staticmethod
    def derivatives(p):
        """``dR/dp_k``, shape (4, 3, 3), of ``R = Q(p) / |p|^2``."""
        R, dR = np.empty((3, 3)), np.empty((4, 3, 3))
        quat_rotation(np.asarray(p, float), 0, R, dR, True)
        return dR

    @staticmethod
    def omega_matrix(omega):
        """``Omega(omega)`` with ``p' = Omega p`` (skew, 4 x 4)."""
        return UnitQuaternion.rate_jacobians(np.zeros(4), omega)[0]

    @staticmethod
    def rate(p, omega):
        """Parameter rate ``p' = 1/2 p (x) (0, omega)`` (:func:`quat_rate_into`)."""
        out = np.empty(4)
        quat_rate_into(*(float(x) for x in p), *(float(x) for x in omega), out, 0)
        return out

    @staticmethod
    def rate_jacobians(p, omega):
        """``(d p'/dp, d p'/d omega)``: ``Omega(omega)`` and ``1/2 [[-p_v^T], [p0 I + skew(p_v)]]``
        (:func:`quat_rate_jacobian_into`)."""
        Tp, Tw = np.empty((4, 4)), np.empty((4, 3))
        quat_rate_jacobian_into(*(float(x) for x in p), *(float(x) for x in omega), Tp, Tw)
        return Tp, Tw

    @staticmethod
    def retract(p, dphi):
        """``p (x) exp(dphi / 2)``, normalized."""
        a = np.linalg.norm(dphi)
        dq = np.r_[1.0, 0.0, 0.0, 0.0] if a == 0 else np.r_[np.cos(a / 2), np.sin(a / 2) * dphi / a]
        out = quat_multiply(p, dq)
        return out / np.linalg.norm(out)


class RotationMatrix:
    """A spatial rotation stored as its nine entries, the columns ``d_1, d_2, d_3`` one after the
    other (a section of :class:`~phmech.fem.beam_exact3d.GeometricallyExactBeam3D`): ``R`` is
    linear in the parameters, its derivatives the unit matrices."""

    dim = 3
    n_params = 9

    @staticmethod
    def matrix(p):
        return np.asarray(p, float).reshape(3, 3).T

    @staticmethod
    def derivatives(p):
        """``dR/dp_k``, shape (9, 3, 3): ``p_k`` is the entry ``(k % 3, k // 3)``."""
        dR = np.zeros((9, 3, 3))
        for k in range(9):
            dR[k, k % 3, k // 3] = 1.0
        return dR


#: the codes of the rotation kinds in the kernels: none, planar angle, quaternion, matrix
ROTATION_CODES = {None: 0, PlanarAngle: 1, UnitQuaternion: 2, RotationMatrix: 3}
#: the number of rotation parameters per code
N_ROTATION = (0, 1, 4, 9)

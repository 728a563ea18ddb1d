"""Spatial (3D) floating-frame bodies.

The configuration is ``q = (x, y, z, p0, p1, p2, p3)``: position of the frame
origin and a unit quaternion (Euler parameters, scalar first), which is free
of singularities.  The efforts start with ``(v_P, omega)`` in body-frame
components; the kinematic equations are

    r' = R(p) v_P,      p' = 1/2 p (x) (0, omega),

and the rotating-frame Newton law gives ``J(e) = J0 - sum_i omega_i K_i``
with three constant skew matrices ``K_i = int rho N^T S(e_i) N``, so
``e^T J(e) e = 0`` and the energy is conserved.  The quaternion's norm is a
quadratic invariant of its kinematic equation, kept exactly by the
implicit midpoint rule; :func:`rot3` normalizes anyway.
"""
import numpy as np
import scipy.sparse as sp

from .subsystem import Subsystem


def skew(a):
    """Cross-product matrix: ``skew(a) @ b == a x b``."""
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


E3 = [skew(np.eye(3)[i]) for i in range(3)]


def rot3(p):
    """Rotation matrix of the quaternion ``p`` (normalized first)."""
    p = np.asarray(p, float) / np.linalg.norm(p)
    w, x, y, z = p
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def quat_from_axis_angle(axis, angle):
    axis = np.asarray(axis, float)
    axis = axis / np.linalg.norm(axis)
    return np.r_[np.cos(angle / 2), np.sin(angle / 2) * axis]


def _omega_matrix(w):
    """``p' = Omega(w) p`` for body-frame angular velocity ``w``."""
    wx, wy, wz = w
    return 0.5 * np.array([[0, -wx, -wy, -wz], [wx, 0, wz, -wy], [wy, -wz, 0, wx], [wz, wy, -wx, 0]])


class SpatialFrameBody(Subsystem):
    """Base class of spatial bodies with a floating frame (see module docs)."""

    angle_index = None
    omega_index = None

    def __init__(self, name, position=(0.0, 0.0, 0.0), orientation=(1.0, 0.0, 0.0, 0.0)):
        super().__init__(name)
        self.q_labels = ["x", "y", "z", "p0", "p1", "p2", "p3"]
        p = np.asarray(orientation, float)
        if p.shape != (4,) or not np.isfinite(p).all() or np.linalg.norm(p) == 0:
            raise ValueError(f"body '{name}': orientation must be a non-zero quaternion, got {orientation!r}")
        self.q0 = np.r_[np.asarray(position, float), p / np.linalg.norm(p)]
        self.K_list = None

    @property
    def frame_dofs(self):
        return np.arange(6)

    def gyro_terms(self):
        return [(3 + i, K) for i, K in enumerate(self.K_list)]

    def rotation3(self, q):
        return rot3(q[3:7])

    def rotation(self, q):
        raise TypeError(f"body '{self.name}' is spatial: use rotation3")

    def qdot(self, q, e):
        return np.r_[rot3(q[3:7]) @ e[:3], _omega_matrix(e[3:6]) @ q[3:7]]

    def qdot_jacobians(self, q, e):
        Tq = np.zeros((7, 7))
        f0 = self.qdot(q, e)
        for i in range(3, 7):
            h = 1e-7
            qp = q.copy()
            qp[i] += h
            Tq[:, i] = (self.qdot(qp, e) - f0) / h
        Te = np.zeros((7, self.n_e))
        Te[:3, :3] = rot3(q[3:7])
        p = q[3:7]
        Te[3:7, 3:6] = 0.5 * np.array([[-p[1], -p[2], -p[3]], [p[0], -p[3], p[2]],
                                       [p[3], p[0], -p[1]], [-p[2], p[1], p[0]]])
        return Tq, Te

    def port_position(self, q, port):
        return q[:3] + rot3(q[3:7]) @ port.position

    def angular_momentum(self, q, e, about=None):
        """Inertial angular momentum about the frame origin (the ``omega`` rows of ``M e``)."""
        return rot3(q[3:7]) @ (self.M @ e)[3:6]

    def _add_port3(self, name, Y, W, position):
        from .subsystem import Port
        Y = np.asarray(Y, float).reshape(3, self.n_e)
        W = np.asarray(W, float).reshape(3, self.n_e)
        self.ports[name] = Port(self, name, Y, W, np.asarray(position, float))
        return self.ports[name]


class SpatialRigidBody(SpatialFrameBody):
    """A spatial rigid body: mass, inertia tensor about the centre of mass, centre ``c``.

    Ports: ``"P"`` (the origin) and any named body-frame points.
    """

    def __init__(self, name, mass, inertia, center=(0.0, 0.0, 0.0), ports=None,
                 position=(0.0, 0.0, 0.0), orientation=(1.0, 0.0, 0.0, 0.0)):
        super().__init__(name, position, orientation)
        m = float(mass)
        if not np.isfinite(m) or m <= 0:
            raise ValueError(f"body '{name}': mass must be positive, got {mass!r}")
        Ic = np.asarray(inertia, float)
        if Ic.shape != (3, 3) or not np.allclose(Ic, Ic.T) or np.linalg.eigvalsh(Ic).min() < 0:
            raise ValueError(f"body '{name}': inertia must be a symmetric positive semi-definite 3x3 matrix")
        c = np.asarray(center, float)
        # second moments int r r^T dm about the origin
        Theta = 0.5 * np.trace(Ic) * np.eye(3) - Ic + m * np.outer(c, c)
        Jp = np.trace(Theta) * np.eye(3) - Theta
        Sc = skew(c)
        self.M = sp.csr_matrix(np.block([[m * np.eye(3), -m * Sc], [m * Sc, Jp]]))
        self.J0 = sp.csr_matrix((6, 6))
        # K_i = int N^T S_i N dm, N = [I, -S(r)]
        Ks = []
        for Si in E3:
            quad = sum(Theta[a, b] * E3[a] @ Si @ E3[b] for a in range(3) for b in range(3))
            Ks.append(sp.csr_matrix(np.block([[m * Si, -m * Si @ Sc], [m * Sc @ Si, -quad]])))
        self.K_list = Ks
        self.mass = m
        self.e_labels = ["vx", "vy", "vz", "wx", "wy", "wz"]
        for pname, r in {"P": (0.0, 0.0, 0.0), **(ports or {})}.items():
            r = np.asarray(r, float)
            self._add_port3(pname, np.hstack([np.eye(3), -skew(r)]), np.hstack([np.zeros((3, 3)), np.eye(3)]), r)

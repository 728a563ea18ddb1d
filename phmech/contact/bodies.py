"""Rigid bodies with inertial translational velocities, for impact problems.

The rigid bodies of :mod:`phmech.bodies.rigid` use body-frame velocities
(floating frame).  A velocity jump of a spinning body then changes the
body-frame velocity and the angular velocity in the same step, and any
one-step scheme that evaluates the frame rotation at one time of the step
makes an error of ``h |Delta omega| |Delta v| / 4`` in the inertial
post-impact velocity (the rotating bouncing ball, case 3, at ``h = 2e-3``:
3 % of the rolling speed).  With the velocity of the centre of mass in
inertial components and the angular velocity in body components the
kinetic equation of the translation is ``m v' = F`` (no gyroscopic
coupling), and Newton's impact law is reproduced exactly where the
forces are constant (Capobianco et al., IJNME 122 (2021), Sect. 6.1;
Leine & Glocker 2003, Sect. 6, for the tippe top).

Ports: the centre of mass ``"C"`` and named points; their inertial velocity
rows are ``v + omega x R r`` (:meth:`port_kinematics`, used by the contacts).
"""
import numpy as np
import scipy.sparse as sp

from ..bodies.base import Body
from ..bodies.rigid import positive
from ..math.rotations import UnitQuaternion, rot2, skew


class Disc(Body):
    """Planar rigid body, origin at the centre of mass: ``q = (x, y, theta)``, ``e = (v_x, v_y, omega)``
    (inertial), ``M = diag(m, m, I)``, ``q' = e``.

    Parameters
    ----------
    name : str
    mass, inertia : float
        Mass and moment of inertia about the centre of mass.
    radius : float, optional
        Kept for reference (contacts take their own radius).
    position, angle : initial configuration.
    """

    def __init__(self, name, mass, inertia, position=(0.0, 0.0), angle=0.0, ports=None):
        super().__init__(name)
        owner = f"body '{name}'"
        self.mass = positive(mass, "mass", owner)
        self.inertia = positive(inertia, "inertia", owner)
        self.center = np.zeros(2)
        self.q_labels = ["x", "y", "theta"]
        self.e_labels = ["vx", "vy", "omega"]
        self.q0 = np.r_[np.asarray(position, float), float(angle)]
        self.M = sp.csr_matrix(np.diag([self.mass, self.mass, self.inertia]))
        self.J0 = sp.csr_matrix((3, 3))
        for pname, r in {"C": (0.0, 0.0), **(ports or {})}.items():
            self.add_port(pname, np.eye(2, 3), [[0.0, 0.0, 1.0]], r)

    def rotation(self, q):
        return rot2(q[2])

    def qdot(self, q, e):
        return np.array(e, float)

    def qdot_jacobians(self, q, e):
        return np.zeros((3, 3)), np.eye(3)

    def port_kinematics(self, q, port):
        """``(x, A_v, A_w)``: position, inertial velocity rows ``v + omega x R r`` and angular rows."""
        R = rot2(q[2])
        d = R @ port.position
        Av = np.array([[1.0, 0.0, -d[1]], [0.0, 1.0, d[0]]])
        return q[:2] + d, Av, np.array([[0.0, 0.0, 1.0]])


class Top(Body):
    """Spatial rigid body, origin at the centre of mass: ``q = (x, p)`` (position, unit
    quaternion), ``e = (v, Omega)`` (inertial velocity of the centre, body-frame angular velocity).

    ``M = diag(m I, Theta)``; the Euler equations' gyroscopic term
    ``-Omega x Theta Omega`` (it does no work) is an effort term with its exact Jacobian.

    Parameters
    ----------
    name : str
    mass : float
    inertia : (3,) or (3, 3)
        Inertia tensor about the centre of mass, body frame.
    position, orientation : initial configuration (quaternion scalar first).
    ports : dict name -> body-frame point
    """

    dim = 3

    def __init__(self, name, mass, inertia, position=(0.0, 0.0, 0.0), orientation=(1.0, 0.0, 0.0, 0.0),
                 ports=None):
        super().__init__(name)
        owner = f"body '{name}'"
        self.mass = positive(mass, "mass", owner)
        Th = np.asarray(inertia, float)
        Th = np.diag(Th) if Th.shape == (3,) else Th
        if Th.shape != (3, 3) or not np.all(np.isfinite(Th)) or np.linalg.eigvalsh(0.5 * (Th + Th.T)).min() <= 0:
            raise ValueError(f"{owner}: inertia must be a positive definite 3x3 matrix or 3 values, got {inertia!r}")
        self.Theta = Th
        self.center = np.zeros(3)
        self.q_labels = ["x", "y", "z", "p0", "p1", "p2", "p3"]
        self.e_labels = ["vx", "vy", "vz", "Wx", "Wy", "Wz"]
        p = np.asarray(orientation, float)
        self.q0 = np.r_[np.asarray(position, float), p / np.linalg.norm(p)]
        M = np.zeros((6, 6))
        M[:3, :3] = self.mass * np.eye(3)
        M[3:, 3:] = Th
        self.M = sp.csr_matrix(M)
        self.J0 = sp.csr_matrix((6, 6))
        for pname, r in {"C": (0.0, 0.0, 0.0), **(ports or {})}.items():
            self.add_port(pname, np.eye(3, 6), np.eye(3, 6, 3), r)

    has_effort_terms = True

    def effort_terms(self, t, q, e):
        """``(-Omega x Theta Omega, None, d/de)`` on the angular rows."""
        W = np.asarray(e[3:6], float)
        L = self.Theta @ W
        f = np.zeros(6)
        f[3:] = -np.cross(W, L)
        De = np.zeros((6, 6))
        De[3:, 3:] = -skew(W) @ self.Theta + skew(L)
        return f, None, De

    def rotation(self, q):
        return UnitQuaternion.matrix(q[3:7])

    def qdot(self, q, e):
        return np.r_[e[:3], UnitQuaternion.rate(q[3:7], e[3:6])]

    def qdot_jacobians(self, q, e):
        Tq, Te = np.zeros((7, 7)), np.zeros((7, 6))
        Te[:3, :3] = np.eye(3)
        dp, dw = UnitQuaternion.rate_jacobians(q[3:7], e[3:6])
        Tq[3:, 3:] = dp
        Te[3:, 3:] = dw
        return Tq, Te

    def port_kinematics(self, q, port):
        """``(x, A_v, A_w)``: position, inertial velocity rows ``v + R (Omega x r)`` and inertial
        angular-velocity rows ``R Omega``."""
        R = self.rotation(q)
        Av = np.hstack([np.eye(3), -R @ skew(port.position)])
        Aw = np.hstack([np.zeros((3, 3)), R])
        return q[:3] + R @ port.position, Av, Aw

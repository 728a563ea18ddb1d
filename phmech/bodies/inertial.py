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

Ports: the centre of mass ``"C"`` and named points.  Their velocity rows
``Y`` are those of the centre (inertial) and ``W`` those of the angular
velocity, so the inertial velocity of a port is ``v + omega x R r``
(:attr:`port_velocity` ``= "inertial"``; the contacts'
:mod:`~phmech.contact.kernels` evaluate it).

Kinematics (:class:`InertialFrames`, one compiled kernel for all such
bodies): ``q' = e`` for the disc; ``x' = v`` and ``p' = 1/2 p (x) (0,
Omega)`` for the top, the quaternion rate being the one of
:func:`~phmech.bodies.frames.spatial_frames_qdot`.  The Euler equations'
gyroscopic term ``-Omega x Theta Omega`` of the top is the body's
gyroscopic structure ``J(e) = -sum_k Omega_k K_k`` with the constant skew
``K_k = -skew(Theta e_k)`` (``sum_k Omega_k skew(Theta e_k) Omega = (Theta
Omega) x Omega``), so the compiled residual evaluates it with its exact
Jacobian like that of every rigid body.
"""
from collections import namedtuple

import numpy as np
import scipy.sparse as sp

from ..kernels.jit import borrowed, jit as _jit
from ..kernels.families import register_family
from ..math.jacobian_target import jac_add
from ..math.rotations import PlanarAngle, UnitQuaternion, rot2, skew
from .base import Body, planar_axis
from .frames import scatter_frames_jacobian, spatial_frames_jacobian, spatial_frames_qdot
from .rigid import positive, steady_inertial, turning_point_velocity


#: the packed kinematics (:meth:`InertialFrames.kernel_data`): the discs' ``q`` and ``e`` indices,
#: the tops' offsets in ``q`` and ``e``
InertialFramesData = namedtuple("InertialFramesData", "iq ie oq oe")


@_jit
def has_inertial_frames(inf):
    """Whether the packed data ``inf`` (:meth:`InertialFrames.kernel_data`) holds a body."""
    return inf[0].size > 0 or inf[2].size > 0


@_jit
def inertial_frames_qdot(q, e, inf, out):
    """``out[iq] = e[ie]`` (discs: ``q' = e``) and, for the tops at the offsets ``oq`` in ``q`` and
    ``oe`` in ``e``, ``x' = v``, ``p' = 1/2 p (x) (0, Omega)``; ``inf = (iq, ie, oq, oe)``."""
    iq, ie, oq, oe = inf
    for k in range(iq.size):
        out[iq[k]] = e[ie[k]]
    spatial_frames_qdot(q, e, oq, oe, out)
    for k in range(oq.size):
        for a in range(3):
            out[oq[k] + a] = e[oe[k] + a]


@_jit
def inertial_frames_jacobian(q, e, oq, oe, T):
    """Exact ``T[k] = d qdot / d(q[oq:oq + 7], e[oe:oe + 6])`` (7 x 13) of every top (the discs'
    Jacobian is the constant ``d q'/de = I``)."""
    spatial_frames_jacobian(q, e, oq, oe, T)
    for k in range(oq.size):
        for a in range(3):
            for b in range(13):
                T[k, a, b] = 0.0
            T[k, a, 7 + a] = 1.0


@_jit
def inertial_frames_residual_add(t, q, e, lam, inf, out, fe, fl):
    """The family's part of the residual: the kinematic rows (:func:`inertial_frames_qdot`)."""
    inertial_frames_qdot(q, e, inf, out)


@_jit
def inertial_frames_jacobian_add(t, q, e, lam, inf, act, J, ce):
    """``J[rows of q, :] +=`` the exact Jacobian of :func:`inertial_frames_qdot` (columns of ``e``
    from ``ce``)."""
    J = borrowed(J)              # no reference counts of the target's arrays in the writes
    iq, ie, oq, oe = inf
    for k in range(iq.size):
        jac_add(J, iq[k], ce + ie[k], 1.0)
    T = np.empty((oq.size, 7, 13))
    inertial_frames_jacobian(q, e, oq, oe, T)
    scatter_frames_jacobian(T, oq, oe, J, ce)


class InertialFrames:
    """The kinematics of the discs and tops of a system (the kernels above)."""

    #: the compiled residual's slot for :meth:`kernel_data`
    kernel_slot = "inertial_frames"

    def __init__(self, items, bodies):
        disc = [(oq, oe, b.nq) for (oq, oe), b in zip(items, bodies) if b.dim == 2]
        self.iq = np.array([oq + k for oq, oe, n in disc for k in range(n)], np.int64)
        self.ie = np.array([oe + k for oq, oe, n in disc for k in range(n)], np.int64)
        self.oq = np.array([oq for (oq, oe), b in zip(items, bodies) if b.dim == 3], np.int64)
        self.oe = np.array([oe for (oq, oe), b in zip(items, bodies) if b.dim == 3], np.int64)
        r = self.oq[:, None, None] + np.arange(7)[None, :, None]
        c = np.concatenate([self.oq[:, None] + np.arange(7), self.oe[:, None] + np.arange(6)], axis=1)
        n = self.oq.size
        self._rows = np.broadcast_to(r, (n, 7, 13)).ravel()
        self._cols = np.broadcast_to(c[:, None, :], (n, 7, 13)).ravel()
        self._is_e = np.broadcast_to(np.arange(13) >= 7, (n, 7, 13)).ravel()

    def __call__(self, q, e, out):
        inertial_frames_qdot(q, e, self.kernel_data(), out)

    def kernel_data(self):
        """The packed bodies (:data:`InertialFramesData`)."""
        return InertialFramesData(self.iq, self.ie, self.oq, self.oe)

    def jacobian_triplets(self, q, e, nq):
        """Triplets of ``d qdot/dq`` and ``d qdot/de`` (columns of ``e`` shifted by ``nq``)."""
        T = np.empty((self.oq.size, 7, 13))
        inertial_frames_jacobian(np.asarray(q, float), np.asarray(e, float), self.oq, self.oe, T)
        return (np.r_[self.iq, self._rows], np.r_[self.ie + nq, self._cols + nq * self._is_e],
                np.r_[np.ones(self.iq.size), T.ravel()])


class _InertialBody(Body):
    """Common part of :class:`Disc` and :class:`Top`: the kinematics by :class:`InertialFrames`."""

    kinematics_group = InertialFrames
    #: port velocities ``v + omega x R r`` in inertial components (see the module docstring)
    port_velocity = "inertial"

    def port_frame(self, port):
        """The centre and the body's orientation (:attr:`port_orientation`), the port's offset."""
        kind, k = self.port_orientation
        return 0, kind, k, port.position

    def qdot(self, q, e):
        g = InertialFrames([(0, 0)], [self])
        out = np.empty(self.nq)
        g(np.asarray(q, float), np.asarray(e, float), out)
        return out

    def qdot_jacobians(self, q, e):
        g = InertialFrames([(0, 0)], [self])
        r, c, v = g.jacobian_triplets(q, e, self.nq)
        A = np.zeros((self.nq, self.nq + self.ne))
        np.add.at(A, (r, c), v)
        return A[:, :self.nq], A[:, self.nq:]


class Disc(_InertialBody):
    """Planar rigid body, origin at the centre of mass: ``q = (x, y, theta)``, ``e = (v_x, v_y, omega)``
    (inertial), ``M = diag(m, m, I)``, ``q' = e``.

    Parameters
    ----------
    name : str
    mass, inertia : float
        Mass and moment of inertia about the centre of mass.
    position, angle : initial configuration.
    ports : dict name -> body-frame point
    """

    #: the orientation of the ports (the velocities are inertial, so not ``rotation_kind``:
    #: loads and joints take the port rows as they are)
    port_orientation = (PlanarAngle, 2)

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

    def rotation_velocity(self, q, axis, point):
        """Inertial ``(v_x, v_y, omega)`` of the centre turning about z."""
        v = turning_point_velocity(self, np.asarray(q, float)[None, :2], axis, point).ravel()
        return np.r_[steady_inertial(self, v), planar_axis(self, axis)]


class Top(_InertialBody):
    """Spatial rigid body, origin at the centre of mass: ``q = (x, p)`` (position, unit
    quaternion), ``e = (v, Omega)`` (inertial velocity of the centre, body-frame angular velocity).

    ``M = diag(m I, Theta)``; the Euler equations' gyroscopic term ``-Omega x Theta Omega``
    (it does no work) is the gyroscopic structure of the body (see the module docstring).

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
    omega_indices = (3, 4, 5)
    port_orientation = (UnitQuaternion, 3)

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
        self.K_list = []
        for k in range(3):
            K = np.zeros((6, 6))
            K[3:, 3:] = -skew(Th[:, k])
            self.K_list.append(sp.csr_matrix(K))
        for pname, r in {"C": (0.0, 0.0, 0.0), **(ports or {})}.items():
            self.add_port(pname, np.eye(3, 6), np.eye(3, 6, 3), r)

    def rotation(self, q):
        return UnitQuaternion.matrix(q[3:7])

    def rotation_velocity(self, q, axis, point):
        """The centre's inertial velocity ``a x (x - c)`` and the body-frame angular velocity ``R^T a``."""
        q = np.asarray(q, float)
        v = turning_point_velocity(self, q[None, :3], axis, point).ravel()
        return np.r_[steady_inertial(self, v), self.rotation(q).T @ np.asarray(axis, float)]


def _pack_family(groups, dae):
    """The family's data: the kinematics group's, or empty."""
    if groups:
        return groups[0].kernel_data()
    i0 = np.zeros(0, np.int64)
    return InertialFramesData(i0, i0, i0, i0)


register_family("inertial_frames", InertialFramesData, pack=_pack_family, has=has_inertial_frames,
                residual_add=inertial_frames_residual_add, jacobian_add=inertial_frames_jacobian_add)

"""Port-Hamiltonian subsystems: the plain objects a :class:`~phmech.System` assembles.

Every subsystem is a planar pH system in co-energy (effort) variables ``e``

.. math::  M \\dot e = J(e)\\, e - R\\, e + B u, \\qquad y = B^T e,

plus a configuration ``q`` that evolves with the kinematic equation
``q' = T(q) e`` (positions and angle of a floating frame).  For bodies with a
floating frame the state-dependent part of ``J`` is gyroscopic,
``J(e) = J0 - omega(e) K`` with a constant skew matrix ``K``: this is the
rotating-frame Newton law ``rho (v' + omega e_z x v)`` written for every
material point, so ``e^T J(e) e = 0`` holds exactly and energy is conserved.

Ports are where joints and loads act.  A port exposes, as rows acting on
``e``, the translational velocity of its point in body-frame components
(``Y``, 2 rows) and, where the body has one, the absolute angular velocity
of the material line through it (``W``, 1 row).  By virtual power the same
rows, transposed, are the input matrix of the force and the moment applied
there: the transformer interconnection of two ports is a velocity
constraint with the rotation between the frames, and its dual on the forces
follows from ``G^T lam``.
"""
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ._planar import rot


@dataclass
class Port:
    """A point of a body where joints and loads act.

    Attributes
    ----------
    body : Subsystem
        Owner of the port.
    name : str
        Port name, unique within the body.
    Y : ndarray, shape (2, n_e)
        Rows giving the body-frame components of the port velocity.
    W : ndarray, shape (1, n_e) or None
        Row giving the absolute angular velocity at the port, or ``None``
        for bodies without rotation (point masses).
    position : ndarray, shape (2,)
        Body-frame position of the port on the undeformed body.
    """

    body: "Subsystem"
    name: str
    Y: np.ndarray
    W: np.ndarray = None
    position: np.ndarray = field(default_factory=lambda: np.zeros(2))

    @property
    def label(self):
        return f"{self.body.name}.{self.name}"

    def __repr__(self):
        return f"Port({self.label})"


class Subsystem:
    """Base class of all pH subsystems.

    Subclasses set, in ``__init__``: ``name``, ``M`` (sparse, symmetric
    positive definite), ``J0`` (sparse, skew), optionally ``R`` (sparse,
    symmetric positive semi-definite) and ``K`` (sparse skew, gyroscopic,
    multiplied by ``e[omega_index]``), the configuration layout
    (``n_q``, ``angle_index``) and the ports.
    """

    #: index of the frame angle in ``q`` (None: no rotation)
    angle_index = None
    #: index of the frame angular velocity in ``e`` (None: no gyroscopic term)
    omega_index = None

    @property
    def frame_dofs(self):
        """Indices of ``e`` that are rigid-body velocities (used for initial values)."""
        return np.arange(self.n_e)

    def __init__(self, name):
        if not isinstance(name, str) or not name:
            raise ValueError(f"a subsystem needs a non-empty name, got {name!r}")
        self.name = name
        self.ports = {}
        self.K = None
        self.R = None
        self.e_labels = []
        self.q_labels = []

    # -- sizes ------------------------------------------------------------
    @property
    def n_e(self):
        return self.M.shape[0]

    @property
    def n_q(self):
        return len(self.q_labels)

    # -- ports ------------------------------------------------------------
    def port(self, name):
        """Return the port called ``name``; the error lists the valid names."""
        try:
            return self.ports[name]
        except KeyError:
            raise KeyError(f"body '{self.name}' has no port '{name}'; "
                           f"its ports are {sorted(self.ports)}") from None

    def _add_port(self, name, Y, W=None, position=(0.0, 0.0)):
        Y = np.asarray(Y, dtype=float).reshape(2, self.n_e)
        if W is not None:
            W = np.asarray(W, dtype=float).reshape(1, self.n_e)
        self.ports[name] = Port(self, name, Y, W, np.asarray(position, float))
        return self.ports[name]

    def gyro_terms(self):
        """Gyroscopic part of ``J(e)``: list of ``(omega_index, K)``, ``J(e) = J0 - sum e[i] K``."""
        if self.K is None or self.omega_index is None:
            return []
        return [(self.omega_index, self.K)]

    # -- configuration and kinematics --------------------------------------
    def rotation(self, q):
        """Rotation matrix of the body frame for the body's configuration ``q``."""
        if self.angle_index is None:
            return np.eye(2)
        return rot(q[self.angle_index])

    def qdot(self, q, e):
        """Kinematic equation ``q' = T(q) e``."""
        raise NotImplementedError

    def qdot_jacobians(self, q, e):
        """Dense ``(d qdot/dq, d qdot/de)``."""
        raise NotImplementedError

    def port_position(self, q, port):
        """Inertial position of ``port`` on the undeformed body."""
        raise NotImplementedError

    # -- energy -----------------------------------------------------------
    def hamiltonian(self, e):
        """Stored energy ``H = e^T M e / 2`` (kinetic + elastic)."""
        e = np.asarray(e)
        return 0.5 * np.einsum("...i,...i->...", e, (self.M @ e.T).T)

    def check(self):
        """Return a list of inconsistencies of the subsystem's data."""
        problems = []
        M = sp.csr_matrix(self.M)
        if abs(M - M.T).max() > 1e-12 * max(abs(M).max(), 1e-300):
            problems.append(f"body '{self.name}': mass matrix M is not symmetric")
        J0 = sp.csr_matrix(self.J0)
        if J0.nnz and abs(J0 + J0.T).max() > 1e-12 * abs(J0).max():
            problems.append(f"body '{self.name}': structure matrix J0 is not skew-symmetric")
        if self.K is not None:
            K = sp.csr_matrix(self.K)
            if K.nnz and abs(K + K.T).max() > 1e-12 * abs(K).max():
                problems.append(f"body '{self.name}': gyroscopic matrix K is not skew-symmetric")
        if not np.all(np.isfinite(M.data)):
            problems.append(f"body '{self.name}': mass matrix has non-finite entries")
        return problems

    def __repr__(self):
        return f"{type(self).__name__}('{self.name}', n_q={self.n_q}, n_e={self.n_e})"


class FloatingFrameBody(Subsystem):
    """A body with a planar floating frame.

    ``q = (x_P, y_P, theta)``: inertial position of the frame origin P and
    frame angle; ``e`` starts with ``(v_P^x, v_P^y, omega)`` in body-frame
    components, followed by the body's own (flexible) variables.  The
    kinematic equation is ``(x_P, y_P)' = R(theta) v_P``, ``theta' = omega``.
    """

    angle_index = 2
    omega_index = 2

    @property
    def frame_dofs(self):
        return np.arange(3)

    def __init__(self, name, position=(0.0, 0.0), angle=0.0):
        super().__init__(name)
        self.q_labels = ["x", "y", "theta"]
        self.q0 = np.array([position[0], position[1], angle], dtype=float)

    def qdot(self, q, e):
        c, s = np.cos(q[2]), np.sin(q[2])
        return np.array([c * e[0] - s * e[1], s * e[0] + c * e[1], e[2]])

    def qdot_jacobians(self, q, e):
        c, s = np.cos(q[2]), np.sin(q[2])
        Tq = np.zeros((3, 3))
        Tq[0, 2] = -s * e[0] - c * e[1]
        Tq[1, 2] = c * e[0] - s * e[1]
        Te = np.zeros((3, self.n_e))
        Te[:2, :2] = [[c, -s], [s, c]]
        Te[2, 2] = 1.0
        return Tq, Te

    def port_position(self, q, port):
        return q[:2] + rot(q[2]) @ port.position


def rigid_frame_blocks(m, s, Iz):
    """Mass and gyroscopic blocks of the frame variables ``(v_P, omega)``.

    For a mass distribution with mass ``m``, first moments ``s = (s_x, s_y)``
    and polar moment ``Iz`` about the frame origin; the body-frame velocity of
    a material point at ``r`` is ``v_P + omega S r``.
    """
    sx, sy = s
    M = np.array([[m, 0.0, -sy], [0.0, m, sx], [-sy, sx, Iz]])
    K = np.array([[0.0, -m, -sx], [m, 0.0, -sy], [sx, sy, 0.0]])
    return M, K

"""Bodies: the port-Hamiltonian subsystems a :class:`~phmech.System` assembles.

Every body is a pH system in co-energy (effort) variables ``e``

.. math::  M \\dot e = J(e)\\, e - R\\, e + B u, \\qquad y = B^T e,

with a configuration ``q`` that evolves with the kinematic equation
``q' = T(q) e``.  A body declares what it provides and the assembly
scatters it by index, never asking for the body's type:

* ``M`` (sparse, symmetric positive definite), ``J0`` (sparse, skew),
  optionally ``R`` (dissipation) and gyroscopic slots
  :meth:`Body.gyro_terms` -- ``J(e) = J0 - sum_i e[k_i] K_i`` with constant
  skew ``K_i`` (the rotating-frame Newton law of every material point, so
  ``e^T J(e) e = 0`` holds exactly);
* the kinematics :meth:`Body.qdot` with both Jacobians
  :meth:`Body.qdot_jacobians` (exact), and optionally a vectorized group
  (:attr:`Body.kinematics_group`) that evaluates many bodies of one kind at once;
* the orientation: :attr:`Body.rotation_kind` (a parametrization of
  :mod:`phmech.math.rotations`) located at ``q[rotation_index]``, or none;
* ports, where joints and loads act, and the frame variables used for
  initial values (:attr:`Body.frame_dofs`).

Ports expose, as rows acting on ``e``, the body-frame components of the
velocity of their point (``Y``, ``dim`` rows) and, where the body has one,
of the angular velocity of the material there (``W``).  By virtual power
the same rows, transposed, are the input matrices of a force and a moment
applied there: the transformer interconnection of two ports is a velocity
constraint with the rotation between the frames, and its dual on the
forces follows from ``G^T lam``.
"""
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..math.rotations import PlanarAngle, UnitQuaternion
from .picture import PortPicture
from .frames import (PlanarFrames, SpatialFrames, planar_frames_jacobian, planar_frames_qdot,
                     spatial_frames_jacobian, spatial_frames_qdot)


def planar_axis(body, axis):
    """The rate sign of a planar body turning about ``axis`` (which must be +-z)."""
    a = np.asarray(axis, float)
    if a.shape != (3,) or abs(abs(a[2]) - 1.0) > 1e-12 or abs(a[0]) + abs(a[1]) > 1e-12:
        raise ValueError(f"body '{body.name}': a planar body turns about the z axis only, got axis {axis!r}")
    return float(np.sign(a[2]))


@dataclass(eq=False)
class Port:
    """A point of a body where joints and loads act.

    Attributes
    ----------
    body : Body
    name : str
    Y : ndarray, shape (dim, ne)
        Body-frame components of the port velocity.
    W : ndarray, shape (n_rot, ne) or None
        Body-frame components of the angular velocity at the port
        (``n_rot`` = 1 planar, 3 spatial); ``None`` for point masses.
    position : ndarray, shape (dim,)
        Body-frame position of the port on the undeformed body.
    gauge : tuple or None
        ``(k, d, c, rows)``: the rows of ``W`` flagged in ``rows`` are scaled by the frame gauge
        ``sigma = d / (d + c q[k])`` of the body's own ``q`` (:mod:`phmech.math.gauge`; the root
        of a geometrically consistent spatial beam), None for constant rows.
    """

    body: "Body"
    name: str
    Y: np.ndarray
    W: np.ndarray = None
    position: np.ndarray = field(default_factory=lambda: np.zeros(2))
    gauge: tuple = None

    def __post_init__(self):
        rows = self.Y if self.W is None else np.vstack([self.Y, self.W])
        #: columns of ``e`` that the port rows touch, and the rows restricted to them
        self.cols = np.flatnonzero(np.any(rows != 0, axis=0))
        self.Yc = np.ascontiguousarray(self.Y[:, self.cols])
        self.Wc = None if self.W is None else np.ascontiguousarray(self.W[:, self.cols])

    @property
    def label(self):
        return f"{self.body.name}.{self.name}"

    @property
    def inertial_rows(self):
        """True where the velocity rows ``Y`` give inertial components (the body's
        :attr:`~Body.port_velocity`), not components in the body's frame."""
        return self.body.port_velocity == "inertial"

    @property
    def dim(self):
        return self.Y.shape[0]

    def __repr__(self):
        return f"Port({self.label})"


def _finite_array(value, shape, what, owner):
    a = np.asarray(value, dtype=float)
    if a.shape != shape or not np.all(np.isfinite(a)):
        size = "a" if not shape else (str(shape[0]) if len(shape) == 1 else "x".join(map(str, shape)) + " array of")
        raise ValueError(f"{owner}: {what} must be {size} finite number(s), got {value!r}")
    return a


class Body(PortPicture):
    """Base class of all bodies (see the module docstring for the protocol).

    Subclasses set ``M``, ``J0``, optionally ``R`` and ``K_list`` (the
    gyroscopic matrices multiplied by ``e[omega_indices[i]]``), the
    configuration layout (``q_labels``, ``q0``) and the ports.
    """

    #: 2 (planar) or 3 (spatial)
    dim = 2
    #: orientation parametrization (None: no rotation)
    rotation_kind = None
    #: index of the first orientation parameter in ``q``
    rotation_index = None
    #: the components of the ports' velocity rows: ``"body"`` (the body frame's) or ``"inertial"``
    port_velocity = "body"
    #: indices of ``e`` multiplying the gyroscopic matrices ``K_list``
    omega_indices = ()
    #: the group class of :mod:`phmech.bodies.frames` evaluating the kinematics of many bodies
    #: of this family at once (None: per-body calls of :meth:`qdot`)
    kinematics_group = None

    def __init__(self, name):
        if not isinstance(name, str) or not name:
            raise ValueError(f"a body needs a non-empty name, got {name!r}")
        self.name = name
        self.ports = {}
        self.K_list = []
        self.R = None
        self.e_labels = []
        self.q_labels = []
        self.q0 = np.zeros(0)

    # -- sizes ------------------------------------------------------------
    @property
    def ne(self):
        return self.M.shape[0]

    @property
    def nq(self):
        return len(self.q_labels)

    @property
    def frame_dofs(self):
        """Indices of ``e`` that are rigid-body (frame) velocities."""
        return np.arange(self.ne)

    @property
    def translation_dofs(self):
        """Indices of ``e`` whose unit values translate the whole body (for gravity)."""
        return np.arange(self.dim)

    # -- ports ------------------------------------------------------------
    def port(self, name):
        """Return the port called ``name``; the error lists the valid names."""
        try:
            return self.ports[name]
        except KeyError:
            raise KeyError(f"body '{self.name}' has no port '{name}'; "
                           f"its ports are {sorted(self.ports)}") from None

    def add_port(self, name, Y, W=None, position=None):
        """Add a port from its velocity rows ``Y`` and angular-velocity rows ``W``."""
        owner = f"body '{self.name}', port '{name}'"
        if name in self.ports:
            raise ValueError(f"{owner}: a port with this name exists already")
        Y = _finite_array(Y, (self.dim, self.ne), "velocity rows Y", owner)
        if W is not None:
            W = _finite_array(W, (1 if self.dim == 2 else 3, self.ne), "angular-velocity rows W", owner)
        pos = np.zeros(self.dim) if position is None else _finite_array(position, (self.dim,), "position", owner)
        self.ports[name] = Port(self, name, Y, W, pos)
        return self.ports[name]

    def gyro_terms(self):
        """Gyroscopic part of ``J(e)``: list of ``(omega index, K)``."""
        return list(zip(self.omega_indices, self.K_list))

    # -- configuration and kinematics --------------------------------------
    def rotation(self, q):
        """Rotation matrix of the body frame (identity without orientation)."""
        if self.rotation_kind is None:
            return np.eye(self.dim)
        k = self.rotation_index
        return self.rotation_kind.matrix(q[k:k + self.rotation_kind.n_params])

    def rotation_derivatives(self, q):
        """``(indices into q, dR/dq_i stacked)``: exact derivatives of :meth:`rotation`."""
        if self.rotation_kind is None:
            return np.zeros(0, int), np.zeros((0, self.dim, self.dim))
        k, n = self.rotation_index, self.rotation_kind.n_params
        return np.arange(k, k + n), self.rotation_kind.derivatives(q[k:k + n])

    def qdot(self, q, e):
        """Kinematic equation ``q' = T(q) e``."""
        raise NotImplementedError

    def qdot_jacobians(self, q, e):
        """Exact dense ``(d qdot/dq, d qdot/de)``."""
        raise NotImplementedError

    def port_position(self, q, port):
        """Inertial position of ``port`` on the undeformed body."""
        return self.position(q) + self.rotation(q) @ port.position

    def port_rotation(self, q, port):
        """Rotation of the axes of ``port``'s rotation rows (the body frame's, :meth:`rotation`)."""
        return self.rotation(q)

    def port_frame(self, port):
        """Where the joints' and loads' kernels read ``port``'s frame in the body's ``q``:
        ``(position index or -1, rotation kind, rotation index, offset)``, the port point being
        ``q[position:position + dim] + R offset`` with ``R`` of the rotation kind
        (:data:`~phmech.math.rotations.ROTATION_CODES`) at ``q[rotation index:]``.  The body's frame
        and the port's body-frame position here; a body whose ports turn with their own sections
        (the exact spatial beam) gives each port its node."""
        return (0 if self.nq >= self.dim else -1, self.rotation_kind,
                self.rotation_index if self.rotation_kind is not None else -1, port.position)

    def position(self, q):
        """Inertial position of the frame origin."""
        return np.asarray(q[:self.dim], float)

    def retract(self, q, v):
        """Configuration moved by the small frame velocity ``v`` (``v = e[frame_dofs]``) over unit time."""
        raise NotImplementedError

    def rotation_velocity(self, q, axis, point):
        """The frame velocities ``e[frame_dofs]`` of the body turning rigidly at unit rate about the
        inertial ``axis`` (unit) through ``point`` (a relative equilibrium's motion,
        :func:`phmech.solvers.static.relative_equilibrium`)."""
        raise NotImplementedError(f"body '{self.name}' ({type(self).__name__}) does not say how it turns "
                                  "with a rotating assembly (rotation_velocity)")

    #: True when the body adds :meth:`effort_terms` to its effort equations
    has_effort_terms = False

    def effort_terms(self, t, q, e):
        """Extra right-hand side of the effort equations beyond ``J0``, the gyroscopic
        slots and ``R``: ``(f, df/dq, df/de)`` (dense or sparse, derivatives exact).

        The hook for state-dependent structure (e.g. geometric stiffening) and
        nonlinear internal forces; a power-conserving structure has ``e . f = 0``.
        Only called when :attr:`has_effort_terms` is True.
        """
        raise NotImplementedError

    def effort_force(self, t, q, e):
        """Only ``f`` of :meth:`effort_terms` (bodies override it when ``f`` is much cheaper)."""
        return self.effort_terms(t, q, e)[0]

    # -- energy -----------------------------------------------------------
    def hamiltonian(self, e):
        """Stored energy ``H = e^T M e / 2`` (kinetic + elastic)."""
        e = np.asarray(e)
        return 0.5 * np.einsum("...i,...i->...", e, (self.M @ e.T).T)

    def check(self):
        """A list of the inconsistencies of the body's data (empty when it is fine)."""
        problems = []
        # small matrices are tested as dense arrays (a sparse operation costs ~50 us)
        mat = (lambda A: A.toarray() if sp.issparse(A) else np.asarray(A)) if self.ne <= 64 else sp.csr_matrix
        M = mat(self.M)
        if not np.all(np.isfinite(M.data if sp.issparse(M) else M)):
            problems.append(f"body '{self.name}': mass matrix has non-finite entries")
            return problems
        if abs(M - M.T).max() > 1e-12 * max(abs(M).max(), 1e-300):
            problems.append(f"body '{self.name}': mass matrix M is not symmetric")
        for what, A in [("structure matrix J0", self.J0)] + [(f"gyroscopic matrix K{i}", K)
                                                              for i, K in enumerate(self.K_list)]:
            A = mat(A)
            if (A.nnz if sp.issparse(A) else A.any()) and abs(A + A.T).max() > 1e-12 * abs(A).max():
                problems.append(f"body '{self.name}': {what} is not skew-symmetric")
        if self.q0.shape != (self.nq,) or not np.all(np.isfinite(self.q0)):
            problems.append(f"body '{self.name}': initial configuration q0 {self.q0!r} "
                            f"is not {self.nq} finite numbers")
        return problems

    def __repr__(self):
        return f"{type(self).__name__}('{self.name}', nq={self.nq}, ne={self.ne})"


class FixedBody(Body):
    """A body without configuration variables (``nq = 0``): a structure fixed in space
    (fixed beams, plates); its ports stay where they were defined."""

    @property
    def frame_dofs(self):
        return np.arange(0)

    def qdot(self, q, e):
        return np.zeros(0)

    def qdot_jacobians(self, q, e):
        return np.zeros((0, 0)), np.zeros((0, self.ne))

    def rotation_velocity(self, q, axis, point):
        return np.zeros(0)

    def port_position(self, q, port):
        return port.position.copy()


class FloatingFrameBody(Body):
    """A body with a planar floating frame.

    ``q = (x_P, y_P, theta)``: inertial position of the frame origin P and
    frame angle; ``e`` starts with ``(v_P^x, v_P^y, omega)`` in body-frame
    components, followed by the body's own (flexible) variables.  The
    kinematic equation is ``(x_P, y_P)' = R(theta) v_P``, ``theta' = omega``.
    """

    dim = 2
    rotation_kind = PlanarAngle
    rotation_index = 2
    omega_indices = (2,)
    kinematics_group = PlanarFrames

    @property
    def frame_dofs(self):
        return np.arange(3)

    def __init__(self, name, position=(0.0, 0.0), angle=0.0):
        super().__init__(name)
        owner = f"body '{name}'"
        pos = _finite_array(position, (2,), "position", owner)
        angle = float(_finite_array(angle, (), "angle", owner))
        self.q_labels = ["x", "y", "theta"]
        self.q0 = np.array([pos[0], pos[1], angle])

    #: the frame's indices in the body's ``q`` and ``e`` for the kernels of :mod:`phmech.bodies.frames`
    _FRAME = np.arange(3, dtype=np.int64).reshape(3, 1)

    def qdot(self, q, e):
        out = np.empty(3)
        planar_frames_qdot(np.asarray(q, float), np.asarray(e, float), self._FRAME, self._FRAME, out)
        return out

    def qdot_jacobians(self, q, e):
        T = np.empty((1, 3, 6))
        planar_frames_jacobian(np.asarray(q, float), np.asarray(e, float), self._FRAME, self._FRAME, T)
        Te = np.zeros((3, self.ne))
        Te[:, :3] = T[0, :, 3:]
        return T[0, :, :3].copy(), Te

    def retract(self, q, v):
        out = np.array(q, float)
        out[:2] += self.rotation(q) @ v[:2]
        out[2] += v[2]
        return out

    def rotation_velocity(self, q, axis, point):
        """Body-frame ``(v_x, v_y, omega)``; a planar body turns about z only."""
        a = planar_axis(self, axis)
        r = self.position(q) - np.asarray(point, float)[:2]
        return np.r_[self.rotation(q).T @ (a * np.array([-r[1], r[0]])), a]


class SpatialFrameBody(Body):
    """A body with a spatial floating frame.

    ``q = (x, y, z, p0, p1, p2, p3)``: position of the frame origin and a
    quaternion (:mod:`phmech.math.rotations` says how its norm is handled);
    ``e`` starts with ``(v_P, omega)`` in body-frame components.  The
    kinematic equations are ``r' = R(p) v_P`` and ``p' = 1/2 p (x) (0, omega)``,
    and the rotating-frame Newton law gives ``J(e) = J0 - sum_i omega_i K_i``.
    """

    dim = 3
    rotation_kind = UnitQuaternion
    rotation_index = 3
    omega_indices = (3, 4, 5)
    kinematics_group = SpatialFrames

    def __init__(self, name, position=(0.0, 0.0, 0.0), orientation=(1.0, 0.0, 0.0, 0.0)):
        super().__init__(name)
        owner = f"body '{name}'"
        pos = _finite_array(position, (3,), "position", owner)
        p = _finite_array(orientation, (4,), "orientation (quaternion)", owner)
        if np.linalg.norm(p) == 0:
            raise ValueError(f"{owner}: orientation must be a non-zero quaternion, got {orientation!r}")
        if abs(np.linalg.norm(p) - 1.0) > 1e-6:
            raise ValueError(f"{owner}: orientation quaternion {orientation!r} is not a unit quaternion "
                             f"(norm {np.linalg.norm(p):.6g}); normalize it")
        self.q_labels = ["x", "y", "z", "p0", "p1", "p2", "p3"]
        self.q0 = np.r_[pos, p / np.linalg.norm(p)]

    @property
    def frame_dofs(self):
        return np.arange(6)

    def rotation3(self, q):
        return self.rotation(q)

    _ZERO = np.zeros(1, np.int64)

    def qdot(self, q, e):
        out = np.empty(7)
        spatial_frames_qdot(np.asarray(q, float), np.asarray(e, float), self._ZERO, self._ZERO, out)
        return out

    def qdot_jacobians(self, q, e):
        T = np.empty((1, 7, 13))
        spatial_frames_jacobian(np.asarray(q, float), np.asarray(e, float), self._ZERO, self._ZERO, T)
        Te = np.zeros((7, self.ne))
        Te[:, :6] = T[0, :, 7:]
        return T[0, :, :7].copy(), Te

    def retract(self, q, v):
        out = np.array(q, float)
        out[:3] += self.rotation(q) @ v[:3]
        out[3:7] = UnitQuaternion.retract(q[3:7], v[3:6])
        return out

    def rotation_velocity(self, q, axis, point):
        """Body-frame ``(v_P, omega)``: ``R^T (a x (x - c))`` and ``R^T a``."""
        a = np.asarray(axis, float)
        R = self.rotation(q)
        return np.r_[R.T @ np.cross(a, self.position(q) - np.asarray(point, float)), R.T @ a]

    def angular_momentum(self, q, e):
        """Inertial angular momentum about the frame origin (the ``omega`` rows of ``M e``)."""
        return self.rotation(q) @ (self.M @ e)[3:6]

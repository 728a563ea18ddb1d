"""Joints: velocity constraints ``G(q) e = w(t)`` between ports.

A joint between two ports is a transformer interconnection: the inertial
velocities of the two port points are equal, each obtained from the
body-frame output ``Y e`` of its port through the rotation of its body's
frame.  The multipliers ``lam`` are the constraint forces (and moments) in
inertial components; they enter the bodies through ``G^T lam``, which is the
dual (force) relation of the transformer.  A port given as ``None`` is the
ground.

Every joint has a name (used in errors and in results) and can report a
position-level residual, used to check the initial configuration.
"""
from dataclasses import dataclass

import numpy as np

from ._planar import S


@dataclass
class Block:
    """One contribution ``sign * P R(theta) Y`` (or ``sign * W``) to a joint's rows."""

    rows: slice        # joint-local rows
    port: object       # Port
    rotational: bool   # True: uses the angular-velocity row W
    sign: float = 1.0
    P: np.ndarray = None  # selector applied after the rotation (rows x 2)
    body_frame: bool = False  # rows act in the body frame (no rotation)


def _as_port(obj, joint):
    """Accept a Port, or a body (meaning its port 'P')."""
    if obj is None:
        return None
    if hasattr(obj, "ports") and not hasattr(obj, "body"):
        return obj.port("P")
    if not hasattr(obj, "body"):
        raise TypeError(f"joint '{joint}': expected a port or a body, got {obj!r}")
    return obj


def _as_function(value, n, what, joint):
    """Turn a constant, a callable or None into ``t -> array(n)``."""
    if value is None:
        zero = np.zeros(n)
        fun = (lambda t: zero)
        fun.constant = True
        return fun
    if callable(value):
        def fun(t):
            out = np.atleast_1d(np.asarray(value(t), dtype=float))
            if out.shape != (n,):
                raise ValueError(f"joint '{joint}': {what}(t) must return {n} value(s), got shape {out.shape}")
            return out
        return fun
    const = np.atleast_1d(np.asarray(value, dtype=float))
    if const.shape != (n,) or not np.all(np.isfinite(const)):
        raise ValueError(f"joint '{joint}': {what} must be {n} finite number(s), got {value!r}")
    fun = (lambda t: const)
    fun.constant = True
    return fun


class Joint:
    """Base class. Subclasses set ``n_rows`` and ``blocks`` and may override
    :meth:`velocity` (the right-hand side ``w(t)``) and :meth:`position_residual`."""

    kind = "joint"
    n_rows = 0

    def __init__(self, name):
        self.name = name
        self.blocks = []
        self._w = _as_function(None, self.n_rows, "velocity", name)
        self._dw = None

    def velocity(self, t):
        """Right-hand side ``w(t)`` of ``G e = w``."""
        return self._w(t)

    def velocity_rate(self, t, dt=1e-7):
        """Time derivative of ``w`` (central difference unless given)."""
        if self._dw is not None:
            return self._dw(t)
        return (self._w(t + dt) - self._w(t - dt)) / (2 * dt)

    def ports(self):
        return [b.port for b in self.blocks]

    def position_residual(self, q_of, t):
        """Position-level residual at time ``t``; ``q_of(body)`` gives a body's ``q``."""
        return None

    def bind(self, q_of):
        """Record reference geometry from the initial configuration."""

    def __repr__(self):
        return f"{type(self).__name__}('{self.name}')"


def _require_rotation(port, joint):
    if port is not None and port.W is None:
        raise ValueError(f"joint '{joint}': port '{port.label}' has no rotational "
                         "degree of freedom (a point mass cannot carry a moment)")


class Revolute(Joint):
    """Pin joint: the inertial velocities of two ports are equal (2 rows).

    With ``b=None`` the port ``a`` is pinned to the ground (at its initial
    position, or at ``at``), optionally moving with a prescribed inertial
    velocity ``velocity(t)``.
    """

    kind = "revolute"
    n_rows = 2

    def __init__(self, a, b=None, name=None, at=None, velocity=None):
        a = _as_port(a, name)
        b = _as_port(b, name)
        name = name or f"revolute({a.label}, {b.label if b else 'ground'})"
        super().__init__(name)
        self.a, self.b = a, b
        self.at = None if at is None else np.asarray(at, float)
        self.blocks = [Block(slice(0, 2), a, False, 1.0)]
        if b is not None:
            self.blocks.append(Block(slice(0, 2), b, False, -1.0))
        if velocity is not None:
            if b is not None:
                raise ValueError(f"joint '{name}': a prescribed velocity needs b=None (ground)")
            self._w = _as_function(velocity, 2, "velocity", name)
        self._velocity_given = velocity is not None

    def bind(self, q_of):
        if self.b is None and self.at is None and not self._velocity_given:
            self.at = self.a.body.port_position(q_of(self.a.body), self.a)

    def position_residual(self, q_of, t):
        ra = self.a.body.port_position(q_of(self.a.body), self.a)
        if self.b is not None:
            return ra - self.b.body.port_position(q_of(self.b.body), self.b)
        if self.at is not None and not self._velocity_given:
            return ra - self.at
        return None


class Weld(Revolute):
    """Rigid connection (clamp): equal velocities and equal angular velocities (3 rows)."""

    kind = "weld"
    n_rows = 3

    def __init__(self, a, b=None, name=None, at=None):
        a = _as_port(a, name)
        b = _as_port(b, name)
        name = name or f"weld({a.label}, {b.label if b else 'ground'})"
        super().__init__(a, b, name=name, at=at)
        self._w = _as_function(None, 3, "velocity", name)
        _require_rotation(a, name)
        _require_rotation(b, name)
        self.blocks.append(Block(slice(2, 3), a, True, 1.0))
        if b is not None:
            self.blocks.append(Block(slice(2, 3), b, True, -1.0))


class Slider(Joint):
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
        a = _as_port(a, name)
        name = name or f"slider({a.label})"
        super().__init__(name)
        d = np.asarray(direction, dtype=float)
        if d.shape != (2,) or not np.isfinite(d).all() or np.linalg.norm(d) == 0:
            raise ValueError(f"joint '{name}': direction must be a non-zero 2-vector, got {direction!r}")
        self.a = a
        self.normal = S @ (d / np.linalg.norm(d))
        self.through = None if through is None else np.asarray(through, float)
        self.blocks = [Block(slice(0, 1), a, False, 1.0, self.normal[None, :])]

    def bind(self, q_of):
        if self.through is None:
            self.through = self.a.body.port_position(q_of(self.a.body), self.a)

    def position_residual(self, q_of, t):
        ra = self.a.body.port_position(q_of(self.a.body), self.a)
        return np.array([self.normal @ (ra - self.through)])


class AngularVelocity(Joint):
    """Prescribed absolute angular velocity ``W e = omega(t)`` at a port (1 row); a driver."""

    kind = "angular_velocity"
    n_rows = 1

    def __init__(self, a, omega, name=None):
        a = _as_port(a, name)
        name = name or f"drive({a.label})"
        super().__init__(name)
        _require_rotation(a, name)
        self.a = a
        self._w = _as_function(omega, 1, "omega", name)
        self.blocks = [Block(slice(0, 1), a, True, 1.0)]


class Spherical(Joint):
    """Spherical joint of a spatial body's port to the ground (3 rows).

    The port's velocity vanishes; since ``R v = 0`` exactly when ``v = 0``
    the constraint is imposed on the body-frame components, and the
    multipliers are the joint force in body-frame components.
    """

    kind = "spherical"
    n_rows = 3

    def __init__(self, a, name=None, at=None):
        name = name or f"spherical({a.label}, ground)"
        super().__init__(name)
        if a.Y.shape[0] != 3:
            raise ValueError(f"joint '{name}': port '{a.label}' is planar; a spherical joint needs a spatial body")
        self.a = a
        self.at = None if at is None else np.asarray(at, float)
        self.blocks = [Block(slice(0, 3), a, False, 1.0, body_frame=True)]

    def bind(self, q_of):
        if self.at is None:
            self.at = self.a.body.port_position(q_of(self.a.body), self.a)

    def position_residual(self, q_of, t):
        return self.a.body.port_position(q_of(self.a.body), self.a) - self.at


class Clamp3(Spherical):
    """Clamp of a spatial body's port to the ground: zero velocity and angular velocity (6 rows)."""

    kind = "clamp3"
    n_rows = 6

    def __init__(self, a, name=None, at=None):
        super().__init__(a, name=name or f"clamp({a.label}, ground)", at=at)
        self._w = _as_function(None, 6, "velocity", self.name)
        self.blocks.append(Block(slice(3, 6), a, True, 1.0, body_frame=True))

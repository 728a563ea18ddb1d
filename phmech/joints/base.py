"""The joint protocol: velocity constraints ``G(q) e = w(t)`` between ports.

A joint between two ports is a transformer interconnection: the port
velocities (and, for some joints, angular velocities) are related through
the rotations of the bodies' frames.  The multipliers ``lam`` are the
constraint forces and moments; they enter the bodies through ``G^T lam``,
the dual (force) relation of the transformer.  A port given as ``None`` is
the ground.

Every joint declares

* ``n_rows`` and its ports (:meth:`Joint.ports`);
* the prescribed velocities ``w(t)`` and their rates (drivers);
* a position-level residual whose rate is ``G e - w`` on the constraint
  manifold (used to check and project initial configurations);
* ``Group``: the class that evaluates ``G(q)`` and the exact derivative of
  ``G(q) e`` for a list of joints of that family at once.  The assembly
  only calls the group, never asks for a joint's type.

A group evaluates ``add_G(q, G)``, ``G_triplets(q)`` and
``jacobian_triplets(q, e, lam)``.  A family whose formulas are compiled also
names its slot of the compiled residual (``kernel_slot``): the planar joints'
slot of the residual's own arguments (data by ``kernel_data()``), or a kernel
family registered with its kernels and packing in its own module
(:mod:`phmech.kernels.families`; the spatial joints in
:mod:`phmech.joints.spatial`).  Its Python methods call the same kernels, so
the family has one implementation.  A group without a kernel is evaluated in
Python, and the compiled residual says so.
"""
import numpy as np

from .._checks import time_function


def as_port(obj, joint):
    """Accept a Port, a body (meaning its port 'P') or None (the ground)."""
    if obj is None:
        return None
    if hasattr(obj, "ports") and not hasattr(obj, "body"):
        return obj.port("P")
    if not hasattr(obj, "body"):
        raise TypeError(f"joint '{joint}': expected a port or a body, got {obj!r}")
    return obj


def as_function(value, n, what, joint):
    """Turn a constant, a callable or None (zero) into ``t -> array(n)`` (with ``.constant``)."""
    return time_function(value, n, what, f"joint '{joint}'", allow_none=True)


def finite_vector(value, n, what, joint):
    """A finite, non-zero vector of length ``n``; else a ValueError naming the joint."""
    v = np.asarray(value, dtype=float)
    if v.shape != (n,) or not np.all(np.isfinite(v)) or np.linalg.norm(v) == 0:
        raise ValueError(f"joint '{joint}': {what} must be a finite non-zero {n}-vector, got {value!r}")
    return v


class Joint:
    """Base class of all joints (see the module docstring)."""

    kind = "joint"
    n_rows = 0
    #: group class evaluating joints of this family (set by subclasses)
    Group = None

    def __init__(self, name):
        if not isinstance(name, str) or not name:
            raise ValueError(f"a joint needs a non-empty name, got {name!r}")
        self.name = name
        self._w = as_function(None, self.n_rows, "velocity", name)
        self._dw = None

    def ports(self):
        """The ports the joint acts on (ground excluded)."""
        raise NotImplementedError

    def bodies(self):
        out = []
        for p in self.ports():
            if all(p.body is not b for b in out):
                out.append(p.body)
        return out

    def velocity(self, t):
        """Right-hand side ``w(t)`` of ``G e = w``."""
        return self._w(t)

    def velocity_rate(self, t, dt=1e-6):
        """``w'(t)``: the driver's own rate where given, zero for constant ``w``,
        else a central difference of ``w`` (only used for consistent initial multipliers)."""
        if self._dw is not None:
            return self._dw(t)
        if getattr(self._w, "constant", False):
            return np.zeros(self.n_rows)
        return (self._w(t + dt) - self._w(t - dt)) / (2 * dt)

    def identity_parameters(self):
        """The joint's parameters beyond its ports and geometry, ``{name: value}``: its prescribed
        velocities (drive values; constants or functions of time) and their rates.  They are
        part of a checkpoint's model identity (:func:`phmech.io.checkpoint.model_identity`)."""
        funs = (self._w, self._dw, getattr(self, "_angle", None))
        return {f.what: f.value for f in funs if f is not None and hasattr(f, "value")}

    def position_residual(self, q_of, t):
        """Position-level residual (``n_rows`` values; zero where a row has none).

        ``q_of(body)`` gives a body's configuration.  Returns None when the
        joint has no position-level form at all.
        """
        return None

    def bind(self, q_of):
        """Record reference geometry from the initial configuration."""

    def check(self):
        """A list of the inconsistencies of the joint's data."""
        return []

    def __repr__(self):
        return f"{type(self).__name__}('{self.name}')"


def require_rotation(port, joint):
    if port is not None and port.W is None:
        raise ValueError(f"joint '{joint}': port '{port.label}' has no rotational "
                         "degree of freedom (a point mass cannot carry a moment)")

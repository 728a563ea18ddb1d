"""Interconnection of pH subsystems into one index-2 descriptor DAE.

The assembled system, in the variables ``y = (q, e, lam)``, is

.. math::

    q' &= T(q)\\, e \\\\
    M e' &= J(e)\\, e - R e + G(q)^T \\lambda + B(q) u(t) \\\\
    0 &= -G(q)\\, e + w(t)

with ``M``, ``J0``, ``R`` block diagonal over the bodies, ``J(e) = J0 -
sum_b omega_b K_b`` and the joint rows ``G(q)`` (transformer
interconnections and constraints).  As a descriptor system
``E y' = f(t, y)`` with ``E = diag(I, M, 0)``; the multipliers are
algebraic variables of index 2.

The power balance along any solution is
``dH/dt = -e^T R e + w^T lam + (B^T e)^T u``: the joints' prescribed
velocities and the applied loads are the only ports through which energy
enters.
"""
import numpy as np

from .dae import ConsistencyError, DescriptorDAE  # noqa: F401 (ConsistencyError re-exported)
from .joints import AngularVelocity, Joint, Revolute, Slider, Weld


class Load:
    """An applied force (inertial or body components) or moment at a port."""

    def __init__(self, port, fun, kind, frame, name):
        self.port, self.fun, self.kind, self.frame, self.name = port, fun, kind, frame, name


class System:
    """A mechanism: pH subsystems, joints between their ports, drivers and loads.

    Examples
    --------
    >>> crank = PlanarRigidBody.rod("crank", mass=0.36, length=0.15)
    >>> sys = System([crank])
    >>> sys.pin(crank.port("A"))                 # revolute joint to the ground
    >>> sys.drive(crank, angular_velocity=150.0)
    """

    def __init__(self, bodies=()):
        self.bodies = []
        self.joints = []
        self.loads = []
        for b in bodies:
            self.add(b)
        self._assembled = None

    # -- building ----------------------------------------------------------
    def add(self, body):
        """Add a subsystem; names must be unique."""
        if any(b.name == body.name for b in self.bodies):
            raise ValueError(f"a body named '{body.name}' is already in the system")
        self.bodies.append(body)
        self._assembled = None
        return body

    def body(self, name):
        for b in self.bodies:
            if b.name == name:
                return b
        raise KeyError(f"no body '{name}'; bodies are {[b.name for b in self.bodies]}")

    def add_joint(self, joint):
        if not isinstance(joint, Joint):
            raise TypeError(f"expected a Joint, got {joint!r}")
        if any(j.name == joint.name for j in self.joints):
            raise ValueError(f"a joint named '{joint.name}' is already in the system")
        self.joints.append(joint)
        self._assembled = None
        return joint

    def connect(self, a, b, joint="revolute", name=None):
        """Transformer interconnection of two ports: ``'revolute'`` or ``'weld'``."""
        kinds = {"revolute": Revolute, "weld": Weld}
        if joint not in kinds:
            raise ValueError(f"connect: joint must be one of {sorted(kinds)}, got {joint!r}")
        return self.add_joint(kinds[joint](a, b, name=name))

    def pin(self, port, at=None, name=None):
        """Revolute joint between a port and the ground."""
        return self.add_joint(Revolute(port, None, name=name, at=at))

    def clamp(self, port, name=None):
        """Weld a port to the ground."""
        return self.add_joint(Weld(port, None, name=name))

    def slide(self, port, direction=(1.0, 0.0), through=None, name=None):
        """Prismatic guide for a port along a fixed inertial line."""
        return self.add_joint(Slider(port, direction, through, name=name))

    def drive(self, port, angular_velocity, name=None):
        """Prescribe the angular velocity (constant or ``f(t)``) at a port or body."""
        return self.add_joint(AngularVelocity(port, angular_velocity, name=name))

    def apply_force(self, port, force, frame="inertial", name=None):
        """Apply a force ``force(t)`` (2 components, inertial or body frame) at a port."""
        if frame not in ("inertial", "body"):
            raise ValueError(f"apply_force: frame must be 'inertial' or 'body', got {frame!r}")
        fun = force if callable(force) else (lambda t, f=np.asarray(force, float): f)
        self.loads.append(Load(port, fun, "force", frame, name or f"force({port.label})"))
        self._assembled = None

    def apply_moment(self, port, moment, frame="inertial", name=None):
        """Apply a moment ``moment(t)`` at a port with a rotational degree of freedom.

        Planar bodies take a scalar; spatial bodies a 3-vector in inertial
        (default) or body-frame components.
        """
        if port.W is None:
            raise ValueError(f"apply_moment: port '{port.label}' cannot carry a moment")
        if frame not in ("inertial", "body"):
            raise ValueError(f"apply_moment: frame must be 'inertial' or 'body', got {frame!r}")
        fun = moment if callable(moment) else (lambda t, m=np.atleast_1d(np.asarray(moment, float)): m)
        self.loads.append(Load(port, fun, "moment", frame, name or f"moment({port.label})"))
        self._assembled = None

    def sphere(self, port, name=None):
        """Spherical joint between a spatial body's port and the ground."""
        from .joints import Spherical
        return self.add_joint(Spherical(port, name=name))

    # -- assembly ----------------------------------------------------------
    def assemble(self):
        """Assign index slices, check the model, and return the :class:`DescriptorDAE`."""
        if self._assembled is None:
            self._assembled = DescriptorDAE(self)
        return self._assembled

    def simulate(self, t_end, solver="midpoint", t0=0.0, y0=None, **options):
        """Assemble, compute consistent initial values and integrate.

        See :func:`phmech.solvers.solve` for the solvers and their options.
        """
        from .solvers import solve
        dae = self.assemble()
        if y0 is None:
            y0 = dae.initial_state(t0)
        return solve(dae, (t0, t_end), y0, method=solver, **options)



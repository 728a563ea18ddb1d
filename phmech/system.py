"""Building a mechanism: bodies, joints between their ports, drivers, loads, gravity and force elements.

:meth:`System.assemble` returns the :class:`~phmech.assembly.DescriptorDAE`

.. math::

    q' = T(q) e, \\qquad M e' = J(e) e - R e + G(q)^T \\lambda + f(t, q),
    \\qquad 0 = w(t) - G(q) e ,

see :mod:`phmech.assembly.dae`.
"""

from .assembly import ConsistencyError, DescriptorDAE  # noqa: F401 (ConsistencyError re-exported)
from .joints import AngularVelocity, Joint, Revolute, Slider, SpatialJoint, Weld
from .forces.elements import Bushing, ForceElement, PortDamper, SpringDamper, TorsionalSpringDamper
from .forces.loads import Gravity, Load, PortForce, PortMoment


class System:
    """A mechanism: bodies, joints between their ports, drivers and loads.

    Examples
    --------
    >>> from phmech import PlanarRigidBody, System
    >>> crank = PlanarRigidBody.rod("crank", mass=0.36, length=0.15)
    >>> mech = System([crank])
    >>> _ = mech.pin(crank.port("A"))                 # revolute joint to the ground
    >>> _ = mech.drive(crank, angular_velocity=150.0)
    """

    def __init__(self, bodies=()):
        self.bodies = []
        self.joints = []
        self.loads = []
        #: force elements between bodies (:mod:`phmech.forces`)
        self.forces = []
        self._assembled = None
        self._seen = {}          # list id -> (length, names, ids): the uniqueness checks in O(1)
        for b in bodies:
            self.add(b)

    def __str__(self):
        """The summary: bodies, joints, force elements, loads, unknowns and (once assembled)
        the redundant constraint rows (:func:`phmech.assembly.summary.describe`)."""
        from .assembly.summary import describe
        return describe(self, self._assembled)

    # -- building ----------------------------------------------------------
    def add(self, body):
        """Add a body; names must be unique."""
        if not hasattr(body, "M") or not hasattr(body, "ports"):
            raise TypeError(f"System.add: expected a body, got {body!r}")
        names, ids = self._known(self.bodies)
        if body.name in names:
            raise ValueError(f"a body named '{body.name}' is already in the system")
        if id(body) in ids:
            raise ValueError(f"body '{body.name}' is already in the system")
        self._append(self.bodies, body)
        self._assembled = None
        return body

    def _known(self, items):
        """Names and ids of ``items`` (one of the lists), rebuilt when the list was changed
        other than through :meth:`_append`."""
        n, names, ids = self._seen.get(id(items), (-1, None, None))
        if n != len(items):
            names, ids = {x.name for x in items}, {id(x) for x in items}
            self._seen[id(items)] = (len(items), names, ids)
        return names, ids

    def _append(self, items, item):
        names, ids = self._known(items)
        items.append(item)
        names.add(item.name)
        ids.add(id(item))
        self._seen[id(items)] = (len(items), names, ids)

    def body(self, name):
        for b in self.bodies:
            if b.name == name:
                return b
        raise KeyError(f"no body '{name}'; bodies are {[b.name for b in self.bodies]}")

    def _add_named(self, items, item, cls, kind):
        if not isinstance(item, cls):
            raise TypeError(f"expected a {cls.__name__}, got {item!r}")
        if item.name in self._known(items)[0]:
            raise ValueError(f"a {kind} named '{item.name}' is already in the system")
        self._append(items, item)
        self._assembled = None
        return item

    def add_joint(self, joint):
        """Add any joint (planar or spatial); names must be unique."""
        return self._add_named(self.joints, joint, Joint, "joint")

    def add_load(self, load):
        """Add a load (:mod:`phmech.forces.loads`); names must be unique."""
        return self._add_named(self.loads, load, Load, "load")

    # -- planar joints -------------------------------------------------------
    def connect(self, a, b, joint="revolute", name=None, **options):
        """Joint between two ports.

        Planar ports: ``"revolute"`` or ``"weld"``.  Spatial ports: any type
        of :class:`~phmech.joints.SpatialJoint` (``"spherical"``,
        ``"revolute"``, ``"universal"``, ``"prismatic"``, ``"cylindrical"``,
        ``"weld"``) with its options (``axis``, ``axis2``, ``axis_frame``,
        ``rate``, ``angle``).
        """
        if a.dim == 3:
            return self.add_joint(SpatialJoint(joint, a, b, name=name, **options))
        kinds = {"revolute": Revolute, "weld": Weld}
        if joint not in kinds:
            raise ValueError(f"connect: a planar joint must be one of {sorted(kinds)}, got {joint!r}")
        if options:
            raise ValueError(f"connect: planar joints take no options, got {sorted(options)}")
        return self.add_joint(kinds[joint](a, b, name=name))

    def pin(self, port, at=None, name=None):
        """Revolute joint between a planar port and the ground."""
        return self.add_joint(Revolute(port, None, name=name, at=at))

    def clamp(self, port, name=None):
        """Weld a port to the ground (planar or spatial)."""
        if port.dim == 3:
            return self.add_joint(SpatialJoint("weld", port, None, name=name))
        return self.add_joint(Weld(port, None, name=name))

    def slide(self, port, direction=(1.0, 0.0), through=None, name=None):
        """Prismatic guide for a planar port along a fixed inertial line."""
        return self.add_joint(Slider(port, direction, through, name=name))

    def drive(self, port, angular_velocity, name=None, rate=None):
        """Prescribe the angular velocity (constant or ``f(t)``) at a planar port or body;
        ``rate``, the derivative of a time-dependent ``angular_velocity``, makes the
        initial multipliers exact."""
        return self.add_joint(AngularVelocity(port, angular_velocity, name=name, omega_rate=rate))

    def sphere(self, port, other=None, name=None):
        """Spherical joint between a spatial port and the ground (or another port)."""
        return self.add_joint(SpatialJoint("spherical", port, other, name=name))

    # -- loads ---------------------------------------------------------------
    def apply_force(self, port, force, frame="inertial", name=None):
        """Apply a force ``force`` (constant or ``f(t)``; inertial or body components) at a port."""
        return self.add_load(PortForce(port, force, frame, name))

    def apply_moment(self, port, moment, frame="inertial", name=None):
        """Apply a moment (scalar for planar bodies, 3-vector for spatial ones) at a port."""
        return self.add_load(PortMoment(port, moment, frame, name))

    # -- force elements (phmech.forces) --------------------------------------
    def add_force(self, element):
        """Add a force element (:mod:`phmech.forces`); names must be unique.  A parameter of the
        element changed later (``spring.k = 360``) makes the next run assemble the model anew."""
        if isinstance(element, ForceElement) and getattr(element, "_default_name", False):
            taken, base, k = self._known(self.forces)[0], element.name, 1
            while element.name in taken:            # a second spring from a port to the ground ...
                k += 1
                element.name = f"{base} #{k}"
        out = self._add_named(self.forces, element, ForceElement, "force element")
        element._watch(self)
        return out

    def _changed(self):
        """A contribution's parameter changed: the assembled model is out of date."""
        self._assembled = None

    def add_damper(self, port, c, name=None):
        """Linear viscous damper ``F = -c v`` between a port and the ground."""
        return self.add_force(PortDamper(port, c, name))

    def add_spring(self, a, b=None, stiffness=0.0, damping=0.0, rest_length=None, law=None, at=None, name=None,
                   law_derivative=None):
        """Point-to-point spring-damper between ports ``a`` and ``b`` (or the ground point ``at``);
        see :class:`~phmech.forces.SpringDamper`."""
        return self.add_force(SpringDamper(a, b, stiffness, damping, rest_length, law, law_derivative, at, name))

    def add_torsional_spring(self, joint, stiffness, damping=0.0, rest_angle=0.0, name=None):
        """Torsional spring-damper on a revolute joint; see :class:`~phmech.forces.TorsionalSpringDamper`.

        The joint's relative angle (of its second port against its first; the ground's
        against the body for a joint to the ground) is counted from the initial
        configuration: the default ``rest_angle=0`` makes the initial angle the spring's
        rest angle (not the angle 0 between the bodies' frames); ``rest_angle=a`` puts the
        rest angle ``a`` [rad] away from the initial one.
        """
        return self.add_force(TorsionalSpringDamper(joint, stiffness, damping, rest_angle, name))

    def add_bushing(self, a, b=None, stiffness=None, damping=None, name=None):
        """Bushing between the frames of ports ``a`` and ``b`` (or the ground); see
        :class:`~phmech.forces.Bushing`."""
        return self.add_force(Bushing(a, b, stiffness, damping, name))

    def add_gravity(self, g, bodies=None):
        """Gravity ``g`` (inertial components) on every body, or on ``bodies``."""
        out = []
        for b in (self.bodies if bodies is None else bodies):
            out.append(self.add_load(Gravity(b, g)))
        return out

    # -- assembly ----------------------------------------------------------
    def assemble(self):
        """Assign index slices, check the model, and return the :class:`DescriptorDAE`."""
        if self._assembled is None:
            self._assembled = DescriptorDAE(self)
        return self._assembled

    def initial_state(self, t0=0.0, velocities=None, **options):
        """Consistent initial values ``y0 = (q0, e0, lam0)`` of the assembled system.

        ``velocities={body or name: motion}`` gives bodies with a frame their initial
        motion in inertial components: the velocity of the frame origin P, or a dict
        with ``"velocity"`` and/or ``"angular_velocity"`` (see
        :mod:`phmech.bodies.motion`); it replaces what the bodies' own ``velocity=`` /
        ``angular_velocity=`` say.  The velocities are projected onto the joints
        (``dae.projection_report["stated_velocities"]`` names what changed).  Other
        options (``q0``, ``e0``, ``project``, ``positions``, ``tol``) as in
        :meth:`phmech.assembly.DescriptorDAE.initial_state`.
        """
        return self.assemble().initial_state(t0, velocities=velocities, **options)

    def simulate(self, t_end, solver="midpoint", t0=0.0, y0=None, restart=None, velocities=None, **options):
        """Assemble, compute consistent initial values and integrate.

        See :func:`phmech.solvers.solve` for the solvers and their options;
        ``restart=path`` continues the run saved in a checkpoint file;
        ``velocities`` are the initial motions of bodies as in :meth:`initial_state`
        (not with ``y0`` or ``restart``).  The
        result's ``stats["setup_time"]`` and ``stats["kernel_time"]`` include
        the model's set-up that no earlier result reported: its assembly and
        consistent initial state, made here or before (``assemble()``,
        ``initial_state()``), and the kernels loaded for them.
        """
        from .solvers import solve
        if "method" in options:
            raise ValueError(f"simulate: the integrator is chosen by solver=, not method= (got "
                             f"method={options['method']!r}; phmech.solvers.solve takes method=)")
        dae = self.assemble()
        if velocities is not None and (y0 is not None or restart is not None):
            raise ValueError("simulate: velocities= sets up the initial state; it cannot be combined with "
                             f"{'y0' if y0 is not None else 'restart'}= (give the velocities to initial_state)")
        if restart is not None:
            return solve(dae, (t0, t_end), None, method=solver, restart=restart, **options)
        if y0 is None:
            y0 = dae.initial_state(t0, velocities=velocities)
        return solve(dae, (t0, t_end), y0, method=solver, **options)

    def linearize(self, q=None, t=0.0, about="equilibrium", q0=None):
        """The system linearized about its static equilibrium: near the initial configuration
        (or near ``q0``), or at the configuration ``q`` (which must be one):
        :func:`phmech.solvers.eigen.linearize` of :meth:`assemble`'s system (assembled once, also
        over many calls), a :class:`~phmech.solvers.eigen.LinearSystem` (see its ``eigenmodes``)
        with the stiffness of gravity, loads, springs and joint reactions."""
        from .solvers.eigen import linearize
        return linearize(self.assemble(), q, t, about, q0=q0)

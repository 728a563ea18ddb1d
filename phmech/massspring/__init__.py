"""Mass-spring networks in 2D and 3D with distance constraints.

The API of the source document (``seeds/002``): ``MassSpringSystem2d()`` /
``MassSpringSystem3d()`` (or ``MassSpringSystem(dim)``), ``mss.gravity``,
``mss.add(Fix(pos))`` and ``mss.add(Mass(m, pos))`` returning handles,
``Spring(length, stiffness, (a, b))``, ``Chain(...)`` (tension only),
``DistanceConstraint(length, (a, b))``, ``mss.simulate(tend, steps)`` and
the lists ``mss.masses``, ``mss.springs``, ``mss.constraints``.  Beyond it:
``rho_inf``, time-dependent gravity and nodal loads (``Force``), dashpots,
a :class:`MassSpringResult` with trajectory, energies and multipliers,
the spring, chain and dashpot forces as compiled kernels with exact
Jacobians (:mod:`phmech.massspring.kernels`) on a fixed sparse pattern,
statics and modes, and :func:`network_body`: the network as a body of
:class:`phmech.System`, whose forces the compiled residual evaluates with the
same kernels.
"""
from .body import NetworkBody, network_body
from .elements import Chain, Connector, Dashpot, DistanceConstraint, Fix, Force, Mass, Spring
from .network import Network
from .problem import MassSpringProblem
from .system import MassSpringResult, MassSpringSystem, MassSpringSystem2d, MassSpringSystem3d

__all__ = ["MassSpringSystem", "MassSpringSystem2d", "MassSpringSystem3d", "Mass", "Fix", "Spring", "Chain",
           "Dashpot", "DistanceConstraint", "Force", "Connector", "Network", "MassSpringProblem",
           "MassSpringResult", "NetworkBody", "network_body"]

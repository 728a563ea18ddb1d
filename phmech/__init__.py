"""phmech: port-Hamiltonian finite-element flexible multibody dynamics.

The core (bodies, joints, system assembly, solvers) needs only numpy and
scipy; the flexible bodies in :mod:`phmech.fem` are discretized with
Firedrake and imported on demand.
"""
from .result import Result
from .rigid import PlanarRigidBody, PointMass
from .solvers import SolverError, solve
from .dae import ConsistencyError, DescriptorDAE
from .system import System

__version__ = "0.1.0"

__all__ = ["System", "DescriptorDAE", "ConsistencyError", "PlanarRigidBody", "PointMass",
           "Result", "solve", "SolverError", "__version__"]

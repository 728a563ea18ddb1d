"""phmech: port-Hamiltonian finite-element flexible multibody dynamics.

The core (bodies, joints, loads, assembly, solvers) needs only numpy and
scipy; the flexible bodies in :mod:`phmech.fem` are discretized with
Firedrake and imported on demand.
"""
from . import _moved
from .assembly import ConsistencyError, DescriptorDAE
from .bodies import PlanarRigidBody, PointMass, SpatialRigidBody
from .result import Result
from .solvers import SolverError, solve
from .system import System

__version__ = "0.2.0"

_moved.install()                 # the old import paths of 0.2 (phmech.loads, ...) for one release

__all__ = ["System", "DescriptorDAE", "ConsistencyError", "PlanarRigidBody", "PointMass",
           "SpatialRigidBody", "Result", "solve", "SolverError", "__version__"]

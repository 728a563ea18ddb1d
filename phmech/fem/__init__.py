"""Flexible bodies discretized with mixed finite elements in Firedrake.

Without Firedrake this package imports, and the first body that needs Firedrake raises
:class:`phmech._stack.FiredrakeMissingError`, whose message says how to install it.
"""
from .._stack import petsc_first, signpost

if not signpost():
    petsc_first()       # PETSc takes its own options only, not a script's (Firedrake would give it all)
from .beam import EulerBernoulliBeam, FloatingEulerBernoulliBeam, SimplySupportedBeam  # noqa: E402
from .beam_exact import GeometricallyExactBeam  # noqa: E402
from .elastic_solid import ElasticSolid  # noqa: E402
from .form_body import FormBody  # noqa: E402
from .plate import KirchhoffPlate, PlateLoad  # noqa: E402
from .plate_mindlin import MindlinPlate  # noqa: E402

__all__ = ["ElasticSolid", "EulerBernoulliBeam", "FloatingEulerBernoulliBeam", "GeometricallyExactBeam",
           "SimplySupportedBeam", "FormBody",
           "KirchhoffPlate", "MindlinPlate", "PlateLoad"]

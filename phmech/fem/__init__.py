"""Flexible bodies discretized with mixed finite elements in Firedrake."""
from .beam import EulerBernoulliBeam, FloatingEulerBernoulliBeam, SimplySupportedBeam
from .form_body import FormBody
from .plate import KirchhoffPlate, PlateLoad
from .plate_mindlin import MindlinPlate

__all__ = ["EulerBernoulliBeam", "FloatingEulerBernoulliBeam", "SimplySupportedBeam", "FormBody",
           "KirchhoffPlate", "MindlinPlate", "PlateLoad"]

"""Flexible bodies discretized with mixed finite elements in Firedrake."""
from .beam import FloatingEulerBernoulliBeam, SimplySupportedBeam

__all__ = ["FloatingEulerBernoulliBeam", "SimplySupportedBeam"]

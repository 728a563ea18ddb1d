"""Flexible bodies discretized with mixed finite elements in Firedrake."""
from .beam import EulerBernoulliBeam, FloatingEulerBernoulliBeam, SimplySupportedBeam

__all__ = ["EulerBernoulliBeam", "FloatingEulerBernoulliBeam", "SimplySupportedBeam"]

"""Joints: planar (revolute, weld, slider, angular-velocity driver) and spatial
(spherical, revolute, universal, prismatic, cylindrical, weld; relative-rotation driver)."""
from .base import Joint
from .planar import AngularVelocity, Revolute, Slider, Weld
from .spatial import Cylindrical, Prismatic, Revolute3, SpatialJoint, Spherical, Universal, Weld3

__all__ = ["Joint", "Revolute", "Weld", "Slider", "AngularVelocity", "SpatialJoint", "Spherical",
           "Revolute3", "Universal", "Prismatic", "Cylindrical", "Weld3"]

"""Rotations and small linear-algebra helpers shared by bodies, joints and loads."""
from .rotations import (E3, PlanarAngle, UnitQuaternion, quat_from_axis_angle, quat_multiply,
                        rot2, rot3, skew)

__all__ = ["E3", "PlanarAngle", "UnitQuaternion", "quat_from_axis_angle", "quat_multiply",
           "rot2", "rot3", "skew"]

"""Bodies: rigid (planar, spatial), point masses and the floating-frame bases of flexible bodies."""
from .base import Body, FixedBody, FloatingFrameBody, Port, SpatialFrameBody
from .rigid import PlanarRigidBody, PointMass, SpatialRigidBody

__all__ = ["Body", "Port", "FixedBody", "FloatingFrameBody", "SpatialFrameBody", "PlanarRigidBody",
           "PointMass", "SpatialRigidBody"]

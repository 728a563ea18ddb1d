"""The rigid bodies with inertial translational velocities of the impact problems,
:class:`~phmech.bodies.inertial.Disc` and :class:`~phmech.bodies.inertial.Top` (defined, with
their compiled kinematics, in :mod:`phmech.bodies.inertial`)."""
from ..bodies.inertial import Disc, Top

__all__ = ["Disc", "Top"]

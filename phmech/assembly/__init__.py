"""Assembly: index layout, kinematics, constraints, energy and initial values of a system.

``DescriptorDAE(system)`` scatters what every body, joint and load
declares into one index-2 descriptor DAE (see :mod:`phmech.assembly.dae`).
"""
from .dae import DescriptorDAE
from .initial import ConsistencyError
from .layout import Layout

__all__ = ["DescriptorDAE", "ConsistencyError", "Layout"]

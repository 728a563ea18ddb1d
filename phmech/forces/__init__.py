"""Loads and force elements: what acts on the bodies besides the joints.

:mod:`~phmech.forces.loads`
    gravity, port forces and moments, distributed loads (kernels in
    :mod:`~phmech.forces.loads_kernels`);
:mod:`~phmech.forces.elements`
    springs, dampers, torsional springs and bushings between ports (kernels in
    :mod:`~phmech.forces.elements_kernels`, the compiled family in
    :mod:`~phmech.forces.group`);
:mod:`~phmech.forces.actuators`
    bodies attached to a plate port and proof-mass actuators.
"""
from .elements import Bushing, ForceElement, ForceGroup, PortDamper, SpringDamper, TorsionalSpringDamper
from .loads import Gravity, Load, PortForce, PortMoment

__all__ = ["Bushing", "ForceElement", "ForceGroup", "PortDamper", "SpringDamper", "TorsionalSpringDamper",
           "Gravity", "Load", "PortForce", "PortMoment"]

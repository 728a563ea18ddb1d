"""The frame gauge of the consistent beams: the ratio of a floating frame's rotation rate to the
rotation efforts it is written with.

A consistent beam fixes its floating frame by a gauge on one displacement
coordinate ``x`` (the axial slope at the root, :mod:`phmech.fem.beam_nonlinear`,
:mod:`phmech.fem.beam3d_nonlinear`); its frame turns at ``sigma omega`` with

.. math::

    \\sigma(x) = \\frac{d}{d + c\\,x}.

The beams' kinematics and efforts, the frame-rate joints
(:mod:`phmech.fem.frame_rate`) and the loads on a beam's frame
(:mod:`phmech.forces.loads_kernels`) evaluate it here.
"""
from ..kernels.jit import jit as _jit


@_jit
def frame_scale(d, c, x):
    """``sigma = d / (d + c x)`` and ``d sigma / d x``."""
    s = d / (d + c * x)
    return s, -s * s * c / d

"""Reusable mechanisms, built from the public API.

Models a user can start from, and the ones the validation cases, the tests,
the kernel warm-up and the documentation share:

* :func:`rigid_crank_slider`, :func:`flexible_crank_slider` -- the crank-slider
  of the thesis validation case, rigid or with a flexible coupler
  (:mod:`phmech.mechanisms.crank_slider`);
* :class:`FourBar`, :func:`flexible_four_bar` -- the flexible four-bar of Kitis &
  Lindenberg, linearized at any crank angle (:mod:`phmech.mechanisms.four_bar`);
* :func:`hinged_spatial_beam` -- a 3D beam on a spherical joint under a torque and a
  tip force (:mod:`phmech.mechanisms.hinged_beam`).

The flexible ones need Firedrake (imported when they are built).

Examples
--------
>>> from phmech.mechanisms import rigid_crank_slider
>>> system, crank, coupler, slider = rigid_crank_slider()
>>> [b.name for b in system.bodies]
['crank', 'coupler', 'slider']
"""
from .crank_slider import flexible_crank_slider, rigid_crank_slider
from .four_bar import FourBar, flexible_four_bar
from .hinged_beam import hinged_spatial_beam

__all__ = ["rigid_crank_slider", "flexible_crank_slider", "FourBar", "flexible_four_bar", "hinged_spatial_beam"]

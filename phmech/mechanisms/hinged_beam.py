"""Hinged spatial beam: a 3D floating beam on a spherical joint, under a torque and a tip force.

Length 141.42, section 9, second moments 6.75, density 7.8e-3, Young's
modulus 2.1e6 (millimetre-based units); hinged at one end, along the x axis
at rest.  A torque about the vertical axis (``torque``: ramped up over
0.2 s, held to 10 s, ramped down by 10.2 s) and a vertical tip force
(``tip_force``: a triangular pulse over 15.0-15.4 s).
"""
import numpy as np

from .._checks import overridden
from ..system import System

DATA = dict(L=141.42, A=9.0, I=6.75, rho=7.8e-3, E=2.1e6, torque=200.0, force=100.0)
UNITS = "length mm, time s; mass and force in the units implied by rho = 7.8e-3 and E = 2.1e6"


def torque(t, M=DATA["torque"]):
    """Trapezoidal torque history: ramp up 0-0.2 s, hold to 10 s, ramp down by 10.2 s."""
    return M * np.clip(min(t / 0.2, (10.2 - t) / 0.2), 0.0, 1.0)


def tip_force(t, F=DATA["force"]):
    """Triangular pulse over 15.0-15.4 s with peak F at 15.2 s."""
    return F * max(0.0, 1.0 - abs(t - 15.2) / 0.2)


def hinged_spatial_beam(n_elem=6, with_force=True, geometric_stiffness=False, **overrides):
    """The hinged beam (``DATA``, any entry overridden); returns ``(system, beam)``.

    ``with_force=False`` leaves out the tip force; ``geometric_stiffness=True`` takes
    the geometrically consistent beam, the torque then acting on its frame.
    """
    p = overridden(DATA, overrides, "hinged_spatial_beam")
    moment = (lambda t: (0.0, 0.0, torque(t, p["torque"])))
    if geometric_stiffness:
        from ..fem.beam3d_nonlinear import FrameMoment, NonlinearSpatialBeam
        beam = NonlinearSpatialBeam("beam", p["L"], n_elem, p["rho"], p["A"], p["E"], p["I"], p["I"])
        s = System([beam])
        s.sphere(beam.port("A"), name="hinge")
        s.add_load(FrameMoment(beam, moment, name="torque"))
    else:
        from ..fem.beam3d import FloatingSpatialBeam
        beam = FloatingSpatialBeam("beam", p["L"], n_elem, p["rho"], p["A"], p["E"], p["I"], p["I"])
        s = System([beam])
        s.sphere(beam.port("A"), name="hinge")
        s.apply_moment(beam.port("A"), moment, name="torque")
    if with_force:
        s.apply_force(beam.port("B"), lambda t: (0.0, 0.0, tip_force(t, p["force"])), name="tip force")
    return s, beam

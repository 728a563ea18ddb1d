"""The crank-slider: rigid, or with a flexible coupler (the thesis validation case).

Rigid crank 0.15 m turning at 150 rad/s, coupler 0.3 m (6 mm circular steel
section: E = 2e11 Pa, rho = 7870 kg/m^3), slider on a horizontal guide.
"""
import numpy as np

from ..bodies import PlanarRigidBody, PointMass
from .._checks import overridden
from ..system import System

#: data of the thesis (Ellenbroek & Schilder 2018 geometry)
DATA = dict(L_crank=0.15, omega=150.0, L=0.3, d=6e-3, E=2.0e11, rho=7870.0, m_slider=0.033,
            m_crank=0.36)


def rigid_crank_slider(L1=0.15, L2=0.3, omega=150.0, m_crank=0.36, m_coupler=0.151104, m_slider=0.075552):
    """The rigid crank-slider of the thesis validation case.

    A crank of length ``L1`` pinned to the ground and driven at the constant rate
    ``omega`` [rad/s], a coupler of length ``L2`` (both uniform rods) and a slider
    (point mass) on a horizontal guide; the coupler's mass is that of the 6 mm steel
    coupler of the flexible case.

    Returns
    -------
    (System, PlanarRigidBody, PlanarRigidBody, PointMass)
        The system and its crank, coupler and slider, started at crank angle 0.
    """
    crank = PlanarRigidBody.rod("crank", m_crank, L1)
    coupler = PlanarRigidBody.rod("coupler", m_coupler, L2, position=(L1, 0.0))
    slider = PointMass("slider", m_slider, position=(L1 + L2, 0.0))
    s = System([crank, coupler, slider])
    s.pin(crank.port("A"))
    s.drive(crank, omega)
    s.connect(crank.port("B"), coupler.port("A"))
    s.connect(coupler.port("B"), slider.port("P"))
    s.slide(slider, (1.0, 0.0))
    return s, crank, coupler, slider


def flexible_crank_slider(n_elem=8, geometric_stiffness=False, coupler=None, **overrides):
    """The crank-slider with a flexible coupler (``DATA``, any entry overridden); returns ``(system, bodies)`` with bodies crank, coupler, slider.

    ``geometric_stiffness=True``: the coupler is the geometrically consistent beam
    (:class:`~phmech.fem.beam_nonlinear.NonlinearFloatingBeam`), else the linear floating frame.
    ``coupler``: a body used as the coupler instead (ports ``A`` and ``B``, placed at the crank
    pin; e.g. the beam reduced by :func:`phmech.reduce.craig_bampton`).
    """
    from ..fem import FloatingEulerBernoulliBeam
    from ..fem.beam_nonlinear import NonlinearFloatingBeam

    p = overridden(DATA, overrides, "flexible_crank_slider")
    A = np.pi * p["d"] ** 2 / 4
    I = np.pi * p["d"] ** 4 / 64
    crank = PlanarRigidBody.rod("crank", p["m_crank"], p["L_crank"])
    Beam = NonlinearFloatingBeam if geometric_stiffness else FloatingEulerBernoulliBeam
    if coupler is None:
        coupler = Beam("coupler", p["L"], n_elem, p["rho"], A, p["E"], I,
                       frame="simply_supported", position=(p["L_crank"], 0.0))
    slider = PointMass("slider", p["m_slider"], position=(p["L_crank"] + p["L"], 0.0))
    system = System([crank, coupler, slider])
    system.pin(crank.port("A"), name="crank bearing")
    system.drive(crank, p["omega"], name="motor")
    system.connect(crank.port("B"), coupler.port("A"), name="crank pin")
    system.connect(coupler.port("B"), slider.port("P"), name="slider pin")
    system.slide(slider, direction=(1.0, 0.0), name="guide")
    return system, {"crank": crank, "coupler": coupler, "slider": slider}

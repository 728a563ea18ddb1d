"""Small reusable mechanisms, built from the public API.

These are models a user can start from, and the ones the tests, the
kernel warm-up and the documentation share.
"""
from .bodies import PlanarRigidBody, PointMass
from .system import System


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

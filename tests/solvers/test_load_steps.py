"""Load stepping of the static equilibrium (:func:`phmech.solvers.static.equilibrium` with
``load_steps``) on the von Mises truss: a point on a vertical guide held by two springs to
the ground at ``(-a, 0)`` and ``(a, 0)``, unloaded at height ``h``, under a downward force
``P``.  With ``y`` the height and ``L(y) = sqrt(a^2 + y^2)`` the springs' length, the
vertical balance is ``P = 2 k (L0 - L(y)) y / L(y)``: the load rises to a limit load ``P_max``
at a height ``y_lim`` and falls to zero at ``y = 0`` (snap-through beyond it).
"""
import numpy as np
import pytest
from scipy.optimize import brentq, minimize_scalar

from phmech import PointMass, System
from phmech.solvers.static import EquilibriumError, equilibrium

A, H, K = 1.0, 0.5, 1000.0
L0 = np.hypot(A, H)


def _load(y):
    L = np.hypot(A, y)
    return 2.0 * K * (L0 - L) * y / L


def _limit():
    """``(y_lim, P_max)``: the largest load the arch carries (the maximum of ``_load`` on (0, h))."""
    res = minimize_scalar(lambda y: -_load(y), bounds=(0.0, H), method="bounded", options={"xatol": 1e-12})
    return res.x, -res.fun


def _truss(P):
    apex = PointMass("apex", 1.0, position=(0.0, H))
    s = System([apex])
    s.slide(apex.port("P"), (0.0, 1.0))
    s.add_spring(apex.port("P"), stiffness=K, at=(-A, 0.0), name="left")
    s.add_spring(apex.port("P"), stiffness=K, at=(A, 0.0), name="right")
    s.apply_force(apex.port("P"), (0.0, -P))
    return s.assemble()


def _height(dae, y):
    return dae.split(y)[0][1]


@pytest.mark.parametrize("fraction", [0.5, 0.95])
def test_load_steps_follow_the_near_branch(fraction):
    """Below the limit load the continuation stays on the branch from the start: the height
    against the closed form's root above ``y_lim``, to the Newton tolerance."""
    y_lim, P_max = _limit()
    P = fraction * P_max
    dae = _truss(P)
    y = equilibrium(dae, load_steps=10)
    want = brentq(lambda x: _load(x) - P, y_lim, H, xtol=1e-14)
    assert abs(_height(dae, y) - want) < 1e-8, (_height(dae, y), want)


def test_load_steps_report_the_limit_point():
    """Above the limit load there is no equilibrium on the near branch: the continuation stops
    at the limit point and names its load factor, ``P_max / P``, instead of jumping to the
    inverted arch."""
    y_lim, P_max = _limit()
    P = 1.25 * P_max
    with pytest.raises(EquilibriumError, match="limit point near the load factor") as err:
        equilibrium(_truss(P), load_steps=8)
    factor = float(str(err.value).split("load factor ")[1].split()[0])
    assert abs(factor - P_max / P) < 2e-3 * (P_max / P), (factor, P_max / P)


def test_load_steps_from_the_inverted_arch():
    """The far branch: started from the inverted arch (height ``-h``, springs at rest again) the
    continuation carries the load that the upright arch cannot, at a height below ``-h``
    (the root of the closed form there)."""
    _, P_max = _limit()
    P = 1.25 * P_max
    dae = _truss(P)
    q0 = dae.q0.copy()
    q0[1] = -H
    y = equilibrium(dae, q0=q0, load_steps=4)
    want = brentq(lambda x: _load(x) - P, -10.0, -H, xtol=1e-14)
    assert abs(_height(dae, y) - want) < 1e-8, (_height(dae, y), want)


def test_load_steps_must_be_a_positive_integer():
    dae = _truss(1.0)
    for bad in (0, -2, 1.5, True, "3"):
        with pytest.raises(ValueError, match="load_steps must be a positive integer"):
            equilibrium(dae, load_steps=bad)

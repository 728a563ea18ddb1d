"""Bad input to contacts, nonsmooth problems, their solvers and event functions: each case raises
exactly the given error type with a message naming the contact (or event), the parameter and the
offending value; the problems of one contact are collected into one error."""
import re
import warnings

import numpy as np
import pytest

from phmech import System
from phmech.bodies.rigid import PointMass
from phmech.contact import NonsmoothProblem, PenetrationWarning, PointPlane, SphereSphere, simulate
from phmech.contact.bodies import Disc, Top

CASES = []


def case(name, error, *patterns):
    """Register a function as a case that raises ``error`` with every pattern in its message."""
    def deco(fn):
        CASES.append(pytest.param(fn, error, patterns, id=name))
        return fn
    return deco


def _disc(y=1.0):
    return Disc("ball", 1.0, 0.005, position=(0.0, y))


def _ball(y=1.0, **law):
    """The bouncing ball of :mod:`phmech.validation.bouncing_ball` (radius 0.1, centre at ``y``)."""
    ball = _disc(y)
    s = System([ball])
    s.add_gravity((0.0, -9.81))
    p = NonsmoothProblem(s, [PointPlane(ball.port("C"), (0.0, 1.0), radius=0.1, name="ground", **law)])
    y0 = np.zeros(p.n)
    y0[p.sq] = [0.0, y, 0.0]
    return p, y0


# -- parameters of one contact ------------------------------------------------------------------
@case("NaN normal", ValueError, r"contact 'floor': normal must be 2 finite numbers, not all zero, got \(0\.0, nan\)")
def _():
    PointPlane(_disc().port("C"), (0.0, float("nan")), name="floor")


@case("zero normal", ValueError, r"contact 'floor': normal must be 2 finite numbers, not all zero, got \[0, 0\]")
def _():
    PointPlane(_disc().port("C"), [0, 0], name="floor")


@case("spatial normal on a planar port", ValueError, r"contact 'floor': normal must be 2 finite numbers.*"
      r"got \(0, 0, 1\)")
def _():
    PointPlane(_disc().port("C"), (0, 0, 1), name="floor")


@case("infinite plane point", ValueError, r"contact 'floor': point must be 2 finite numbers, got \(0\.0, inf\)")
def _():
    PointPlane(_disc().port("C"), (0.0, 1.0), point=(0.0, np.inf), name="floor")


@case("restitution above one", ValueError, r"contact 'floor': e_N must lie in \[0, 1\], got 1\.5")
def _():
    PointPlane(_disc().port("C"), (0.0, 1.0), e_N=1.5, name="floor")


@case("NaN restitution", ValueError, r"contact 'floor': e_N must be non-negative and finite, got nan")
def _():
    PointPlane(_disc().port("C"), (0.0, 1.0), e_N=float("nan"), name="floor")


@case("negative tangential restitution", ValueError, r"contact 'floor': e_F must be non-negative and finite, "
      r"got -0\.1")
def _():
    PointPlane(_disc().port("C"), (0.0, 1.0), e_F=-0.1, mu=0.3, name="floor")


@case("negative friction", ValueError, r"contact 'floor': mu must be non-negative and finite, got -0\.2")
def _():
    PointPlane(_disc().port("C"), (0.0, 1.0), mu=-0.2, name="floor")


@case("infinite friction", ValueError, r"contact 'floor': mu must be non-negative and finite, got inf")
def _():
    PointPlane(_disc().port("C"), (0.0, 1.0), mu=np.inf, name="floor")


@case("friction as text", ValueError, r"contact 'floor': mu must be a number, got 'high'")
def _():
    PointPlane(_disc().port("C"), (0.0, 1.0), mu="high", name="floor")


@case("restitution as bool", ValueError, r"contact 'floor': e_N must be a number, got True")
def _():
    PointPlane(_disc().port("C"), (0.0, 1.0), e_N=True, name="floor")


@case("negative radius", ValueError, r"contact 'floor': radius must be non-negative and finite, got -0\.1")
def _():
    PointPlane(_disc().port("C"), (0.0, 1.0), radius=-0.1, name="floor")


@case("NaN radius", ValueError, r"contact 'floor': radius must be non-negative and finite, got nan")
def _():
    PointPlane(_disc().port("C"), (0.0, 1.0), radius=np.nan, name="floor")


@case("Contensou radius on a planar port", ValueError, r"contact 'drill': contensou_radius needs a spatial port, "
      r"got 0\.001 for the planar port 'ball\.C'")
def _():
    PointPlane(_disc().port("C"), (0.0, 1.0), mu=0.1, contensou_radius=1e-3, name="drill")


@case("negative penetration tolerance", ValueError, r"contact 'floor': penetration_tol must be non-negative "
      r"and finite, got -1e-06")
def _():
    PointPlane(_disc().port("C"), (0.0, 1.0), penetration_tol=-1e-6, name="floor")


@case("a body instead of a port", ValueError, r"contact 'floor': port must be a port of a body "
      r"\(body\.port\(name\)\), got Disc\('ball'")
def _():
    PointPlane(_disc(), (0.0, 1.0), name="floor")


@case("name not a string", ValueError, r"contact '42': name must be a string, got 42")
def _():
    PointPlane(_disc().port("C"), (0.0, 1.0), name=42)


@case("all problems of one contact in one error", ValueError, r"contact 'floor': 4 invalid parameters",
      r"\n  normal must be 2 finite numbers, not all zero, got \(0\.0, 0\.0\)",
      r"\n  e_N must lie in \[0, 1\], got 2\.0", r"\n  mu must be non-negative and finite, got -0\.1",
      r"\n  radius must be non-negative and finite, got -1")
def _():
    PointPlane(_disc().port("C"), (0.0, 0.0), radius=-1, e_N=2.0, mu=-0.1, name="floor")


@case("sphere radii", ValueError, r"contact 'pair': 2 invalid parameters",
      r"r1 must be non-negative and finite, got -0\.05", r"r2 must be non-negative and finite, got nan")
def _():
    a, b = PointMass("a", 1.0), PointMass("b", 1.0, position=(1.0, 0.0))
    SphereSphere(a.port("P"), b.port("P"), -0.05, np.nan, name="pair")


@case("spheres of different dimension", ValueError, r"contact 'pair': ports 'a\.P' and 'top\.C' are of "
      r"different dimension \(2 and 3\)")
def _():
    SphereSphere(PointMass("a", 1.0).port("P"), Top("top", 0.1, (1e-4, 1e-4, 2e-4)).port("C"), name="pair")


@case("a sphere against itself", ValueError, r"contact 'self': port1 and port2 are the same port 'a\.P'")
def _():
    a = PointMass("a", 1.0)
    SphereSphere(a.port("P"), a.port("P"), 0.1, 0.1, name="self")


# -- the nonsmooth problem ----------------------------------------------------------------------------
@pytest.mark.parametrize("gap_tol", [float("nan"), -1e-9, float("inf"), "small", None])
def test_gap_tol_is_checked(gap_tol):
    """A NaN or negative closing tolerance lets the ball fall through the floor: refused."""
    ball = _disc()
    with pytest.raises(ValueError, match=r"NonsmoothProblem: gap_tol must be a finite non-negative length "
                       r"\(a contact closes for g_N <= gap_tol\), got " + re.escape(repr(gap_tol))):
        NonsmoothProblem(System([ball]), [PointPlane(ball.port("C"), (0.0, 1.0))], gap_tol=gap_tol)


@case("problem: not a contact", ValueError, r"contacts\[1\] must be a contact \(PointPlane, SphereSphere, "
      r"\.\.\.\), got 'floor'")
def _():
    ball = _disc()
    NonsmoothProblem(System([ball]), [PointPlane(ball.port("C"), (0.0, 1.0), name="ground"), "floor"])


@case("problem: a single contact, not a list", ValueError, r"NonsmoothProblem: contacts must be a list of "
      r"contacts, got <phmech\.contact\.contacts\.PointPlane")
def _():
    ball = _disc()
    NonsmoothProblem(System([ball]), PointPlane(ball.port("C"), (0.0, 1.0), name="ground"))


@case("problem: name twice and a stray body", ValueError, r"contact 'ground': the name is used twice",
      r"contact 'wall': body 'stray' is not in the system")
def _():
    ball, stray = _disc(), PointMass("stray", 1.0)
    NonsmoothProblem(System([ball]), [PointPlane(ball.port("C"), (0.0, 1.0), name="ground"),
                                      PointPlane(ball.port("C"), (1.0, 0.0), name="ground"),
                                      PointPlane(stray.port("P"), (1.0, 0.0), name="wall")])


# -- solvers: the initial state -----------------------------------------------------------------------
@case("unknown initial_penetration", ValueError, r"moreau: option initial_penetration must be 'warn', 'raise' "
      r"or 'project', got 'ignore'")
def _():
    p, y0 = _ball()
    simulate(p, (0.0, 0.1), y0, dt=1e-3, initial_penetration="ignore")


@case("initial penetration refused", ValueError, r"moreau: the initial state penetrates at t = 0: contact "
      r"'ground' is 0\.05 deep \(its penetration_tol is 0\.01\)")
def _():
    p, y0 = _ball(0.05)                  # the centre 5 cm above the floor: 5 cm inside
    simulate(p, (0.0, 0.1), y0, dt=1e-3, initial_penetration="raise")


@case("projection of a beam's stress gap", ValueError, r"NonsmoothProblem\.project: the gaps of contacts "
      r"\['stop'\] depend on the stresses")
def _():
    pytest.importorskip("firedrake")
    from phmech.validation._contact_beam import beam_model
    p, y0, _ = beam_model()
    c = p.contacts[0]
    y = y0.copy()
    y[p.se] -= 1.0 * c.gap_rows / (c.gap_rows @ c.gap_rows) * (p.contact_state(y[p.sq], y[p.se])[0][0] + 1e-3)
    p.project(y)


# -- events -----------------------------------------------------------------------------------------
def _nan_at_start(t, y):
    return np.nan


def _nan_later(t, y):
    return y[1] - 0.5 if t < 0.2 else float("nan")


def _text(t, y):
    return "high"


def _nan_inside_steps(t, y):
    """Finite at the step points (multiples of 1e-3), NaN between them: the root finder meets it."""
    return t - 0.2505 if abs(t / 1e-3 - round(t / 1e-3)) < 1e-6 else float("nan")


@case("event NaN at the start", ValueError, r"moreau: event 0 \('_nan_at_start'\) returned nan at t = 0; "
      r"an event function must return a number \(NaN is never a zero crossing\)")
def _():
    p, y0 = _ball()
    simulate(p, (0.0, 0.1), y0, dt=1e-3, events=[_nan_at_start])


@case("event NaN during the run", ValueError, r"moreau: event 1 \('_nan_later'\) returned nan at t = 0\.2(00)?\d*;")
def _():
    p, y0 = _ball()
    simulate(p, (0.0, 0.5), y0, dt=1e-3, events=[lambda t, y: y[1] - 0.1, _nan_later])


@case("event returns text", ValueError, r"moreau: event 0 \('_text'\) returned 'high' at t = 0;")
def _():
    p, y0 = _ball()
    simulate(p, (0.0, 0.1), y0, dt=1e-3, events=[_text])


@case("event NaN inside a step", ValueError, r"moreau: event 0 \('_nan_inside_steps'\) returned nan at "
      r"t = 0\.250\d*;")
def _():
    p, y0 = _ball()
    simulate(p, (0.0, 0.3), y0, dt=1e-3, events=[_nan_inside_steps])


@pytest.mark.parametrize("fn, error, patterns", CASES)
def test_bad_input(fn, error, patterns):
    with warnings.catch_warnings():
        warnings.simplefilter("error", PenetrationWarning)       # no case may pass through a warning
        with pytest.raises(error) as err:
            fn()
    assert type(err.value) is error
    for pat in patterns:
        assert re.search(pat, str(err.value)), (pat, str(err.value))


def test_event_nan_midpoint():
    """The event check is the driver's: the smooth solvers refuse a NaN event the same way."""
    from phmech.bodies.rigid import PointMass as PM
    from phmech.solvers import solve
    m = PM("m", 1.0)
    s = System([m])
    s.add_gravity((0.0, -9.81))
    dae = s.assemble()
    with pytest.raises(ValueError, match=r"midpoint: event 0 \('<lambda>'\) returned nan at t = 0;"):
        solve(dae, (0.0, 0.1), dae.initial_state(), method="midpoint", dt=1e-2,
              events=[lambda t, y: float("nan")])

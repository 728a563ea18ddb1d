"""Bad input: every case raises one clear error naming the offending object and value.

Each case of :data:`CASES` is a function that must raise exactly the
given exception type, with a message matching the given pattern (the
object's name and the offending value).  The command-line cases of
:data:`CLI_CASES` must stop with an argparse usage error before any
computation.  ``python tests/contract/test_bad_input.py`` prints the table
case -> error.
"""
import importlib
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from conftest import needs_firedrake  # noqa: E402
from mechanisms import rigid_crank_slider  # noqa: E402
from phmech import ConsistencyError, PlanarRigidBody, PointMass, SpatialRigidBody, System  # noqa: E402
from phmech.joints import Revolute  # noqa: E402
from phmech.solvers import SolverError  # noqa: E402,F401  (listed in the table of error types)

CASES = []


def case(name, error, match, *marks):
    """Register a function as a bad-input case that raises ``error`` matching ``match``."""
    def deco(fn):
        CASES.append(pytest.param(fn, error, match, id=name, marks=marks))
        return fn
    return deco


def _dae():
    s, crank, coupler, slider = rigid_crank_slider()
    return s, s.assemble()


def _y0():
    s, dae = _dae()
    return s, dae, dae.initial_state()


# -- bodies ------------------------------------------------------------------
@case("negative mass", ValueError, r"body 'crank': mass must be positive and finite, got -0\.36")
def _():
    PlanarRigidBody("crank", mass=-0.36, inertia=1e-3)


@case("zero mass", ValueError, r"body 'slider': mass must be positive and finite, got 0")
def _():
    PointMass("slider", 0.0)


@case("zero length", ValueError, r"body 'crank': length must be positive and finite, got 0\.0")
def _():
    PlanarRigidBody.rod("crank", 0.36, 0.0)


@case("NaN inertia", ValueError, r"body 'crank': inertia must be non-negative and finite, got nan")
def _():
    PlanarRigidBody("crank", 0.36, float("nan"))


@case("inf position", ValueError, r"body 'slider': position must be 2 or 3 finite numbers, got \(inf, 0\.0\)")
def _():
    PointMass("slider", 0.033, position=(np.inf, 0.0))


@case("position of wrong shape", ValueError, r"body 'crank': position must be 2 finite number\(s\), got \(1, 2, 3\)")
def _():
    PlanarRigidBody("crank", 0.36, 1e-3, position=(1, 2, 3))


@case("center of wrong shape", ValueError, r"body 'crank': center must be 2 finite numbers, got \(0\.1,\)")
def _():
    PlanarRigidBody("crank", 0.36, 1e-3, center=(0.1,))


@case("non-unit quaternion", ValueError,
      r"body 'bar': orientation quaternion \(1, 1, 0, 0\) is not a unit quaternion \(norm 1\.41421\)")
def _():
    SpatialRigidBody("bar", 1.0, (1.0, 1.0, 1.0), orientation=(1, 1, 0, 0))


@case("zero quaternion", ValueError, r"body 'bar': orientation must be a non-zero quaternion, got \(0, 0, 0, 0\)")
def _():
    SpatialRigidBody("bar", 1.0, (1.0, 1.0, 1.0), orientation=(0, 0, 0, 0))


@case("indefinite inertia tensor", ValueError, r"body 'bar': inertia must be a symmetric positive semi-definite")
def _():
    SpatialRigidBody("bar", 1.0, (1.0, -1.0, 1.0))


@case("empty body name", ValueError, r"a body needs a non-empty name, got ''")
def _():
    PointMass("", 1.0)


@case("unknown port", KeyError, r"body 'crank' has no port 'C'; its ports are \['A', 'B', 'P'\]")
def _():
    PlanarRigidBody.rod("crank", 0.36, 0.15).port("C")


@case("port position NaN", ValueError, r"body 'crank', port 'G': position must be 2 finite numbers, got array\(\[nan,  0\.\]\)")
def _():
    PlanarRigidBody.rod("crank", 0.36, 0.15).add_point("G", (np.nan, 0.0))


@case("duplicate port", ValueError, r"body 'crank', port 'A': a port with this name exists already")
def _():
    PlanarRigidBody.rod("crank", 0.36, 0.15).add_point("A", (0.0, 0.0))


# -- system and joints -------------------------------------------------------
@case("duplicate body name", ValueError, r"a body named 'crank' is already in the system")
def _():
    System([PlanarRigidBody.rod("crank", 0.36, 0.15), PlanarRigidBody.rod("crank", 0.2, 0.3)])


@case("duplicate joint name", ValueError, r"a joint named 'guide' is already in the system")
def _():
    s, crank, coupler, slider = rigid_crank_slider()
    s.slide(slider, (1.0, 0.0), name="guide")
    s.slide(slider, (0.0, 1.0), name="guide")


@case("duplicate load name", ValueError, r"a load named 'push' is already in the system")
def _():
    s, crank, coupler, slider = rigid_crank_slider()
    s.apply_force(slider.port("P"), (1.0, 0.0), name="push")
    s.apply_force(slider.port("P"), (2.0, 0.0), name="push")


@case("not a body", TypeError, r"System.add: expected a body, got 'crank'")
def _():
    System(["crank"])


@case("joint port of a body not in the system", ConsistencyError,
      r"joint 'pin': body 'other' is not in the system")
def _():
    s, crank, coupler, slider = rigid_crank_slider()
    other = PlanarRigidBody.rod("other", 1.0, 1.0)
    s.add_joint(Revolute(crank.port("B"), other.port("A"), name="pin"))
    s.assemble()


@case("load on a body not in the system", ConsistencyError, r"load 'push': body 'other' is not in the system")
def _():
    s, *_ = rigid_crank_slider()
    other = PointMass("other", 1.0)
    s.apply_force(other.port("P"), (1.0, 0.0), name="push")
    s.assemble()


@case("joint between a port and itself", ValueError, r"joint 'pin': both ends are the same port 'crank.B'")
def _():
    crank = PlanarRigidBody.rod("crank", 0.36, 0.15)
    Revolute(crank.port("B"), crank.port("B"), name="pin")


@case("zero guide direction", ValueError, r"joint 'guide': direction must be a finite non-zero 2-vector, got \(0, 0\)")
def _():
    s, crank, coupler, slider = rigid_crank_slider()
    s.slide(slider, direction=(0, 0), name="guide")


@case("weld on a point mass", ValueError,
      r"joint 'weld\(slider.P, ground\)': port 'slider.P' has no rotational degree of freedom")
def _():
    s, crank, coupler, slider = rigid_crank_slider()
    s.clamp(slider.port("P"))


@case("planar joint on a spatial port", ValueError, r"joint 'pin': port 'bar.A' belongs to a spatial body")
def _():
    bar = SpatialRigidBody.bar("bar", 1.0, (0, 0, 0), (1, 0, 0))
    Revolute(bar.port("A"), None, name="pin")


@case("unknown planar joint type", ValueError, r"a planar joint must be one of \['revolute', 'weld'\], got 'hinge'")
def _():
    s, crank, coupler, slider = rigid_crank_slider()
    s.connect(crank.port("B"), coupler.port("A"), joint="hinge")


@case("unknown spatial joint type", ValueError, r"joint 'j': unknown spatial joint type 'ball'")
def _():
    a = SpatialRigidBody.bar("a", 1.0, (0, 0, 0), (1, 0, 0))
    System([a]).connect(a.port("A"), None, joint="ball", name="j")


@case("NaN driver", ValueError, r"joint 'motor2': omega must be 1 finite number\(s\), got nan")
def _():
    s, crank, coupler, slider = rigid_crank_slider()
    s.drive(crank, float("nan"), name="motor2")


@case("driver function of wrong shape", ValueError,
      r"joint 'motor2': omega\(t\) must return 1 value\(s\), got shape \(2,\)")
def _():
    s, crank, coupler, slider = rigid_crank_slider()
    s.drive(crank, lambda t: (1.0, 2.0), name="motor2")
    s.assemble()


@case("contradictory drivers", ConsistencyError,
      r"joint 'motor2': row 0 is redundant but prescribes a velocity that contradicts the other joints "
      r"\(mismatch -50\)")
def _():
    s, crank, coupler, slider = rigid_crank_slider()
    s.drive(crank, 100.0, name="motor2")      # the first driver prescribes 150 rad/s
    s.assemble()


# -- loads -------------------------------------------------------------------
@case("NaN force", ValueError, r"load 'push': force must be 2 finite number\(s\), got \(nan, 0\.0\)")
def _():
    s, crank, coupler, slider = rigid_crank_slider()
    s.apply_force(slider.port("P"), (np.nan, 0.0), name="push")


@case("force function returning inf", ValueError, r"load 'push': force\(t=0\.0\) returned non-finite values")
def _():
    s, crank, coupler, slider = rigid_crank_slider()
    s.apply_force(slider.port("P"), lambda t: (np.inf, 0.0), name="push")
    dae = s.assemble()
    dae.f(0.0, np.r_[dae.q0, np.zeros(dae.ne + dae.nl)])


@case("gravity of the wrong dimension", ValueError,
      r"load 'gravity\(crank\)': gravity must be 2 finite numbers for body 'crank'")
def _():
    s, *_ = rigid_crank_slider()
    s.add_gravity((0.0, -9.81, 0.0))


@case("negative damping", ValueError,
      r"force element 'damper\(slider.P\)': damping coefficient must be finite and non-negative, got -1\.0")
def _():
    s, crank, coupler, slider = rigid_crank_slider()
    s.add_damper(slider.port("P"), -1.0)


@case("moment on a point mass", ValueError, r"load 'moment\(slider.P\)': port 'slider.P' cannot carry a moment")
def _():
    s, crank, coupler, slider = rigid_crank_slider()
    s.apply_moment(slider.port("P"), 1.0)


@case("unknown load frame", ValueError, r"load 'push': frame must be 'inertial' or 'body', got 'global'")
def _():
    s, crank, coupler, slider = rigid_crank_slider()
    s.apply_force(crank.port("B"), (1.0, 0.0), frame="global", name="push")


# -- initial values ------------------------------------------------------------
def _off_guide():
    """The rigid crank-slider with the slider 1 cm above its guide (through the origin)."""
    crank = PlanarRigidBody.rod("crank", 0.36, 0.15)
    coupler = PlanarRigidBody.rod("coupler", 0.151104, 0.3, position=(0.15, 0.0))
    slider = PointMass("slider", 0.075552, position=(0.45, 0.01))
    s = System([crank, coupler, slider])
    s.pin(crank.port("A"), name="bearing")
    s.drive(crank, 150.0, name="motor")
    s.connect(crank.port("B"), coupler.port("A"), name="crank pin")
    s.connect(coupler.port("B"), slider.port("P"), name="slider pin")
    s.slide(slider, (1.0, 0.0), through=(0.0, 0.0), name="guide")
    return s


@case("inconsistent initial positions, check", ConsistencyError,
      r"inconsistent initial configuration \(2 problem\(s\)\):\n  - joint 'slider pin': position residual "
      r"\[\S+ +-1\.000e-02\] at t=0\.0\n  - joint 'guide': position residual \[0\.01\]")
def _():
    _off_guide().assemble().initial_state(positions="check")


@case("inconsistent initial velocities, project=False", ConsistencyError,
      r"inconsistent initial velocities \(1 problem\(s\)\):\n  - joint 'drive\(crank.P\)': velocity residual \[-150\.\]")
def _():
    s, dae = _dae()
    dae.initial_state(project=False)


@case("NaN initial configuration", ValueError,
      r"initial_state: non-finite initial values: q0\[3\] \(coupler.q.x\) = nan")
def _():
    s, dae = _dae()
    q0 = dae.q0.copy()
    q0[3] = np.nan
    dae.initial_state(q0=q0)


@case("initial efforts of wrong shape", ValueError, r"initial_state: q0 needs 8 and e0 needs 8 values, "
      r"got shapes \(8,\) and \(3,\)")
def _():
    s, dae = _dae()
    dae.initial_state(e0=np.zeros(3))


@case("unknown positions option", ValueError, r"initial_state: positions must be 'project' or 'check', got 'fix'")
def _():
    s, dae = _dae()
    dae.initial_state(positions="fix")


# -- solvers -----------------------------------------------------------------
@case("unknown solver", ValueError, r"unknown solver 'euler'; choose one of \[.*'ida', 'midpoint', .*'radau', 'radau5'\]")
def _():
    s, *_ = rigid_crank_slider()
    s.simulate(0.01, solver="euler")


@case("unknown solver option", ValueError, r"midpoint: unknown option\(s\) \['dt_max'\]")
def _():
    s, *_ = rigid_crank_slider()
    s.simulate(0.01, solver="midpoint", dt=1e-3, dt_max=1e-3)


@case("unknown option value", ValueError, r"midpoint: constraints must be 'midpoint' or 'endpoint', got 'start'")
def _():
    s, *_ = rigid_crank_slider()
    s.simulate(0.01, solver="midpoint", dt=1e-3, constraints="start")


@case("dt = 0", ValueError, r"midpoint: option dt must be positive and finite, got 0\.0")
def _():
    s, *_ = rigid_crank_slider()
    s.simulate(0.01, solver="midpoint", dt=0.0)


@case("dt < 0", ValueError, r"midpoint: option dt must be positive and finite, got -0\.001")
def _():
    s, *_ = rigid_crank_slider()
    s.simulate(0.01, solver="midpoint", dt=-1e-3)


@case("dt NaN", ValueError, r"midpoint: option dt must be positive and finite, got nan")
def _():
    s, *_ = rigid_crank_slider()
    s.simulate(0.01, solver="midpoint", dt=float("nan"))


@case("t_end = t0", ValueError, r"midpoint: t_end \(0\.0\) must be larger than t0 \(0\.0\)")
def _():
    s, *_ = rigid_crank_slider()
    s.simulate(0.0, solver="midpoint", dt=1e-3)


@case("t_end < t0", ValueError, r"radau: t_end \(-1\.0\) must be larger than t0 \(0\.0\)")
def _():
    s, *_ = rigid_crank_slider()
    s.simulate(-1.0, solver="radau")


@case("t_end NaN", ValueError, r"midpoint: t0 and t_end must be finite, got t0 = 0.0, t_end = nan")
def _():
    s, *_ = rigid_crank_slider()
    s.simulate(float("nan"), solver="midpoint", dt=1e-3)


@case("t_end inf", ValueError, r"midpoint: t0 and t_end must be finite, got t0 = 0.0, t_end = inf")
def _():
    s, *_ = rigid_crank_slider()
    s.simulate(float("inf"), solver="midpoint", dt=1e-3)


@case("t_eval outside the span", ValueError, r"midpoint: t_eval must lie in the integration span.*0\.5")
def _():
    s, *_ = rigid_crank_slider()
    s.simulate(0.01, solver="midpoint", dt=1e-3, t_eval=[0.0, 0.005, 0.5])


@case("t_eval unsorted", ValueError, r"radau: t_eval must be strictly increasing")
def _():
    s, *_ = rigid_crank_slider()
    s.simulate(0.01, solver="radau", t_eval=[0.0, 0.008, 0.004])


@case("rtol <= 0", ValueError, r"radau: option rtol must be positive and finite, got -1e-06")
def _():
    s, *_ = rigid_crank_slider()
    s.simulate(0.01, solver="radau", rtol=-1e-6)


@case("y0 of wrong shape", ValueError, r"midpoint: y0 has shape \(3,\), the system has 24 variables")
def _():
    s, *_ = rigid_crank_slider()
    s.simulate(0.01, solver="midpoint", dt=1e-3, y0=np.zeros(3))


@case("y0 with NaN", ValueError, r"midpoint: y0 has non-finite entries")
def _():
    s, dae, y0 = _y0()
    y0[5] = np.nan
    s.simulate(0.01, solver="midpoint", dt=1e-3, y0=y0)


# -- writers -----------------------------------------------------------------
@case("CSV column of the wrong length", ValueError, r"to_csv: column 'short' has shape \(3,\), expected \(21,\)")
def _(tmp_path):
    s, *_ = rigid_crank_slider()
    res = s.simulate(0.002, solver="midpoint", dt=1e-4)
    path = tmp_path / "short.csv"
    try:
        res.to_csv(str(path), {"short": np.zeros(3)})
    finally:
        assert not path.exists()


@case("CSV column with NaN", ValueError, r"to_csv: column 'bad' has non-finite values; not writing .*bad\.csv")
def _(tmp_path):
    s, *_ = rigid_crank_slider()
    res = s.simulate(0.002, solver="midpoint", dt=1e-4)
    path = tmp_path / "bad.csv"
    try:
        bad = np.ones(len(res.t))
        bad[1] = np.nan
        res.to_csv(str(path), {"ok": res.t, "bad": bad})
    finally:
        assert not path.exists()


@case("summary.json with inf", ValueError,
      r"summary.json: refusing to write the non-finite value inf of 'stats.wall_time'")
def _(tmp_path):
    from phmech.validation import _common
    try:
        _common.write_summary(str(tmp_path / "out"), "case", {"stats": {"wall_time": np.inf}})
    finally:
        assert not (tmp_path / "out" / "summary.json").exists()


@case("output directory is a file", ValueError, r"--outdir '.*taken' cannot be used for the output")
def _(tmp_path):
    from phmech.validation import _common
    (tmp_path / "taken").write_text("")
    _common.prepare_outdir(str(tmp_path / "taken"))


# -- small acceptances: bools are not numbers, unknown keywords, reserved columns --------------
def _mass_on_spring(**spring):
    mass = PointMass("mass", 2.5, (1.2, 0.0))
    s = System([mass])
    s.add_spring(mass.port("P"), None, **{"at": (0.0, 0.0), **spring})
    return s, mass


@case("spring stiffness True", ValueError,
      r"force element 'spring\(mass.P, ground\)': stiffness must be a number, got True \(a bool is not a number\)")
def _():
    _mass_on_spring(stiffness=True)


@case("spring damping numpy False", ValueError, r"damping must be a number, got (np\.)?False(_)?\)? \(a bool")
def _():
    _mass_on_spring(stiffness=1.0, damping=np.False_)


@case("spring rest length True", ValueError, r"rest length must be a number, got True \(a bool is not a number\)")
def _():
    _mass_on_spring(stiffness=1.0, rest_length=True)


@case("bushing stiffness True", ValueError,
      r"force element 'bushing\(rod.A, ground\)': stiffness matrix must be numbers, got True \(a bool")
def _():
    rod = PlanarRigidBody.rod("rod", 0.5, 0.3)
    System([rod]).add_bushing(rod.port("A"), None, stiffness=True)


@case("hinged_spatial_beam unknown keyword", TypeError,
      r"hinged_spatial_beam: unknown parameter\(s\) 'torqe'; the parameters are L, A, I, rho, E, torque, force")
def _():
    from phmech.mechanisms import hinged_spatial_beam
    hinged_spatial_beam(torqe=1.0)


@case("flexible_crank_slider unknown keyword", TypeError,
      r"flexible_crank_slider: unknown parameter\(s\) 'Omega', 'rho_'; the parameters are L_crank, omega")
def _():
    from phmech.mechanisms import flexible_crank_slider
    flexible_crank_slider(Omega=100.0, rho_=1.0)


@case("to_csv column t", ValueError, r"to_csv: column 't' is the time, written first; give your column another name")
def _(tmp_path):
    s, _ = _mass_on_spring(stiffness=90.0)
    res = s.simulate(0.01, dt=1e-3)
    res.to_csv(str(tmp_path / "out.csv"), {"t": res.t * 2, "x": res.t})


@case("law with math.sinh: complex step zero", ValueError,
      r"force element 'spring\(mass.P, ground\)': the complex step gives dF/dlength = 0 at length 1\.2, rate 0, "
      r"but the finite difference gives 91\.80\d+: the law drops the imaginary part of its arguments .* give "
      r"law_derivative=")
def _():
    import math
    s, _ = _mass_on_spring(law=lambda length, rate: 90.0 * math.sinh(length - 1.0))
    s.assemble()


@case("law with float(rate): complex step zero", ValueError,
      r"the complex step gives dF/drate = 0 at length 1\.2, rate 0, but the finite difference gives 5: ")
def _():
    s, _ = _mass_on_spring(law=lambda length, rate: 5.0 * float(rate) + 90.0 * np.sinh(length - 1.0))
    s.assemble()


@case("law of one argument", ValueError,
      r"force element 'spring\(mass.P, ground\)': law must take two arguments \(length, rate\), got <lambda>\(l\)")
def _():
    _mass_on_spring(law=lambda l: 90.0 * (l - 1.0))


@case("law_derivative of three arguments", ValueError,
      r"law_derivative must take two arguments \(length, rate\), got <lambda>\(l, r, t\)")
def _():
    _mass_on_spring(law=lambda l, r: 90.0 * (l - 1.0), law_derivative=lambda l, r, t: (90.0, 0.0))


@case("law returning a pair", ValueError,
      r"force element 'spring\(mass.P, ground\)': law\(1\.2, 0\.0\) returned \(.*\); it must return the "
      r"tension, one number")
def _():
    _mass_on_spring(law=lambda l, r: (90.0 * (l - 1.0), 0.0))[0].assemble()


@case("law returning text", ValueError, r"law\(1\.2, 0\.0\) returned 'tight'; it must return the tension")
def _():
    _mass_on_spring(law=lambda l, r: "tight")[0].assemble()


@case("law_derivative returning one number", ValueError,
      r"law_derivative\(1\.2, 0\.0\) returned .*; it must return the pair \(dF/dlength, dF/drate\)")
def _():
    _mass_on_spring(law=lambda l, r: 90.0 * (l - 1.0), law_derivative=lambda l, r: 90.0)[0].assemble()


@case("law raising", ValueError,
      r"force element 'spring\(mass.P, ground\)': law\(1\.2, 0\.0\) raised ZeroDivisionError: float division by "
      r"zero")
def _():
    _mass_on_spring(law=lambda l, r: 1.0 / 0.0 * l)[0].assemble()


def _actuator():
    from phmech.forces.actuators import ProofMassActuator
    return ProofMassActuator("shaker", np.diag([0.1] * 3 + [1e-4] * 3), 0.05, 2e3)


@case("actuator force 'loud'", ValueError,
      r"actuator 'shaker': force must be 1 finite number\(s\), got 'loud' \(or a function of time t\)")
def _():
    _actuator().force("loud")


@case("actuator force True", ValueError, r"actuator 'shaker': force must be 1 finite number\(s\), got True")
def _():
    _actuator().force(True)


@case("actuator force function returning text", ValueError,
      r"actuator 'shaker': force\(t=0\.0\) must return 1 number\(s\), got 'loud'")
def _():
    _actuator().force(lambda t: "loud").fun(0.0)


@case("steady_state tol=nan", ValueError, r"steady_state: option tol must be positive and finite, got nan")
def _():
    from phmech.solvers.steady import steady_state
    s, dae, y0 = _y0()
    steady_state(dae, y0, tol=float("nan"))


@case("steady_state max_iter=0", ValueError, r"steady_state: option max_iter must be a positive integer, got 0")
def _():
    from phmech.solvers.steady import steady_state
    s, dae, y0 = _y0()
    steady_state(dae, y0, max_iter=0)


@case("steady_state NaN in the guess", ValueError,
      r"steady_state: the guess y has 1 non-finite value\(s\): \S+ = nan")
def _():
    from phmech.solvers.steady import steady_state
    s, dae, y0 = _y0()
    y0[dae.se.start + 1] = np.nan
    steady_state(dae, y0)


@case("steady_state text guess", ValueError, r"steady_state: the guess y must be \d+ numbers, got 'rest'")
def _():
    from phmech.solvers.steady import steady_state
    s, dae, y0 = _y0()
    steady_state(dae, "rest")


@case("steady_state zero quaternion", ValueError,
      r"steady_state: the orientation quaternion of body 'top' has norm 0\.000e\+00 in the guess")
def _():
    from phmech.solvers.steady import steady_state
    dae = System([SpatialRigidBody("top", 2.0, np.diag([0.3, 0.2, 0.1]))]).assemble()
    y0 = dae.initial_state()
    y0[3:7] = 0.0
    steady_state(dae, y0)


@case("steady_states tol=nan", ValueError, r"steady_states: option tol must be positive and finite, got nan")
def _():
    from phmech.solvers.steady import steady_states
    steady_states(lambda p: _dae()[1], [1.0], tol=float("nan"))


@case("steady_states NaN in the guess", ValueError, r"steady_states: the guess y has 2 non-finite value\(s\)")
def _():
    from phmech.solvers.steady import steady_states
    s, dae, y0 = _y0()
    y0[:2] = np.inf
    steady_states(lambda p: _dae()[1], [1.0], y=y0)


@case("spatial body with zero inertia", ValueError,
      r"body 'hub': no rotational inertia \(inertia \(0\.0, 0\.0, 0\.0\) about the centre, the centre at the frame "
      r"origin\): its "
      r"rotation would be undetermined")
def _():
    SpatialRigidBody("hub", 2.0, (0.0, 0.0, 0.0))


@case("spatial body with text inertia", ValueError,
      r"body 'hub': inertia must be a symmetric positive semi-definite 3x3 matrix .* got 'big'")
def _():
    SpatialRigidBody("hub", 2.0, "big")


def test_a_point_mass_on_an_arm_and_a_slender_bar_keep_their_singular_inertia():
    """Zero inertia about the centre is a body with rotational inertia when the centre is off the
    frame origin; a slender bar has none about its axis: both are accepted."""
    assert SpatialRigidBody("bob", 1.0, np.zeros(3), center=(0.5, 0.0, 0.0)).M.toarray()[4, 4] == \
        pytest.approx(0.25)
    assert SpatialRigidBody.bar("bar", 1.0, (0, 0, 0), (1, 0, 0)).inertia[0, 0] == 0.0


def test_two_springs_from_one_port_to_the_ground_get_distinct_names():
    s, mass = _mass_on_spring(stiffness=90.0)
    second = s.add_spring(mass.port("P"), None, stiffness=10.0, at=(0.0, 1.0))
    third = s.add_spring(mass.port("P"), None, stiffness=5.0, at=(0.0, -1.0))
    assert [f.name for f in s.forces] == ["spring(mass.P, ground)", "spring(mass.P, ground) #2",
                                          "spring(mass.P, ground) #3"]
    assert second.name != third.name
    with pytest.raises(ValueError, match=r"a force element named 'spring\(mass.P, ground\) #2' is already"):
        s.add_spring(mass.port("P"), None, stiffness=1.0, at=(1.0, 1.0), name="spring(mass.P, ground) #2")


def test_a_law_with_numpy_functions_or_its_derivative_is_accepted():
    import math
    _mass_on_spring(law=lambda length, rate: 90.0 * np.sinh(length - 1.0))[0].assemble()
    _mass_on_spring(law=lambda length, rate: 90.0 * math.sinh(length - 1.0),
                    law_derivative=lambda length, rate: (90.0 * math.cosh(length - 1.0), 0.0))[0].assemble()
    _mass_on_spring(law=lambda length, rate: 4.0 + 0.0 * length)[0].assemble()          # constant: no derivative


def test_a_title_that_looks_like_a_placeholder_is_text(tmp_path):
    s, _ = _mass_on_spring(stiffness=90.0)
    res = s.simulate(0.01, dt=1e-3)
    page = open(res.to_html(str(tmp_path / "page.html"), title="@DATA@ & @SCRIPT@")).read()
    assert "<title>@DATA@ &amp; @SCRIPT@</title>" in page
    assert page.count('id="phmech-data"') == 1


# -- flexible beams (the size and parameter checks run before Firedrake is used) --
@case("beam with negative E", ValueError, r"beam 'c': parameters must be positive and finite: E=-1\.0")
def _():
    from phmech.fem import FloatingEulerBernoulliBeam
    FloatingEulerBernoulliBeam("c", 0.3, 4, 7870.0, 2.8e-5, -1.0, 6.4e-11)


@case("beam with NaN length", ValueError, r"beam 'c': parameters must be positive and finite: L=nan")
def _():
    from phmech.fem import FloatingEulerBernoulliBeam
    FloatingEulerBernoulliBeam("c", float("nan"), 4, 7870.0, 2.8e-5, 2e11, 6.4e-11)


@case("beam with 0 elements", ValueError, r"beam 'c': n_elem must be a positive integer, got 0")
def _():
    from phmech.fem import FloatingEulerBernoulliBeam
    FloatingEulerBernoulliBeam("c", 0.3, 0, 7870.0, 2.8e-5, 2e11, 6.4e-11)


@case("beam with too many elements", ValueError,
      r"beam 'c': n_elem=300000 is above phmech.fem.beam_common.MAX_ELEMENTS = 200000 \(set-up needs about \d")
def _():
    from phmech.fem import FloatingEulerBernoulliBeam
    FloatingEulerBernoulliBeam("c", 0.3, 300_000, 7870.0, 2.8e-5, 2e11, 6.4e-11)


@case("spatial beam with too many elements", ValueError,
      r"beam 's': n_elem=1000000 is above phmech.fem.beam_common.MAX_ELEMENTS = 200000")
def _():
    from phmech.fem.beam3d import FloatingSpatialBeam
    FloatingSpatialBeam("s", 1.0, 1_000_000, 1.0, 1.0, 100.0, 0.1, 0.2)


@case("spatial beam with zero Iy", ValueError, r"beam 's': parameters must be positive and finite: Iy=0\.0",
      needs_firedrake)
def _():
    from phmech.fem.beam3d import FloatingSpatialBeam
    FloatingSpatialBeam("s", 1.0, 4, 1.0, 1.0, 100.0, 0.0, 0.2)


@case("beam evaluation point outside", ValueError, r"beam 'c': evaluation points must lie in \[0, 0\.3\]",
      needs_firedrake)
def _():
    from phmech.fem import FloatingEulerBernoulliBeam
    FloatingEulerBernoulliBeam("c", 0.3, 2, 7870.0, 2.8e-5, 2e11, 6.4e-11).displacement_rows([0.5])


@pytest.mark.parametrize("trigger, error, match", CASES)
def test_bad_input(trigger, error, match, tmp_path):
    args = (tmp_path,) if trigger.__code__.co_argcount else ()
    with pytest.raises(error, match=match) as info:
        trigger(*args)
    assert type(info.value) is error, f"expected exactly {error.__name__}, got {type(info.value).__name__}"


# -- command lines: an argparse error before any computation -------------------
CLI_MODULES = ["crank_slider", "four_bar", "hinged_beam", "beam_convergence", "simeon_crank", "andrews"]
CLI_CASES = [pytest.param(m, ["--outdir", "{file}"], r"--outdir '.*taken' cannot be used for the output",
                          id=f"{m}: --outdir is a file") for m in CLI_MODULES]
CLI_CASES += [pytest.param(m, ["--outdir", "{file}/sub"], r"--outdir '.*taken/sub' cannot be used.*Not a directory",
                           id=f"{m}: --outdir below a file") for m in ("crank_slider", "andrews")]
CLI_CASES += [
    pytest.param("crank_slider", ["--dt=-1e-4"], r"argument --dt: must be positive and finite, got '-1e-4'",
                 id="crank_slider: --dt < 0"),
    pytest.param("crank_slider", ["--tfinal", "nan"], r"argument --tfinal: must be positive and finite, got 'nan'",
                 id="crank_slider: --tfinal NaN"),
    pytest.param("crank_slider", ["--n-elem", "0"], r"argument --n-elem: must be a positive integer, got '0'",
                 id="crank_slider: --n-elem 0"),
    pytest.param("crank_slider", ["--solver", "euler"], r"argument --solver: invalid choice: 'euler'",
                 id="crank_slider: unknown solver"),
    pytest.param("hinged_beam", ["--rtol", "0"], r"argument --rtol: must be positive and finite, got '0'",
                 id="hinged_beam: --rtol 0"),
    pytest.param("simeon_crank", ["--tols=-1"], r"argument --tols: must be positive and finite, got '-1'",
                 id="simeon_crank: negative tolerance"),
    pytest.param("beam_convergence", ["--meshes", "4", "x"], r"argument --meshes: not an integer: 'x'",
                 id="beam_convergence: mesh not an integer"),
]


@pytest.mark.parametrize("module, argv, match", CLI_CASES)
def test_cli_bad_input_fails_before_computing(module, argv, match, tmp_path, monkeypatch, capsys):
    mod = importlib.import_module(f"phmech.validation.{module}")

    def run(*args, **kwargs):
        raise AssertionError("the computation started despite bad command-line input")

    monkeypatch.setattr(mod, "run", run)
    (tmp_path / "taken").write_text("")
    argv = [a.replace("{file}", str(tmp_path / "taken")) for a in argv]
    if "--outdir" not in argv:
        argv += ["--outdir", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as info:
        mod.main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage:")
    assert len(err.strip().splitlines()) >= 2 and __import__("re").search(match, err), err


def table():
    """The rows ``(case, error)`` of both parametrizations."""
    rows = [(p.id, p.values[1].__name__)
            for p in CASES]
    rows += [(p.id, "SystemExit(2): argparse usage error") for p in CLI_CASES]
    return rows


if __name__ == "__main__":
    rows = table()
    w = max(len(c) for c, _ in rows)
    print(f"| {'case':<{w}} | error |\n|{'-' * (w + 2)}|-------|")
    for c, e in rows:
        print(f"| {c:<{w}} | {e} |")
    print(f"{len(rows)} cases")

"""Static equilibria of the geometrically consistent beams and the linearization about them:
a cantilever's tip against the closed form of its own continuum model, a column's frequency
under tension and compression and its buckling, a rod hanging by its weight (planar and
spatial, two families) against its stretch and the compound pendulum."""
import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq

from conftest import needs_firedrake

pytestmark = [needs_firedrake, pytest.mark.firedrake]

EI, EA, RHOA, L = 1.0, 1e6, 1.0, 1.0


def _cantilever(n, k):
    """Clamped at ``A`` (pin and frame held), a dead transverse tip force ``P = k EI / L^2``."""
    from phmech import System
    from phmech.fem.beam_nonlinear import FrameRate, NonlinearFloatingBeam
    beam = NonlinearFloatingBeam("beam", L, n, RHOA, 1.0, EA, EI / EA, frame="cantilever")
    s = System([beam])
    s.pin(beam.port("A"))
    s.add_joint(FrameRate(beam, rate=0.0, name="root"))
    s.apply_force(beam.port("B"), (0.0, -k * EI / L**2), name="tip")
    return beam, s.assemble()


def _tip(beam, dae, y):
    rx, ry = beam.displacement_rows([L])
    q = y[dae.q_slices["beam"]]
    return float(rx[0] @ q), float(ry[0] @ q)


def test_cantilever_tip_converges_to_the_closed_form_of_its_model():
    """Green axial strain, linear curvature, dead transverse tip load: the axial force vanishes
    (free end), so ``u_y`` is the linear beam's cubic and the axis is inextensible,
    ``u_x(L) = int (sqrt(1 - u_y'^2) - 1) dX`` (written here, independent of the FE model)."""
    from phmech.solvers.static import equilibrium
    k = 1.0
    slope = lambda x: k * (L * x - x * x / 2) / L**3                   # |u_y'| of the cubic
    ref = quad(lambda x: np.sqrt(1.0 - slope(x) ** 2) - 1.0, 0.0, L, epsabs=1e-15, epsrel=1e-14)[0]
    errors = []
    for n in (2, 4, 8, 16):
        beam, dae = _cantilever(n, k)
        ux, uy = _tip(beam, dae, equilibrium(dae))
        assert uy == pytest.approx(-k * L / 3, rel=1e-9)
        errors.append(abs(ux - ref) / abs(ref))
    rates = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert errors[-1] < 1e-9 and np.all(rates > 3.5), (errors, rates)


def test_load_steps_reach_the_same_equilibrium_and_it_is_a_rest_state_of_the_motion():
    """Two roads to ``y*`` agree, and the midpoint rule started there stays there."""
    from phmech import solve
    from phmech.solvers.static import equilibrium
    beam, dae = _cantilever(4, 2.0)
    y = equilibrium(dae)
    ys = equilibrium(dae, load_steps=5)
    assert np.max(np.abs(ys - y)) <= 1e-8 * np.max(np.abs(y))
    ux, _ = _tip(beam, dae, y)
    assert ux < -0.3                                                     # a large deflection
    res = solve(dae, (0.0, 0.05), y, method="midpoint", dt=1e-3)
    q = res.q("beam")
    assert np.max(np.abs(q - y[dae.q_slices["beam"]])) <= 1e-8 * np.max(np.abs(q[0]))
    flex = beam.flexible_velocity_dofs
    assert np.max(np.abs(res.e("beam")[:, flex])) <= 1e-8


def _column(n, P):
    """Pinned at ``A``, ``B`` on a guide along the axis, an axial force ``P`` at ``B`` (tension > 0)."""
    from phmech import System
    from phmech.fem.beam_nonlinear import NonlinearFloatingBeam
    beam = NonlinearFloatingBeam("beam", L, n, RHOA, 1.0, 1e4, EI / 1e4, frame="simply_supported")
    s = System([beam])
    s.pin(beam.port("A"))
    s.slide(beam.port("B"), (1.0, 0.0))
    s.apply_force(beam.port("B"), (P, 0.0), name="axial")
    return s.assemble()


@pytest.mark.parametrize("factor", [0.5, -0.9])
def test_column_frequency_under_axial_load(factor):
    """Geometric stiffness of the stresses: the first bending frequency of the pinned column,
    ``rho A omega^2 = (pi/L)^4 EI + n (pi/L)^2`` with the axial force ``n`` of the Green strain
    (``n (1 + eps) = P``, ``EA (eps + eps^2 / 2) = n``), at observed order 4 of the Hermite beam;
    in compression the geometric stiffness alone is indefinite and the bending carries it."""
    from phmech.solvers.eigen import linearize
    EA = 1e4
    P = factor * np.pi**2 * EI / L**2
    eps = brentq(lambda x: EA * (x + x * x / 2) * (1 + x) - P, -0.5, 0.5, xtol=1e-15)
    n_ax = EA * (eps + eps * eps / 2)
    ref = np.sqrt(((np.pi / L) ** 4 * EI + n_ax * (np.pi / L) ** 2) / RHOA)
    errors = []
    for n in (2, 4, 8):
        w = linearize(_column(n, P)).eigenmodes(1).omega[0]
        errors.append(abs(w / ref - 1.0))
    rates = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert errors[-1] < 2e-4 and np.all(rates > 3.7), (errors, rates)


def test_column_past_its_buckling_load_is_an_unstable_equilibrium():
    from phmech.solvers.eigen import linearize
    with pytest.raises(ValueError, match=r"linearize: the equilibrium is unstable: the tangent stiffness "
                                         r"has the negative eigenvalue .* in the motion of beam\.e\."):
        linearize(_column(4, -1.05 * np.pi**2 * EI / L**2))
    linearize(_column(4, -0.95 * np.pi**2 * EI / L**2))                 # below it: stable


def _hanging(family, n, E):
    from phmech import System
    rho, A, I, g = 7800.0, 1e-4, 1e-9, 9.81
    if family == "planar":
        from phmech.fem.beam_nonlinear import NonlinearFloatingBeam
        beam = NonlinearFloatingBeam("rod", L, n, rho, A, E, I, frame="cantilever", angle=-np.radians(80))
        s = System([beam])
        s.pin(beam.port("A"))
        s.add_gravity((0.0, -g))
    else:
        from phmech.fem.beam3d_nonlinear import NonlinearSpatialBeam
        a = np.radians(80) / 2                                           # x turned towards -z
        beam = NonlinearSpatialBeam("rod", L, n, rho, A, E, I, I, orientation=(np.cos(a), 0.0, np.sin(a), 0.0))
        s = System([beam])
        s.sphere(beam.port("A"), name="hinge")
        s.add_gravity((0.0, 0.0, -g))
    return beam, s.assemble()


def test_hanging_rod_stretch_and_swing_planar_and_spatial():
    """A rod on a pin, started 10 degrees from hanging: at equilibrium it hangs stretched by its
    weight, ``int eps dX`` with ``EA (eps + eps^2/2)(1 + eps) = rho A g (L - X)``; the planar and the
    spatial family (two kernels) give the same in-plane frequencies, and a stiff rod swings as
    the compound pendulum ``sqrt(3 g / 2 L)``."""
    from phmech.solvers.eigen import linearize
    from phmech.solvers.static import equilibrium
    E, rho, g = 2e8, 7800.0, 9.81
    strain = lambda x: brentq(lambda e: E * (e + e * e / 2) * (1 + e) - rho * g * (L - x), -0.1, 0.1, xtol=1e-16)
    ref = quad(strain, 0.0, L, epsabs=1e-16, epsrel=1e-13)[0]
    omega = {}
    for family in ("planar", "spatial"):
        beam, dae = _hanging(family, 4, E)
        y = equilibrium(dae)
        tip = beam.port_position(y[dae.q_slices["rod"]], beam.port("B"))
        assert -tip[-1] - L == pytest.approx(ref, rel=1e-8)
        assert np.max(np.abs(tip[:-1])) <= 1e-12
        omega[family] = linearize(dae).eigenmodes(2 if family == "planar" else 4).omega
    # the spatial rod's swings come in pairs (the two planes through the vertical)
    assert omega["spatial"][::2] == pytest.approx(omega["planar"], rel=1e-8)
    assert omega["spatial"][1::2] == pytest.approx(omega["planar"], rel=1e-8)
    assert omega["planar"][0] < np.sqrt(1.5 * g / L)                  # the soft rod bends as it swings
    _, dae = _hanging("spatial", 2, 2e13)
    assert linearize(dae).eigenmodes(1).omega[0] == pytest.approx(np.sqrt(1.5 * g / L), rel=1e-5)


SLENDER = 70.0


def _bladed_hub(mu, n, radius, tip, strain="green"):
    """A driven hub with a consistent blade (``L = rho A = EI = 1``, ``EA = 70^2``) clamped at
    ``radius`` from the axis, a body of mass ``tip`` (negligible rotary inertia) pinned at its end."""
    from phmech import PlanarRigidBody, System
    from phmech.fem.beam_nonlinear import FrameRate, NonlinearFloatingBeam
    hub = PlanarRigidBody("hub", 1.0, 0.1, ports={"O": (0.0, 0.0), "R": (radius, 0.0)})
    beam = NonlinearFloatingBeam("blade", 1.0, n, frame="cantilever", strain=strain, rho=1.0, A=1.0,
                                 E=SLENDER**2, I=1.0 / SLENDER**2, position=(radius, 0.0))
    s = System([hub, beam])
    s.pin(hub.port("O"), name="bearing")
    s.drive(hub, float(mu), name="motor")
    s.connect(hub.port("R"), beam.port("A"), name="root")
    s.add_joint(FrameRate(beam, hub, rate=0.0, name="root angle"))
    if tip:
        mass = PlanarRigidBody("tip", tip, 1e-9 * tip, ports={"P": (0.0, 0.0)}, position=(radius + 1.0, 0.0))
        s.add(mass)
        s.connect(beam.port("B"), mass.port("P"), name="tip pin")
    return beam, s.assemble()


def test_blade_on_a_hub_offset_with_a_tip_mass_turns_steadily():
    """The relative equilibrium of the whole assembly (hub, blade and tip body turning together;
    no variable is ignorable alone with the offset).  Linear strain: the tip's elongation against
    the closed form of ``EA u'' + rho A Omega^2 (R + X + u) = 0``, ``EA u'(L) = m_t Omega^2 (R + L + u(L))``;
    Green strain: the chordwise frequency about it converges to the independent Ritz model with
    the same hub radius and tip mass."""
    from phmech.solvers.static import relative_equilibrium, relative_modes
    from phmech.validation._rotating_ritz import RitzBeam, RotatingCantilever
    mu, R, mt = 5.0, 0.5, 0.5
    beam, dae = _bladed_hub(mu, 4, R, mt, strain="linear")
    y = relative_equilibrium(dae, (0, 0, 1), mu)
    a, m = mu / SLENDER, mt * mu**2 / SLENDER**2            # EA = SLENDER^2, rho A = L = 1
    C = (1 + m * R * np.cos(a) + R * a * np.sin(a)) / (a * np.cos(a) - m * np.sin(a))
    ref = R * np.cos(a) + C * np.sin(a) - R - 1.0             # z = R + X + u solves z'' + a^2 z = 0
    rx, ry = beam.displacement_rows([1.0])
    q = y[dae.q_slices["blade"]]
    assert rx[0] @ q == pytest.approx(ref, rel=1e-10) and abs(ry[0] @ q) < 1e-14
    w_ref = RotatingCantilever(RitzBeam.dimensionless(SLENDER), 14, hub_radius=R, tip_mass=mt).frequencies(mu, k=1)[1][0]
    errors = []
    for n in (2, 4, 8):
        _, dae = _bladed_hub(mu, n, R, mt)
        y = relative_equilibrium(dae, (0, 0, 1), mu)
        errors.append(abs(relative_modes(dae, y, rate=mu, k=1).omega[0] / w_ref - 1.0))
    rates = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert errors[-1] < 1e-4 and np.all(rates > 3.0), (errors, rates)


def test_relative_modes_of_a_blade_equal_the_steady_modes():
    """Without offset both roads apply: the relative equilibrium and its modes equal the steady
    state of ``steady_states`` (the hub angle ignorable) and ``steady_modes``."""
    from phmech.solvers.static import relative_equilibrium, relative_modes
    from phmech.solvers.steady import steady_modes, steady_states
    mu = 5.0
    _, dae = _bladed_hub(mu, 4, 0.0, 0.0)
    y = relative_equilibrium(dae, (0, 0, 1), mu)
    w = relative_modes(dae, y, rate=mu, k=2).omega
    (d, ys), = steady_states(lambda p: _bladed_hub(p, 4, 0.0, 0.0)[1], [mu])
    assert np.max(np.abs(y[dae.sq] - ys[dae.sq])) <= 1e-9
    assert w == pytest.approx(steady_modes(d, ys, k=2).omega, rel=1e-7)

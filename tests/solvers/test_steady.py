"""Steady motions and the linearization about them (phmech.solvers.steady)."""
import numpy as np
import pytest

pytest.importorskip("firedrake")

from phmech import System  # noqa: E402
from phmech.solvers import eigen  # noqa: E402
from phmech.solvers.steady import campbell, steady_modes, steady_states  # noqa: E402
from phmech.validation._rotating_ritz import RitzBeam, RotatingCantilever  # noqa: E402

#: slenderness L / r of the rotating-beam benchmark
DELTA = 70.0


def spinning_beam(mu, n_elem, gravity=None):
    """A geometrically consistent planar cantilever (L = rho A = EI = 1, EA = DELTA^2) on a hub
    spinning at mu (dimensionless: T = 1), no hub offset."""
    from phmech.fem.beam_nonlinear import FrameRate, NonlinearFloatingBeam
    beam = NonlinearFloatingBeam("blade", 1.0, n_elem, frame="cantilever", strain="green",
                                 rho=1.0, A=1.0, E=DELTA ** 2, I=1.0 / DELTA ** 2)
    s = System([beam])
    s.pin(beam.port("A"), name="hub bearing")
    s.add_joint(FrameRate(beam, rate=float(mu), name="hub"))
    if gravity is not None:
        s.add_gravity(gravity)
    return s.assemble()


def chordwise(mu, n_elem, speeds):
    dae, y = steady_states(lambda m: spinning_beam(m, n_elem), speeds, substeps=2)[-1]
    return steady_modes(dae, y, k=1).omega[0]


@pytest.mark.parametrize("mu", [2.0, 10.0])
def test_spinning_blade_converges_to_the_independent_ritz_model(mu):
    """The first chordwise frequency about the steady stretched rotation converges to the Ritz
    model of the same continuum (phmech.validation._rotating_ritz) at the rate of the cubic
    Hermite elements (log2 of successive error ratios near 4; at least 3 asserted)."""
    ref = RotatingCantilever(RitzBeam.dimensionless(DELTA), 18).frequencies(mu, k=1)[1][0]
    speeds = [0.0, mu]
    err = [abs(chordwise(mu, n, speeds) - ref) for n in (2, 4, 8)]
    rates = np.log2(np.array(err[:-1]) / np.array(err[1:]))
    assert np.all(rates > 3.0), (err, rates)
    assert err[-1] < 2e-3 * ref


def test_at_rest_the_steady_linearization_is_the_rest_one():
    """mu = 0: the modes about the (trivial) steady state equal those of the at-rest pencil of
    phmech.solvers.eigen (a different reduction: Hermitian, on the efforts only)."""
    dae = spinning_beam(0.0, 6)
    (d, y), = steady_states(lambda m: dae, [0.0])
    ours = steady_modes(d, y, k=3).omega
    rest = eigen.linearize(d).eigenmodes(k=3, method="hermitian").omega
    assert np.allclose(ours, rest, rtol=1e-8)
    assert abs(ours[0] - 1.8751040687 ** 2) < 1e-3 * ours[0]


def test_large_strain_steady_state_and_campbell_tracking():
    """mu = 0 ... 50 (about 25 % root strain) by continuation: the steady state converges, the
    tracked branches stay the first and second chordwise modes (MAC well above the 1/2 of a
    mix), and at n = 8 elements the first one follows the Ritz model: 0.1 % up to mu = 10,
    5 % at mu = 50 (the stiffer stretched beam needs finer elements; see the convergence test)."""
    speeds = [0.0, 1.0, 2.0, 3.5, 5.0, 7.5, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0]
    c = campbell(lambda m: spinning_beam(m, 8), speeds, k=2)
    assert np.all(c["mac"] > 0.8), c["mac"]
    assert np.all(np.diff(c["omega"][:, 0]) > 0) and np.all(c["omega"][:, 0] < c["omega"][:, 1])
    ritz = RotatingCantilever(RitzBeam.dimensionless(DELTA), 18)
    ref = np.array([ritz.frequencies(mu, k=1)[1][0] for mu in speeds])
    rel = np.abs(c["omega"][:, 0] / ref - 1)
    assert np.all(rel[:7] < 1e-3) and np.all(rel < 0.05), rel
    assert np.all(np.abs(c["growth"][:, 0]) < 1e-6 * c["omega"][:, 0])


def test_gravity_across_the_spin_is_refused():
    """Gravity in the plane of the spin makes the orientation matter: no relative equilibrium,
    and the frozen-time linearization is refused with the variable named."""
    dae = spinning_beam(2.0, 2, gravity=(0.0, -9.81))
    y = dae.initial_state()
    with pytest.raises(ValueError, match="blade.*not ignorable"):
        steady_modes(dae, y)


def test_continuation_options_are_checked_and_passed():
    """substeps below one is refused (it returned the first speed's state for the second);
    asking more modes than the model has is an error, not a table of NaN; the ignorable
    variables can be given."""
    with pytest.raises(ValueError, match="substeps must be an integer of at least 1, got 0"):
        steady_states(lambda m: spinning_beam(m, 2), [0.0, 1.0], substeps=0)
    dae = spinning_beam(1.0, 2)
    (d, y), = steady_states(lambda m: dae, [1.0])
    fixed = steady_modes(d, y, k=1).ignorable
    (d2, y2), = steady_states(lambda m: dae, [1.0], fixed=fixed, position_tol=1e-6)
    assert np.max(np.abs(y2 - y)) < 1e-9
    with pytest.raises(ValueError, match="k = 40 modes asked for, the model has"):
        campbell(lambda m: spinning_beam(m, 2), [0.0, 1.0], k=40)

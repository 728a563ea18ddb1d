"""The independent Ritz model of the spinning cantilever (the reference of the rotating-beam case)."""
import numpy as np
import pytest

from phmech.validation._rotating_ritz import RitzBeam, RotatingCantilever, dimensionless_table

#: first flapwise omega T of the inextensible uniform cantilever without hub offset
#: (Wright, Smith, Thresher, Wang, J. Appl. Mech. 49, 1982, table 1), speeds mu = 2 ... 10
WRIGHT_FLAP = {2: 4.1373, 4: 5.5850, 6: 7.3604, 8: 9.2568, 10: 11.2023}


def test_at_rest_both_directions_are_the_cantilever():
    """mu = 0: omega T = (1.8751...)^2 in both directions (root of 1 + cos b cosh b = 0)."""
    from scipy.optimize import brentq
    beta = brentq(lambda b: 1 + np.cos(b) * np.cosh(b), 1.5, 2.5)
    flap, chord = RotatingCantilever(RitzBeam.dimensionless(70), 10).frequencies(0.0, k=1)
    assert abs(flap[0] - beta ** 2) < 1e-9 and abs(chord[0] - beta ** 2) < 1e-9


@pytest.mark.parametrize("mu", sorted(WRIGHT_FLAP))
def test_inextensible_limit_against_the_published_flapwise_values(mu):
    """An axially stiff beam reproduces the published inextensible values to their 4 decimals;
    its chordwise frequency obeys omega_c^2 = omega_f^2 - Omega^2 (the chordwise operator is
    the flapwise one minus the centrifugal softening Omega^2 rho A; the axial compliance changes
    it by O(1 / slenderness^2))."""
    row = dimensionless_table(1e5, [mu], n=12)[0]
    assert abs(row["flapwise"] - WRIGHT_FLAP[mu]) < 6e-5
    assert abs(row["chordwise"] ** 2 - (row["flapwise"] ** 2 - mu ** 2)) < 1e-6 * row["flapwise"] ** 2


def test_convergence_at_high_speed_and_large_strain():
    """mu = 50 at slenderness 70 (about 25 % root strain): the differences between successive
    numbers of polynomials shrink geometrically (spectral convergence)."""
    vals = {n: dimensionless_table(70, [10, 30, 50], n=n)[-1] for n in (6, 9, 12, 15, 18)}
    assert 0.2 < vals[18]["root_strain"] < 0.3
    for key in ("flapwise", "chordwise"):
        v = [vals[n][key] for n in (6, 9, 12, 15, 18)]
        d = np.abs(np.diff(v))
        assert np.all(d[1:] < 0.5 * d[:-1] + 1e-12), (key, d)
        assert d[-1] < 1e-4 * v[-1]


def test_steady_stretch_at_low_speed_is_the_linear_elastic_one():
    """For mu^2 / slenderness^2 << 1 the stretch solves EA U'' + rho A Omega^2 X = 0: the root
    strain is mu^2 / (2 slenderness^2) up to a relative O(mu^2 / slenderness^2)."""
    for mu in (0.5, 1.0, 2.0):
        row = dimensionless_table(70, [mu], n=10)[0]
        exact = mu ** 2 / (2 * 70 ** 2)
        assert abs(row["root_strain"] / exact - 1) < 2 * mu ** 2 / 70 ** 2

"""Craig-Bampton reduction of a body in a floating frame: the planar Euler-Bernoulli beam of the
crank-slider.  The frame's efforts and kinematics stay unreduced, the gyroscopic matrix is
projected (skew), a pinned beam under gravity keeps its modes from above, and the crank-slider
with the reduced coupler follows the full one."""
import numpy as np
import pytest

pytest.importorskip("firedrake")

from phmech import System  # noqa: E402
from phmech.bodies.base import FloatingFrameBody  # noqa: E402
from phmech.fem import FloatingEulerBernoulliBeam  # noqa: E402
from phmech.joints import Revolute  # noqa: E402
from phmech.reduce import ReducedBody, craig_bampton, modal_reduction  # noqa: E402

L, RHO, D, E = 0.3, 7870.0, 6e-3, 2e11
A, I = np.pi * D ** 2 / 4, np.pi * D ** 4 / 64


def beam(n=12, frame="cantilever"):
    return FloatingEulerBernoulliBeam("beam", L, n, RHO, A, E, I, frame=frame)


def reduced(b, k):
    return craig_bampton(b, ["A", "B"], k, velocity=np.r_[b.fields["vx"], b.fields["vy"]], eigensolver="scipy")


def test_the_frame_stays_and_the_elastic_part_is_projected():
    b = beam()
    r = reduced(b, 4)
    assert isinstance(r, ReducedBody) and isinstance(r, FloatingFrameBody)
    assert r.nq == 3 and np.array_equal(r.q0, b.q0) and tuple(r.omega_indices) == (2,)
    assert np.array_equal(r.M.toarray()[:3, :3], b.M.toarray()[:3, :3])
    K = r.K_list[0].toarray()
    assert np.array_equal(K, -K.T) and np.abs(K).max() > 0
    assert np.linalg.eigvalsh(r.M.toarray())[0] > 0 and r.check() == []
    rng = np.random.default_rng(3)
    e_r = rng.standard_normal(r.ne)
    for end in "AB":
        assert np.allclose(r.port(end).Y @ e_r, b.port(end).Y @ r.recover(e_r), atol=1e-12)
        assert np.allclose(r.port(end).W @ e_r, b.port(end).W @ r.recover(e_r), atol=1e-10)


def pinned_under_gravity(body):
    s = System([body])
    s.add_joint(Revolute(body.port("A"), None, name="pin"))
    s.add_gravity((0.0, -9.81))
    return s


def test_a_pinned_reduced_beam_under_gravity_has_the_full_modes_from_above():
    ang = -np.pi / 2 + 0.2
    full = FloatingEulerBernoulliBeam("beam", L, 12, RHO, A, E, I, frame="cantilever", angle=ang)
    w_full = pinned_under_gravity(full).linearize().eigenmodes(3).omega
    errors = []
    for k in (2, 6):
        b = FloatingEulerBernoulliBeam("beam", L, 12, RHO, A, E, I, frame="cantilever", angle=ang)
        w = pinned_under_gravity(reduced(b, k)).linearize().eigenmodes(3).omega
        errors.append(w / w_full - 1)
    errors = np.array(errors)
    assert abs(errors[:, 0]).max() < 1e-8                 # the pendulum mode
    assert np.all(errors[:, 1:] > -1e-9) and np.all(errors[1, 1:] < errors[0, 1:]), errors


def test_the_crank_slider_with_a_reduced_coupler_follows_the_full_one():
    from phmech.validation.reduced_bodies import crank_slider_comparison
    out = crank_slider_comparison(n_elem=8, modes=(4,), t_end=0.01, dt=1e-4)
    full, red = out["full"], out[4]
    assert red["ne_coupler"] < full["ne_coupler"]
    assert abs(red["peak_rel_difference"]) < 1e-2 and red["max_difference_over_peak"] < 2e-2, red
    assert red["energy_balance_max_abs_J"] <= 1e-8 * red["H_max_J"]


def test_mean_axis_modes_converge_to_the_free_free_beam():
    """The mean-axis modes of the floating beam (``modal_reduction(..., frame="mean_axis")``) are
    the free-free beam's: the reduced frequencies converge to Euler-Bernoulli's
    ``(beta_n L)^2 sqrt(EI / (rho A L^4))`` (``beta_n L`` the roots of ``cos x cosh x = 1``:
    4.730040745, 7.853204624, 10.995607838) at the elements' fourth order (observed log2 ratios
    3.4-3.99 over 4 to 32 elements; the third mode enters its asymptotic range at 16)."""
    bl = np.array([4.730040744862704, 7.853204624095838, 10.995607838001671])
    exact = bl ** 2 * np.sqrt(E * I / (RHO * A * L ** 4))
    errs = []
    for n in (8, 16, 32):
        b = beam(n)
        r = modal_reduction(b, 3, frame="mean_axis", velocity=np.r_[b.fields["vx"], b.fields["vy"]],
                            eigensolver="scipy")
        errs.append(np.abs(r.natural_frequencies(3) - exact) / exact)
    rates = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    assert np.all(rates[-1] > 3.8) and np.all(rates > 1.8), rates
    assert np.max(errs[-1]) < 2e-5, errs[-1]

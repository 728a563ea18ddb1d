"""The planar Euler-Bernoulli beams as form bodies (phmech.fem.beam_forms): the first bending
frequencies of the clamped-free and the pinned beam against the Euler-Bernoulli values with
their observed order over three refinements, and the data of the floating frame (the rigid
block of a uniform rod with point masses, port rows that follow the frame) in closed form."""
import numpy as np
import pytest

from conftest import needs_firedrake

pytestmark = needs_firedrake

L, RHO, D, E = 1.0, 7870.0, 6e-3, 2e11
A, I = np.pi * D**2 / 4, np.pi * D**4 / 64
MESHES = (4, 8, 16, 32)
#: beta_1 L of the clamped-free and of the pinned-pinned beam (Blevins, table 8-1)
BETA_L = {("clamped", "free"): 1.875104068711961, ("pinned", "roller"): np.pi}


def exact(ends):
    return BETA_L[ends] ** 2 * np.sqrt(E * I / (RHO * A * L**4))


@pytest.mark.parametrize("ends", list(BETA_L))
def test_first_frequency_converges_at_order_four(ends):
    """Cubic Hermite bending: the first frequency's error falls as h^4 (log2 ratios of four meshes
    within 0.1 of 4: 3.97, 3.99, 4.00 clamped, 3.98, 3.995, 3.999 pinned), to 8e-9 (clamped) and
    6e-8 (pinned) on 32 elements."""
    from phmech.fem import EulerBernoulliBeam
    w = exact(ends)
    errors = np.array([EulerBernoulliBeam("b", L, n, RHO, A, E, I, ends=ends).natural_frequencies(k=1)[0][0] / w - 1
                       for n in MESHES])
    orders = np.log2(np.abs(errors[:-1] / errors[1:]))
    assert np.all(errors > 0), errors                   # a conforming discretization: from above
    assert np.all(np.abs(orders - 4.0) < 0.1), (errors, orders)
    assert errors[-1] < 1e-7, errors


def test_floating_frame_data_in_closed_form():
    """The rigid block of a uniform rod about its end with two point masses (mass, first moment
    and inertia), the frame's part of the port rows (v_B = v_P + omega e_z x L e_1, the rotation
    rate omega) and a clamped end's port, whose flexible part the frame conditions remove."""
    from phmech.fem import FloatingEulerBernoulliBeam
    masses = ((0.25, 0.02), (1.0, 0.05))
    b = FloatingEulerBernoulliBeam("b", L, 6, RHO, A, E, I, frame="cantilever", point_masses=masses)
    m = RHO * A * L
    mp = sum(mk for _, mk in masses)
    S = m * L / 2 + sum(mk * x for x, mk in masses)                  # first moment about the end
    J = m * L**2 / 3 + sum(mk * x**2 for x, mk in masses)            # inertia about the end
    assert b.mass == pytest.approx(m + mp, rel=1e-13)
    assert np.allclose(b.M[:3, :3].toarray(), [[m + mp, 0, 0], [0, m + mp, S], [0, S, J]], rtol=1e-12, atol=1e-15 * m)
    s0, rows, on = b.first_moment()
    assert on == "e" and s0 == pytest.approx([S, 0.0], rel=1e-13)
    A_, B_ = b.port("A"), b.port("B")
    assert np.abs(B_.Y[:, :3] - [[1, 0, 0], [0, 1, L]]).max() < 1e-12
    assert np.abs(B_.W[:, :3] - [[0, 0, 1]]).max() < 1e-12
    assert np.abs(A_.Y[:, 3:]).max() == 0 and np.abs(A_.W[:, 3:]).max() == 0     # clamped: the frame's
    assert np.abs(B_.Y[:, 3:]).max() > 0

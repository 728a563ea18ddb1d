"""Craig-Bampton reduction of a linear pH body (phmech.reduce): the reduced frequencies converge
to the full ones from above as modes are added, a static load at the interface is exact to
round-off, the reduced body is a pH system (M_r SPD, J_r skew, R_r PSD, outputs B_r^T e_r), and
in a System with a tip mass the midpoint rule keeps its discrete power balance.  The rod is
assembled by hand (tests/reduce/rods.py), so these tests need no Firedrake."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from rods import HandRod  # noqa: E402

from phmech import PointMass, System  # noqa: E402
from phmech.joints import Revolute  # noqa: E402
from phmech.reduce import ReducedBody, ReductionError, craig_bampton, modal_reduction  # noqa: E402
from phmech.reduce.basis import Split  # noqa: E402


def full_frequencies(body, k):
    """The lowest ``k`` frequencies of a fixed velocity-stress body, dense (independent of the
    reduction's solvers)."""
    import scipy.linalg as sla
    s = Split(body)
    K = s.D.T.toarray() @ np.linalg.solve(s.C.toarray(), s.D.toarray())
    return np.sqrt(sla.eigh(K, s.Mv.toarray(), eigvals_only=True)[:k])


def full_static(body, port, F):
    """The full displacement of a static force ``F`` at ``port``: ``K u = Y^T F`` (dense)."""
    s = Split(body)
    K = s.D.T.toarray() @ np.linalg.solve(s.C.toarray(), s.D.toarray())
    Y = body.port(port).Y[:, s.v]
    u = np.linalg.solve(K, Y.T @ F)
    return u, np.linalg.solve(s.C.toarray(), s.D @ u)


MODE_COUNTS = (2, 4, 8, 16)


def error_table(body, interface, counts=MODE_COUNTS, k=3):
    exact = full_frequencies(body, k)
    rows = []
    for n in counts:
        w = craig_bampton(body, interface, n, eigensolver="scipy").natural_frequencies(k)
        rows.append((w - exact) / exact)
    return np.array(rows)


def test_reduced_frequencies_converge_from_above_as_modes_are_added():
    table = error_table(HandRod("rod", 64), ["tip"])
    assert np.all(table >= -1e-12), table                    # Rayleigh-Ritz: upper bounds
    assert np.all(np.diff(table, axis=0) < 0), table          # nested bases: every error decreases
    assert table[-1, 0] < 1e-5 and table[-1, 2] < 1e-4
    # Craig-Bampton's convergence: the first frequency's error falls faster than 1/n^2
    assert table[0, 0] / table[-1, 0] > (MODE_COUNTS[-1] / MODE_COUNTS[0]) ** 2


def test_a_static_interface_load_is_exact_to_round_off():
    rod = HandRod("rod", 48)
    F = np.array([7.0, 0.0])
    u, s = full_static(rod, "tip", F)
    for n in (0, 3):
        red = craig_bampton(rod, ["tip"], n, eigensolver="scipy")
        b = red.basis
        J, Y = red.J0.toarray(), red.port("tip").Y
        # equilibrium at rest: J[v, s] s_r + Y_v^T F = 0
        s_r = np.linalg.solve(-J[np.ix_(b.rv, b.rs)], Y[:, b.rv].T @ F)
        e_r = np.zeros(red.ne)
        e_r[b.rs] = s_r
        tip_full = rod.port("tip").Y[:, rod.velocity_dofs] @ u
        assert abs(Y[:, b.rv] @ s_r - tip_full).max() <= 1e-12 * abs(tip_full).max()
        assert abs(red.displacement(e_r) - u).max() <= 1e-12 * abs(u).max()
        assert abs(red.recover(e_r)[rod.stress_dofs] - s).max() <= 1e-12 * abs(s).max()


def test_the_reduced_body_is_a_ph_system_with_power_conjugate_ports():
    rod = HandRod("rod", 40, c=0.4)
    red = craig_bampton(rod, ["tip"], 5, outputs=["mid"], eigensolver="scipy")
    M, J, R = red.M.toarray(), red.J0.toarray(), red.R.toarray()
    assert np.array_equal(M, M.T) and np.linalg.eigvalsh(M)[0] > 0
    assert np.array_equal(J, -J.T)
    assert np.array_equal(R, R.T) and np.linalg.eigvalsh(R)[0] >= -1e-14 * np.abs(R).max()
    assert red.check() == []
    assert red.exact_ports == {"tip"} and set(red.ports) == {"tip", "mid"}
    rng = np.random.default_rng(1)
    e_r, F = rng.standard_normal(red.ne), rng.standard_normal(2)
    e = red.recover(e_r)
    for name in ("tip", "mid"):
        # the port's velocity is the full body's at the recovered efforts, so the force's power is too
        assert np.allclose(red.port(name).Y @ e_r, rod.port(name).Y @ e, rtol=0, atol=1e-13)
    assert np.isclose(e_r @ (red.port("tip").Y.T @ F), e @ (rod.port("tip").Y.T @ F), rtol=1e-13)
    # the stored energy is the full body's at the recovered state
    assert np.isclose(red.hamiltonian(e_r), rod.hamiltonian(e), rtol=1e-12)


def tip_mass(body, mt=1.5):
    tip = PointMass("tip", mt, (body.port("tip").position[0], 0.0))
    s = System([body, tip])
    s.add_joint(Revolute(body.port("tip"), tip.port("P"), name="weld"))
    return s


def test_a_reduced_rod_with_a_tip_mass_keeps_the_midpoint_power_balance():
    rod = HandRod("rod", 32, c=0.3)
    red = craig_bampton(rod, ["tip"], 4, eigensolver="scipy")
    w_full = tip_mass(HandRod("rod", 32)).linearize().eigenmodes(2).omega
    w_red = tip_mass(craig_bampton(HandRod("rod", 32), ["tip"], 4, eigensolver="scipy")).linearize().eigenmodes(2).omega
    assert np.all(w_red >= w_full * (1 - 1e-12)) and np.all((w_red - w_full) / w_full < 2e-3), (w_red, w_full)
    s = tip_mass(red)
    dae = s.assemble()
    e0 = np.zeros(dae.ne)
    e0[dae.e_slices["tip"].start] = 0.3
    e0[dae.e_slices["rod"].start + red.basis.rv[0]] = 0.3        # the constraint mode: unit tip motion
    res = s.simulate(0.05, dt=1e-4, y0=dae.initial_state(e0=e0))
    H = res.hamiltonian()
    assert H[0] > 0.1 and H[-1] < H[0]                            # the damper takes energy
    assert np.max(np.abs(res.energy_balance())) <= 1e-10 * H[0]


def test_free_interface_modal_reduction():
    rod = HandRod("rod", 64)
    exact = full_frequencies(rod, 3)
    errs = [(modal_reduction(rod, n, eigensolver="scipy").natural_frequencies(3) - exact) / exact for n in (3, 6)]
    # the free modes are the body's own: exact frequencies, whatever the count
    assert all(np.max(np.abs(e)) < 1e-9 for e in errs), errs
    # with attachment modes a static port load is exact as in Craig-Bampton
    red = modal_reduction(rod, 2, ports=["tip"], attachment=True, eigensolver="scipy")
    u, _ = full_static(rod, "tip", np.array([1.0, 0.0]))
    J, Y, b = red.J0.toarray(), red.port("tip").Y, red.basis
    s_r = np.linalg.solve(-J[np.ix_(b.rv, b.rs)], Y[:, b.rv].T @ np.array([1.0, 0.0]))
    assert abs(Y[0, b.rv] @ s_r - u[-1]) <= 1e-12 * abs(u[-1])


# -- bad input ---------------------------------------------------------------------------
def test_too_many_modes_and_ports_not_on_the_body_are_named():
    rod, other = HandRod("rod", 8), HandRod("other", 8)
    with pytest.raises(ReductionError, match=r"body 'rod': n_modes=8 is more than the body has: 8 velocity "
                                             r"unknowns, 1 of them held by the interface, so at most 6"):
        craig_bampton(rod, ["tip"], 8)
    with pytest.raises(ReductionError, match=r"n_modes must be a non-negative integer, got -1"):
        craig_bampton(rod, ["tip"], -1)
    with pytest.raises(ReductionError, match=r"body 'rod': interface port 'other.tip' is not on this body"):
        craig_bampton(rod, [other.port("tip")], 2)
    with pytest.raises(ReductionError, match=r"interface port 'end' is not a port of the body \(its ports: "
                                             r"\['mid', 'tip'\]\)"):
        craig_bampton(rod, ["end"], 2)


def test_a_load_on_what_the_reduction_removed_is_refused():
    rod = HandRod("rod", 16)
    red = craig_bampton(rod, ["tip"], 3, eigensolver="scipy")
    with pytest.raises(KeyError, match=r"port 'mid' of the full body 'rod' was removed by the reduction"):
        red.port("mid")
    b = np.zeros(rod.ne)
    b[7] = 1.0                                                    # a point load at an inner node
    with pytest.raises(ReductionError, match=r"body 'rod': the load acts on unknowns the reduction removed "
                                             r"\(1.00e\+00 of it lies outside the interface \['tip'\]\)"):
        red.load_vector(b)
    assert red.load_vector(b, exact=False).shape == (red.ne,)
    b[:] = 0.0
    b[15] = 2.0                                                   # at the tip: through the interface
    assert np.allclose(red.load_vector(b), red.port("tip").Y[0] * 2.0)
    with pytest.raises(ReductionError, match=r"a load column must be 32 finite numbers.*shape \(5,\)"):
        red.load_vector(np.ones(5))


def test_the_reduced_class_is_the_body_s():
    red = craig_bampton(HandRod("rod", 8), ["tip"], 2, eigensolver="scipy")
    assert type(red) is ReducedBody and red.nq == 0 and red.ne == 2 * (1 + 2)


def test_the_reduced_body_draws_itself_by_its_ports():
    rod = HandRod("rod", 16)
    red = craig_bampton(rod, ["tip"], 2, outputs=["mid"], eigensolver="scipy")
    e_r = np.zeros(red.ne)
    e_r[red.basis.rv[0]] = 0.5                                    # the tip moving at 0.5 m/s
    part = red.picture(np.zeros(1), np.zeros((1, 0)), e_r[None, :], [0])(0)
    assert part.kind == "line" and part.points.shape == (2, 3)
    tip = int(np.argmax(part.points[:, 0]))
    assert np.allclose(part.point_data["velocity"][tip], [0.5, 0.0, 0.0])
    moved = red.mode_picture(np.zeros(0), e_r)
    assert np.allclose(moved[tip] - part.points[tip], [0.5, 0.0, 0.0])

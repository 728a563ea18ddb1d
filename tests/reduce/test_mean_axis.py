"""Mean-axis free-interface modal reduction (``modal_reduction(..., frame="mean_axis")``) of a
planar truss in a floating frame held by a 3-2-1 support: the kept modes satisfy the mean-axis
conditions to round-off, the reduced free-free frequencies are the full body's, the reduced body is
a pH system whose ports and energy are the full body's, and in free flight its energy is kept by
the midpoint rule while its elastic coordinates carry no linear momentum.  The truss is assembled
by hand (tests/reduce/trusses.py), so these tests need no Firedrake."""
import os
import sys

import numpy as np
import pytest
import scipy.linalg as sla

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from rods import HandRod  # noqa: E402
from trusses import HandTruss  # noqa: E402

from phmech import System  # noqa: E402
from phmech.reduce import ReducedBody, ReductionError, modal_reduction  # noqa: E402

EPS = np.finfo(float).eps


def mean_axis(body, k):
    return modal_reduction(body, k, frame="mean_axis", eigensolver="scipy")


def free_frequencies(body, k):
    """The lowest ``k`` free-free elastic frequencies of the whole truss: dense ``eigh`` of its
    ``K``, ``M`` on every nodal motion, less the three rigid motions (zero frequencies)."""
    K, M = body.free_matrices()
    lam = sla.eigh(K, M, eigvals_only=True)
    assert np.all(np.abs(lam[:3]) <= 1e-9 * lam[-1]) and lam[3] > 1e-6 * lam[-1]
    return np.sqrt(lam[3:3 + k])


def nodal_velocities(body, e):
    """The truss' nodal velocities ``(N, 2)`` relative to the frame's axes: the frame's rigid
    motion plus the elastic velocities of the full efforts ``e``."""
    X = body.X
    u = np.tile(e[:2], (len(X), 1)) + e[2] * np.column_stack([-X[:, 1], X[:, 0]])
    flat = u.reshape(-1)
    flat[body.keep] += e[body.velocity_dofs]
    return flat.reshape(-1, 2)


def test_the_kept_modes_satisfy_the_mean_axis_conditions():
    body = HandTruss("truss")
    red = mean_axis(body, 6)
    b = red.basis
    assert red.info["frame"] == "mean_axis" and b.moves_frame
    # the rigid-elastic block of the reduced metric is Phi_rigid^T M Phi
    _, M = body.free_matrices()
    Phi = np.vstack([b.Vf, b.Vv])
    bound = 10 * M.shape[0] * EPS * np.linalg.norm(M, 2) * np.linalg.norm(Phi, 2)
    coupling = np.linalg.norm(red.M.toarray()[np.ix_(b.rf, b.rv)], 2)
    assert coupling <= bound, (coupling, bound)
    # the conditions themselves on the full nodal field of each mode: int rho u = 0, int rho X x u = 0
    masses = body.masses
    for j in range(len(b.rv)):
        e_r = np.zeros(red.ne)
        e_r[b.rv[j]] = 1.0
        u = nodal_velocities(body, red.recover(e_r))
        momentum = masses @ u
        moment = masses @ (body.X[:, 0] * u[:, 1] - body.X[:, 1] * u[:, 0])
        size = np.sqrt(masses @ (u ** 2).sum(axis=1) * masses.sum())          # |u| in the mass norm, times m
        assert np.abs(momentum).max() <= 100 * EPS * size, momentum
        assert abs(moment) <= 100 * EPS * size * np.abs(body.X).max(), moment


def test_the_reduced_free_free_frequencies_are_the_full_bodys():
    body = HandTruss("truss")
    exact = free_frequencies(body, 5)
    for k in (3, 5):
        red = mean_axis(body, k)
        w = red.natural_frequencies()
        assert len(w) == k
        # the modes are the body's own: the frequencies to the eigen solver's accuracy (ARPACK at
        # machine precision, the shift-invert factor's round-off amplified by the frequency range)
        assert np.max(np.abs(w / exact[:k] - 1)) < 1e-10, w / exact[:k] - 1
        assert np.allclose(red.info["omega_free"], exact[:k], rtol=1e-10, atol=0)
    # the modes about the 3-2-1 support (frame="reference") are not the free-free ones: the reduced
    # free body's frequencies are Rayleigh-Ritz upper bounds, off by far more
    ref = modal_reduction(body, 5, eigensolver="scipy").natural_frequencies()
    assert np.all(ref >= exact * (1 - 1e-12)) and np.max(ref / exact - 1) > 1e-3


def test_the_reduced_body_is_a_ph_system_with_the_full_ports_and_energy():
    body = HandTruss("truss")
    red = mean_axis(body, 4)
    M, J = red.M.toarray(), red.J0.toarray()
    assert np.array_equal(M, M.T) and np.linalg.eigvalsh(M)[0] > 0 and np.array_equal(J, -J.T)
    assert all(np.array_equal(K.toarray(), -K.toarray().T) for K in red.K_list)
    assert red.R is None and red.check() == [] and red.nq == 3
    rng = np.random.default_rng(7)
    e_r, F = rng.standard_normal(red.ne), rng.standard_normal(2)
    e = red.recover(e_r)
    for name in ("A", "B", "T"):
        y = body.port(name).Y @ e
        assert np.allclose(red.port(name).Y @ e_r, y, rtol=0, atol=1e-12 * np.abs(y).max())
        assert np.isclose(e_r @ (red.port(name).Y.T @ F), e @ (body.port(name).Y.T @ F), rtol=1e-12)
    assert np.isclose(red.hamiltonian(e_r), body.hamiltonian(e), rtol=1e-12)
    # the rotating-frame terms are the full body's: e^T K e' of the recovered efforts
    e2 = rng.standard_normal(red.ne)
    assert np.isclose(e_r @ (red.K_list[0] @ e2), e @ (body.K_list[0] @ red.recover(e2)), rtol=1e-11)


def test_the_elastic_first_moment_vanishes_and_the_picture_moves_the_frame():
    body = HandTruss("truss")
    red = mean_axis(body, 4)
    b = red.basis
    s0, rows, _ = red.first_moment()
    assert np.array_equal(s0, body.mass * body.center)
    # int rho u of a modal displacement about the mean axes: zero (the mean-axis condition) ...
    m = body.masses.sum()
    assert np.abs(rows[:, b.rs]).max() <= 1e3 * EPS * m * np.abs(np.vstack([b.Vf, b.Vv])).max()
    # ... which is the full body's first moment about its own frame (from the bar forces) less
    # that of the frame's offset V_f s_r from the mean axes
    e_r = np.zeros(red.ne)
    e_r[b.rs] = np.random.default_rng(5).standard_normal(len(b.rs))
    _, full_rows, _ = body.first_moment()
    offset = body.M.toarray()[:2, :3] @ red.frame_displacement(e_r)
    assert np.allclose(full_rows @ red.recover(e_r) + offset, 0.0, rtol=0, atol=1e-12 * m * np.abs(offset).max())
    assert np.abs(offset).max() > 1e-6
    # the drawn vertices: unit velocity coordinates move every node as the recovered full field does
    V = body.mesh().vertex_basis(b)
    for j in range(len(b.rv)):
        e_r = np.zeros(red.ne)
        e_r[b.rv[j]] = 1.0
        assert np.allclose(V[:, :2, j], nodal_velocities(body, red.recover(e_r)), rtol=0, atol=1e-13)


def free_flight(red, dt, t_end=0.5):
    s = System([red])
    dae = s.assemble()
    e0 = np.zeros(dae.ne)
    at = dae.e_slices[red.name].start
    e0[at:at + 3] = (0.4, -0.2, 1.5)                          # v_P, omega
    e0[at + red.basis.rv[0]], e0[at + red.basis.rv[2]] = 0.05, 0.03
    res = s.simulate(t_end, dt=dt, y0=dae.initial_state(e0=e0))
    E, Q = res.e(red.name), res.q(red.name)
    Me = E @ red.M.toarray()
    p = np.array([red.rotation(q) @ me[:2] for q, me in zip(Q, Me)])        # inertial linear momentum
    return res, E, Me, p


def test_free_flight_keeps_the_energy_and_the_frame_carries_the_momentum():
    red = mean_axis(HandTruss("truss"), 4)
    drifts = []
    for dt in (1e-3, 5e-4):
        res, E, Me, p = free_flight(red, dt)
        H = res.hamiltonian()
        assert np.abs(E[:, red.basis.rs]).max() > 1e-4                      # it vibrates
        # no loads, no dissipation: H constant to the Newton tolerance (1e-10, relative)
        assert np.max(np.abs(H - H[0])) <= 1e-10 * H[0] and np.max(np.abs(res.energy_balance())) <= 1e-10 * H[0]
        # mean axes: the elastic coordinates carry no momentum, the frame's m (v_P + omega x c) is all
        rigid = red.mass * (E[:, :2] + E[:, 2:3] * np.array([-red.center[1], red.center[0]]))
        assert np.abs(Me[:, :2] - rigid).max() <= 1e3 * EPS * np.abs(Me[:, :2]).max()
        drifts.append(np.abs(p - p[0]).max() / np.linalg.norm(p[0]))
        # the inertial momentum turns only by the midpoint rule's rotation error: per step the
        # Cayley rotation of the body-frame momentum differs from the frame's angle by (omega dt)^3 / 12
        n_steps = len(res.t) - 1
        bound = 2 * n_steps * (np.abs(E[:, 2]).max() * dt) ** 3 / 12
        assert drifts[-1] <= bound, (drifts[-1], bound)
    assert 3.5 < drifts[0] / drifts[1] < 4.5, drifts                       # second order in dt


def test_the_file_keeps_the_frame_block(tmp_path):
    pytest.importorskip("h5py")
    body = HandTruss("truss")
    red = mean_axis(body, 3)
    back = ReducedBody.load(red.save(tmp_path / "truss.h5"), body=body)
    assert back.basis.moves_frame and type(back) is type(red)
    for k in ("Vf", "Vv", "Vs"):
        assert np.array_equal(getattr(back.basis, k), getattr(red.basis, k)), k
    assert np.array_equal(back.M.toarray(), red.M.toarray()) and back.info == red.info
    e_r = np.random.default_rng(2).standard_normal(red.ne)
    assert np.array_equal(back.recover(e_r), red.recover(e_r))


# -- bad input ---------------------------------------------------------------------------
def test_bad_frames_and_mode_counts_are_named():
    truss = HandTruss("truss")
    with pytest.raises(ReductionError, match=r"body 'truss': frame must be one of \['reference', 'mean_axis'\], "
                                             r"got frame='tisserand'"):
        modal_reduction(truss, 3, frame="tisserand")
    with pytest.raises(ReductionError, match=r"body 'truss': n_modes=17 is more than the body has: 20 frame and "
                                             r"velocity unknowns, 3 of them rigid-body motions, so at most 16"):
        modal_reduction(truss, 17, frame="mean_axis")
    with pytest.raises(ReductionError, match=r"body 'rod': frame='mean_axis' needs a body in a floating frame"):
        modal_reduction(HandRod("rod", 8), 2, frame="mean_axis")
    with pytest.raises(ReductionError, match=r"body 'truss': attachment=True needs frame='reference'"):
        modal_reduction(truss, 2, attachment=True, frame="mean_axis")


def test_the_command_line_takes_mean_axes_with_the_modal_method_only(capsys):
    from phmech.reduce.__main__ import main, parser
    args = parser().parse_args(["m:f", "--modes", "3", "--out", "x.h5", "--method", "modal", "--frame", "mean_axis"])
    assert args.frame == "mean_axis"
    with pytest.raises(SystemExit) as stop:
        main(["m:f", "--modes", "3", "--out", "x.h5", "--frame", "mean_axis"])
    assert stop.value.code == 2
    assert "--frame mean_axis needs --method modal, got --method craig_bampton" in capsys.readouterr().err

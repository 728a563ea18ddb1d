"""The floating plate (Mindlin bending and membrane in a spatial floating frame): its modes at
rest against the fixed-base plate of the same discretization, a free plate's six rigid modes,
the structure of its matrices and the power balance of a spin-up."""
import numpy as np
import pytest

pytest.importorskip("firedrake")

from phmech import System  # noqa: E402
from phmech.fem.form_body import FormError  # noqa: E402
from phmech.validation import hub_plate  # noqa: E402


def test_structure_and_rigid_inertia():
    _, plate = hub_plate.build(3, held=True)
    p = hub_plate.DATA
    M = plate.M.toarray()
    assert np.abs(M - M.T).max() <= 1e-14 * np.abs(M).max()
    for K in plate.K_list:
        assert np.abs((K + K.T).toarray()).max() <= 1e-13 * abs(K).max()
    m = p["rho"] * p["h"] * p["a"] * p["b"]
    assert plate.mass == pytest.approx(m, rel=1e-12)
    assert np.allclose(plate.center, (p["a"] / 2, p["b"] / 2, 0.0), rtol=0, atol=1e-12)
    # about the clamped edge's end (0, 0, 0): I_xx = m (b^2 / 3 + h^2 / 12) (the sections' rotary
    # inertia, spin fields about e_1 and e_2), I_yy = m (a^2 / 3 + h^2 / 12), I_zz = m (a^2 + b^2) / 3
    rot = p["h"] ** 2 / 12
    assert np.allclose(np.diag(plate.inertia), m * np.array([p["b"] ** 2 / 3 + rot, p["a"] ** 2 / 3 + rot,
                                                             (p["a"] ** 2 + p["b"] ** 2) / 3]), rtol=1e-12)


def test_modes_at_rest_equal_the_fixed_plate():
    """The hub held: the floating plate's lowest five modes are bending modes of the same
    discretization as the fixed-base Mindlin plate clamped on that edge (the membrane modes lie
    far above): equal to the eigen solvers' tolerance; both near Leissa's cantilever values."""
    omega, _ = hub_plate.floating_frequencies(4)
    fixed = hub_plate.fixed_plate_frequencies(4)
    assert np.max(np.abs(omega / fixed - 1.0)) < 1e-7
    lam = omega * hub_plate.frequency_scale()
    # the first mode on 4 x 4 cells within 1 % of Leissa's (the higher ones converge on finer meshes:
    # python -m phmech.validation.hub_plate)
    assert lam[0] == pytest.approx(hub_plate.LEISSA_CFFF[0], rel=1e-2)


def test_free_plate_has_six_rigid_modes():
    """Free, the plate has six zero modes more than with its hub held: the rigid motions of its
    frame (the others are the stresses' self-equilibrated fields, zero in both)."""
    from phmech.fem.floating_plate import FloatingPlate
    p = hub_plate.DATA
    plate = FloatingPlate("plate", hub_plate.plate_mesh(3, p["a"], p["b"]), p["h"], p["rho"], p["E"], p["nu"],
                          clamped=hub_plate.CLAMPED)
    free = System([plate]).linearize().eigenmodes(3)
    held = hub_plate.build(3, held=True)[0].linearize().eigenmodes(3)
    assert free.n_rigid - held.n_rigid == 6
    assert free.omega[0] > 1e-3 * free.omega[-1]            # elastic modes, the rigid ones left out


def test_spin_up_power_balance():
    out = hub_plate.spin_up_plate(n=4, ny=1, t_end=0.2, dt=2e-3, dt_out=1e-2)
    assert np.all(np.isfinite(out["tip"])) and np.max(np.abs(out["tip"])) > 0
    assert np.max(np.abs(out["balance"])) < 1e-9 * np.max(np.abs(out["H"]))


def test_bad_clamped_marker():
    from phmech.fem.floating_plate import FloatingPlate
    p = hub_plate.DATA
    with pytest.raises(FormError, match=r"body 'plate'.*clamped marker\(s\) \[7\].*its markers: \[1, 2, 3, 4\]"):
        FloatingPlate("plate", hub_plate.plate_mesh(2, 1.0, 1.0), p["h"], p["rho"], p["E"], p["nu"], clamped=7)


def test_picture_follows_the_frame_and_the_deflection(tmp_path):
    """The drawn plate: its vertices placed by the frame's rotation about the hub and moved by the
    recovered deflection (a corner's as the case recovers it); ParaView files written."""
    out = hub_plate.spin_up_plate(n=4, ny=1, t_end=0.2, dt=2e-3, dt_out=1e-2)
    res, plate, p = out["result"], out["body"], hub_plate.strip_data()
    Q, E = res.q("plate"), res.e("plate")
    k = len(res.t) - 1
    part = plate.picture(res.t, Q, E, range(len(res.t)))(k)
    R, xP = plate.rotation(Q[k]), plate.position(Q[k])
    turned = np.arctan2(abs(R[2, 0]), R[0, 0])                 # about the hub's axis y
    # the hub angle, to the midpoint rule's quadrature of the prescribed rate (dt = 2e-3: 4.6e-5)
    assert turned == pytest.approx(float(hub_plate.hub_angle(res.t[k], p["omega_s"], p["T_s"])), rel=1e-3)
    local = (part.points - xP) @ R                              # body-frame positions of the vertices
    disp = part.point_data["displacement"] @ R
    tip = np.flatnonzero(np.linalg.norm(local[:, :2] - disp[:, :2] - (p["a"], 0.0), axis=1) < 1e-9)
    assert len(tip) == 1
    corner = plate.displacement(E[k]) @ plate.node_rows([(p["a"], 0.0)])[0][2]     # the corner's deflection
    assert local[tip[0], 2] == pytest.approx(corner, rel=1e-9)
    assert corner == pytest.approx(out["tip"][k], rel=1e-2)                     # the edge's mean (its twist)
    res.to_pvd(str(tmp_path / "plate.pvd"))
    assert (tmp_path / "plate.pvd").exists()

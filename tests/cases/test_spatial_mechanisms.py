"""Spatial mechanisms: Bricard's mechanism, the spatial double pendulum, and a planar
four-bar modelled in 3D against the planar model."""
import json
import re

import numpy as np
import pytest

from conftest import needs_firedrake

# -- Bricard's mechanism (IFToMM A04) -------------------------------------------


def test_bricard_has_one_redundant_row_and_writes_its_outputs(tmp_path):
    from phmech.validation import bricard
    out = bricard.run(0.5, dt=2e-3, rtol=1e-8, atol=1e-8, dt_out=0.05, compare="radau", convergence_dts=None,
                      outdir=str(tmp_path))
    assert out.summary["redundant_rows"] == ["J6[4]"]
    assert out.summary["comparison"]["P3_max_difference_m"] < 1e-5
    assert np.allclose(out.P3[0], (1.0, -1.0, 0.0), atol=1e-12)
    names = {p.split("/")[-1] for p in out.files}
    assert {"bricard.csv", "bricard_radau.csv", "summary.json", "bricard_P3.png", "bricard_P3.pdf",
            "bricard_energy.png", "bricard_constraints.pdf"} <= names
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["energy_drift_J"] == pytest.approx(out.summary["energy_drift_J"])
    for name in ("bricard.csv", "bricard_radau.csv", "summary.json"):
        assert not re.search(r"\bnan\b", (tmp_path / name).read_text(), re.I)


def test_bricard_conserves_total_energy_to_the_integrator_tolerance():
    from phmech.validation import bricard
    drift = {dt: bricard.simulate(1.0, dt=dt, dt_out=0.1) for dt in (4e-3, 2e-3)}
    fine = drift[2e-3].summary
    # |H + V| is about 30 J; the midpoint rule conserves it up to its O(dt^2) error
    assert fine["energy_drift_J"] < 5e-7
    assert 3.0 < drift[4e-3].summary["energy_drift_J"] / fine["energy_drift_J"] < 5.0
    assert fine["position_residual_max"] < 8e-6 and fine["velocity_residual_max"] < 8e-6
    rad = bricard.simulate(1.0, "radau", rtol=1e-9, atol=1e-9, dt_out=0.1).summary
    assert rad["energy_drift_J"] < 1e-7 and rad["position_residual_max"] < 1e-9


def test_bricard_point_converges_with_second_order_and_agrees_with_radau():
    from phmech.validation import bricard
    cv = bricard.convergence(1.0, (8e-3, 4e-3, 2e-3), ref_tol=1e-11)
    assert np.allclose(cv["order"], 2.0, atol=0.05), cv
    assert np.allclose(cv["order_from_differences"], 2.0, atol=0.05), cv
    assert cv["error"][-1] < 1e-6
    assert cv["richardson_vs_reference"] < 1e-8      # the extrapolated midpoint result meets Radau IIA
    assert np.allclose(cv["P3_reference"], (0.2733339, -0.8865440, -0.4626443), atol=1e-6)


def test_bricard_half_second_energy_constraints_and_midpoint_order():
    """0.5 s: one redundant row, H + V conserved to 1e-6 (relative), second order of P3(0.5 s)
    from three step sizes against the midpoint rule with a four times finer step."""
    from phmech.validation import bricard
    out = bricard.simulate(0.5, dt=1e-3, dt_out=0.05)
    s = out.summary
    assert len(s["redundant_rows"]) == 1 and s["redundant_rows"][0].startswith("J6")
    assert s["energy_drift_J"] < 1e-6 * abs(s["energy_J"])
    # the midpoint rule meets G e = 0 at the midpoints: O(dt^2) residuals at the step points
    assert s["position_residual_max"] < 1e-5 and s["velocity_residual_max"] < 2e-6
    cv = bricard.convergence(0.5, (8e-3, 4e-3, 2e-3), reference="midpoint")
    assert cv["reference_solver"] == "midpoint dt=0.0005"
    ratios = np.log2(np.array(cv["error"][:-1]) / np.array(cv["error"][1:]))
    assert np.all((ratios > 1.7) & (ratios < 2.3)), ratios
    assert np.allclose(cv["P3"][-1], out.P3[-1], atol=5e-5)


def test_bricard_turning_points_from_a_synthetic_rate():
    from phmech.validation._spatial_common import zero_crossings
    t = np.linspace(0.0, 10.0, 1001)
    tau = zero_crossings(t, np.sin(2 * np.pi * t / 4.9863))
    assert np.allclose(tau, 4.9863 / 2 * np.arange(1, 5), atol=1e-7)


@pytest.mark.slow
def test_bricard_motion_is_periodic():
    from phmech.validation import bricard
    out = bricard.simulate(10.0, "radau", rtol=1e-9, atol=1e-9, dt_out=0.01)
    m = out.summary["motion"]
    assert len(m["turning_times"]) == 4
    assert m["period_s"] == pytest.approx(4.98631, abs=1e-4)
    assert m["half_period_spread_s"] < 1e-4 and m["return_distance_m"] < 1e-5
    assert np.allclose(m["P3_at_turning"][0], (-1.0, -1.0, 0.0), atol=1e-5)
    assert np.allclose(out.summary["P3_at"]["5"], (0.99982, -1.0, -1.8e-4), atol=2e-5)


def test_bricard_command_line_refuses_an_unusable_outdir(tmp_path):
    from phmech.validation import bricard, spatial_pendulum
    blocker = tmp_path / "file"
    blocker.write_text("")
    for mod in (bricard, spatial_pendulum):
        with pytest.raises(SystemExit) as err:
            mod.main(["--outdir", str(blocker / "out"), "--tfinal", "1"])
        assert err.value.code == 2


# -- spatial double pendulum ----------------------------------------------------


def test_spatial_pendulum_conserves_energy():
    from phmech.validation import spatial_pendulum as sp
    runs = {dt: sp.simulate("box", t_end=1.0, dt=dt, dt_out=0.05) for dt in (2e-3, 1e-3)}
    errs = [runs[dt].energy_error for dt in (2e-3, 1e-3)]
    assert errs[1] < 1e-5 and 3.0 < errs[0] / errs[1] < 5.0     # second-order energy error of the midpoint rule
    s = runs[1e-3].summary
    assert s["redundant_rows"] == [] and s["position_residual_max"] < 3e-6
    assert np.allclose(runs[1e-3].tip[0], (0.0, 2.0, 0.0))
    assert s["tip_z_min"] < -1.0                                  # it falls


def test_spatial_pendulum_writes_its_outputs(tmp_path):
    from phmech.validation import spatial_pendulum as sp
    out = sp.run(0.2, dt=2e-3, dt_out=0.02, outdir=str(tmp_path))
    names = {p.split("/")[-1] for p in out.files}
    assert {"spatial_pendulum.csv", "spatial_pendulum_tip.png", "spatial_pendulum_energy.pdf",
            "summary.json"} <= names
    assert not re.search(r"\bnan\b", (tmp_path / "spatial_pendulum.csv").read_text(), re.I)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert not re.search(r"\bnan\b", (tmp_path / "summary.json").read_text(), re.I)
    assert np.allclose(summary["rigid"]["tip_end"], out.rigid.tip[-1])


def test_port_velocity_of_spatial_ports():
    """``Result.port_velocity`` of spatial ports: (N, 3) rows that are the time derivative of the
    port positions (central differences of the midpoint rule's positions, second order in the
    step); bar 1 turns about the x axis of joint A, so its tip moves in the y-z plane."""
    from phmech.validation import spatial_pendulum as sp
    s, bar1, bar2 = sp.build("box")
    h = 1e-3
    res = s.simulate(0.3, solver="midpoint", dt=h, t_eval=np.arange(301) * h)
    for body in (bar1, bar2):
        port = body.port("B")
        v = res.port_velocity(port)
        assert v.shape == (len(res.t), 3)
        x = np.array([body.port_position(q, port) for q in res.q(body)])
        fd = (x[2:] - x[:-2]) / (2 * h)
        assert np.max(np.abs(v[1:-1] - fd)) < 1e-4 * np.max(np.abs(v)), body.name
    v1 = res.port_velocity(bar1.port("B"))
    assert np.max(np.abs(v1[:, 0])) < 1e-9 * np.max(np.abs(v1)) and np.max(np.abs(v1[-1])) > 1.0


def test_spatial_pendulum_flexible_option_without_values(monkeypatch, tmp_path):
    """``--flexible`` without values runs the default flexible study, with values those,
    ``--rigid-only`` only the rigid model; ``--flexible`` and ``--rigid-only`` exclude each other."""
    from phmech.validation import spatial_pendulum as sp
    monkeypatch.setattr(sp, "have_firedrake", lambda: True)
    assert sp.arguments(["--flexible"])[1].flexible == sp.DEFAULT_EI == (1e3, 1e4, 1e5)
    assert sp.arguments(["--flexible", "2e4", "3e4"])[1].flexible == (2e4, 3e4)
    assert sp.arguments([])[1].flexible == sp.DEFAULT_EI
    assert sp.arguments(["--rigid-only"])[1].flexible == ()
    with pytest.raises(SystemExit):
        sp.arguments(["--flexible", "--rigid-only"])
    monkeypatch.setattr(sp, "have_firedrake", lambda: False)
    assert sp.arguments([])[1].flexible == ()
    with pytest.raises(SystemExit):
        sp.arguments(["--flexible"])
    # the command line hands the study to run()
    seen = []

    class Stop(Exception):
        pass

    def fake_run(t_end, dt, flexible, *a, **k):
        seen.append(flexible)
        raise Stop
    monkeypatch.setattr(sp, "have_firedrake", lambda: True)
    monkeypatch.setattr(sp, "run", fake_run)
    with pytest.raises(Stop):
        sp.main(["--flexible", "--no-plot", "--tfinal", "0.1", "--outdir", str(tmp_path / "out")])
    assert seen == [sp.DEFAULT_EI]


@needs_firedrake
def test_flexible_pendulum_tends_to_the_rigid_one():
    from phmech.validation import spatial_pendulum as sp
    rigid = sp.simulate("equivalent", t_end=0.5, dt=1e-3, dt_out=0.01)
    diffs = []
    for EI in (1e3, 1e4):
        f = sp.simulate("flexible", EI, t_end=0.5, dt=1e-3, dt_out=0.01)
        assert f.energy_error < 1e-8                                  # H - H0 - W
        diffs.append(np.max(np.linalg.norm(f.tip - rigid.tip, axis=1)))
    assert 0.05 < diffs[1] / diffs[0] < 0.2 and diffs[1] < 5e-5, diffs   # ~ 1/EI


@needs_firedrake
@pytest.mark.slow
def test_flexible_pendulum_with_the_box_polar_moment_tends_to_the_rigid_one():
    """With the box's polar moment as the sections' rotary inertia, the stiff flexible link moves
    like the rigid box: the spin angular momentum of the sections has its rotating-frame term."""
    from phmech.validation import spatial_pendulum as sp
    rigid = sp.simulate("equivalent", t_end=1.0, dt=1e-3, torsion="box")
    f = sp.simulate("flexible", 1e5, t_end=1.0, dt=1e-3, torsion="box")
    assert np.max(np.linalg.norm(f.tip - rigid.tip, axis=1)) < 2e-5


# -- a planar four-bar in 3D ----------------------------------------------------

#: ground pivots O and C, joints A (crank-coupler) and B (coupler-follower) [m]
O, A, B, C = (0.0, 0.0), (0.3, 0.4), (1.3, 0.8), (1.2, 0.0)
OMEGA = 2.0


def planar_four_bar(driven):
    from phmech import PlanarRigidBody, System
    bodies = []
    for name, m, (p, q) in (("crank", 1.0, (O, A)), ("coupler", 2.0, (A, B)), ("follower", 1.5, (C, B))):
        d = np.subtract(q, p)
        bodies.append(PlanarRigidBody.rod(name, m, np.hypot(*d), position=p, angle=np.arctan2(d[1], d[0])))
    crank, coupler, follower = bodies
    s = System(bodies)
    s.pin(crank.port("A"))
    s.connect(crank.port("B"), coupler.port("A"))
    s.connect(coupler.port("B"), follower.port("B"))
    s.pin(follower.port("A"))
    if driven:
        s.drive(crank, OMEGA)
    s.add_gravity((0.0, -9.81))
    return s, bodies


def spatial_four_bar(driven):
    from phmech import SpatialRigidBody, System
    from phmech.joints import Revolute3
    z = (0.0, 0.0, 1.0)
    bodies = [SpatialRigidBody.bar(name, m, (*p, 0.0), (*q, 0.0))
              for name, m, (p, q) in (("crank", 1.0, (O, A)), ("coupler", 2.0, (A, B)), ("follower", 1.5, (C, B)))]
    crank, coupler, follower = bodies
    s = System(bodies)
    # the driver prescribes the ground's rate relative to the crank: -OMEGA about z
    s.add_joint(Revolute3(crank.port("A"), None, axis=z, name="O", rate=-OMEGA if driven else None))
    s.add_joint(Revolute3(crank.port("B"), coupler.port("A"), axis=z, name="A"))
    s.add_joint(Revolute3(coupler.port("B"), follower.port("B"), axis=z, name="B"))
    s.add_joint(Revolute3(follower.port("A"), None, axis=z, name="C"))
    s.add_gravity((0.0, -9.81, 0.0))
    return s, bodies


@pytest.mark.parametrize("driven", [False, True], ids=["free", "driven"])
def test_planar_four_bar_in_3d_moves_as_the_planar_model(driven):
    t_end, opts = 1.0, dict(solver="radau", rtol=1e-9, atol=1e-9, dt_out=0.05)
    s2, b2 = planar_four_bar(driven)
    s3, b3 = spatial_four_bar(driven)
    dae3 = s3.assemble()
    # 18 velocities, 20 (21 driven) rows, 1 (0) degree of freedom: three rows depend on the others
    assert len(dae3.redundant_rows) == 3, dae3.redundant_rows
    assert not s2.assemble().redundant_rows
    r2, r3 = s2.simulate(t_end, **opts), s3.simulate(t_end, **opts)
    assert np.allclose(r2.t, r3.t)
    for p2, p3 in zip(b2, b3):
        x2 = np.array([p2.port_position(q, p2.port("B")) for q in r2.q(p2)])
        x3 = np.array([p3.port_position(q, p3.port("B")) for q in r3.q(p3)])
        assert np.max(np.abs(x3[:, 2])) < 1e-12                      # stays in the plane
        assert np.max(np.abs(x3[:, :2] - x2)) < 1e-8, (p2.name, np.max(np.abs(x3[:, :2] - x2)))
    moved = np.max(np.abs(x2 - x2[0]))
    assert moved > 0.05
    H2 = r2.hamiltonian() + s2.assemble().potential_energy(r2.y)
    H3 = r3.hamiltonian() + dae3.potential_energy(r3.y)
    assert np.max(np.abs(H3 - H2)) < 1e-7

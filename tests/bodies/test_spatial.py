"""Spatial bodies and the hinged spatial beam."""
import json

import numpy as np
import pytest

from conftest import needs_firedrake


def test_spatial_rigid_body_momentum_and_energy():
    """A rigid body on a spherical joint: torque about z, then free motion."""
    from phmech import System
    from phmech import SpatialRigidBody
    I = np.diag([0.02, 0.05, 0.06])
    b = SpatialRigidBody("box", 2.0, I, center=(0.3, 0.05, 0.02), ports={"tip": (0.6, 0.0, 0.0)})
    s = System([b])
    s.sphere(b.port("P"), name="hinge")
    s.apply_moment(b.port("P"), lambda t: (0.0, 0.0, 3.0 if t < 0.5 else 0.0), name="torque")
    dae = s.assemble()
    e0 = np.zeros(6)
    e0[3:] = [0.4, -0.2, 0.1]
    y0 = dae.initial_state(e0=e0)
    r = s.simulate(3.0, solver="midpoint", dt=5e-4, y0=y0)
    H = r.hamiltonian()
    free = r.t >= 0.5 + 1e-9
    # conserved to the Newton tolerance (1e-10 per step, 5000 steps)
    assert np.ptp(H[free]) < 1e-8 * H[free].max()
    assert np.max(np.abs(r.energy_balance())) < 1e-8 * H.max()
    q, e = r.q(b), r.e(b)
    Lz = np.array([b.angular_momentum(qq, ee)[2] for qq, ee in zip(q, e)])
    # the torque's angular impulse, then conservation (exact for a rigid body up to O(h^2))
    assert Lz[free][0] - Lz[0] == pytest.approx(1.5, rel=1e-3)
    assert np.ptp(Lz[free]) < 1e-6 * abs(Lz[free]).max()
    # quaternion stays normalized (quadratic invariant of the midpoint rule)
    assert np.max(np.abs(np.linalg.norm(q[:, 3:7], axis=1) - 1)) < 1e-8   # to the Newton tolerance


@needs_firedrake
def test_spatial_beam_reduces_to_planar_beam_frequencies():
    from phmech import System
    from phmech.fem import FloatingEulerBernoulliBeam
    from phmech.fem.beam3d import FloatingSpatialBeam
    from phmech.joints import Weld3
    L, A, I, rho, E = 141.42, 9.0, 6.75, 7.8e-3, 2.1e6
    b3 = FloatingSpatialBeam("b3", L, 6, rho, A, E, I, 2 * I)    # Iz = 2 Iy: planes distinct
    s3 = System([b3])
    s3.add_joint(Weld3(b3.port("A")))
    w3 = s3.linearize().eigenmodes(8).omega
    for Ib in (I, 2 * I):                                        # x-z plane, x-y plane
        b2 = FloatingEulerBernoulliBeam("b2", L, 6, rho, A, E, Ib, frame="cantilever")
        s2 = System([b2])
        s2.clamp(b2.port("A"))
        w2 = s2.linearize().eigenmodes(3).omega
        for w in w2:
            assert np.min(np.abs(w3 - w)) < 1e-9 * w, (w, w3)


@needs_firedrake
def test_planar_motion_matches_planar_beam():
    """Torque about z only: the spatial beam moves in the plane like the planar beam."""
    from phmech import System
    from phmech.fem import FloatingEulerBernoulliBeam
    from phmech.validation import hinged_beam as hb
    out = hb.run(2.0, n_elem=4, dt=0.005, dt_out=0.05, with_force=False, plot=False, vtk=False)
    from phmech.mechanisms.hinged_beam import DATA as p, torque
    b2 = FloatingEulerBernoulliBeam("b2", p["L"], 4, p["rho"], p["A"], p["E"], p["I"], frame="cantilever")
    s2 = System([b2])
    s2.pin(b2.port("A"))
    s2.apply_moment(b2.port("A"), torque)
    r2 = s2.simulate(2.0, solver="midpoint", dt=0.005, t_eval=out.t)
    w2 = r2.e(b2)[:, 2]
    assert np.max(np.abs(out.omega_z - w2)) < 1e-9 * np.max(np.abs(w2))
    assert np.max(np.abs(out.tip[:, 2])) < 1e-12          # no out-of-plane motion


@needs_firedrake
def test_hinged_beam_energy_work_and_momentum(tmp_path):
    from phmech.validation import hinged_beam as hb
    out = hb.run(16.5, n_elem=3, dt=0.01, dt_out=0.05, outdir=str(tmp_path))
    s = out.summary
    # free phases: energy conserved to round-off; the balance with the loads' work closes
    assert s["energy_drift_rel_10_2_to_15"] < 1e-10
    assert s["energy_drift_rel_after_15_4"] < 1e-10
    assert s["energy_balance_max_abs"] < 1e-9 * np.max(out.energy)
    assert s["energy_after_torque"] == pytest.approx(s["work_of_torque"], rel=1e-10)
    # the pulse injects energy and excites out-of-plane motion
    assert out.energy[-1] > 1.01 * s["energy_after_torque"]
    assert s["tip_z_max_abs"] > 1e-3
    # L_z: the linear floating frame conserves it up to its second-order defect
    # int rho A (omega x r) x v_f, independent of the step size
    assert s["momentum_z_drift_rel_after_10_2"] < 2e-3
    out2 = hb.run(16.5, n_elem=3, dt=0.005, dt_out=0.05, plot=False, vtk=False)
    assert abs(out2.summary["momentum_z_drift_rel_after_10_2"] - s["momentum_z_drift_rel_after_10_2"]) < 1e-5
    for name in ("hinged_beam.csv", "H_3Dbeam.png", "omega_zI.pdf", "hinged_beam.pvd", "summary.json"):
        assert (tmp_path / name).exists(), name


@needs_firedrake
def test_hinged_beam_reports_only_the_windows_it_reached(tmp_path, capsys):
    """``--tfinal 0.5`` ends before the free phases (10.2-15 s, after 15.4 s): their drifts are
    None in summary.json (null, not 0) and the printout says they were not reached."""
    from phmech.validation import hinged_beam as hb
    hb.main(["--tfinal", "0.5", "--n-elem", "2", "--dt", "0.05", "--outdir", str(tmp_path), "--no-plot", "--no-vtk"])
    text = capsys.readouterr().out
    s = json.loads((tmp_path / "summary.json").read_text())
    for key in ("energy_drift_rel_10_2_to_15", "energy_drift_rel_after_15_4", "momentum_z_drift_rel_after_10_2",
                "momentum_z_drift_rel_10_2_to_15", "momentum_z_drift_rel_after_15_4",
                "energy_after_torque", "work_of_torque"):
        assert s[key] is None, key
    assert "0.00e+00" not in text
    assert text.count("not reached (t_end = 0.5 s)") == 3, text
    # a reached window is reported with its number
    lines = hb.report({**s, "energy_drift_rel_10_2_to_15": 3e-12}, "midpoint")
    assert "10.2-15 s: 3.00e-12" in lines[1] and "after 15.4 s: not reached" in lines[1]


@needs_firedrake
def test_stiff_spatial_beam_moves_like_rigid_rod():
    """Gyroscopic terms of the 3D beam: a very stiff beam tumbling about its hinge
    follows the rigid rod with the same mass distribution."""
    from phmech import System
    from phmech.fem.beam3d import FloatingSpatialBeam
    from phmech import SpatialRigidBody
    from phmech.math import rot3
    L, A, I, rho, E = 141.42, 9.0, 6.75, 7.8e-3, 2.1e8
    beam = FloatingSpatialBeam("beam", L, 3, rho, A, E, I, I)
    m = rho * A * L
    rod = SpatialRigidBody("rod", m, np.diag([rho * 2 * I * L, m * L**2 / 12, m * L**2 / 12]),
                           center=(L / 2, 0, 0))
    t_eval = np.linspace(0.0, 10.0, 6)
    axes, omegas = [], []
    for body, port in ((beam, "A"), (rod, "P")):
        s = System([body])
        s.sphere(body.port(port))
        dae = s.assemble()
        e0 = np.zeros(body.ne)
        e0[3:6] = [0.02, 0.05, 0.03]
        r = s.simulate(10.0, solver="midpoint", dt=0.004, y0=dae.initial_state(e0=e0), t_eval=t_eval)
        q, e = r.q(body), r.e(body)
        axes.append(np.array([rot3(qq[3:7])[:, 0] for qq in q]))
        omegas.append(np.array([rot3(qq[3:7]) @ ee[3:6] for qq, ee in zip(q, e)]))
    assert np.max(np.abs(axes[0] - axes[1])) < 1e-4
    assert np.max(np.abs(omegas[0] - omegas[1])) < 1e-4 * np.max(np.abs(omegas[1]))
    assert np.ptp(axes[1][:, 2]) > 0.1     # the rod really tumbles out of the plane

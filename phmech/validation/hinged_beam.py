"""Hinged spatial beam: a 3D floating pH beam on a spherical joint.

The beam (length 141.42, section 9, second moments 6.75, density 7.8e-3,
Young's modulus 2.1e6 -- millimetre-based units: mm, s, and the mass and
force units those numbers imply, as in the thesis' own computation) is
hinged at one end by a spherical joint and lies initially along the
horizontal x axis; its deformation field is a cantilever at the hinge and
the tip is free.  A torque M_z = 200 about the vertical axis is ramped up
over 0.2 s, held to 10 s and ramped down to zero by 10.2 s; a vertical
tip force F_z = 100, a triangular pulse over 15.0-15.4 s, then excites the
out-of-plane motion.  No gravity.

``--geometric-stiffness`` replaces the linear floating frame by the
geometrically consistent beam (:class:`phmech.fem.beam3d_nonlinear.NonlinearSpatialBeam`:
exact rotating-frame inertia, Green-Lagrange axial strain); the torque then
acts on the beam's frame, which is the root section
(:class:`~phmech.fem.beam3d_nonlinear.FrameMoment`).  Its angular momentum
about the vertical axis is an invariant of the free phases.

    python -m phmech.validation.hinged_beam --tfinal 50 --solver midpoint
"""
import os
import sys
from dataclasses import dataclass

import numpy as np

from ..mechanisms.hinged_beam import DATA, hinged_spatial_beam
from . import _common

UNITS = "length mm, time s; mass and force in the units implied by rho = 7.8e-3 and E = 2.1e6"
#: the case's mechanism (:mod:`phmech.mechanisms.hinged_beam`)
build = hinged_spatial_beam


@dataclass
class HingedBeamResult(_common.CaseResult):
    result: object
    t: np.ndarray
    energy: np.ndarray
    work: np.ndarray
    omega_z: np.ndarray           # angular velocity about the inertial vertical axis
    momentum_z: np.ndarray        # angular momentum about the vertical axis through the hinge
    tip: np.ndarray               # inertial tip position (N, 3)


def run(t_end=50.0, n_elem=6, solver="midpoint", dt=0.01, rtol=1e-6, atol=1e-6, dt_out=0.05,
        outdir=None, plot=True, vtk=True, with_force=True, progress=False, geometric_stiffness=False,
        solver_options=None):
    """Simulate; write CSV, figures, ParaView files and summary.json to ``outdir``.

    ``geometric_stiffness=True``: the geometrically consistent beam (module docstring)."""
    s, beam = build(n_elem, with_force, geometric_stiffness)
    dae = s.assemble()
    y0 = dae.initial_state()
    t_eval = np.linspace(0.0, t_end, int(round(t_end / dt_out)) + 1)
    # the load breakpoints are tstops of the driver: no step straddles a kink
    breaks = [b for b in (0.2, 10.0, 10.2, 15.0, 15.2, 15.4) if b < t_end]
    opts = dict(dt=dt) if solver == "midpoint" else dict(rtol=rtol, atol=atol)
    from ..solvers import solve
    opts.update(solver_options or {})      # e.g. checkpoint, checkpoint_every, restart
    res = solve(dae, (0.0, t_end), y0, method=solver, t_eval=t_eval, tstops=breaks, progress=progress, **opts)
    stats = dict(res.stats)
    H = res.hamiltonian()
    if res.work is not None:
        work = res.work
    else:
        P = res.power()
        work = np.concatenate([[0.0], np.cumsum(0.5 * (P[1:] + P[:-1]) * np.diff(res.t))])
    q, e = res.q(beam), res.e(beam)
    from ..math.rotations import rot3
    Rs = np.array([rot3(qq[3:7]) for qq in q])
    if geometric_stiffness:      # the frame turns with Omega = d(q) omega; momentum from the deformed body
        Om = np.array([beam.frame_scale(qq)[0] * ee[3:6] for qq, ee in zip(q, e)])
        omega_z = np.einsum("nij,nj->ni", Rs, Om)[:, 2]
        momentum_z = np.array([beam.angular_momentum(qq, ee)[2] for qq, ee in zip(q, e)])
    else:
        omega_z = np.einsum("nij,nj->ni", Rs, e[:, 3:6])[:, 2]
        h = (beam.M @ e.T).T[:, 3:6]
        momentum_z = np.einsum("nij,nj->ni", Rs, h)[:, 2]
    ux, uy, uz = beam.displacement_rows([beam.L])
    src = q if geometric_stiffness else e        # displacements: from q (consistent) or the stresses
    tip_local = np.stack([beam.L + src @ ux[0], src @ uy[0], src @ uz[0]], axis=1)
    tip = q[:, :3] + np.einsum("nij,nj->ni", Rs, tip_local)
    out = HingedBeamResult(res, res.t, H, work, omega_z, momentum_z, tip)

    def window(a, b):
        return (out.t >= a - 1e-9) & (out.t <= b + 1e-9)

    def drift(values, mask, scale):
        """Relative drift ``ptp / max`` over the output times in ``mask``; None for a window the run
        did not reach (fewer than two output times in it)."""
        return float(np.ptp(values[mask]) / scale(values[mask])) if mask.sum() > 1 else None

    free1, free2 = window(10.2, min(15.0, t_end)), window(15.4, t_end)
    after = out.t >= 10.2 - 1e-9
    out.summary = {
        "units": UNITS, "parameters": {**DATA, "n_elem": n_elem, "t_end": t_end},
        "model": ("geometrically consistent floating frame, Green-Lagrange axial strain"
                  if geometric_stiffness else "linear floating frame (thesis)"),
        "solver": solver, "dt": dt if solver == "midpoint" else None, "rtol": rtol, "atol": atol,
        "stats": stats, "omega_z_max": float(np.max(np.abs(omega_z))),
        "energy_after_torque": float(H[window(10.2, 10.2)][0]) if window(10.2, 10.2).any() else None,
        "work_of_torque": float(work[after][0]) if after.any() else None,
        "energy_drift_rel_10_2_to_15": drift(H, free1, np.max),
        "energy_drift_rel_after_15_4": drift(H, free2, np.max),
        "energy_balance_max_abs": float(np.max(np.abs(H - H[0] - work))),
        "momentum_z_drift_rel_after_10_2": drift(momentum_z, after, lambda v: np.max(np.abs(v))),
        "momentum_z_drift_rel_10_2_to_15": drift(momentum_z, free1, lambda v: np.max(np.abs(v))),
        "momentum_z_drift_rel_after_15_4": drift(momentum_z, free2, lambda v: np.max(np.abs(v))),
        "tip_z_max_abs": float(np.max(np.abs(tip[:, 2]))),
    }
    if outdir is not None:
        out.files += write(out, beam, outdir, plot, vtk)
    return out


def write(out, beam, outdir, plot=True, vtk=True):
    files = [_common.result_csv(out.result, os.path.join(outdir, "hinged_beam.csv"), {
        "energy": out.energy, "work": out.work, "omega_z": out.omega_z, "momentum_z": out.momentum_z,
        "tip_x": out.tip[:, 0], "tip_y": out.tip[:, 1], "tip_z": out.tip[:, 2]},
        case="hinged_beam", notes=[f"model: {out.summary['model']}; units: {UNITS}",
                                   f"parameters: {_common.notes_of(out.summary['parameters'])}"])]
    if plot:
        plt = _common.figure_style()
        for stem, data, lab in (("H_3Dbeam", out.energy,
                                 r"total energy $H$ [$\mathcal{M}\,\mathrm{mm}^2/\mathrm{s}^2$]" "\n"
                                 r"($\mathcal{M}$: the mass unit of $\rho$ = 7.8e-3)"),
                                ("omega_zI", out.omega_z, r"$\omega_z$ (inertial vertical) [rad/s]")):
            fig, ax = plt.subplots()
            ax.plot(out.t, data)
            ax.set_xlabel("time [s]")
            ax.set_ylabel(lab)
            ax.set_title(f"hinged beam, {out.summary['solver']}")
            files += _common.savefig(fig, outdir, stem)
            plt.close(fig)
    if vtk:
        files.append(write_vtk(out, beam, os.path.join(outdir, "hinged_beam.pvd")))
    files.append(_common.write_summary(outdir, "hinged_beam", out.summary))
    return files


def write_vtk(out, beam, path, every=20):
    """ParaView series of the beam in its current configuration (rigid motion plus deformation;
    point data ``displacement``): :meth:`phmech.result.Result.to_pvd`."""
    return out.result.to_pvd(path, every=every)[0]


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0] + f" Units: {UNITS}.", tfinal=50.0, dt=0.01, checkpoints=True)
    p.add_argument("--n-elem", type=_common.positive_int, default=6, help="number of beam elements")
    p.add_argument("--no-vtk", action="store_true", help="do not write ParaView files")
    p.add_argument("--geometric-stiffness", action="store_true",
                   help="geometrically consistent beam (exact inertia, geometric stiffening)")
    _common.add_animate_option(p)
    args = p.parse_args(argv)
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []
    out = run(args.tfinal, args.n_elem, args.solver, args.dt, args.rtol, args.atol, outdir=args.outdir,
              plot=not args.no_plot, vtk=not args.no_vtk, progress=sys.stderr.isatty(),
              geometric_stiffness=args.geometric_stiffness, solver_options=_common.checkpoint_options(args))
    movie = _common.animation_path(args, "hinged_beam")
    if movie is not None:           # seen from above: the plane of the torque's rotation
        out.files.append(out.result.animate(movie, every=_common.animation_every(len(out.t)), plane="xy",
                                            title="hinged beam (top view)", time_label="t = {t:.2f} s"))
    for line in report(out.summary, args.solver):
        print(line)


def report(s, solver):
    """The printed lines of a run's summary ``s``: the drifts of the free phases (10.2-15 s after the
    torque, after the pulse at 15.4 s) only for the windows the run reached."""
    t_end = s["parameters"]["t_end"]

    def drift(key, window):
        v = s[key]
        return f"{window}: {v:.2e}" if v is not None else f"{window}: not reached (t_end = {t_end:g} s)"
    return [f"hinged beam ({UNITS}): {solver}, wall time {s['stats']['wall_time']:.2f} s",
            f"  peak |omega_z| = {s['omega_z_max']:.5f} rad/s; energy drift (rel.) "
            f"{drift('energy_drift_rel_10_2_to_15', '10.2-15 s')}, "
            f"{drift('energy_drift_rel_after_15_4', 'after 15.4 s')}",
            f"  work of the loads vs energy: max |H - H0 - W| = {s['energy_balance_max_abs']:.3e}; "
            f"L_z drift {drift('momentum_z_drift_rel_after_10_2', 'after 10.2 s')}"]


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

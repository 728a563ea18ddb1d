"""Bricard's mechanism: the overconstrained benchmark A04 of the IFToMM library of
computational multibody benchmarks (Gonzalez, Dopico, Lugris, Cuadrado, Multibody
Syst. Dyn. 16, 2006).

Five uniform slender links (1 m, 1 kg on the axis: I = m L^2 / 12 about the
transverse axes, no axial inertia; ``section="box"`` gives 1 x 0.1 x 0.1 m
boxes) and six revolute joints: J1 (0,0,0) axis y, ground - link 1; J2
(1,0,0) axis z; J3 (1,-1,0) axis x; J4 (1,-1,1) axis y; J5 (0,-1,1) axis
z; J6 (0,0,1) axis x, link 5 - ground.  Gravity 9.81 m/s^2 along -y,
released from rest.  Grubler's count gives 0 degrees of freedom; the
mechanism has 1: one closure row is redundant, found at assembly and its
multiplier set to zero.  Reported: the point P3 (= J3, initially
(1, -1, 0)), the total energy H + V and the constraint drift on position
and velocity level.

    python -m phmech.validation.bricard --tfinal 10 --dt 1e-3
"""
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from .. import SpatialRigidBody, System
from ..joints import Revolute3
from . import _common

JOINTS = [(0, 0, 0), (1, 0, 0), (1, -1, 0), (1, -1, 1), (0, -1, 1), (0, 0, 1)]
AXES = [(0, 1, 0), (0, 0, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 0)]
GRAVITY = (0.0, -9.81, 0.0)


def build(section=None):
    """The mechanism; ``section=None`` (slender links) or ``"box"``; returns ``(system, links)``."""
    sec = None if section is None else (0.1, 0.1)
    links = [SpatialRigidBody.bar(f"link{i + 1}", 1.0, JOINTS[i], JOINTS[i + 1], section=sec) for i in range(5)]
    s = System(links)
    s.add_joint(Revolute3(links[0].port("A"), None, axis=AXES[0], name="J1"))
    for i in range(1, 5):
        s.add_joint(Revolute3(links[i - 1].port("B"), links[i].port("A"), axis=AXES[i], name=f"J{i + 1}"))
    s.add_joint(Revolute3(links[4].port("B"), None, axis=AXES[5], name="J6"))
    s.add_gravity(GRAVITY)
    return s, links


@dataclass
class BricardResult:
    result: object
    t: np.ndarray
    P3: np.ndarray                 # (N, 3) [m]
    energy: np.ndarray             # H + V [J]
    position_residual: np.ndarray  # max joint position residual [m or rad]
    velocity_residual: np.ndarray  # max |G e - w|
    summary: dict = field(default_factory=dict)
    files: list = field(default_factory=list)


def run(t_end=10.0, solver="midpoint", dt=1e-3, rtol=1e-8, atol=1e-8, dt_out=0.01, section=None,
        outdir=None, plot=True, progress=False):
    """Simulate; write CSV, figures and summary.json to ``outdir`` when given."""
    s, links = build(section)
    dae = s.assemble()
    y0 = dae.initial_state()
    t_eval = np.linspace(0.0, t_end, int(round(t_end / dt_out)) + 1)
    opts = dict(dt=dt) if solver == "midpoint" else dict(rtol=rtol, atol=atol)
    r = s.simulate(t_end, solver=solver, y0=y0, t_eval=t_eval, progress=progress, **opts)
    link2 = links[1]
    q2 = r.q(link2)
    P3 = np.array([link2.port_position(q, link2.port("B")) for q in q2])
    E = r.hamiltonian() + dae.potential_energy(r.y)
    pos = np.array([max(np.max(np.abs(v)) for v in dae.position_residuals(t, y[dae.sq]).values())
                    for t, y in zip(r.t, r.y)])
    vel = r.constraint_residual()
    out = BricardResult(r, r.t, P3, E, pos, vel)
    at = {}
    for ts in (1.0, 5.0, 10.0):
        if ts <= t_end + 1e-12:
            at[f"{ts:g}"] = P3[int(np.argmin(np.abs(r.t - ts)))].tolist()
    out.summary = {
        "parameters": {"t_end": t_end, "section": section or "slender", "gravity": GRAVITY},
        "solver": solver, "dt": dt if solver == "midpoint" else None, "rtol": rtol, "atol": atol,
        "stats": r.stats, "redundant_rows": [f"{n}[{k}]" for n, k in dae.redundant_rows],
        "P3_at": at, "energy_drift_J": float(np.ptp(E)), "energy_J": float(E[0]),
        "position_residual_max": float(np.max(pos)), "velocity_residual_max": float(np.max(vel)),
    }
    if outdir is not None:
        out.files += write(out, outdir, plot)
    return out


def write(out, outdir, plot=True):
    files = [out.result.to_csv(os.path.join(outdir, "bricard.csv"), {
        "P3_x": out.P3[:, 0], "P3_y": out.P3[:, 1], "P3_z": out.P3[:, 2], "energy": out.energy,
        "position_residual": out.position_residual, "velocity_residual": out.velocity_residual})]
    if plot:
        plt = _common.figure_style()
        fig, ax = plt.subplots()
        for i, c in enumerate("xyz"):
            ax.plot(out.t, out.P3[:, i], label=f"$P_{{3,{c}}}$")
        ax.set_xlabel("time [s]")
        ax.set_ylabel("position of P3 [m]")
        ax.legend()
        files += _common.savefig(fig, outdir, "bricard_P3")
        plt.close(fig)
        fig, ax = plt.subplots()
        ax.plot(out.t, out.energy - out.energy[0])
        ax.set_xlabel("time [s]")
        ax.set_ylabel(r"$H + V - (H + V)_0$ [J]")
        files += _common.savefig(fig, outdir, "bricard_energy")
        plt.close(fig)
    files.append(_common.write_summary(outdir, "bricard", out.summary))
    return files


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0], tfinal=10.0, dt=1e-3)
    p.add_argument("--section", choices=["slender", "box"], default="slender", help="link cross-section")
    args = p.parse_args(argv)
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []
    out = run(args.tfinal, args.solver, args.dt, args.rtol, args.atol,
              section=None if args.section == "slender" else "box", outdir=args.outdir,
              plot=not args.no_plot, progress=sys.stderr.isatty())
    s = out.summary
    print(f"Bricard ({s['parameters']['section']}), {args.solver}: wall time {s['stats']['wall_time']:.2f} s; "
          f"redundant rows {s['redundant_rows']}")
    for k, v in s["P3_at"].items():
        print(f"  P3({k} s) = ({v[0]:.6f}, {v[1]:.6f}, {v[2]:.6f}) m")
    print(f"  energy drift {s['energy_drift_J']:.2e} J; position residual {s['position_residual_max']:.2e}; "
          f"velocity residual {s['velocity_residual_max']:.2e}")


if __name__ == "__main__":
    main()

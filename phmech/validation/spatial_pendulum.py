"""A spatial double pendulum of two bars, rigid or with a flexible second bar.

Two bars 1 x 0.1 x 0.1 m of 1 kg each: joint A at the origin (axis x)
between the ground and bar 1, joint B at (0, 1, 0) between the bars with
axis (1, 0, 1)/sqrt(2) fixed in bar 1; both bars initially along +y;
gravity 9.81 m/s^2 along -z; released from rest; 5 s.  Reported: the tip of
bar 2 and the energy.  With ``flexible_EI`` bar 2 is a floating spatial
Euler-Bernoulli beam (Firedrake) of the same mass (rho A = 1 kg/m), bending
stiffness ``EI`` in both planes, cantilever deformation field at joint B;
as ``EI`` grows its motion tends to that of a rigid bar with the beam's mass
distribution (``section=None``: mass on the axis).

    python -m phmech.validation.spatial_pendulum --tfinal 5
"""
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from .. import SpatialRigidBody, System
from ..joints import Revolute3
from ..math.rotations import quat_from_axis_angle
from . import _common

GRAVITY = (0.0, 0.0, -9.81)
AXIS_B = np.array([1.0, 0.0, 1.0]) / np.sqrt(2.0)


def build(flexible_EI=None, n_elem=4, section=(0.1, 0.1)):
    """The pendulum; returns ``(system, bar1, bar2)``."""
    bar1 = SpatialRigidBody.bar("bar1", 1.0, (0, 0, 0), (0, 1, 0), section=section)
    if flexible_EI is None:
        bar2 = SpatialRigidBody.bar("bar2", 1.0, (0, 1, 0), (0, 2, 0), section=section)
    else:
        from ..fem.beam3d import FloatingSpatialBeam
        A, rho = 0.01, 100.0
        E = 1e9
        I = flexible_EI / E
        bar2 = FloatingSpatialBeam("bar2", 1.0, n_elem, rho, A, E, I, I, position=(0, 1, 0),
                                   orientation=quat_from_axis_angle((0, 0, 1), np.pi / 2))
    s = System([bar1, bar2])
    s.add_joint(Revolute3(bar1.port("A"), None, axis=(1.0, 0.0, 0.0), name="A"))
    s.add_joint(Revolute3(bar1.port("B"), bar2.port("A"), axis=AXIS_B, name="B"))
    s.add_gravity(GRAVITY)
    return s, bar1, bar2


def tip_of(body, q):
    return body.port_position(q, body.port("B"))


@dataclass
class PendulumResult:
    result: object
    t: np.ndarray
    tip: np.ndarray            # (N, 3) tip of bar 2 on the undeformed axis of its frame [m]
    energy: np.ndarray         # H + V (rigid) or H - H0 - W (flexible: balance with the work of gravity)
    summary: dict = field(default_factory=dict)
    files: list = field(default_factory=list)


def run(t_end=5.0, dt=1e-3, flexible_EI=None, n_elem=4, section=(0.1, 0.1), dt_out=0.01, outdir=None, plot=True,
        progress=False):
    s, bar1, bar2 = build(flexible_EI, n_elem, section)
    dae = s.assemble()
    t_eval = np.linspace(0.0, t_end, int(round(t_end / dt_out)) + 1)
    r = s.simulate(t_end, dt=dt, t_eval=t_eval, progress=progress)
    tip = np.array([tip_of(bar2, q) for q in r.q(bar2)])
    if flexible_EI is None:
        energy = r.hamiltonian() + dae.potential_energy(r.y)
        drift = float(np.ptp(energy))
    else:
        energy = r.energy_balance()
        drift = float(np.max(np.abs(energy)))
    out = PendulumResult(r, r.t, tip, energy)
    out.summary = {"parameters": {"t_end": t_end, "dt": dt, "flexible_EI": flexible_EI, "n_elem": n_elem},
                   "stats": r.stats, "tip_end": tip[-1].tolist(), "energy_error_J": drift,
                   "tip_z_min": float(tip[:, 2].min())}
    if outdir is not None:
        files = [r.to_csv(os.path.join(outdir, "spatial_pendulum.csv"),
                          {"tip_x": tip[:, 0], "tip_y": tip[:, 1], "tip_z": tip[:, 2], "energy": energy})]
        if plot:
            plt = _common.figure_style()
            fig, ax = plt.subplots()
            for i, c in enumerate("xyz"):
                ax.plot(r.t, tip[:, i], label=f"tip {c}")
            ax.set_xlabel("time [s]")
            ax.set_ylabel("tip of bar 2 [m]")
            ax.legend()
            files += _common.savefig(fig, outdir, "spatial_pendulum_tip")
            plt.close(fig)
        files.append(_common.write_summary(outdir, "spatial_pendulum", out.summary))
        out.files += files
    return out


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0], tfinal=5.0, dt=1e-3)
    p.add_argument("--flexible", type=float, default=None, metavar="EI",
                   help="bar 2 as a flexible beam with this bending stiffness [N m^2]")
    p.add_argument("--n-elem", type=int, default=4, help="elements of the flexible bar")
    args = p.parse_args(argv)
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []
    out = run(args.tfinal, args.dt, args.flexible, args.n_elem, outdir=args.outdir, plot=not args.no_plot,
              progress=sys.stderr.isatty())
    s = out.summary
    print(f"spatial pendulum ({'rigid' if args.flexible is None else f'flexible, EI = {args.flexible}'}): "
          f"wall time {s['stats']['wall_time']:.2f} s")
    print(f"  tip at t = {args.tfinal}: {np.round(s['tip_end'], 6)} m; energy error {s['energy_error_J']:.2e} J")


if __name__ == "__main__":
    main()

"""A spatial double pendulum of two bars, rigid or with a flexible second bar.

Two bars 1 x 0.1 x 0.1 m of 1 kg each: joint A at the origin (axis x)
between the ground and bar 1, joint B at (0, 1, 0) between the bars with
axis (1, 0, 1)/sqrt(2) (inertial components at t = 0) fixed in bar 1; both bars initially along +y;
gravity 9.81 m/s^2 along -z; released from rest; 5 s.  Reported: the tip of
bar 2 and the total energy H + V.

Flexible second bar: a floating spatial Euler-Bernoulli beam with torsion
(Firedrake), frame origin and cantilever condition at its port A (joint B),
of the same mass (rho A = 1 kg/m, square 0.1 m section, torsional rotary
inertia rho I_p of the box) and bending stiffness ``EI`` in both planes
(``E = EI / I``, so the axial and torsional stiffness grow with it).  Its
tip is the deformed one, ``x_P + R (L e_1 + u(L))``.  Its energy check is
the balance ``H - H0 - W`` with the solver's exact record of the work of
gravity.  As ``EI`` grows the motion tends to that of the rigid bar with
the beam's mass distribution (mass on the axis plus the torsional inertia;
the bending rotary inertia of the section is absent in Euler-Bernoulli
theory), so that the difference is the elasticity alone.

The beam's torsional rotary inertia ``rho I_p`` enters its mass matrix but
not its gyroscopic matrices (:mod:`phmech.fem.beam3d`: the moment
``-omega x (rho I_p int (omega_1 + w_x) dx e_1)`` on the frame is missing),
so with the box's polar moment the stiff beam tends to a body that is not
the rigid bar of the same inertia.  The study therefore uses a negligible
polar moment (``TORSION["negligible"]`` of the box's) in both models;
``torsion="box"`` (``--torsion box``) gives the box's value to both, and
:func:`run` reports that difference at the largest ``EI`` as a check.

    python -m phmech.validation.spatial_pendulum --outdir out/sp --flexible 1e3 1e4 1e5
    python -m phmech.validation.spatial_pendulum --outdir out/sp --rigid-only
"""
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from .. import SpatialRigidBody, System
from ..joints import Revolute3
from ..math.rotations import quat_from_axis_angle
from .._stack import available
from . import _common
from . import _spatial_common as common

GRAVITY = (0.0, 0.0, -9.81)
AXIS_B = np.array([1.0, 0.0, 1.0]) / np.sqrt(2.0)
LENGTH, MASS, SECTION = 1.0, 1.0, (0.1, 0.1)
#: bending stiffnesses of the default flexible study [N m^2]
DEFAULT_EI = (1e3, 1e4, 1e5)
#: bar 2 kinds: rigid box, rigid with the beam's mass distribution, flexible beam
KINDS = ("box", "equivalent", "flexible")
#: polar moment of bar 2's section in the beam model and its rigid equivalent, relative to the box's
TORSION = {"negligible": 1e-6, "box": 1.0}


def have_firedrake():
    """True when Firedrake can be imported (the flexible bar needs it)."""
    return available("firedrake")


def beam_data(EI, torsion="negligible"):
    """Section and material of the flexible bar 2 for the bending stiffness ``EI`` [N m^2].

    Square ``b x b`` section of :data:`SECTION`, ``rho A L = MASS``,
    ``E = EI / I``, ``G = E / 2.6``, torsion constant ``0.1406 b^4`` (square),
    polar moment ``I_p = TORSION[torsion] * b^4 / 6`` (for the torsional
    rotary inertia; ``"box"``: the box's).
    """
    if torsion not in TORSION:
        raise ValueError(f"spatial_pendulum: torsion must be one of {sorted(TORSION)}, got {torsion!r}")
    EI = float(EI)
    if not (np.isfinite(EI) and EI > 0):
        raise ValueError(f"spatial_pendulum: EI must be positive and finite, got {EI!r}")
    b = SECTION[0]
    A, I = b * b, b**4 / 12.0
    E = EI / I
    return dict(rho=MASS / (A * LENGTH), A=A, E=E, Iy=I, Iz=I, G=E / 2.6, Jt=0.1406 * b**4,
                Ip=TORSION[torsion] * 2.0 * I)


def build(bar2="box", EI=None, n_elem=4, torsion="negligible"):
    """The pendulum.

    Parameters
    ----------
    bar2 : {"box", "equivalent", "flexible"}
        Bar 2 as a rigid 1 x 0.1 x 0.1 m box, as a rigid bar with the mass
        distribution of the beam model, or as the flexible beam.
    EI : float
        Bending stiffness of the flexible bar [N m^2] (``bar2="flexible"``).
    n_elem : int
        Elements of the flexible bar.
    torsion : {"negligible", "box"}
        Polar moment of the beam model and its rigid equivalent (see :data:`TORSION`).

    Returns
    -------
    (System, body, body)
        The system (joints A, B; gravity), bar 1 and bar 2.
    """
    if bar2 not in KINDS:
        raise ValueError(f"spatial_pendulum: bar2 must be one of {KINDS}, got {bar2!r}")
    if bar2 == "flexible" and EI is None:
        raise ValueError("spatial_pendulum: a flexible bar 2 needs its bending stiffness EI")
    bar1 = SpatialRigidBody.bar("bar1", MASS, (0, 0, 0), (0, LENGTH, 0), section=SECTION)
    start, orient = (0.0, LENGTH, 0.0), quat_from_axis_angle((0, 0, 1), np.pi / 2)   # body x along +y
    if bar2 == "box":
        body2 = SpatialRigidBody.bar("bar2", MASS, start, (0, 2 * LENGTH, 0), section=SECTION)
    elif bar2 == "equivalent":
        d = beam_data(1.0, torsion)
        It = MASS * LENGTH**2 / 12.0
        body2 = SpatialRigidBody("bar2", MASS, np.diag([d["rho"] * d["Ip"] * LENGTH, It, It]),
                                 center=(LENGTH / 2, 0, 0), ports={"A": (0, 0, 0), "B": (LENGTH, 0, 0)},
                                 position=start, orientation=orient)
    else:
        from ..fem.beam3d import FloatingSpatialBeam
        d = beam_data(EI, torsion)
        body2 = FloatingSpatialBeam("bar2", LENGTH, n_elem, d["rho"], d["A"], d["E"], d["Iy"], d["Iz"],
                                    G=d["G"], Jt=d["Jt"], Ip=d["Ip"], position=start, orientation=orient)
    s = System([bar1, body2])
    s.add_joint(Revolute3(bar1.port("A"), None, axis=(1.0, 0.0, 0.0), name="A"))
    s.add_joint(Revolute3(bar1.port("B"), body2.port("A"), axis=AXIS_B, name="B"))
    s.add_gravity(GRAVITY)
    return s, bar1, body2


def tip_history(result, body):
    """Inertial position of the tip (port B) of ``body`` at every output time, shape (N, 3).

    For a flexible beam the deformed tip ``x_P + R (L e_1 + u(L))``, with the
    displacement recovered from the stresses (the motion starts undeformed).
    """
    qs, es = result.q(body), result.e(body)
    pB = body.port("B")
    if not hasattr(body, "displacement_rows"):
        return np.array([body.port_position(q, pB) for q in qs])
    U = np.vstack([r[0] for r in body.displacement_rows([body.L])])    # (3, ne)
    return np.array([body.position(q) + body.rotation(q) @ (pB.position + U @ e) for q, e in zip(qs, es)])


@dataclass
class PendulumRun:
    """One run: ``tip`` (N, 3) [m]; ``energy``: ``H + V`` (rigid) or ``H - H0 - W`` (flexible)."""

    kind: str
    EI: object
    result: object
    t: np.ndarray
    tip: np.ndarray
    energy: np.ndarray
    energy_error: float
    summary: dict = field(default_factory=dict)


def simulate(bar2="box", EI=None, t_end=5.0, dt=1e-3, n_elem=4, dt_out=0.01, torsion="negligible",
             progress=False, solver_options=None):
    """One run with the midpoint rule; returns a :class:`PendulumRun`.

    ``solver_options`` go to the driver (``checkpoint``, ``checkpoint_every``, ``restart``)."""
    s, bar1, body2 = build(bar2, EI, n_elem, torsion)
    dae = s.assemble()
    r = s.simulate(t_end, solver="midpoint", dt=dt, t_eval=common.output_times(t_end, dt_out), progress=progress,
                   **(solver_options or {}))
    tip = tip_history(r, body2)
    if bar2 == "flexible":
        energy = r.energy_balance()
        err = float(np.max(np.abs(energy)))
    else:
        energy = r.hamiltonian() + dae.potential_energy(r.y)
        err = common.energy_drift(energy)
    run = PendulumRun(bar2, EI, r, r.t, tip, energy, err)
    run.summary = {"bar2": bar2, "EI": EI, "n_elem": n_elem if bar2 == "flexible" else None,
                   "torsion": None if bar2 == "box" else torsion,
                   "stats": r.stats, "tip_end": tip[-1].tolist(), "tip_z_min": float(tip[:, 2].min()),
                   "energy_J": float(r.hamiltonian()[0] + dae.potential_energy(r.y[0])),
                   "energy_check": "H - H0 - W" if bar2 == "flexible" else "H + V - (H + V)_0",
                   "energy_error_J": err,
                   "position_residual_max": float(np.max(common.position_drift(dae, r))),
                   "redundant_rows": [f"{n}[{k}]" for n, k in dae.redundant_rows]}
    return run


@dataclass
class PendulumResult(_common.CaseResult):
    """The validation case (see :func:`run`): the rigid run, the flexible study and its table."""

    rigid: PendulumRun
    equivalent: object = None
    flexible: list = field(default_factory=list)
    table: list = field(default_factory=list)


def run(t_end=5.0, dt=1e-3, flexible=None, n_elem=4, dt_out=0.01, torsion="negligible", torsion_check=True,
        outdir=None, plot=True, progress=False, solver_options=None):
    """The rigid pendulum and, for every ``EI`` in ``flexible``, the flexible one against the
    rigid bar with the beam's mass distribution.

    Parameters
    ----------
    t_end, dt, dt_out : float
        Final time, midpoint step and output spacing [s].
    flexible : sequence of float or None
        Bending stiffnesses of the flexible study [N m^2] (needs Firedrake).
    n_elem : int
        Elements of the flexible bar.
    torsion : {"negligible", "box"}
        Polar moment of the beam and its rigid equivalent (see :data:`TORSION`).
    torsion_check : bool
        With ``torsion="negligible"``, also compare the beam and the rigid bar
        both with the box's polar moment at the largest ``EI``
        (``summary["box_torsion_check"]``).
    outdir : str, optional
        Directory for CSV, figures and summary.json; checked before computing.
    plot, progress : bool
    solver_options : dict, optional
        Options of the driver for the runs of the study (``checkpoint``,
        ``checkpoint_every``, ``restart``); a file ``FILE.h5`` is
        ``FILE_box.h5``, ``FILE_equivalent.h5``, ``FILE_EI<EI>.h5`` for the runs.

    Returns
    -------
    PendulumResult
        ``table``: one row per ``EI`` with the largest tip difference to the
        equivalent rigid pendulum over the run, the difference at the end,
        the energy-balance error and the wall time.
    """
    if outdir is not None:
        _common.prepare_outdir(outdir)
    flexible = sorted(float(v) for v in (flexible or ()))
    if flexible and not have_firedrake():
        raise RuntimeError("spatial_pendulum: the flexible bar needs Firedrake, which is not installed")
    ckpt = lambda tag: _common.run_checkpoints(solver_options, tag)          # noqa: E731
    out = PendulumResult(simulate("box", None, t_end, dt, n_elem, dt_out, progress=progress,
                                  solver_options=ckpt("box")))
    out.summary = {"parameters": {"t_end": t_end, "dt": dt, "dt_out": dt_out, "gravity": GRAVITY,
                                  "axis_B_in_bar1": AXIS_B.tolist(), "mass_kg": MASS, "length_m": LENGTH,
                                  "section_m": SECTION, "n_elem": n_elem, "torsion": torsion,
                                  "polar_moment_m4": beam_data(1.0, torsion)["Ip"]},
                   "rigid": out.rigid.summary}
    if flexible:
        out.equivalent = simulate("equivalent", None, t_end, dt, n_elem, dt_out, torsion, progress,
                                  ckpt("equivalent"))
        for EI in flexible:
            f = simulate("flexible", EI, t_end, dt, n_elem, dt_out, torsion, progress, ckpt(f"EI{EI:g}"))
            out.flexible.append(f)
            diff = np.linalg.norm(f.tip - out.equivalent.tip, axis=1)
            out.table.append({"EI": EI, "max_tip_difference_m": float(diff.max()),
                              "tip_difference_end_m": float(diff[-1]), "energy_error_J": f.energy_error,
                              "wall_time_s": f.result.stats["wall_time"]})
        for a, b in zip(out.table[:-1], out.table[1:]):
            b["slope_vs_EI"] = float(np.log(b["max_tip_difference_m"] / a["max_tip_difference_m"])
                                     / np.log(b["EI"] / a["EI"]))
        out.summary["equivalent_rigid"] = out.equivalent.summary
        out.summary["box_vs_equivalent_max_tip_difference_m"] = float(
            np.max(np.linalg.norm(out.rigid.tip - out.equivalent.tip, axis=1)))
        out.summary["flexible"] = [f.summary for f in out.flexible]
        out.summary["flexible_vs_rigid"] = out.table
        if torsion_check and torsion != "box":
            EI = flexible[-1]
            tips = [simulate(k, EI, t_end, dt, n_elem, dt_out, "box").tip for k in ("equivalent", "flexible")]
            out.summary["box_torsion_check"] = {
                "EI": EI, "max_tip_difference_m": float(np.max(np.linalg.norm(tips[1] - tips[0], axis=1))),
                "note": "beam and rigid bar with the box's polar moment; the difference that stays as EI "
                        "grows is the gyroscopic moment of the beam's torsional rotary inertia, absent "
                        "from the beam model"}
    if outdir is not None:
        out.files += write(out, outdir, plot)
    return out


def write(out, outdir, plot=True):
    """Write ``spatial_pendulum.csv`` (rigid box), ``spatial_pendulum_flexible.csv`` (the
    equivalent rigid and every flexible tip), ``spatial_pendulum_table.csv``, the figures
    ``spatial_pendulum_tip``, ``spatial_pendulum_energy`` and, with a flexible study,
    ``spatial_pendulum_tip_difference`` (PNG and PDF), and ``summary.json``; returns the paths."""
    rg = out.rigid
    files = [_common.result_csv(rg.result, os.path.join(outdir, "spatial_pendulum.csv"), {
        "tip_x": rg.tip[:, 0], "tip_y": rg.tip[:, 1], "tip_z": rg.tip[:, 2], "energy": rg.energy,
        "energy_drift": rg.energy - rg.energy[0]}, case="spatial_pendulum")]
    if out.flexible:
        eq = out.equivalent
        cols = {f"rigid_tip_{c}": eq.tip[:, i] for i, c in enumerate("xyz")}
        for f in out.flexible:
            cols.update({f"EI{f.EI:g}_tip_{c}": f.tip[:, i] for i, c in enumerate("xyz")})
            cols[f"EI{f.EI:g}_energy_balance"] = f.energy
        files.append(_common.result_csv(eq.result, os.path.join(outdir, "spatial_pendulum_flexible.csv"), cols,
                                        case="spatial_pendulum"))
        keys = ["EI", "max_tip_difference_m", "tip_difference_end_m", "energy_error_J", "wall_time_s"]
        files.append(common.write_table(os.path.join(outdir, "spatial_pendulum_table.csv"), keys,
                                        [[row[k] for k in keys] for row in out.table], case="spatial_pendulum",
                                        result=eq.result))
    if plot:
        plt = _common.figure_style()
        fig, ax = plt.subplots()
        for i, c in enumerate("xyz"):
            ax.plot(rg.t, rg.tip[:, i], color=f"C{i}", label=f"tip {c}")
        ax.set_xlabel("time [s]")
        ax.set_ylabel("tip of bar 2 [m]")
        ax.legend()
        files += _common.savefig(fig, outdir, "spatial_pendulum_tip")
        plt.close(fig)
        fig, ax = plt.subplots()
        common.semilogy_positive(ax, rg.t, np.abs(rg.energy - rg.energy[0]), label=r"rigid: $|H + V - (H + V)_0|$")
        for f in out.flexible:
            common.semilogy_positive(ax, f.t, np.abs(f.energy), "--", label=f"EI = {f.EI:g}: $|H - H_0 - W|$")
        ax.set_xlabel("time [s]")
        ax.set_ylabel("energy error [J]")
        ax.legend(fontsize=8)
        files += _common.savefig(fig, outdir, "spatial_pendulum_energy")
        plt.close(fig)
        if out.flexible:
            fig, ax = plt.subplots()
            for f in out.flexible:
                common.semilogy_positive(ax, f.t, np.linalg.norm(f.tip - out.equivalent.tip, axis=1),
                                         label=f"EI = {f.EI:g}")
            ax.set_xlabel("time [s]")
            ax.set_ylabel(r"$|x_{tip} - x_{tip}^{rigid}|$ [m]")
            top = max(r["max_tip_difference_m"] for r in out.table)
            ax.set_ylim(min(r["max_tip_difference_m"] for r in out.table) * 1e-3, top * 3)
            ax.legend(fontsize=8)
            files += _common.savefig(fig, outdir, "spatial_pendulum_tip_difference")
            plt.close(fig)
    files.append(_common.write_summary(outdir, "spatial_pendulum", out.summary))
    return files


def arguments(argv=None):
    """``(parser, args)`` of the command line, with ``args.flexible`` resolved to the bending
    stiffnesses of the flexible study: the values given, :data:`DEFAULT_EI` for ``--flexible``
    without values or (with Firedrake) without the option, ``()`` for ``--rigid-only``."""
    p = _common.parser(__doc__.split("\n\n")[0] + " Checkpoint files FILE.h5 are FILE_<run>.h5 per run "
                       "(box, equivalent, EI<EI>).", tfinal=5.0, dt=1e-3, checkpoints=True)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--flexible", type=_common.positive_float, nargs="*", default=None, metavar="EI",
                       help="bending stiffnesses of the flexible bar 2 [N m^2]; without values "
                            f"{' '.join(f'{v:g}' for v in DEFAULT_EI)} (also the default when Firedrake is installed)")
    which.add_argument("--rigid-only", action="store_true", help="only the rigid pendulum")
    p.add_argument("--n-elem", type=_common.positive_int, default=4, help="elements of the flexible bar")
    p.add_argument("--dt-out", type=_common.positive_float, default=0.01, help="output spacing [s]")
    p.add_argument("--torsion", choices=sorted(TORSION), default="negligible",
                   help="polar moment of the beam and its rigid equivalent: negligible, or the box's")
    args = p.parse_args(argv)
    if args.solver != "midpoint":
        p.error("the spatial pendulum runs with the midpoint rule (exact work record of the energy check)")
    if args.rigid_only:
        args.flexible = ()
    elif args.flexible is None:
        args.flexible = DEFAULT_EI if have_firedrake() else ()
    else:
        args.flexible = tuple(args.flexible) or DEFAULT_EI
        if not have_firedrake():
            p.error("--flexible needs Firedrake, which is not installed")
    return p, args


def main(argv=None):
    """Command line: ``python -m phmech.validation.spatial_pendulum --help``."""
    p, args = arguments(argv)
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []
    flexible = args.flexible
    if not flexible and not args.rigid_only:
        print("Firedrake is not installed: rigid pendulum only")
    out = run(args.tfinal, args.dt, flexible, args.n_elem, args.dt_out, args.torsion, outdir=args.outdir,
              plot=not args.no_plot, progress=sys.stderr.isatty(), solver_options=_common.checkpoint_options(args))
    s = out.rigid.summary
    print(f"spatial double pendulum, rigid box bars: wall time {s['stats']['wall_time']:.2f} s")
    print(f"  tip at t = {args.tfinal:g} s: ({s['tip_end'][0]:.6f}, {s['tip_end'][1]:.6f}, {s['tip_end'][2]:.6f}) m; "
          f"lowest tip z {s['tip_z_min']:.4f} m")
    print(f"  H + V = {s['energy_J']:.6f} J, drift {s['energy_error_J']:.2e} J")
    if out.table:
        print(f"  flexible bar 2 ({args.n_elem} elements) vs rigid bar of the same mass distribution:")
        print("        EI [N m^2]   max |tip diff| [m]   |tip diff|(end) [m]   |H - H0 - W| [J]")
        for row in out.table:
            print(f"    {row['EI']:12.4g}   {row['max_tip_difference_m']:18.4e}   {row['tip_difference_end_m']:19.4e}"
                  f"   {row['energy_error_J']:16.3e}")
        chk = out.summary.get("box_torsion_check")
        if chk:
            print(f"  with the box's polar moment in both models, EI = {chk['EI']:g}: max |tip diff| "
                  f"{chk['max_tip_difference_m']:.4e} m (gyroscopic moment of the torsional inertia)")
    print(f"  written to {args.outdir}: {len(out.files)} files")


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

"""Bricard's mechanism: the overconstrained benchmark A04 of the IFToMM library of
computational multibody benchmarks (Gonzalez, Dopico, Lugris, Cuadrado, Multibody
Syst. Dyn. 16, 2006).

Five uniform slender links (1 m, 1 kg on the axis: I = m L^2 / 12 about the
transverse axes, no axial inertia; ``section="box"`` gives 1 x 0.1 x 0.1 m
boxes) and six revolute joints: J1 (0,0,0) axis y, ground - link 1; J2
(1,0,0) axis z; J3 (1,-1,0) axis x; J4 (1,-1,1) axis y; J5 (0,-1,1) axis
z; J6 (0,0,1) axis x, link 5 - ground.  Gravity 9.81 m/s^2 along -y,
released from rest, 10 s.  Grubler's count gives 0 degrees of freedom; the
mechanism has 1: one closure row is redundant, found at assembly and its
multiplier set to zero.

Reported: the trajectory of the point P3 (= J3, initially (1, -1, 0)) and
its values at 1, 5 and 10 s; the total energy H + V and its drift; the
constraint drift on position level (largest joint position residual) and on
velocity level (largest ``|G e - w|``); the redundant rows; the period of
the motion (turning points: zeros of the rate of joint J1); a second solver
on the same span (midpoint rule against Radau IIA at tight tolerance); and
the step-size convergence of P3(1 s) for the midpoint rule.

    python -m phmech.validation.bricard --outdir out/bricard
"""
import os
import sys
from dataclasses import dataclass

import numpy as np

from .. import SpatialRigidBody, System
from ..joints import Revolute3
from . import _common
from . import _spatial_common as common

JOINTS = [(0, 0, 0), (1, 0, 0), (1, -1, 0), (1, -1, 1), (0, -1, 1), (0, 0, 1)]
AXES = [(0, 1, 0), (0, 0, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 0)]
GRAVITY = (0.0, -9.81, 0.0)
#: times at which P3 is reported [s]
REPORT_TIMES = (1.0, 5.0, 10.0)


def build(section=None):
    """Bricard's mechanism.

    Parameters
    ----------
    section : None or "box"
        Slender links (mass on the axis) or 1 x 0.1 x 0.1 m boxes.

    Returns
    -------
    (System, list of SpatialRigidBody)
        The system (joints J1..J6, gravity) and the links 1..5.
    """
    if section not in (None, "slender", "box"):
        raise ValueError(f"bricard: section must be None, 'slender' or 'box', got {section!r}")
    sec = (0.1, 0.1) if section == "box" else None
    links = [SpatialRigidBody.bar(f"link{i + 1}", 1.0, JOINTS[i], JOINTS[i + 1], section=sec) for i in range(5)]
    s = System(links)
    s.add_joint(Revolute3(links[0].port("A"), None, axis=AXES[0], name="J1"))
    for i in range(1, 5):
        s.add_joint(Revolute3(links[i - 1].port("B"), links[i].port("A"), axis=AXES[i], name=f"J{i + 1}"))
    s.add_joint(Revolute3(links[4].port("B"), None, axis=AXES[5], name="J6"))
    s.add_gravity(GRAVITY)
    return s, links


@dataclass
class BricardResult(_common.CaseResult):
    """One run of Bricard's mechanism (see :func:`run`).

    Attributes
    ----------
    result : Result
    t : ndarray, shape (N,)
    P3 : ndarray, shape (N, 3)
        Position of the point P3 = J3 [m].
    rate : ndarray, shape (N,)
        Rate of joint J1 (angular velocity of link 1 about y) [rad/s].
    energy : ndarray, shape (N,)
        Total energy H + V [J].
    position_residual, velocity_residual : ndarray, shape (N,)
        Largest joint position residual and largest ``|G e - w|``.
    summary : dict
        Key figures (written to summary.json).
    files : list of str
    compare : BricardResult or None
        The same span with the comparison solver.
    """

    result: object
    t: np.ndarray
    P3: np.ndarray
    rate: np.ndarray
    energy: np.ndarray
    position_residual: np.ndarray
    velocity_residual: np.ndarray
    compare: object = None


def simulate(t_end=10.0, solver="midpoint", dt=1e-3, rtol=1e-10, atol=1e-10, dt_out=0.01, section=None,
             progress=False, solver_options=None):
    """One run with one solver; returns a :class:`BricardResult` with its own summary.

    ``solver_options`` go to the driver (``checkpoint``, ``checkpoint_every``, ``restart``)."""
    s, links = build(section)
    dae = s.assemble()
    y0 = dae.initial_state()
    r = s.simulate(t_end, solver=solver, y0=y0, t_eval=common.output_times(t_end, dt_out), progress=progress,
                   **common.solver_options(solver, dt, rtol, atol), **(solver_options or {}))
    link1, link2 = links[0], links[1]
    P3 = np.array([link2.port_position(q, link2.port("B")) for q in r.q(link2)])
    axis = np.asarray(AXES[0], float)
    rate = np.array([axis @ (link1.rotation(q) @ e[3:6]) for q, e in zip(r.q(link1), r.e(link1))])
    energy = r.hamiltonian() + dae.potential_energy(r.y)
    out = BricardResult(r, r.t, P3, rate, energy, common.position_drift(dae, r), r.constraint_residual())
    at = {f"{ts:g}": P3[int(np.argmin(np.abs(r.t - ts)))].tolist() for ts in REPORT_TIMES if ts <= t_end + 1e-12}
    out.summary = {
        "solver": solver, "dt": dt if solver == "midpoint" else None,
        "rtol": None if solver == "midpoint" else rtol, "atol": None if solver == "midpoint" else atol,
        "stats": r.stats, "redundant_rows": [f"{n}[{k}]" for n, k in dae.redundant_rows],
        "P3_at": at, "energy_J": float(energy[0]), "energy_drift_J": common.energy_drift(energy),
        "position_residual_max": float(np.max(out.position_residual)),
        "velocity_residual_max": float(np.max(out.velocity_residual)),
        "motion": periodicity(out),
    }
    return out


def periodicity(out):
    """Turning points and period of the motion.

    Released from rest, the one-degree-of-freedom mechanism swings between
    two turning points, where every velocity vanishes at once: the zeros
    ``tau_k`` of the rate of joint J1.  A periodic motion has
    ``tau_k = k T / 2`` and returns to its initial configuration at every
    even ``k``.

    Returns
    -------
    dict
        ``turning_times`` [s], ``period_s`` (least-squares fit of
        ``tau_k = k T / 2``, or None without a turning point),
        ``half_period_spread_s`` (max - min of the intervals between
        turning points), ``P3_at_turning`` and ``return_distance_m``
        (largest ``|P3(tau_2k) - P3(0)|``).
    """
    tau = common.zero_crossings(out.t, out.rate)
    info = {"turning_times": tau.tolist(), "period_s": None, "half_period_spread_s": None,
            "P3_at_turning": [], "return_distance_m": None}
    if len(tau) == 0:
        return info
    from scipy.interpolate import CubicSpline
    k = np.arange(1, len(tau) + 1)
    info["period_s"] = float(2.0 * (k @ tau) / (k @ k))
    if len(tau) > 1:
        info["half_period_spread_s"] = float(np.ptp(np.diff(np.r_[0.0, tau])))
    P = CubicSpline(out.t, out.P3)(tau)
    info["P3_at_turning"] = P.tolist()
    back = P[1::2]
    if len(back):
        info["return_distance_m"] = float(np.max(np.linalg.norm(back - out.P3[0], axis=1)))
    return info


def convergence(t_check=1.0, dts=(4e-3, 2e-3, 1e-3), ref_tol=1e-12, section=None, reference="radau"):
    """Step-size convergence of P3(t_check) for the midpoint rule.

    The reference is Radau IIA at ``rtol = atol = ref_tol``
    (``reference="radau"``) or the midpoint rule with a quarter of the finest
    step (``reference="midpoint"``, self-convergence).  Orders are given
    against the reference and, independent of it, from the differences of
    consecutive step sizes; Richardson's extrapolation of the two finest
    steps, ``(4 P(h/2) - P(h)) / 3``, is compared with the reference as well.

    Parameters
    ----------
    t_check : float
        Time of the compared point [s].
    dts : sequence of float
        Three or more midpoint step sizes [s].
    ref_tol : float
        Tolerances of the Radau IIA reference.
    section : None or "box"
    reference : {"radau", "midpoint"}
        Kind of reference solution.

    Returns
    -------
    dict
        ``dt``, ``P3`` (per step size), ``P3_reference``, ``error`` (max
        norm against the reference), ``order``, ``order_from_differences``,
        ``richardson_vs_reference``, ``reference_solver``.
    """
    dts = sorted((float(h) for h in dts), reverse=True)
    if len(dts) < 3:
        raise ValueError(f"bricard.convergence: needs three step sizes or more, got {dts}")
    if reference not in ("radau", "midpoint"):
        raise ValueError(f"bricard.convergence: reference must be 'radau' or 'midpoint', got {reference!r}")
    P = np.array([simulate(t_check, "midpoint", dt=h, dt_out=t_check, section=section).P3[-1] for h in dts])
    if reference == "radau":
        ref = simulate(t_check, "radau", rtol=ref_tol, atol=ref_tol, dt_out=t_check, section=section)
        ref_name = f"radau rtol=atol={ref_tol:g} ({ref.result.stats.get('nsteps')} steps)"
    else:
        ref = simulate(t_check, "midpoint", dt=dts[-1] / 4.0, dt_out=t_check, section=section)
        ref_name = f"midpoint dt={dts[-1] / 4.0:g}"
    Pref = ref.P3[-1]
    err = np.max(np.abs(P - Pref), axis=1)
    diffs = np.max(np.abs(np.diff(P, axis=0)), axis=1)
    rich = (4.0 * P[-1] - P[-2]) / 3.0 if abs(dts[-2] / dts[-1] - 2.0) < 1e-12 else None
    return {"t": t_check, "dt": dts, "P3": P.tolist(), "P3_reference": Pref.tolist(),
            "reference_solver": ref_name,
            "error": err.tolist(), "order": common.observed_orders(dts, err),
            "order_from_differences": common.observed_orders(dts[1:], diffs),
            "richardson_vs_reference": None if rich is None else float(np.max(np.abs(rich - Pref)))}


def run(t_end=10.0, solver="midpoint", dt=1e-3, rtol=1e-10, atol=1e-10, dt_out=0.01, section=None,
        compare="radau", convergence_dts=(4e-3, 2e-3, 1e-3), outdir=None, plot=True, progress=False,
        solver_options=None):
    """The validation case: a run, a second solver, the step-size study; files when ``outdir`` is given.

    Parameters
    ----------
    t_end : float
        Final time [s].
    solver : str
        Main solver (``"midpoint"``, ``"radau"``, ``"ida"``, ``"radau5"``).
    dt : float
        Step of the midpoint rule [s].
    rtol, atol : float
        Tolerances of the adaptive solvers.
    dt_out : float
        Output spacing [s].
    section : None or "box"
    compare : str or None
        Second solver on the same span (same options); None: none.
    convergence_dts : sequence of float or None
        Midpoint step sizes of the convergence study of P3(1 s) (None: skip).
    outdir : str, optional
        Directory for CSV, figures and summary.json; checked before computing.
    plot : bool
    progress : bool
    solver_options : dict, optional
        Driver options of the main and the comparison run (``checkpoint``,
        ``checkpoint_every``, ``restart``); a file ``FILE.h5`` is
        ``FILE_<solver>.h5`` for each of them.

    Returns
    -------
    BricardResult
    """
    if outdir is not None:
        _common.prepare_outdir(outdir)
    out = simulate(t_end, solver, dt, rtol, atol, dt_out, section, progress,
                   _common.run_checkpoints(solver_options, solver))
    s = out.summary
    s["parameters"] = {"t_end": t_end, "section": section or "slender", "gravity": GRAVITY,
                       "link_length_m": 1.0, "link_mass_kg": 1.0, "dt_out": dt_out}
    if compare is not None:
        out.compare = simulate(t_end, compare, dt, rtol, atol, dt_out, section, progress,
                               _common.run_checkpoints(solver_options, compare))
        c = out.compare.summary
        s["comparison"] = {
            "solver": compare, "summary": c,
            "P3_max_difference_m": float(np.max(np.abs(out.P3 - out.compare.P3))),
            "period_difference_s": (None if s["motion"]["period_s"] is None or c["motion"]["period_s"] is None
                                    else abs(s["motion"]["period_s"] - c["motion"]["period_s"]))}
    if convergence_dts is not None:
        s["convergence"] = convergence(min(1.0, t_end), convergence_dts, section=section)
    if outdir is not None:
        out.files += write(out, outdir, plot)
    return out


def _csv_columns(o):
    return {"P3_x": o.P3[:, 0], "P3_y": o.P3[:, 1], "P3_z": o.P3[:, 2], "rate_J1": o.rate, "energy": o.energy,
            "energy_drift": o.energy - o.energy[0], "position_residual": o.position_residual,
            "velocity_residual": o.velocity_residual}


def write(out, outdir, plot=True):
    """Write ``bricard.csv`` (and ``bricard_<solver>.csv`` of the comparison), the figures
    ``bricard_P3``, ``bricard_energy``, ``bricard_constraints``, ``bricard_convergence``
    (PNG and PDF) and ``summary.json``; returns the paths."""
    runs = [out] + ([out.compare] if out.compare is not None else [])
    files = [_common.result_csv(out.result, os.path.join(outdir, "bricard.csv"), _csv_columns(out), case="bricard")]
    if out.compare is not None:
        files.append(_common.result_csv(out.compare.result,
                                        os.path.join(outdir, f"bricard_{out.compare.summary['solver']}.csv"),
                                        _csv_columns(out.compare), case="bricard"))
    conv = out.summary.get("convergence")
    if conv is not None:
        files.append(common.write_table(os.path.join(outdir, "bricard_convergence.csv"),
                                        ["dt", "P3_x", "P3_y", "P3_z", "error"],
                                        [[h, *p, e] for h, p, e in zip(conv["dt"], conv["P3"], conv["error"])],
                                        case="bricard", solver=out.summary.get("solver"),
                                        notes=["step-size convergence of the position of P3"]))
    if plot:
        plt = _common.figure_style()
        styles = ["-", "--"]
        fig, ax = plt.subplots()
        for o, ls in zip(runs, styles):
            for i, c in enumerate("xyz"):
                ax.plot(o.t, o.P3[:, i], ls, color=f"C{i}",
                        label=f"$P_{{3,{c}}}$ ({o.summary['solver']})" if len(runs) > 1 else f"$P_{{3,{c}}}$")
        ax.set_xlabel("time [s]")
        ax.set_ylabel("position of P3 [m]")
        ax.legend(fontsize=8, ncol=2)
        files += _common.savefig(fig, outdir, "bricard_P3")
        plt.close(fig)
        fig, ax = plt.subplots()
        for o, ls in zip(runs, styles):
            ax.plot(o.t, o.energy - o.energy[0], ls, label=o.summary["solver"])
        ax.set_xlabel("time [s]")
        ax.set_ylabel(r"$(H + V) - (H + V)_0$ [J]")
        ax.legend()
        files += _common.savefig(fig, outdir, "bricard_energy")
        plt.close(fig)
        fig, ax = plt.subplots()
        for o, ls in zip(runs, styles):
            common.semilogy_positive(ax, o.t, o.position_residual, ls, color="C0",
                                     label=f"position ({o.summary['solver']})")
            common.semilogy_positive(ax, o.t, o.velocity_residual, ls, color="C1",
                                     label=f"velocity ({o.summary['solver']})")
        ax.set_xlabel("time [s]")
        ax.set_ylabel("largest constraint residual")
        ax.legend(fontsize=8)
        files += _common.savefig(fig, outdir, "bricard_constraints")
        plt.close(fig)
        if conv is not None:
            fig, ax = plt.subplots()
            h, e = np.array(conv["dt"]), np.array(conv["error"])
            ax.loglog(h, e, "o-", label=r"midpoint, $|P_3 - P_3^{ref}|_\infty$")
            ax.loglog(h, e[-1] * (h / h[-1]) ** 2, "k:", label="slope 2")
            ax.set_xlabel(r"step size $\Delta t$ [s]")
            ax.set_ylabel(f"error of P3({conv['t']:g} s) [m]")
            ax.legend()
            files += _common.savefig(fig, outdir, "bricard_convergence")
            plt.close(fig)
    files.append(_common.write_summary(outdir, "bricard", out.summary))
    return files


def _fmt(values):
    return "[" + ", ".join("-" if v is None else f"{v:.3f}" for v in values) + "]"


def main(argv=None):
    """Command line: ``python -m phmech.validation.bricard --help``."""
    p = _common.parser(__doc__.split("\n\n")[0] + " Checkpoint files FILE.h5 are FILE_<solver>.h5 per solver.",
                       tfinal=10.0, dt=1e-3, checkpoints=True)
    p.set_defaults(rtol=1e-10, atol=1e-10)
    p.add_argument("--section", choices=["slender", "box"], default="slender", help="link cross-section")
    p.add_argument("--compare", default="auto", choices=["auto", "none", "midpoint", "radau", "ida", "radau5"],
                   help="second solver on the same span (auto: radau, or midpoint when --solver is radau)")
    p.add_argument("--no-convergence", action="store_true", help="skip the step-size study of P3(1 s)")
    p.add_argument("--dt-out", type=_common.positive_float, default=0.01, help="output spacing [s]")
    args = p.parse_args(argv)
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []
    compare = {"auto": "midpoint" if args.solver == "radau" else "radau", "none": None}.get(args.compare,
                                                                                           args.compare)
    if compare == args.solver:
        compare = None
    out = run(args.tfinal, args.solver, args.dt, args.rtol, args.atol, args.dt_out,
              section=None if args.section == "slender" else "box", compare=compare,
              convergence_dts=None if args.no_convergence else (4e-3, 2e-3, 1e-3), outdir=args.outdir,
              plot=not args.no_plot, progress=sys.stderr.isatty(), solver_options=_common.checkpoint_options(args))
    s = out.summary
    print(f"Bricard's mechanism ({s['parameters']['section']} links); redundant rows {s['redundant_rows']}")
    for o in [out] + ([out.compare] if out.compare is not None else []):
        c, m = o.summary, o.summary["motion"]
        print(f"  {c['solver']}: wall time {c['stats']['wall_time']:.2f} s, {c['stats']['nsteps']} steps")
        for k, v in c["P3_at"].items():
            print(f"    P3({k} s) = ({v[0]:.6f}, {v[1]:.6f}, {v[2]:.6f}) m")
        period = "none found" if m["period_s"] is None else f"{m['period_s']:.5f} s"
        print(f"    period {period}; energy drift {c['energy_drift_J']:.2e} J; position drift "
              f"{c['position_residual_max']:.2e}; velocity drift {c['velocity_residual_max']:.2e}")
    if "comparison" in s:
        print(f"  max |P3 difference| between the solvers: {s['comparison']['P3_max_difference_m']:.2e} m")
    if "convergence" in s:
        cv = s["convergence"]
        for h, e in zip(cv["dt"], cv["error"]):
            print(f"    dt = {h:g}: error of P3({cv['t']:g} s) {e:.3e} m")
        print(f"    observed orders {_fmt(cv['order'])} (reference {cv['reference_solver']}); "
              f"from differences {_fmt(cv['order_from_differences'])}")
    print(f"  written to {args.outdir}: {len(out.files)} files")


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

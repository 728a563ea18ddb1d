"""Andrews' squeezing mechanism (IVP test set problem "andrews") with every solver.

Seven rigid bodies, six closure constraints, motor torque 0.033 N m and a
spring (4530 N/m), t_end = 0.03 s from the test set's consistent initial
values (Hairer & Wanner II, sec. VII.7).  The index-2 form (27 variables,
velocity constraints) is integrated with
phmech's radau, IDA and Radau5DAE; the ODE form (14 variables) with
phmech's radau and scipy's Radau, BDF and DOP853.  The end states are
compared with the test set's published reference solution (27
components, test set order; the reference is of the index-3 form, whose
exact solution is the same); a work-precision diagram and time histories
(angles, point F) are drawn.  The MBS benchmark A03 energy balance
``T + V - (T + V)(0) - mom (beta - beta0)`` is checked over 0.05 s.

    python -m phmech.validation.andrews --outdir out/andrews
"""
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from . import _classic_run as cr
from . import _common
from ._classic_models import AndrewsSqueezer

#: absolute tolerance = ATOL_FACTOR * rtol
ATOL_FACTOR = 1.0
TOLERANCES = (1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9)
#: duration of the A03 energy-balance check [s]
T_ENERGY = 0.05


@dataclass
class AndrewsResult:
    """End states, reference errors, work-precision table and time histories.

    Attributes
    ----------
    runs : dict
        Solver -> :class:`~phmech.validation._classic_run.Run` at ``rtol``.
    errors : dict
        Solver -> errors against the reference (see
        :func:`~phmech.validation._classic_run.errors`); empty when the
        final time is not the reference time.
    work_precision : dict
        Solver -> list of sweep records.
    history : Run
        The dense run the time histories come from.
    """

    runs: dict
    errors: dict
    work_precision: dict
    history: object
    mass_eigenvalues_t0: np.ndarray
    energy_t: np.ndarray = None
    energy_balance: np.ndarray = None
    summary: dict = field(default_factory=dict)
    files: list = field(default_factory=list)


def run(t_end=AndrewsSqueezer.T_END, solvers=cr.ALL_SOLVERS, rtol=1e-6, tolerances=TOLERANCES,
        history_solver="scipy-DOP853", n_out=501, t_energy=T_ENERGY, outdir=None, plot=True, log=None):
    """Integrate Andrews' squeezer with each solver and compare with the reference.

    Parameters
    ----------
    t_end : float
        Final time [s]; the reference comparison needs the test set's 0.03 s.
    solvers : sequence of str
        Solver names of :data:`~phmech.validation._classic_run.ALL_SOLVERS`.
    rtol : float
        Relative tolerance of the end-state comparison runs (``atol =
        ATOL_FACTOR * rtol``).
    tolerances : sequence of float
        Relative tolerances of the work-precision sweep (empty: no sweep).
    history_solver : str
        Solver of the dense time-history run (at ``rtol / 100``).
    n_out : int
        Number of output times of the time histories.
    t_energy : float
        Duration of the A03 energy-balance run (``history_solver`` at
        ``rtol / 100``; 0 skips it).
    outdir : str, optional
        Where CSV files, figures and summary.json go.
    plot : bool
        Draw the figures.
    log : callable, optional
        Receives progress lines.

    Returns
    -------
    AndrewsResult
    """
    if not t_end > 0:
        raise ValueError(f"t_end={t_end} must be positive")
    if n_out < 2:
        raise ValueError(f"n_out={n_out} must be at least 2")
    model = AndrewsSqueezer()
    at_ref = abs(t_end - model.T_END) < 1e-12
    runs, errs, failures = {}, {}, {}
    for s in solvers:
        try:
            runs[s] = cr.integrate(model, s, rtol, ATOL_FACTOR * rtol, t_end)
        except Exception as err:  # reported, not fatal: the comparison is the point
            failures[s] = f"{type(err).__name__}: {err}"
            continue
        if at_ref:
            errs[s] = cr.errors(model, runs[s].y_end)
        if log:
            d = errs[s]["positions"]["digits"] if at_ref else float("nan")
            log(f"  {s:13s} rtol={rtol:.0e}: {runs[s].wall_time:6.2f} s, position digits {d:.2f}")
    table = cr.work_precision(model, solvers, tolerances, ATOL_FACTOR, log) if at_ref and tolerances else {}
    hist = cr.integrate(model, history_solver, rtol / 100, ATOL_FACTOR * rtol / 100, t_end,
                        t_eval=np.linspace(0.0, t_end, n_out))
    res = [np.max(np.abs(np.array([model.constraint_residuals(t, y)[k] for t, y in zip(hist.t, hist.y)])))
           for k in range(3)]
    eig = model.mass_eigenvalues()
    out = AndrewsResult(runs, errs, table, hist, eig)
    if t_energy > 0:
        er = cr.integrate(model, history_solver, rtol / 100, ATOL_FACTOR * rtol / 100, t_energy,
                          t_eval=np.linspace(0.0, t_energy, n_out))
        out.energy_t, out.energy_balance = er.t, model.energy_balance(er.t, er.y)
        work = model.par["mom"] * np.max(np.abs(er.y[:, 0] - er.y[0, 0]))
    out.summary = {
        "problem": "IVP test set 'andrews' (Hairer & Wanner II, VII.7), index-2 form",
        "t_end": t_end, "rtol": rtol, "atol": ATOL_FACTOR * rtol,
        "y_end": {s: r.y_end for s, r in runs.items()},
        "reference": model.REFERENCE if at_ref else None,
        "labels": model.index2_problem().labels(),
        "errors": errs, "failures": failures,
        "wall_time": {s: r.wall_time for s, r in runs.items()},
        "work_precision": table, "winners": cr.winners(table),
        "mass_eigenvalues_t0": eig, "mass_min_eigenvalue_t0": float(eig.min()),
        "history_solver": history_solver,
        "constraint_residual_max": dict(zip(("position", "velocity", "acceleration"), res)),
    }
    if out.energy_balance is not None:
        out.summary["energy_balance_A03"] = {"t_end": t_energy, "max_abs_J": float(np.max(np.abs(out.energy_balance))),
                                             "motor_work_max_J": float(work),
                                             "relative": float(np.max(np.abs(out.energy_balance)) / work)}
    if outdir is not None:
        out.files += write(out, outdir, plot)
    return out


def write(out, outdir, plot=True):
    """CSV files (time histories, one per work-precision curve), figures, summary.json."""
    import csv

    files = []
    h = out.history
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, "andrews_history.csv")
    model = AndrewsSqueezer()
    F = np.array([model.point_F(y[:7]) for y in h.y])
    names = ["t"] + list(model.labels_p) + ["xF", "yF"]
    cols = np.column_stack([h.t, h.y[:, :7], F])
    if not np.all(np.isfinite(cols)):
        raise ValueError(f"andrews: non-finite values in the time history; not writing {path}")
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        w.writerows([[f"{x:.12g}" for x in row] for row in cols])
    files.append(path)
    if out.work_precision:
        files += cr.write_work_precision(out.work_precision, outdir, "andrews", plot,
                                         "Andrews' squeezer, t = 0.03 s")
    if out.energy_balance is not None:
        path = os.path.join(outdir, "andrews_energy_balance.csv")
        with open(path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["t", "energy_balance_J"])
            w.writerows([[f"{a:.12g}", f"{b:.12g}"] for a, b in zip(out.energy_t, out.energy_balance)])
        files.append(path)
    if plot:
        plt = _common.figure_style()
        fig, axs = plt.subplots(2, 1, figsize=(5.5, 6), sharex=True)
        for k, lab in enumerate(model.labels_p):
            axs[0].plot(h.t, np.mod(h.y[:, k] + np.pi, 2 * np.pi) - np.pi, color=f"C{k}", label=lab)
        axs[0].set_ylabel("angles (mod $2\\pi$) [rad]")
        axs[0].legend(fontsize=7, ncol=4)
        axs[1].plot(h.t, F[:, 0], color="C0", label="$x_F$")
        axs[1].plot(h.t, F[:, 1], color="C1", label="$y_F$")
        axs[1].set_ylabel("point F [m]")
        axs[1].set_xlabel("time [s]")
        axs[1].legend(fontsize=8)
        files += _common.savefig(fig, outdir, "andrews_history")
        plt.close(fig)
    files.append(_common.write_summary(outdir, "andrews", out.summary))
    return files


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--tfinal", type=float, default=AndrewsSqueezer.T_END, help="final time [s]")
    p.add_argument("--rtol", type=float, default=1e-6, help="relative tolerance of the comparison runs")
    p.add_argument("--tols", type=float, nargs="*", default=list(TOLERANCES),
                   help="relative tolerances of the work-precision sweep")
    p.add_argument("--solvers", nargs="+", default=list(cr.ALL_SOLVERS), choices=list(cr.ALL_SOLVERS))
    args = p.parse_args(argv)
    sys.argv[1:] = []
    out = run(args.tfinal, args.solvers, args.rtol, args.tols, outdir=args.outdir,
              plot=not args.no_plot, log=print)
    s = out.summary
    print(f"mass matrix eigenvalues at t = 0: min {s['mass_min_eigenvalue_t0']:.4e}, "
          f"max {max(s['mass_eigenvalues_t0']):.4e}")
    for k, v in s["winners"].items():
        print(f"  fastest to {k} on the positions: {v['solver']} ({v['wall_time']:.2f} s)")
    if "energy_balance_A03" in s:
        e = s["energy_balance_A03"]
        print(f"  A03 energy balance over {e['t_end']} s: max |T + V - E0 - W| = {e['max_abs_J']:.3e} J "
              f"({e['relative']:.1e} of the motor work)")
    print(f"  wrote {len(out.files)} files to {args.outdir}")


if __name__ == "__main__":
    main()

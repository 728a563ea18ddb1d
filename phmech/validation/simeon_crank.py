"""Simeon's flexible slider crank (IVP test set problem "crank") with every solver.

Crank (phi1 = 150 t), elastic connecting rod (two lateral modes, two
longitudinal nodes; 8 mm x 8 mm steel section) and slider, no gravity,
t_end = 0.1 s, the test set's consistent initial values with a nonzero
elastic state.  The index-2 form (24 variables) is integrated with
phmech's radau, IDA and Radau5DAE; the ODE form (14 variables) with
phmech's radau and scipy's Radau, BDF and DOP853.  The end states are
compared with the test set's published reference solution (24
components, test set order); a work-precision diagram and time histories
are drawn.

    python -m phmech.validation.simeon_crank --outdir out/crank
"""
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from . import _classic_run as cr
from . import _common
from ._classic_models import SimeonCrank

#: absolute tolerance = ATOL_FACTOR * rtol: the elastic coordinates are of size 1e-5
ATOL_FACTOR = 1e-4
TOLERANCES = (1e-4, 1e-5, 1e-6, 1e-7)
#: IDA's Newton test on the accelerations and multipliers (several 1e3): a tighter
#: atol_lambda makes its corrector fail at t = 0; with this one it still needs more
#: than the 10000 steps assimulo allows for rtol < 1e-5
SOLVER_OPTIONS = {"ida": {"atol_lambda": 1e2}}


@dataclass
class SimeonCrankResult:
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
    summary: dict = field(default_factory=dict)
    files: list = field(default_factory=list)


def run(t_end=SimeonCrank.T_END, solvers=cr.ALL_SOLVERS, rtol=1e-6, tolerances=TOLERANCES,
        history_solver="scipy-DOP853", n_out=501, outdir=None, plot=True, log=None):
    """Integrate the slider crank with each solver and compare with the reference.

    Parameters
    ----------
    t_end : float
        Final time [s]; the reference comparison needs the test set's 0.1 s.
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
    outdir : str, optional
        Where CSV files, figures and summary.json go.
    plot : bool
        Draw the figures.
    log : callable, optional
        Receives progress lines.

    Returns
    -------
    SimeonCrankResult
    """
    if not t_end > 0:
        raise ValueError(f"t_end={t_end} must be positive")
    if n_out < 2:
        raise ValueError(f"n_out={n_out} must be at least 2")
    model = SimeonCrank()
    at_ref = abs(t_end - model.T_END) < 1e-12
    runs, errs, failures = {}, {}, {}
    for s in solvers:
        try:
            runs[s] = cr.integrate(model, s, rtol, ATOL_FACTOR * rtol, t_end, **SOLVER_OPTIONS.get(s, {}))
        except Exception as err:  # reported, not fatal: the comparison is the point
            failures[s] = f"{type(err).__name__}: {err}"
            continue
        if at_ref:
            errs[s] = cr.errors(model, runs[s].y_end)
        if log:
            d = errs[s]["positions"]["digits"] if at_ref else float("nan")
            log(f"  {s:13s} rtol={rtol:.0e}: {runs[s].wall_time:6.2f} s, position digits {d:.2f}")
    table = {}
    if at_ref and tolerances:
        table = cr.work_precision(model, solvers, tolerances, ATOL_FACTOR, log, SOLVER_OPTIONS)
    hist = cr.integrate(model, history_solver, rtol / 100, ATOL_FACTOR * rtol / 100, t_end,
                        t_eval=np.linspace(0.0, t_end, n_out))
    res = [np.max(np.abs(np.array([model.constraint_residuals(t, y)[k] for t, y in zip(hist.t, hist.y)])))
           for k in range(3)]
    eig = model.mass_eigenvalues()
    out = SimeonCrankResult(runs, errs, table, hist, eig)
    out.summary = {
        "problem": "IVP test set 'crank' (Simeon), index 2, linear stiffness, undamped",
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
    if outdir is not None:
        out.files += write(out, outdir, plot)
    return out


def write(out, outdir, plot=True):
    """CSV files (time histories, one per work-precision curve), figures, summary.json."""
    import csv

    files = []
    h = out.history
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, "simeon_crank_history.csv")
    names = ["t", "phi1", "phi2", "x3", "q1", "q2", "q3", "q4"]
    cols = np.column_stack([h.t, h.y[:, :7]])
    if not np.all(np.isfinite(cols)):
        raise ValueError(f"simeon_crank: non-finite values in the time history; not writing {path}")
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        w.writerows([[f"{x:.12g}" for x in row] for row in cols])
    files.append(path)
    if out.work_precision:
        files += cr.write_work_precision(out.work_precision, outdir, "simeon_crank", plot,
                                         "Simeon's slider crank, t = 0.1 s")
    if plot:
        plt = _common.figure_style()
        fig, axs = plt.subplots(2, 1, figsize=(5.5, 6), sharex=True)
        axs[0].plot(h.t, h.y[:, 2], color="C0")
        axs[0].set_ylabel(r"slider position $x_3$ [m]")
        for k in range(4):
            axs[1].plot(h.t, h.y[:, 3 + k], color=f"C{k}", label=f"$q_{k + 1}$")
        axs[1].set_ylabel("elastic coordinates [m]")
        axs[1].set_xlabel("time [s]")
        axs[1].legend(fontsize=8, ncol=4)
        files += _common.savefig(fig, outdir, "simeon_crank_history")
        plt.close(fig)
    files.append(_common.write_summary(outdir, "simeon_crank", out.summary))
    return files


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--tfinal", type=float, default=SimeonCrank.T_END, help="final time [s]")
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
    print(f"  wrote {len(out.files)} files to {args.outdir}")


if __name__ == "__main__":
    main()

"""Solver runs, reference errors and work-precision sweeps of the classic benchmarks.

Shared by :mod:`phmech.validation.simeon_crank`,
:mod:`phmech.validation.andrews` and ``benchmarks/classic.py``.  Every run
goes through the existing solver layer (:func:`phmech.solvers.solve`) or
through :func:`scipy.integrate.solve_ivp` on the ODE form; no integrator is
implemented here.

Solver names
------------
``radau``, ``ida``, ``radau5``
    phmech's solvers on the test set's index-2 form ``(p, v, w, lambda)``;
``radau-ode``
    phmech's Radau IIA on the ODE form ``(p, v)``;
``scipy-Radau``, ``scipy-BDF``, ``scipy-DOP853``
    :func:`scipy.integrate.solve_ivp` on the ODE form.
"""
import os
import time
from dataclasses import dataclass, field

import numpy as np

from . import _common

INDEX2_SOLVERS = ("radau", "ida", "radau5")
ODE_SOLVERS = ("radau-ode", "scipy-Radau", "scipy-BDF", "scipy-DOP853")
ALL_SOLVERS = INDEX2_SOLVERS + ODE_SOLVERS
GROUPS = ("positions", "velocities", "accelerations", "multipliers")


@dataclass
class Run:
    """One integration: output times, full test-set states and cost.

    ``y`` always has the test set's components ``(p, v, w, lambda)``; for
    the ODE form ``w`` and ``lambda`` are recovered from the augmented
    system at every output time.
    """

    solver: str
    rtol: float
    atol: float
    t: np.ndarray
    y: np.ndarray
    wall_time: float
    stats: dict = field(default_factory=dict)

    @property
    def y_end(self):
        return self.y[-1]


def integrate(model, solver, rtol, atol=None, t_end=None, t_eval=None, **options):
    """Integrate ``model`` from its (projected, consistent) initial state with ``solver``.

    Parameters
    ----------
    model : ConstrainedMBS
        :class:`~phmech.validation._classic_models.SimeonCrank` or
        :class:`~phmech.validation._classic_models.AndrewsSqueezer`.
    solver : str
        One of :data:`ALL_SOLVERS`.
    rtol : float
        Relative tolerance.
    atol : float, optional
        Absolute tolerance (default ``rtol``).
    t_end : float, optional
        Final time (default: the time of the published reference).
    t_eval : array, optional
        Output times (default: ``t_end`` only, plus the start).
    **options
        Passed on to the solver (e.g. ``atol_lambda`` for IDA); ``compiled=False``
        uses the Python model instead of the compiled kernels
        (:mod:`phmech.validation._classic_compiled`) for every solver.

    Returns
    -------
    Run
    """
    from scipy.integrate import solve_ivp

    from ..solvers import solve

    if solver not in ALL_SOLVERS:
        raise ValueError(f"solver={solver!r} is not one of {ALL_SOLVERS}")
    if not rtol > 0:
        raise ValueError(f"rtol={rtol} must be positive")
    atol = rtol if atol is None else atol
    if not atol > 0:
        raise ValueError(f"atol={atol} must be positive")
    t_end = model.t_end if t_end is None else float(t_end)
    if not t_end > 0:
        raise ValueError(f"t_end={t_end} must be positive")
    t_eval = np.array([0.0, t_end]) if t_eval is None else np.asarray(t_eval, float)
    n = model.n_p
    y0 = model.consistent_state(0.0, model.y0[:n], model.y0[n:2 * n])
    compiled = options.pop("compiled", True)
    if solver in INDEX2_SOLVERS:
        if solver == "ida":
            options.setdefault("atol_lambda", max(1e4 * atol, 1e-3))
        res = solve(model.index2_problem(compiled=compiled), (0.0, t_end), y0, method=solver, rtol=rtol,
                    atol=atol, t_eval=t_eval, **options)
        return Run(solver, rtol, atol, res.t, res.y, res.stats["wall_time"], dict(res.stats))
    # every solver gets the same model code: compiled kernels (the default) or the Python model
    from ._classic_compiled import ode_functions
    fns = ode_functions(model) if compiled else None
    rhs, jac = fns if fns is not None else (model.ode_rhs, model.ode_jac)
    if solver == "radau-ode":
        from ..solvers.problem import DAEProblem
        labels = list(model.labels_p) + [f"v_{s}" for s in model.labels_p]
        problem = DAEProblem(np.eye(2 * n), rhs, jac=jac, n_alg=0, labels=labels)
        res = solve(problem, (0.0, t_end), y0[:2 * n], method="radau", rtol=rtol,
                    atol=atol, t_eval=t_eval, **options)
        t, x, wall, stats = res.t, res.y, res.stats["wall_time"], dict(res.stats)
    else:
        method = solver.split("-", 1)[1]
        kw = {} if method == "DOP853" else {"jac": jac}
        tic = time.perf_counter()
        sol = solve_ivp(rhs, (0.0, t_end), y0[:2 * n], method=method, rtol=rtol, atol=atol,
                        t_eval=t_eval, **kw, **options)
        wall = time.perf_counter() - tic
        if sol.status != 0:
            raise RuntimeError(f"{solver} failed: {sol.message}")
        t, x = sol.t, sol.y.T
        stats = {"nsteps": int(len(sol.t)), "nfev": int(sol.nfev), "njev": int(sol.njev),
                 "nlu": int(sol.nlu), "wall_time": wall}
    y = np.array([model.consistent_state(ti, xi[:n], xi[n:], project=False) for ti, xi in zip(t, x)])
    return Run(solver, rtol, atol, t, y, wall, stats)


def errors(model, y_end, reference=None):
    """Componentwise relative errors of an end state against the published reference.

    Returns a dict with, per group (:data:`GROUPS`), the largest relative
    error ``max_i |y_i - ref_i| / |ref_i|`` (a component whose reference is
    zero is measured against ``1e-10`` times the largest reference entry
    of its group) and the number of correct digits ``-log10`` of it.
    """
    ref = model.REFERENCE if reference is None else np.asarray(reference, float)
    n = model.n_p
    slices = dict(zip(GROUPS, (slice(0, n), slice(n, 2 * n), slice(2 * n, 3 * n), slice(3 * n, None))))
    out = {}
    for g, s in slices.items():
        r, e = ref[s], np.abs(np.asarray(y_end)[s] - ref[s])
        scale = np.maximum(np.abs(r), 1e-10 * np.max(np.abs(r)))
        rel = float(np.max(e / scale))
        out[g] = {"rel_err": rel, "digits": float(-np.log10(max(rel, 1e-16)))}
    return out


def work_precision(model, solvers, tolerances, atol_factor=1.0, log=None, solver_options=None):
    """Error against the reference and wall time over ``tolerances`` for each solver.

    ``solver_options`` maps a solver name to extra options of :func:`integrate`.

    Returns a dict solver -> list of records ``{rtol, atol, wall_time,
    pos_err, pos_digits, nsteps}``; failed runs are recorded with their
    message instead of numbers.
    """
    table = {}
    for s in solvers:
        rows = []
        for tol in tolerances:
            try:
                r = integrate(model, s, tol, tol * atol_factor, **(solver_options or {}).get(s, {}))
            except Exception as err:  # a failed run is a result of the comparison
                rows.append({"rtol": tol, "atol": tol * atol_factor, "failed": f"{type(err).__name__}: {err}"})
                if log:
                    log(f"  {s:13s} rtol={tol:.0e}: failed ({type(err).__name__})")
                continue
            e = errors(model, r.y_end)
            rows.append({"rtol": tol, "atol": tol * atol_factor, "wall_time": r.wall_time,
                         "pos_err": e["positions"]["rel_err"], "pos_digits": e["positions"]["digits"],
                         "nsteps": int(r.stats.get("nsteps", 0))})
            if log:
                log(f"  {s:13s} rtol={tol:.0e}: {e['positions']['digits']:5.2f} digits, {r.wall_time:6.2f} s")
        table[s] = rows
    return table


def write_work_precision(table, outdir, stem, plot=True, title=""):
    """One CSV per solver curve and the work-precision figure; returns the paths."""
    from . import _common

    files = []
    os.makedirs(outdir, exist_ok=True)
    for s, rows in table.items():
        ok = [r for r in rows if "failed" not in r]
        path = os.path.join(outdir, f"{stem}_wp_{s}.csv")
        _common.write_table(path, ["rtol", "atol", "wall_time", "pos_err", "pos_digits", "nsteps"],
                            [[*(float(r[k]) for k in ("rtol", "atol", "wall_time", "pos_err", "pos_digits")),
                              int(r["nsteps"])] for r in ok], case=stem, solver=s, fmt="{:.6g}",
                            notes=["work-precision: errors at the final time against the reference solution"])
        files.append(path)
    if plot:
        plt = _common.figure_style()
        fig, ax = plt.subplots()
        for i, (s, rows) in enumerate(table.items()):
            ok = [r for r in rows if "failed" not in r]
            if ok:
                ax.loglog([r["wall_time"] for r in ok], [r["pos_err"] for r in ok], "o-",
                          color=f"C{i}", label=s, markersize=4)
        ax.set_xlabel("wall time [s]")
        ax.set_ylabel("max. relative error of the positions")
        ax.set_title(title)
        ax.legend(fontsize=8)
        files += _common.savefig(fig, outdir, f"{stem}_work_precision")
        plt.close(fig)
    return files


def winners(table):
    """For each accuracy level 1e-k reached by anyone: the fastest solver reaching it."""
    out = {}
    for k in range(3, 13):
        best = None
        for s, rows in table.items():
            for r in rows:
                if "failed" not in r and r["pos_err"] <= 10.0**-k and (best is None or r["wall_time"] < best[1]):
                    best = (s, r["wall_time"])
        if best is not None:
            out[f"1e-{k}"] = {"solver": best[0], "wall_time": best[1]}
    return out


@dataclass
class ClassicResult(_common.CaseResult):
    """End states, reference errors, work-precision table and time histories of one benchmark.

    Attributes
    ----------
    runs : dict
        Solver -> :class:`Run` at the comparison tolerance.
    errors : dict
        Solver -> errors against the reference (see :func:`errors`); empty
        when the final time is not the reference time.
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


def compare(model, problem, solvers, rtol, atol_factor, t_end, tolerances, history_solver, n_out,
            log=None, solver_options=None):
    """Every solver at ``rtol``, the work-precision sweep and a dense history run.

    A solver that fails is reported in ``summary["failures"]``, not raised:
    the comparison is the point.  Returns a :class:`ClassicResult` with its
    summary filled.
    """
    if not t_end > 0:
        raise ValueError(f"t_end={t_end} must be positive")
    if n_out < 2:
        raise ValueError(f"n_out={n_out} must be at least 2")
    opts = solver_options or {}
    at_ref = abs(t_end - model.T_END) < 1e-12
    runs, errs, failures = {}, {}, {}
    for s in solvers:
        try:
            runs[s] = integrate(model, s, rtol, atol_factor * rtol, t_end, **opts.get(s, {}))
        except Exception as err:  # reported, not fatal
            failures[s] = f"{type(err).__name__}: {err}"
            continue
        if at_ref:
            errs[s] = errors(model, runs[s].y_end)
        if log:
            d = errs[s]["positions"]["digits"] if at_ref else float("nan")
            log(f"  {s:13s} rtol={rtol:.0e}: {runs[s].wall_time:6.2f} s, position digits {d:.2f}")
    table = work_precision(model, solvers, tolerances, atol_factor, log, opts) if at_ref and tolerances else {}
    hist = integrate(model, history_solver, rtol / 100, atol_factor * rtol / 100, t_end,
                     t_eval=np.linspace(0.0, t_end, n_out))
    res = [np.max(np.abs(np.array([model.constraint_residuals(t, y)[k] for t, y in zip(hist.t, hist.y)])))
           for k in range(3)]
    eig = model.mass_eigenvalues()
    out = ClassicResult(runs, errs, table, hist, eig)
    out.summary = {
        "problem": problem, "t_end": t_end, "rtol": rtol, "atol": atol_factor * rtol,
        "y_end": {s: r.y_end for s, r in runs.items()},
        "reference": model.REFERENCE if at_ref else None,
        "labels": model.index2_problem().labels(),
        "errors": errs, "failures": failures,
        "wall_time": {s: r.wall_time for s, r in runs.items()},
        "work_precision": table, "winners": winners(table),
        "mass_eigenvalues_t0": eig, "mass_min_eigenvalue_t0": float(eig.min()),
        "history_solver": history_solver,
        "constraint_residual_max": dict(zip(("position", "velocity", "acceleration"), res)),
    }
    return out


def write_columns(path, names, cols, case, **meta):
    """CSV of ``cols`` (2-D array) with a header and the provenance lines
    (:func:`phmech.validation._common.write_table`; ``meta``: ``solver``, ``options``, ``notes``);
    refuses non-finite values."""
    from ._common import write_table
    cols = np.asarray(cols, float)
    if not np.all(np.isfinite(cols)):
        raise ValueError(f"{case}: non-finite values; not writing {path}")
    return write_table(path, names, cols.tolist(), case=case, **meta)


def main(doc, t_end, tolerances, run, argv=None, report=None):
    """Command line shared by the classic benchmark cases.

    ``run(t_end, solvers, rtol, tolerances, outdir=..., plot=..., log=...)``
    is the case's :func:`run`; ``report(summary)`` may print case-specific lines.
    """
    import sys

    from . import _common
    p = _common.parser(doc.split("\n\n")[0])
    p.add_argument("--tfinal", type=_common.positive_float, default=t_end, help="final time [s]")
    p.add_argument("--rtol", type=_common.positive_float, default=1e-6,
                   help="relative tolerance of the comparison runs")
    p.add_argument("--tols", type=_common.positive_float, nargs="*", default=list(tolerances),
                   help="relative tolerances of the work-precision sweep")
    p.add_argument("--solvers", nargs="+", default=list(ALL_SOLVERS), choices=list(ALL_SOLVERS))
    args = p.parse_args(argv)
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []
    out = run(args.tfinal, args.solvers, args.rtol, args.tols, outdir=args.outdir,
              plot=not args.no_plot, log=print)
    s = out.summary
    print(f"mass matrix eigenvalues at t = 0: min {s['mass_min_eigenvalue_t0']:.4e}, "
          f"max {max(s['mass_eigenvalues_t0']):.4e}")
    for k, v in s["winners"].items():
        print(f"  fastest to {k} on the positions: {v['solver']} ({v['wall_time']:.2f} s)")
    if report is not None:
        report(s)
    print(f"  wrote {len(out.files)} files to {args.outdir}")
    return out

"""Classic benchmarks: each solver's wall time to reach a given accuracy.

For Simeon's slider crank (IVP test set "crank", t = 0.1 s) the target is a
largest componentwise relative error of the seven positions of 1e-6
against the published reference; for Andrews' squeezer ("andrews",
t = 0.03 s) it is 1e-7.  Each solver runs over decreasing tolerances
(half decades, ``atol = factor * rtol``) until it meets the target; the
table shows the wall time of that run, the tolerance it needed and the
ratio to the fastest solver.  The time is the best of ``--repeat`` runs
(default 3) at that tolerance, which keeps the load of a shared machine
out of the comparison.  A solver that fails or exceeds the time limit at
every tolerance is listed as not reaching the target.

    python benchmarks/classic.py                # both problems, all solvers
    python benchmarks/classic.py --problem andrews --solvers radau scipy-DOP853
"""
import argparse
import os
import sys

import numpy as np

# run from a checkout: import the phmech next to this script, not an installed one
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROBLEMS = {"crank": (1e-6, 1e-4, 10.0 ** -np.arange(4.0, 9.01, 0.5)),
            "andrews": (1e-7, 1.0, 10.0 ** -np.arange(5.0, 11.01, 0.5))}


def time_to_accuracy(model, solver, target, atol_factor, tolerances, time_limit, options=None, repeat=3):
    """The first (loosest) tolerance meeting ``target``: ``(wall, rtol, err)`` or a failure reason;
    ``wall`` is the best of ``repeat`` runs at that tolerance."""
    from phmech.validation import _classic_run as cr

    last = "no tolerance tried"
    for tol in tolerances:
        try:
            r = cr.integrate(model, solver, tol, atol_factor * tol, **dict(options or {}))
        except Exception as err:  # a failure is a benchmark result
            last = f"failed at rtol={tol:.0e} ({type(err).__name__})"
            continue
        err = cr.errors(model, r.y_end)["positions"]["rel_err"]
        if err <= target:
            wall = r.wall_time
            for _ in range(repeat - 1):
                wall = min(wall, cr.integrate(model, solver, tol, atol_factor * tol,
                                              **dict(options or {})).wall_time)
            return wall, tol, err
        last = f"error {err:.1e} at rtol={tol:.0e}"
        if r.wall_time > time_limit:
            return None, None, f"time limit ({last})"
    return None, None, last


def main(argv=None):
    from phmech.validation import _classic_run as cr
    from phmech.validation._classic_models import AndrewsSqueezer, SimeonCrank
    from phmech.validation.simeon_crank import SOLVER_OPTIONS

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--problem", choices=["crank", "andrews", "both"], default="both")
    p.add_argument("--solvers", nargs="+", default=list(cr.ALL_SOLVERS), choices=list(cr.ALL_SOLVERS))
    p.add_argument("--time-limit", type=float, default=60.0,
                   help="stop refining a solver after a run slower than this [s]")
    p.add_argument("--repeat", type=int, default=3, help="runs at the final tolerance, the best is shown")
    args = p.parse_args(argv)
    sys.argv[1:] = []
    names = ["crank", "andrews"] if args.problem == "both" else [args.problem]
    for name in names:
        model = SimeonCrank() if name == "crank" else AndrewsSqueezer()
        target, factor, tols = PROBLEMS[name]
        opts = SOLVER_OPTIONS if name == "crank" else {}
        rows = [(s, *time_to_accuracy(model, s, target, factor, tols, args.time_limit, opts.get(s),
                                      repeat=args.repeat))
                for s in args.solvers]
        best = min((r[1] for r in rows if r[1] is not None), default=None)
        print(f"\n{name}: wall time to a relative position error <= {target:.0e} "
              f"(atol = {factor:g} rtol, t_end = {model.t_end} s)")
        print(f"{'solver':14s} {'time [s]':>9s} {'rtol':>8s} {'error':>9s} {'ratio':>7s}")
        for s, wall, tol, err in sorted(rows, key=lambda r: (r[1] is None, r[1] or 0)):
            if wall is None:
                print(f"{s:14s} {'-':>9s} {'-':>8s} {'-':>9s} {'-':>7s}  not reached: {err}")
            else:
                print(f"{s:14s} {wall:9.3f} {tol:8.1e} {err:9.1e} {wall / best:7.1f}")


if __name__ == "__main__":
    main()

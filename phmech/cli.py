"""The ``phmech`` command: list the validation cases, run one, or regenerate every figure.

::

    phmech list                                   # the cases and their one-line descriptions
    phmech run CASE [options]                     # = python -m phmech.validation.CASE [options]
    phmech figures [--outdir validation/figures] [--quick] [--cases A B ...]
    phmech study CASE --param NAME=V1,V2,... [--fixed NAME=V] [--processes N | --mpi] [--outdir DIR]

A case is a module of :mod:`phmech.validation` without a leading
underscore that defines ``main(argv)``.  ``phmech figures`` runs every
case's default (or, with ``--quick``, shortened) run into
``OUTDIR/CASE``, one after the other, with a progress line per case, and
ends with a table of the cases, their status, wall time and key figures
(from each ``summary.json``).  ``phmech study`` runs a case over the
Cartesian product of the ``--param`` lists (:func:`phmech.study.study`).
"""
import argparse
import ast
import importlib
import json
import logging
import os
import pkgutil
import sys
import time

log = logging.getLogger("phmech")

#: arguments of the shortened runs of ``phmech figures --quick`` (cases not listed run as by default)
QUICK = {
    "andrews": ["--tols", "1e-5", "--solvers", "radau"],
    "simeon_crank": ["--tols", "1e-5", "--solvers", "radau"],
    "beam_convergence": ["--meshes", "4", "8", "16"],
    "bricard": ["--tfinal", "1", "--no-convergence", "--compare", "none"],
    "crank_slider": ["--tfinal", "0.01", "--n-elem", "4"],
    "four_bar": ["--n-angles", "24", "--n-elem", "3"],
    "hinged_beam": ["--tfinal", "1", "--n-elem", "2"],
    "plate_modes": ["--degrees", "1"],
    "spatial_pendulum": ["--tfinal", "0.5"],
    "spin_up": ["--tfinal", "1", "--n-elem", "4", "--no-reference"],
    "tippe_top": ["--tfinal", "0.5"],
}


#: entries of each case's summary.json shown in the table of ``phmech figures`` (dotted paths);
#: cases not listed show their first scalar errors and residuals
KEY_FIGURES = {
    "andrews": ["errors.radau.positions.digits", "energy_balance_A03.relative"],
    "simeon_crank": ["errors.radau.positions.digits", "constraint_residual_max.position"],
    "beam_convergence": ["rates.v", "rates.m", "rates.omega1"],
    "bouncing_ball": ["cases.1.moreau.energy_balance", "cases.1.nsgenalpha.energy_balance"],
    "bricard": ["energy_drift_J", "position_residual_max"],
    "crank_slider": ["uy_mid_max_abs_over_L", "energy_balance_max_abs_J"],
    "four_bar": ["omega_at_deg_rad_s.90"],
    "hinged_beam": ["omega_z_max", "energy_balance_max_abs"],
    "mass_spring": ["chain.springs.simulated_relative_error", "kreisel.steady.radius_deviation"],
    "plate_modes": ["cantilever_reference_order"],
    "spatial_pendulum": ["box_vs_equivalent_max_tip_difference_m", "rigid.energy_error_J"],
    "spin_up": ["models.linear.tip_max_abs_m", "models.stiffened.tip_max_abs_m"],
    "tippe_top": ["final_tilt", "energy_balance_max"],
}


def cases():
    """``{name: one-line description}`` of the validation cases (read from the sources, nothing imported)."""
    import phmech.validation as pkg
    out = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_") or info.ispkg:
            continue
        path = os.path.join(pkg.__path__[0], info.name + ".py")
        try:
            tree = ast.parse(open(path).read())
        except (OSError, SyntaxError):
            continue
        if any(isinstance(n, ast.FunctionDef) and n.name == "main" for n in tree.body):
            doc = ast.get_docstring(tree) or ""
            out[info.name] = doc.strip().split("\n")[0] if doc else ""
    return dict(sorted(out.items()))


def _case(name):
    known = cases()
    if name not in known:
        raise SystemExit(f"phmech: unknown case {name!r}; the cases are {', '.join(known)}")
    return importlib.import_module(f"phmech.validation.{name}")


def _run_case(name, argv):
    """Run a case's ``main(argv)``; returns its exit status (0: success)."""
    module = _case(name)
    program, sys.argv[0] = sys.argv[0], f"phmech run {name}"     # the name in the case's usage lines
    try:
        status = module.main(list(argv))
    except SystemExit as err:                 # argparse errors and explicit exits of a case
        code = err.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    finally:
        sys.argv[0] = program
    return status if isinstance(status, int) else 0


def _format(value):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:.4g}"
    if isinstance(value, list) and value and all(isinstance(v, (int, float)) for v in value):
        return "[" + ", ".join(f"{v:.4g}" for v in value[:3]) + (", ...]" if len(value) > 3 else "]")
    return None


def _key_figures(summary, limit=3, case=None):
    """A few entries of a summary.json: those of :data:`KEY_FIGURES`, else errors and residuals."""
    chosen = []
    for path in KEY_FIGURES.get(case, []):
        node = summary
        for part in path.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        text = _format(node)
        if text is not None:
            chosen.append(f"{path}={text}")
    if chosen:
        return chosen
    flat = {}

    def walk(d, prefix=""):
        for k, v in d.items():
            if k in ("provenance", "parameters", "stats", "units"):
                continue
            if isinstance(v, dict):
                walk(v, f"{prefix}{k}.")
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                flat[prefix + k] = v
    walk(summary)
    leaf = lambda k: k.rsplit(".", 1)[-1]
    settings = [k for k in flat if leaf(k).endswith(("tol", "_s", "time", "dt")) or leaf(k).startswith("n_")
                or leaf(k) in ("dt", "t_end", "tfinal")]
    for k in settings:
        del flat[k]
    rank = lambda k: (0 if any(w in k for w in ("ref", "err", "digits", "rel", "freq")) else 1, k)
    return [f"{k}={flat[k]:.4g}" for k in sorted(flat, key=rank)[:limit]]


def figures(outdir, quick=False, only=None, out=None):
    """Run every case (or ``only``) into ``outdir/CASE``; returns the table rows.

    Each row: ``(case, status, seconds, key figures)`` with status ``ok`` or
    ``failed (exit N)`` / ``failed (ExceptionType)``; one failing case does
    not stop the others.
    """
    out = sys.stdout if out is None else out
    names = list(cases())
    if only:
        unknown = sorted(set(only) - set(names))
        if unknown:
            raise SystemExit(f"phmech figures: unknown case(s) {unknown}; the cases are {', '.join(names)}")
        names = [n for n in names if n in only]
    rows = []
    tic_all = time.perf_counter()
    for i, name in enumerate(names, 1):
        case_dir = os.path.join(outdir, name)
        argv = ["--outdir", case_dir] + (QUICK.get(name, []) if quick else [])
        print(f"[{i}/{len(names)}] {name} {' '.join(argv[2:])}".rstrip(), file=out, flush=True)
        tic = time.perf_counter()
        try:
            code = _run_case(name, argv)
            status = "ok" if code == 0 else f"failed (exit {code})"
        except Exception as err:     # a failing case is reported in the table; the others still run
            log.exception("phmech figures: case %s failed", name)
            status = f"failed ({type(err).__name__})"
        seconds = time.perf_counter() - tic
        figures_ = []
        summary = os.path.join(case_dir, "summary.json")
        if os.path.isfile(summary):
            try:
                figures_ = _key_figures(json.load(open(summary)), case=name)
            except (OSError, ValueError):
                figures_ = ["(unreadable summary.json)"]
        rows.append((name, status, seconds, figures_))
        print(f"      {status} in {seconds:.1f} s   (total {time.perf_counter() - tic_all:.0f} s)",
              file=out, flush=True)
    print(_table(rows), file=out)
    print(f"total {time.perf_counter() - tic_all:.1f} s; output in {outdir}", file=out)
    return rows


def _table(rows):
    lines = [f"{'case':<20} {'status':<22} {'time [s]':>9}  key figures", "-" * 90]
    for name, status, seconds, figs in rows:
        lines.append(f"{name:<20} {status:<22} {seconds:9.1f}  {'; '.join(figs)}")
    return "\n".join(lines)


def _study(parser, args):
    from . import study as st
    from .validation._common import prepare_outdir
    try:
        grid = st.parse_assignments(args.param, many=True)
        fixed = st.parse_assignments(args.fixed, many=False)
    except ValueError as err:
        parser.error(f"study: {err}")
    if args.processes < 1:
        parser.error(f"study: --processes must be a positive integer, got {args.processes}")
    prepare_outdir(args.outdir, parser)
    sys.argv[1:] = []                                # keep PETSc from reading our options
    try:
        res = st.study(args.case, grid, fixed=fixed, processes=args.processes, mpi=args.mpi,
                       outdir=args.outdir, plot=not args.no_plot)
    except ValueError as err:
        parser.error(str(err))
    if not res.files:                                # MPI ranks other than 0 write nothing
        return 0
    header, rows = res.table
    shown = header[:len(res.names)] + [c for c in header[len(res.names):-1]][:4] + ["wall_time_s"]
    idx = [header.index(h) for h in shown]
    print("  ".join(f"{h:>14.14s}" for h in shown))
    for row in rows:
        print("  ".join(f"{row[i]:14.6g}" if isinstance(row[i], (int, float)) else f"{row[i]!s:>14.14s}"
                        for i in idx))
    print(f"study {args.case}: {len(rows)} points on {res.workers} "
          f"{'ranks' if args.mpi else 'processes'} in {res.wall_time:.1f} s; wrote {len(res.files)} files "
          f"to {args.outdir}")
    return 0


def main(argv=None):
    """The ``phmech`` console entry point; returns the exit status."""
    from .validation._common import add_logging_options
    p = argparse.ArgumentParser(prog="phmech", description="phmech validation cases: list, run, figures")
    add_logging_options(p)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the validation cases")
    r = sub.add_parser("run", help="run one case (its options follow the name; see phmech run CASE -h)",
                       add_help=False)
    r.add_argument("case")
    r.add_argument("args", nargs=argparse.REMAINDER)
    f = sub.add_parser("figures", help="run every case and tabulate the key figures")
    f.add_argument("--outdir", default=os.path.join("validation", "figures"),
                   help="directory of the results (one subdirectory per case)")
    f.add_argument("--quick", action="store_true", help="shortened runs (minutes instead of hours)")
    f.add_argument("--cases", nargs="+", default=None, help="only these cases")
    st = sub.add_parser("study", help="run a case over a parameter grid (phmech.study)")
    st.add_argument("case")
    st.add_argument("--param", action="append", required=True, metavar="NAME=V1,V2,...",
                    help="a parameter of the grid and its values (repeat for more parameters)")
    st.add_argument("--fixed", action="append", default=[], metavar="NAME=VALUE",
                    help="an argument of every run (repeat for more)")
    st.add_argument("--processes", type=int, default=1, help="worker processes")
    st.add_argument("--mpi", action="store_true", help="share the points among the MPI ranks (under mpiexec)")
    st.add_argument("--outdir", default=os.path.join("out", "study"), help="directory of study.csv and the figure")
    st.add_argument("--no-plot", action="store_true", help="do not write the figure")
    args = p.parse_args(argv)
    if args.command == "study":
        return _study(p, args)
    if args.command == "list":
        known = cases()
        width = max(map(len, known))
        for name, doc in known.items():
            print(f"{name:<{width}}  {doc}")
        return 0
    if args.command == "run":
        return _run_case(args.case, args.args)
    rows = figures(args.outdir, args.quick, args.cases)
    return 0 if all(r[1] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

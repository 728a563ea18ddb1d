"""The ``phmech`` command: list the validation cases, run one, or regenerate every figure.

::

    phmech list                                   # the cases and their one-line descriptions
    phmech run CASE [options]                     # = python -m phmech.validation.CASE [options]
    phmech figures [--outdir validation/figures] [--quick] [--cases A B ...]
    phmech study CASE --param NAME=V1,V2,... [--fixed NAME=V] [--processes N | --mpi] [--outdir DIR]
    phmech study MODULE:FUNCTION --param NAME=V1,V2,... ...   # a model of yours over the same grid
    phmech study CASE --list-params                           # the parameters a study of CASE takes

A case is a module of :mod:`phmech.validation` without a leading
underscore that defines ``main(argv)``.  ``phmech figures`` runs every
case's default (or, with ``--quick``, shortened) run into
``OUTDIR/CASE``, one after the other, with a progress line per case, and
ends with a table of the cases, their status, wall time and key figures
(from each ``summary.json``); the quick settings and key figures of each
case are declared in :mod:`phmech.validation.registry`.  ``phmech study``
runs a case or a function of the user's over the Cartesian product of the
``--param`` lists (:func:`phmech.study.study`); points that fail are listed
with their error and make the exit status 1, the others are written.
"""
import argparse
import importlib
import json
import logging
import numbers
import os
import sys
import time

from .validation import registry

log = logging.getLogger("phmech")

#: the cases (``{name: description}``); their settings are declared in :mod:`phmech.validation.registry`
cases = registry.cases


def _case(name):
    known = cases()
    if name not in known:
        raise SystemExit(f"phmech: unknown case {name!r}; the cases are {', '.join(known)}")
    return importlib.import_module(f"phmech.validation.{name}")


def _run_case(name, argv):
    """Run a case's ``main(argv)``; returns its exit status (0: success)."""
    from .validation._common import run_main
    module = _case(name)
    program, sys.argv[0] = sys.argv[0], f"phmech run {name}"     # the name in the case's usage lines
    try:
        return run_main(module.main, list(argv))
    finally:
        sys.argv[0] = program


def _case_list(width=100):
    """The table of ``phmech list``: case, whether it needs Firedrake, description (wrapped)."""
    import textwrap
    known = cases()
    needs = {name: registry.case(name).firedrake_column for name in known}
    w_name = max(map(len, ["case", *known]))
    w_fd = max(map(len, ["needs Firedrake", *needs.values()]))
    indent = w_name + w_fd + 4
    lines = [f"{'case':<{w_name}}  {'needs Firedrake':<{w_fd}}  description", "-" * width]
    for name, doc in known.items():
        text = textwrap.wrap(doc, max(40, width - indent), break_on_hyphens=False) or [""]
        lines.append(f"{name:<{w_name}}  {needs[name]:<{w_fd}}  {text[0]}")
        lines += [" " * indent + more for more in text[1:]]
    return "\n".join(lines)


def _format(value):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:.4g}"
    if isinstance(value, list) and value and all(isinstance(v, (int, float)) for v in value):
        return "[" + ", ".join(f"{v:.4g}" for v in value[:3]) + (", ...]" if len(value) > 3 else "]")
    return None


def _key_figures(summary, limit=3, case=None):
    """A few entries of a summary.json: the case's key figures (:mod:`phmech.validation.registry`),
    else errors and residuals."""
    chosen = []
    for path in registry.case(case).key_figures:
        node = summary
        for part in path.split("."):
            if isinstance(node, list) and part.isdigit():
                node = node[int(part)] if int(part) < len(node) else None
            else:
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

    Each row: ``(case, status, seconds, key figures)`` with status ``ok``,
    ``failed (exit N)`` / ``failed (ExceptionType)``, or, without Firedrake, ``skipped
    (needs Firedrake)`` for the cases that need it (:mod:`phmech.validation.registry`;
    the message on how to get it follows the table once); one failing case does not
    stop the others.
    """
    out = sys.stdout if out is None else out
    names = list(cases())
    if only:
        unknown = sorted(set(only) - set(names))
        if unknown:
            raise SystemExit(f"phmech figures: unknown case(s) {unknown}; the cases are {', '.join(names)}")
        names = [n for n in names if n in only]
    from ._stack import MESSAGE, available
    rows = []
    tic_all = time.perf_counter()
    stack = available("firedrake")
    for i, name in enumerate(names, 1):
        case_dir = os.path.join(outdir, name)
        argv = ["--outdir", case_dir] + (registry.case(name).quick if quick else [])
        if registry.case(name).firedrake is True and not stack:
            print(f"[{i}/{len(names)}] {name}: skipped, needs Firedrake", file=out, flush=True)
            rows.append((name, SKIPPED, 0.0, []))
            continue
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
    if any(r[1] == SKIPPED for r in rows):
        print(MESSAGE, file=out)
    return rows


#: the status of a case that needs Firedrake in ``phmech figures`` without it
SKIPPED = "skipped (needs Firedrake)"


def _table(rows):
    """The table of ``phmech figures``: the columns as wide as their widest entry."""
    wn = max([20, *(len(r[0]) for r in rows)])
    ws = max([22, *(len(r[1]) for r in rows)])
    lines = [f"{'case':<{wn}} {'status':<{ws}} {'time [s]':>9}  key figures", "-" * 90]
    for name, status, seconds, figs in rows:
        lines.append(f"{name:<{wn}} {status:<{ws}} {seconds:9.1f}  {'; '.join(figs)}")
    return "\n".join(lines)


def _study(parser, args):
    """``phmech study``: the table of the points that ran; the failed ones (parameters and error)
    on stderr; exit status 1 if any point failed."""
    from . import study as st
    from .validation._common import prepare_outdir
    if args.list_params:
        try:
            print(_parameter_table(args.case, st.parameters(args.case)))
        except ValueError as err:
            parser.error(str(err))
        return 0
    if not args.param:
        parser.error("study: give the grid with --param NAME=V1,V2,... (phmech study CASE --list-params "
                     "lists the parameters)")
    problems = []
    try:
        grid = st.parse_assignments(args.param, many=True, option="--param")
    except ValueError as err:
        problems.append(str(err))
        grid = {}
    try:
        fixed = st.parse_assignments(args.fixed, many=False, option="--fixed")
    except ValueError as err:
        problems.append(str(err))
        fixed = {}
    for name in sorted(set(grid) & set(fixed)):
        problems.append(f"{name!r} given both with --param ({name}={_value_of(args.param, name)}) and with "
                        f"--fixed ({name}={_value_of(args.fixed, name)}); give it once")
    if problems:
        parser.error("study: " + "; ".join(problems))
    from ._stack import MESSAGE, available
    if not st.is_function_spec(args.case) and registry.case(args.case).firedrake is True and not available():
        print(MESSAGE, file=sys.stderr)             # every point would fail the same way
        return 1
    if args.mpi:
        _quiet_other_ranks()
    prepare_outdir(args.outdir, parser)
    sys.argv[1:] = []                                # keep PETSc from reading our options
    try:
        res = st.study(args.case, grid, fixed=fixed, processes=args.processes, mpi=args.mpi,
                       outdir=args.outdir, plot=not args.no_plot)
    except ValueError as err:
        parser.error(str(err))
    except RuntimeError as err:                      # no point ran (summary.json lists them)
        print(f"phmech {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as err:                 # Ctrl-C: the points that ran are written
        print(f"phmech {err}", file=sys.stderr)
        return 130
    if res.files:                                    # MPI ranks other than 0 write and print nothing
        header, rows = res.table
        print(console_table(header, rows))
        print(f"study {args.case}: {len(rows)} points on {res.workers} "
              f"{'ranks' if args.mpi else 'processes'} in {res.wall_time:.1f} s; wrote {len(res.files)} files "
              f"to {args.outdir}")
        if res.failed:
            total = len(rows) + len(res.failed)
            print(f"study {args.case}: {len(res.failed)} of {total} grid points failed (listed in "
                  f"{os.path.join(args.outdir, 'summary.json')}):", file=sys.stderr)
            for line in res.failure_lines():
                print(f"  {line}", file=sys.stderr)
    return 1 if res.failed else 0


def console_table(header, rows, gap=2):
    """A table for the console: every column, each as wide as its header and its widest value;
    numbers with 6 significant digits, right-aligned, other columns left-aligned."""
    def number(v):
        return isinstance(v, numbers.Real) and not isinstance(v, bool)

    def cell(v):
        return f"{v:.6g}" if number(v) else ("" if v is None else str(v))
    cells = [[cell(v) for v in row] for row in rows]
    widths = [max([len(str(h)), *(len(r[i]) for r in cells)]) for i, h in enumerate(header)]
    right = [bool(rows) and all(number(r[i]) or r[i] is None for r in rows) for i in range(len(header))]
    sep = " " * gap

    def line(items):
        return sep.join(f"{c!s:>{w}}" if r else f"{c!s:<{w}}" for c, w, r in zip(items, widths, right)).rstrip()
    return "\n".join([line(header)] + [line(r) for r in cells])


def _parameter_table(case, params):
    """The text of ``phmech study CASE --list-params``: name, default and unit of each parameter."""
    if params is None:
        return (f"study {case}: the function takes any keyword arguments (its signature lists none); "
                "every --param and --fixed is passed on")
    from .study import REQUIRED
    rows = [(name, "(required)" if value is REQUIRED else repr(value),
             registry.unit(name, case if ":" not in case else None) or "") for name, value in params.items()]
    return "\n".join([f"study {case}: {len(rows)} parameters (--param NAME=V1,V2,... or --fixed NAME=VALUE)",
                      console_table(["parameter", "default", "unit"], rows)])


def _quiet_other_ranks():
    """Under ``--mpi``, keep the ``phmech`` logger of the ranks other than 0 to errors: rank 0
    prints the summary and the failures once (every rank has the whole result)."""
    try:
        from mpi4py import MPI
    except ImportError:              # phmech.study names the missing mpi4py
        return 0
    rank = MPI.COMM_WORLD.rank
    if rank:
        logging.getLogger("phmech").setLevel(logging.ERROR)
    return rank


def _value_of(items, name):
    """The value text of ``name`` in a list of ``NAME=VALUE`` arguments."""
    return next((i.partition("=")[2] for i in items if i.partition("=")[0].strip() == name), "")


def main(argv=None):
    """The ``phmech`` console entry point; returns the exit status."""
    from .validation import _common
    p = argparse.ArgumentParser(
        prog="phmech", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="phmech: the validation cases (list, run, figures) and parameter studies (study) of "
                    "port-Hamiltonian flexible multibody dynamics.",
        epilog="examples:\n"
               "  phmech list                                  the cases; which need Firedrake\n"
               "  phmech run crank_slider --tfinal 0.05        = python -m phmech.validation.crank_slider ...\n"
               "  phmech figures --quick                       every case, then a table of key figures\n"
               "  phmech study crank_slider --list-params      the parameters of a study\n"
               "  phmech study crank_slider --param omega=100,150 --outdir out/study\n"
               "\n"
               "phmech COMMAND -h shows a command's options.  Documentation: README.md, and the API\n"
               "reference and example gallery built with `make -C docs html` (docs/_build/html/index.html).")
    _common.add_logging_options(p)
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
    st = sub.add_parser("study", help="run a case, or a function module:function, over a parameter grid "
                                      "(phmech.study)")
    st.add_argument("case", help="a validation case (phmech list), or a function of yours as module:function "
                                 "or path/to/file.py:function returning a result with a summary")
    st.add_argument("--param", action="append", default=[], metavar="NAME=V1,V2,...",
                    help="a parameter of the grid and its values (repeat for more parameters)")
    st.add_argument("--list-params", action="store_true",
                    help="list the parameters of the case (name, default, unit) and exit")
    st.add_argument("--fixed", action="append", default=[], metavar="NAME=VALUE",
                    help="an argument of every run (repeat for more)")
    st.add_argument("--processes", type=_common.positive_int, default=1, help="worker processes")
    st.add_argument("--mpi", action="store_true", help="share the points among the MPI ranks (under mpiexec)")
    st.add_argument("--outdir", default=os.path.join("out", "study"), help="directory of study.csv and the figure")
    st.add_argument("--no-plot", action="store_true", help="do not write the figure")
    args = p.parse_args(argv)
    if args.command == "study":
        return _study(st, args)
    if args.command == "list":
        print(_case_list())
        return 0
    if args.command == "run":
        if args.case not in cases():
            r.error(f"unknown case {args.case!r}; the cases are {', '.join(cases())}")
        return _run_case(args.case, args.args)
    unknown = sorted(set(args.cases or ()) - set(cases()))
    if unknown:
        f.error(f"argument --cases: unknown case(s) {', '.join(map(repr, unknown))}; "
                f"the cases are {', '.join(cases())}")
    _common.prepare_outdir(args.outdir, f)
    rows = figures(args.outdir, args.quick, args.cases)
    return 0 if all(r[1] in ("ok", SKIPPED) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

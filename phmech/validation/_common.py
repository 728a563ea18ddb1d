"""Shared command-line and output helpers of the validation cases."""
import argparse
import csv
import json
import logging
import os
import platform
import sys
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np


#: extensions of the files listed by :attr:`CaseResult.figures`
FIGURE_EXTENSIONS = (".png", ".pdf", ".svg", ".gif", ".mp4")


@dataclass(kw_only=True, eq=False)
class CaseResult:
    """What the ``run(...)`` of every validation case returns.

    A case adds its own arrays as fields of a subclass (positional, before
    these keyword-only ones) or in :attr:`data`.

    Attributes
    ----------
    summary : dict
        The numbers of the run (what ``summary.json`` holds).
    files : list of str
        Every file written (empty without an output directory).
    results : dict
        The underlying solver results by name (:class:`~phmech.result.Result`
        or the result of the driver the case used).
    data : dict
        Further arrays of a case without fields of its own; also readable as
        attributes and with ``out["name"]``.

    A field or entry called ``result`` is also ``results["run"]``.  A case of one run reads
    the attributes of that run's result through the case result (``out.t``, ``out.y``,
    ``out.stats``, ...).
    """

    summary: dict = field(default_factory=dict)
    files: list = field(default_factory=list)
    results: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)

    @property
    def figures(self):
        """The figure files written (PNG, PDF, SVG, GIF, MP4)."""
        return [f for f in self.files if str(f).lower().endswith(FIGURE_EXTENSIONS)]

    @property
    def csv(self):
        """The CSV files written."""
        return [f for f in self.files if str(f).lower().endswith(".csv")]

    def __post_init__(self):
        result = self.__dict__.get("result")
        if result is not None and not self.results:
            self.results["run"] = result

    def __getattr__(self, name):
        data = self.__dict__.get("data")
        if data is not None and name in data:
            return data[name]
        results = self.__dict__.get("results") or {}
        if len(results) == 1 and not name.startswith("_"):
            # a case of one run: its result's attributes (trajectory, statistics, ...) are the case's
            run = next(iter(results.values()))
            try:
                return getattr(run, name)
            except AttributeError:
                pass
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def __getitem__(self, name):
        """``out[name]``: an entry of :attr:`data`, an attribute, else an entry of :attr:`summary`."""
        if name in self.data:
            return self.data[name]
        try:
            return getattr(self, name)
        except AttributeError:
            if name in self.summary:
                return self.summary[name]
            raise KeyError(name) from None


def positive_float(text):
    """Argparse type: a finite positive number (the error names the value)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (np.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"must be positive and finite, got {text!r}")
    return v


def _int_at_least(text, minimum, what):
    """``int(text)`` if it is at least ``minimum``, else an argparse error naming the value."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < minimum:
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
    return v


def positive_int(text):
    """Argparse type: a positive integer (the error names the value)."""
    return _int_at_least(text, 1, "a positive integer")


def non_negative_int(text):
    """Argparse type: an integer >= 0 (the error names the value)."""
    return _int_at_least(text, 0, "an integer >= 0")


def checkpoint_file(text):
    """Argparse type of ``--checkpoint``: a file in a writable directory, created when missing
    (as ``--outdir``); the error names the path and the cause."""
    from ..io.checkpoint import check_target
    directory = os.path.dirname(os.path.abspath(text))
    try:
        if not os.path.lexists(directory):
            os.makedirs(directory)
        return check_target(text, "--checkpoint")
    except OSError as err:
        raise argparse.ArgumentTypeError(f"{text!r} cannot be written: {err.strerror or err}") from None
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


#: the shortest run a case's command line takes [s] (shorter ones end in a singular iteration matrix)
TFINAL_MIN = 1e-9
#: the solvers that take steps of ``--dt``
FIXED_STEP = ("midpoint", "moreau", "moreau_shifted", "nsgenalpha", "genalpha")


class _CaseParser(argparse.ArgumentParser):
    """A case's parser: after parsing, ``--tfinal`` and ``--dt`` are checked against each other
    (a run shorter than :data:`TFINAL_MIN` or than one step is refused naming both)."""

    def parse_known_args(self, args=None, namespace=None):
        ns, extras = super().parse_known_args(args, namespace)
        tfinal, dt = getattr(ns, "tfinal", None), getattr(ns, "dt", None)
        if tfinal is not None and tfinal < TFINAL_MIN:
            self.error(f"argument --tfinal: {tfinal!r} s is too short a run (at least {TFINAL_MIN:g} s)")
        if tfinal is not None and dt is not None and dt > tfinal and getattr(ns, "solver", "midpoint") in FIXED_STEP:
            self.error(f"argument --dt: the step {dt!r} s is longer than the run (--tfinal {tfinal!r} s); give "
                       "--dt at most --tfinal")
        return ns, extras


def parser(description, tfinal=None, solver="midpoint", dt=None, checkpoints=False):
    """Argument parser with the options every time-domain case shares.

    Numbers are checked on parsing (``--tfinal``, ``--dt``, ``--rtol`` and
    ``--atol`` must be positive and finite; ``--tfinal`` at least
    :data:`TFINAL_MIN` and, for the fixed-step solvers, at least ``--dt``); call :func:`prepare_outdir`
    right after parsing so that an unusable ``--outdir`` is reported before
    any computation.  ``checkpoints=True`` adds ``--checkpoint``,
    ``--checkpoint-every`` and ``--restart`` (pass
    :func:`checkpoint_options` of the parsed arguments to ``simulate``).
    """
    p = _CaseParser(description=description, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    if tfinal is not None:
        p.add_argument("--tfinal", type=positive_float, default=tfinal, help="final time [s]")
        p.add_argument("--solver", default=solver, choices=["midpoint", "radau", "ida", "radau5"],
                       help="time integrator")
        p.add_argument("--dt", type=positive_float, default=dt, help="step size of the midpoint rule [s]")
        p.add_argument("--rtol", type=positive_float, default=1e-6,
                       help="relative tolerance (radau, ida, radau5)")
        p.add_argument("--atol", type=positive_float, default=1e-6,
                       help="absolute tolerance (radau, ida, radau5)")
    p.add_argument("--outdir", default="out", help="directory for CSV, figures and summary.json")
    p.add_argument("--no-plot", action="store_true", help="do not write figures")
    if checkpoints:
        p.add_argument("--checkpoint", type=checkpoint_file, default=None, metavar="FILE.h5",
                       help="write the run to this HDF5 checkpoint (at the end, and every --checkpoint-every)")
        p.add_argument("--checkpoint-every", type=positive_float, default=None, metavar="SECONDS",
                       help="interval of the checkpoints in simulated time [s]")
        p.add_argument("--restart", default=None, metavar="FILE.h5",
                       help="continue the run saved in this checkpoint (same model and options)")
    add_logging_options(p)
    return p


def add_animate_option(p, scale=False):
    """Add ``--animate [{auto,mp4,gif}]`` to ``p`` (``auto``: MP4 when ffmpeg is found, else GIF); with
    ``scale``, also ``--scale FACTOR``, the magnification of the deformation drawn (default 1)."""
    p.add_argument("--animate", nargs="?", const="auto", default=None, choices=["auto", "mp4", "gif"],
                   help="also write an animation of the mechanism (auto: MP4 with ffmpeg, else GIF)")
    if scale:
        p.add_argument("--scale", type=positive_float, default=1.0, metavar="FACTOR",
                       help="magnification of the deformation drawn in the animation (the bodies joined "
                            "to a deformed body follow it)")
    return p


def animation_path(args, stem):
    """The animation file ``OUTDIR/stem.mp4`` or ``.gif`` of ``--animate`` (None without it)."""
    import shutil
    fmt = getattr(args, "animate", None)
    if fmt is None:
        return None
    if fmt == "auto":
        fmt = "mp4" if shutil.which("ffmpeg") else "gif"
    return os.path.join(args.outdir, f"{stem}.{fmt}")


def animation_every(n_rows, max_frames=200):
    """The row stride that keeps an animation of ``n_rows`` output rows at most ``max_frames`` long."""
    return max(1, -(-n_rows // max_frames))


def run_checkpoints(options, tag):
    """The checkpoint options of one of several runs of a case: ``FILE.h5`` becomes ``FILE_<tag>.h5``
    (for ``checkpoint`` and ``restart``; other options unchanged)."""
    out = dict(options or {})
    for key in ("checkpoint", "restart"):
        if out.get(key):
            stem, ext = os.path.splitext(out[key])
            out[key] = f"{stem}_{tag}{ext or '.h5'}"
    return out


def checkpoint_options(args):
    """The driver options (``checkpoint``, ``checkpoint_every``, ``restart``) of parsed arguments.

    ``--checkpoint-every`` without ``--checkpoint`` writes to
    ``OUTDIR/checkpoint.h5``.
    """
    every = getattr(args, "checkpoint_every", None)
    path = getattr(args, "checkpoint", None)
    if every is not None and path is None:
        path = os.path.join(args.outdir, "checkpoint.h5")
    opts = {"checkpoint": path, "checkpoint_every": every, "restart": getattr(args, "restart", None)}
    return {k: v for k, v in opts.items() if v is not None}


class _LogLevel(argparse.Action):
    """``-v`` / ``-q``: one step more or less of the ``phmech`` logger (set while parsing)."""

    def __call__(self, parser, namespace, values, option_string=None):
        logger = logging.getLogger("phmech")
        level = logger.getEffectiveLevel() + self.const
        logger.setLevel(min(max(level, logging.DEBUG), logging.CRITICAL))
        setattr(namespace, self.dest, level)


def add_logging_options(p):
    """Add ``-v/--verbose`` and ``-q/--quiet`` to ``p``; messages of the ``phmech`` logger go to
    stderr (INFO and above by default)."""
    configure_logging()
    p.add_argument("-v", "--verbose", dest="log_level", nargs=0, action=_LogLevel, const=-10,
                   help="more messages (repeat for debug output)")
    p.add_argument("-q", "--quiet", dest="log_level", nargs=0, action=_LogLevel, const=10,
                   help="fewer messages (warnings only; repeat for errors only)")
    return p


class _StderrHandler(logging.StreamHandler):
    """A stream handler writing to the current ``sys.stderr`` (looked up at every record, so a
    replaced or closed stream, as under test capture, is never written to)."""

    def __init__(self):
        logging.Handler.__init__(self)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value):
        pass


def configure_logging(level=logging.INFO):
    """Send the ``phmech`` logger to stderr at ``level`` (once; a configured logger is kept)."""
    logger = logging.getLogger("phmech")
    if not logger.handlers:
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(level)
    return logger


#: the output directories :func:`prepare_outdir` created (deepest first per call), for :func:`run_main`
_CREATED = []


def run_main(main, argv=None):
    """Run a case's ``main(argv)`` as a program; returns its exit status.

    The status is ``main``'s integer result, 0 for ``None``, otherwise 0 for a
    non-empty result (a summary) and 1 for an empty one; ``SystemExit`` (argparse
    errors, explicit exits) gives its code.  When the run needs the Firedrake stack
    and it is not installed, the message of :func:`phmech._stack.message` is printed
    alone on stderr (no traceback), the output directories created for the run and
    left empty are removed, and the status is 1.  ``python -m phmech.validation.CASE``
    and ``phmech run CASE`` both end here.
    """
    from .._stack import missing_stack
    created = len(_CREATED)
    try:
        status = main(argv)
    except SystemExit as err:
        code = err.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except ImportError as err:
        missing = missing_stack(err)
        if missing is None:
            raise
        _remove_empty(_CREATED[created:])
        del _CREATED[created:]
        print(missing, file=sys.stderr)
        return 1
    if status is None:
        return 0
    if isinstance(status, int) and not isinstance(status, bool):
        return status
    return 0 if status else 1


def _remove_empty(directories):
    """Remove those of ``directories`` (deepest first) that are empty."""
    for d in directories:
        try:
            os.rmdir(d)
        except OSError:       # not empty (or gone): kept
            pass


def prepare_outdir(path, parser=None):
    """Create the output directory ``path`` and check that files can be written there.

    Called first in every command line, so that an unusable directory is
    reported before the computation instead of after it.

    Parameters
    ----------
    path : str
        The output directory (created with its parents when missing).
    parser : argparse.ArgumentParser, optional
        When given, a problem is reported through ``parser.error`` (usage
        message and exit status 2) instead of an exception.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ValueError
        When the directory cannot be created or written (without ``parser``).
    """
    try:
        if os.path.exists(path) and not os.path.isdir(path):
            raise OSError(f"{path!r} exists and is not a directory")
        missing = []
        head = os.path.abspath(path)
        while not os.path.exists(head):
            missing.append(head)
            head = os.path.dirname(head)
        os.makedirs(path, exist_ok=True)
        _CREATED.extend(missing)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".phmech-write-test-"):
            pass
    except OSError as err:
        msg = f"--outdir {path!r} cannot be used for the output: {err.strerror or err}"
        if parser is not None:
            parser.error(msg)
        raise ValueError(msg) from None
    return path


def value_lines(items, missing="not reached", indent="  "):
    """Console lines of labelled values, aligned: ``items`` are ``(label, value, unit)``; a value
    is shown with 6 significant digits (``None`` as ``missing``), a list of numbers as its items."""
    def text(v):
        if v is None:
            return missing
        if isinstance(v, (list, tuple, np.ndarray)):
            return "(" + ", ".join(text(x) for x in v) + ")"
        if isinstance(v, (bool, np.bool_)):
            return str(bool(v))
        if isinstance(v, (int, np.integer)):
            return str(int(v))
        if isinstance(v, (float, np.floating)):
            return f"{float(v):.6g}"
        return str(v)
    rows = [(str(label), text(value), unit or "") for label, value, unit in items]
    width = max((len(r[0]) for r in rows), default=0)
    return [f"{indent}{label:<{width}}  {value}{' ' + unit if unit and value != missing else ''}"
            for label, value, unit in rows]


def _clean(obj, key=""):
    """JSON-ready copy of ``obj``; a non-finite number raises, naming its key."""
    if isinstance(obj, dict):
        return {k: _clean(v, f"{key}.{k}" if key else str(k)) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v, f"{key}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, np.ndarray):
        return _clean(obj.tolist(), key)
    if isinstance(obj, (np.floating, float)):
        v = float(obj)
        if not np.isfinite(v):
            raise ValueError(f"summary.json: refusing to write the non-finite value {v} of '{key}'")
        return v
    if isinstance(obj, np.integer):
        return int(obj)
    return obj


def write_summary(outdir, case, data):
    """Write ``summary.json`` (machine-readable key figures) into ``outdir``.

    Raises a ValueError naming the entry, and writes nothing, when ``data``
    holds a non-finite number.  The file also records what produced it
    (``provenance``: phmech's version and git commit, the versions of numpy,
    scipy, Firedrake, PETSc, assimulo, Python and the machine; see
    :func:`phmech.io.provenance.provenance`).
    """
    from ..io.provenance import provenance
    payload = {"case": case, "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
               "python": platform.python_version(), "provenance": provenance(), **_clean(data)}
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, "summary.json")
    with open(path, "w") as fh:
        json.dump(payload, fh, indent=2)
    return path


def figure_style():
    """Matplotlib settings for thesis-style figures.

    Outside a notebook, without ``MPLBACKEND``, figures go to files only
    (the Agg backend).  A notebook keeps its own backend; an Agg backend
    there (e.g. from ``MPLBACKEND=Agg`` in the shell the server was started
    from) is replaced by the inline one, so figures show in the notebook.
    """
    import matplotlib
    if "ipykernel" in sys.modules:
        if matplotlib.get_backend().lower() == "agg":
            try:
                matplotlib.use("module://matplotlib_inline.backend_inline")
            except (ImportError, ValueError):
                pass
    elif not os.environ.get("MPLBACKEND"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 11, "axes.grid": True, "grid.alpha": 0.3,
                         "lines.linewidth": 1.4, "figure.figsize": (5.5, 3.8),
                         "savefig.bbox": "tight", "axes.formatter.limits": (-3, 3)})
    return plt


def savefig(fig, outdir, stem):
    """Save a figure as PNG and PDF (cropped to what is drawn, a legend below the axes included);
    returns the paths."""
    os.makedirs(outdir, exist_ok=True)
    paths = [os.path.join(outdir, f"{stem}.{ext}") for ext in ("png", "pdf")]
    for pth in paths:
        fig.savefig(pth, dpi=150, bbox_inches="tight")
    return paths


def slope_triangle(ax, x, y, rate, color="k", side="below"):
    """A slope triangle of the observed ``rate`` beside the segment between the last two points of
    a log-log series ``(x, y)`` (its hypotenuse parallel to the segment, a third of a decade
    ``side="below"`` or ``"above"`` it), labelled with the rate: the eye reads the order off the plot."""
    xf, xc, yf = float(x[-1]), float(x[-2]), float(y[-1])
    xa, xb = sorted((xf * (xc / xf) ** 0.2, xf * (xc / xf) ** 0.8))
    shift = 0.3 if side == "below" else 1 / 0.3
    ya, yb = shift * yf * (xa / xf) ** rate, shift * yf * (xb / xf) ** rate
    if side == "below":                   # the right angle under the hypotenuse: the rise on the right
        ax.plot([xa, xb, xb, xa], [ya, ya, yb, ya], color=color, lw=0.8)
        ax.text(xb * 1.04, np.sqrt(ya * yb), f"{rate:.2f}", color=color, fontsize="small", va="center")
    else:                                 # over it: the rise on the left
        ax.plot([xa, xa, xb, xa], [ya, yb, yb, ya], color=color, lw=0.8)
        ax.text(xa / 1.04, np.sqrt(ya * yb), f"{rate:.2f}", color=color, fontsize="small", va="center",
                ha="right")


def legend_below(ax, **options):
    """The legend of ``ax`` under its axes, where it covers no data."""
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize="small", frameon=False,
                     **options)


# -- CSV files with their provenance ------------------------------------------------------------
def _meta_of(result, solver, options):
    """Solver name and options: given, or those of ``result``."""
    if result is not None:
        solver = solver if solver is not None else getattr(result, "solver", None)
        if options is None:
            options = dict(getattr(result, "options", {}) or {})
    return solver, options


def write_table(path, header, rows, *, case=None, solver=None, options=None, result=None, notes=(),
                fmt="{:.12g}"):
    """Write a table as CSV opened by ``#`` provenance lines; returns ``path``.

    The file starts with :func:`phmech.io.provenance.csv_header` (phmech's
    version and git commit, the versions of the stack, ``case``, the
    solver and its options -- from ``result`` when given -- and ``notes``),
    then the header row and the rows.  Floats are written with ``fmt``,
    other values (integers, strings, ``None`` as an empty cell) as they are.

    Raises
    ------
    ValueError
        Naming the column and the value, when a float is not finite (nothing
        is written), or when a row's length differs from the header's.
    """
    from ..io.provenance import csv_header
    header = [str(h) for h in header]
    problems = []
    text_rows = []
    for i, row in enumerate(rows):
        row = list(row)
        if len(row) != len(header):
            problems.append(f"row {i} has {len(row)} values for {len(header)} columns")
            continue
        cells = []
        for name, v in zip(header, row):
            if v is None:
                cells.append("")
            elif isinstance(v, (float, np.floating)):
                if not np.isfinite(v):
                    problems.append(f"column '{name}' has the non-finite value {v} (row {i})")
                cells.append(fmt.format(float(v)))
            else:
                cells.append(str(v))
        text_rows.append(cells)
    if problems:
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise ValueError(f"{os.path.basename(path)}: " + "; ".join(problems[:5]) + more + "; not writing it")
    solver, options = _meta_of(result, solver, options)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", newline="") as fh:
        for line in csv_header(case, solver, options, notes):
            fh.write(line + "\n")
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(text_rows)
    return path


def write_csv(path, columns, *, ragged=False, **meta):
    """Write ``columns`` (dict name -> 1-D array) as CSV with provenance lines; returns ``path``.

    All columns have the same length, or, with ``ragged=True``, shorter
    columns end early and are padded with empty cells.  Keywords ``meta``
    as in :func:`write_table` (``case``, ``solver``, ``options``,
    ``result``, ``notes``, ``fmt``).
    """
    cols = {str(k): np.asarray(v, float).ravel() for k, v in columns.items()}
    n = max((len(v) for v in cols.values()), default=0)
    wrong = [f"'{k}' ({len(v)})" for k, v in cols.items() if len(v) != n]
    if wrong and not ragged:
        raise ValueError(f"{os.path.basename(path)}: columns of unequal length {', '.join(wrong)}, "
                         f"expected {n}; not writing it")
    rows = ([float(c[i]) if i < len(c) else None for c in cols.values()] for i in range(n))
    return write_table(path, list(cols), list(rows), **meta)


def result_csv(result, path, columns, **meta):
    """:meth:`phmech.result.Result.to_csv` with the provenance lines: a ``t`` column, then ``columns``;
    solver and options of ``result``."""
    return write_csv(path, {"t": result.t, **columns}, result=result, **meta)


def notes_of(params):
    """One line of ``name=value`` pairs of a parameter dict (for the provenance notes of a CSV)."""
    return ", ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())


def read_csv(path):
    """Read a CSV written by :func:`write_table` (``#`` lines skipped): a structured array with
    the header's names as fields (empty cells as NaN)."""
    with open(path) as fh:
        lines = [line for line in fh if not line.startswith("#")]
    return np.genfromtxt(lines, delimiter=",", names=True, dtype=float, deletechars="")


def read_header(path):
    """The ``#`` provenance lines at the top of a CSV file, without the ``"# "`` prefix."""
    out = []
    with open(path) as fh:
        for line in fh:
            if not line.startswith("#"):
                break
            out.append(line[1:].strip())
    return out


# -- reference data of the top-level validation/ folder -----------------------------------------
def validation_dir():
    """The top-level ``validation/`` folder of the checkout (``PHMECH_VALIDATION_DIR`` overrides it)."""
    here = os.environ.get("PHMECH_VALIDATION_DIR")
    if here:
        return here
    return os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "validation")


def reference(name):
    """Reference data of ``validation/<name>`` (see ``validation/README.md``).

    ``.json`` files are returned as dictionaries, ``.csv`` files as
    structured arrays (:func:`read_csv`: ``#`` lines, which hold the source,
    skipped; empty cells NaN).

    Raises
    ------
    FileNotFoundError
        Naming the file and the folder searched (the data ship with the
        source checkout, not with an installed wheel).
    """
    path = os.path.join(validation_dir(), name)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"reference data {name!r} not found in {validation_dir()!r} (a source checkout "
                                "holds them; PHMECH_VALIDATION_DIR points elsewhere)")
    if name.endswith(".json"):
        with open(path) as fh:
            return json.load(fh)
    return read_csv(path)

"""Shared command-line and output helpers of the validation cases."""
import argparse
import json
import logging
import os
import platform
import sys
import tempfile
import time

import numpy as np


def positive_float(text):
    """Argparse type: a finite positive number (the error names the value)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (np.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"must be positive and finite, got {text!r}")
    return v


def positive_int(text):
    """Argparse type: a positive integer (the error names the value)."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return v


def parser(description, tfinal=None, solver="midpoint", dt=None, checkpoints=False):
    """Argument parser with the options every time-domain case shares.

    Numbers are checked on parsing (``--tfinal``, ``--dt``, ``--rtol`` and
    ``--atol`` must be positive and finite); call :func:`prepare_outdir`
    right after parsing so that an unusable ``--outdir`` is reported before
    any computation.  ``checkpoints=True`` adds ``--checkpoint``,
    ``--checkpoint-every`` and ``--restart`` (pass
    :func:`checkpoint_options` of the parsed arguments to ``simulate``).
    """
    p = argparse.ArgumentParser(description=description,
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
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
        p.add_argument("--checkpoint", default=None, metavar="FILE.h5",
                       help="write the run to this HDF5 checkpoint (at the end, and every --checkpoint-every)")
        p.add_argument("--checkpoint-every", type=positive_float, default=None, metavar="SECONDS",
                       help="interval of the checkpoints in simulated time [s]")
        p.add_argument("--restart", default=None, metavar="FILE.h5",
                       help="continue the run saved in this checkpoint (same model and options)")
    add_logging_options(p)
    return p


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
        os.makedirs(path, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".phmech-write-test-"):
            pass
    except OSError as err:
        msg = f"--outdir {path!r} cannot be used for the output: {err.strerror or err}"
        if parser is not None:
            parser.error(msg)
        raise ValueError(msg) from None
    return path


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
    :func:`phmech.provenance.provenance`).
    """
    from ..provenance import provenance
    payload = {"case": case, "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
               "python": platform.python_version(), "provenance": provenance(), **_clean(data)}
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, "summary.json")
    with open(path, "w") as fh:
        json.dump(payload, fh, indent=2)
    return path


def figure_style():
    """Matplotlib settings for thesis-style figures."""
    import matplotlib
    if os.environ.get("MPLBACKEND"):
        matplotlib.use(os.environ["MPLBACKEND"])
    elif "ipykernel" not in sys.modules:       # files only; a notebook keeps its inline backend
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 11, "axes.grid": True, "grid.alpha": 0.3,
                         "lines.linewidth": 1.4, "figure.figsize": (5.5, 3.8),
                         "savefig.bbox": "tight", "axes.formatter.limits": (-3, 3)})
    return plt


def savefig(fig, outdir, stem):
    """Save a figure as PNG and PDF; returns the paths."""
    os.makedirs(outdir, exist_ok=True)
    paths = [os.path.join(outdir, f"{stem}.{ext}") for ext in ("png", "pdf")]
    for pth in paths:
        fig.savefig(pth, dpi=150)
    return paths

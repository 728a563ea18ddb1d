"""Shared command-line and output helpers of the validation cases."""
import argparse
import json
import os
import platform
import time

import numpy as np


def parser(description, tfinal=None, solver="midpoint", dt=None):
    """Argument parser with the options every time-domain case shares."""
    p = argparse.ArgumentParser(description=description,
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    if tfinal is not None:
        p.add_argument("--tfinal", type=float, default=tfinal, help="final time [s]")
        p.add_argument("--solver", default=solver, choices=["midpoint", "radau", "ida", "radau5"],
                       help="time integrator")
        p.add_argument("--dt", type=float, default=dt, help="step size of the midpoint rule [s]")
        p.add_argument("--rtol", type=float, default=1e-6, help="relative tolerance (radau, ida, radau5)")
        p.add_argument("--atol", type=float, default=1e-6, help="absolute tolerance (radau, ida, radau5)")
    p.add_argument("--outdir", default="out", help="directory for CSV, figures and summary.json")
    p.add_argument("--no-plot", action="store_true", help="do not write figures")
    return p


def _clean(obj):
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _clean(obj.tolist())
    if isinstance(obj, (np.floating, float)):
        v = float(obj)
        if not np.isfinite(v):
            raise ValueError("summary.json: refusing to write a non-finite number")
        return v
    if isinstance(obj, np.integer):
        return int(obj)
    return obj


def write_summary(outdir, case, data):
    """Write ``summary.json`` (machine-readable key figures) into ``outdir``."""
    os.makedirs(outdir, exist_ok=True)
    payload = {"case": case, "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
               "python": platform.python_version(), **_clean(data)}
    path = os.path.join(outdir, "summary.json")
    with open(path, "w") as fh:
        json.dump(payload, fh, indent=2)
    return path


def figure_style():
    """Matplotlib settings for thesis-style figures."""
    import matplotlib
    matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
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

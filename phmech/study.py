"""Parameter studies: a validation case's ``run(...)`` over a grid of parameters, in parallel.

::

    from phmech.study import study
    s = study("crank_slider", {"omega": [100, 150, 200], "E": [1e11, 2e11]},
              fixed={"t_end": 0.05, "n_elem": 4}, processes=2, outdir="out/study")
    s.table          # one row per grid point: the parameters, then the measured numbers

    phmech study crank_slider --param omega=100,150,200 --param E=1e11,2e11 \\
        --fixed t_end=0.05 --fixed n_elem=4 --processes 2 --outdir out/study
    mpiexec -n 4 phmech study four_bar --param theta1_deg=0,30,60,90 --mpi

The grid is the Cartesian product of the value lists (the first parameter
varies slowest).  Each point calls the case's ``run(**fixed, **point,
outdir=None, plot=False)`` -- time-domain cases such as the crank-slider,
where the parameters are entries of its ``DATA`` (crank speed ``omega``,
Young's modulus ``E``, ...) -- or, for the four-bar, the frequencies at one
crank angle (:func:`four_bar_point`, the computation of
:func:`phmech.validation.four_bar.run` at that angle).  The numbers kept
from a point are the scalar entries of its summary (:func:`measure`).

Points run in separate processes (``processes=N``: a
:class:`concurrent.futures.ProcessPoolExecutor` with the *spawn* start
method, so every worker starts a fresh interpreter with its own Firedrake
and PETSc), or on the ranks of an MPI launch (``mpi=True`` under
``mpiexec``; every rank builds its models on its own process,
``COMM_SELF``).  The results are written by one process: ``study.csv``
(with the provenance lines of :func:`phmech.validation._common.write_table`),
the figure ``study`` (PNG, PDF) and ``summary.json``.
"""
import contextlib
import importlib
import itertools
import logging
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np

log = logging.getLogger("phmech")

#: the numbers drawn in a case's figure (others: the first measured number)
FIGURE = {"crank_slider": ["uy_mid_max_abs_over_L"],
          "four_bar": ["omega1_rad_s", "omega2_rad_s", "omega3_rad_s"]}
#: summary entries that are settings or bookkeeping, not results
SKIP = ("stats", "parameters", "provenance", "build_time_s", "n_variables", "wall_time", "sweep_time_s",
        "time_per_angle_ms", "dt", "rtol", "atol", "t_end", "n_elem", "n_angles", "units")


# -- one grid point -----------------------------------------------------------------------------
_FOUR_BARS = {}


def four_bar_point(theta1_deg, n_elem=6, k=3, method="dense"):
    """The four-bar's first ``k`` natural frequencies at crank angle ``theta1_deg`` [deg].

    The computation of :func:`phmech.validation.four_bar.run` at one angle (the
    linearization at the loop-closure configuration and its constrained
    pencil); the model is built once per process and mesh.  Returns
    ``{"summary": {"omega<i>_rad_s": ..., "f<i>_hz": ...}}``.
    """
    from .validation.four_bar import FourBar
    if n_elem not in _FOUR_BARS:
        _FOUR_BARS[n_elem] = FourBar(int(n_elem))
    w = _FOUR_BARS[n_elem].linearize(np.radians(float(theta1_deg))).eigenmodes(int(k), method).omega
    return {"summary": {**{f"omega{i + 1}_rad_s": float(x) for i, x in enumerate(w)},
                        **{f"f{i + 1}_hz": float(x) / (2 * np.pi) for i, x in enumerate(w)}}}


#: cases whose grid points are not calls of the module's ``run``
RUNNERS = {"four_bar": four_bar_point}


def runner(case):
    """The function called at each grid point of ``case``."""
    if case in RUNNERS:
        return RUNNERS[case], False
    from .cli import cases
    if case not in cases():
        raise ValueError(f"study: unknown case {case!r}; the cases are {', '.join(cases())}")
    module = importlib.import_module(f"phmech.validation.{case}")
    if not hasattr(module, "run"):
        raise ValueError(f"study: case {case!r} has no run(...)")
    return module.run, True


def check_names(case, names):
    """Refuse parameters the case does not take (one error naming them and the accepted ones)."""
    import inspect
    fn, is_run = runner(case)
    params = inspect.signature(fn).parameters
    accepted = {n for n, p in params.items() if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        data = getattr(sys.modules.get(fn.__module__), "DATA", None)
        if data is None:
            return                                  # takes anything
        accepted |= set(data)
    accepted -= {"outdir", "plot", "progress"} if is_run else set()
    unknown = sorted(set(names) - accepted)
    if unknown:
        raise ValueError(f"study {case}: unknown parameter(s) {unknown}; the case takes {sorted(accepted)}")


def measure(out):
    """The scalar numbers of a case's result: its summary's numeric entries (nested dictionaries
    flattened with dots; settings and statistics, :data:`SKIP`, left out)."""
    summary = out["summary"] if isinstance(out, dict) else getattr(out, "summary", None)
    if not isinstance(summary, dict):
        raise ValueError(f"study: the case's result ({type(out).__name__}) has no summary dictionary")
    flat = {}

    def walk(d, prefix):
        for k, v in d.items():
            if k in SKIP:
                continue
            if isinstance(v, dict):
                walk(v, f"{prefix}{k}.")
            elif isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
                flat[prefix + str(k)] = float(v)
    walk(summary, "")
    return flat


def evaluate(case, point, fixed):
    """Run ``case`` at one grid point; returns ``(numbers, seconds)`` (the worker function)."""
    sys.argv[1:] = []                       # keep PETSc from reading a worker's command line
    fn, is_run = runner(case)
    tic = time.perf_counter()
    kwargs = {**fixed, **point}
    if is_run:
        kwargs.update(outdir=None, plot=False)
    out = fn(**kwargs)
    return measure(out), time.perf_counter() - tic


def _safe(case, point, fixed):
    try:
        return evaluate(case, point, fixed), None
    except Exception as err:                 # reported for all points together
        return None, f"{type(err).__name__}: {err}"


# -- the grid -----------------------------------------------------------------------------------
def grid_points(grid):
    """The Cartesian product of ``grid`` (dict name -> values) as a list of dicts, first name slowest."""
    problems = []
    if not isinstance(grid, dict) or not grid:
        raise ValueError(f"study: the grid must be a non-empty dict name -> values, got {grid!r}")
    for name, values in grid.items():
        if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
            problems.append(f"parameter {name!r}: values must be a list, got {values!r}")
        elif len(values) == 0:
            problems.append(f"parameter {name!r} has no values")
    if problems:
        raise ValueError("study: " + "; ".join(problems))
    names = list(grid)
    return [dict(zip(names, combo)) for combo in itertools.product(*(list(grid[n]) for n in names))]


@contextlib.contextmanager
def _meshes_on_this_process():
    """Firedrake meshes made meanwhile live on COMM_SELF (each MPI rank runs its own models)."""
    try:
        import firedrake as fd
        from mpi4py import MPI
    except ImportError:
        yield
        return
    original = fd.IntervalMesh

    def interval_mesh(*args, **kwargs):
        kwargs.setdefault("comm", MPI.COMM_SELF)
        return original(*args, **kwargs)
    fd.IntervalMesh = interval_mesh
    try:
        yield
    finally:
        fd.IntervalMesh = original


@dataclass
class StudyResult:
    """A finished study.

    Attributes
    ----------
    case : str
    names : list of str
        The grid's parameters.
    points : list of dict
        The grid points, in order.
    values : list of dict
        The measured numbers of each point.
    seconds : list of float
        Wall time of each point (in its process).
    wall_time : float
        Wall time of the whole study [s].
    workers : int
        Processes or MPI ranks used.
    """

    case: str
    names: list
    points: list
    values: list
    seconds: list
    wall_time: float
    workers: int
    files: list = field(default_factory=list)

    @property
    def columns(self):
        """The measured quantities (present at every point)."""
        keys = [k for k in self.values[0] if all(k in v for v in self.values)] if self.values else []
        return keys

    @property
    def table(self):
        """``(header, rows)``: the parameters, the measured numbers and the wall time per point."""
        cols = self.columns
        header = list(self.names) + cols + ["wall_time_s"]
        rows = [[p[n] for n in self.names] + [v[c] for c in cols] + [s]
                for p, v, s in zip(self.points, self.values, self.seconds)]
        return header, rows

    def column(self, name):
        """One measured quantity (or parameter) over the grid, as an array."""
        if name in self.names:
            return np.array([p[name] for p in self.points])
        return np.array([v[name] for v in self.values])


def study(case, grid, *, fixed=None, processes=1, mpi=False, outdir=None, plot=True):
    """Run ``case`` over the Cartesian product of ``grid``.

    Parameters
    ----------
    case : str
        A validation case (``phmech list``), e.g. ``"crank_slider"`` or ``"four_bar"``.
    grid : dict
        Parameter name -> list of values.
    fixed : dict, optional
        Further arguments of every point (e.g. ``t_end``, ``n_elem``).
    processes : int
        Worker processes (1: in this process).
    mpi : bool
        Share the points among the ranks of ``MPI.COMM_WORLD`` (launch with
        ``mpiexec``); every rank returns the whole result, rank 0 writes.
    outdir : str, optional
        Directory of ``study.csv``, the figure ``study`` and ``summary.json``.
    plot : bool

    Returns
    -------
    StudyResult

    Raises
    ------
    ValueError
        For an unknown case or a malformed grid (before any run).
    RuntimeError
        Naming every grid point whose run failed (nothing is written).

    Notes
    -----
    The worker processes are *spawned*: they import the calling script, so a
    script with ``processes > 1`` calls :func:`study` under
    ``if __name__ == "__main__":``.
    """
    fixed = dict(fixed or {})
    points = grid_points(grid)
    check_names(case, list(grid) + list(fixed))    # an unknown case or parameter fails here, not in the workers
    if not (isinstance(processes, (int, np.integer)) and processes >= 1):
        raise ValueError(f"study: processes must be a positive integer, got {processes!r}")
    tic = time.perf_counter()
    comm = None
    if mpi:
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
    if comm is not None and comm.size > 1:
        with _meshes_on_this_process():
            mine = {i: _safe(case, points[i], fixed) for i in range(comm.rank, len(points), comm.size)}
        gathered = comm.allgather(mine)
        results = [None] * len(points)
        for part in gathered:
            for i, r in part.items():
                results[i] = r
        workers = comm.size
    elif processes > 1:
        from concurrent.futures.process import BrokenProcessPool
        ctx = multiprocessing.get_context("spawn")
        try:
            with ProcessPoolExecutor(max_workers=min(processes, len(points)), mp_context=ctx) as pool:
                results = list(pool.map(_safe, [case] * len(points), points, [fixed] * len(points)))
        except BrokenProcessPool as err:
            raise RuntimeError(f"study {case}: a worker process died ({err}); a script that calls study(..., "
                               "processes=N) must do so under 'if __name__ == \"__main__\":' (the workers "
                               "are spawned and import the script)") from None
        workers = min(processes, len(points))
    else:
        results = [_safe(case, p, fixed) for p in points]
        workers = 1
    failed = [f"{p}: {err}" for p, (_, err) in zip(points, results) if err is not None]
    if failed:
        raise RuntimeError(f"study {case}: {len(failed)} of {len(points)} grid points failed: " + "; ".join(failed))
    out = StudyResult(case, list(grid), points, [r[0][0] for r in results], [r[0][1] for r in results],
                      time.perf_counter() - tic, workers)
    if not out.columns:
        raise RuntimeError(f"study {case}: the runs report no common numbers")
    log.info("study %s: %d points on %d %s in %.1f s", case, len(points), workers,
             "ranks" if comm is not None and comm.size > 1 else "processes", out.wall_time)
    if outdir is not None and (comm is None or comm.rank == 0):
        out.files = write(out, outdir, plot, fixed, mpi=comm is not None and comm.size > 1)
    return out


# -- output -------------------------------------------------------------------------------------
def write(out, outdir, plot=True, fixed=None, mpi=False):
    """``study.csv``, the figure ``study`` (PNG, PDF) and ``summary.json``; returns the paths."""
    from .validation import _common
    from .validation._common import notes_of
    header, rows = out.table
    grid_text = "; ".join(f"{n} in {sorted({p[n] for p in out.points}, key=str)}" for n in out.names)
    files = [_common.write_table(os.path.join(outdir, "study.csv"), header, rows, case=out.case,
                                 notes=[f"study grid: {grid_text}", f"fixed: {notes_of(fixed or {})}",
                                        f"{out.workers} {'MPI ranks' if mpi else 'processes'}"])]
    if plot:
        files += _figure(out, outdir)
    files.append(_common.write_summary(outdir, f"study {out.case}", {
        "grid": {n: sorted({p[n] for p in out.points}, key=str) for n in out.names}, "fixed": fixed or {},
        "points": len(out.points), "workers": out.workers, "mpi": mpi, "wall_time_s": out.wall_time,
        "point_time_s_sum": float(np.sum(out.seconds)),
        "results": [{**p, **v} for p, v in zip(out.points, out.values)]}))
    return files


def _figure(out, outdir):
    from .validation import _common
    plt = _common.figure_style()
    metrics = [m for m in FIGURE.get(out.case, []) if m in out.columns] or out.columns[:1]
    x_name = out.names[0]
    try:
        x = out.column(x_name).astype(float)
    except (TypeError, ValueError):
        return []
    others = out.names[1:]
    groups = sorted({tuple(p[n] for n in others) for p in out.points}, key=str)
    fig, ax = plt.subplots()
    for mi, m in enumerate(metrics):
        y = out.column(m)
        for gi, g in enumerate(groups):
            sel = np.array([tuple(p[n] for n in others) == g for p in out.points])
            order = np.argsort(x[sel])
            label = m if not others else (f"{m}, " if len(metrics) > 1 else "") + \
                ", ".join(f"{n}={v:g}" if isinstance(v, (int, float)) else f"{n}={v}" for n, v in zip(others, g))
            ax.plot(x[sel][order], y[sel][order], "o-", color=f"C{(mi * len(groups) + gi) % 10}", label=label,
                    markersize=4)
    ax.set_xlabel(x_name)
    ax.set_ylabel(metrics[0] if len(metrics) == 1 else "value")
    ax.set_title(f"{out.case}: study over {', '.join(out.names)}")
    ax.legend(fontsize="small")
    files = _common.savefig(fig, outdir, "study")
    plt.close(fig)
    return files


def parse_value(text):
    """A value of ``--param``/``--fixed``: int, float, True/False/None, else the string."""
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(text.lower(), text)


def parse_assignments(items, many):
    """``["name=v1,v2", ...]`` -> dict (``many``: lists of values); one error naming every bad item."""
    out, bad = {}, []
    for item in items or []:
        name, sep, values = item.partition("=")
        if not sep or not name.strip() or not values.strip():
            bad.append(repr(item))
            continue
        vals = [parse_value(v.strip()) for v in values.split(",")] if many else parse_value(values.strip())
        out[name.strip()] = vals
    if bad:
        raise ValueError(f"expected name=value{',value...' if many else ''}, got {', '.join(bad)}")
    return out

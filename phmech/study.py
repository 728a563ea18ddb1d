"""Parameter studies: a validation case's ``run(...)``, or a function of the user's, over a grid of
parameters, in parallel.

::

    from phmech.study import study
    s = study("crank_slider", {"omega": [100, 150, 200], "E": [1e11, 2e11]},
              fixed={"t_end": 0.05, "n_elem": 4}, processes=2, outdir="out/study")
    s.table          # one row per grid point that ran: the parameters, then the measured numbers
    s.failed         # the points whose run raised, with the error

    phmech study crank_slider --param omega=100,150,200 --param E=1e11,2e11 \\
        --fixed t_end=0.05 --fixed n_elem=4 --processes 2 --outdir out/study
    mpiexec -n 4 phmech study four_bar --param theta1_deg=0,30,60,90 --mpi
    phmech study mymodels:pendulum --param length=0.5,1.0 --processes 2

The grid is the Cartesian product of the value lists (the first parameter
varies slowest).  Each point calls the case's ``run(**fixed, **point,
outdir=None, plot=False)`` -- time-domain cases such as the crank-slider,
where the parameters are entries of its ``DATA`` (crank speed ``omega``,
Young's modulus ``E``, ...) -- or the function the case declares in
:mod:`phmech.validation.registry` (for the four-bar the frequencies at one
crank angle, :func:`phmech.validation.four_bar.study_point`), or the user's ``module:function``
with ``**fixed, **point``.  The numbers kept from a point are the scalar
entries of its summary (:func:`measure`).  A point that fails is reported
with its parameters and error; the others are kept and written.  So is a
point that calls ``sys.exit`` or kills its worker process (the points the
dead worker left unfinished run again, each in a process of its own, and the
one that dies is named with its exit status or signal).  A Ctrl-C writes the
points that ran, names the interrupted one and raises ``KeyboardInterrupt``
(``phmech study`` exits with status 130).

Points run in separate processes (``processes=N``: a
:class:`concurrent.futures.ProcessPoolExecutor` with the *spawn* start
method, so every worker starts a fresh interpreter with its own Firedrake
and PETSc), or on the ranks of an MPI launch (``mpi=True`` under
``mpiexec``; every rank builds its models on its own process,
``COMM_SELF``).  The results are written by one process: ``study.csv``
(with the provenance lines of :func:`phmech.validation._common.write_table`),
the figure ``study`` (PNG, PDF; units and model from the registry or the
summary) and ``summary.json`` (with the failed points).
"""
import contextlib
import importlib
import inspect
import importlib.util
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

#: summary entries that are settings or bookkeeping, not results
SKIP = ("stats", "parameters", "provenance", "build_time_s", "n_variables", "wall_time", "sweep_time_s",
        "time_per_angle_ms", "dt", "rtol", "atol", "t_end", "n_elem", "n_angles", "units")
#: summary entries (strings) that name the model and the solver of a point
DESCRIPTION = ("model", "solver", "method")


# -- one grid point -----------------------------------------------------------------------------
def is_function_spec(case):
    """Whether ``case`` names a user's function (``"module:function"``) rather than a validation case."""
    return isinstance(case, str) and ":" in case


def load_function(spec):
    """The function named by ``spec``: ``"package.module:function"`` (imported as usual, the
    current directory included) or ``"path/to/file.py:function"``.

    Raises
    ------
    ValueError
        Naming ``spec`` and the cause: a malformed name, a module that cannot be
        imported (and why), a missing attribute or one that is not callable.
    """
    module_name, _, fn_name = spec.rpartition(":")
    if not module_name or not fn_name.isidentifier():
        raise ValueError(f"study: {spec!r} is not 'module:function' (e.g. 'mymodels:crank')")
    try:
        if module_name.endswith(".py") or os.sep in module_name or "/" in module_name:
            path = os.path.abspath(module_name)
            if not os.path.isfile(path):
                raise FileNotFoundError(f"no file {path}")
            key = "_phmech_study_" + "".join(c if c.isalnum() else "_" for c in path)
            module = sys.modules.get(key)
            if module is None:
                spec_ = importlib.util.spec_from_file_location(key, path)
                module = importlib.util.module_from_spec(spec_)
                spec_.loader.exec_module(module)
                sys.modules[key] = module
        else:
            if "" not in sys.path and os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())       # as 'python -m' does: modules of the current directory
            module = importlib.import_module(module_name)
    except Exception as err:             # any failure of the user's import: one message naming it
        raise ValueError(f"study: cannot import {module_name!r} of {spec!r} ({type(err).__name__}: {err})") from err
    fn = getattr(module, fn_name, None)
    if fn is None:
        raise ValueError(f"study: module {module_name!r} has no function {fn_name!r} (from {spec!r})")
    if not callable(fn):
        raise ValueError(f"study: {spec!r} is not callable (a {type(fn).__name__})")
    return fn


def runner(case):
    """The function called at each grid point of ``case`` and whether it is a case's ``run``
    (which then gets ``outdir=None, plot=False``)."""
    from .validation import registry
    if is_function_spec(case):
        return load_function(case), False
    if not isinstance(case, str) or case not in registry.cases():
        raise ValueError(f"study: unknown case {case!r}; the cases are {', '.join(registry.cases())}, "
                         "or give a function as 'module:function'")
    declared = registry.case(case).study_function
    if declared:
        return load_function(declared), False
    module = importlib.import_module(f"phmech.validation.{case}")
    if not hasattr(module, "run"):
        raise ValueError(f"study: case {case!r} has no run(...)")
    return module.run, True


#: the default of a parameter without one (:func:`parameters`)
REQUIRED = inspect.Parameter.empty


def parameters(case):
    """``{name: default}`` of the parameters that ``case`` (a case or ``module:function``) takes
    in a study (:data:`REQUIRED` where there is no default); ``None`` when it takes any keyword
    or has no signature to read.

    A case's ``run`` takes its own arguments and, through ``**overrides``, the entries of
    its module's ``DATA``; ``outdir``, ``plot`` and ``progress`` are the study's own.
    """
    fn, is_run = runner(case)
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return None                                 # no signature to check against
    out = {n: p.default for n, p in params.items() if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        data = getattr(sys.modules.get(fn.__module__), "DATA", None) if is_run else None
        if data is None:
            return None                             # takes anything
        for name, value in data.items():
            out.setdefault(name, value)
    for name in ("outdir", "plot", "progress") if is_run else ():
        out.pop(name, None)
    return out


def check_names(case, names):
    """Refuse parameters the case does not take (one error naming them and the accepted ones)."""
    accepted = parameters(case)
    if accepted is None:
        return
    unknown = sorted(set(names) - set(accepted))
    if unknown:
        raise ValueError(f"study {case}: unknown parameter(s) {unknown}; the case takes {sorted(accepted)}")


def _summary_of(out):
    """The summary dictionary of a point's result (see :func:`measure`)."""
    if isinstance(out, dict):
        return out["summary"] if isinstance(out.get("summary"), dict) else out
    summary = getattr(out, "summary", None)
    if isinstance(summary, dict):
        return summary
    from .result import Result
    if isinstance(out, Result):
        return _result_summary(out)
    raise ValueError(f"study: the result ({type(out).__name__}) has no summary: return a dict of numbers, "
                     "{'summary': {...}}, an object with a summary dict, or a phmech Result")


def _result_summary(res):
    """The numbers kept of a solver :class:`~phmech.result.Result`: energy and constraint checks
    and the final configuration of every body."""
    summary = {"model": f"{len(res.dae.q_slices)} bodies, {res.dae.n} variables", "solver": res.solver,
               "t_final_s": float(res.t[-1]), "hamiltonian_end_J": float(res.hamiltonian()[-1]),
               "energy_balance_max_abs_J": float(np.max(np.abs(res.energy_balance()))),
               "constraint_residual_max": float(np.max(res.constraint_residual(), initial=0.0)),
               "nsteps": res.stats.get("nsteps")}
    for body in res.dae.q_slices:
        for i, x in enumerate(res.q(body)[-1]):
            summary[f"{body}.q{i}_end"] = float(x)
    return summary


def measure(out):
    """The scalar numbers of a point's result: the numeric entries of its summary (nested
    dictionaries flattened with dots; settings and statistics, :data:`SKIP`, left out).

    ``out`` is a case's result (with a ``summary`` dictionary), a dictionary
    ``{"summary": {...}}``, a dictionary of numbers, or a solver
    :class:`~phmech.result.Result` (its energy balance, constraint residual and
    final configuration).
    """
    summary = _summary_of(out)
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
    bad = sorted(k for k, v in flat.items() if not np.isfinite(v))
    if bad:
        raise ValueError(f"non-finite result(s) {bad}")
    return flat


def describe(out):
    """The model, solver and units named by a point's summary (strings; ``units``: a dict)."""
    summary = _summary_of(out)
    info = {k: summary[k] for k in DESCRIPTION if isinstance(summary.get(k), str)}
    if isinstance(summary.get("units"), dict):
        info["units"] = {str(k): str(v) for k, v in summary["units"].items()}
    return info


def evaluate(case, point, fixed):
    """Run ``case`` at one grid point; returns ``(numbers, seconds, description)`` (the worker function)."""
    sys.argv[1:] = []                       # keep PETSc from reading a worker's command line
    fn, is_run = runner(case)
    tic = time.perf_counter()
    kwargs = {**fixed, **point}
    if is_run:
        kwargs.update(outdir=None, plot=False)
    out = fn(**kwargs)
    seconds = time.perf_counter() - tic
    return measure(out), seconds, describe(out)


def _safe(case, point, fixed):
    """:func:`evaluate` with its error as text: ``(result, None)`` or ``(None, "Type: message")``
    (a point calling ``sys.exit`` fails as well; a Ctrl-C is left to the caller)."""
    try:
        return evaluate(case, point, fixed), None
    except SystemExit as err:                # sys.exit in the user's code ends the point, not the study
        return None, f"SystemExit: the point called sys.exit({err.code!r})"
    except Exception as err:                 # one failing point does not lose the others
        return None, f"{type(err).__name__}: {err}"


#: the error of a point interrupted by Ctrl-C, and of the points not run after it
INTERRUPTED = "KeyboardInterrupt: interrupted (Ctrl-C) while this point ran"
NOT_RUN = "not run to its end: the study was interrupted (Ctrl-C)"


def _serial(case, points, fixed):
    """The points run one after the other in this process; a Ctrl-C stops the study after
    marking the point it interrupted and those not run (returns ``(results, interrupted)``)."""
    results = []
    for p in points:
        try:
            results.append(_safe(case, p, fixed))
        except KeyboardInterrupt:
            results.append((None, INTERRUPTED))
            results += [(None, NOT_RUN)] * (len(points) - len(results))
            return results, True
    return results, False


def _isolated_child(conn, case, point, fixed):
    conn.send("started")                     # the process is up (the caller's script imported)
    conn.send(_safe(case, point, fixed))
    conn.close()


def _isolated(ctx, case, point, fixed):
    """One point in a process of its own (after a worker died): its result, or the error naming
    how the process ended; ``None`` when the process died before it could run the point."""
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_isolated_child, args=(child, case, point, fixed))
    proc.start()
    child.close()
    messages = []
    try:
        while True:
            messages.append(parent.recv())
    except EOFError:
        pass
    proc.join()
    if len(messages) == 2:
        return messages[1]
    if not messages:
        return None
    code = proc.exitcode
    if code is not None and code < 0:
        import signal
        try:
            how = f"killed by signal {-code} ({signal.Signals(-code).name})"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exit status {code}"
    return None, f"WorkerDied: the worker process died while running this point ({how})"


def _pool(case, points, fixed, processes):
    """The points on ``processes`` spawned workers (returns ``(results, interrupted)``).  A
    worker that dies breaks the pool: the points it left unfinished run again, each in a process
    of its own, so the one that kills its process is named and the others are kept."""
    from concurrent.futures.process import BrokenProcessPool
    ctx = multiprocessing.get_context("spawn")
    results = [None] * len(points)
    interrupted = False
    pool = ProcessPoolExecutor(max_workers=min(processes, len(points)), mp_context=ctx)
    futures = [pool.submit(_safe, case, p, fixed) for p in points]
    try:
        for i, future in enumerate(futures):
            try:
                results[i] = future.result()
            except BrokenProcessPool:           # run again below, on its own
                results[i] = None
    except KeyboardInterrupt:                   # ours, or a worker's sent back
        interrupted = True
        for i, future in enumerate(futures):
            if results[i] is not None:
                continue
            done = future.done() and not future.cancelled()
            if done and future.exception() is None:
                results[i] = future.result()
            elif future.running() or (done and isinstance(future.exception(), KeyboardInterrupt)):
                results[i] = (None, INTERRUPTED)
            else:                               # pending, or lost with a worker the Ctrl-C ended
                results[i] = (None, NOT_RUN)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    if interrupted:
        return results, True
    broken = [i for i, r in enumerate(results) if r is None]
    if broken:
        log.warning("study %s: a worker process died; running its %d unfinished point(s) again, each in a "
                    "process of its own", case, len(broken))
    started = False
    for i in broken:
        try:
            r = _isolated(ctx, case, points[i], fixed)
        except KeyboardInterrupt:
            results[i] = (None, INTERRUPTED)
            for j in broken[broken.index(i) + 1:]:
                results[j] = (None, NOT_RUN)
            return results, True
        started |= r is not None
        results[i] = r
    if broken and not started:
        raise RuntimeError(f"study {case}: the worker processes died before running any point; a script that "
                           "calls study(..., processes=N) must do so under 'if __name__ == \"__main__\":' (the "
                           "workers are spawned and import the script)")
    return results, False


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
        The validation case or the user's ``"module:function"``.
    names : list of str
        The grid's parameters.
    points : list of dict
        The grid points that ran, in grid order.
    values : list of dict
        The measured numbers of each of these points.
    seconds : list of float
        Wall time of each of these points (in its process).
    wall_time : float
        Wall time of the whole study [s].
    workers : int
        Processes or MPI ranks used.
    failed : list of dict
        The points whose run failed: ``{"point": {...}, "error": "Type: message"}``.
    info : dict
        The model, solver and units named by the first point's summary.
    files : list of str
        The files written.
    """

    case: str
    names: list
    points: list
    values: list
    seconds: list
    wall_time: float
    workers: int
    files: list = field(default_factory=list)
    failed: list = field(default_factory=list)
    info: dict = field(default_factory=dict)

    @property
    def columns(self):
        """The measured quantities (present at every point that ran)."""
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
        """One measured quantity (or parameter) over the points that ran, as an array."""
        if name in self.names:
            return np.array([p[name] for p in self.points])
        return np.array([v[name] for v in self.values])

    def failure_lines(self):
        """One line per failed point: its parameters and the error."""
        return [f"{_point_text(f['point'])}: {f['error']}" for f in self.failed]


def _point_text(point):
    return ", ".join(f"{n}={v!r}" if isinstance(v, str) else f"{n}={v}" for n, v in point.items())


def study(case, grid, *, fixed=None, processes=1, mpi=False, outdir=None, plot=True):
    """Run ``case`` over the Cartesian product of ``grid``.

    Parameters
    ----------
    case : str
        A validation case (``phmech list``), e.g. ``"crank_slider"`` or
        ``"four_bar"``, or a function of the user's as ``"module:function"``
        (``"path/to/file.py:function"`` also works) called with the grid
        point's and the fixed arguments; it returns a dictionary of numbers,
        ``{"summary": {...}}``, an object with a ``summary`` dictionary or a
        solver :class:`~phmech.result.Result`.  A summary may name its
        ``model``, ``solver`` and ``units`` (a dict name -> unit) for the figure.
    grid : dict
        Parameter name -> list of values.
    fixed : dict, optional
        Further arguments of every point (e.g. ``t_end``, ``n_elem``); a name
        may not be both in ``grid`` and in ``fixed``.
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
        The points that ran, and in ``failed`` those whose run raised (each
        with its error); the files hold the good points and list the failed ones.

    Raises
    ------
    ValueError
        For an unknown case or function, a malformed grid, unknown parameters or a
        name both in ``grid`` and ``fixed`` (before any run).
    RuntimeError
        When no grid point ran (naming every point and its error, after writing
        ``summary.json`` with them).

    Notes
    -----
    The worker processes are *spawned*: they import the calling script, so a
    script with ``processes > 1`` calls :func:`study` under
    ``if __name__ == "__main__":``.
    """
    fixed = dict(fixed or {})
    points = grid_points(grid)
    both = sorted(set(grid) & set(fixed))
    if both:
        raise ValueError(f"study: {', '.join(map(repr, both))} given both in the grid and as fixed "
                         "argument(s); give each name once")
    check_names(case, list(grid) + list(fixed))    # an unknown case or parameter fails here, not in the workers
    if not (isinstance(processes, (int, np.integer)) and not isinstance(processes, bool) and processes >= 1):
        raise ValueError(f"study: processes must be a positive integer, got {processes!r}")
    if mpi and processes > 1:
        raise ValueError(f"study: processes={processes} with mpi=True (--processes {processes} with --mpi): give "
                         "one of them; under MPI the ranks run the points (mpiexec -n N ... --mpi)")
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
        interrupted = False
    elif processes > 1:
        results, interrupted = _pool(case, points, fixed, processes)
        workers = min(processes, len(points))
    else:
        results, interrupted = _serial(case, points, fixed)
        workers = 1
    good = [(p, r) for p, (r, err) in zip(points, results) if err is None]
    out = StudyResult(case, list(grid), [p for p, _ in good], [r[0] for _, r in good], [r[1] for _, r in good],
                      time.perf_counter() - tic, workers,
                      failed=[{"point": p, "error": err} for p, (_, err) in zip(points, results) if err is not None],
                      info=good[0][1][2] if good else {})
    for line in out.failure_lines():
        log.warning("study %s: grid point failed: %s", case, line)
    log.info("study %s: %d of %d points on %d %s in %.1f s", case, len(out.points), len(points), workers,
             "ranks" if comm is not None and comm.size > 1 else "processes", out.wall_time)
    writer = outdir is not None and (comm is None or comm.rank == 0)
    if good and not out.columns:
        out.failed += [{"point": p, "error": "no numbers in common with the other points"} for p in out.points]
        out.points, out.values, out.seconds = [], [], []
    if writer:
        out.files = write(out, outdir, plot and bool(out.points), fixed, mpi=comm is not None and comm.size > 1,
                          grid=grid)
    if interrupted:
        stopped = next((f["point"] for f in out.failed if f["error"] == INTERRUPTED), None)
        raise KeyboardInterrupt(f"study {case}: interrupted (Ctrl-C)"
                                + (f" at the point {_point_text(stopped)}" if stopped else "")
                                + f"; {len(out.points)} of {len(points)} points ran"
                                + (f" and were written to {outdir}" if out.files else ""))
    if not out.points:
        raise RuntimeError(f"study {case}: all {len(points)} grid points failed: " + "; ".join(out.failure_lines()))
    return out


# -- output -------------------------------------------------------------------------------------
def write(out, outdir, plot=True, fixed=None, mpi=False, grid=None):
    """``study.csv`` (the points that ran), the figure ``study`` (PNG, PDF) and ``summary.json``
    (with the failed points and their errors); returns the paths."""
    from .validation import _common
    from .validation._common import notes_of
    grid = grid if grid is not None else {n: sorted({p[n] for p in out.points}, key=str) for n in out.names}
    grid_text = "; ".join(f"{n} in {list(v)}" for n, v in grid.items())
    files = []
    if out.points:
        notes = [f"study grid: {grid_text}", f"fixed: {notes_of(fixed or {})}",
                 f"{out.workers} {'MPI ranks' if mpi else 'processes'}"]
        notes += [f"failed point: {line}" for line in out.failure_lines()]
        files.append(_common.write_table(os.path.join(outdir, "study.csv"), *out.table, case=_case_label(out.case),
                                         notes=notes))
        if plot:
            files += _figure(out, outdir)
    files.append(_common.write_summary(outdir, f"study {out.case}", {
        "grid": {n: list(v) for n, v in grid.items()}, "fixed": fixed or {}, "points": len(out.points) + len(out.failed),
        "points_run": len(out.points), "points_failed": len(out.failed),
        "failed": [{**f["point"], "error": f["error"]} for f in out.failed],
        "workers": out.workers, "mpi": mpi, "wall_time_s": out.wall_time,
        "point_time_s_sum": float(np.sum(out.seconds)), **{k: v for k, v in out.info.items()},
        "results": [{**p, **v} for p, v in zip(out.points, out.values)]}))
    return files


def _case_label(case):
    return case if not is_function_spec(case) else f"user model {case}"


def _figure(out, outdir):
    from .validation import _common
    fig = study_figure(out)
    if fig is None:
        return []
    files = _common.savefig(fig, outdir, "study")
    _common.figure_style().close(fig)
    return files


def study_figure(out):
    """The figure of a study (``None`` when the first parameter is not numeric): the case's
    numbers (:mod:`phmech.validation.registry`, else the first measured one) over the first
    parameter, one line per value of the others; axes and legend with units (the registry's,
    the summary's ``units`` or a unit suffix of the name), the title naming model and solver."""
    from .validation import _common, registry
    spec = registry.case(None if is_function_spec(out.case) else out.case)
    plt = _common.figure_style()
    metrics = [m for m in spec.study_metrics if m in out.columns] or out.columns[:1]
    x_name = out.names[0]
    try:
        x = out.column(x_name).astype(float)
    except (TypeError, ValueError):
        return None
    units = out.info.get("units")
    lab = lambda n: registry.label(n, spec.name, units)       # noqa: E731
    others = out.names[1:]
    groups = sorted({tuple(p[n] for n in others) for p in out.points}, key=str)

    def with_unit(n, v):
        if not isinstance(v, (int, float)):
            return f"{n} = {v}"
        u = registry.unit(n, spec.name, units)
        return f"{n} = {v:g}" + (f" {u}" if u not in (None, "", "1") else "")

    fig, ax = plt.subplots()
    for mi, m in enumerate(metrics):
        y = out.column(m)
        for gi, g in enumerate(groups):
            sel = np.array([tuple(p[n] for n in others) == g for p in out.points])
            order = np.argsort(x[sel])
            label = ", ".join(([lab(m)] if len(metrics) > 1 or not others else [])
                              + [with_unit(n, v) for n, v in zip(others, g)])
            ax.plot(x[sel][order], y[sel][order], "o-", color=f"C{(mi * len(groups) + gi) % 10}", label=label,
                    markersize=4)
    ax.set_xlabel(lab(x_name))
    shared = {registry.unit(m, spec.name, units) for m in metrics}
    if len(metrics) == 1:
        ax.set_ylabel(lab(metrics[0]))
    elif len(shared) == 1 and None not in shared:
        u = shared.pop()
        ax.set_ylabel(f"value [{u if u not in ('', '1') else '-'}]")
    else:
        ax.set_ylabel("value (units in the legend)")
    model = out.info.get("model") or spec.model or _case_label(out.case)
    solver = out.info.get("solver") or out.info.get("method") or spec.solver or "solver not named"
    ax.set_title(f"{_case_label(out.case)}: {model}; {solver}", fontsize="small", wrap=True)
    ax.legend(fontsize="small")
    return fig


def parse_value(text):
    """A value of ``--param``/``--fixed``: int, float, True/False/None, else the string."""
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(text.lower(), text)


def parse_assignments(items, many, option=None):
    """``["name=v1,v2", ...]`` -> dict (``many``: lists of values).

    One error naming every bad item: a missing ``=``, name or value, an empty
    entry of a value list, a value that is not a finite number (``nan``,
    ``inf``), or a name given twice.  ``option`` (e.g. ``"--param"``) names the
    option in the message.
    """
    out, seen, bad = {}, {}, []
    opt = f"{option} " if option else ""
    for item in items or []:
        name, sep, values = item.partition("=")
        name = name.strip()
        if not sep or not name or not values.strip():
            bad.append(f"{opt}{item!r}: expected name=value{',value...' if many else ''}")
            continue
        texts = [v.strip() for v in values.split(",")] if many else [values.strip()]
        if any(not t for t in texts):
            bad.append(f"{opt}{item!r}: an empty value in the list")
            continue
        vals = [parse_value(t) for t in texts]
        nonfinite = [t for t, v in zip(texts, vals) if isinstance(v, float) and not np.isfinite(v)]
        if nonfinite:
            bad.append(f"{opt}{item!r}: {', '.join(map(repr, nonfinite))} is not a finite number")
            continue
        if name in seen:
            bad.append(f"{opt}{name!r} given twice ({seen[name]!r} and {item!r}); give all its values in one "
                       f"{option or 'assignment'}{' (name=v1,v2,...)' if many else ''}")
            continue
        seen[name] = item
        out[name] = vals if many else vals[0]
    if bad:
        raise ValueError("; ".join(bad))
    return out

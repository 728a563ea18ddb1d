"""One driver for every integrator: output times, breakpoints, events,
progress and per-step callbacks (the hook for checkpoints).

Solvers implement a step and a dense output over it
(:mod:`phmech.solvers.base`); :func:`solve` owns everything a user asks of
a run.  Every returned row is the state at its label: output times are
never moved, and states between step points come from the solver's dense
output.
"""
import logging
import time

import numpy as np

from ..kernels.loading import KernelClock, held
from ..result import Result
from .assimulo_adapters import IDA, Radau5DAE
from .base import DRIVER_OPTIONS, Solver, SolverError, positive_option  # noqa: F401 (DRIVER_OPTIONS public here)
from .genalpha import GeneralizedAlpha
from .midpoint import ImplicitMidpoint
from .moreau import Moreau, MoreauShifted
from .nsgenalpha import NonsmoothGenAlpha
from .radau import RadauIIA

log = logging.getLogger("phmech")

#: the solvers by name
METHODS = {"midpoint": ImplicitMidpoint, "radau": RadauIIA, "ida": IDA, "radau5": Radau5DAE,
           "moreau": Moreau, "moreau_shifted": MoreauShifted, "genalpha": GeneralizedAlpha,
           "nsgenalpha": NonsmoothGenAlpha}



def _solver_class(method):
    if isinstance(method, type) and issubclass(method, Solver):
        return method
    try:
        return METHODS[method]
    except (KeyError, TypeError):
        raise ValueError(f"unknown solver {method!r}; choose one of {sorted(METHODS)}") from None


def solve(problem, t_span, y0, method="midpoint", t_eval=None, dt_out=None, tstops=None, events=None,
          progress=False, callbacks=None, restart=None, checkpoint=None, checkpoint_every=None, **options):
    """Integrate ``E y' = f(t, y)`` over ``t_span`` from the consistent state ``y0``.

    Parameters
    ----------
    problem : :class:`phmech.solvers.problem.Problem`
        An assembled system or a :class:`~phmech.solvers.problem.DAEProblem`.
    t_span : (t0, t_end)
        Finite, ``t_end > t0``.
    y0 : array, shape (n,)
    method : str or Solver subclass
        ``"midpoint"``, ``"radau"``, ``"ida"`` or ``"radau5"`` (see :data:`METHODS`).
    t_eval : array, optional
        Output times in ``[t0, t_end]``, strictly increasing; the rows carry
        exactly these labels (states from the solver's dense output).
    dt_out : float, optional
        Output every ``dt_out`` from ``t0`` (and at ``t_end``); ignored with ``t_eval``.
        Default (neither): every step.
    tstops : array, optional
        Breakpoints (e.g. kinks of a load history): no step straddles one.
    events : list of callables ``g(t, y)``, optional
        Zero crossings of each ``g`` are located on the dense output by a
        bracketing root finder.  Optional attributes as in scipy:
        ``terminal`` (stop at the first crossing; the last row is the state
        there) and ``direction`` (``+1``: upward crossings only, ``-1``:
        downward, ``0``: both).  The result gets ``t_events`` and
        ``y_events``, one array per event.  An event that returns NaN or
        something other than a number stops the run with a ``ValueError``
        naming the event, the time and the value.
    progress : bool
        Show a progress bar (tqdm, when installed).
    callbacks : list of callables ``cb(solver)``, optional
        Called after every accepted step (the place to write checkpoints).
    restart : str, optional
        Continue the run saved in this checkpoint file (:mod:`phmech.io.checkpoint`)
        up to ``t_end``; ``t_span[0]`` and ``y0`` are then taken from the file.
        The model must be the one of the file (else a
        :class:`~phmech.io.checkpoint.CheckpointError`); the solver options default to
        the stored ones.  Pass the same ``t_eval``/``dt_out``/``tstops``: the
        result then holds the stored rows followed by the continued ones and
        equals the uninterrupted run (bit for bit for the midpoint rule when
        ``t_end`` is the one of the interrupted run).
    checkpoint : str, optional
        Write the run so far to this HDF5 file every ``checkpoint_every``
        seconds of simulated time and at the end (atomically: a killed run
        loses at most one interval).  Its directory must exist and be
        writable (checked before the run, else a ``ValueError``).
    checkpoint_every : float, optional
        Interval of the checkpoints in simulated time (default: only at the
        end); only with ``checkpoint`` (else a ``ValueError``).
    **options
        The solver's own options; an option it does not take is refused.

    Returns
    -------
    :class:`~phmech.result.Result`
        With ``stats``: ``nsteps, nreject, nfev, njev, nlu``, ``path`` (``"compiled"`` where
        the steps' iteration ran compiled at the end of the run, else ``"python"``), and the times in
        seconds ``wall_time`` (the steps), ``setup_time`` (constructing the
        solver: first Jacobian and factorization, packing the compiled model,
        reading a restart file) and ``kernel_time`` (loading or compiling the
        compiled kernels, in either; not counted in the other two).
    """
    tic = time.perf_counter()
    cls = _solver_class(method)
    try:
        t0, t_end = t_span
    except (TypeError, ValueError):
        raise ValueError(f"{cls.name}: t_span must be two numbers (t0, t_end), got {t_span!r}") from None
    from ..io.checkpoint import check_arguments
    check_arguments(cls.name, checkpoint, checkpoint_every)
    resume = None
    if restart is not None:
        from ..io.checkpoint import open_restart
        resume = open_restart(restart, problem, cls, options, t_end)
        options = resume.options
        if resume.t >= t_end:            # the stored run, nothing left to continue
            log.info("restart: %s already reaches t = %g; returning it", resume.path, resume.t)
            return Result.from_checkpoint(resume.meta, resume.arrays, problem)
    clock = KernelClock()
    try:
        clock.start()
        with held():            # set-up of the model inside the constructor is counted here
            if resume is not None:
                solver = cls(problem, resume.t, resume.state["y"], t_end, **options)
                solver.restore_state(resume.state)
            else:
                solver = cls(problem, t0, y0, t_end, **options)
    finally:
        clock.stop()
    solver.options = dict(options)
    # and the model's own set-up before (assembly, initial state) not yet reported in a result
    model_setup, model_kernel = problem.setup_clock.take() if hasattr(problem, "setup_clock") else (0.0, 0.0)
    solver.setup_times = (time.perf_counter() - tic - clock.seconds + model_setup, clock.seconds + model_kernel)
    return integrate(solver, t_eval=t_eval, dt_out=dt_out, tstops=tstops, events=events,
                     progress=progress, callbacks=callbacks, checkpoint=checkpoint,
                     checkpoint_every=checkpoint_every, _resume=resume)


# -- checks of the driver's arguments ------------------------------------------
def _output_times(name, t0, t_end, t_eval, dt_out):
    if t_eval is not None:
        try:
            out = np.array(t_eval, dtype=float).ravel()
        except (TypeError, ValueError):
            raise ValueError(f"{name}: t_eval must be an array of times, got {t_eval!r}") from None
        if not len(out):
            raise ValueError(f"{name}: t_eval is empty")
        if not np.all(np.isfinite(out)):
            raise ValueError(f"{name}: t_eval has non-finite entries")
        if np.any(np.diff(out) <= 0):
            raise ValueError(f"{name}: t_eval must be strictly increasing")
        if out[0] < t0 or out[-1] > t_end:
            raise ValueError(f"{name}: t_eval must lie in the integration span [{t0}, {t_end}], "
                             f"got [{out[0]}, {out[-1]}]")
        return out
    if dt_out is not None:
        dt_out = positive_option(name, "dt_out", dt_out)
        n = int(np.floor((t_end - t0) / dt_out * (1 + 1e-12)))
        out = t0 + dt_out * np.arange(n + 1)
        if t_end - out[-1] > 1e-9 * dt_out:
            out = np.r_[out, t_end]
        else:
            out[-1] = t_end
        return out
    return None


def _breakpoints(name, t0, t_end, tstops):
    if tstops is None:
        return [t_end]
    try:
        s = np.array(tstops, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"{name}: tstops must be an array of times, got {tstops!r}") from None
    if not np.all(np.isfinite(s)):
        raise ValueError(f"{name}: tstops has non-finite entries: {s[~np.isfinite(s)][:3]}")
    return sorted(set(float(v) for v in s if t0 < v < t_end)) + [t_end]


def _check_events(name, events):
    events = list(events or [])
    for ev in events:
        if not callable(ev):
            raise ValueError(f"{name}: events must be callables g(t, y), got {ev!r}")
        if getattr(ev, "direction", 0) not in (-1, 0, 1):
            raise ValueError(f"{name}: the direction of event {getattr(ev, '__name__', ev)!r} must be "
                             f"-1, 0 or +1, got {ev.direction!r}")
    return events


def _progress(enabled, t0, t_end, name):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # tqdm is optional
        return None
    return tqdm(total=t_end - t0, desc=name, unit="s", leave=True,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| t={n:.4g}/{total:.4g} [{elapsed}<{remaining}]")


# -- the loop -----------------------------------------------------------------------
class _Rows:
    """The output rows ``(t, y, work)`` collected during a run."""

    def __init__(self, solver):
        self.solver = solver
        self.t, self.y, self.w = [], [], []

    def add(self, t, y, w=0.0):
        self.t.append(float(t))
        self.y.append(np.array(y, dtype=float))
        self.w.append(float(w))

    def add_dense(self, ts, dense, work):
        """The rows at the output times ``ts`` (ascending, inside the last step) from its dense
        output, all in one call (the dense outputs are vectorized in ``t``); a time equal to the
        step's end takes the step point itself."""
        s = self.solver
        ts = np.asarray(ts, float)
        m = ts.size - 1 if ts.size and ts[-1] == s.t else ts.size
        if m:
            Y = dense(ts[:m])
            W = work(ts[:m]) if work is not None else np.zeros(m)
            for t, y, w in zip(ts[:m], Y, W):
                self.add(t, y, w)
        if m < ts.size:
            self.add(s.t, s.y, getattr(s, "work", 0.0))


def _event_value(name, events, i, t, y):
    """``float(events[i](t, y))``; a value that is not a number, or NaN (never a crossing), is one
    ValueError naming the event, the time and the value."""
    ev = events[i]
    value = ev(t, y)
    try:
        g = float(value)
    except (TypeError, ValueError):
        g = None
    if g is None or np.isnan(g):
        raise ValueError(f"{name}: event {i} ({getattr(ev, '__name__', repr(ev))!r}) returned {value!r} at "
                         f"t = {float(t):.9g}; an event function must return a number (NaN is never a zero "
                         f"crossing)")
    return g


def _once(make):
    """``make`` called on the first call only: its result kept for the later ones."""
    made = []

    def get():
        if not made:
            made.append(make())
        return made[0]
    return get


def _crossings(events, g_old, solver, dense):
    """``[(t_event, index)]`` of the events crossing zero in the last step, sorted, and the new g."""
    t_old, t_new = solver.t_old, solver.t
    found, g_new = [], []
    for i, ev in enumerate(events):
        g1 = _event_value(solver.name, events, i, t_new, solver.y)
        g_new.append(g1)
        g0, direction = g_old[i], getattr(ev, "direction", 0)
        up, down = g0 < 0 <= g1, g0 > 0 >= g1
        if (up and direction >= 0) or (down and direction <= 0):
            if g1 == 0:
                te = t_new
            else:
                from scipy.optimize import brentq      # on the first event only (import cost)
                te = brentq(lambda s: _event_value(solver.name, events, i, s, dense()(s)), t_old, t_new,
                            xtol=4 * np.finfo(float).eps * max(1.0, abs(t_new)))
            found.append((te, i))
    return sorted(found), g_new


def integrate(solver, t_eval=None, dt_out=None, tstops=None, events=None, progress=False, callbacks=None,
              checkpoint=None, checkpoint_every=None, _resume=None):
    """Run a constructed ``solver`` to its ``t_bound`` (see :func:`solve` for the arguments;
    ``_resume``: the opened restart file, :func:`phmech.io.checkpoint.open_restart`)."""
    name, t_end = solver.name, solver.t_bound
    t0 = _resume.t0 if _resume is not None else solver.t       # the run's start (output grid)
    outputs = _output_times(name, t0, t_end, t_eval, dt_out)
    stops = _breakpoints(name, solver.t, t_end, tstops)
    events = _check_events(name, events)
    callbacks = list(callbacks or [])
    for cb in callbacks:
        if not callable(cb):
            raise ValueError(f"{name}: callbacks must be callables cb(solver), got {cb!r}")
    solver.t_outputs = outputs
    labels = solver.problem.labels()
    rows = _Rows(solver)
    k = 0                                        # next output time
    t_events, y_events = [[] for _ in events], [[] for _ in events]
    if _resume is not None:
        _resume.fill(rows, t_events, y_events)
        k = 0 if outputs is None else int(np.searchsorted(outputs, solver.t, side="right"))
    elif outputs is None or outputs[0] == t0:
        rows.add(t0, solver.y)
        k = 0 if outputs is None else 1
    if checkpoint is not None or checkpoint_every is not None:
        from ..io.checkpoint import Checkpointer, check_arguments
        check_arguments(name, checkpoint, checkpoint_every)
        callbacks.append(Checkpointer(checkpoint, checkpoint_every, rows, t0, t_events, y_events))
    solver.single_steps = bool(events or callbacks)     # else a step may be a run of several
    g_old = [_event_value(name, events, i, solver.t, solver.y) for i in range(len(events))]
    bar = _progress(progress, solver.t, t_end, name)
    t_prev = solver.t
    terminated = False
    clock, tic = KernelClock(), time.perf_counter()
    clock.start()
    hold = held()
    hold.__enter__()            # set-up of the model during the steps is counted as the steps
    try:
        for stop in stops:
            solver.t_bound = stop
            while solver.status == "running":
                solver.t_target = outputs[k] if outputs is not None and k < len(outputs) and \
                    outputs[k] < stop else stop
                solver.step()
                if not np.all(np.isfinite(solver.y)):
                    i = int(np.flatnonzero(~np.isfinite(solver.y))[0])
                    raise SolverError(name, solver.t_old, f"the state became non-finite ({labels[i]}) "
                                      f"in the step to t = {solver.t:.9g}")
                # the dense output and the work between step points, made where rows need them
                dense = _once(solver.dense_output)
                work = _once(solver.work_output if solver.records_work else lambda: None)
                t_cut = solver.t
                if events:
                    found, g_old = _crossings(events, g_old, solver, dense)
                    for te, i in found:
                        t_events[i].append(te)
                        y_events[i].append(solver.y.copy() if te == solver.t else dense()(te))
                        if getattr(events[i], "terminal", False):
                            t_cut, terminated = te, True
                            break
                if outputs is None:
                    inner = getattr(solver, "interior_points", None)
                    points = inner() if inner else ((), ())
                    works = points[2] if len(points) > 2 else np.zeros(len(points[0]))
                    for ti, yi, wi in zip(points[0], points[1], works):
                        if ti <= t_cut:
                            rows.add(ti, yi, wi)
                    if not terminated:
                        rows.add(solver.t, solver.y, getattr(solver, "work", 0.0))
                else:
                    k_end = int(np.searchsorted(outputs, t_cut, side="right"))
                    if k_end > k:
                        rows.add_dense(outputs[k:k_end], dense(), work())
                        k = k_end
                if terminated and (not rows.t or rows.t[-1] != t_cut):
                    rows.add_dense([t_cut], dense(), work())
                for cb in callbacks:
                    cb(solver)
                if bar is not None:
                    bar.update(t_cut - t_prev)
                t_prev = t_cut
                if terminated:
                    break
            if terminated:
                break
    except SolverError:
        solver.status = "failed"
        raise
    finally:
        hold.__exit__(None, None, None)
        clock.stop()
        if bar is not None:
            bar.close()
    wall = time.perf_counter() - tic - clock.seconds
    setup, kernel = getattr(solver, "setup_times", (0.0, 0.0))
    res = Result(rows.t, np.array(rows.y), solver.problem, name,
                 {**solver.stats(), "path": solver.path, "wall_time": wall, "setup_time": setup,
                  "kernel_time": kernel + clock.seconds},
                 message="terminated by an event" if terminated else "success")
    res.work = np.array(rows.w) if solver.records_work else None
    if events:
        res.t_events = [np.array(t) for t in t_events]
        res.y_events = [np.array(y).reshape(-1, solver.problem.n) for y in y_events]
    check = getattr(solver.problem, "check_rows", None)
    if check is not None:
        check(res.t, res.y)
    res.options = dict(getattr(solver, "options", {}))
    res.t0, res.t_end = t0, t_end
    res.solver_state = solver.checkpoint_state() if hasattr(solver, "checkpoint_state") else None
    if checkpoint is not None:
        try:
            res.save(checkpoint)
        except Exception as err:        # the computed run is not lost with the final write
            from ..io.checkpoint import CheckpointError
            note = "; the run itself completed: its result is attached to this error as .result"
            if isinstance(err, CheckpointError):
                err.args = (f"{err}{note}",) + err.args[1:]
                err.result = res
                raise
            failed = CheckpointError(f"checkpoint {checkpoint!r} could not be written at the end of the run "
                                     f"({type(err).__name__}: {err}){note}")
            failed.result = res
            raise failed from err
    return res

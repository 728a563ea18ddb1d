"""One driver loop for every integrator: output times, breakpoints, events,
progress and per-step callbacks (the hook for checkpoints).

In the style of ``scipy.integrate.solve_ivp``: solvers implement a step and
a dense output (:mod:`phmech.solvers.base`); this loop owns everything a
user asks of a run.  Every returned row is the state at its label.
"""
import time

import numpy as np
from scipy.optimize import brentq

from ..result import Result
from .base import SolverError


def _progress(enabled, t0, t_end, name):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # tqdm is optional
        return None
    return tqdm(total=t_end - t0, desc=name, unit="s", leave=True,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| t={n:.4g}/{total:.4g} [{elapsed}<{remaining}]")


def _check_times(name, t_eval, t0, t_end):
    t_eval = np.asarray(t_eval, dtype=float).ravel()
    if not np.all(np.isfinite(t_eval)):
        raise ValueError(f"{name}: t_eval has non-finite entries")
    if np.any(np.diff(t_eval) <= 0):
        raise ValueError(f"{name}: t_eval must be strictly increasing")
    span = t_end - t0
    if len(t_eval) and (t_eval[0] < t0 - 1e-12 * span or t_eval[-1] > t_end + 1e-12 * span):
        raise ValueError(f"{name}: t_eval must lie in the integration span [{t0}, {t_end}], "
                         f"got [{t_eval[0]}, {t_eval[-1]}]")
    return np.clip(t_eval, t0, t_end)


def integrate(solver, t_eval=None, dt_out=None, tstops=None, events=None, progress=False, callbacks=()):
    """Run ``solver`` to its ``t_end``; returns a :class:`~phmech.result.Result`.

    Parameters
    ----------
    t_eval : array, optional
        Output times within the span, strictly increasing (dense output of
        the solver); default: every step.
    dt_out : float, optional
        Output interval (a uniform grid from ``t0``); ignored with ``t_eval``.
    tstops : array, optional
        Breakpoints (e.g. kinks of a load history) that no step straddles.
    events : list of callables ``g(t, y)``, optional
        Zero crossings located on the dense output; attributes ``terminal``
        (stop there) and ``direction`` (+1, -1, 0) as in scipy.  The result
        has ``t_events`` and ``y_events`` (one list per event).
    progress : bool
        Show a progress bar (tqdm; terminals, files and notebooks).
    callbacks : list of callables ``cb(solver)``
        Called after every accepted step (the place to write checkpoints).
    """
    name, t0, t_end = solver.name, solver.t0, solver.t_end
    if t_eval is not None:
        outputs = _check_times(name, t_eval, t0, t_end)
    elif dt_out is not None:
        from .base import positive_option
        dt_out = positive_option(name, "dt_out", dt_out)
        n = int(np.floor((t_end - t0) / dt_out * (1 + 1e-12)))
        outputs = t0 + dt_out * np.arange(n + 1)
        if t_end - outputs[-1] > 1e-9 * dt_out:
            outputs = np.r_[outputs, t_end]
        else:
            outputs[-1] = t_end
    else:
        outputs = None
    solver.outputs = outputs
    stops = [] if tstops is None else sorted(float(s) for s in np.atleast_1d(tstops) if t0 < s < t_end)
    stops.append(t_end)
    events = list(events or [])
    for ev in events:
        if not callable(ev):
            raise ValueError(f"{name}: events must be callables g(t, y), got {ev!r}")
    ts, ys, works = [], [], []
    record_work = getattr(solver, "records_work", False)
    k_out = 0
    if outputs is None or (len(outputs) and outputs[0] <= t0):
        ts.append(t0)
        ys.append(solver.y.copy())
        works.append(0.0)
        k_out = 1 if outputs is not None else 0
    t_events = [[] for _ in events]
    y_events = [[] for _ in events]
    g_old = [float(ev(t0, solver.y)) for ev in events]
    bar = _progress(progress, t0, t_end, name)
    tic = time.perf_counter()
    stop_index = 0
    terminated = False
    try:
        while True:
            solver.t_bound = stops[stop_index]
            nxt = outputs[k_out] if outputs is not None and k_out < len(outputs) else solver.t_bound
            solver.t_target = min(nxt, solver.t_bound)
            work_old = getattr(solver, "work", 0.0)
            solver.step()
            t_old, t_new = solver.t_old, solver.t
            if not np.all(np.isfinite(solver.y)):
                raise SolverError(name, t_old, "the solution became non-finite")
            dense = None
            t_stop_here = None
            for i, ev in enumerate(events):
                g_new = float(ev(t_new, solver.y))
                direction = getattr(ev, "direction", 0)
                crossed = (g_old[i] < 0 <= g_new and direction >= 0) or (g_old[i] > 0 >= g_new and direction <= 0)
                if crossed and g_old[i] != 0:
                    dense = dense or solver.dense_output()
                    te = brentq(lambda s: float(ev(s, dense(s))), t_old, t_new, xtol=1e-14 * max(1.0, abs(t_new)))
                    t_events[i].append(te)
                    y_events[i].append(dense(te))
                    if getattr(ev, "terminal", False):
                        t_stop_here = te if t_stop_here is None else min(t_stop_here, te)
                g_old[i] = g_new
            t_cut = t_new if t_stop_here is None else t_stop_here
            if outputs is None:
                if t_stop_here is None:
                    ts.append(t_new)
                    ys.append(solver.y.copy())
                    works.append(getattr(solver, "work", 0.0))
            else:
                while k_out < len(outputs) and outputs[k_out] <= t_cut * (1 + 1e-15) + 1e-300:
                    dense = dense or solver.dense_output()
                    ti = outputs[k_out]
                    ts.append(ti)
                    ys.append(solver.y.copy() if ti == t_new else dense(ti))
                    if record_work:
                        a = (ti - t_old) / (t_new - t_old)
                        works.append((1 - a) * work_old + a * solver.work)
                    k_out += 1
            if t_stop_here is not None:
                dense = dense or solver.dense_output()
                if not ts or ts[-1] < t_stop_here:
                    ts.append(t_stop_here)
                    ys.append(dense(t_stop_here))
                    if record_work:
                        a = (t_stop_here - t_old) / (t_new - t_old)
                        works.append((1 - a) * work_old + a * solver.work)
                terminated = True
            for cb in callbacks:
                cb(solver)
            if bar is not None:
                bar.update(t_new - t_old)
            if terminated:
                break
            if t_new >= solver.t_bound:
                if stop_index == len(stops) - 1:
                    break
                stop_index += 1
    finally:
        if bar is not None:
            bar.close()
    solver.status = "finished"
    wall = time.perf_counter() - tic
    res = Result(np.array(ts), np.array(ys), solver.dae, name, {**solver.stats(), "wall_time": wall},
                 message="terminated by an event" if terminated else "success")
    res.work = np.array(works) if record_work else None
    if events:
        res.t_events = [np.array(t) for t in t_events]
        res.y_events = [np.array(y) for y in y_events]
    return res

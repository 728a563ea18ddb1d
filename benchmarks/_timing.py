"""The timing of a phmech run shared by the benchmarks against peers."""
import time


def timed_midpoint(dae, y0, t_end, dt):
    """``(result, CPU per step, wall per step)`` of the midpoint rule from ``y0`` over ``(0, t_end)``
    at the step ``dt``, after two steps that load the kernels and warm the caches (not timed)."""
    from phmech.solvers import solve
    solve(dae, (0.0, 2 * dt), y0, method="midpoint", dt=dt)
    cpu, wall = time.process_time(), time.perf_counter()
    res = solve(dae, (0.0, t_end), y0, method="midpoint", dt=dt)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    n = res.stats["nsteps"]
    return res, cpu / n, wall / n

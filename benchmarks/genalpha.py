"""Time per step of the first-order generalized-alpha method: compiled Newton iteration
(:mod:`phmech.solvers.genalpha_kernels`) against the Python iteration (``compiled=False``).

The flexible crank-slider of :mod:`phmech.validation.crank_slider` with the
linear floating frame, 4 and 8 coupler elements.  Each line: model,
unknowns, steps, microseconds per step of both paths (best of ``--repeat``
runs, after one warm-up run that loads or compiles the kernels), their ratio,
and the largest difference of the final states relative to the largest state
(the two paths do the same iterations; see tests/solvers/test_compiled_genalpha.py).

    python benchmarks/genalpha.py [--t-end 0.05] [--dt 1e-4] [--repeat 3]
"""
import argparse
import os
import time

import numpy as np


def best(fn, repeat):
    """Smallest wall time of ``repeat`` calls of ``fn`` and the last result."""
    times, out = [], None
    for _ in range(repeat):
        tic = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - tic)
    return min(times), out


def measure(n_elem, t_end, dt, repeat, rho_inf):
    from phmech.solvers import solve
    from phmech.solvers.genalpha import GeneralizedAlpha
    from phmech.mechanisms import flexible_crank_slider

    dae = flexible_crank_slider(n_elem, geometric_stiffness=False)[0].assemble()
    y0 = dae.initial_state()
    if GeneralizedAlpha(dae, 0.0, y0, t_end, dt=dt)._kernel is None:
        raise RuntimeError("the compiled iteration is not available for this model (numba missing?)")
    row = {}
    for compiled in (True, False):
        run = lambda: solve(dae, (0.0, t_end), y0, method="genalpha", dt=dt, rho_inf=rho_inf,  # noqa: E731
                            compiled=compiled, dt_out=t_end)
        run()                                                            # warm-up: kernels loaded/compiled
        t, res = best(run, repeat)
        row[compiled] = (t / res.stats["nsteps"], res)
    (tc, a), (tp, b) = row[True], row[False]
    same = all(a.stats[k] == b.stats[k] for k in ("nsteps", "nfev", "nlu"))
    diff = np.max(np.abs(a.y[-1] - b.y[-1])) / np.max(np.abs(b.y[-1]))
    print(f"{f'crank-slider, {n_elem} elements':28s} {dae.n:5d} {a.stats['nsteps']:6d} {1e6 * tc:12.1f} "
          f"{1e6 * tp:12.1f} {tp / tc:7.1f} {'yes' if same else 'NO':>5s} {diff:10.1e}", flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--t-end", type=float, default=0.05)
    p.add_argument("--dt", type=float, default=1e-4)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--rho-inf", type=float, default=0.9)
    p.add_argument("--n-elem", type=int, nargs="+", default=[4, 8])
    args = p.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}; "
          f"best of {args.repeat}, dt = {args.dt:g}, t_end = {args.t_end:g}, rho_inf = {args.rho_inf:g}")
    print(f"{'model':28s} {'n':>5s} {'steps':>6s} {'compiled [us]':>12s} {'python [us]':>12s} {'ratio':>7s} "
          f"{'same':>5s} {'max diff':>10s}")
    for n_elem in args.n_elem:
        measure(n_elem, args.t_end, args.dt, args.repeat, args.rho_inf)


if __name__ == "__main__":
    main()

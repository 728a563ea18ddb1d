"""Radau IIA on assembled systems: the compiled step pieces against the Python iteration.

Both runs in the same process on the same model and tolerances; each line:
model, unknowns, steps, wall time of the compiled and of the Python run
(best of ``--repeat``), their ratio, and the largest difference of the two
solutions at common output times relative to each component's peak (both
take the same steps; the difference is round-off).  The compiled kernels
are compiled (or loaded from numba's cache) by a short warm-up run first.

    python benchmarks/radau_compiled.py [--repeat 3]
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def models():
    from phmech.mechanisms import flexible_crank_slider, hinged_spatial_beam
    from tests.mechanisms import rigid_crank_slider
    return [("rigid crank-slider", lambda: rigid_crank_slider()[0], 0.2),
            ("floating-frame crank-slider (4 el.)", lambda: flexible_crank_slider(4, geometric_stiffness=False)[0],
             0.02),
            ("hinged spatial beam (2 el.)", lambda: hinged_spatial_beam(2)[0], 0.5)]


def run(build, t_end, compiled, repeat, rtol=1e-6):
    best, res = np.inf, None
    t_eval = np.linspace(0.0, t_end, 51)
    for _ in range(repeat):
        s = build()
        tic = time.perf_counter()
        res = s.simulate(t_end, solver="radau", rtol=rtol, atol=rtol, compiled=compiled, t_eval=t_eval)
        best = min(best, time.perf_counter() - tic)
    return best, res


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    print(f"{'model':38s} {'n':>4s} {'steps':>6s} {'compiled [s]':>12s} {'python [s]':>11s} {'ratio':>6s} "
          f"{'max diff':>9s}")
    for label, build, t_end in models():
        run(build, t_end / 20, True, 1)                         # compile / load the kernels
        tc, a = run(build, t_end, True, args.repeat)
        tp, b = run(build, t_end, False, args.repeat)
        assert a.stats["nsteps"] == b.stats["nsteps"], (a.stats, b.stats)
        peak = np.maximum(np.max(np.abs(b.y), axis=0), 1e-6 * np.max(np.abs(b.y)))
        diff = np.max(np.abs(a.y - b.y) / peak)
        print(f"{label:38s} {b.y.shape[1]:4d} {b.stats['nsteps']:6d} {tc:12.4f} {tp:11.4f} {tp / tc:6.2f} "
              f"{diff:9.1e}", flush=True)


if __name__ == "__main__":
    main()

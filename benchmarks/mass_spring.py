"""Time per generalized-alpha step of mass-spring networks from 10 to 10^4 masses.

Two families: a planar square lattice with cross bracing (2D) and a
hanging net (3D, a square grid of masses with springs along the grid lines
and diagonals, held at two corners, under gravity); step 0.01 s, so
``omega h ~ 1`` for the stiffest springs.  Prints a table of the time per
step (after a first call that checks and assembles the model) with the
default solver settings and with a fresh LU factorization in every step,
the log-log slopes of time against
the number of masses, and the peak memory of the 10^4-mass 3D run
(tracemalloc, Python allocations incl. numpy arrays; the SuperLU factors
live outside and are reported by the resident set size ``ru_maxrss``).

    python benchmarks/mass_spring.py [--max-masses 10000] [--steps 5]
"""
import argparse
import resource
import time
import tracemalloc

import numpy as np

from phmech import massspring as ms
from phmech.solvers.genalpha import REUSE_MIN


def lattice(n, dim, k=1000.0, m=0.1):
    """``n x n`` grid (spacing 1) with springs along rows, columns and both diagonals.

    2D: clamped along the left edge, gravity -y.  3D: a net in the x-y plane
    held at two corners, gravity -z."""
    mss = ms.MassSpringSystem(dim)
    mss.gravity = [0, -9.81] if dim == 2 else [0, 0, -9.81]
    h = {}
    for i in range(n):
        for j in range(n):
            p = [float(i), float(j)] + ([0.0] if dim == 3 else [])
            fixed = (i == 0) if dim == 2 else (i, j) in ((0, 0), (0, n - 1))
            h[i, j] = mss.add(ms.Fix(p) if fixed else ms.Mass(m, p))
    s2 = np.sqrt(2.0)
    for i in range(n):
        for j in range(n):
            for di, dj, L in ((1, 0, 1.0), (0, 1, 1.0), (1, 1, s2), (1, -1, s2)):
                a, b = (i, j), (i + di, j + dj)
                if b in h and not (h[a].kind == "fix" and h[b].kind == "fix"):
                    mss.add(ms.Spring(L, k, [h[a], h[b]]))
    return mss


def time_per_step(mss, steps, dt=1e-2, **options):
    """Seconds per step and LU factorizations per step (omega h ~ 1 for the stiffest springs)."""
    mss.simulate(dt, 1, **options)           # checks, assembly of the patterns
    tic = time.perf_counter()
    res = mss.simulate(steps * dt, steps, **options)
    return (time.perf_counter() - tic) / steps, res.stats["nlu"] / steps


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--max-masses", type=int, default=10000)
    p.add_argument("--steps", type=int, default=10)
    args = p.parse_args(argv)
    sides = [s for s in (4, 8, 16, 32, 64, 101) if s * s <= args.max_masses * 1.05]
    print(f"{'case':>6} {'masses':>8} {'springs':>8} {'s/step':>10} {'LU/step':>8} {'s/step fresh LU':>16}")
    slopes = {}
    for dim in (2, 3):
        N, T, T1 = [], [], []
        for n in sides:
            mss = lattice(n, dim)
            t, nlu = time_per_step(mss, args.steps)
            t1, _ = time_per_step(mss, args.steps, reuse_jacobian=False)
            N.append(len(mss.masses))
            T.append(t)
            T1.append(t1)
            print(f"{dim}D{'':>4} {len(mss.masses):>8} {len(mss.springs):>8} {t:>10.4g} {nlu:>8.2f} {t1:>16.4g}",
                  flush=True)
        big = [k for k, x in enumerate(N) if x >= 100]
        logN = np.log(np.array(N)[big])
        slopes[dim] = (np.polyfit(logN, np.log(np.array(T)[big]), 1)[0],
                       np.polyfit(logN, np.log(np.array(T1)[big]), 1)[0])
        print(f"{dim}D: log-log slope of time per step vs masses (>= 100 masses): {slopes[dim][0]:.2f} "
              f"(default; the iteration matrix is kept over steps above {REUSE_MIN} unknowns), "
              f"{slopes[dim][1]:.2f} (fresh LU every step)")
    n = sides[-1]
    tracemalloc.start()
    mss = lattice(n, 3)
    mss.simulate(2e-2, 2)
    cur, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"3D net with {len(mss.masses)} masses, {len(mss.springs)} springs: peak traced memory "
          f"{peak / 2 ** 20:.1f} MiB, max resident set {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    return slopes


if __name__ == "__main__":
    main()

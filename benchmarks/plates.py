"""Cost of the Kirchhoff plate versus its number of unknowns (serial).

For square cantilever plates (k = 2) from about 1e3 to 1e5 unknowns:
assembly time (Firedrake forms to scipy), time of the first six modes
(condensed shift-invert) and time per step of the midpoint rule (a
:class:`~phmech.problem.DAEProblem` of the plate with a pressure load),
with the log-log slope of each cost against the number of unknowns.

    python benchmarks/plates.py [--max-n 128] [--steps 20]
"""
import argparse
import sys
import time

import numpy as np


def measure(n, degree=2, steps=20):
    import firedrake as fd
    import scipy.sparse as sp

    from phmech.fem import KirchhoffPlate
    from phmech.problem import DAEProblem
    from phmech.solvers import solve

    mesh = fd.UnitSquareMesh(n, n)
    tic = time.perf_counter()
    p = KirchhoffPlate("p", mesh, 0.01, 2700.0, 70e9, 0.3, degree=degree, boundary={1: "clamped"})
    t_asm = time.perf_counter() - tic
    tic = time.perf_counter()
    p.natural_frequencies(6)
    t_eig = time.perf_counter() - tic
    b = p.load_vector(lambda x: 1e3 + 0 * x[0])
    prob = DAEProblem(p.M, lambda t, y: p.J0 @ y + b, jac=lambda t, y: sp.csr_matrix(p.J0))
    dt = 1e-5
    tic = time.perf_counter()
    solve(prob, (0.0, steps * dt), np.zeros(p.ne), method="midpoint", dt=dt)
    t_step = (time.perf_counter() - tic) / steps
    return p.ne, t_asm, t_eig, t_step


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-n", type=int, default=128, help="largest number of cells per side")
    ap.add_argument("--steps", type=int, default=20, help="midpoint steps timed")
    args = ap.parse_args(argv)
    sys.argv[1:] = []                            # PETSc reads the command line too
    sizes = [n for n in (8, 16, 32, 64, 128, 256) if n <= args.max_n]
    measure(4)                                   # compile the forms once
    rows = [measure(n, steps=args.steps) for n in sizes]
    print(f"{'cells/side':>10} {'unknowns':>9} {'assembly s':>11} {'6 modes s':>10} {'step ms':>9}")
    for n, (ne, ta, te, ts) in zip(sizes, rows):
        print(f"{n:10d} {ne:9d} {ta:11.3f} {te:10.3f} {1e3 * ts:9.3f}")
    a = np.array(rows)
    for j, name in ((1, "assembly"), (2, "eigen (6 modes)"), (3, "midpoint step")):
        slope = np.polyfit(np.log(a[-3:, 0]), np.log(a[-3:, j]), 1)[0]
        print(f"log-log slope of {name} time vs unknowns (3 largest): {slope:.2f}")


if __name__ == "__main__":
    main()

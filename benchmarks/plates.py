"""Cost of the Kirchhoff plate versus its number of unknowns: scipy (serial) and PETSc (1 and 2 ranks).

Square cantilever plates (k = 2) of about 1e3 to 1e5 unknowns.  For each
mesh and path:

* ``assembly``: forms to matrices with the strong conditions removed
  (:class:`phmech.fem.KirchhoffPlate`, or :func:`phmech.parallel.kirchhoff_plate`);
* ``6 modes``: the first six frequencies, shift-invert on the condensed
  pencil (:func:`phmech.fem.condensed.condensed_modes` with SuperLU and ARPACK,
  or :func:`phmech.solvers.eigen_slepc.condensed_modes_slepc` with MUMPS and
  SLEPc);
* ``factor`` and ``step``: the midpoint rule with a pressure load, the
  factorization of ``E - dt/2 J`` and the time of one step (the scipy path
  runs :func:`phmech.solvers.solve` on a :class:`~phmech.solvers.problem.DAEProblem`,
  whose one Newton iteration of a linear model costs a residual, a solve
  and a convergence check, its ``factor`` column the whole one-step run;
  the PETSc path :class:`phmech.parallel.LinearMidpoint`, one product and
  one solve).  Step times are the best of three runs.

``factor nnz`` is the number of entries of MUMPS's ``L D L^T`` factor of
the step matrix (INFOG(29)): a triangular solve streams it once, so the
step time follows it.  Times under MPI are the largest over the ranks.  The 2-rank column is
measured by this script started again under ``mpiexec -n 2``.  The log-log
slope of each cost against the number of unknowns is fitted over the three
largest meshes.

    python benchmarks/plates.py [--sizes 8 16 32 56 80] [--steps 20] [--no-scipy] [--ranks 2]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

KEYS = ("assembly", "modes", "factor", "step", "nnz_factor")
#: step timings: the best of this many runs (the machine may be shared)
REPEATS = 3


def _timer(comm):
    comm.barrier()
    return time.perf_counter()


def _elapsed(comm, tic):
    return comm.tompi4py().allreduce(time.perf_counter() - tic, op=__import__("mpi4py").MPI.MAX)


def measure_petsc(n, steps, modes=True):
    """One mesh on the processes of ``COMM_WORLD`` (PETSc matrices, MUMPS, SLEPc)."""
    import firedrake as fd
    from petsc4py import PETSc

    from phmech.parallel import LinearMidpoint, kirchhoff_plate
    from phmech.solvers.eigen_slepc import have_slepc
    comm = PETSc.COMM_WORLD
    mesh = fd.UnitSquareMesh(n, n)
    tic = _timer(comm)
    p = kirchhoff_plate(mesh, 0.01, 2700.0, 70e9, 0.3, degree=2, boundary={1: "clamped"})
    row = {"n": n, "unknowns": p.ne, "assembly": _elapsed(comm, tic)}
    if modes and have_slepc():
        tic = _timer(comm)
        row["omega1"] = float(p.natural_frequencies(6)[0][0])
        row["modes"] = _elapsed(comm, tic)
    b = p.load_vector(lambda x: 1e3 + 0 * x[0])
    tic = _timer(comm)
    stepper = LinearMidpoint(p.E, p.J, 1e-5, [b], stress=p.is_s)
    row["factor"] = _elapsed(comm, tic)
    row["nnz_factor"] = float(stepper.ksp.getPC().getFactorMatrix().getMumpsInfog(29))
    e = p.vector()
    stepper.run(e, 0.0, 2, lambda t: 1.0, energy=False)          # first solves allocate MUMPS work space
    best = np.inf
    for _ in range(REPEATS):
        tic = _timer(comm)
        stepper.run(e, 0.0, steps, lambda t: 1.0, energy=False)
        best = min(best, _elapsed(comm, tic) / steps)
    row["step"] = best
    return row


def measure_scipy(n, steps):
    """One mesh with the serial scipy plate and the phmech midpoint solver."""
    import firedrake as fd
    import scipy.sparse as sp

    from phmech.fem import KirchhoffPlate
    from phmech.solvers.problem import DAEProblem
    from phmech.solvers import solve

    mesh = fd.UnitSquareMesh(n, n)
    tic = time.perf_counter()
    p = KirchhoffPlate("p", mesh, 0.01, 2700.0, 70e9, 0.3, degree=2, boundary={1: "clamped"})
    row = {"n": n, "unknowns": p.ne, "assembly": time.perf_counter() - tic}
    tic = time.perf_counter()
    row["omega1"] = float(p.natural_frequencies(6)[0][0])
    row["modes"] = time.perf_counter() - tic
    b = p.load_vector(lambda x: 1e3 + 0 * x[0])
    J = sp.csr_matrix(p.J0)
    prob = DAEProblem(p.M, lambda t, y: J @ y + b, jac=lambda t, y: J)
    dt = 1e-5

    def run(nsteps):
        best = np.inf
        for _ in range(REPEATS):
            tic = time.perf_counter()
            solve(prob, (0.0, nsteps * dt), np.zeros(p.ne), method="midpoint", dt=dt)
            best = min(best, time.perf_counter() - tic)
        return best

    one = run(1)                                   # set-up, factorization and one step
    row["factor"] = one
    row["step"] = (run(steps + 1) - one) / steps
    return row


def worker(sizes, steps, path):
    """The PETSc measurements on ``COMM_WORLD`` (run under mpiexec); rank 0 writes JSON."""
    from petsc4py import PETSc
    measure_petsc(4, 2)                                  # compile the forms once
    rows = [measure_petsc(n, steps) for n in sizes]
    if PETSc.COMM_WORLD.getRank() == 0:
        with open(path, "w") as fh:
            json.dump(rows, fh)


def slopes(rows):
    """Log-log slopes of each cost against the unknowns over the three largest meshes."""
    a = rows[-3:]
    x = np.log([r["unknowns"] for r in a])
    return {k: float(np.polyfit(x, np.log([r[k] for r in a]), 1)[0]) for k in KEYS if all(k in r for r in a)}


def table(name, rows):
    lines = [f"{name}",
             f"{'cells/side':>10} {'unknowns':>9} {'assembly s':>11} {'6 modes s':>10} {'factor s':>9} "
             f"{'step ms':>9} {'factor nnz':>11}"]
    for r in rows:
        lines.append(f"{r['n']:10d} {r['unknowns']:9d} {r['assembly']:11.3f} {r.get('modes', np.nan):10.3f} "
                     f"{r['factor']:9.3f} {1e3 * r['step']:9.3f} {r.get('nnz_factor', np.nan):11.4g}")
    s = slopes(rows)
    lines.append("log-log slope vs unknowns (3 largest): " + ", ".join(f"{k} {v:.2f}" for k, v in s.items()))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[8, 16, 32, 56, 80], help="cells per side")
    ap.add_argument("--steps", type=int, default=20, help="midpoint steps timed")
    ap.add_argument("--ranks", type=int, nargs="*", default=[2], help="MPI runs besides the serial one")
    ap.add_argument("--no-scipy", action="store_true", help="skip the serial scipy path")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--json", default=None, help="write all rows to this JSON file")
    args = ap.parse_args(argv)
    sys.argv[1:] = []                            # PETSc reads the command line too
    if args.worker:
        worker(args.sizes, args.steps, args.worker)
        return
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for nr in [1] + list(args.ranks):
            path = os.path.join(tmp, f"petsc{nr}.json")
            cmd = ([sys.executable] if nr == 1 else ["mpiexec", "-n", str(nr), "--oversubscribe", sys.executable])
            cmd += [os.path.abspath(__file__), "--worker", path, "--steps", str(args.steps),
                    "--sizes", *map(str, args.sizes)]
            subprocess.run(cmd, check=True)
            with open(path) as fh:
                results[f"petsc, {nr} rank{'s' if nr > 1 else ''}"] = json.load(fh)
    if not args.no_scipy:
        measure_scipy(4, 2)
        results["scipy (serial)"] = [measure_scipy(n, args.steps) for n in args.sizes]
    for name, rows in results.items():
        print(table(name, rows))
        print()
    base = results["petsc, 1 rank"]
    for name, rows in results.items():
        if name == "petsc, 1 rank" or not all("omega1" in r for r in rows + base):
            continue
        w = np.array([r["omega1"] for r in rows])
        w0 = np.array([r["omega1"] for r in base])
        speed = " ".join(f"{b['step'] / r['step']:.2f}" for b, r in zip(base, rows))
        print(f"{name}: first frequency vs petsc 1 rank, largest relative difference "
              f"{np.max(np.abs(w / w0 - 1)):.1e}; step time ratio (1 rank / this) per mesh: {speed}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()

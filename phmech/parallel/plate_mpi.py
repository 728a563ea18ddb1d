"""Plate modes and a forced plate run on distributed matrices (run it under ``mpiexec``).

The same problems on any number of processes: the first modes of a
Kirchhoff cantilever (k = 2) and of a simply supported Mindlin plate
(SLEPc + MUMPS), and a midpoint run of the Kirchhoff cantilever driven by
a pressure and a patch force, with its Hamiltonian, supplied work and the
vertical velocity at a few points.  Rank 0 writes ``summary.json``; the
serial references (the scipy plates of :mod:`phmech.fem` and
:class:`phmech.System`) are :func:`reference_modes` and
:func:`reference_run`.

    mpiexec -n 2 python -m phmech.parallel.plate_mpi --outdir out/plate_mpi
"""
import argparse
import json
import logging
import os
import time

import numpy as np

log = logging.getLogger("phmech")

H_PLATE, RHO, E_MOD, NU = 0.05, 2700.0, 70e9, 0.3
CANTILEVER = {1: "clamped"}
SS_ALL = {1: "simply_supported", 2: "simply_supported", 3: "simply_supported", 4: "simply_supported"}
PATCH = ((0.9, 0.3), 0.1)
POINTS = ((0.9, 0.3), (0.5, 0.5), (1.0, 1.0))


def pressure(x):
    """The pressure shape [Pa] of the forced run."""
    return 1e4 * (x[1] + 10 * (x[1] - 0.5) ** 2)


def inputs(t):
    """Input values at ``t``: pressure factor (a step of 1 ms) and patch force [N]."""
    return np.array([float(t < 1e-3), 1e3 * np.sin(2e3 * t)])


def mesh(n):
    import firedrake as fd
    return fd.UnitSquareMesh(n, n)


def run(n=6, k_modes=6, steps=100, dt=2e-5, mindlin=True):
    """Modes and the forced run on the processes of ``COMM_WORLD``; returns a dict (same on all ranks).

    ``k_modes = 0`` skips the modes (no SLEPc needed).
    """
    from petsc4py import PETSc

    from .midpoint import LinearMidpoint
    from .plates import kirchhoff_plate, mindlin_plate
    comm = PETSc.COMM_WORLD
    out = {"ranks": comm.getSize(), "n": n}
    tic = time.perf_counter()
    p = kirchhoff_plate(mesh(n), H_PLATE, RHO, E_MOD, NU, degree=2, boundary=CANTILEVER)
    out["kirchhoff_unknowns"] = p.ne
    out["rows_per_rank"] = comm.tompi4py().allgather(p.E.getLocalSize()[0])
    if k_modes:
        out["kirchhoff_omega"] = p.natural_frequencies(k_modes)[0].tolist()
    if mindlin and k_modes:
        m = mindlin_plate(mesh(n), 0.01, RHO, E_MOD, NU, degree=2, boundary=SS_ALL)
        out["mindlin_unknowns"] = m.ne
        out["mindlin_omega"] = m.natural_frequencies(k_modes)[0].tolist()
    b = [p.load_vector(pressure), p.patch_row(*PATCH)]
    stepper = LinearMidpoint(p.E, p.J, dt, b, stress=p.is_s)
    r = stepper.run(p.vector(), 0.0, steps, inputs)
    out.update(t=r.t.tolist(), H=r.H.tolist(), work=r.work.tolist(), y=r.y.tolist(),
               balance_rel=float(np.max(np.abs(r.balance())) / np.max(r.H)),
               v_points=p.velocity_at(r.e, POINTS).tolist(), seconds=time.perf_counter() - tic)
    return out


def reference_modes(n=6, k_modes=6, mindlin=True):
    """The serial scipy frequencies of the same plates (:func:`phmech.fem.plate.condensed_modes`)."""
    from ..fem import KirchhoffPlate, MindlinPlate
    out = {"kirchhoff_omega": KirchhoffPlate("p", mesh(n), H_PLATE, RHO, E_MOD, NU, degree=2,
                                             boundary=CANTILEVER).natural_frequencies(k_modes)[0]}
    if mindlin:
        out["mindlin_omega"] = MindlinPlate("p", mesh(n), 0.01, RHO, E_MOD, NU, degree=2,
                                            boundary=SS_ALL).natural_frequencies(k_modes)[0]
    return out


def reference_run(n=6, steps=100, dt=2e-5):
    """The forced run with :class:`phmech.System` (serial midpoint solver): ``(t, H, v_points, result)``."""
    import firedrake as fd

    from .. import System
    from ..fem import KirchhoffPlate, PlateLoad
    p = KirchhoffPlate("p", mesh(n), H_PLATE, RHO, E_MOD, NU, degree=2, boundary=CANTILEVER)
    port = p.add_patch_port("patch", *PATCH)
    s = System([p])
    s.apply_force(port, lambda t: (0.0, 0.0, inputs(t)[1]), frame="body")
    s.add_load(PlateLoad(p, p.load_vector(pressure), lambda t: inputs(t)[0]))
    r = s.simulate(steps * dt, solver="midpoint", dt=dt)
    f = p.deflection_function(r.e(p)[-1])       # the full effort vector, velocity part on CG_k
    v = np.asarray(fd.PointEvaluator(p.mesh, np.array(POINTS), tolerance=1e-10).evaluate(f))
    return r.t, r.hamiltonian(), v, r


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=6, help="cells per side of the unit square")
    ap.add_argument("--modes", type=int, default=6, help="number of modes")
    ap.add_argument("--steps", type=int, default=100, help="midpoint steps")
    ap.add_argument("--dt", type=float, default=2e-5, help="step size [s]")
    ap.add_argument("--no-mindlin", action="store_true", help="skip the Mindlin plate")
    ap.add_argument("--outdir", default="out/plate_mpi", help="directory of summary.json")
    args = ap.parse_args(argv)
    from petsc4py import PETSc
    out = run(args.n, args.modes, args.steps, args.dt, mindlin=not args.no_mindlin)
    if PETSc.COMM_WORLD.getRank() == 0:
        os.makedirs(args.outdir, exist_ok=True)
        with open(os.path.join(args.outdir, "summary.json"), "w") as fh:
            json.dump(out, fh, indent=1)
        log.info("plate_mpi: %d ranks, %.2f s, summary in %s", out["ranks"], out["seconds"], args.outdir)


if __name__ == "__main__":
    main()

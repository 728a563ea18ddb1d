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
import logging
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


def _count(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"plate_mpi: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_arguments(n, k_modes, steps, dt, ranks=1, max_dofs=None):
    """Refuse bad arguments of :func:`run` before anything is built: one error naming each, and
    a mesh too large for the processes (:mod:`phmech.fem.plate_size`, per process)."""
    from ..fem import plate_size

    problems = []
    for name, value, minimum in (("n", n, 1), ("k_modes", k_modes, 0), ("steps", steps, 0)):
        try:
            _count(name, value, minimum)
        except ValueError as err:
            problems.append(str(err).split(": ", 1)[1])
    if isinstance(dt, bool) or not isinstance(dt, (int, float, np.integer, np.floating)) or not (
            np.isfinite(dt) and dt > 0):
        problems.append(f"dt must be a positive finite step [s], got {dt!r}")
    if problems:
        raise ValueError("plate_mpi: " + "; ".join(problems))
    limit = plate_size.limit("plate", max_dofs)
    plate_size.check("plate", "KirchhoffPlate", plate_size.square_counts(n, n), 2, limit, processes=ranks)


def balance_summary(balance, H):
    """``{"balance_rel": ...}``: the largest power-balance residual relative to the largest
    Hamiltonian, or None with the reason where that ratio is undefined (no energy in the run)."""
    H = np.asarray(H, float)
    balance = np.asarray(balance, float)
    scale = float(np.max(np.abs(H))) if H.size else 0.0
    if not (scale > 0 and np.isfinite(scale)) or not np.all(np.isfinite(balance)):
        why = ("the Hamiltonian is zero over the whole run (no steps or no input): no scale for the "
               "power balance") if np.all(np.isfinite(balance)) else "the power balance is not finite"
        return {"balance_rel": None, "balance_rel_note": why,
                "balance_abs": float(np.max(np.abs(balance))) if balance.size and np.all(np.isfinite(balance))
                else None}
    return {"balance_rel": float(np.max(np.abs(balance))) / scale}


def run(n=6, k_modes=6, steps=100, dt=2e-5, mindlin=True, max_dofs=None):
    """Modes and the forced run on the processes of ``COMM_WORLD``; returns a dict (same on all ranks).

    ``k_modes = 0`` skips the modes (no SLEPc needed); ``steps = 0`` gives the initial state
    only.  ``max_dofs`` limits the plate's unknowns per process (:mod:`phmech.fem.plate_size`).
    """
    from petsc4py import PETSc

    from .midpoint import LinearMidpoint
    from .plates import kirchhoff_plate, mindlin_plate
    comm = PETSc.COMM_WORLD
    check_arguments(n, k_modes, steps, dt, comm.getSize(), max_dofs)
    out = {"ranks": comm.getSize(), "n": n}
    tic = time.perf_counter()
    p = kirchhoff_plate(mesh(n), H_PLATE, RHO, E_MOD, NU, degree=2, boundary=CANTILEVER, max_dofs=max_dofs)
    out["kirchhoff_unknowns"] = p.ne
    out["rows_per_rank"] = comm.tompi4py().allgather(p.E.getLocalSize()[0])
    if k_modes:
        out["kirchhoff_omega"] = p.natural_frequencies(k_modes)[0].tolist()
    if mindlin and k_modes:
        m = mindlin_plate(mesh(n), 0.01, RHO, E_MOD, NU, degree=2, boundary=SS_ALL, max_dofs=max_dofs)
        out["mindlin_unknowns"] = m.ne
        out["mindlin_omega"] = m.natural_frequencies(k_modes)[0].tolist()
    b = [p.load_vector(pressure), p.patch_row(*PATCH)]
    stepper = LinearMidpoint(p.E, p.J, dt, b, stress=p.is_s)
    r = stepper.run(p.vector(), 0.0, steps, inputs)
    out.update(t=r.t.tolist(), H=r.H.tolist(), work=r.work.tolist(), y=r.y.tolist(),
               **balance_summary(r.balance(), r.H),
               v_points=p.velocity_at(r.e, POINTS).tolist(), seconds=time.perf_counter() - tic)
    return out


def reference_modes(n=6, k_modes=6, mindlin=True):
    """The serial scipy frequencies of the same plates (:func:`phmech.fem.condensed.condensed_modes`)."""
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
    from ..validation import _common

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=_common.positive_int, default=6, help="cells per side of the unit square")
    ap.add_argument("--modes", type=_common.non_negative_int, default=6, help="number of modes (0: none)")
    ap.add_argument("--steps", type=_common.non_negative_int, default=100, help="midpoint steps (0: initial state)")
    ap.add_argument("--dt", type=_common.positive_float, default=2e-5, help="step size [s]")
    ap.add_argument("--max-dofs", type=_common.positive_int, default=None,
                    help="largest plate unknowns per process (default: $PHMECH_PLATE_MAX_DOFS or 1,000,000)")
    ap.add_argument("--no-mindlin", action="store_true", help="skip the Mindlin plate")
    ap.add_argument("--outdir", default="out/plate_mpi", help="directory of summary.json")
    args = ap.parse_args(argv)
    from petsc4py import PETSc
    rank = PETSc.COMM_WORLD.getRank()
    _common.prepare_outdir(args.outdir, ap)          # on every rank: all of them stop on a bad one
    try:
        check_arguments(args.n, args.modes, args.steps, args.dt, PETSc.COMM_WORLD.getSize(), args.max_dofs)
    except ValueError as err:
        ap.error(str(err))
    out = run(args.n, args.modes, args.steps, args.dt, mindlin=not args.no_mindlin, max_dofs=args.max_dofs)
    if rank == 0:
        _common.write_summary(args.outdir, "plate_mpi", out)     # refuses NaN and inf
        log.info("plate_mpi: %d ranks, %.2f s, summary in %s", out["ranks"], out["seconds"], args.outdir)


if __name__ == "__main__":
    main()

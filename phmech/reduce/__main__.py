"""Offline reduction from the command line, on one process or under MPI.

    python -m phmech.reduce MODULE:FUNCTION --interface tip --modes 20 --out body.h5 [--param n=64]
    mpiexec -n 2 python -m phmech.reduce MODULE:FUNCTION --interface tip --modes 20 --out body.h5

``MODULE:FUNCTION`` builds the full body (e.g.
``phmech.validation.reduced_bodies:rod``) from the ``--param`` values (Python
literals, else text).  Under MPI every rank builds it on its own
communicator (the builder gets ``comm=MPI.COMM_SELF`` when it takes a
``comm`` argument; it must, with more than one rank), and the
factorizations and the eigen solve are distributed over the ranks
(:mod:`phmech.reduce.distributed`).  Rank 0 writes the reduced body
(:meth:`phmech.reduce.ReducedBody.save`) and prints the time and the peak
memory of each rank, which the file keeps in ``info["offline"]``.
"""
import argparse
import ast
import importlib
import inspect
import os
import resource
import sys
import time


def _builder(spec):
    module, _, name = spec.rpartition(":")
    if not module or not name.isidentifier():
        raise SystemExit(f"phmech.reduce: {spec!r} is not 'module:function' "
                         "(e.g. phmech.validation.reduced_bodies:rod)")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        fn = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as err:
        raise SystemExit(f"phmech.reduce: cannot load {spec!r} ({type(err).__name__}: {err})") from None
    if not callable(fn):
        raise SystemExit(f"phmech.reduce: {spec!r} is not callable")
    return fn


def _param(text):
    key, sep, value = text.partition("=")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"--param {text!r} is not name=value")
    try:
        return key, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return key, value


def parser():
    p = argparse.ArgumentParser(prog="python -m phmech.reduce", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("body", help="MODULE:FUNCTION building the full body")
    p.add_argument("--param", type=_param, action="append", default=[], metavar="NAME=VALUE",
                   help="an argument of the builder (repeat)")
    p.add_argument("--interface", nargs="+", default=[], help="interface ports (Craig-Bampton)")
    p.add_argument("--modes", type=int, required=True, help="number of normal modes")
    p.add_argument("--method", default="craig_bampton", choices=["craig_bampton", "modal", "modal_attachment"])
    p.add_argument("--frame", default="reference", choices=["reference", "mean_axis"],
                   help="the frame of the free-interface modes (--method modal; mean_axis on one process)")
    p.add_argument("--eigensolver", default="auto", choices=["auto", "slepc", "scipy"])
    p.add_argument("--name", default=None, help="name of the reduced body (default: the body's)")
    p.add_argument("--out", required=True, help="the reduced body's HDF5 file")
    return p


def _peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)
    if args.frame != "reference" and args.method != "modal":
        p.error(f"--frame {args.frame} needs --method modal, got --method {args.method}")
    from mpi4py import MPI

    from . import ReductionError, craig_bampton, modal_reduction
    size, rank = MPI.COMM_WORLD.Get_size(), MPI.COMM_WORLD.Get_rank()
    fn = _builder(args.body)
    kwargs = dict(args.param)
    if "comm" in inspect.signature(fn).parameters:
        kwargs["comm"] = MPI.COMM_SELF
    elif size > 1:
        raise SystemExit(f"phmech.reduce: {args.body} takes no comm argument; under MPI every rank builds the "
                         "body on its own communicator (comm=MPI.COMM_SELF)")
    sys.argv[1:] = []                   # PETSc (started by the builder's FE stack) reads the command line
    tic = time.perf_counter()
    body = fn(**kwargs)
    t_build = time.perf_counter() - tic
    from petsc4py import PETSc
    comm = PETSc.COMM_WORLD
    tic = time.perf_counter()
    try:
        if args.method == "craig_bampton":
            red = craig_bampton(body, args.interface, args.modes, name=args.name, eigensolver=args.eigensolver,
                                comm=comm)
        else:
            red = modal_reduction(body, args.modes, name=args.name, ports=args.interface or None,
                                  attachment=args.method == "modal_attachment", eigensolver=args.eigensolver,
                                  comm=comm, frame=args.frame)
    except ReductionError as err:
        raise SystemExit(f"phmech.reduce: {err}") from None
    t_reduce = time.perf_counter() - tic
    ranks = comm.tompi4py().gather({"rank": rank, "build_s": t_build, "reduce_s": t_reduce,
                                    "peak_memory_mb": _peak_mb()}, root=0)
    if rank == 0:
        red.info["offline"] = {"ranks": size, "per_rank": ranks, "n_full": int(body.ne)}
        red.save(args.out)
        print(f"{args.body}: {body.ne} unknowns -> {red.ne} ({args.method}, {args.modes} modes) on {size} "
              f"rank(s); wrote {args.out}")
        for r in ranks:
            print(f"  rank {r['rank']}: build {r['build_s']:.2f} s, reduce {r['reduce_s']:.2f} s, "
                  f"peak memory {r['peak_memory_mb']:.0f} MB")
        w = red.info.get("omega_fixed_interface") or red.info.get("omega_free") or []
        if w:
            print("  normal modes [rad/s]: " + ", ".join(f"{x:.8g}" for x in w[:8]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Assembly time and memory of a 3D elastic solid against its unknowns.

A bar ``1 x 0.1 x 0.1`` m of tetrahedra (``BoxMesh(10 m, m, m)``, velocity ``CG_2``, stress
symmetric ``DG_1``) is built as a floating :class:`phmech.fem.ElasticSolid` clamped to its frame
at ``x = 0`` (``PHMECH_CACHE=0``: every size assembled), each size in a fresh process: the wall
time of building the body (spaces, forms, assembly of ``M``, ``J``, the frame's inertia blocks
and the pH checks) and of assembling the system (``System.assemble``), and the increase of the
peak resident set size over the process after its imports.  Sizes run in increasing order and
the sweep stops after one that takes more than ``--max-seconds`` (a first, untimed run compiles
Firedrake's kernels of the forms); the log-log slopes of time and
memory against the unknowns are printed (1: linear growth).

    python benchmarks/solid_assembly.py                       # m = 1, 2, 4, 8 (1e3 to 2e5 unknowns)
    python benchmarks/solid_assembly.py --m 1 2 4 8 12 --json out/solid_assembly.json
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def _peak_mb():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def child(m):
    sys.argv[1:] = []
    import firedrake as fd
    import phmech.fem  # noqa: F401
    from phmech import System
    from phmech.fem import ElasticSolid
    base = _peak_mb()
    t0 = time.perf_counter()
    mesh = fd.BoxMesh(10 * m, m, m, 1.0, 0.1, 0.1)
    solid = ElasticSolid("bar", mesh, 7800.0, 2.1e11, 0.3, degree=2, floating=True, reference=("clamped", 1))
    t1 = time.perf_counter()
    mem1 = _peak_mb() - base
    System([solid]).assemble()
    t2 = time.perf_counter()
    print(json.dumps({"m": m, "cells": mesh.num_cells(), "unknowns": int(solid.ne), "build_s": t1 - t0,
                      "assemble_s": t2 - t1, "build_mb": mem1, "peak_mb": _peak_mb() - base}))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--m", type=int, nargs="+", default=[1, 2, 4, 8], help="cells across the section")
    p.add_argument("--max-seconds", type=float, default=600.0)
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)
    rows = []
    env = {**os.environ, "PHMECH_CACHE": "0"}
    # Firedrake compiles the forms' kernels once (tens of seconds cold): a first size, not timed
    subprocess.run([sys.executable, __file__, "--child", "1"], capture_output=True, text=True, env=env)
    for m in args.m:
        tic = time.perf_counter()
        out = subprocess.run([sys.executable, __file__, "--child", str(m)], capture_output=True, text=True, env=env)
        if out.returncode:
            print(f"m = {m}: failed\n{out.stderr[-2000:]}")
            break
        row = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(f"m = {m:2d}: {row['cells']:7d} cells, {row['unknowns']:8d} unknowns: body {row['build_s']:7.1f} s, "
              f"system {row['assemble_s']:6.1f} s, peak memory +{row['peak_mb']:7.0f} MB "
              f"({1e6 * row['peak_mb'] / row['unknowns']:.0f} bytes per unknown)")
        if time.perf_counter() - tic > args.max_seconds:
            break
    if len(rows) >= 2:
        n = np.log([r["unknowns"] for r in rows])
        for key in ("build_s", "peak_mb"):
            v = np.log([max(r[key], 1e-9) for r in rows])
            print(f"log-log slope of {key} against unknowns: {np.polyfit(n, v, 1)[0]:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(int(sys.argv[2]))
    else:
        main()

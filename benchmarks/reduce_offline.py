"""The offline reduction's time and memory against the body's unknowns and the MPI ranks.

The body: the steel cantilever bar of :func:`phmech.validation.reduced_bodies.solid` (``1 x 0.1 x 0.1``
m, ``5m x m x m`` boxes of six tetrahedra, CG2 velocity and DG1 symmetric stress, clamped at
``x = 0``, the face ``x = 1`` its interface port ``tip``), reduced by Craig--Bampton to
``--modes`` fixed-interface modes with ``python -m phmech.reduce`` (``--eigensolver slepc``, the
default here: SLEPc shift-invert with MUMPS for the modes, PETSc for the static modes, on one
rank too; ``scipy``: SuperLU and ARPACK, one rank), each size and rank count in a fresh process
(``mpiexec -n N`` for ``N > 1``; ``PHMECH_CACHE=0``: every body assembled).  Printed per run: the
unknowns, the build time (mesh, spaces, assembly, the pH checks), the reduction time and the
peak resident memory of each rank, the lowest fixed-interface frequency; then the log-log slopes
of the reduction time and the memory against the unknowns (one rank), and the parallel
efficiency ``t_1 / (N t_N)`` of each size run on several ranks.  A first size runs untimed
(Firedrake compiles the forms' kernels).

    python benchmarks/reduce_offline.py --m 2 4 6 8 --ranks 1 2
    python benchmarks/reduce_offline.py --m 11 --ranks 1              # about 1.1e6 unknowns (max_dofs 2e6)
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

BODY = "phmech.validation.reduced_bodies:solid"


def reduce_once(m, ranks, modes, out, eigensolver="slepc", max_dofs=2_000_000):
    """One reduction in its own process: a dict of what ``python -m phmech.reduce`` printed."""
    cmd = [sys.executable, "-m", "phmech.reduce", BODY, "--param", f"m={m}", "--param", f"max_dofs={max_dofs}",
           "--interface", "tip",
           "--modes", str(modes), "--eigensolver", eigensolver, "--out", out]
    if ranks > 1:
        cmd = ["mpiexec", "-n", str(ranks), "--oversubscribe"] + cmd
    env = {**os.environ, "PHMECH_CACHE": "0", "OMP_NUM_THREADS": "1", "OMPI_ALLOW_RUN_AS_ROOT": "1",
           "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    tic = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - tic
    if p.returncode != 0:
        raise SystemExit(f"reduce_offline: m = {m} on {ranks} rank(s) failed:\n{p.stderr[-2000:]}")
    head = re.search(r": (\d+) unknowns -> (\d+)", p.stdout)
    per_rank = [dict(rank=int(a), build_s=float(b), reduce_s=float(c), peak_mb=float(d)) for a, b, c, d in
                re.findall(r"rank (\d+): build ([\d.]+) s, reduce ([\d.]+) s, peak memory (\d+) MB", p.stdout)]
    w = re.search(r"normal modes \[rad/s\]: ([\d.e+-]+)", p.stdout)
    return {"m": m, "ranks": ranks, "unknowns": int(head.group(1)), "reduced": int(head.group(2)),
            "wall_s": wall, "build_s": max(r["build_s"] for r in per_rank),
            "reduce_s": max(r["reduce_s"] for r in per_rank), "peak_mb": [r["peak_mb"] for r in per_rank],
            "omega_1": float(w.group(1)) if w else None}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--m", type=int, nargs="+", default=[2, 4, 6, 8], help="cells across the section")
    p.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    p.add_argument("--modes", type=int, default=20)
    p.add_argument("--eigensolver", choices=["slepc", "scipy", "auto"], default="slepc",
                   help="the reduction's eigen solver (slepc: MUMPS factors, on every rank count)")
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)
    if any(n > 1 for n in args.ranks) and shutil.which("mpiexec") is None:
        raise SystemExit("reduce_offline: no mpiexec on the PATH")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "reduced.h5")
        reduce_once(1, 1, 2, out)                                   # Firedrake's kernels compiled, untimed
        print(f"{'m':>3} {'ranks':>5} {'unknowns':>9} {'build s':>8} {'reduce s':>9} {'peak MB/rank':>14} "
              f"{'omega_1':>10}")
        for m in args.m:
            for n in args.ranks:
                r = reduce_once(m, n, args.modes, out, args.eigensolver)
                rows.append(r)
                mem = "/".join(f"{x:.0f}" for x in r["peak_mb"])
                print(f"{m:>3} {n:>5} {r['unknowns']:>9} {r['build_s']:>8.1f} {r['reduce_s']:>9.1f} {mem:>14} "
                      f"{r['omega_1']:>10.4f}", flush=True)
    one = [r for r in rows if r["ranks"] == 1]
    if len(one) > 1:
        n = np.log([r["unknowns"] for r in one])
        for key, what in (("reduce_s", "reduction time"), ("peak_mb", "peak memory")):
            v = np.log([r[key] if key != "peak_mb" else max(r[key]) for r in one])
            print(f"slope of the {what} against the unknowns (one rank): {np.polyfit(n, v, 1)[0]:.2f}")
    for r in rows:
        if r["ranks"] > 1:
            base = next((b for b in one if b["m"] == r["m"]), None)
            if base is not None:
                print(f"m = {r['m']}: {r['ranks']} ranks reduce in {r['reduce_s']:.1f} s against {base['reduce_s']:.1f} s "
                      f"(efficiency {base['reduce_s'] / (r['ranks'] * r['reduce_s']):.2f}), peak memory per rank "
                      f"{max(r['peak_mb']):.0f} MB against {max(base['peak_mb']):.0f} MB")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

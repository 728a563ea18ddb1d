"""Set-up memory and time of the crank-slider versus the number of coupler elements.

For each size ``n_elem`` a fresh Python process builds the mechanism
(:func:`phmech.validation.crank_slider.build`), assembles the descriptor
DAE and computes consistent initial values, and reports the wall time of
each stage and the increase of its peak resident set size (``ru_maxrss``)
over the process after its imports, measured after each stage (so the
last column is the peak of the whole set-up).  Sizes run in increasing order and the
sweep stops after a size that takes more than ``--max-seconds`` or
``--max-gb``; a size exceeding ``--kill-gb`` while it runs is stopped.
The log-log slopes of memory and time versus ``n_elem`` are printed
(1 means linear growth).

    python benchmarks/setup_memory.py                     # 1e2, 1e3, 1e4, 1e5 elements
    python benchmarks/setup_memory.py --sizes 100 1000 --json out/setup_memory.json
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

STAGES = ("build", "assemble", "initial_state")


def _peak_mb():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0   # kB on Linux


def child(n_elem):
    """Run the three stages in this process and print one JSON line."""
    sys.argv[1:] = []                    # keep PETSc from reading our options
    import firedrake  # noqa: F401  (imported before the baseline is taken)
    import phmech.fem  # noqa: F401
    from phmech.mechanisms import flexible_crank_slider

    base = _peak_mb()
    out = {"n_elem": n_elem, "baseline_mb": base}
    tic = time.perf_counter()
    system, _ = flexible_crank_slider(n_elem)
    out["build_s"] = time.perf_counter() - tic
    out["build_mb"] = _peak_mb() - base
    tic = time.perf_counter()
    dae = system.assemble()
    out["assemble_s"] = time.perf_counter() - tic
    out["assemble_mb"] = _peak_mb() - base
    tic = time.perf_counter()
    y0 = dae.initial_state()
    out["initial_state_s"] = time.perf_counter() - tic
    out["initial_state_mb"] = _peak_mb() - base
    out["n_variables"] = int(dae.n)
    out["finite"] = bool(np.all(np.isfinite(y0)))
    print("RESULT " + json.dumps(out), flush=True)


def _rss_mb(pid):
    """Current resident set size of a process [MB] (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def measure(n_elem, timeout, kill_gb):
    """Run one size in a subprocess; returns the result dict or one with an ``error``."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child", str(n_elem)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    tic = time.perf_counter()
    peak = 0.0
    while proc.poll() is None:
        peak = max(peak, _rss_mb(proc.pid))
        elapsed = time.perf_counter() - tic
        if peak > kill_gb * 1024 or elapsed > timeout:
            proc.kill()
            proc.wait()
            why = f"stopped at {elapsed:.0f} s, RSS {peak / 1024:.2f} GB"
            return {"n_elem": n_elem, "error": why}
        time.sleep(0.2)
    stdout, stderr = proc.communicate()
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            res = json.loads(line[len("RESULT "):])
            res["process_s"] = time.perf_counter() - tic
            return res
    return {"n_elem": n_elem, "error": f"exit status {proc.returncode}: {stderr.strip()[-500:]}"}


def slopes(rows, key):
    """Log-log slopes of ``key`` between consecutive sizes and the least-squares slope."""
    ok = [r for r in rows if "error" not in r and r[key] > 0]
    n = np.array([r["n_elem"] for r in ok], float)
    v = np.array([r[key] for r in ok], float)
    if len(ok) < 2:
        return [], float("nan")
    step = np.diff(np.log(v)) / np.diff(np.log(n))
    fit = float(np.polyfit(np.log(n), np.log(v), 1)[0])
    return list(step), fit


def report(rows):
    """Print the table and the slopes."""
    print(f"{'n_elem':>8} {'n_var':>8} | " + " ".join(f"{s + ' [s]':>17}" for s in STAGES)
          + " | " + " ".join(f"{'peak +MB after ' + s:>28}" for s in STAGES))
    for r in rows:
        if "error" in r:
            print(f"{r['n_elem']:8d}  {r['error']}")
            continue
        print(f"{r['n_elem']:8d} {r['n_variables']:8d} | "
              + " ".join(f"{r[s + '_s']:17.3f}" for s in STAGES) + " | "
              + " ".join(f"{r[s + '_mb']:28.1f}" for s in STAGES))
    print("log-log slopes versus n_elem (consecutive sizes; least squares):")
    for s in STAGES:
        for what, key in (("time", f"{s}_s"), ("memory", f"{s}_mb")):
            step, fit = slopes(rows, key)
            print(f"  {s:>13} {what:>6}: " + ", ".join(f"{x:5.2f}" for x in step) + f"; fit {fit:5.2f}")
    total = [dict(r, total_s=sum(r[s + "_s"] for s in STAGES)) for r in rows if "error" not in r]
    step, fit = slopes(total, "total_s")
    print("          total   time: " + ", ".join(f"{x:5.2f}" for x in step) + f"; fit {fit:5.2f}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10_000, 100_000])
    p.add_argument("--max-seconds", type=float, default=300.0, help="stop the sweep after a slower size")
    p.add_argument("--max-gb", type=float, default=4.0, help="stop the sweep after a larger size")
    p.add_argument("--kill-gb", type=float, default=8.0, help="stop a size whose RSS exceeds this")
    p.add_argument("--json", default=None, help="also write the rows to this file")
    p.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child is not None:
        return child(args.child)
    rows = []
    for n in sorted(args.sizes):
        r = measure(n, timeout=2 * args.max_seconds, kill_gb=args.kill_gb)
        rows.append(r)
        print(json.dumps(r), flush=True)
        if "error" in r or r["process_s"] > args.max_seconds or r["initial_state_mb"] > 1024 * args.max_gb:
            print(f"stopping after n_elem = {n}")
            break
    report(rows)
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)
    return rows


if __name__ == "__main__":
    main()

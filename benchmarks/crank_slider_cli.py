"""The stiffened crank-slider from the command line, in fresh processes, against Exudyn.

The case of the performance target: 4 coupler elements with geometric
stiffening, dt = 1e-4, 0.1 s, run as a user runs it::

    python -m phmech.validation.crank_slider --geometric-stiffness --n-elem 4

Each repetition starts a new Python process for phmech (the command above,
its times read from the ``stats`` of ``summary.json``: set-up, kernel
loading, stepping) and one for Exudyn (``peers/exudyn_crank_slider.run(4,
1e-4, t_end=0.1)``: its solve time), one after the other, so that both see
the same state of the machine.  The ratio of each pair is phmech's stepping
over Exudyn's solve; the table gives every pair and the median, and beside
them the whole process of each (interpreter start, imports, model, output).  The peaks
of the midpoint deflection of both codes are printed beside them (Exudyn's
ANCF cable elements are geometrically exact).

    python benchmarks/crank_slider_cli.py [--repeat 5]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

EXUDYN = """
import json, sys
sys.path.insert(0, {here!r})
from peers.exudyn_crank_slider import run
r = run(4, 1e-4, t_end=0.1)
print("RESULT", json.dumps({{"solve": r["wall"], "setup": r.get("setup", 0.0), "peak": r["peak"]}}))
"""


def phmech_once(outdir):
    """``{"stepping", "kernel", "setup", "peak"}`` of one command-line run in a new process."""
    cmd = [sys.executable, "-m", "phmech.validation.crank_slider", "--geometric-stiffness", "--n-elem", "4",
           "--dt", "1e-4", "--tfinal", "0.1", "--no-plot", "-q", "--outdir", outdir]
    tic = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    process = time.perf_counter() - tic
    with open(os.path.join(outdir, "summary.json")) as fh:
        s = json.load(fh)
    st = s["stats"]
    return {"stepping": st["wall_time"], "kernel": st["kernel_time"], "setup": st["setup_time"],
            "peak": s["uy_mid_max_abs_over_L"], "process": process}


def exudyn_once():
    """``{"solve", "setup", "peak"}`` of Exudyn's model in a new process, or None without Exudyn."""
    tic = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", EXUDYN.format(here=HERE)], capture_output=True, text=True)
    process = time.perf_counter() - tic
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return {**json.loads(line[len("RESULT "):]), "process": process}
    return None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=5, help="pairs of fresh processes")
    args = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            ours, peer = phmech_once(tmp), exudyn_once()
            rows.append((ours, peer))
            ratio = ours["stepping"] / peer["solve"] if peer else None
            print(f"phmech: stepping {ours['stepping'] * 1e3:6.1f} ms, kernel loading {ours['kernel'] * 1e3:5.0f} ms, "
                  f"set-up {ours['setup'] * 1e3:4.0f} ms, process {ours['process']:.2f} s, peak {ours['peak']:.7f}"
                  + (f" | Exudyn: solve {peer['solve'] * 1e3:6.1f} ms, process {peer['process']:.2f} s, "
                     f"peak {peer['peak']:.7f} | ratio {ratio:.2f}" if peer else " | Exudyn not installed"), flush=True)
    ratios = [o["stepping"] / x["solve"] for o, x in rows if x]
    stepping = float(np.median([o["stepping"] for o, _ in rows]))
    solve = float(np.median([x["solve"] for _, x in rows if x])) if ratios else None
    if ratios:
        print(f"median: phmech stepping {stepping * 1e3:.1f} ms, Exudyn solve {solve * 1e3:.1f} ms, "
              f"ratio of the pairs {np.median(ratios):.2f} (from {min(ratios):.2f} to {max(ratios):.2f}); "
              f"peaks differ by {rows[0][0]['peak'] / rows[0][1]['peak'] - 1:+.1e}")
    return stepping, solve, (float(np.median(ratios)) if ratios else None)


if __name__ == "__main__":
    main()

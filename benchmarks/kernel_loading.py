"""Loading the compiled kernels in a fresh process: phmech's loader against numba's.

The stiffened crank-slider from the command line (as in ``crank_slider_cli.py``)
in new processes, alternately with phmech's loader of the kernel cache
(:mod:`phmech._kernel_loading`) and with numba's own
(``PHMECH_KERNEL_LOADER=numba``), both reading the same filled cache.  For
each process: ``kernel_time`` of its ``summary.json`` (every kernel loaded in
the process, its set-up included), the set-up, the stepping, and the whole
process from start to exit.  The stepping does not depend on the loader (the
same object code runs); the target of a fresh process is 0.05 s of loading.

    python benchmarks/kernel_loading.py [--repeat 5]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

CASE = ["-m", "phmech.validation.crank_slider", "--geometric-stiffness", "--n-elem", "4", "--dt", "1e-4",
        "--tfinal", "0.1", "--no-plot", "-q"]


def once(outdir, loader):
    """``{"kernel", "setup", "stepping", "process"}`` seconds of one run in a new process."""
    env = dict(os.environ)
    env.pop("PHMECH_KERNEL_LOADER", None)
    if loader == "numba":
        env["PHMECH_KERNEL_LOADER"] = "numba"
    tic = time.perf_counter()
    subprocess.run([sys.executable, *CASE, "--outdir", outdir], check=True, capture_output=True, env=env)
    process = time.perf_counter() - tic
    with open(os.path.join(outdir, "summary.json")) as fh:
        st = json.load(fh)["stats"]
    return {"kernel": st["kernel_time"], "setup": st["setup_time"], "stepping": st["wall_time"],
            "process": process}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=5, help="pairs of fresh processes")
    args = p.parse_args(argv)
    runs = {"phmech": [], "numba": []}
    with tempfile.TemporaryDirectory() as tmp:
        once(tmp, "phmech")                     # fills the cache where it is not yet
        for _ in range(args.repeat):
            for loader in ("phmech", "numba"):
                r = once(tmp, loader)
                runs[loader].append(r)
                print(f"{loader:7s} loader: kernels {r['kernel'] * 1e3:6.1f} ms, set-up {r['setup'] * 1e3:5.1f} ms, "
                      f"stepping {r['stepping'] * 1e3:6.1f} ms, process {r['process']:.2f} s", flush=True)
    med = {k: {f: float(np.median([r[f] for r in v])) for f in ("kernel", "setup", "stepping", "process")}
           for k, v in runs.items()}
    ratios = [a["kernel"] / b["kernel"] for a, b in zip(runs["phmech"], runs["numba"])]
    print(f"median kernel loading: phmech's loader {med['phmech']['kernel'] * 1e3:.1f} ms, numba's "
          f"{med['numba']['kernel'] * 1e3:.1f} ms (pair ratio {np.median(ratios):.2f}); whole process "
          f"{med['phmech']['process']:.2f} s against {med['numba']['process']:.2f} s")
    return med["phmech"]["kernel"], med["numba"]["kernel"], float(np.median(ratios))


if __name__ == "__main__":
    main()

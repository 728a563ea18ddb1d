"""Loading the compiled kernels in a fresh process: phmech's loader against numba's.

The stiffened crank-slider from the command line (as in ``crank_slider_cli.py``)
in new processes, alternately with phmech's loader of the kernel cache
(:mod:`phmech.kernels.loading`) and with numba's own
(``PHMECH_KERNEL_LOADER=numba``), both reading the same filled cache.  For
each process: the time numba held its compiler lock from the start of the
process to its end (every kernel loaded, wherever; measured by a listener of
numba's ``numba:compiler_lock`` event registered before the case is
imported), ``kernel_time`` of its ``summary.json`` (the loading within the
run's set-up and steps), the set-up, the stepping, and the whole process from
start to exit.  The stepping does not depend on the loader (the same object
code runs); the target of a fresh process is 0.05 s of loading (the first
figure).

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


#: runs the case as ``python -m`` would, with a listener of numba's compiler lock registered first
WRAPPER = """
import runpy
from numba.core import event
lock = event.TimingListener()
event.register("numba:compiler_lock", lock)
runpy.run_module({module!r}, run_name="__main__", alter_sys=True)
print("COMPILER_LOCK", lock.duration if lock.done else 0.0)
"""


def once(outdir, loader):
    """``{"lock", "kernel", "setup", "stepping", "process"}`` seconds of one run in a new process."""
    env = dict(os.environ)
    env.pop("PHMECH_KERNEL_LOADER", None)
    if loader == "numba":
        env["PHMECH_KERNEL_LOADER"] = "numba"
    module, args = CASE[1], CASE[2:]
    tic = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", WRAPPER.format(module=module), *args, "--outdir", outdir],
                         check=True, capture_output=True, text=True, env=env)
    process = time.perf_counter() - tic
    lock = float(out.stdout.split("COMPILER_LOCK")[-1].split()[0])
    with open(os.path.join(outdir, "summary.json")) as fh:
        st = json.load(fh)["stats"]
    return {"lock": lock, "kernel": st["kernel_time"], "setup": st["setup_time"], "stepping": st["wall_time"],
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
                print(f"{loader:7s} loader: kernels {r['lock'] * 1e3:6.1f} ms in the process "
                      f"({r['kernel'] * 1e3:6.1f} ms in the run's kernel_time), set-up {r['setup'] * 1e3:5.1f} ms, "
                      f"stepping {r['stepping'] * 1e3:6.1f} ms, process {r['process']:.2f} s", flush=True)
    fields = ("lock", "kernel", "setup", "stepping", "process")
    med = {k: {f: float(np.median([r[f] for r in v])) for f in fields} for k, v in runs.items()}
    ratios = [a["lock"] / b["lock"] for a, b in zip(runs["phmech"], runs["numba"])]
    print(f"median kernel loading in the process: phmech's loader {med['phmech']['lock'] * 1e3:.1f} ms, numba's "
          f"{med['numba']['lock'] * 1e3:.1f} ms (pair ratio {np.median(ratios):.2f}); kernel_time "
          f"{med['phmech']['kernel'] * 1e3:.1f} ms against {med['numba']['kernel'] * 1e3:.1f} ms; whole process "
          f"{med['phmech']['process']:.2f} s against {med['numba']['process']:.2f} s")
    return med["phmech"]["lock"], med["numba"]["lock"], float(np.median(ratios))


if __name__ == "__main__":
    main()

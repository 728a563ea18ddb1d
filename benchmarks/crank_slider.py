"""Crank-slider: the thesis' IDA setup against phmech's own integrators, in one run.

Same model (2 coupler elements, zero initial deformation, t_end = 8/150 s)
for every run.  The thesis' setup is assimulo IDA with dense linear
algebra, rtol = atol = 1e-6 and a maximum step of 1e-6 s (12.1 s in the
thesis).  Accuracy is measured on the coupler midpoint deflection
u_y(L/2) against a tight reference (IDA, rtol = atol = 1e-10), as the
maximum error over the run relative to the peak deflection.

    python benchmarks/crank_slider.py            # add --quick to skip the slow reference
"""
import argparse
import sys
import time

import numpy as np


def timed(label, fn):
    tic = time.perf_counter()
    out = fn()
    return label, out, time.perf_counter() - tic


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="use the thesis run as the reference")
    args = p.parse_args(argv)
    sys.argv[1:] = []
    from phmech.validation import crank_slider as cs

    te = 8 / 150
    ne = 2
    runs = []
    if not args.quick:
        runs.append(timed("reference: IDA rtol=atol=1e-10", lambda: cs.run(te, ne, solver="ida", rtol=1e-10, atol=1e-10)))
    runs.append(timed("thesis: IDA dense rtol=atol=1e-6 max_step=1e-6",
                      lambda: cs.run(te, ne, solver="ida", rtol=1e-6, atol=1e-6, max_step=1e-6,
                                     solver_options=dict(atol_lambda=1e-6))))
    runs.append(timed("phmech default: midpoint dt=1e-4", lambda: cs.run(te, ne, dt=1e-4)))
    runs.append(timed("phmech midpoint dt=2e-5", lambda: cs.run(te, ne, dt=2e-5)))
    runs.append(timed("phmech midpoint dt=5e-6", lambda: cs.run(te, ne, dt=5e-6)))
    runs.append(timed("phmech radau rtol=atol=1e-4", lambda: cs.run(te, ne, solver="radau", rtol=1e-4, atol=1e-4)))
    runs.append(timed("phmech radau rtol=atol=1e-6", lambda: cs.run(te, ne, solver="radau", rtol=1e-6, atol=1e-6)))
    ref = runs[0][1]
    peak = np.max(np.abs(ref.uy_mid))
    thesis_time = next(t for lab, _, t in runs if lab.startswith("thesis"))
    thesis_out = next(o for lab, o, _ in runs if lab.startswith("thesis"))
    print(f"crank-slider, {ne} elements, t_end = {te:.5f} s; error = max|u_y - u_y,ref| / max|u_y,ref|")
    print(f"{'run':50s} {'time [s]':>9s} {'steps':>7s} {'error':>9s} {'vs thesis':>10s} {'speed-up':>9s}")
    for lab, out, t in runs:
        err = np.max(np.abs(np.interp(ref.t, out.t, out.uy_mid) - ref.uy_mid)) / peak
        agree = np.max(np.abs(np.interp(thesis_out.t, out.t, out.uy_mid) - thesis_out.uy_mid)) / peak
        print(f"{lab:50s} {t:9.2f} {out.summary['stats']['nsteps']:7d} {err:9.1e} {agree:10.1e} "
              f"{thesis_time / t:9.1f}")
    # the 8-element, 0.1 s run of the README
    lab, out, t = timed("8 elements, 0.1 s, midpoint dt=1e-4", lambda: cs.run(0.1, 8, dt=1e-4))
    print(f"{lab:50s} {t:9.2f} {out.summary['stats']['nsteps']:7d}  (target: about 1 s)")


if __name__ == "__main__":
    main()

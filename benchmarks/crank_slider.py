"""Crank-slider: the thesis' IDA setup against phmech's own integrators, in one run.

Same model (2 coupler elements, zero initial deformation, t_end = 8/150 s)
for every run.  The thesis' setup is assimulo IDA with dense linear
algebra, rtol = atol = 1e-6 and a maximum step of 1e-6 s (12.1 s in the
thesis).  Accuracy is measured on the coupler midpoint deflection
u_y(L/2) against a tight reference (IDA, rtol = atol = 1e-10), as the
maximum error over the run relative to the peak deflection.

The second table is the stiffened coupler
(:class:`phmech.fem.beam_nonlinear.NonlinearFloatingBeam`, 8 elements,
0.1 s): wall time and error of the peak midpoint deflection against a
converged run (midpoint, dt = 1e-5), from the undeformed and from the
quasi-static start, and the cheapest run within 0.1 % of the peak.

    python benchmarks/crank_slider.py            # add --quick to skip the slow reference
    python benchmarks/crank_slider.py --stiffened-only
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
    p.add_argument("--stiffened-only", action="store_true", help="only the stiffened coupler's table")
    args = p.parse_args(argv)
    sys.argv[1:] = []
    from phmech.validation import crank_slider as cs

    if not args.stiffened_only:
        linear(cs, args)
    stiffened(cs)


def stiffened(cs, n_elem=8, t_end=0.1):
    """Time to 0.1 % of the converged peak with the stiffened coupler, undeformed and quasi-static start."""
    _, ref, t_ref = timed("reference", lambda: cs.run(t_end, n_elem, dt=1e-5, geometric_stiffness=True,
                                                        quasi_static=True, plot=False))
    peak = np.max(np.abs(ref.uy_mid))
    print(f"\nstiffened coupler, {n_elem} elements, {t_end} s: converged peak |u_y(L/2)|/L = {peak:.6f} "
          f"(midpoint dt = 1e-5, quasi-static start, {t_ref:.1f} s)")
    print(f"{'start':14s} {'dt [s]':>8s} {'time [s]':>9s} {'peak':>10s} {'peak error':>11s}")
    best = {}
    for start in ("undeformed", "quasi-static"):
        for dt in (2e-4, 1e-4, 5e-5, 2.5e-5):
            lab, out, t = timed(start, lambda: cs.run(t_end, n_elem, dt=dt, geometric_stiffness=True,
                                                      quasi_static=start == "quasi-static", plot=False))
            err = abs(np.max(np.abs(out.uy_mid)) / peak - 1.0)
            print(f"{start:14s} {dt:8.1e} {t:9.2f} {np.max(np.abs(out.uy_mid)):10.6f} {err:11.1e}")
            if err <= 1e-3 and start not in best:
                best[start] = (dt, t)
    for start in ("undeformed", "quasi-static"):
        dt, t = best.get(start, (None, None))
        print(f"cheapest within 0.1 %, {start} start: " + (f"dt = {dt:.1e}, {t:.2f} s" if dt else "none"))
    if len(best) == 2:
        print(f"ratio of the wall times (undeformed / quasi-static): {best['undeformed'][1] / best['quasi-static'][1]:.2f}")


def linear(cs, args):
    """The thesis' IDA setup against phmech's own integrators (linear floating frame)."""
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

"""Four-bar eigen sweep: 360 crank angles, dense and sparse eigen solvers.

Prints the set-up time (Firedrake assembly, once), the time per angle and
the total of each path, and the agreement of the two paths.  Target: the
whole 360-angle sweep with mesh-converged frequencies in under 5 s.

    python benchmarks/four_bar.py [--n-elem 6]
"""
import argparse
import sys
import time

import numpy as np


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n-elem", type=int, default=6)
    p.add_argument("--n-angles", type=int, default=360)
    args = p.parse_args(argv)
    sys.argv[1:] = []
    from phmech.solvers.eigen import sweep
    from phmech.validation.four_bar import FourBar
    from phmech.validation.four_bar_frame import frequencies

    tic = time.perf_counter()
    fb = FourBar(args.n_elem)
    t_setup = time.perf_counter() - tic
    theta = np.linspace(0, 2 * np.pi, args.n_angles, endpoint=False)
    res = {}
    for method in ("dense", "sparse"):
        tic = time.perf_counter()
        res[method] = sweep(theta, fb.linearize, k=3, method=method)[0]
        res[method + "_time"] = time.perf_counter() - tic
    ref = np.array([frequencies(t, n_elem=48) for t in theta[::30]])
    err = np.max(np.abs(res["dense"][::30] - ref) / ref)
    agree = np.max(np.abs(res["dense"] - res["sparse"]) / res["dense"])
    print(f"four-bar sweep: {args.n_angles} angles, {args.n_elem} elements per link, "
          f"{fb.dae.ne + fb.dae.nl} unknowns; set-up (assembly) {t_setup:.2f} s")
    for method in ("dense", "sparse"):
        t = res[method + "_time"]
        print(f"  {method:6s}: total {t:6.2f} s, {1e3 * t / args.n_angles:6.2f} ms per angle")
    print(f"  dense vs sparse: max relative difference {agree:.1e}")
    print(f"  vs classical frame model (48 elements per link): max relative error {err:.1e}")
    total = t_setup + min(res["dense_time"], res["sparse_time"])
    print(f"  set-up + fastest sweep: {total:.2f} s (target < 5 s): {'met' if total < 5 else 'NOT met'}")


if __name__ == "__main__":
    main()

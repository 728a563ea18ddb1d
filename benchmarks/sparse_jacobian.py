"""Time of the exact Jacobian ``DescriptorDAE.jacobian`` of spatial chains of N bars.

Above :data:`~phmech.assembly.dae.DENSE_JACOBIAN_MAX` unknowns it is the compiled kernels'
writes scattered into CSR (:mod:`phmech.math.jacobian_target`).  Each line: N, the unknowns,
the CSR entries and the median time of ``--repeat`` calls.  Runs against whatever ``phmech``
is importable, so ``PYTHONPATH=<other checkout>`` measures another version.

    python benchmarks/sparse_jacobian.py [--sizes 40 80 320] [--repeat 15]
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from spatial_chain import phmech_chain  # noqa: E402  (after the path)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[40, 80, 320])
    p.add_argument("--repeat", type=int, default=15)
    a = p.parse_args(argv)
    print(f"{'N':>5s} {'n':>6s} {'nnz':>8s} {'jacobian [ms]':>14s}")
    for n_bars in a.sizes:
        dae = phmech_chain(n_bars)[0].assemble()
        y = dae.initial_state() + 1e-3
        J = dae.jacobian(0.0, y)
        times = []
        for _ in range(a.repeat):
            tic = time.perf_counter()
            dae.jacobian(0.0, y)
            times.append(time.perf_counter() - tic)
        print(f"{n_bars:5d} {dae.n:6d} {J.nnz:8d} {1e3 * np.median(times):14.3f}")


if __name__ == "__main__":
    main()

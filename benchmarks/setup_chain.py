"""Set-up time of the spatial chain: N rigid bars with spherical joints, against N.

The chain of the per-step comparison (bars of 1 m and 1 kg, box section
5 cm x 5 cm, the first one on a spherical joint to the ground, gravity,
released horizontal).  Set-up is building the bodies and joints, assembling
the descriptor DAE (with the search for redundant joint rows) and the
consistent initial state; each N is timed in this process after one
untimed warm-up run at the smallest N (imports and first calls), best of
``--repeat`` runs.  The slopes are the least-squares exponents ``p`` of
``time ~ N^p`` over N = 20, 80, 320, of the set-up proper (assembly and
initial state) and with the building of the bodies and joints.

    python benchmarks/setup_chain.py [--repeat 3]
"""
import argparse
import time

import numpy as np

from phmech import System
from phmech.bodies.rigid import SpatialRigidBody

SIZES = (5, 20, 80, 320)
SLOPE_SIZES = (20, 80, 320)


def build(n):
    """The chain of ``n`` bars along x, joined end to end, the first pinned at the origin."""
    bars = [SpatialRigidBody.bar(f"bar{i}", 1.0, (i, 0.0, 0.0), (i + 1.0, 0.0, 0.0), section=(0.05, 0.05))
            for i in range(n)]
    mech = System(bars)
    mech.sphere(bars[0].port("A"), name="J0")
    for i in range(1, n):
        mech.sphere(bars[i - 1].port("B"), bars[i].port("A"), name=f"J{i}")
    mech.add_gravity((0.0, 0.0, -9.81))
    return mech


def set_up(n):
    """``(build, assemble, initial state)`` times in seconds."""
    t0 = time.perf_counter()
    mech = build(n)
    t1 = time.perf_counter()
    dae = mech.assemble()
    t2 = time.perf_counter()
    y0 = dae.initial_state()
    t3 = time.perf_counter()
    assert np.all(np.isfinite(y0)) and not dae.redundant_rows
    return t1 - t0, t2 - t1, t3 - t2


def slope(times):
    """Least-squares exponent ``p`` of ``time ~ N^p`` over :data:`SLOPE_SIZES`."""
    return np.polyfit(np.log(SLOPE_SIZES), np.log([times[n] for n in SLOPE_SIZES]), 1)[0]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    set_up(SIZES[0])
    setup, total = {}, {}
    print(f"{'N':>5} {'build':>9} {'assemble':>9} {'initial':>9} {'set-up':>9} {'total':>9}   (seconds)")
    for n in SIZES:
        runs = [set_up(n) for _ in range(args.repeat)]
        b = min(r[0] for r in runs)
        a, i = min((r[1:] for r in runs), key=sum)
        setup[n], total[n] = a + i, a + i + b
        print(f"{n:5d} {b:9.4f} {a:9.4f} {i:9.4f} {setup[n]:9.4f} {total[n]:9.4f}")
    span = ", ".join(map(str, SLOPE_SIZES))
    print(f"slope over N = {span}: set-up (assemble + initial state) {slope(setup):.2f}, "
          f"with building the bodies {slope(total):.2f}")


if __name__ == "__main__":
    main()

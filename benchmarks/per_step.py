"""Per-step cost of the assembled right-hand side, its Jacobian and the midpoint rule.

Runs against whatever ``phmech`` is importable, so the same script measures
two versions side by side (``PYTHONPATH=<other checkout> python benchmarks/per_step.py``).
Each line: model, unknowns, microseconds per ``f``, per ``jacobian`` and per
midpoint step (best of three repetitions).

    python benchmarks/per_step.py [--no-firedrake]
"""
import argparse
import sys
import time

import numpy as np


def best(fn, repeat=3, number=1):
    times = []
    for _ in range(repeat):
        tic = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - tic) / number)
    return min(times)


def rigid_crank_slider():
    from phmech import PlanarRigidBody, PointMass, System
    crank = PlanarRigidBody.rod("crank", 0.36, 0.15)
    coupler = PlanarRigidBody.rod("coupler", 0.151104, 0.3, position=(0.15, 0.0))
    slider = PointMass("slider", 0.075552, position=(0.45, 0.0))
    s = System([crank, coupler, slider])
    s.pin(crank.port("A"))
    s.drive(crank, 150.0)
    s.connect(crank.port("B"), coupler.port("A"))
    s.connect(coupler.port("B"), slider.port("P"))
    s.slide(slider, (1.0, 0.0))
    return s


def flexible_crank_slider(n_elem):
    from phmech.mechanisms import flexible_crank_slider as build
    return build(n_elem)[0]


def hinged_spatial_beam():
    from phmech.mechanisms import hinged_spatial_beam as build
    return build(6)[0]


def measure(label, system, t_end, dt):
    dae = system.assemble()
    y0 = dae.initial_state()
    y = y0 + 1e-3 * np.random.default_rng(0).normal(size=dae.n)
    tf = best(lambda: dae.f(0.01, y), number=200)
    tj = best(lambda: dae.jacobian(0.01, y), number=50)
    n = int(round(t_end / dt))
    ts = best(lambda: system.simulate(t_end, solver="midpoint", dt=dt, y0=y0), repeat=3) / n
    print(f"{label:32s} {dae.n:6d} {1e6 * tf:9.1f} {1e6 * tj:9.1f} {1e6 * ts:9.1f}", flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--no-firedrake", action="store_true", help="rigid models only")
    args = p.parse_args(argv)
    sys.argv[1:] = []
    import phmech
    print(f"phmech {phmech.__version__} from {phmech.__file__}")
    print(f"{'model':32s} {'n':>6s} {'f [us]':>9s} {'jac [us]':>9s} {'step [us]':>9s}")
    measure("rigid crank-slider", rigid_crank_slider(), 0.05, 1e-4)
    if not args.no_firedrake:
        for n_elem in (2, 8, 32):
            measure(f"crank-slider, {n_elem} elements", flexible_crank_slider(n_elem), 0.02, 1e-4)
        measure("hinged beam, 6 elements", hinged_spatial_beam(), 1.0, 0.01)


if __name__ == "__main__":
    main()

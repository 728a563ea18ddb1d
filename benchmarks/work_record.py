"""The cost of the supplied-work record of Radau IIA and generalized-alpha.

Both keep the work by a quadrature of the power over each step
(:class:`~phmech.solvers.base.QuadratureWork`: the power at three nodes a step).
Each line: a model, a solver, the time per step with the record and without it (the
same run on the same model with the record switched off), and their ratio, the median of
interleaved pairs in this process.  Runs against whatever ``phmech`` is importable, so
``PYTHONPATH=<other checkout>`` measures another version.

    python benchmarks/work_record.py [--pairs 5] [--t-end 0.02]
"""
import argparse
import time

import numpy as np


def crank_slider():
    from phmech.mechanisms.crank_slider import rigid_crank_slider
    return rigid_crank_slider()[0]


def spatial_chain():
    from phmech import SpatialRigidBody, System
    from phmech.joints import Spherical
    bars = [SpatialRigidBody.bar(f"bar{i}", 1.0, (i, 0.0, 0.0), (i + 1.0, 0.0, 0.0), section=(0.1, 0.1))
            for i in range(5)]
    s = System(bars)
    s.add_joint(Spherical(bars[0].port("A"), None, name="J0"))
    for i in range(1, 5):
        s.add_joint(Spherical(bars[i - 1].port("B"), bars[i].port("A"), name=f"J{i}"))
    s.add_gravity((0.0, 0.0, -9.81))
    s.apply_force(bars[-1].port("B"), lambda t: (0.0, 0.1 * np.sin(t), 0.0), name="push")
    return s


MODELS = {"rigid crank-slider": crank_slider, "spatial chain of 5 (pushed)": spatial_chain}
SOLVERS = {"radau": dict(rtol=1e-8, atol=1e-8), "genalpha": dict(dt=1e-4)}


def per_step(dae, solver, t_end, record):
    from phmech.solvers import solve
    from phmech.solvers.driver import _solver_class
    cls = _solver_class(solver)
    init = cls._init_work
    if not record:
        def init_off(self):
            init(self)
            self.records_work = False
        cls._init_work = init_off
    try:
        tic = time.perf_counter()
        res = solve(dae, (0.0, t_end), dae.initial_state(), method=solver, **SOLVERS[solver])
        wall = time.perf_counter() - tic - res.stats.get("kernel_time", 0.0)
    finally:
        cls._init_work = init
    return wall / res.stats["nsteps"]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pairs", type=int, default=5)
    p.add_argument("--t-end", type=float, default=0.02)
    a = p.parse_args(argv)
    print(f"{'model':30s} {'solver':9s} {'with [us]':>10s} {'without [us]':>13s} {'ratio':>6s}")
    for name, build in MODELS.items():
        dae = build().assemble()
        for solver in SOLVERS:
            per_step(dae, solver, a.t_end, True)           # kernels loaded
            on, off = [], []
            for _ in range(a.pairs):
                on.append(per_step(dae, solver, a.t_end, True))
                off.append(per_step(dae, solver, a.t_end, False))
            ratio = float(np.median(np.array(on) / np.array(off)))
            print(f"{name:30s} {solver:9s} {1e6 * np.median(on):10.1f} {1e6 * np.median(off):13.1f} {ratio:6.2f}")


if __name__ == "__main__":
    main()

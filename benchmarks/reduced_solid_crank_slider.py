"""The solid crank-slider with its coupler full and reduced: time per step, peak deflection, balance.

The case of :mod:`phmech.validation.solid_crank_slider` (the coupler a floating 3D elastic solid
on ``meshes/coupler_l<level>.msh``) with its coupler as it is and reduced offline by
:func:`phmech.reduce.craig_bampton` (interface: both end faces, ``--modes`` fixed-interface
modes).  Every system is built once; the runs over ``--t-end`` with the midpoint rule at
``--dt`` alternate full, reduced, full, ... in ``--pairs`` interleaved pairs after one untimed
warm-up run of each (compiling, first factorizations).  Printed per number of modes: the
medians of the time per step, the median of the pairs' ratios (full over reduced), the peak
midspan deflection ``max |u_y(L/2)| / L`` of both and their relative difference, the energy
balance of both runs.

    python benchmarks/reduced_solid_crank_slider.py --level 2 --modes 10 20 40 --pairs 3
"""
import argparse
import json
import sys
import time

import numpy as np


def _run(system, bodies, rows, t_end, dt, dt_out):
    """One run: ``(time per step, max |u_y(L/2)|/L, max |energy balance|)``."""
    from phmech.validation import solid_crank_slider as case
    from phmech.validation._spatial_common import output_times
    dae = system.assemble()
    y0 = dae.initial_state(velocities=case.rigid_start())
    tic = time.perf_counter()
    res = system.simulate(t_end, solver="midpoint", y0=y0, dt=dt, t_eval=output_times(t_end, dt_out))
    per_step = (time.perf_counter() - tic) / max(res.stats["nsteps"], 1)
    coupler = bodies["coupler"]
    u = coupler.displacement(res.e(coupler))
    _, uy = case.deflections({k: u @ r.T for k, r in rows.items()}, case.DATA["L"])
    return per_step, float(np.max(np.abs(uy))), float(np.max(np.abs(res.energy_balance())))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--level", type=int, default=2, help="coupler mesh level (0, 1, 2)")
    p.add_argument("--modes", type=int, nargs="+", default=[10, 20, 40])
    p.add_argument("--t-end", type=float, default=0.008, help="span of each run [s] (the first swing: 0.008)")
    p.add_argument("--dt", type=float, default=1e-4)
    p.add_argument("--pairs", type=int, default=3)
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)
    sys.argv[1:] = []
    from phmech.reduce import craig_bampton
    from phmech.validation import solid_crank_slider as case

    full_system, full_bodies = case.build(args.level)
    solid = full_bodies["coupler"]
    full_rows = case.section_rows(solid)
    red_rows = {k: r[:, solid.velocity_dofs] for k, r in full_rows.items()}
    models = {"full": (full_system, full_bodies, full_rows)}
    offline = {}
    for k in args.modes:
        tic = time.perf_counter()
        red = craig_bampton(solid, ["A", "B"], k)
        offline[k] = time.perf_counter() - tic
        models[k] = (*case.build(args.level, coupler=red), red_rows)
    dt_out = 2 * args.dt
    for m in models.values():                                    # warm-up, untimed
        _run(*m, 4 * args.dt, args.dt, dt_out)
    times = {key: [] for key in models}
    results = {}
    for _ in range(args.pairs):
        for k in args.modes:
            for key in ("full", k):
                per_step, peak, balance = _run(*models[key], args.t_end, args.dt, dt_out)
                times[key].append(per_step)
                results[key] = (peak, balance)
    nf = int(solid.ne)
    print(f"solid crank-slider, mesh level {args.level} ({solid.mesh.num_cells()} tetrahedra, {nf} coupler "
          f"unknowns), midpoint dt = {args.dt:g} s over {args.t_end:g} s, {args.pairs} interleaved pairs per row")
    print(f"{'coupler':>10} {'unknowns':>9} {'offline s':>9} {'per step':>11} {'full/red.':>9} "
          f"{'peak u_y/L':>11} {'peak diff':>10} {'balance J':>10}")
    peak_f, bal_f = results["full"]
    tf = float(np.median(times["full"]))
    print(f"{'full':>10} {nf:>9} {'':>9} {tf * 1e3:>9.2f}ms {'':>9} {peak_f:>11.6f} {'':>10} {bal_f:>10.1e}")
    rows = []
    n_pairs = args.pairs
    for idx, k in enumerate(args.modes):
        full_k = times["full"][idx::len(args.modes)][:n_pairs]          # the full runs paired with this row
        ratio = float(np.median(np.array(full_k) / np.array(times[k])))
        peak, bal = results[k]
        tr = float(np.median(times[k]))
        ne = int(models[k][1]["coupler"].ne)
        print(f"{str(k) + ' modes':>10} {ne:>9} {offline[k]:>9.2f} {tr * 1e6:>9.1f}us {ratio:>8.0f}x "
              f"{peak:>11.6f} {peak / peak_f - 1:>+10.1e} {bal:>10.1e}")
        rows.append({"modes": k, "unknowns": ne, "offline_s": offline[k], "per_step_s": tr, "ratio_median": ratio,
                     "peak": peak, "peak_rel_difference": peak / peak_f - 1, "energy_balance_J": bal})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"level": args.level, "full_unknowns": nf, "full_per_step_s": tf, "full_peak": peak_f,
                       "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()

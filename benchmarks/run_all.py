"""phmech's performance targets, each measured side by side with its peer in this run.

One table: every row gives phmech's time, the peer's time (measured here,
on this machine, in this process or a child of it) and their ratio, and
whether the target is met.  Rows:

* **crank-slider vs Exudyn** (geometric stiffening on both sides; Exudyn's
  ANCF cable elements are geometrically exact): wall time of 0.1 s of
  motion at 0.1 % of each code's own converged peak midpoint deflection,
  the cheapest setting of a small grid of (elements, dt) for each code;
  plus the time per step of both codes for 2 ... 64 elements at dt = 1e-4
  (phmech with the thesis' linear floating frame and with the stiffened
  coupler).  Exudyn is an optional dependency of the benchmarks
  (``pip install exudyn``); without it these rows say so.
* **crank-slider from the command line** (4 stiffened elements, dt = 1e-4,
  0.1 s) in fresh processes against Exudyn's solve in fresh processes,
  pair by pair (``crank_slider_cli.py``; target: at most 2x);
* **kernel loading** of that command in a fresh process, phmech's loader of
  the kernel cache against numba's own (``kernel_loading.py``; target: 0.05 s);
* **Simeon's crank** to 1e-6 relative: phmech's Radau IIA on the index-2
  form against assimulo's IDA and Radau5 on the same form (the faster one
  is the peer); scipy's Radau, BDF and DOP853 on the ODE form (the same
  compiled model code) are listed beside them;
* **Andrews' squeezer** to 1e-7, the same way;
* **four-bar**: 360 crank angles of the eigen sweep including the model's
  set-up, in a fresh process (cold: first run; warm: a second process,
  with the disk caches filled);
* **hinged beam** (50 s): phmech's midpoint rule against scipy's Radau on
  the same assembled model at equal accuracy;
* **chains and Bricard** vs Exudyn: time per step of the spatial chain of
  N bars on spherical joints (N = 5 ... 320), the planar chain on revolute
  joints (N = 5, 20, 80) and Bricard's mechanism (``spatial_chain.py``;
  target: at most 2x Exudyn);
* **cost growth**: time per midpoint step against the number of unknowns
  for a pinned beam of 10 ... 2x10^4 elements (68 to 1.2x10^5 unknowns), log-log slope, and the peak
  resident memory of the largest size.

    python benchmarks/run_all.py            # everything (about 10 minutes)
    python benchmarks/run_all.py --quick    # smaller grids and spans (about 3 minutes)
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))   # the phmech of this checkout
sys.path.insert(0, HERE)                    # peers/, classic.py, hinged_beam.py

ROWS = []


def row(name, ours, peer, peer_name, target=None, note=""):
    """Record one line: ``ratio = ours / peer`` (below 1: phmech faster)."""
    ratio = ours / peer if (ours and peer) else None
    met = None
    if target is not None and ours is not None:
        met = bool(target(ours, peer, ratio))
    ROWS.append(dict(name=name, phmech=ours, peer=peer, peer_name=peer_name, ratio=ratio, met=met, note=note))
    fmt = (lambda x: f"{x:.4g}" if x is not None else "-")
    print(f"  {name}: phmech {fmt(ours)} s, {peer_name} {fmt(peer)} s, ratio {fmt(ratio)}"
          + (f" ({'met' if met else 'NOT met'})" if met is not None else "") + (f"; {note}" if note else ""),
          flush=True)


def timed(fn):
    tic = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - tic


# ---------------------------------------------------------------- crank-slider vs Exudyn
#: Newton tolerance of phmech's runs against Exudyn: the relative tolerance the Exudyn model uses
#: (peers/exudyn_crank_slider.py, newton_rtol; its absolute tolerance 1e-6 is looser still)
NEWTON_TOL = 1e-8


def crank_slider(quick):
    from phmech.validation import crank_slider as cs
    try:
        from peers.exudyn_crank_slider import run as exu_run
    except ImportError as err:
        exu_run = None
        why = f"Exudyn not installed ({err})"
    t_end = 0.1
    grid = [(3, 2e-4), (4, 2e-4), (4, 1e-4), (8, 1e-4)] if quick else \
        [(2, 1e-4), (3, 2e-4), (4, 2e-4), (4, 1e-4), (8, 2e-4), (8, 1e-4), (4, 5e-5), (8, 5e-5), (8, 2.5e-5)]
    ref_setting = (8, 2.5e-5) if quick else (16, 1e-5)

    def ours(ne, dt, quasi_static):
        """Model set-up (build, assembly, consistent start) and the run with the midpoint
        deflection at every step, timed as Exudyn's set-up and solve are; the peak after."""
        from phmech.fem.quasi_static import quasi_static_state
        tic = time.perf_counter()
        system, bodies = cs.build(ne, geometric_stiffness=True)
        dae = system.assemble()
        y0 = dae.initial_state()
        if quasi_static:
            y0 = quasi_static_state(dae, y0, [bodies["coupler"]])
        res = system.simulate(t_end, y0=y0, dt=dt, dt_out=dt, newton_tol=NEWTON_TOL)
        wall = time.perf_counter() - tic
        coupler = bodies["coupler"]
        _, rows_y = coupler.displacement_rows([coupler.L / 2])
        return float(np.max(np.abs(res.q("coupler") @ rows_y[0]))) / coupler.L, wall

    print("crank-slider, stiffened, 0.1 s: phmech reference runs ...", flush=True)
    ours(4, 1e-4, True)                                  # warm the caches
    best = None
    for start, quasi_static in (("undeformed", False), ("quasi-static", True)):
        peak_ref, _ = ours(*ref_setting, quasi_static)
        for ne, dt in grid:
            peak, wall = min((ours(ne, dt, quasi_static) for _ in range(3)), key=lambda pw: pw[1])
            err = abs(peak / peak_ref - 1)
            print(f"    phmech {ne:2d} elements dt={dt:.1e} {start} start: peak {peak:.6f} "
                  f"(reference {peak_ref:.6f}) err {err:.1e} wall {wall:.3f} s")
            if err <= 1e-3 and (best is None or wall < best[2]):
                best = (ne, dt, wall, start)
    exu_best = None
    if exu_run is not None:
        exu_run(4, 1e-4, t_end=2e-3)
        r = exu_run(*ref_setting, t_end=t_end)
        exu_ref = r["peak"]
        print(f"    Exudyn reference {ref_setting}: peak {exu_ref:.6f} (phmech, quasi-static start, "
              f"{peak_ref:.6f}, difference {exu_ref / peak_ref - 1:+.1e})")
        exu_run(4, 1e-4, t_end=t_end)
        for ne, dt in grid:
            r = min((exu_run(ne, dt, t_end=t_end) for _ in range(3)),
                    key=lambda r: r["wall"] + r.get("setup", 0.0))
            err = abs(r["peak"] / exu_ref - 1)
            wall = r["wall"] + r.get("setup", 0.0)
            print(f"    Exudyn {ne:2d} elements dt={dt:.1e}: peak {r['peak']:.6f} err {err:.1e} wall {wall:.3f} s")
            if err <= 1e-3 and (exu_best is None or wall < exu_best[2]):
                exu_best = (ne, dt, wall)
    note = (f"phmech {best[0]} el. dt={best[1]:.0e} {best[3]} start" if best
            else "phmech: no setting within 0.1 %")
    note += (f", Exudyn {exu_best[0]} el. dt={exu_best[1]:.0e}" if exu_best else
             (", Exudyn: no setting within 0.1 %" if exu_run else f", {why}"))
    row("crank-slider 0.1 s at 0.1 % of the peak (stiffened)", best[2] if best else None,
        exu_best[2] if exu_best else None, "Exudyn", lambda o, p, r: r is not None and r <= 2.0, note)

    # per-step cost
    sizes = (2, 4, 8, 16) if quick else (2, 4, 8, 16, 32, 64)
    steps = 200
    print(f"  per-step cost, dt = 1e-4, {steps} steps (phmech linear / stiffened, Exudyn):")
    for ne in sizes:                  # warm: compiled kernels, caches
        cs.run(10 * 1e-4, ne, dt=1e-4, plot=False)
        cs.run(10 * 1e-4, ne, dt=1e-4, plot=False, geometric_stiffness=True)
    for ne in sizes:
        opts = dict(solver_options=dict(newton_tol=NEWTON_TOL), plot=False)
        r_lin = min(cs.run(steps * 1e-4, ne, dt=1e-4, **opts).result.stats["wall_time"]
                    for _ in range(3)) / steps
        r_gs = min(cs.run(steps * 1e-4, ne, dt=1e-4, geometric_stiffness=True, **opts).result.stats["wall_time"]
                   for _ in range(3)) / steps
        exu = min(exu_run(ne, 1e-4, t_end=steps * 1e-4)["per_step"] for _ in range(3)) if exu_run else None
        print(f"    {ne:2d} elements: phmech linear {r_lin * 1e6:8.1f} us, stiffened {r_gs * 1e6:8.1f} us"
              + (f", Exudyn {exu * 1e6:8.1f} us" if exu else ""), flush=True)
        row(f"crank-slider per step, {ne} elements (linear frame)", r_lin, exu, "Exudyn")
        row(f"crank-slider per step, {ne} elements (stiffened)", r_gs, exu, "Exudyn")


# ---------------------------------------------------------------- classic problems
def classic(quick):
    from classic import PROBLEMS, time_to_accuracy
    from phmech.validation import _classic_run as cr
    from phmech.validation._classic_models import AndrewsSqueezer, SimeonCrank
    from phmech.validation.simeon_crank import SOLVER_OPTIONS

    peers = ["scipy-Radau", "scipy-BDF", "scipy-DOP853", "ida", "radau5"]
    for name, Model, limit in (("crank", SimeonCrank, 0.5), ("andrews", AndrewsSqueezer, 0.1)):
        model = Model()
        target, factor, tols = PROBLEMS[name]
        opts = SOLVER_OPTIONS if name == "crank" else {}
        cr.integrate(model, "radau", 1e-3, 1e-3 * factor)         # compile / warm
        ours = time_to_accuracy(model, "radau", target, factor, tols, 30.0, opts.get("radau"))
        results = {}
        for s in peers:
            results[s] = time_to_accuracy(model, s, target, factor, tols, 30.0 if quick else 60.0, opts.get(s))
        # peers on the same (index-2) formulation: assimulo's IDA and Radau5; scipy's solvers
        # need the ODE form (accelerations from the augmented system), reported beside them
        same = {s: r for s, r in results.items() if s in ("ida", "radau5") and r[0] is not None}
        best = min(same, key=lambda s: same[s][0]) if same else None
        others = ", ".join(f"{s} {r[0]:.3g} s" if r[0] else f"{s} not reached" for s, r in results.items())
        row(f"{name} to {target:.0e} (index 2)", ours[0], same[best][0] if best else None, best or "none reached",
            lambda o, p, r, lim=limit: o < lim and (p is None or o < p),
            f"target < {limit} s and faster than IDA/Radau5; all: {others}")


# ---------------------------------------------------------------- four-bar
FOUR_BAR = """
import time, sys
tic = time.perf_counter()
import numpy as np
from phmech.solvers.eigen import sweep
from phmech.mechanisms import FourBar
fb = FourBar(6)
t_setup = time.perf_counter() - tic
th = np.linspace(0, 2 * np.pi, 360, endpoint=False)
w = sweep(th, fb.linearize, k=3, method="dense")[0]
print("RESULT", t_setup, time.perf_counter() - tic, "firedrake" in sys.modules, w[90][0])
"""


def four_bar(quick):
    import tempfile
    times = []
    cache = tempfile.mkdtemp(prefix="phmech-fe-cache-")      # cold: an empty FE cache
    for label in ("cold", "warm"):
        out = subprocess.run([sys.executable, "-c", FOUR_BAR], capture_output=True, text=True,
                             cwd=os.path.dirname(HERE), env={**os.environ, "PHMECH_CACHE_DIR": cache})
        line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT")]
        if not line:
            print(out.stderr[-2000:])
            row(f"four-bar 360 angles with set-up ({label})", None, None, "-")
            return
        setup, total, fd_loaded, w1 = line[0].split()[1:]
        setup, total = float(setup), float(total)
        times.append(total)
        print(f"    four-bar {label}: set-up (imports included) {setup:.2f} s, total {total:.2f} s, "
              f"Firedrake imported: {fd_loaded}, lowest frequency at 90 deg {float(w1):.3f} rad/s")
    row("four-bar 360 angles with set-up (warm, fresh process)", times[1], None, "-",
        lambda o, p, r: o < 1.0, f"cold {times[0]:.2f} s; target < 1 s")


# ---------------------------------------------------------------- hinged beam
def hinged(quick):
    from hinged_beam import scipy_radau
    from phmech.validation import hinged_beam as hb
    te, ne = (15.0, 4) if quick else (50.0, 6)
    ref = hb.run(te, ne, dt=1.25e-3, plot=False, vtk=False)
    peak = np.max(np.abs(ref.omega_z))
    w_sc, wall_sc, _ = scipy_radau(ne, te, ref.t)
    err_sc = np.max(np.abs(w_sc - ref.omega_z)) / peak
    best = None
    for dt in (0.02, 0.01, 0.005, 0.004, 0.0033, 0.0025, 0.00125):
        o = hb.run(te, ne, dt=dt, plot=False, vtk=False)
        err = np.max(np.abs(o.omega_z - ref.omega_z)) / peak
        wall = o.summary["stats"]["wall_time"]
        print(f"    hinged midpoint dt={dt}: error {err:.1e}, {wall:.2f} s (scipy Radau {err_sc:.1e}, {wall_sc:.2f} s)")
        if err <= err_sc:
            best = wall
            break
    row(f"hinged beam {te:g} s at scipy Radau's accuracy ({err_sc:.1e})", best, wall_sc, "scipy Radau",
        lambda o, p, r: r is not None and r <= 0.1, "target: at least 10x faster")


# ---------------------------------------------------------------- cost growth
GROWTH = """
import json, resource, sys, time
import numpy as np
from phmech import System
from phmech.fem import FloatingEulerBernoulliBeam
n = int(sys.argv[1])
beam = FloatingEulerBernoulliBeam("beam", 1.0, n, 7870.0, 1e-4, 2e11, 1e-9, frame="simply_supported")
s = System([beam])
s.pin(beam.port("A"))
s.add_gravity((0.0, -9.81))
s.simulate(3e-4, dt=1e-4)          # compile and warm
steps = 10
r = s.simulate(steps * 1e-4, dt=1e-4)
per = r.stats["wall_time"] / steps
dae = s.assemble()
print("RESULT", json.dumps(dict(n=int(dae.n), per_step=per,
      peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
"""


def growth(quick):
    sizes = (10, 100, 1000) if quick else (10, 100, 1000, 10000, 20000)
    pts = []
    for n in sizes:
        out = subprocess.run([sys.executable, "-c", GROWTH, str(n)], capture_output=True, text=True,
                             cwd=os.path.dirname(HERE))
        line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT")]
        if not line:
            print(f"    {n} elements failed: {out.stderr[-800:]}")
            break
        d = json.loads(line[0][7:])
        pts.append(d)
        print(f"    beam {n} elements: {d['n']} unknowns, {d['per_step'] * 1e3:.3f} ms per step, "
              f"peak RSS {d['peak_mb']:.0f} MB", flush=True)
    if len(pts) >= 2:
        x = np.log([p["n"] for p in pts])
        y = np.log([p["per_step"] for p in pts])
        slope_all = np.polyfit(x, y, 1)[0]
        slope_top = (y[-1] - y[-2]) / (x[-1] - x[-2])
        row("cost per midpoint step vs unknowns (log-log slope, largest pair)", slope_top, None, "-",
            lambda o, p, r: o <= 1.1,
            f"slope over all sizes {slope_all:.2f}; {pts[-1]['n']} unknowns: "
            f"{pts[-1]['per_step'] * 1e3:.2f} ms/step, peak RSS {pts[-1]['peak_mb']:.0f} MB")


# ---------------------------------------------------------------- crank-slider from the command line
def cli(quick):
    """The stiffened crank-slider run from the command line in fresh processes against Exudyn's
    solve in fresh processes, pair by pair (``crank_slider_cli.py``)."""
    import crank_slider_cli
    stepping, solve, ratio = crank_slider_cli.main(["--repeat", "3" if quick else "5"])
    row("crank-slider CLI, 4 el. stiffened, 0.1 s, fresh process (stepping)", stepping, solve, "Exudyn",
        lambda o, p, r: ratio is not None and ratio <= 2.0,
        f"median ratio of the pairs {ratio:.2f}" if ratio is not None else "Exudyn not installed")


def loading(quick):
    """Loading the crank-slider's kernels in a fresh process with phmech's loader of the cache
    against numba's own (``kernel_loading.py``)."""
    import kernel_loading
    ours, numbas, ratio = kernel_loading.main(["--repeat", "3" if quick else "5"])
    row("kernel loading of the CLI crank-slider, fresh process", ours, numbas, "numba loader",
        lambda o, p, r: o <= 0.05, f"target 0.05 s; median ratio of the pairs {ratio:.2f}")


# ---------------------------------------------------------------- chains and Bricard vs Exudyn
def mechanisms(quick):
    """Per-step time of the spatial chain (N = 5 ... 320), the planar chain (N = 5, 20, 80) and
    Bricard's mechanism against the same models in Exudyn (``spatial_chain.py``)."""
    import spatial_chain
    sizes = [5, 20, 80] if quick else [5, 20, 80, 320]
    rows = spatial_chain.main(["--sizes", *map(str, sizes), "--planar-sizes", "5", "20", "80",
                               "--t-end", "0.2" if quick else "0.5", "--bricard-t-end", "2" if quick else "10"])
    within = (lambda o, p, r: r is not None and r <= 2.0)
    for kind, label in (("spatial", "spatial chain"), ("planar", "planar chain")):
        for n, ours, peer in rows.get(kind, []):
            row(f"{label}, N = {n}, per midpoint step", ours, peer, "Exudyn", within)
    if "bricard" in rows:
        row("Bricard (box links), per midpoint step", *rows["bricard"], "Exudyn", within)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="smaller grids and spans")
    p.add_argument("--only", nargs="+", choices=["crank_slider", "cli", "loading", "classic", "four_bar", "hinged", "growth",
                                                  "mechanisms"])
    p.add_argument("--json", default=None, help="also write the table to this file")
    args = p.parse_args(argv)
    sys.argv[1:] = []
    parts = {"crank_slider": crank_slider, "cli": cli, "loading": loading, "classic": classic, "four_bar": four_bar, "hinged": hinged,
             "growth": growth, "mechanisms": mechanisms}
    for name in args.only or parts:
        print(f"\n== {name}", flush=True)
        parts[name](args.quick)
    print(f"\n{'benchmark':66s} {'phmech [s]':>11s} {'peer [s]':>10s} {'peer':>12s} {'ratio':>7s}  target")
    for r in ROWS:
        fmt = (lambda x: f"{x:.4g}" if x is not None else "-")
        met = "" if r["met"] is None else ("met" if r["met"] else "NOT met")
        print(f"{r['name'][:66]:66s} {fmt(r['phmech']):>11s} {fmt(r['peer']):>10s} {r['peer_name'][:12]:>12s} "
              f"{fmt(r['ratio']):>7s}  {met}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(ROWS, fh, indent=1)


if __name__ == "__main__":
    main()

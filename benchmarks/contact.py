"""Per-step cost of the contact schemes on the quick contact cases, before and after.

Runs each case (Moreau and the nonsmooth generalized-alpha method on the
rotating bouncing ball, case 4; the tippe top; Newton's cradle with gaps;
the block on the incline) in a fresh process for every version given, in
the same run, and prints the wall time of the run (kernel loading
excluded: one short warm-up run first) and the time per step:

* ``compiled``: this checkout;
* ``python``: this checkout with ``NUMBA_DISABLE_JIT=1`` (the same kernel
  sources run as Python);
* ``--baseline DIR``: another checkout (e.g. ``git archive main | tar -x -C DIR``).

    python benchmarks/contact.py [--baseline DIR] [--no-python] [--repeat 2]
"""
import argparse
import json
import os
import subprocess
import sys
import time
import warnings

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: name -> (module, function, keyword arguments, steps)
CASES = {
    "bouncing ball 4, moreau, dt 2e-3": ("phmech.validation.bouncing_ball", "run",
                                         dict(case=4, dt=2e-3, solver="moreau"), 750),
    "bouncing ball 4, nsgenalpha, dt 2e-3": ("phmech.validation.bouncing_ball", "run",
                                             dict(case=4, dt=2e-3, solver="nsgenalpha"), 750),
    "tippe top 0.1 s, moreau, dt 1e-4": ("phmech.validation.tippe_top", "run",
                                         dict(t_end=0.1, dt=1e-4, solver="moreau"), 1000),
    "tippe top 0.1 s, nsgenalpha, dt 2e-4": ("phmech.validation.tippe_top", "run",
                                             dict(t_end=0.1, dt=2e-4, solver="nsgenalpha"), 500),
    "cradle (gaps), moreau, dt 2e-3": ("phmech.validation._contact_simple", "run_cradle",
                                       dict(gap=0.009, dt=2e-3, solver="moreau"), 100),
    "block on incline, moreau_shifted, dt 2e-3": ("phmech.validation._contact_simple", "run_block",
                                                  dict(dt=2e-3, solver="moreau_shifted"), 1250),
}


#: the end time of the warm-up runs that need one (the cradle's four impacts end at 0.036 s)
WARM_UP = {"run_cradle": 0.05}


def _child(name, repeat):
    """Run one case (after a short warm-up of the same kind) and print its best time as JSON."""
    import importlib
    warnings.simplefilter("ignore")
    mod, fun, kw, steps = CASES[name]
    run = getattr(importlib.import_module(mod), fun)
    run(**dict(kw, t_end=WARM_UP.get(fun, 10 * kw["dt"])))       # kernel loading and first calls
    best = float("inf")
    for _ in range(repeat):
        tic = time.perf_counter()
        run(**kw)
        best = min(best, time.perf_counter() - tic)
    print(json.dumps({"wall": best, "per_step": best / steps}))


def _measure(name, path, env_extra, repeat):
    env = dict(os.environ, PYTHONPATH=path, **env_extra)
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", name, "--repeat", str(repeat)],
                         env=env, capture_output=True, text=True, cwd="/tmp")
    if out.returncode:
        return None, out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"
    return json.loads(out.stdout.strip().splitlines()[-1]), None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--baseline", help="checkout of the version to compare with")
    p.add_argument("--no-python", action="store_true", help="skip the NUMBA_DISABLE_JIT run")
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    p.add_argument("--child", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        _child(a.child, a.repeat)
        return 0
    versions = ([("baseline", a.baseline, {})] if a.baseline else []) + [("compiled", HERE, {})]
    if not a.no_python:
        versions.append(("python", HERE, {"NUMBA_DISABLE_JIT": "1"}))
    print(f"{'case':44s}" + "".join(f"{v:>22s}" for v, _, _ in versions) + "   (wall s / ms per step)")
    for name in a.cases:
        cells = []
        for _, path, env in versions:
            r, err = _measure(name, path, env, a.repeat)
            cells.append(f"{r['wall']:9.2f} {1e3 * r['per_step']:8.3f}   " if r else f"{'error':>22s}")
            if err:
                print(f"  {name}: {err}", file=sys.stderr)
        print(f"{name:44s}" + "".join(f"{c:>22s}" for c in cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

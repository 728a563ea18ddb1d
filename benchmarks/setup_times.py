"""Cold and warm set-up time of the validation cases' models, each in a fresh process.

Set-up is everything before the first time step: the imports, building the
bodies and joints (Firedrake assembly, or the FE cache of
:mod:`phmech.fem.cache`), assembling the descriptor DAE and the consistent
initial state.  *Cold* runs with an empty FE cache, *warm* with the cache
that the cold run filled (Firedrake's own kernel cache is warm in both).
The last column says whether the warm process imported Firedrake at all.

    python benchmarks/setup_times.py
"""
import os
import subprocess
import sys
import tempfile

CASES = {
    "crank_slider": "from phmech.validation.crank_slider import build; s, _ = build(8)",
    "crank_slider (stiffened)": "from phmech.validation.crank_slider import build; s, _ = build(8, True)",
    "four_bar": "from phmech.validation.four_bar import build; s = build(6)[0]",
    "hinged_beam": "from phmech.validation.hinged_beam import build; s, _ = build(6)",
    "spin_up": "from phmech.validation.spin_up import build; s = build('stiffened', 8)[0]",
    "spatial_pendulum": "from phmech.validation.spatial_pendulum import build; s = build('flexible', EI=1.0)[0]",
    "bricard": "from phmech.validation.bricard import build; s = build()[0]",
    "simeon_crank / andrews": ("from phmech.validation._classic_models import SimeonCrank, AndrewsSqueezer; "
                               "import numpy as np; p = SimeonCrank().index2_problem(); "
                               "p.f(0.0, SimeonCrank().y0); p = AndrewsSqueezer().index2_problem(); "
                               "p.f(0.0, AndrewsSqueezer().y0); s = None"),
}

CHILD = """
import sys, time
tic = time.perf_counter()
{code}
if s is not None:
    d = s.assemble()
    d.initial_state()
print("RESULT", time.perf_counter() - tic, "firedrake" in sys.modules)
"""


def measure(code, cache_dir):
    env = {**os.environ, "PHMECH_CACHE_DIR": cache_dir}
    out = subprocess.run([sys.executable, "-c", CHILD.format(code=code)], capture_output=True, text=True,
                         env=env, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT")]
    if not line:
        return None, out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "no output"
    t, fd = line[0].split()[1:]
    return float(t), fd == "True"


def main():
    print(f"{'case':28s} {'cold [s]':>9s} {'warm [s]':>9s} {'ratio':>7s}  Firedrake imported when warm")
    for name, code in CASES.items():
        with tempfile.TemporaryDirectory() as d:
            cold, _ = measure(code, d)
            warm, fd = measure(code, d)
        if cold is None or warm is None:
            print(f"{name:28s} failed: {_ if cold is None else fd}")
            continue
        print(f"{name:28s} {cold:9.2f} {warm:9.2f} {cold / warm:7.1f}  {fd}", flush=True)


if __name__ == "__main__":
    main()

"""Cold and warm set-up time of the validation cases' models, each in a fresh process.

Set-up is everything before the first time step: the imports, building the
bodies and joints (Firedrake assembly, or the FE cache of
:mod:`phmech.fem.cache`), assembling the descriptor DAE and the consistent
initial state (the cases' model functions for the nonsmooth and network
cases; the beams of the convergence study, whose error norms against the
closed-form solutions are Firedrake integrals and import it in any case).
The comparison models without pH assembly (``crank_slider_reduced``,
``spin_up_reduced``, ``four_bar_frame``) have no set-up to speak of.  *Cold* runs with an empty FE cache, *warm* with the cache
that the cold run filled (Firedrake's own kernel cache is warm in both).
The last column says whether the warm process imported Firedrake at all.

    python benchmarks/setup_times.py
"""
import os
import subprocess
import sys
import tempfile

CASES = {
    "crank_slider": "from phmech.mechanisms import flexible_crank_slider as build; s, _ = build(8)",
    "crank_slider (stiffened)": "from phmech.mechanisms import flexible_crank_slider as build; s, _ = build(8, True)",
    "four_bar": "from phmech.mechanisms import flexible_four_bar; s = flexible_four_bar(6)[0]",
    "hinged_beam": "from phmech.mechanisms import hinged_spatial_beam; s, _ = hinged_spatial_beam(6)",
    "hinged_beam (consistent)": "from phmech.mechanisms import hinged_spatial_beam; s, _ = hinged_spatial_beam(6, geometric_stiffness=True)",
    "plate_modes (all plates of the default run)": (
        "from phmech.validation import plate_modes as pm; from phmech.fem import KirchhoffPlate, MindlinPlate; "
        "D = 12 * (1 - pm.NU ** 2); "
        "ps = [KirchhoffPlate('p', pm.square(N), 1.0, 1.0, D, pm.NU, degree=k, boundary=bc) for k in (1, 2, 3) "
        "for N in pm.DEFAULT_MESHES[k] for bc in (pm.SS_ALL, pm.CANTILEVER)]; "
        "ps += [KirchhoffPlate('p', pm.disk(r, k), 1.0, 1.0, D, pm.NU, degree=k, boundary={1: 'clamped'}) "
        "for k in (1, 2, 3) for r in pm.DISC_MESHES[k]]; "
        "ps += [MindlinPlate('p', pm.square(N), h, 1.0 / h, D / h ** 3, pm.NU, degree=k, boundary=pm.SS_ALL) "
        "for k in (2, 3) for N in pm.DEFAULT_MESHES[k] for h in (0.01, 0.1, 0.2)]; s = None"),
    "plate_rigid (3 models)": ("from phmech.validation.plate_rigid import PlateRod, MODELS; "
                               "m = [PlateRod(v, 8, 2).problem() for v in MODELS]; s = None"),
    "actuated_plate (level 1)": ("from phmech.validation.actuated_plate import ActuatedPlate; "
                                 "m = ActuatedPlate(0.28, 2, 1); s = None"),
    "spin_up": "from phmech.validation.spin_up import build; s = build('stiffened', 8)[0]",
    "spatial_pendulum": "from phmech.validation.spatial_pendulum import build; s = build('flexible', EI=1.0)[0]",
    "bricard": "from phmech.validation.bricard import build; s = build()[0]",
    "beam_convergence (5 meshes)": ("from phmech.fem.beam import SimplySupportedBeam; "
                                    "from phmech.validation.beam_convergence import DATA, _section; "
                                    "A, I = _section(DATA); [SimplySupportedBeam('b', DATA['L'], n, DATA['rho'], "
                                    "A, DATA['E'], I).M for n in (4, 8, 16, 32, 64)]; s = None"),
    "bouncing_ball": "from phmech.validation.bouncing_ball import model; model(1); s = None",
    "contact_cases (block, cradle)": ("from phmech.validation._contact_simple import block_model, cradle_model; "
                                      "block_model(); cradle_model(); s = None"),
    "contact_cases (flexible beam)": "from phmech.validation._contact_beam import beam_model; beam_model(); s = None",
    "tippe_top": "from phmech.validation.tippe_top import model; model(); s = None",
    "mass_spring (bridge)": "from phmech.validation._mass_spring_cases import bridge; bridge(); s = None",
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
    print(f"{'case':44s} {'cold [s]':>9s} {'warm [s]':>9s} {'ratio':>7s}  Firedrake imported when warm")
    for name, code in CASES.items():
        with tempfile.TemporaryDirectory() as d:
            cold, _ = measure(code, d)
            warm, fd = measure(code, d)
        if cold is None or warm is None:
            print(f"{name:44s} failed: {_ if cold is None else fd}")
            continue
        print(f"{name:44s} {cold:9.2f} {warm:9.2f} {cold / warm:7.1f}  {fd}", flush=True)


if __name__ == "__main__":
    main()

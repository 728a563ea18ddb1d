"""Every script of the example gallery (``docs/examples/plot_*.py``) runs its ``run(quick=True)`` and
checks its number against the analytic or published reference of its page, written here again with
a tolerance the method guarantees; the scripts with the line ``NEEDS_FIREDRAKE = True`` are skipped
without Firedrake, and ``docs/conf.py`` leaves exactly those out of a build without it.

A new script must get its entry in :data:`CHECKS` (the test of the list says so).
"""
import importlib.util
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from scipy.optimize import brentq

from conftest import HAVE_FIREDRAKE

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "docs", "examples")
G = 9.81
HAVE_VTK = importlib.util.find_spec("vtk") is not None


def load(name):
    """The gallery script ``plot_<name>.py`` as a module (its ``__main__`` part not run)."""
    path = os.path.join(EXAMPLES, f"plot_{name}.py")
    spec = importlib.util.spec_from_file_location(f"gallery_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def needs_firedrake(name):
    with open(os.path.join(EXAMPLES, f"plot_{name}.py"), encoding="utf-8") as f:
        return re.search(r"^NEEDS_FIREDRAKE = True\b", f.read(), re.M) is not None


# -- the checks: name -> function(module, out) asserting the example's number --------------------
def check_rigid_crank_slider(m, out):
    # loop closure to the midpoint rule's O(dt^2) (dt = 1e-4, omega dt = 0.015); power balance exact
    assert out["position_error"] < 1e-5
    assert out["energy_balance"] < 1e-7


def check_andrews(m, out):
    assert out["digits"] > 6.0                  # Radau IIA at the case's tolerances vs PSIDE's reference


def check_pendulum_modes(m, out):
    exact = math.sqrt(3 * G / (2 * m.L))        # compound pendulum
    assert out["angle"] == pytest.approx(-math.pi / 2, abs=1e-10)
    assert out["omega"] == pytest.approx(exact, rel=1e-10)      # dense Hermitian eigenproblem
    # midpoint rule's period error (omega dt)^2 / 12 with omega dt = 2 pi / 100
    assert out["period"] == pytest.approx(2 * math.pi / exact, rel=2 * (2 * math.pi / 100) ** 2 / 12)


def check_conical_pendulum(m, out):
    theta = np.arccos(3 * G / (2 * m.L * out["rates"] ** 2))
    np.testing.assert_allclose(out["theta"], theta, atol=1e-9)
    np.testing.assert_allclose(out["omega"], out["rates"] * np.sin(theta), rtol=1e-7)


def check_force_elements(m, out):
    L, mr = m.L_ROD, m.M_ROD
    a = m.STRETCH * m.A_REST
    T = m.K_PT * (a - m.A_REST)
    w2 = [(m.K_T + m.K_TIP * L**2) / (mr * L**2 / 3), 2 * m.K_PT / m.M_PT, 2 * T / (m.M_PT * a),
          200.0 / 2.0, 200.0 / 2.0, 0.5 / 0.01]
    np.testing.assert_allclose(out["omega"], np.sort(np.sqrt(w2)), rtol=1e-9)
    assert out["energy_drift"] < 1e-6           # midpoint rule: quadratic springs' energy kept


def check_damped_modes(m, out):
    assert out["omega"] == pytest.approx(math.sqrt(m.K / m.M), rel=1e-10)
    zeta = m.C / (2 * math.sqrt(m.K * m.M))
    assert out["zeta"] == pytest.approx(zeta, rel=1e-10)
    # the decrement between sampled peaks (dt = 1e-3, omega dt = 0.015): to a few 1e-3
    assert out["decrement"] == pytest.approx(2 * math.pi * zeta / math.sqrt(1 - zeta**2), rel=5e-3)


def check_user_force_law(m, out):
    roots = np.roots([m.K3, 0.0, m.K1, -m.M * G])
    d = float(roots[np.argmin(np.abs(roots.imag))].real)
    assert out["stretch"] == pytest.approx(d, rel=1e-9)
    assert out["omega"] == pytest.approx(math.sqrt((m.K1 + 3 * m.K3 * d**2) / m.M), rel=1e-8)


def check_initial_velocities(m, out):
    # energy: cos(theta_max) = 1 - w0^2 L / (3 g); the peak sampled every 1e-3 s near the turning point
    assert out["theta_max"] == pytest.approx(math.acos(1 - m.W0**2 * m.L / (3 * G)), abs=1e-5)
    assert out["range"] == pytest.approx(m.V**2 * math.sin(2 * m.ALPHA) / G, rel=1e-12)


def check_torque_free_top(m, out):
    lam = (m.I3 - m.I1) / m.I1 * m.W3           # Euler's equations, symmetric body
    assert out["rate"] == pytest.approx(lam, rel=(lam * 2e-3) ** 2 / 12 * 2)   # midpoint phase error
    assert out["energy_drift"] < 1e-12


def check_bricard(m, out):
    assert [name for name, _ in out["redundant"]] == ["J6"]     # one redundant closure row
    assert np.all(np.abs(out["order"] - 2.0) < 0.15), out["order"]


def check_mass_spring_string(m, out):
    n = out["n"]
    s = np.sin(np.arange(1, n + 1) * np.pi / (2 * (n + 1)))
    T = m.K * (m.A - m.L0)
    exact = np.sort(np.concatenate([2 * np.sqrt(m.K / m.M) * s, 2 * np.sqrt(T / m.A / m.M) * s])) / (2 * np.pi)
    np.testing.assert_allclose(out["freq_hz"], exact, rtol=1e-10)


def check_bouncing_ball(m, out):
    e, r = m.E_N, m.R
    # apex after the first bounce: r + e^2 (1 - r); Moreau's impact falls within a step (dt = 1e-3)
    assert out["apex"] == pytest.approx(r + e**2 * (1 - r), abs=5e-3)
    # the Zeno point: the bounces shorter than a step end the series within a few steps (first order)
    t_zeno = math.sqrt(2 * (1 - r) / G) * (1 + e) / (1 - e)
    assert out["rest_time"] == pytest.approx(t_zeno, abs=2e-2)


def check_block_on_incline(m, out):
    a = G * (m.MU * math.cos(m.ALPHA) - math.sin(m.ALPHA))
    assert out["t_stop"] == pytest.approx(m.V0 / a, abs=out["dt"] * 1.01)       # within one step
    assert out["distance"] == pytest.approx(m.V0**2 / (2 * a), rel=1e-2)


def check_newtons_cradle(m, out):
    exact = np.zeros(m.N)
    exact[-1] = m.V                              # equal masses, e_N = 1: the velocities handed on
    np.testing.assert_allclose(out["velocities"], exact, atol=1e-10)
    # the percussion falls in the step whose midpoint gap is closed: up to one step after the touch
    late = out["impact_times"] - np.arange(1, m.N) * m.GAP / m.V
    assert np.all(late > -1e-12) and np.all(late < 1.5 * out["dt"]), late


def check_checkpoint_restart(m, out):
    assert out["difference"] == 0.0             # bit-exact restart of the midpoint rule
    assert out["saved_t_end"] == pytest.approx(0.02)


def check_outputs(m, out):
    assert out["frames"] == math.ceil(out["rows"] / out["every"])
    assert os.path.getsize(out["html"]) > 1000 and os.path.isfile(out["csv"])
    assert out["energy_drift"] < 1e-3           # H + V of the midpoint rule, O(dt^2) at dt = 2e-3


def check_parameter_study(m, out):
    assert out["slope"] == pytest.approx(-0.5, abs=1e-10)       # omega = sqrt(3 g / 2 L)
    assert out["mass_spread"] < 1e-12


def check_beam_cantilever_modes(m, out):
    f = lambda x: math.cos(x) * math.cosh(x) + 1.0
    exact = [brentq(f, a, b) for a, b in ((1.5, 2.5), (4.5, 5.0), (7.5, 8.0))]    # 1.8751, 4.6941, 7.8548
    # 8 elements: the cubic Hermite element's error (h^4 in the frequencies), 3e-4 at the third mode
    assert np.all(np.abs(out["beta_l"] - exact) <= np.array([1e-5, 1e-4, 5e-4]) * exact), (out["beta_l"], exact)


def check_plate_modes(m, out):
    # Navier: pi^2 (m^2 + n^2); CG2/HHJ1 on an 8 x 8 mesh, second order: within 1 %
    np.testing.assert_allclose(out["lam"], np.pi**2 * np.array([2.0, 5.0, 5.0, 8.0]), rtol=1e-2)


def _rod_with_tip_mass(L=2.0, rho_a=3.0, ea=1200.0, tip=1.5):
    """beta L tan(beta L) = rho A L / M (longitudinal bar with a tip mass), as omega."""
    x = brentq(lambda x: x * math.tan(x) - rho_a * L / tip, 1e-9, math.pi / 2 - 1e-9)
    return x / L * math.sqrt(ea / rho_a)


def check_form_body_rod(m, out):
    exact = _rod_with_tip_mass()
    err = np.abs(out["omega"] - exact) / exact
    assert err[-1] < 2e-4
    assert math.log2(err[0] / err[1]) == pytest.approx(2.0, abs=0.2)       # P1/DG0: second order


def _timoshenko_ss(n, L=0.5, h=0.1, b=0.05, rho=7800.0, E=2.1e11, nu=0.3, kappa=5.0 / 6.0):
    """The lower root of the simply supported Timoshenko frequency equation, mode n."""
    A, I = b * h, b * h ** 3 / 12
    kga, k = kappa * E / (2 * (1 + nu)) * A, n * math.pi / L
    f = lambda w: (kga * k ** 2 - rho * A * w ** 2) * (E * I * k ** 2 + kga - rho * I * w ** 2) - (kga * k) ** 2
    eb = k ** 2 * math.sqrt(E * I / (rho * A))          # Euler-Bernoulli: above the Timoshenko root
    return brentq(f, 1e-6 * eb, eb)


def check_large_deflection(m, out):
    # Mattiasson (1981), Table 1; 8 quadratic elements: error of order 3e-4 at alpha = 10 (h^4)
    published = {1.0: 0.30172, 2.0: 0.49346, 5.0: 0.71379, 10.0: 0.81061}
    for a, w in published.items():
        assert abs(out["w"][a] - w) < 1e-3


def check_timoshenko_pendulum(m, out):
    exact = np.array([_timoshenko_ss(1), _timoshenko_ss(2)])
    err = np.abs(out["omega"] / exact - 1.0)
    assert np.all(err[-1] < 5e-3)                                     # 32 elements: 1.1e-3, 3.8e-3
    rates = np.log2(err[:-1] / err[1:])
    assert np.all(np.abs(rates - 2.0) < 0.2), rates                 # P1/DG0: second order
    assert out["balance"] < 1e-9 * out["energy"]                    # the midpoint rule's power balance
    # hanging: the rigid compound pendulum, I = rho A L^3 / 3 + rho I L + M L^2 (rho I L is 0.3 % of I)
    L, rhoA, rhoI, tip = 0.5, 7800.0 * 0.005, 7800.0 * 0.05 * 0.1 ** 3 / 12, 20.0
    rigid = math.sqrt(9.81 * (rhoA * L ** 2 / 2 + tip * L) / (rhoA * L ** 3 / 3 + rhoI * L + tip * L ** 2))
    assert out["swing"] == pytest.approx(rigid, rel=1e-5)                 # measured 4.6e-7 below


def check_reduced_body(m, out):
    assert out["full"] == pytest.approx(_rod_with_tip_mass(), rel=1e-4)
    w = out["omega"]
    assert np.all(np.diff(w) <= 1e-12 * w[0]) and np.all(w >= out["full"] * (1 - 1e-12))   # from above
    assert w[-1] == pytest.approx(out["full"], rel=1e-4)
    assert out["n_reduced"] < out["n_full"]


def check_consistent_beam_campbell(m, out):
    flap = np.array([3.5160, 4.1373, 5.5850, 7.3604, 9.2568, 11.2023])        # Wright et al. 1982
    speeds = np.array([0.0, 2.0, 4.0, 6.0, 8.0, 10.0])
    # 6 elements (the quick model): within 1.3 % up to Omega = 10, the mesh error growing with the speed
    np.testing.assert_allclose(out["chordwise"], np.sqrt(flap**2 - speeds**2), rtol=2e-2)


def check_four_bar_study(m, out):
    assert out["f1_hz"][1] == pytest.approx(out["direct_f1_hz"], rel=1e-9)
    assert np.all(out["f1_hz"] < out["f2_hz"]) and np.all(out["f2_hz"] < out["f3_hz"])


def check_crank_slider_study(m, out):
    for E, d in out["deflection"].items():
        assert np.all(np.diff(d) > 0), (E, d)   # the inertia load grows with the crank speed
    assert np.all(out["stiffness_ratio"] > 1.0)  # the softer coupler bends more


CHECKS = {name[len("check_"):]: fn for name, fn in globals().items() if name.startswith("check_")}
#: examples slower than a few seconds (compiled kernels, warm cache), marked slow
SLOW = {"crank_slider_study"}


def _params():
    for name in sorted(CHECKS):
        marks = [pytest.mark.slow] if name in SLOW else []
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", list(_params()))
def test_example(name, tmp_path, monkeypatch):
    if needs_firedrake(name) and not HAVE_FIREDRAKE:
        pytest.skip("Firedrake is not installed")
    if name == "outputs" and not HAVE_VTK:
        pytest.skip("vtk is not installed (the io extra)")
    monkeypatch.chdir(tmp_path)
    m = load(name)
    kw = {"folder": str(tmp_path)} if name in ("outputs", "checkpoint_restart") else {}
    out = m.run(quick=True, **kw)
    CHECKS[name](m, out)


def test_every_script_has_a_check_and_a_run():
    names = sorted(f[len("plot_"):-3] for f in os.listdir(EXAMPLES) if f.startswith("plot_") and f.endswith(".py"))
    assert sorted(CHECKS) == names
    assert len(names) >= 20
    for name in names:
        text = open(os.path.join(EXAMPLES, f"plot_{name}.py"), encoding="utf-8").read()
        assert text.startswith('"""\n') and "\ndef run(quick=True" in text, name
        assert 'if __name__ == "__main__":' in text, name


def test_docs_conf_leaves_out_the_firedrake_scripts_without_firedrake():
    """conf.py imported with Firedrake hidden: the gallery ignores exactly the scripts that need it
    (by their names and by their paths), and the note of the gallery's index names them."""
    code = (
        "import sys, runpy, re, json\n"
        "sys.modules['firedrake'] = None\n"
        f"ns = runpy.run_path({os.path.join(ROOT, 'docs', 'conf.py')!r})\n"
        "pat = ns['sphinx_gallery_conf']['ignore_pattern']\n"
        f"names = sorted(__import__('os').listdir({EXAMPLES!r}))\n"
        "print(json.dumps({'skipped': ns['SKIPPED_EXAMPLES'], 'prolog': ns['rst_prolog'],\n"
        "    'ignored': [n for n in names if re.search(pat, n)],\n"
        "    'ignored_paths': [n for n in names if re.search(pat, '/x/' + n)]}))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "MPLBACKEND": "Agg"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    import json
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    want = sorted(f"plot_{n}.py" for n in CHECKS if needs_firedrake(n))
    assert len(want) >= 5
    # sphinx-gallery matches the pattern against the file's name (its older versions: the path)
    assert got["skipped"] == want and got["ignored"] == want and got["ignored_paths"] == want
    assert all(n[:-3] in got["prolog"] for n in want)
    readme = open(os.path.join(EXAMPLES, "README.rst"), encoding="utf-8").read()
    assert ".. only:: no_firedrake" in readme and "|skipped_examples|" in readme

"""The compiled Newton iteration of the first-order generalized-alpha method
(phmech.solvers.genalpha_kernels) reproduces the Python iteration, and is second order."""
import numpy as np
import pytest

from phmech.kernels.jit import numba
from phmech.solvers import solve
from phmech.solvers.genalpha import GeneralizedAlpha

pytestmark = pytest.mark.skipif(numba is None, reason="numba is not installed")


def _free_spinning_box():
    from phmech import SpatialRigidBody, System
    return System([SpatialRigidBody("box", 2.0, np.diag([0.1, 0.2, 0.3]), center=(0.1, 0.0, 0.05))])


def _model(name):
    from mechanisms import rigid_crank_slider
    from phmech.mechanisms import flexible_crank_slider, hinged_spatial_beam
    return {"rigid crank-slider": lambda: rigid_crank_slider()[0],
            "linear-frame crank-slider": lambda: flexible_crank_slider(4, geometric_stiffness=False)[0],
            "hinged spatial beam": lambda: hinged_spatial_beam(2)[0],    # quaternions, spherical joint, loads
            "free spinning box": _free_spinning_box}[name]()             # spatial, no constraints


def _initial_state(model, dae):
    if model == "free spinning box":      # tumbling about the intermediate axis, drifting
        return dae.initial_state(0.0, e0=np.array([0.1, 0.0, 0.2, 0.05, 5.0, 0.1]))
    return dae.initial_state()


# (model, t_end, dt, options): the default (factors kept over steps, refreshed after a slow
# contraction inside a step) and a factorization in every step
CASES = [("rigid crank-slider", 0.03, 1e-4, {}),
         ("rigid crank-slider", 0.03, 1e-4, {"reuse_jacobian": False, "rho_inf": 0.5}),
         ("linear-frame crank-slider", 0.03, 1e-4, {}),
         ("hinged spatial beam", 0.3, 1e-3, {"rho_inf": 0.7}),
         ("free spinning box", 2.0, 1e-2, {"rho_inf": 1.0})]


@pytest.mark.parametrize("model, t_end, dt, options", CASES, ids=[f"{c[0]} {c[3]}" for c in CASES])
def test_compiled_iteration_equals_python_iteration(model, t_end, dt, options, monkeypatch):
    """Same steps, residual evaluations, Jacobians and factorizations as the Python iteration,
    and the same trajectory to round-off; with kept factors the kernel resumes after factorizations
    inside a step (its residual handed over), which is therefore exercised too."""
    from phmech.solvers import genalpha_kernels as cg

    calls = {"all": 0, "resumed": 0}
    kernel = cg.genalpha_newton

    def counting(*args):
        calls["all"] += 1
        calls["resumed"] += bool(args[13] and args[16])     # it0 > 0 and r_given: a refresh inside a step
        return kernel(*args)

    monkeypatch.setattr(cg, "genalpha_newton", counting)
    s = _model(model)
    dae = s.assemble()
    y0 = _initial_state(model, dae)
    assert GeneralizedAlpha(dae, 0.0, y0, t_end, dt=dt)._kernel is not None
    assert GeneralizedAlpha(dae, 0.0, y0, t_end, dt=dt, compiled=False)._kernel is None
    a, b = (solve(dae, (0.0, t_end), y0, method="genalpha", dt=dt, compiled=compiled, **options)
            for compiled in (True, False))
    assert calls["all"] >= a.stats["nsteps"]
    if model != "free spinning box" and options.get("reuse_jacobian") is None:
        assert calls["resumed"] > 0
    for key in ("nsteps", "nfev", "njev", "nlu"):
        assert a.stats[key] == b.stats[key], key
    assert a.stats["nsteps"] == round(t_end / dt)
    # per component, relative to its largest value (components that stay at round-off size
    # compared on 1e-6 of the largest state): the two paths sum in different orders
    scale = np.maximum(np.max(np.abs(b.y), axis=0), 1e-6 * np.max(np.abs(b.y)))
    assert np.max(np.abs(a.y - b.y) / scale) < 1e-10
    assert np.max(np.abs(a.constraint_residual())) < 1e-9 * np.max(np.abs(b.y))


def test_compiled_path_second_order_on_crank_slider():
    """Rigid crank-slider on the compiled path: second order in the slider's position and
    velocity against the exact kinematics, and in the multipliers (differences of successive
    halvings, which shrink by 4 in a second-order method)."""
    from mechanisms import L1, L2, OMEGA, rigid_crank_slider, slider_position_exact
    s, *_ = rigid_crank_slider()
    dae = s.assemble()
    y0 = dae.initial_state()
    assert GeneralizedAlpha(dae, 0.0, y0, 1.0, dt=1e-3)._kernel is not None
    labels = dae.labels()
    ix, iv = labels.index("slider.q.x"), labels.index("slider.e.vx")
    T = 0.02
    th = OMEGA * T
    x_exact = slider_position_exact(T)
    v_exact = -L1 * OMEGA * np.sin(th) - L1 ** 2 * OMEGA * np.sin(th) * np.cos(th) / np.sqrt(
        L2 ** 2 - (L1 * np.sin(th)) ** 2)
    errs, lams = [], []
    for n in (50, 100, 200, 400, 800):
        res = solve(dae, (0.0, T), y0, method="genalpha", dt=T / n, rho_inf=0.8)
        y = res.y[-1]
        errs.append([abs(y[ix] - x_exact), abs(y[iv] - v_exact)])
        lams.append(y[dae.sl])
    rates = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    dl = [np.max(np.abs(lams[k] - lams[k + 1])) for k in range(len(lams) - 1)]
    rates_lam = np.log2(np.array(dl[:-1]) / np.array(dl[1:]))
    assert rates.shape == (4, 2) and rates_lam.size == 3
    assert np.all(np.abs(rates - 2) < 0.1), rates
    assert np.all(np.abs(rates_lam - 2) < 0.2), rates_lam

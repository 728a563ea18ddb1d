"""Mass-spring networks with the generalized-alpha method, checked against exact solutions.

The four examples of the source document (``seeds/002``) with their step
counts, each with two refinements and the observed orders:

* ``pendulum``: rigid pendulum from a distance constraint, released
  horizontally (``simulate(5.0, 600)``): position against the elliptic
  solution, period against ``4 sqrt(L/g) K(sin(pi/4))``;
* ``chain``: the source's hanging chain (10 masses, springs,
  ``simulate(5.0, 800)``) against its exact modal solution; the chain between
  two supports, with springs and with distance constraints: static
  equilibrium and tensions against the shooting solution, the lowest
  natural frequencies against an independent linearization and against
  the period of the simulated mode;
* ``bridge``: a cross-braced box lattice under gravity and a periodic load,
  against Radau IIA at tight tolerances, with its energy account;
* ``kreisel``: spinning ring of 12 masses: steady spinning radius from the
  force balance, the breathing motion against the reduced radial equation,
  conservation of angular momentum and energy;
* ``stability``: a four-link chain of distance constraints with ``rho_inf = 1``
  over a long run (drift, multipliers, energy).

    python -m phmech.validation.mass_spring --outdir out/mass_spring [--animate]
"""
import argparse
import inspect
import sys
import warnings

import numpy as np

from ..solvers import solve
from . import _common
from . import _mass_spring_cases as cases

CASES = ("pendulum", "chain", "bridge", "kreisel", "stability")


def _orders(errors):
    e = np.asarray(errors, float)
    return np.log2(e[:-1] / e[1:]).tolist()


def run_pendulum(steps=600, tend=5.0, rho_inf=0.8, refinements=2):
    """Pendulum error table; ``result`` is the run at ``steps``."""
    pos_err, period_err, runs = [], [], []
    _, T_exact = cases.pendulum_exact(0.0)
    for r in range(refinements + 1):
        n = steps * 2 ** r
        mss = cases.pendulum()
        ev = lambda t, y: y[0]                                            # noqa: E731
        res = mss.simulate(tend, n, rho_inf=rho_inf, events=[ev])
        exact = cases.pendulum_exact(res.t)[0]
        pos_err.append(float(np.max(np.linalg.norm(res.positions()[:, 0] - exact, axis=1))))
        tc = res.t_events[0]                    # zeros of x: T/4, 3T/4, ... (released at x = L)
        if not len(tc):
            raise ValueError(f"pendulum: tend = {tend} is shorter than a quarter period ({T_exact / 4:.4g} s)")
        T_num = 2 * float(np.mean(np.diff(tc))) if len(tc) > 1 else 4 * float(tc[0])
        period_err.append(abs(T_num - T_exact))
        runs.append(res)
    return {"result": runs[0], "steps": [steps * 2 ** r for r in range(refinements + 1)],
            "summary": {"period_exact": T_exact, "max_position_error": pos_err, "position_orders": _orders(pos_err),
                        "period_error": period_err, "period_orders": _orders(period_err),
                        "constraint_drift": list(runs[0].constraint_drift()), "rho_inf": rho_inf}}


def _simulated_frequency(mss, q_eq, mode, f_ref, eps=1e-3, periods=4, per_period=200):
    """Frequency of the simulated motion started at ``q_eq + eps mode`` (zero crossings of the modal coordinate)."""
    q = q_eq + eps * mode / np.max(np.abs(mode))
    mss._write_state(q, np.zeros_like(q))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mss.simulate(periods / f_ref, periods * per_period, rho_inf=1.0)
    z = (res.y[:, :len(q)] - q_eq) @ mode
    k = np.flatnonzero((z[:-1] > 0) & (z[1:] <= 0))
    tc = res.t[k] - z[k] * (res.t[k + 1] - res.t[k]) / (z[k + 1] - z[k])
    return 1.0 / float(np.mean(np.diff(tc)))


def run_chain(steps=800, tend=5.0, rho_inf=0.8, refinements=2):
    """Source chain error table and the two-support chain's statics and modes."""
    errs, first = [], None
    for r in range(refinements + 1):
        mss = cases.hanging_chain()
        res = mss.simulate(tend, steps * 2 ** r, rho_inf=rho_inf)
        y_ex = cases.hanging_chain_exact(res.t)[0]
        errs.append(float(np.max(np.abs(res.positions()[:, :, 1] - y_ex))))
        first = first or res
    summary = {"source_chain": {"steps": [steps * 2 ** r for r in range(refinements + 1)],
                                "max_error": errs, "orders": _orders(errs)}}
    out = {"result": first}
    for constrained in (False, True):
        key = "constraints" if constrained else "springs"
        X, T = cases.catenary_equilibrium(constrained)
        mss = cases.catenary(constrained)
        q, lam = mss.equilibrium()
        f_ind, modes = cases.catenary_frequencies(constrained)
        f_net = mss.natural_frequencies(3)
        f_sim = _simulated_frequency(mss, q, modes[:, 0], f_ind[0])
        if not constrained:
            L, n, Tnet, _ = mss.problem().net.spring_state(q)
            lam = Tnet
        summary[key] = {"equilibrium_error": float(np.max(np.abs(q.reshape(-1, 2) - X[1:-1]))),
                        "tension_error": float(np.max(np.abs(lam - T))),
                        "frequencies_independent": f_ind[:3].tolist(), "frequencies_network": f_net.tolist(),
                        "frequency_relative_error": (np.abs(f_net - f_ind[:3]) / f_ind[:3]).tolist(),
                        "simulated_first_frequency": f_sim,
                        "simulated_relative_error": abs(f_sim - f_ind[0]) / f_ind[0]}
        out[key] = (X, q.reshape(-1, 2), modes[:, :3])
    out["summary"] = summary
    return out


def run_bridge(steps=1000, tend=5.0, rho_inf=0.8, refinements=2):
    """Bridge error table against Radau IIA and its energy account."""
    mss, mid = cases.bridge()
    prob = mss.problem()
    q0, v0 = mss.state()
    t_eval = np.linspace(0, tend, 201)
    ref = solve(prob, (0.0, tend), np.r_[q0, v0], method="radau", rtol=1e-11, atol=1e-11, t_eval=t_eval)
    zi = np.array([3 * k + 2 for k in mid])
    errs = []
    for r in range(refinements + 1):
        mss, _ = cases.bridge()
        res = mss.simulate(tend, steps * 2 ** r, rho_inf=rho_inf, t_eval=t_eval)
        errs.append(float(np.max(np.abs(res.y[:, :prob.nq] - ref.y[:, :prob.nq]))))
    mss, _ = cases.bridge()
    first = mss.simulate(tend, steps, rho_inf=rho_inf)          # every step: the energy account
    e = first.energies()
    return {"result": first, "reference": ref, "mid_z": zi,
            "summary": {"masses": len(mss.masses), "springs": len(mss.springs),
                        "steps": [steps * 2 ** r for r in range(refinements + 1)], "max_error": errs,
                        "orders": _orders(errs), "work_loads": float(e["work_loads"][-1]),
                        "energy_change": float(e["total"][-1] - e["total"][0]),
                        "numerical_dissipation": float(e["numerical_dissipation"][-1]),
                        "midspan_z_range": [float(np.min(ref.y[:, zi])), float(np.max(ref.y[:, zi]))]}}


def run_kreisel(steps=1000, tend=5.0, rho_inf=0.8, refinements=2, R_steady=2.2, R_breathing=2.0,
                omega_breathing=6.5):
    """Steady spinning at ``R_steady`` (the force balance's radius for its angular momentum), and
    the breathing motion from ``R_breathing`` (springs in tension throughout: a compressed ring
    without bending stiffness buckles, and the motion leaves the symmetric family) against the
    reduced radial equation; angular momentum and energy."""
    mss = cases.ring(R=R_steady)
    res = mss.simulate(tend, steps, rho_inf=rho_inf)
    r, H, E = cases.ring_invariants(res)
    H0 = H[0]
    summary = {"steady": {"radius_exact": cases.ring_steady_radius(H0), "radius_deviation": float(np.max(np.abs(r - R_steady))),
                          "omega": cases.ring_steady_omega(R_steady)}}
    errs, first, inv = [], None, {}
    for rr in range(refinements + 1):
        mss = cases.ring(R=R_breathing, omega=omega_breathing)
        res = mss.simulate(tend, steps * 2 ** rr, rho_inf=rho_inf)
        r, H, E = cases.ring_invariants(res)
        errs.append(float(np.max(np.abs(r - cases.ring_radius_exact(res.t, R_breathing, omega_breathing)))))
        inv.setdefault("angular_momentum_drift", []).append(float(np.max(np.abs(H - H[0])) / abs(H[0])))
        inv.setdefault("energy_change", []).append(float(np.max(np.abs(E - E[0])) / abs(E[0])))
        first = first or res
    summary["breathing"] = {"steps": [steps * 2 ** rr for rr in range(refinements + 1)], "max_radius_error": errs,
                            "orders": _orders(errs), **inv,
                            "radius_range": [float(np.min(cases.ring_invariants(first)[0])),
                                             float(np.max(cases.ring_invariants(first)[0]))]}
    mss = cases.ring(R=R_breathing, omega=omega_breathing)
    r1 = mss.simulate(tend, steps * 2 ** refinements, rho_inf=1.0)
    r, H, E = cases.ring_invariants(r1)
    summary["breathing_rho1"] = {"angular_momentum_drift": float(np.max(np.abs(H - H[0])) / abs(H[0])),
                                 "energy_change": float(np.max(np.abs(E - E[0])) / abs(E[0]))}
    return {"result": first, "summary": summary}


def run_stability(tend=200.0, steps=20000):
    """rho_inf = 1, four rigid links released at 60 degrees: a long run without numerical damping."""
    from ..massspring import DistanceConstraint, Fix, Mass, MassSpringSystem2d
    mss = MassSpringSystem2d()
    mss.gravity = [0, -cases.G_ACC]
    prev = mss.add(Fix([0, 0]))
    c, s = np.cos(np.pi / 6), np.sin(np.pi / 6)
    for i in range(4):
        m = mss.add(Mass(1.0, [(i + 1.0) * c, -(i + 1.0) * s]))
        mss.add(DistanceConstraint(1.0, [prev, m]))
        prev = m
    res = mss.simulate(tend, steps, rho_inf=1.0)
    e = res.energies()
    lam = res.multipliers()
    k = len(lam) // 10
    return {"result": res, "summary": {
        "tend": tend, "steps": steps, "finite": bool(np.all(np.isfinite(res.y))),
        "constraint_drift": list(res.constraint_drift()),
        "max_abs_multiplier_first_tenth": float(np.max(np.abs(lam[:k]))),
        "max_abs_multiplier_last_tenth": float(np.max(np.abs(lam[-k:]))),
        "max_energy_error": float(np.max(np.abs(e["total"] - e["total"][0]))),
        "energy_scale": float(np.ptp(e["kinetic"]))}}


RUNNERS = {"pendulum": run_pendulum, "chain": run_chain, "bridge": run_bridge, "kreisel": run_kreisel,
           "stability": run_stability}


def run(case="pendulum", **options):
    """Run one case (see :data:`CASES`): a :class:`~phmech.validation._common.CaseResult` with the
    ``summary``, the runs in ``results`` (``"run"``, and ``"reference"`` where there is one) and the
    case's further arrays in ``data``."""
    if case not in RUNNERS:
        raise ValueError(f"mass_spring: unknown case {case!r}; choose one of {list(CASES)}")
    out = dict(RUNNERS[case](**options))
    summary = out.pop("summary", {})
    results = {name: out[key] for name, key in (("run", "result"), ("reference", "reference"))
               if out.get(key) is not None and hasattr(out[key], "t")}
    return _common.CaseResult(summary=summary, results=results, data=out)


def _spectral_radius(text):
    """Argparse type: a number in [0, 1] (the error names the value)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"must lie in [0, 1], got {text!r}")
    return v


def main(argv=None):
    p = _common.parser(__doc__.split("\n")[0])
    p.add_argument("--cases", nargs="+", default=list(CASES), choices=CASES)
    p.add_argument("--rho-inf", type=_spectral_radius, default=0.8, help="spectral radius at infinity, in [0, 1]")
    p.add_argument("--refinements", type=int, default=2, choices=[1, 2, 3],
                   help="step halvings of the error tables (observed orders from two or more runs)")
    p.add_argument("--tfinal", type=_common.positive_float, default=5.0,
                   help="final time of pendulum, chain, bridge and kreisel [s] (their step counts scale with it)")
    p.add_argument("--stability-tfinal", type=_common.positive_float, default=200.0,
                   help="final time of the long run without numerical damping [s] (step 0.01 s)")
    p.add_argument("--animate", action="store_true", help="write GIF animations (pillow writer)")
    args = p.parse_args(argv)
    outdir = _common.prepare_outdir(args.outdir, p)
    from . import _mass_spring_output as output
    summary = {}
    for case in args.cases:
        if case == "stability":
            opts = {"tend": args.stability_tfinal, "steps": max(1, int(round(args.stability_tfinal / 0.01)))}
        else:
            steps = inspect.signature(RUNNERS[case]).parameters["steps"].default
            opts = {"rho_inf": args.rho_inf, "refinements": args.refinements, "tend": args.tfinal,
                    "steps": max(1, int(round(steps * args.tfinal / 5.0)))}
        out = run(case, **opts)
        summary[case] = out["summary"]
        output.write(case, out, outdir, plot=not args.no_plot, animate_gif=args.animate)
        print(f"{case}: done", flush=True)
    _common.write_summary(outdir, "mass_spring", summary)
    return summary


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

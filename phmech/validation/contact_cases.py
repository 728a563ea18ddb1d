"""Contact benchmarks with exact or event-driven references: the block on an incline, Newton's
cradle (with gaps and touching), the double pendulum hitting a wall and (with Firedrake) a
flexible cantilever striking a stop.

    python -m phmech.validation.contact_cases --outdir out/contact_cases [--study]

For each case and each nonsmooth solver (``moreau``, ``moreau_shifted``,
``nsgenalpha``) at the steps ``dt, dt/2, dt/4``: the event-time errors, the
position errors against the reference, the constraint drift, the
penetration, the energy account and the semismooth-Newton iterations
(``summary.json``, ``table.txt``, CSV of the runs at ``dt``, figures).
The models and references are in :mod:`phmech.validation._contact_simple`,
:mod:`phmech.validation._contact_pendulum` and :mod:`phmech.validation._contact_beam`
(the beam runs with the Moreau schemes at ``dt / 20``; its reference first
impact comes from the smooth model with Radau IIA at ``rtol = 1e-10``).
"""
import os
import sys

import numpy as np

from .._stack import available as firedrake_available
from ._common import CaseResult, figure_style, parser, positive_float, prepare_outdir, run_main, savefig, write_summary
from ._contact_pendulum import Pendulum, run_pendulum
from ._contact_simple import block_model, cradle_model, cradle_touching_exact, run_block, run_cradle

__all__ = ["run", "run_block", "run_cradle", "run_pendulum", "block_model", "cradle_model",
           "cradle_touching_exact", "Pendulum", "CASES", "SOLVERS"]

CASES = ("block", "cradle_gaps", "cradle_touching", "pendulum")
SOLVERS = ("moreau", "moreau_shifted", "nsgenalpha")


def run(case="block", dt=2e-3, solver="moreau"):
    """One case (see :data:`CASES`): a :class:`~phmech.validation._common.CaseResult` of the
    case's run, which carries ``errors``."""
    return CaseResult(results={"run": _run(case, dt, solver)})


def _run(case, dt, solver):
    if case == "block":
        return run_block(dt, solver)
    if case == "cradle_gaps":
        return run_cradle(0.009, dt, solver)
    if case == "cradle_touching":
        return run_cradle(0.0, dt, solver)
    if case == "pendulum":
        return run_pendulum(dt, solver)
    if case == "beam":
        from ._contact_beam import first_impact, run_beam
        res = run_beam(dt / 20, solver)
        t1 = first_impact()
        res.errors["impact_times"] = res.errors["impact_times"][:1] - t1
        res.errors["first_impact_reference"] = t1
        return res
    raise ValueError(f"contact_cases: unknown case {case!r}; choose one of {CASES}")


def _row(case, solver, dt, res):
    e = res.errors
    out = {"case": case, "solver": solver, "dt": dt, "max_newton": res.stats["max_newton_iterations"],
           "mean_newton": float(res.stats["newton_iterations"] / max(res.stats["contact_solves"], 1)),
           "gs_fallbacks": res.stats["gs_fallbacks"]}
    for k, v in e.items():
        if isinstance(v, np.ndarray):
            out[k] = float(np.max(np.abs(v))) if v.size and k != "u_end" else v.tolist()
        else:
            out[k] = v
    return out


def main(argv=None):
    p = parser("Contact benchmarks: block on an incline, Newton's cradle, double pendulum and wall")
    p.add_argument("--dt", type=positive_float, default=2e-3, help="step size [s]")
    p.add_argument("--study", action="store_true", help="also dt/2 and dt/4")
    p.add_argument("--cases", nargs="+", default=None, choices=CASES + ("beam",),
                   help="only these cases (default: all; the beam with Firedrake)")
    p.add_argument("--solvers", nargs="+", default=list(SOLVERS), choices=SOLVERS, help="only these solvers")
    args = p.parse_args(argv)
    out = prepare_outdir(args.outdir, p)
    dts = (args.dt, args.dt / 2, args.dt / 4) if args.study else (args.dt,)
    rows, keep = [], {}
    cases = args.cases or CASES + (("beam",) if firedrake_available() else ())
    for case in cases:
        for s in args.solvers:
            if case == "beam" and s == "nsgenalpha":
                continue
            for h in dts:
                res = run(case, h, s)
                rows.append(_row(case, s, h, res))
                if h == args.dt:
                    keep[case, s] = res
                    cols = {f"y{i}": res.y[:, i] for i in range(res.dae.nq + res.dae.ne)}
                    cols["energy"] = res.hamiltonian()
                    cols["dissipated"] = res.dissipated.sum(axis=1)
                    res.to_csv(os.path.join(out, f"{case}_{s}.csv"), cols)
    keys = ["case", "solver", "dt", "impact_times", "t_stop", "position", "angles", "velocities",
            "position_drift", "penetration", "energy_balance", "max_newton", "mean_newton"]
    lines = ["  ".join(f"{k:>14}" for k in keys)]
    for r in rows:
        lines.append("  ".join(f"{r[k]:>14.3e}" if isinstance(r.get(k), float) else f"{str(r.get(k, '-')):>14}"
                               for k in keys))
    txt = "\n".join(lines)
    print(txt)
    with open(os.path.join(out, "table.txt"), "w") as fh:
        fh.write(txt + "\n")
    write_summary(out, "contact_cases", {"rows": rows, "cradle_touching_exact": cradle_touching_exact().tolist()})
    plt = figure_style() if not args.no_plot else None
    if not args.no_plot and any(c == "pendulum" for c, _ in keep):
        fig, ax = plt.subplots(2, 1, figsize=(6, 6), sharex=True)
        ref = keep["pendulum", args.solvers[0]].reference
        tt = np.linspace(0, ref.t_end, 2000)
        z = ref(tt)
        for i in range(2):
            ax[i].plot(tt, z[:, i], "k-", lw=2.5, alpha=0.4, label="event-driven")
            for s in args.solvers:
                r = keep["pendulum", s]
                ax[i].plot(r.t, r.phi[:, i], label=s)
            ax[i].set_ylabel(f"phi_{i + 1} [rad]")
        ax[0].legend(fontsize=8)
        ax[1].set_xlabel("t [s]")
        fig.suptitle(f"double pendulum hitting a wall; rigid links, dt = {args.dt:g} s", fontsize="small")
        savefig(fig, out, "pendulum")
        plt.close(fig)
    if not args.no_plot and any(c == "block" for c, _ in keep):
        fig, ax = plt.subplots()
        r = keep["block", args.solvers[0]]
        s_ex, _ = r.exact(r.t)
        ax.plot(r.t, s_ex, "k-", lw=2.5, alpha=0.4, label="exact")
        for s in args.solvers:
            rr = keep["block", s]
            ax.plot(rr.t, rr.y[:, rr.dae.sq] @ rr.exact.down, label=s)
        ax.set_xlabel("t [s]")
        ax.set_ylabel("distance along the slope [m]")
        ax.set_title(f"block on an incline with Coulomb friction; dt = {args.dt:g} s", fontsize="small")
        ax.legend(fontsize=8)
        savefig(fig, out, "block")
        plt.close(fig)
    print(f"written to {out}")
    return rows


if __name__ == "__main__":
    sys.exit(run_main(main))

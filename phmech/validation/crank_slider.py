"""Rotating crank-slider with a flexible coupler (thesis validation case).

Rigid crank 0.15 m turning at 150 rad/s, flexible coupler 0.3 m with a 6 mm
circular section (E = 2e11 Pa, rho = 7870 kg/m^3), slider 0.033 kg; the
coupler is a floating Euler-Bernoulli beam with a simply supported
deformation field, starting undeformed.  The joints are transformer
interconnections (revolute crank-coupler and coupler-slider), the slider
runs on a horizontal guide and the crank is driven at constant angular
velocity.

``--geometric-stiffness`` replaces the coupler by the geometrically
consistent beam (:class:`phmech.fem.beam_nonlinear.NonlinearFloatingBeam`:
exact rotating-frame inertia, Green-Lagrange axial strain); the default is
the thesis' linear floating frame.  ``--quasi-static`` starts the coupler
from the deformation in equilibrium with the initial rigid motion instead
of undeformed (stiffened model only).

Outputs (in ``--outdir``): ``crank_slider.csv`` with the time histories,
the midpoint displacement figures ``uM_disp`` and ``wM_disp`` (PNG, PDF) and
``summary.json``.

    python -m phmech.validation.crank_slider --tfinal 0.1 --n-elem 8
"""
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from ..mechanisms.crank_slider import DATA, flexible_crank_slider
from . import _common

#: the case's mechanism and its data (:mod:`phmech.mechanisms.crank_slider`)
build = flexible_crank_slider


@dataclass
class CrankSliderResult(_common.CaseResult):
    """Time histories of the crank-slider and the solver result they come from."""

    result: object
    t: np.ndarray
    crank_angle: np.ndarray
    slider_x: np.ndarray
    ux_mid: np.ndarray      # u_x(L/2) / L in the coupler frame
    uy_mid: np.ndarray      # u_y(L/2) / L in the coupler frame
    hamiltonian: np.ndarray
    energy_balance: np.ndarray
    constraint_residual: np.ndarray
    #: the independent model's deflection at ``t`` (:func:`independent_reference`), when a figure is drawn
    reference: dict = None


def run(t_end=0.1, n_elem=8, solver="midpoint", dt=1e-4, rtol=1e-6, atol=1e-6, max_step=None,
        dt_out=2e-4, outdir=None, plot=True, progress=False, solver_options=None,
        geometric_stiffness=False, quasi_static=False, compare_model=False, **overrides):
    """Simulate the crank-slider; write CSV, figures and summary.json when ``outdir`` is given.

    ``overrides`` change entries of :data:`DATA`; ``solver_options`` are
    passed on to the solver (e.g. ``constraints="endpoint"`` for the
    midpoint rule, ``atol_lambda`` for IDA).  ``geometric_stiffness`` selects
    the consistent stiffened coupler; ``quasi_static`` starts it from the
    quasi-static deformation of the initial rigid motion
    (:func:`phmech.fem.quasi_static.quasi_static_state`).  ``compare_model``
    also runs the other coupler model (linear or consistent, undeformed start)
    with the same settings: its midpoint deflection is drawn beside this one
    in ``wM_disp`` and its peak is in the summary (``compared_model``).
    """
    if quasi_static and not geometric_stiffness:
        raise ValueError("crank-slider: quasi_static=True needs geometric_stiffness=True "
                         "(the linear floating frame starts undeformed)")
    tic = time.perf_counter()
    system, bodies = build(n_elem, geometric_stiffness, **overrides)
    dae = system.assemble()
    y0 = dae.initial_state()
    if quasi_static:
        from ..fem.quasi_static import quasi_static_state
        y0 = quasi_static_state(dae, y0, [bodies["coupler"]])
    t_build = time.perf_counter() - tic
    coupler = bodies["coupler"]
    L = coupler.L
    rows_x, rows_y = coupler.displacement_rows([L / 2])
    on_q = geometric_stiffness            # the consistent beam's displacements are part of q
    t_eval = np.linspace(0.0, t_end, max(1, int(round(t_end / dt_out))) + 1)
    if solver == "midpoint":
        opts = dict(dt=dt, t_eval=t_eval)
    else:
        opts = dict(rtol=rtol, atol=atol, max_step=max_step, t_eval=t_eval)
    opts.update(solver_options or {})
    res = system.simulate(t_end, solver=solver, y0=y0, progress=progress, **opts)
    ec = res.q("coupler") if on_q else res.e("coupler")
    out = CrankSliderResult(
        result=res, t=res.t,
        crank_angle=res.q("crank")[:, 2],
        slider_x=res.q("slider")[:, 0],
        ux_mid=ec @ rows_x[0] / L,
        uy_mid=ec @ rows_y[0] / L,
        hamiltonian=res.hamiltonian(),
        energy_balance=res.energy_balance(),
        constraint_residual=res.constraint_residual(),
    )
    k = int(np.argmax(np.abs(out.uy_mid)))
    out.summary = {
        "parameters": {**DATA, **overrides, "n_elem": n_elem, "t_end": t_end},
        "model": ("geometrically consistent floating frame, Green-Lagrange axial strain"
                  if geometric_stiffness else "linear floating frame (thesis)"),
        "initial_deformation": "quasi-static" if quasi_static else "undeformed",
        "solver": solver, "dt": dt if solver == "midpoint" else None, "rtol": rtol, "atol": atol,
        "n_variables": dae.n, "build_time_s": t_build, "stats": res.stats,
        "uy_mid_max_abs_over_L": float(abs(out.uy_mid[k])), "t_of_uy_mid_max": float(out.t[k]),
        "uy_mid_end_over_L": float(out.uy_mid[-1]),
        "ux_mid_max_abs_over_L": float(np.max(np.abs(out.ux_mid))),
        "slider_x_end": float(out.slider_x[-1]),
        "energy_balance_max_abs_J": float(np.max(np.abs(out.energy_balance))),
        "hamiltonian_max_J": float(np.max(out.hamiltonian)),
        "constraint_residual_max": float(np.max(out.constraint_residual)),
    }
    if compare_model:
        tag = "linear" if geometric_stiffness else "consistent"     # its own checkpoint file, if any
        out.other = run(t_end, n_elem, solver, dt, rtol, atol, max_step, dt_out, progress=progress,
                        solver_options=_common.run_checkpoints(solver_options, tag),
                        geometric_stiffness=not geometric_stiffness, **overrides)
        out.summary["compared_model"] = {"model": out.other.summary["model"],
                                         "uy_mid_max_abs_over_L": out.other.summary["uy_mid_max_abs_over_L"]}
    if outdir is not None and plot and not quasi_static and "coupler" not in overrides:
        out.reference = independent_reference(out.t, geometric_stiffness, **overrides)
        ref = out.reference["uy_mid"]
        out.summary["reference"] = {
            "model": out.reference["model"], "uy_mid_max_abs_over_L": float(np.max(np.abs(ref))),
            "max_difference_over_peak": float(np.max(np.abs(out.uy_mid - ref)) / np.max(np.abs(ref)))}
    if outdir is not None:
        out.files += write(out, outdir, plot)
    return out


def independent_reference(t, geometric_stiffness=False, **overrides):
    """The midpoint deflection ``u_y(L/2)/L`` at the times ``t`` of the independent Ritz model
    (:class:`~phmech.validation.crank_slider_reduced.ReducedCrankSlider`: 4 bending and 1 axial
    global modes, inertial angles, DOP853 at rtol 1e-9; the ``"stiffened"`` variant for the
    consistent coupler): ``{"model", "uy_mid"}``, drawn beside the run in ``wM_disp``."""
    from .crank_slider_reduced import ReducedCrankSlider
    p = {**DATA, **overrides}
    variant = "stiffened" if geometric_stiffness else "linear"
    ritz = ReducedCrankSlider(Lc=p["L_crank"], L=p["L"], Omega=p["omega"], rho=p["rho"], E=p["E"], d=p["d"],
                              ms=p["m_slider"], n_bending=4, n_axial=1, n_quad=16, variant=variant)
    r = ritz.simulate(float(t[-1]), t_eval=np.asarray(t, float), rtol=1e-9)
    return {"model": f"independent Ritz model ({variant}, 4 bending + 1 axial modes)", "uy_mid": r["uy_mid"] / p["L"]}


def write(out, outdir, plot=True):
    """Write the CSV, the figures and summary.json; returns the paths."""
    files = [_common.result_csv(out.result, os.path.join(outdir, "crank_slider.csv"), {
        "crank_angle": out.crank_angle, "slider_x": out.slider_x,
        "ux_mid_over_L": out.ux_mid, "uy_mid_over_L": out.uy_mid,
        "hamiltonian": out.hamiltonian, "energy_balance": out.energy_balance,
        "constraint_residual": out.constraint_residual,
        **({"uy_mid_reference_over_L": out.reference["uy_mid"]} if getattr(out, "reference", None) else {})},
        case="crank_slider",
        notes=[f"model: {out.summary['model']}; parameters: {_common.notes_of(out.summary['parameters'])}"])]
    if plot:
        plt = _common.figure_style()
        for stem, fig in figures(out):
            files += _common.savefig(fig, outdir, stem)
            plt.close(fig)
    files.append(_common.write_summary(outdir, "crank_slider", out.summary))
    return files


def _sliding(y, window):
    """Minimum, mean and maximum of ``y`` over a centred window of ``window`` samples."""
    from numpy.lib.stride_tricks import sliding_window_view
    padded = np.pad(y, (window // 2, window - 1 - window // 2), mode="edge")
    w = sliding_window_view(padded, window)
    return w.min(axis=1), w.mean(axis=1), w.max(axis=1)


def _power_of_ten(y):
    """The exponent ``p`` with ``max |y| / 10**p`` in [1, 10) (0 for a zero signal)."""
    top = float(np.max(np.abs(y), initial=0.0))
    return int(np.floor(np.log10(top))) if top > 0 else 0


def _solver_text(summary):
    s = summary
    step = f", dt = {s['dt']:g} s" if s.get("dt") else f", rtol = {s['rtol']:g}"
    return f"{s['solver']}{step}, {s['parameters']['n_elem']} elements"


def figures(out):
    """The midpoint displacement figures of a run: ``[(stem, figure)]``.

    ``uM_disp``: the axial displacement oscillates far faster than the output
    spacing resolves; drawn as its range and mean over a twentieth of a crank
    revolution with the samples as a thin line, scaled by a power of ten.
    ``wM_disp``: the transverse displacement of the model that ran and, when
    the run was compared (``compare_model=True``), of the other coupler model.
    Every title names the model and the solver.
    """
    plt = _common.figure_style()
    s = out.summary
    made = []
    dt_out = float(np.median(np.diff(out.t))) if len(out.t) > 1 else 1.0
    period = 2 * np.pi / abs(s["parameters"]["omega"]) if s["parameters"]["omega"] else out.t[-1]
    window = int(round(period / 20 / dt_out)) | 1
    p = _power_of_ten(out.ux_mid)
    y = out.ux_mid / 10.0**p
    fig, ax = plt.subplots()
    if window >= 3 and len(y) > window:
        lo, mean, hi = _sliding(y, window)
        ax.fill_between(out.t, lo, hi, color="C0", alpha=0.25, lw=0, label="range over 1/20 revolution")
        ax.plot(out.t, y, color="C0", lw=0.3, alpha=0.7, label=f"samples (every {dt_out * 1e3:g} ms)")
        ax.plot(out.t, mean, color="C1", lw=1.5, label="mean over 1/20 revolution")
        _common.legend_below(ax, ncol=2)
    else:
        ax.plot(out.t, y, color="C0", lw=0.8)
    ax.set_xlabel("time [s]")
    ax.set_ylabel(rf"$u_f^x(L/2)/L$ [$10^{{{p}}}$]" if p else r"$u_f^x(L/2)/L$ [-]")
    ax.set_title(f"coupler midpoint, axial; {s['model']}\n{_solver_text(s)}", fontsize="small")
    made.append(("uM_disp", fig))
    fig, ax = plt.subplots()
    ax.plot(out.t, out.uy_mid, color="C0", label=s["model"])
    other = getattr(out, "other", None)
    if other is not None:
        ax.plot(other.t, other.uy_mid, color="C3", ls="--", label=other.summary["model"])
    ref = getattr(out, "reference", None)
    if ref is not None:
        ax.plot(out.t, ref["uy_mid"], color="k", ls=":", lw=1.2, label=ref["model"])
    _common.legend_below(ax)
    ax.set_xlabel("time [s]")
    ax.set_ylabel(r"$u_f^y(L/2)/L$ [-]")
    ax.set_title(f"coupler midpoint, transverse; {s['model']}" + (" and the other coupler model" if other else "")
                 + f"\n{_solver_text(s)}", fontsize="small")
    made.append(("wM_disp", fig))
    return made


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0], tfinal=0.1, dt=1e-4, checkpoints=True)
    p.add_argument("--n-elem", type=_common.positive_int, default=8, help="number of beam elements")
    p.add_argument("--max-step", type=_common.positive_float, default=None, help="maximum step (ida, radau5) [s]")
    p.add_argument("--geometric-stiffness", action="store_true",
                   help="geometrically consistent coupler with geometric stiffening (default: linear floating frame)")
    p.add_argument("--quasi-static", action="store_true",
                   help="start from the quasi-static deformation of the initial motion (with --geometric-stiffness)")
    p.add_argument("--compare-model", action="store_true",
                   help="also run the other coupler model (a second run) and draw both deflections in wM_disp")
    _common.add_animate_option(p, scale=True)
    args = p.parse_args(argv)
    if args.quasi_static and not args.geometric_stiffness:
        p.error("--quasi-static needs --geometric-stiffness")
    if args.scale != 1.0 and args.animate is None:
        p.error(f"--scale {args.scale:g} needs --animate (it magnifies the deformation drawn there)")
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []  # keep PETSc from reading our options
    out = run(args.tfinal, args.n_elem, args.solver, args.dt, args.rtol, args.atol, args.max_step,
              outdir=args.outdir, plot=not args.no_plot, progress=sys.stderr.isatty(),
              geometric_stiffness=args.geometric_stiffness, quasi_static=args.quasi_static,
              compare_model=args.compare_model, solver_options=_common.checkpoint_options(args))
    movie = _common.animation_path(args, "crank_slider")
    if movie is not None:
        out.files.append(out.result.animate(movie, every=_common.animation_every(len(out.t)), scale=args.scale,
                                            title="crank-slider, " + out.summary["model"]
                                            + (f", deformation x{args.scale:g}" if args.scale != 1 else "")))
    s = out.summary
    print(f"crank-slider ({s['model']}, {s['initial_deformation']} start): "
          f"{args.n_elem} elements, {args.solver}, t_end = {args.tfinal} s, "
          f"wall time {s['stats']['wall_time']:.2f} s ({s['stats']['nsteps']} steps)")
    print(f"  max |u_y(L/2)|/L = {s['uy_mid_max_abs_over_L']:.6f} at t = {s['t_of_uy_mid_max']:.5f} s")
    if "reference" in s:
        r = s["reference"]
        print(f"  {r['model']}: max |u_y(L/2)|/L = {r['uy_mid_max_abs_over_L']:.6f}, the run within "
              f"{r['max_difference_over_peak']:.2%} of its peak")
    print(f"  energy balance error {s['energy_balance_max_abs_J']:.2e} J, "
          f"constraint residual {s['constraint_residual_max']:.2e} m/s")
    print(f"  wrote {len(out.files)} files to {args.outdir}")


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

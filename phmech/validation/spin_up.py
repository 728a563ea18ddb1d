"""Spin-up of a flexible beam on a hub (Kane, Ryan & Banerjee 1987; Simo & Vu-Quoc 1986).

A beam of length L = 10 m (EI = 14000 N m^2, rho A = 1.2 kg/m, EA = 2.8e7 N)
is clamped to a hub whose angular velocity is

    Omega(t) = (6/15) (t - (15 / 2 pi) sin(2 pi t / 15))  rad/s  for t < 15 s,  6 rad/s after.

The tip deflection in the rotating (hub) frame is computed for three models:

* ``linear``: the thesis' linear floating frame
  (:class:`~phmech.fem.beam.FloatingEulerBernoulliBeam`);
* ``consistent``: exact rotating-frame inertia with the linear strain
  (:class:`~phmech.fem.beam_nonlinear.NonlinearFloatingBeam`, ``strain="linear"``):
  the centrifugal softening without the stiffening; above the first
  bending frequency (3.8 rad/s) the deflection grows without bound, the
  classical failure of the linear modal model;
* ``stiffened``: exact inertia and the Green-Lagrange strain (geometric
  stiffening): the deflection stays bounded;
* ``exact``: the geometrically exact beam
  (:class:`~phmech.fem.beam_exact.GeometricallyExactBeam`, quadratic
  elements), which has no frame: its root node is pinned and its angular
  velocity driven, and the tip is measured in the hub frame.

The hub drives the beam's frame: the tangent of the axis at the root
(cantilever frame) turns with the hub (:class:`~phmech.fem.beam_nonlinear.FrameRate`;
the linear beam through its port's angular velocity).  An independent
Ritz model (:mod:`phmech.validation.spin_up_reduced`) is the reference.

    python -m phmech.validation.spin_up --outdir out/spin_up
"""
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from .. import System
from . import _common
from ._hub import hub_acceleration, hub_angle, hub_rate  # noqa: F401 (the case's hub profile, public here)

#: data of the benchmark
DATA = dict(L=10.0, EI=14000.0, rhoA=1.2, EA=2.8e7, omega_s=6.0, T_s=15.0)
MODELS = ("linear", "consistent", "stiffened", "exact")


def build(model="stiffened", n_elem=8, **overrides):
    """The beam clamped to the driven hub; returns ``(system, beam)``."""
    from ..fem import FloatingEulerBernoulliBeam
    from ..fem.beam_exact import GeometricallyExactBeam
    from ..fem.beam_nonlinear import FrameRate, NonlinearFloatingBeam

    if model not in MODELS:
        raise ValueError(f"spin-up: model must be one of {list(MODELS)}, got {model!r}")
    p = {**DATA, **overrides}
    # a unit section: A = 1 m^2, so rho = rho A, E = EA, I = EI / EA
    section = dict(rho=p["rhoA"], A=1.0, E=p["EA"], I=p["EI"] / p["EA"])
    ws, Ts = p["omega_s"], p["T_s"]
    rate = lambda t: float(hub_rate(t, ws, Ts))
    accel = lambda t: float(hub_acceleration(t, ws, Ts))
    if model in ("linear", "exact"):
        if model == "linear":
            beam = FloatingEulerBernoulliBeam("beam", p["L"], n_elem, frame="cantilever", **section)
        else:
            beam = GeometricallyExactBeam("beam", p["L"], n_elem, **section)
        system = System([beam])
        system.pin(beam.port("A"), name="hub bearing")
        system.drive(beam.port("A"), rate, name="hub", rate=accel)
    else:
        beam = NonlinearFloatingBeam("beam", p["L"], n_elem, frame="cantilever",
                                     strain="green" if model == "stiffened" else "linear", **section)
        system = System([beam])
        system.pin(beam.port("A"), name="hub bearing")
        system.add_joint(FrameRate(beam, rate=rate, rate_derivative=accel,
                                   angle=lambda t: float(hub_angle(t, ws, Ts)), name="hub"))
    return system, beam


def _tip_in_hub_frame(model, beam, dae, p):
    """``tip(t, Y) -> (deflection, axial displacement)`` of the tip in the hub frame for the
    states ``Y`` (rows) at the times ``t``: from the floating frame's displacement rows, or for
    the exact beam its tip node relative to the root node, in the axes of the root's director
    (the hub frame of the model: its angle is the midpoint rule's integral of the driven rate,
    which lags the exact hub angle by ``(h Omega)^3 / 12`` per step)."""
    if model == "exact":
        r0, k = dae.q_slices["beam"].start, dae.q_slices["beam"].start + 4 * (beam.n_nodes - 1)

        def tip(t, Y):
            c, s = Y[:, r0 + 2], Y[:, r0 + 3]
            x, y = Y[:, k] - Y[:, r0], Y[:, k + 1] - Y[:, r0 + 1]
            return -s * x + c * y, c * x + s * y - beam.L
        return tip
    rx, ry = beam.displacement_rows([beam.L])
    sl = (dae.e_slices if model == "linear" else dae.q_slices)["beam"]
    part = dae.se if model == "linear" else dae.sq
    return lambda t, Y: (Y[:, part][:, sl] @ ry[0], Y[:, part][:, sl] @ rx[0])


@dataclass
class SpinUpResult(_common.CaseResult):
    """Tip deflection (rotating frame) and energy of one model."""

    model: str
    t: np.ndarray
    tip: np.ndarray
    tip_axial: np.ndarray
    energy_balance: np.ndarray
    result: object = None


def run_model(model="stiffened", n_elem=8, t_end=30.0, dt=5e-3, dt_out=0.05, progress=False, solver_options=None,
              **overrides):
    """Simulate one model with the implicit midpoint rule; returns :class:`SpinUpResult`.

    ``solver_options`` go to the driver (e.g. ``checkpoint``, ``checkpoint_every``, ``restart``)."""
    tic = time.perf_counter()
    system, beam = build(model, n_elem, **overrides)
    dae = system.assemble()
    y0 = dae.initial_state()
    t_eval = np.linspace(0.0, t_end, int(round(t_end / dt_out)) + 1)
    L = beam.L
    tip_of = _tip_in_hub_frame(model, beam, dae, {**DATA, **overrides})

    def left_range(t, y):
        """Stop when the tip deflection exceeds the beam's length (the model has left its range)."""
        return abs(tip_of(np.array([t]), y[None, :])[0][0]) - L
    left_range.terminal = True
    # the exact beam's stresses are states beside its velocities, in a far larger scale (N ~ 2e3 N): the
    # Newton increments are measured relative to that scale, so a tighter tolerance keeps the power
    # balance near the others (4.7e-5 J of the 7200 J it takes in over 30 s, instead of 1.5e-3 J)
    options = {"newton_tol": 1e-12} if model == "exact" else {}
    res = system.simulate(t_end, solver="midpoint", y0=y0, dt=dt, t_eval=t_eval, progress=progress,
                          tstops=[15.0] if t_end > 15.0 else None, events=[left_range],
                          **{**options, **(solver_options or {})})
    tip, tip_ax = tip_of(res.t, res.y)
    bal = res.energy_balance()
    out = SpinUpResult(model, res.t, tip, tip_ax, bal, res)
    out.summary = {"model": model, "n_elem": n_elem, "dt": dt, "t_end": t_end,
                   "t_reached": float(res.t[-1]),
                   "diverged": bool(res.t[-1] < t_end - 1e-9),
                   "wall_time_s": time.perf_counter() - tic, "nsteps": res.stats["nsteps"],
                   "tip_max_abs_m": float(np.max(np.abs(tip))),
                   "energy_balance_max_abs_J": float(np.max(np.abs(bal))),
                   "tip_at": {f"{tk:g}": float(np.interp(tk, res.t, tip)) for tk in (5, 10, 15, 20, 25, 30)
                              if tk <= res.t[-1]}}
    return out


def run(models=MODELS, n_elem=8, t_end=30.0, dt=5e-3, outdir=None, plot=True, reference=True,
        progress=False, solver_options=None, **overrides):
    """Run the models (and the Ritz reference); write CSV, figure and summary.json when ``outdir`` is given.

    ``solver_options`` go to the driver of every model; a ``checkpoint`` or ``restart`` file
    ``FILE.h5`` is ``FILE_<model>.h5`` for each model.

    Returns a :class:`~phmech.validation._common.CaseResult` with ``summary``, ``files``, the solver
    result of each model in ``results`` and ``data = {"models": {name: SpinUpResult}, "reference": dict
    or None}``.
    """
    results = {m: run_model(m, n_elem, t_end, dt, progress=progress,
                            solver_options=_common.run_checkpoints(solver_options, m), **overrides) for m in models}
    ref = None
    if reference:
        from .spin_up_reduced import SpinUpRitz
        t = max((r.t for r in results.values()), key=len)
        ref = SpinUpRitz(**{**DATA, **overrides}).simulate(t[-1], t_eval=t)
    summary = {"parameters": {**DATA, **overrides}, "n_elem": n_elem, "dt": dt, "t_end": t_end,
               "models": {m: r.summary for m, r in results.items()}}
    if ref is not None:
        summary["reference"] = {"model": "Ritz, Green-Lagrange axial strain, exact inertia",
                                "n_axial": ref["n_axial"], "n_bending": ref["n_bending"],
                                "tip_at": {f"{tk:g}": float(np.interp(tk, ref["t"], ref["tip"]))
                                           for tk in (5, 10, 15, 20, 25, 30) if tk <= t_end}}
        if "stiffened" in results:
            r = results["stiffened"]
            summary["stiffened_vs_reference_max_abs_m"] = float(np.max(np.abs(r.tip - np.interp(r.t, ref["t"], ref["tip"]))))
            summary["reference_tip_max_abs_m"] = float(np.max(np.abs(ref["tip"])))
        if "exact" in results:
            r = results["exact"]
            summary["exact_vs_reference_max_abs_m"] = float(np.max(np.abs(r.tip - np.interp(r.t, ref["t"], ref["tip"]))))
    out = _common.CaseResult(summary=summary, results={m: r.result for m, r in results.items()},
                             data={"models": results, "reference": ref})
    if outdir is not None:
        out.files = write(out, outdir, plot)
    return out


def write(out, outdir, plot=True):
    """CSV of the tip deflections, the figure ``spin_up_tip`` and summary.json."""
    results, ref = out["models"], out["reference"]
    t = max((r.t for r in results.values()), key=len)
    path = os.path.join(outdir, "spin_up.csv")
    cols = {"t": t, "hub_rate": hub_rate(t)}
    for m, r in results.items():
        cols[f"tip_{m}"] = r.tip            # shorter where a model left its range: blank cells
    if ref is not None:
        cols["tip_ritz_reference"] = ref["tip"]
    s = out["summary"]
    files = [_common.write_csv(path, cols, ragged=True, case="spin_up", solver="midpoint",
                               options={"dt": s["dt"], "n_elem": s["n_elem"], "t_end": s["t_end"]},
                               notes=["models that left their range (|tip| > L) end early: empty cells",
                                      f"parameters: {_common.notes_of(s['parameters'])}"], fmt="{:.10g}")]
    if plot:
        plt = _common.figure_style()
        fig, ax = plt.subplots()
        styles = {"linear": ("C2", "linear floating frame"), "consistent": ("C3", "exact inertia, linear strain"),
                  "stiffened": ("C0", "exact inertia, geometric stiffening"),
                  "exact": ("C1", "geometrically exact beam")}
        for m, r in results.items():
            color, label = styles[m]
            if r.summary["diverged"]:
                label += f" (|tip| > L at {r.t[-1]:.1f} s)"
            ax.plot(r.t, r.tip, color=color, label=label)
        if ref is not None:
            ax.plot(ref["t"], ref["tip"], "k--", lw=1, label="Ritz reference (stiffened)")
        stiff = results.get("stiffened")
        if stiff is not None:
            lim = 3 * max(np.max(np.abs(stiff.tip)), 1e-3)
            ax.set_ylim(-lim, lim)
        ax.set_xlabel("time [s]")
        ax.set_ylabel("tip deflection in the hub frame [m]")
        ax.legend(loc="lower left", fontsize="small")
        files += _common.savefig(fig, outdir, "spin_up_tip")
        plt.close(fig)
    files.append(_common.write_summary(outdir, "spin_up", out["summary"]))
    return files


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0] + " Checkpoint files FILE.h5 are FILE_<model>.h5 per model.",
                       tfinal=30.0, dt=5e-3, checkpoints=True)
    p.add_argument("--n-elem", type=_common.positive_int, default=8, help="number of beam elements")
    p.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS), help="models to run")
    p.add_argument("--no-reference", action="store_true", help="skip the Ritz reference")
    args = p.parse_args(argv)
    if args.solver != "midpoint":
        p.error("spin-up: only the midpoint solver is offered here")
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []
    out = run(args.models, args.n_elem, args.tfinal, args.dt, args.outdir, not args.no_plot,
              not args.no_reference, progress=sys.stderr.isatty(), solver_options=_common.checkpoint_options(args))
    print(f"spin-up, {args.n_elem} elements, dt = {args.dt:g} s, t_end = {args.tfinal:g} s")
    for m, s in out["summary"]["models"].items():
        model = out["models"][m]
        items = [(f"tip deflection at {k} s", v, "m") for k, v in s["tip_at"].items()]
        items += [(f"tip deflection at {s['t_reached']:g} s (end)", float(model.tip[-1]), "m"),
                  ("max |tip deflection|", s["tip_max_abs_m"], "m"),
                  ("energy balance error, max", s["energy_balance_max_abs_J"], "J"),
                  ("wall time", s["wall_time_s"], "s")]
        print(f"  {m}:" + (" diverged" if s["diverged"] else ""))
        print("\n".join(_common.value_lines(items, indent="    ")))
    if out["reference"] is not None:
        ref = out["reference"]
        items = [(f"tip deflection at {k} s", v, "m") for k, v in out["summary"]["reference"]["tip_at"].items()]
        items.append((f"tip deflection at {ref['t'][-1]:g} s (end)", float(ref["tip"][-1]), "m"))
        print("  Ritz reference:")
        print("\n".join(_common.value_lines(items, indent="    ")))
    else:
        print("  Ritz reference: not computed (--no-reference)")
    print(f"  wrote {len(out['files'])} files to {args.outdir}")


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

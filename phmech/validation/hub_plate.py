"""A plate on a driven hub: a floating Mindlin plate (with its membrane) clamped to a turning hub.

The plate ``a x b x h`` lies in its frame's plane, clamped along its edge ``x = 0`` to a hub
that turns about that edge's direction ``y`` (a solar panel or a flap on a spinning hub): a
:class:`phmech.fem.floating_plate.FloatingPlate` (Mindlin bending in CG_2 - DG_1 - NED1_2 with the
shear strain projected, the membrane in CG_2 - DG_1) whose frame is the clamped edge's, its port ``hub`` at the middle of that edge on a
revolute joint to the ground with a driver.  Two checks:

* **modes at rest**: the hub held (the frame welded to the ground), the lowest frequencies of
  the linearized model against the fixed-base Mindlin plate clamped on the same edge and mesh
  (:class:`phmech.fem.MindlinPlate` with ``reduction="projection"``, the same bending
  discretization: equal to the eigen solver's tolerance) and, square plate ``h/a = 0.01`` and
  ``nu = 0.3``, against Leissa's (Kirchhoff) cantilever plate
  (``omega a^2 sqrt(rho h / D)`` = 3.4917, 8.5246, 21.429, 27.331, 31.111; A. W. Leissa,
  J. Sound Vib. 31 (1973) 257-293), with the fixed plate's convergence over the meshes;
* **spin-up**: the hub driven by the smooth ramp of :mod:`phmech.validation.spin_up`
  (``Omega(t) = (w_s / T_s) (t - (T_s / 2 pi) sin(2 pi t / T_s))``) turns a strip
  ``a x a/10`` with ``nu = 0``, which bends as an Euler-Bernoulli beam: the tip deflection in
  the hub frame against the floating beam of the same section on the same drive
  (:class:`phmech.fem.FloatingEulerBernoulliBeam`), and the discrete power balance of the
  midpoint rule (``H - H0`` against the driver's work); the peak also against the quasi-static
  deflection under the run's largest angular acceleration, ``11 q0 L^4 / (120 EI)``,
  ``q0 = rho A alpha L`` (the ramp is slow against the first period: a few per cent above it).

Outputs (in ``--outdir``): ``frequencies.csv``, ``spin_up.csv``, the figure ``hub_plate_tip``
and ``summary.json``.

    python -m phmech.validation.hub_plate --outdir out/hub_plate
"""
import os
import sys
import time

import numpy as np

from .. import System
from . import _common
from ._hub import hub_acceleration, hub_angle, hub_rate

#: aluminium panel, 1 m x 1 m x 10 mm; the spin-up strip is a x a/10 with nu = 0
DATA = dict(a=1.0, b=1.0, h=0.01, rho=2700.0, E=70e9, nu=0.3, strip_width=0.1, omega_s=2.0, T_s=1.0)
#: Leissa (1973), square cantilever plate (CFFF), nu = 0.3: omega a^2 sqrt(rho h / D)
LEISSA_CFFF = (3.4917, 8.5246, 21.429, 27.331, 31.111)
CLAMPED, FREE = 1, (2, 3, 4)          # the markers of firedrake's RectangleMesh: x = 0, x = a, y = 0, y = b


def plate_mesh(n, a, b, ny=None):
    """A ``n x ny`` crossed-free triangle mesh of ``[0, a] x [0, b]`` (markers 1-4)."""
    import firedrake as fd
    return fd.RectangleMesh(int(n), int(ny or n), a, b)


def build(n=8, ny=None, held=False, degree=2, **overrides):
    """``(system, plate)``: the plate clamped to the hub, the hub driven (``held``: welded)."""
    from ..fem.floating_plate import FloatingPlate
    from ..joints.spatial import SpatialJoint
    p = {**DATA, **overrides}
    plate = FloatingPlate("plate", plate_mesh(n, p["a"], p["b"], ny), p["h"], p["rho"], p["E"], p["nu"],
                          clamped=CLAMPED, degree=degree)
    plate.add_frame_port("hub", (0.0, 0.5 * p["b"], 0.0))
    system = System([plate])
    if held:
        system.add_joint(SpatialJoint("weld", plate.port("hub"), None, name="hub"))
    else:
        ws, Ts = p["omega_s"], p["T_s"]
        system.add_joint(SpatialJoint("revolute", plate.port("hub"), None, axis=(0.0, 1.0, 0.0),
                                      rate=lambda t: -float(hub_rate(t, ws, Ts)),
                                      angle=lambda t: -float(hub_angle(t, ws, Ts)), name="hub"))
    return system, plate


def frequency_scale(**overrides):
    """``a^2 sqrt(rho h / D)``: the factor of Leissa's frequency parameter."""
    p = {**DATA, **overrides}
    D = p["E"] * p["h"] ** 3 / (12.0 * (1.0 - p["nu"] ** 2))
    return p["a"] ** 2 * np.sqrt(p["rho"] * p["h"] / D)


def fixed_plate_frequencies(n, k=5, degree=2, **overrides):
    """The lowest ``k`` frequencies [rad/s] of the fixed-base plate clamped at ``x = 0``."""
    from ..fem import MindlinPlate
    p = {**DATA, **overrides}
    plate = MindlinPlate("fixed plate", plate_mesh(n, p["a"], p["b"]), p["h"], p["rho"], p["E"], p["nu"],
                         degree=degree, boundary={CLAMPED: "clamped"}, reduction="projection")
    return np.sort(plate.natural_frequencies(k)[0])[:k]


def floating_frequencies(n, k=5, degree=2, **overrides):
    """The lowest ``k`` frequencies [rad/s] of the floating plate with its hub held (the frame
    welded to the ground), from the linearized model; ``(omega, unknowns)``."""
    system, plate = build(n, held=True, degree=degree, **overrides)
    modes = system.linearize().eigenmodes(k)
    return np.asarray(modes.omega[:k], float), int(plate.ne)


def modes_at_rest(meshes=(4, 8), fixed_meshes=(4, 8, 16, 32), k=5, **overrides):
    """The frequency table: floating (hub held) and fixed-base plates, Leissa's values."""
    scale = frequency_scale(**overrides)
    fixed = {n: fixed_plate_frequencies(n, k, **overrides) * scale for n in fixed_meshes}
    floating = {}
    for n in meshes:
        omega, ne = floating_frequencies(n, k, **overrides)
        floating[n] = {"lambda": omega * scale, "unknowns": ne,
                       "max_rel_vs_fixed": float(np.max(np.abs(omega * scale / fixed[n] - 1.0)))
                       if n in fixed else None}
    finest = fixed[max(fixed_meshes)]
    ns = sorted(fixed_meshes)
    errors = [np.abs(fixed[n] - finest) for n in ns[:-1]]
    orders = [np.log2(e0 / e1).tolist() for e0, e1 in zip(errors, errors[1:])]
    return {"fixed": {n: v.tolist() for n, v in fixed.items()},
            "floating": {n: {**v, "lambda": v["lambda"].tolist()} for n, v in floating.items()},
            "leissa": list(LEISSA_CFFF),
            "fixed_finest_rel_vs_leissa": (finest / np.array(LEISSA_CFFF) - 1.0).tolist(),
            "observed_orders": orders}


def strip_data(**overrides):
    """The spin-up strip's parameters: width ``a/10`` and ``nu = 0`` (a beam in bending)."""
    p = {**DATA, **overrides}
    return {**p, "b": p["strip_width"], "nu": 0.0}


def spin_up_plate(n=16, ny=2, t_end=1.5, dt=1e-3, dt_out=5e-3, progress=False, **overrides):
    """The strip on the driven hub (midpoint rule): ``dict(t, tip, balance, H, result, body, unknowns)``,
    ``tip`` the mean deflection of the free edge's two corners in the hub frame."""
    p = strip_data(**overrides)
    system, plate = build(n, ny, **p)
    dae = system.assemble()
    t_eval = np.linspace(0.0, t_end, int(round(t_end / dt_out)) + 1)
    res = system.simulate(t_end, solver="midpoint", y0=dae.initial_state(), dt=dt, t_eval=t_eval, progress=progress)
    E = res.e("plate")
    rows = plate.node_rows([(p["a"], 0.0), (p["a"], p["b"])])
    U = plate.displacement(E)                        # the deformation recovered from the stresses
    tip = 0.5 * (U @ rows[0][2] + U @ rows[1][2])
    return {"t": res.t, "tip": tip, "balance": res.energy_balance(), "H": res.hamiltonian(), "result": res, "body": plate,
            "unknowns": int(plate.ne), "steps": int(res.stats["nsteps"])}


def spin_up_beam(n_elem=16, t_end=1.5, dt=1e-3, dt_out=5e-3, **overrides):
    """The floating Euler-Bernoulli beam of the strip's section on the same hub drive (planar: the
    hub axis z, the deflection ``u_y``, which is minus the plate's ``w``): ``dict(t, tip)``."""
    from ..fem import FloatingEulerBernoulliBeam
    p = strip_data(**overrides)
    ws, Ts = p["omega_s"], p["T_s"]
    A, I = p["b"] * p["h"], p["b"] * p["h"] ** 3 / 12.0
    beam = FloatingEulerBernoulliBeam("beam", p["a"], n_elem, p["rho"], A, p["E"], I, frame="cantilever")
    system = System([beam])
    system.pin(beam.port("A"), name="hub bearing")
    system.drive(beam.port("A"), lambda t: float(hub_rate(t, ws, Ts)), name="hub",
                 rate=lambda t: float(hub_acceleration(t, ws, Ts)))
    t_eval = np.linspace(0.0, t_end, int(round(t_end / dt_out)) + 1)
    res = system.simulate(t_end, solver="midpoint", dt=dt, t_eval=t_eval)
    _, ry = beam.displacement_rows([beam.L])
    return {"t": res.t, "tip": -(res.e("beam") @ ry[0]), "balance": res.energy_balance()}


def run(meshes=(4, 8, 16), fixed_meshes=(4, 8, 16, 32), n_spin=16, ny_spin=2, n_elem=16, t_end=1.5, dt=1e-3,
        dt_out=5e-3, outdir=None, plot=True, progress=False, **overrides):
    """Both checks; writes the CSV files, the figure and summary.json when ``outdir`` is given."""
    tic = time.perf_counter()
    freq = modes_at_rest(meshes, fixed_meshes, **overrides) if meshes or fixed_meshes else None
    plate = spin_up_plate(n_spin, ny_spin, t_end, dt, dt_out, progress, **overrides)
    beam = spin_up_beam(n_elem, t_end, dt, dt_out, **overrides)
    peak_plate, peak_beam = float(np.max(np.abs(plate["tip"]))), float(np.max(np.abs(beam["tip"])))
    q = strip_data(**overrides)
    # quasi-static: the strip under the inertial load rho A alpha x of the run's largest hub
    # acceleration, a cantilever under a triangular load: w = 11 q0 L^4 / (120 EI), q0 = rho A alpha L
    alpha = float(np.max(hub_acceleration(plate["t"], q["omega_s"], q["T_s"])))
    quasi = 11.0 * q["rho"] * q["b"] * q["h"] * alpha * q["a"] ** 5 / (120.0 * q["E"] * q["b"] * q["h"] ** 3 / 12)
    summary = {"parameters": {**DATA, **overrides}, "frequencies": freq,
               "spin_up": {"mesh": [n_spin, ny_spin], "unknowns": plate["unknowns"], "dt": dt, "t_end": t_end,
                           "steps": plate["steps"], "tip_peak_plate_m": peak_plate, "tip_peak_beam_m": peak_beam,
                           "tip_quasi_static_m": quasi,
                           "tip_peak_difference_rel": peak_plate / peak_beam - 1.0,
                           "tip_history_difference_rel": float(np.max(np.abs(plate["tip"] - beam["tip"])) / peak_beam),
                           "energy_balance_max_abs_J": float(np.max(np.abs(plate["balance"]))),
                           "energy_max_J": float(np.max(np.abs(plate["H"]))),
                           "beam_elements": n_elem},
               "wall_time_s": time.perf_counter() - tic}
    out = _common.CaseResult(summary=summary, results={"plate": plate["result"]}, data={"plate": plate, "beam": beam})
    if outdir is not None:
        out.files = write(out, outdir, plot)
    return out


def write(out, outdir, plot=True):
    s, plate, beam = out.summary, out["plate"], out["beam"]
    files = []
    f = s["frequencies"]
    if f is not None:
        header = ["mode", "leissa"] + [f"fixed_n{n}" for n in f["fixed"]] + [f"floating_n{n}" for n in f["floating"]]
        rows = [[i + 1, f["leissa"][i]] + [v[i] for v in f["fixed"].values()]
                + [v["lambda"][i] for v in f["floating"].values()] for i in range(len(f["leissa"]))]
        files.append(_common.write_table(os.path.join(outdir, "frequencies.csv"), header, rows, case="hub_plate",
                                         notes=["frequency parameter omega a^2 sqrt(rho h / D)",
                                                "floating: hub held (frame welded); fixed: MindlinPlate clamped"]))
    files.append(_common.write_csv(os.path.join(outdir, "spin_up.csv"),
                                   {"t": plate["t"], "hub_rate": hub_rate(plate["t"], DATA["omega_s"], DATA["T_s"]),
                                    "tip_plate": plate["tip"], "tip_beam": beam["tip"],
                                    "energy_balance_plate": plate["balance"]},
                                   case="hub_plate", solver="midpoint", options={"dt": s["spin_up"]["dt"]},
                                   notes=["tip: deflection of the free edge in the hub frame [m]"]))
    if plot:
        plt = _common.figure_style()
        fig, ax = plt.subplots()
        ax.plot(plate["t"], 1e3 * plate["tip"], label="floating plate (strip, nu = 0)")
        ax.plot(beam["t"], 1e3 * beam["tip"], "k--", lw=1, label="floating Euler-Bernoulli beam")
        ax.set_xlabel("time [s]")
        ax.set_ylabel("tip deflection in the hub frame [mm]")
        ax.legend(loc="best", fontsize="small")
        files += _common.savefig(fig, outdir, "hub_plate_tip")
        plt.close(fig)
    files.append(_common.write_summary(outdir, "hub_plate", s))
    return files


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0], tfinal=1.5, dt=1e-3)
    p.add_argument("--meshes", type=_common.positive_int, nargs="*", default=[4, 8, 16],
                   help="meshes (n x n) of the floating plate's modes at rest")
    p.add_argument("--fixed-meshes", type=_common.positive_int, nargs="*", default=[4, 8, 16, 32],
                   help="meshes of the fixed-base plate's convergence")
    p.add_argument("--n-spin", type=_common.positive_int, default=16, help="cells along the strip")
    p.add_argument("--n-elem", type=_common.positive_int, default=16, help="elements of the beam reference")
    args = p.parse_args(argv)
    if args.solver != "midpoint":
        p.error("hub_plate runs the midpoint rule only (--solver midpoint)")
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []
    out = run(args.meshes, args.fixed_meshes, args.n_spin, 2, args.n_elem, args.tfinal, args.dt,
              outdir=args.outdir, plot=not args.no_plot, progress=sys.stderr.isatty())
    s = out.summary
    f = s["frequencies"]
    print("plate on a driven hub")
    if f is not None:
        print("  modes at rest, omega a^2 sqrt(rho h / D): Leissa " + " ".join(f"{v:.4f}" for v in f["leissa"]))
        for n, v in f["fixed"].items():
            print(f"    fixed plate {n} x {n}: " + " ".join(f"{x:.4f}" for x in v))
        for n, v in f["floating"].items():
            rel = "" if v["max_rel_vs_fixed"] is None else f"  (vs fixed {v['max_rel_vs_fixed']:.1e})"
            print(f"    floating, hub held, {n} x {n}: " + " ".join(f"{x:.4f}" for x in v["lambda"]) + rel)
        print("    observed orders of the fixed plate: "
              + "; ".join(" ".join(f"{o:.2f}" for o in row) for row in f["observed_orders"]))
    u = s["spin_up"]
    print(f"  spin-up of the strip ({u['unknowns']} unknowns, dt = {u['dt']} s, {u['steps']} steps): peak tip "
          f"{u['tip_peak_plate_m']:.6e} m, beam {u['tip_peak_beam_m']:.6e} m ({u['tip_peak_difference_rel']:+.2%}), "
          f"quasi-static {u['tip_quasi_static_m']:.6e} m; "
          f"energy balance {u['energy_balance_max_abs_J']:.2e} J of {u['energy_max_J']:.2e} J")
    print(f"  wrote {len(out.files)} files to {args.outdir}")


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

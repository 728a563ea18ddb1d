"""Reduced pH bodies (phmech.reduce): Craig-Bampton against the full finite-element model.

Three bodies of weak forms (:class:`phmech.fem.FormBody`), each clamped and with an interface
port at its free end:

* an axial rod (CG1 velocity, DG0 force), fixed at ``x = 0``, port at ``x = L``;
* a Kirchhoff cantilever plate (CG2 velocity, HHJ1 moments), clamped at ``x = 0``, port the
  mean transverse velocity of the edge ``x = 1``;
* a 3D elastic cantilever bar (:class:`phmech.fem.ElasticSolid`), port the tip face's mean
  velocity and rotation.

For each number of fixed-interface modes the reduced body's lowest frequencies are compared
with the full model's (relative errors; Rayleigh-Ritz: from above, decreasing as modes are
added), a static force at the port is compared with the full model's displacement (exact to
round-off: the constraint modes hold it), and a long rod (4096 elements) with a tip mass is run
by the midpoint rule full and reduced (discrete power balance, time per step).  Last, the flexible crank-slider
of the thesis case with its floating coupler reduced (interface: both pins; the frame stays
unreduced): the midspan deflection against the full coupler's, and the time per step.

    python -m phmech.validation.reduced_bodies --outdir out/reduced_bodies
"""
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from . import _common

L_ROD, RHO_A, EA = 2.0, 3.0, 1200.0
MODES = (2, 4, 8, 16, 32)


def _comm(comm):
    return {} if comm is None else {"comm": comm}


def rod(n=64, name="rod", comm=None):
    """The clamped axial rod of ``n`` elements (FormBody), port ``tip`` at ``x = L``; ``comm`` the
    mesh's communicator (``MPI.COMM_SELF`` for one body per rank)."""
    import firedrake as fd

    from ..fem import FormBody
    mesh = fd.IntervalMesh(n, L_ROD, **_comm(comm))
    W = fd.FunctionSpace(mesh, "CG", 1) * fd.FunctionSpace(mesh, "DG", 0)
    body = FormBody(name, W, lambda e, de: (RHO_A * e[0] * de[0] + e[1] * de[1] / EA) * fd.dx,
                    lambda e, de: (-e[1] * de[0].dx(0) + e[0].dx(0) * de[1]) * fd.dx, fixed=[(0, 1)], dim=2)
    body.add_form_port("tip", [lambda de: de[0] * fd.ds(2), None], position=(L_ROD, 0.0))
    return body


def plate(n=8, name="plate", h=0.01, rho=2700.0, E=70e9, nu=0.3, comm=None):
    """The Kirchhoff cantilever (unit square, ``x = 0`` clamped) as a FormBody, port ``tip`` the
    mean transverse velocity of the edge ``x = 1``; ``comm`` as for :func:`rod`."""
    import firedrake as fd

    from ..fem import FormBody
    from ..fem.plate_forms import kirchhoff_forms
    W, m, j = kirchhoff_forms(fd.UnitSquareMesh(n, n, **_comm(comm)), h, rho, E, nu)
    # clamped x = 0: v = 0 (the rotation is natural); free edges: M_nn = 0 (the moments' dofs there)
    body = FormBody(name, W, m, j, fixed=[(0, 1), (1, 2), (1, 3), (1, 4)])
    body.add_form_port("tip", [None, None, lambda de: de[0] * fd.ds(2)], position=(1.0, 0.5, 0.0))
    return body


def solid(m=2, name="solid", rho=7800.0, E=2.1e11, nu=0.3, comm=None, max_dofs=None):
    """A steel cantilever bar ``1 x 0.1 x 0.1`` m (:class:`phmech.fem.ElasticSolid`, CG2 velocity,
    DG1 symmetric stress; ``5m x m x m`` hexahedra of six tetrahedra), clamped at ``x = 0``, port
    ``tip`` the face ``x = 1`` (its mean velocity and rotation: six interface rows); ``max_dofs``
    as the solid takes it (above a million unknowns)."""
    import firedrake as fd

    from ..fem import ElasticSolid
    mesh = fd.BoxMesh(5 * m, m, m, 1.0, 0.1, 0.1, **_comm(comm))
    body = ElasticSolid(name, mesh, rho, E, nu, degree=2, boundary={1: "clamped"},
                        max_dofs=None if max_dofs is None else int(max_dofs))
    body.add_face_port("tip", 2)
    return body


@dataclass
class ReducedBodiesResult(_common.CaseResult):
    #: per model: {"modes": [...], "omega_full": (k,), "omega": (n_counts, k), "errors": (n_counts, k)}
    tables: dict


def error_table(body, modes, k):
    """Full and reduced frequencies of ``body`` (port ``tip``) for each count of ``modes``."""
    from ..reduce import craig_bampton
    full, _ = body.natural_frequencies(k)
    rows, sizes = [], []
    for n in modes:
        red = craig_bampton(body, ["tip"], n)
        w = red.natural_frequencies(k)
        rows.append(np.r_[w, np.full(k - len(w), np.nan)])
        sizes.append(red.ne)
    omega = np.array(rows)
    return {"modes": list(modes), "n_reduced": sizes, "n_full": body.ne, "omega_full": full,
            "omega": omega, "errors": (omega - full) / full}


def static_check(body, F):
    """``|u_tip reduced - u_tip full| / |u_tip full|`` of a static force ``F`` at the port ``tip``,
    with no normal mode: the constraint mode alone."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    from ..reduce import craig_bampton
    from ..reduce.basis import Split
    s = Split(body)
    Y = body.port("tip").Y[:, s.v]
    # the full model at rest: D^T sigma = Y^T F, D u = C sigma (one sparse LU of the saddle matrix)
    S = sp.bmat([[None, s.D.T], [s.D, -s.C]], format="csc")
    u = spla.splu(S).solve(np.r_[Y.T @ F, np.zeros(s.C.shape[0])])[:s.nv]
    u_tip = Y @ u
    red = craig_bampton(body, ["tip"], 0)
    b, J, Yr = red.basis, red.J0.toarray(), red.port("tip").Y
    s_r = np.linalg.solve(-J[np.ix_(b.rv, b.rs)], Yr[:, b.rv].T @ F)
    return float(np.abs(Yr[:, b.rv] @ s_r - u_tip).max() / np.abs(u_tip).max())


def tip_mass_run(body, t_end, dt, m_tip=1.5):
    """The rod (full or reduced) with a point mass welded to its tip, started by a tip velocity:
    ``(result, seconds per step)``."""
    from .. import PointMass, System
    from ..joints import Revolute
    from ..reduce import ReducedBody
    tip = PointMass("tip", m_tip, (L_ROD, 0.0))
    s = System([body, tip])
    s.add_joint(Revolute(body.port("tip"), tip.port("P"), name="weld"))
    dae = s.assemble()
    e0 = np.zeros(dae.ne)
    e0[dae.e_slices["tip"].start] = 0.3
    sl = dae.e_slices[body.name]
    if isinstance(body, ReducedBody):   # its first constraint mode is the unit tip motion
        e0[sl.start + body.basis.rv[0]] = 0.3
    else:                               # the full rod: the velocity field 0.3 x / L
        import firedrake as fd
        u = fd.Function(body.space)
        u.subfunctions[0].interpolate(0.3 * fd.SpatialCoordinate(body.mesh)[0] / L_ROD)
        e0[sl] = body.efforts(u)
    res = s.simulate(t_end, dt=dt, y0=dae.initial_state(e0=e0))
    return res, res.stats["wall_time"] / max(res.stats["nsteps"], 1)


def reduced_crank_slider(n_elem=16, n_modes=4):
    """The flexible crank-slider with its coupler of ``n_elem`` elements reduced to ``n_modes``
    fixed-interface modes (interface: both pins): ``(system, reduced coupler, full coupler)``."""
    from ..mechanisms.crank_slider import flexible_crank_slider
    from ..reduce import craig_bampton
    _, bodies = flexible_crank_slider(n_elem)
    beam = bodies["coupler"]
    red = craig_bampton(beam, ["A", "B"], n_modes, velocity=np.r_[beam.fields["vx"], beam.fields["vy"]])
    system, _ = flexible_crank_slider(n_elem, coupler=red)
    return system, red, beam


def crank_slider_comparison(n_elem=16, modes=(2, 4, 8), t_end=0.05, dt=1e-4):
    """The flexible crank-slider (:func:`phmech.mechanisms.crank_slider.flexible_crank_slider`) with
    its coupler full and reduced (interface: both pins, their velocity and slope rows; the frame
    stays unreduced): the midspan deflection ``u_y(L/2) / L``, its peak, the energy balance and
    the time per midpoint step."""
    from ..mechanisms.crank_slider import flexible_crank_slider
    system, bodies = flexible_crank_slider(n_elem)
    beam = bodies["coupler"]
    _, uy = beam.displacement_rows([beam.L / 2])
    out = {}

    def record(res, body, rows):
        u = res.e(body) @ rows / beam.L
        k = int(np.argmax(np.abs(u)))
        H = res.hamiltonian()
        return {"ne_coupler": int(body.ne), "ne": int(res.dae.ne), "uy_mid_over_L": u, "t": res.t,
                "peak_uy_mid_over_L": float(abs(u[k])), "t_peak": float(res.t[k]),
                "energy_balance_max_abs_J": float(np.abs(res.energy_balance()).max()), "H_max_J": float(H.max()),
                "time_per_step_s": res.stats["wall_time"] / max(res.stats["nsteps"], 1)}
    out["full"] = record(system.simulate(t_end, dt=dt), beam, uy[0])
    for k in modes:
        s_r, red, _ = reduced_crank_slider(n_elem, k)
        out[k] = record(s_r.simulate(t_end, dt=dt), red, red.basis.rows(uy)[0])
        out[k]["peak_rel_difference"] = out[k]["peak_uy_mid_over_L"] / out["full"]["peak_uy_mid_over_L"] - 1
        out[k]["max_difference_over_peak"] = float(np.abs(out[k]["uy_mid_over_L"] - out["full"]["uy_mid_over_L"]).max()
                                                   / out["full"]["peak_uy_mid_over_L"])
        out[k]["speedup_per_step"] = out["full"]["time_per_step_s"] / out[k]["time_per_step_s"]
    return out


def run(n_rod=64, n_plate=8, modes=MODES, k=4, t_end=0.05, dt=1e-4, n_run=4096, n_coupler=16, crank_modes=(2, 4, 8),
        crank_t_end=0.05, m_solid=2, outdir=None, plot=True):
    """The error tables of both bodies and the runs of the rod; writes ``reduced_bodies.csv``,
    the figure and ``summary.json`` into ``outdir``."""
    from ..reduce import craig_bampton
    tic = time.perf_counter()
    bodies = {"rod": rod(n_rod), "plate": plate(n_plate)}
    if m_solid:
        bodies["solid"] = solid(m_solid)
    tables = {}
    for name, body in bodies.items():
        usable = tuple(m for m in modes if m <= len(body.velocity_dofs) - 2)
        tables[name] = error_table(body, usable, k)
        tables[name]["static_tip_rel_error"] = static_check(body, np.array([1.0, 0.0]) if body.dim == 2
                                                            else np.array([0.0, 0.0, 1.0]))
        tables[name]["static_force"] = "axial" if body.dim == 2 else "transverse (z)"
    runs = {}
    long_rod = bodies["rod"] if n_run == n_rod else rod(n_run)
    runs["full"] = tip_mass_run(long_rod, t_end, dt)
    n_red = 8
    tic_r = time.perf_counter()
    red = craig_bampton(long_rod, ["tip"], n_red)
    t_reduce = time.perf_counter() - tic_r
    runs["reduced"] = tip_mass_run(red, t_end, dt)
    out = ReducedBodiesResult(tables)
    summary = {"wall_time_s": None, "modes": list(modes), "k": k}
    for name, t in tables.items():
        summary[name] = {"n_full": int(t["n_full"]), "modes": t["modes"], "n_reduced": t["n_reduced"],
                         "omega_full": t["omega_full"].tolist(),
                         "errors": [[None if not np.isfinite(x) else float(x) for x in row] for row in t["errors"]],
                         "first_error_finest": float(t["errors"][-1, 0]),
                         "static_tip_rel_error": t["static_tip_rel_error"], "static_force": t["static_force"]}
    tip = {}
    for which, (res, per_step) in runs.items():
        H = res.hamiltonian()
        tip[which] = {"ne": int(res.dae.ne), "time_per_step_s": per_step,
                      "energy_balance_rel": float(np.abs(res.energy_balance()).max() / H[0]),
                      "tip_velocity_end": float(res.e("tip")[-1, 0])}
    summary["tip_mass_run"] = {"n_elem": n_run, "modes": n_red, "t_end": t_end, "dt": dt, "reduction_s": t_reduce,
                               **tip, "speedup_per_step": runs["full"][1] / runs["reduced"][1],
                               "tip_velocity_difference": abs(tip["full"]["tip_velocity_end"]
                                                              - tip["reduced"]["tip_velocity_end"])}
    crank = crank_slider_comparison(n_coupler, crank_modes, crank_t_end, dt)
    out.crank = crank
    summary["crank_slider"] = {"n_elem": n_coupler, "t_end": crank_t_end, "dt": dt, "modes": list(crank_modes),
                               **{str(key): {k_: v for k_, v in rec.items() if k_ not in ("uy_mid_over_L", "t")}
                                  for key, rec in crank.items()}}
    summary["wall_time_s"] = time.perf_counter() - tic
    out.summary = summary
    out.results = {k_: r for k_, (r, _) in runs.items()}
    if outdir is not None:
        out.files += write(out, outdir, plot)
    return out


def write(out, outdir, plot=True):
    """``reduced_bodies.csv`` (model, modes, unknowns, mode, full and reduced frequency, relative
    error), the figure ``ReducedBodies_errors`` and ``summary.json``."""
    os.makedirs(outdir, exist_ok=True)
    rows = []
    for name, t in out.tables.items():
        for i, n in enumerate(t["modes"]):
            for j in range(len(t["omega_full"])):
                if np.isfinite(t["omega"][i, j]):
                    rows.append((name, n, t["n_reduced"][i], t["n_full"], j + 1, float(t["omega_full"][j]),
                                 float(t["omega"][i, j]), float(t["errors"][i, j])))
    path = _common.write_table(os.path.join(outdir, "reduced_bodies.csv"),
                               ["model", "n_modes", "n_reduced", "n_full", "mode", "omega_full_rad_s",
                                "omega_reduced_rad_s", "rel_error"], rows, case="reduced_bodies")
    files = [path]
    if plot:
        plt = _common.figure_style()
        fig, ax = plt.subplots()
        for name, t in out.tables.items():
            for j in range(min(3, len(t["omega_full"]))):
                e = t["errors"][:, j]
                ok = np.isfinite(e) & (e > 0)
                ax.loglog(np.array(t["modes"])[ok], e[ok], "o-", label=f"{name}, mode {j + 1}")
        ticks = sorted({n for t in out.tables.values() for n in t["modes"]})
        ax.set_xticks(ticks, [str(n) for n in ticks])
        ax.set_xticks([], minor=True)
        ax.set_xlabel("fixed-interface modes")
        ax.set_ylabel(r"$\omega_r / \omega - 1$")
        ax.legend()
        files += _common.savefig(fig, outdir, "ReducedBodies_errors")
        plt.close(fig)
    crank = getattr(out, "crank", None)
    if crank:
        cols = {"t": crank["full"]["t"], "uy_mid_over_L_full": crank["full"]["uy_mid_over_L"]}
        cols.update({f"uy_mid_over_L_{k}_modes": rec["uy_mid_over_L"] for k, rec in crank.items() if k != "full"})
        files.append(_common.write_csv(os.path.join(outdir, "crank_slider_reduced.csv"), cols,
                                       case="reduced_bodies"))
        if plot:
            plt = _common.figure_style()
            fig, ax = plt.subplots()
            ax.plot(cols["t"], cols["uy_mid_over_L_full"], "k", label=f"full ({crank['full']['ne_coupler']})")
            for k, rec in crank.items():
                if k != "full":
                    ax.plot(rec["t"], rec["uy_mid_over_L"], "--", label=f"{k} modes ({rec['ne_coupler']})")
            ax.set_xlabel("t [s]")
            ax.set_ylabel(r"$u_y(L/2) / L$")
            ax.legend()
            files += _common.savefig(fig, outdir, "ReducedBodies_crank_slider")
            plt.close(fig)
    files.append(_common.write_summary(outdir, "reduced_bodies", out.summary))
    return files


def format_table(out):
    """The error-versus-modes tables as text."""
    lines = []
    for name, t in out.tables.items():
        k = len(t["omega_full"])
        lines.append(f"{name} ({t['n_full']} unknowns): full omega = " + ", ".join(f"{w:.6g}" for w in t["omega_full"]))
        lines.append("  modes  unknowns  " + "  ".join(f"err mode {j + 1:d}" for j in range(k)))
        for i, n in enumerate(t["modes"]):
            lines.append(f"  {n:5d}  {t['n_reduced'][i]:8d}  " + "  ".join(
                f"{x:11.3e}" if np.isfinite(x) else f"{'-':>11s}" for x in t["errors"][i]))
        lines.append(f"  static {t['static_force']} tip load, constraint modes only: relative error of the tip "
                     f"displacement {t['static_tip_rel_error']:.2e}")
    return "\n".join(lines)


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--n-rod", type=_common.positive_int, default=64, help="rod elements")
    p.add_argument("--n-plate", type=_common.positive_int, default=8, help="plate mesh (n x n squares)")
    p.add_argument("--modes", type=_common.positive_int, nargs="+", default=list(MODES))
    p.add_argument("--tfinal", type=_common.positive_float, default=0.05, help="time of the tip-mass runs [s]")
    p.add_argument("--n-rod-run", type=_common.positive_int, default=4096, help="rod elements of the tip-mass runs")
    p.add_argument("--m-solid", type=_common.non_negative_int, default=2,
                   help="3D bar of 5m x m x m hexahedra (0: no solid)")
    p.add_argument("--n-coupler", type=_common.positive_int, default=16, help="crank-slider coupler elements")
    p.add_argument("--crank-modes", type=_common.positive_int, nargs="+", default=[2, 4, 8])
    p.add_argument("--crank-tfinal", type=_common.positive_float, default=0.05, help="crank-slider run [s]")
    args = p.parse_args(argv)
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []                   # PETSc reads the command line: the case's options are not its
    out = run(args.n_rod, args.n_plate, tuple(args.modes), t_end=args.tfinal, n_run=args.n_rod_run,
              n_coupler=args.n_coupler,
              crank_modes=tuple(args.crank_modes), crank_t_end=args.crank_tfinal, m_solid=args.m_solid,
              outdir=args.outdir,
              plot=not args.no_plot)
    print(format_table(out))
    c = out.summary["crank_slider"]
    f = c["full"]
    print(f"crank-slider, coupler of {c['n_elem']} elements, {c['t_end']} s: full coupler {f['ne_coupler']} unknowns, "
          f"peak u_y(L/2)/L {f['peak_uy_mid_over_L']:.5e}, {f['time_per_step_s'] * 1e6:.1f} us/step")
    for k in c["modes"]:
        r = c[str(k)]
        print(f"  {k:2d} modes: {r['ne_coupler']} unknowns, peak {r['peak_uy_mid_over_L']:.5e} "
              f"({r['peak_rel_difference']:+.2e}), max difference {r['max_difference_over_peak']:.2e} of the peak, "
              f"{r['time_per_step_s'] * 1e6:.1f} us/step ({r['speedup_per_step']:.1f}x)")
    r = out.summary["tip_mass_run"]
    print(f"rod of {r['n_elem']} elements with a tip mass, {r['t_end']} s at dt = {r['dt']}: full {r['full']['ne']} "
          f"unknowns {r['full']['time_per_step_s'] * 1e6:.1f} us/step, reduced ({r['modes']} modes, "
          f"{r['reduction_s']:.2f} s to reduce) {r['reduced']['ne']} unknowns "
          f"{r['reduced']['time_per_step_s'] * 1e6:.1f} us/step ({r['speedup_per_step']:.0f}x); energy balance "
          f"{r['full']['energy_balance_rel']:.1e} / {r['reduced']['energy_balance_rel']:.1e} of H0; tip velocity "
          f"difference at the end {r['tip_velocity_difference']:.1e} m/s")
    return out.summary


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

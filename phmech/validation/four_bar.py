"""Natural frequencies of a flexible four-bar mechanism over the crank angle.

The four-bar of Kitis & Lindenberg (1990) / Chebbi et al. (2017): ground
0.254 m; crank 0.108 m (A = 1.0774e-4 m^2, EI = 11.472 N m^2); coupler
0.2794 m and follower 0.2705 m (A = 4.0645e-5 m^2, EI = 0.616 N m^2);
rho = 2714 kg/m^3, E = 7.1e10 Pa; lumped masses of 0.042 kg at the
crank-coupler and coupler-follower joints.  Each link is a floating
Euler-Bernoulli beam with a cantilever deformation field; revolute joints
are transformer interconnections; the crank is clamped at the ground
(locked motor) and the follower pinned there.  For each crank angle the
loop-closure equations give the configuration and the constrained pencil
``E Phi Lambda = A Phi`` gives the natural frequencies.  Only the joint
rows ``G`` change with the angle, so the dense sweep
(:func:`phmech.solvers.eigen.sweep`) factors the mass and the coupling once
and solves all angles with stacked real singular value decompositions.

    python -m phmech.validation.four_bar --n-angles 360 --n-elem 6
"""
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from ..mechanisms.four_bar import L_GROUND, FourBar, configuration, flexible_four_bar
from . import _common

#: the case's mechanism (:mod:`phmech.mechanisms.four_bar`)
build = flexible_four_bar

_FOUR_BARS = {}


def study_point(theta1_deg, n_elem=6, k=3, method="dense"):
    """The four-bar's first ``k`` natural frequencies at crank angle ``theta1_deg`` [deg].

    The computation of :func:`phmech.validation.four_bar.run` at one angle (the
    linearization at the loop-closure configuration and its constrained
    pencil); the model is built once per process and mesh.  Returns
    ``{"summary": {"omega<i>_rad_s": ..., "f<i>_hz": ..., "model": ..., "solver": ...}}``.
    """
    if n_elem not in _FOUR_BARS:
        _FOUR_BARS[n_elem] = FourBar(int(n_elem))
    w = _FOUR_BARS[n_elem].linearize(np.radians(float(theta1_deg))).eigenmodes(int(k), method).omega
    return {"summary": {**{f"omega{i + 1}_rad_s": float(x) for i, x in enumerate(w)},
                        **{f"f{i + 1}_hz": float(x) / (2 * np.pi) for i, x in enumerate(w)},
                        "model": f"four-bar, floating Euler-Bernoulli links ({int(n_elem)} elements each), "
                                 "linearized at the crank angle",
                        "solver": f"eigen ({method})"}}


@dataclass
class FourBarResult(_common.CaseResult):
    theta: np.ndarray           # crank angles [rad]
    omega: np.ndarray           # (n_angles, 3) [rad/s]
    sweep_time: float


def run(n_angles=360, n_elem=6, method="dense", outdir=None, plot=True, k=3):
    """Sweep the crank angle over the full turn; writes CSV, figures and summary.json."""
    from ..solvers.eigen import sweep

    tic = time.perf_counter()
    fb = FourBar(n_elem)
    t_build = time.perf_counter() - tic
    theta = np.linspace(0.0, 2 * np.pi, n_angles, endpoint=False)
    tic = time.perf_counter()
    omega, _ = sweep(theta, fb.linearize, k=k, method=method)
    t_sweep = time.perf_counter() - tic
    out = FourBarResult(theta, omega, t_sweep)
    out.mode_shapes = fb.mode_shapes(np.radians(90.0), k)
    at = {}
    for deg in (0, 90, 180, 270):
        lin = fb.linearize(np.radians(deg))
        at[str(deg)] = lin.eigenmodes(k, method).omega.tolist()
    out.summary = {"n_angles": n_angles, "n_elem": n_elem, "method": method,
                   "build_time_s": t_build, "sweep_time_s": t_sweep,
                   "time_per_angle_ms": 1e3 * t_sweep / n_angles,
                   "omega_at_deg_rad_s": at,
                   "omega_min_rad_s": omega.min(axis=0).tolist(), "omega_max_rad_s": omega.max(axis=0).tolist()}
    if outdir is not None:
        out.files += write(out, outdir, plot)
    return out


def convergence(meshes=(2, 4, 8, 16), angles_deg=(0, 90, 180, 270), k=3):
    """Frequencies at ``angles_deg`` on a sequence of meshes: array (meshes, angles, k)."""
    return np.array([[FourBar(n).linearize(np.radians(a)).eigenmodes(k).omega for a in angles_deg]
                     for n in meshes])


def write(out, outdir, plot=True):
    os.makedirs(outdir, exist_ok=True)
    if not np.all(np.isfinite(out.omega)):
        raise ValueError("four_bar: non-finite frequencies; not writing output")
    k = min(3, out.omega.shape[1])
    header = (["theta1_deg"] + [f"omega{i + 1}_rad_s" for i in range(k)]
              + [f"f{i + 1}_hz" for i in range(k)])
    rows = [[float(np.degrees(th)), *map(float, w[:k]), *(float(x) / (2 * np.pi) for x in w[:k])]
            for th, w in zip(out.theta, out.omega)]
    files = [_common.write_table(os.path.join(outdir, "four_bar.csv"), header, rows, case="four_bar",
                                 solver=f"eigen ({out.summary['method']})",
                                 options={"n_elem": out.summary["n_elem"], "n_angles": out.summary["n_angles"]},
                                 notes=["constrained pencil E Phi Lambda = A Phi at each crank angle"])]
    if plot:
        plt = _common.figure_style()
        for stem, fig in figures(out):
            files += _common.savefig(fig, outdir, stem)
            plt.close(fig)
    files.append(_common.write_summary(outdir, "four_bar", out.summary))
    return files


def model_text(summary):
    """The model and solver of a run, for figure titles."""
    return (f"four-bar, floating Euler-Bernoulli links ({summary['n_elem']} elements each), linearized; "
            f"eigen ({summary['method']})")


def figures(out):
    """The figures of a run: ``[(stem, figure)]`` (frequencies over the crank angle, mode shapes at 90 deg)."""
    plt = _common.figure_style()
    deg = np.degrees(out.theta)
    made = []
    for stem, cols in (("FourBar_Om12", (0, 1)), ("FourBar_Om3", (2,))):
        fig, ax = plt.subplots()
        for c in cols:
            ax.plot(deg, out.omega[:, c], color=f"C{c}", label=rf"$\omega_{c + 1}$")
        ax.set_xlabel(r"crank angle $\theta_1$ [deg]")
        ax.set_ylabel(r"$\omega$ [rad/s]")
        ax.set_xlim(0, 360)
        ax.set_title(model_text(out.summary), fontsize="small")
        ax.legend()
        made.append((stem, fig))
    w, shapes = out.mode_shapes
    fig, axs = plt.subplots(1, len(shapes), figsize=(4.2 * len(shapes), 3.9), sharey=True)
    P, Q, _ = configuration(np.radians(90.0))
    rigid = np.array([[0, 0], P, Q, [L_GROUND, 0]])
    for i, (ax, wi, shp) in enumerate(zip(np.atleast_1d(axs), w, shapes)):
        ax.plot(rigid[:, 0], rigid[:, 1], "k--", lw=0.8)
        for name, xy in shp.items():
            ax.plot(xy[:, 0], xy[:, 1], lw=2, label=name)
        ax.set_aspect("equal")
        ax.set_title(rf"mode {i + 1}: $\omega$ = {wi:.1f} rad/s")
        ax.set_xlabel("x [m]")
    np.atleast_1d(axs)[0].set_ylabel("y [m]")
    np.atleast_1d(axs)[0].legend(fontsize=8)
    fig.suptitle(f"mode shapes at crank angle 90 deg (largest displacement 5 % of the ground link); "
                 f"{model_text(out.summary)}", fontsize="small")
    made.append(("FourBar_modes_90deg", fig))
    return made


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--n-angles", type=_common.positive_int, default=360, help="crank angles over the full turn")
    p.add_argument("--n-elem", type=_common.positive_int, default=6, help="elements per link")
    p.add_argument("--method", choices=["dense", "hermitian", "sparse"], default="dense",
                   help="eigen solver (dense: real split, all angles in stacked calls; hermitian: the "
                        "complex Hermitian reduction angle by angle; sparse: ARPACK shift-invert)")
    p.add_argument("--convergence", action="store_true",
                   help="also print and write the mesh-convergence table (2, 4, 8, 16 elements per link)")
    p.add_argument("--animate", nargs="?", const="auto", default=None, choices=["auto", "mp4", "gif"],
                   help="also animate the first three modes at crank angle 90 deg "
                        "(four_bar_mode<i>.mp4, auto: MP4 with ffmpeg, else GIF)")
    args = p.parse_args(argv)
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []
    if args.convergence:
        meshes, angles = (2, 4, 8, 16), (0, 90, 180, 270)
        w = convergence(meshes, angles)
        _common.write_table(os.path.join(args.outdir, "four_bar_convergence.csv"),
                            ["n_elem", "theta1_deg", "omega1_rad_s", "omega2_rad_s", "omega3_rad_s"],
                            [[n, a, *map(float, w[i, j])] for i, n in enumerate(meshes) for j, a in enumerate(angles)],
                            case="four_bar", solver="eigen (dense)", notes=["mesh convergence"])
        print("mesh convergence (rad/s):")
        for j, a in enumerate(angles):
            for i, n in enumerate(meshes):
                print(f"  theta1 = {a:3d} deg, {n:2d} elements: " + ", ".join(f"{x:11.5f}" for x in w[i, j]))
    out = run(args.n_angles, args.n_elem, args.method, outdir=args.outdir, plot=not args.no_plot)
    movie = _common.animation_path(args, "four_bar_mode")
    if movie is not None:
        from ..io.animation import animate_modes
        modes = FourBar(args.n_elem).linearize(np.radians(90.0)).eigenmodes(3, args.method)
        stem, ext = os.path.splitext(movie)
        for i in range(len(modes.omega)):
            out.files.append(animate_modes(modes, i, f"{stem}{i + 1}{ext}", n_frames=36,
                                           title=f"four-bar at 90 deg, mode {i + 1}: "
                                                 f"{modes.omega[i] / (2 * np.pi):.2f} Hz"))
    s = out.summary
    print(f"four-bar: {args.n_angles} angles, {args.n_elem} elements per link, {args.method}: "
          f"sweep {s['sweep_time_s']:.2f} s ({s['time_per_angle_ms']:.2f} ms per angle)")
    for deg, w in s["omega_at_deg_rad_s"].items():
        print(f"  theta1 = {deg:>3s} deg: omega = " + ", ".join(f"{x:9.3f}" for x in w) + " rad/s")


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

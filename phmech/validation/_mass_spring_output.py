"""CSV files, figures and animations of the mass-spring validation cases."""
import os

import numpy as np

from . import _common
from . import _mass_spring_cases as cases


def _table(path, header, rows, **meta):
    """CSV with the provenance lines (:func:`phmech.validation._common.write_table`)."""
    arr = np.asarray(rows, float)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{path}: refusing to write non-finite values")
    _common.write_table(path, header, arr.tolist(), **meta)


def _convergence(plt, outdir, stem, steps, errors, label):
    fig, ax = plt.subplots()
    h = 1.0 / np.asarray(steps, float)
    ax.loglog(h, errors, "o-", label=label)
    ax.loglog(h, errors[0] * (h / h[0]) ** 2, "k--", label="slope 2")
    ax.set_xlabel("1 / steps")
    ax.set_ylabel("error")
    ax.legend()
    _common.savefig(fig, outdir, stem)
    plt.close(fig)


def _energy_figure(plt, outdir, stem, res):
    e = res.energies()
    fig, ax = plt.subplots()
    for k in ("kinetic", "spring", "gravity", "total", "work_loads", "numerical_dissipation"):
        if np.any(e[k]):
            ax.plot(res.t, e[k], label=k.replace("_", " "))
    ax.set_xlabel("t [s]")
    ax.set_ylabel("energy [J]")
    ax.legend(fontsize=8)
    _common.savefig(fig, outdir, stem)
    plt.close(fig)


def animate(res, path, edges=(), every=5, fps=25):
    """GIF of the masses (and the element lines ``edges``: pairs of mass indices) with the pillow writer.

    Returns the path, or None when pillow is not available."""
    plt = _common.figure_style()
    from matplotlib import animation
    if not animation.writers.is_available("pillow"):
        return None
    P = res.positions()[::every]
    fig, ax = plt.subplots()
    ax.set_aspect("equal")
    lo, hi = P.reshape(-1, P.shape[2]).min(axis=0), P.reshape(-1, P.shape[2]).max(axis=0)
    pad = 0.1 * np.max(hi - lo) + 1e-9
    axes = (0, 1) if P.shape[2] == 2 or np.ptp(P[..., 1]) > np.ptp(P[..., 2]) else (0, 2)
    ax.set_xlim(lo[axes[0]] - pad, hi[axes[0]] + pad)
    ax.set_ylim(lo[axes[1]] - pad, hi[axes[1]] + pad)
    pts, = ax.plot([], [], "o", ms=4)
    lines = [ax.plot([], [], "-", lw=0.8, color="0.4")[0] for _ in edges]

    def frame(k):
        pts.set_data(P[k, :, axes[0]], P[k, :, axes[1]])
        for ln, (a, b) in zip(lines, edges):
            ln.set_data(P[k, [a, b], axes[0]], P[k, [a, b], axes[1]])
        return [pts, *lines]
    anim = animation.FuncAnimation(fig, frame, frames=len(P), blit=True)
    anim.save(path, writer=animation.PillowWriter(fps=fps))
    plt.close(fig)
    return path


def write(case, out, outdir, plot=True, animate_gif=False):
    """Write the CSV (and figures, and a GIF) of one case into ``outdir``."""
    res, s = out["result"], out["summary"]

    def tab(path, header, rows):
        _table(path, header, rows, case=f"mass_spring {case}", result=res)
    if case == "pendulum":
        ex = cases.pendulum_exact(res.t)[0]
        P = res.positions()[:, 0]
        tab(os.path.join(outdir, "pendulum.csv"), ["t", "x", "y", "x_exact", "y_exact", "tension"],
               np.column_stack([res.t, P[:, 0], P[:, 1], ex[:, 0], ex[:, 1], res.multipliers()[:, 0]]))
    elif case == "chain":
        y_ex = cases.hanging_chain_exact(res.t)[0]
        tab(os.path.join(outdir, "chain.csv"), ["t", "y_last", "y_last_exact"],
               np.column_stack([res.t, res.positions()[:, -1, 1], y_ex[:, -1]]))
    elif case == "bridge":
        ref, zi = out["reference"], out["mid_z"]
        tab(os.path.join(outdir, "bridge.csv"), ["t", "z_mid", "z_mid_radau"],
               np.column_stack([ref.t, np.interp(ref.t, res.t, res.y[:, zi].mean(axis=1)),
                                ref.y[:, zi].mean(axis=1)]))
    elif case == "kreisel":
        from .mass_spring import _ring_invariants
        r, H, E = _ring_invariants(res)
        tab(os.path.join(outdir, "kreisel.csv"), ["t", "radius", "angular_momentum", "energy"],
               np.column_stack([res.t, r, H, E]))
    elif case == "stability":
        e = res.energies()
        tab(os.path.join(outdir, "stability.csv"), ["t", "energy", "tension_1"],
               np.column_stack([res.t, e["total"], res.multipliers()[:, 0]])[::10])
    if plot:
        plt = _common.figure_style()
        if case == "pendulum":
            _convergence(plt, outdir, "pendulum_convergence", out["steps"], s["max_position_error"], "position")
            fig, ax = plt.subplots()
            ax.plot(res.t, res.positions()[:, 0, 0], label="x")
            ax.plot(res.t, cases.pendulum_exact(res.t)[0][:, 0], "k--", label="x exact")
            ax.set_xlabel("t [s]")
            ax.set_ylabel("x [m]")
            ax.legend()
            _common.savefig(fig, outdir, "pendulum_x")
            plt.close(fig)
        elif case == "chain":
            sc = s["source_chain"]
            _convergence(plt, outdir, "chain_convergence", sc["steps"], sc["max_error"], "source chain")
            fig, ax = plt.subplots()
            for key, style in (("springs", "o-"), ("constraints", "s--")):
                X, Xn, modes = out[key]
                ax.plot(X[:, 0], X[:, 1], "k-", lw=0.6)
                P = np.vstack([X[0], Xn, X[-1]])
                ax.plot(P[:, 0], P[:, 1], style, ms=4, label=f"{key}: network equilibrium")
            ax.plot([], [], "k-", lw=0.6, label="shooting solution")
            ax.set_xlabel("x [m]")
            ax.set_ylabel("y [m]")
            ax.set_aspect("equal")
            ax.legend(fontsize=8)
            _common.savefig(fig, outdir, "chain_equilibrium")
            plt.close(fig)
        elif case == "bridge":
            ref, zi = out["reference"], out["mid_z"]
            fig, ax = plt.subplots()
            ax.plot(res.t, res.y[:, zi].mean(axis=1), label="generalized-alpha")  # every step
            ax.plot(ref.t, ref.y[:, zi].mean(axis=1), "k--", label="Radau IIA")
            ax.set_xlabel("t [s]")
            ax.set_ylabel("midspan z [m]")
            ax.legend()
            _common.savefig(fig, outdir, "bridge_midspan")
            plt.close(fig)
            _convergence(plt, outdir, "bridge_convergence", s["steps"], s["max_error"], "bridge")
        elif case == "kreisel":
            b = s["breathing"]
            _convergence(plt, outdir, "kreisel_convergence", b["steps"], b["max_radius_error"], "radius")
        if case in ("pendulum", "bridge", "kreisel", "stability"):
            _energy_figure(plt, outdir, f"{case}_energy", res)
    if animate_gif:
        prob = res.dae
        nm = prob.net.nm
        edges = [(a, b) for a, b in zip(prob.net.springs.i, prob.net.springs.j) if a < nm and b < nm]
        edges += [(a, b) for a, b in zip(prob.net.cons.i, prob.net.cons.j) if a < nm and b < nm]
        animate(res, os.path.join(outdir, f"{case}.gif"), edges, every=max(1, len(res.t) // 150))

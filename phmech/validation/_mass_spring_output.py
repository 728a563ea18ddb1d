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
        r, H, E = cases.ring_invariants(res)
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
    if animate_gif:          # the network drawn as its springs, dashpots and constraints
        res.animate(os.path.join(outdir, f"{case}.gif"), legend=False, title=f"mass_spring: {case}")

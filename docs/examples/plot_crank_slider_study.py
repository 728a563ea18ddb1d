"""
Crank-slider: peak coupler deflection over crank speed and stiffness
====================================================================

The crank-slider with a flexible coupler (:mod:`phmech.validation.crank_slider`,
thesis data) run over a grid of crank speeds ``omega`` and Young's moduli ``E``
with :func:`phmech.study.study`; each point is the case's own ``run(...)``
and the study keeps its summary numbers, here the peak midpoint deflection
``max |u_y(L/2)| / L`` over the first 20 ms (a short run for the gallery).
The deflection is driven by the coupler's inertia load, which grows as
``omega^2``; against a stiffer coupler it is smaller, about as ``1/E`` while
the first bending frequency stays well above the crank speed.
"""
import numpy as np

from phmech.study import study

NEEDS_FIREDRAKE = True


def run(quick=True):
    """``deflection[E][k]``: ``max |u_y(L/2)| / L`` at ``omegas[k]`` for each ``E``."""
    grid = {"omega": [100.0, 150.0] if quick else [75.0, 100.0, 125.0, 150.0], "E": [1.0e11, 2.0e11]}
    res = study("crank_slider", grid, fixed={"t_end": 0.02, "n_elem": 4, "dt": 2e-4}, plot=False)
    out = {"omegas": np.array(grid["omega"]), "E": grid["E"], "wall_time": res.wall_time, "deflection": {}}
    for E in grid["E"]:
        sel = [i for i, p in enumerate(res.points) if p["E"] == E]
        out["deflection"][E] = np.array([res.values[i]["uy_mid_max_abs_over_L"] for i in sel])
    ratio = out["deflection"][1.0e11] / out["deflection"][2.0e11]
    out["stiffness_ratio"] = ratio
    return out


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    print(f"{len(out['omegas']) * len(out['E'])} runs in {out['wall_time']:.1f} s; deflection at E = 1e11 over "
          f"that at 2e11: {np.array2string(out['stiffness_ratio'], precision=3)}")
    fig, ax = plt.subplots()
    for E in out["E"]:
        ax.plot(out["omegas"], out["deflection"][E], "o-", label=f"E = {E:.0e} Pa")
    ax.set_xlabel(r"crank speed $\omega$ [rad/s]")
    ax.set_ylabel(r"max $|u_y(L/2)|/L$ over 20 ms")
    ax.legend(loc="upper left")

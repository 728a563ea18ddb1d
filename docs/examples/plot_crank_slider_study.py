"""
Crank-slider: peak coupler deflection over crank speed and stiffness
====================================================================

The crank-slider with a flexible coupler (:mod:`phmech.validation.crank_slider`,
thesis data) run over a grid of crank speeds ``omega`` and Young's moduli ``E``
with :func:`phmech.study.study`; each point is the case's own ``run(...)``
and the study keeps its summary numbers, here the peak midpoint deflection
``max |u_y(L/2)| / L`` over the first 20 ms (a short run for the gallery).
"""
import matplotlib.pyplot as plt

from phmech.study import study

grid = {"omega": [75.0, 100.0, 125.0, 150.0], "E": [1.0e11, 2.0e11]}
res = study("crank_slider", grid, fixed={"t_end": 0.02, "n_elem": 4, "dt": 2e-4})
print(f"{len(res.points)} runs in {res.wall_time:.1f} s")

fig, ax = plt.subplots()
for E in grid["E"]:
    sel = [i for i, p in enumerate(res.points) if p["E"] == E]
    ax.plot([res.points[i]["omega"] for i in sel], [res.values[i]["uy_mid_max_abs_over_L"] for i in sel],
            "o-", label=f"E = {E:.0e} Pa")
ax.set_xlabel(r"crank speed $\omega$ [rad/s]")
ax.set_ylabel(r"max $|u_y(L/2)|/L$ over 20 ms")
ax.legend()

"""
Four-bar: natural frequencies over the crank angle (a parameter study)
======================================================================

The flexible four-bar of Kitis & Lindenberg (1990) / Chebbi et al. (2017)
(:mod:`phmech.validation.four_bar`) linearized at crank angles around the
full turn; :func:`phmech.study.study` computes the first three natural
frequencies at each angle of the grid (here in this process; ``processes=N``
or ``mpi=True`` share the angles among workers).
"""
import matplotlib.pyplot as plt
import numpy as np

from phmech.study import study

angles = np.arange(0, 360, 15)
res = study("four_bar", {"theta1_deg": list(angles)}, fixed={"n_elem": 3})
print(f"{len(angles)} angles in {res.wall_time:.1f} s")

fig, ax = plt.subplots()
for i in (1, 2, 3):
    ax.plot(angles, res.column(f"f{i}_hz"), "o-", ms=3, label=f"mode {i}")
ax.set_xlabel(r"crank angle $\theta_1$ [deg]")
ax.set_ylabel("natural frequency [Hz]")
ax.set_yscale("log")
ax.legend()

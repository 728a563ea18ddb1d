"""
A parameter study of your own function: pendulum frequency over length
======================================================================

:func:`phmech.study.study` runs any function over the Cartesian product of a
grid, here the function ``pendulum(length, mass)`` of this file (named as
``"path/to/file.py:pendulum"``; a module on the path works as
``"module:function"``), in this process or in worker processes
(``processes=N``) or MPI ranks (``mpi=True``).  Each point builds a rod on a
pin under gravity and returns the frequency of its mode about hanging.

The compound pendulum's ``omega = sqrt(3 g / (2 L))`` does not depend on the
mass and falls as ``L^(-1/2)``: the slope of ``log omega`` over ``log L`` is
exactly -1/2 and the masses give the same column.  ``phmech study
mymodels:pendulum --param length=0.5,1 --processes 2`` is the same study
from the command line.
"""
import os

import numpy as np

from phmech import PlanarRigidBody, System
from phmech.joints import Revolute
from phmech.study import study

G = 9.81


def pendulum(length=1.0, mass=1.0):
    """One point of the study: the rod's frequency about hanging, in rad/s and Hz."""
    rod = PlanarRigidBody.rod("rod", mass, length, angle=-1.3)
    s = System([rod])
    s.add_joint(Revolute(rod.port("A"), None, name="pin"))
    s.add_gravity((0.0, -G))
    omega = float(s.linearize().eigenmodes(k=1).omega[0])
    return {"omega": omega, "freq_hz": omega / (2 * np.pi), "units": {"omega": "rad/s", "freq_hz": "Hz"}}


def run(quick=True, processes=1):
    """``slope``: d log(omega) / d log(L) fitted over the grid; ``mass_spread``: the largest
    relative difference between the masses at equal length."""
    lengths = [0.25, 0.5, 1.0, 2.0] if quick else list(np.geomspace(0.1, 4.0, 12))
    masses = [0.5, 2.0]
    here = os.path.abspath(__file__ if "__file__" in globals() else "plot_parameter_study.py")
    res = study(f"{here}:pendulum", {"length": lengths, "mass": masses}, processes=processes, plot=False)
    L = np.array([p["length"] for p in res.points])
    m = np.array([p["mass"] for p in res.points])
    w = np.array(res.column("omega"))
    slope = np.polyfit(np.log(L), np.log(w), 1)[0]
    spread = max(abs(w[m == masses[0]] - w[m == masses[1]]) / w[m == masses[0]])
    return {"slope": float(slope), "mass_spread": float(spread), "L": L, "m": m, "omega": w,
            "wall_time": res.wall_time}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    print(f"{len(out['L'])} points in {out['wall_time']:.1f} s; slope d log w / d log L = {out['slope']:.12f}; "
          f"masses differ by {out['mass_spread']:.1e}")
    fig, ax = plt.subplots()
    for mass, marker in ((0.5, "o"), (2.0, "x")):
        sel = out["m"] == mass
        ax.loglog(out["L"][sel], out["omega"][sel], marker, label=f"m = {mass} kg")
    Ls = np.geomspace(out["L"].min(), out["L"].max())
    ax.loglog(Ls, np.sqrt(3 * G / (2 * Ls)), "k-", lw=1, label=r"$\sqrt{3g/2L}$")
    ax.set_xlabel("rod length L [m]")
    ax.set_ylabel(r"$\omega$ [rad/s]")
    ax.legend(loc="upper right")

"""
Pendulum: static equilibrium under gravity and the mode about it
================================================================

A uniform rod (mass 1.3 kg, length L = 0.7 m) on a revolute joint to the
ground, started 0.37 rad aside from hanging.  :meth:`phmech.System.linearize`
first finds the static equilibrium under gravity near the initial
configuration (Newton on the constraint manifold: the rod hangs straight
down, angle -pi/2) and then the small vibrations about it.  The compound
pendulum's angular frequency is

.. math:: \\omega = \\sqrt{\\frac{m g L / 2}{m L^2 / 3}} = \\sqrt{\\frac{3 g}{2 L}}
          = 4.58491\\ \\mathrm{rad/s}

(any textbook of mechanics, e.g. Meriam & Kraige, *Engineering Mechanics:
Dynamics*, the compound pendulum).  The dense eigen path solves the
Hermitian problem on the kernel of the joint rows, so the frequency is exact
to round-off; a time integration of a small swing (the implicit midpoint
rule) shows the same period up to the rule's O(dt^2) phase error.
"""
import numpy as np

from phmech import PlanarRigidBody, System
from phmech.joints import Revolute

G, L, M = 9.81, 0.7, 1.3


def pendulum(length=L, angle=-1.2):
    """The rod on its pin under gravity, started at ``angle``."""
    rod = PlanarRigidBody.rod("rod", M, length, angle=angle)
    s = System([rod])
    s.add_joint(Revolute(rod.port("A"), None, name="pin"))
    s.add_gravity((0.0, -G))
    return s, rod


def run(quick=True):
    """``omega`` (the linearized frequency), ``angle`` (the equilibrium angle) and the period
    of a small swing simulated with the midpoint rule."""
    s, rod = pendulum()
    lin = s.linearize()
    omega = float(lin.eigenmodes(k=1).omega[0])
    swing, rod = pendulum(angle=-np.pi / 2 + 0.02)          # a small swing about hanging
    period = 2 * np.pi / np.sqrt(3 * G / (2 * L))
    res = swing.simulate(2 * period, solver="midpoint", dt=period / (100 if quick else 400))
    theta = res.q(rod)[:, 2] + np.pi / 2
    up = np.flatnonzero((theta[:-1] < 0) & (theta[1:] >= 0))   # upward zero crossings
    tc = res.t[up] - theta[up] * (res.t[up + 1] - res.t[up]) / (theta[up + 1] - theta[up])
    return {"omega": omega, "angle": float(lin.q[2]), "period": float(np.diff(tc).mean()),
            "t": res.t, "theta": theta}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run()
    exact = np.sqrt(3 * G / (2 * L))
    print(f"equilibrium angle {out['angle']:.6f} rad (hanging: {-np.pi / 2:.6f})")
    print(f"omega = {out['omega']:.6f} rad/s, sqrt(3 g / (2 L)) = {exact:.6f} rad/s")
    print(f"simulated period {out['period']:.5f} s, 2 pi / omega = {2 * np.pi / exact:.5f} s")
    fig, ax = plt.subplots()
    ax.plot(out["t"], out["theta"], label="midpoint rule")
    ax.plot(out["t"], 0.02 * np.cos(exact * out["t"]), "k--", lw=1, label=r"$0.02\cos(\omega t)$")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("angle from hanging [rad]")
    ax.legend(loc="lower left")

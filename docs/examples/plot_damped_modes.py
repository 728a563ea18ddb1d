"""
Damped modes: a mass on a spring-damper
=======================================

A point mass (m = 0.4 kg) on a horizontal guide
(:meth:`~phmech.System.slide`), held by a spring-damper to the ground
(``k = 90 N/m``, ``c = 1.2 N s/m``).  With damping the modes are complex:
:meth:`~phmech.solvers.eigen.LinearSystem.eigenmodes` returns the
eigenvalues ``lambda = -zeta omega +- i omega sqrt(1 - zeta^2)``, the natural
frequency ``omega = |lambda|`` and the damping ratio ``zeta``.  For the single
degree of freedom

.. math:: \\omega = \\sqrt{k/m} = 15\\ \\mathrm{rad/s}, \\qquad
          \\zeta = \\frac{c}{2\\sqrt{k m}} = 0.1

(any vibration textbook, e.g. Rao, *Mechanical Vibrations*, ch. 2).  A free
decay simulated with the midpoint rule shows the logarithmic decrement
``delta = 2 pi zeta / sqrt(1 - zeta^2)`` between successive peaks.
"""
import numpy as np

from phmech import PointMass, System

M, K, C = 0.4, 90.0, 1.2


def model(c=C):
    """The mass on its guide and the spring-damper to the ground point beside it."""
    mass = PointMass("mass", M, position=(0.0, 0.0))
    s = System([mass])
    s.slide(mass.port("P"), (1.0, 0.0))
    s.add_spring(mass.port("P"), None, stiffness=K, damping=c, rest_length=0.5, at=(-0.5, 0.0))
    return s, mass


def run(quick=True):
    """``omega`` and ``zeta`` of the linearization, and ``decrement`` (the logarithmic decrement
    of a simulated free decay)."""
    s, mass = model()
    modes = s.linearize().eigenmodes(k=1)
    s2, mass2 = model()
    dt = 1e-3 if quick else 2.5e-4
    res = s2.simulate(2.0, dt=dt, velocities={mass2: (1.0, 0.0)})
    x = res.q(mass2)[:, 0]
    peaks = np.flatnonzero((x[1:-1] > x[:-2]) & (x[1:-1] >= x[2:])) + 1
    return {"omega": float(modes.omega[0]), "zeta": float(modes.zeta[0]),
            "decrement": float(np.log(x[peaks[0]] / x[peaks[1]])), "t": res.t, "x": x}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    zeta = C / (2 * np.sqrt(K * M))
    print(f"omega = {out['omega']:.6f} rad/s (sqrt(k/m) = {np.sqrt(K / M):.6f}), "
          f"zeta = {out['zeta']:.6f} (c / 2 sqrt(k m) = {zeta:.6f})")
    print(f"simulated decrement {out['decrement']:.4f}, 2 pi zeta / sqrt(1 - zeta^2) = "
          f"{2 * np.pi * zeta / np.sqrt(1 - zeta**2):.4f}")
    fig, ax = plt.subplots()
    ax.plot(out["t"], out["x"], label="midpoint rule")
    wd = np.sqrt(K / M) * np.sqrt(1 - zeta**2)
    ax.plot(out["t"], np.exp(-zeta * np.sqrt(K / M) * out["t"]) / wd, "k--", lw=1, label="envelope")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("x [m]")
    ax.legend(loc="upper right")

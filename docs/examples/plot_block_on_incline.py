"""
Coulomb friction: a block sliding to rest on an incline
=======================================================

A point mass (1 kg) slides down a plane inclined at ``alpha = 20 deg`` with
the speed ``v_0 = 2 m/s``; Coulomb friction with ``mu = 0.5 > tan(alpha)``
(:class:`phmech.contact.PointPlane` with ``mu``) decelerates it at

.. math:: a = g (\\mu\\cos\\alpha - \\sin\\alpha),

so it sticks at ``t* = v_0 / a = 1.595 s`` after the distance
``v_0^2 / (2 a)`` and stays (the friction cone contains gravity's pull).
Moreau's scheme resolves the stick-slip transition within one step, so the
stop time is within ``dt`` of ``t*``.  More contact cases (Newton's cradle, a
pendulum against a wall) are :mod:`phmech.validation.contact_cases`.
"""
import numpy as np

from phmech import PointMass, System
from phmech.contact import NonsmoothProblem, PointPlane, simulate

G, ALPHA, MU, V0 = 9.81, np.radians(20.0), 0.5, 2.0


def run(quick=True):
    """``t_stop``: the first time the block is at rest (s); ``distance`` travelled (m)."""
    block = PointMass("block", 1.0, position=(0.0, 0.0))
    s = System([block])
    s.add_gravity((0.0, -G))
    normal = np.array([-np.sin(ALPHA), np.cos(ALPHA)])
    problem = NonsmoothProblem(s, [PointPlane(block.port("P"), normal, mu=MU, name="incline")])
    down = -np.array([np.cos(ALPHA), np.sin(ALPHA)])
    y0 = np.zeros(problem.n)
    y0[problem.se] = V0 * down
    dt = 5e-3 if quick else 1e-3
    res = simulate(problem, (0.0, 2.5), y0, method="moreau", dt=dt)
    v = res.y[:, problem.se] @ down
    stopped = np.flatnonzero(np.abs(v) < 1e-10)
    return {"t_stop": float(res.t[stopped[0]]), "distance": float(res.y[-1, problem.sq] @ down), "dt": dt,
            "t": res.t, "v": v}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    a = G * (MU * np.cos(ALPHA) - np.sin(ALPHA))
    print(f"stops at t = {out['t_stop']:.4f} s (v0 / a = {V0 / a:.4f} s, dt = {out['dt']:g} s)")
    print(f"distance {out['distance']:.5f} m (v0^2 / 2a = {V0**2 / (2 * a):.5f} m)")
    fig, ax = plt.subplots()
    ax.plot(out["t"], out["v"], label="Moreau midpoint")
    ax.plot(out["t"], np.maximum(V0 - a * out["t"], 0.0), "k--", lw=1, label="exact")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("speed down the slope [m/s]")
    ax.legend(loc="upper right")

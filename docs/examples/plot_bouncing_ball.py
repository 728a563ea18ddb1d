"""
Contact and impacts: a bouncing ball and Newton's restitution
=============================================================

A ball (m = 1 kg, radius r = 0.1 m) falls from the height 1 m onto the
ground (:class:`phmech.contact.PointPlane` at its centre port, Newton's
impact law with the restitution ``e_N = 0.5``), integrated with Moreau's
midpoint time-stepping scheme (:func:`phmech.contact.simulate`,
``method="moreau"``), the rotating bouncing ball of Capobianco, Harsch,
Eugster & Leine (*IJNME* 122, 2021, sec. 10.1) without spin.

Each impact multiplies the normal velocity by ``-e_N``: the apex heights
above the contact fall as ``e_N^2`` per bounce, so the first rebound
reaches ``r + e_N^2 (1 - r) = 0.325 m``, and the flight times form a geometric
series that ends at the Zeno point

.. math:: t_\\infty = \\sqrt{\\frac{2 (1 - r)}{g}}\\;\\frac{1 + e_N}{1 - e_N} = 1.2851\\ \\mathrm{s},

after which the ball rests.  The scheme's apex height is of first order in
``dt`` (the impact falls within a step).  The four cases with spin and
friction are :mod:`phmech.validation.bouncing_ball`.
"""
import numpy as np

from phmech import System
from phmech.contact import NonsmoothProblem, PointPlane, simulate
from phmech.contact.bodies import Disc

M, R, G, E_N = 1.0, 0.1, 9.81, 0.5


def run(quick=True):
    """``apex``: the highest point after the first impact (m); ``rest_time``: when the ball
    stays on the ground (s)."""
    ball = Disc("ball", M, 0.4 * M * R**2, position=(0.0, 1.0))
    s = System([ball])
    s.add_gravity((0.0, -G))
    ground = PointPlane(ball.port("C"), (0.0, 1.0), radius=R, e_N=E_N, mu=0.0, name="ground")
    problem = NonsmoothProblem(s, [ground])
    y0 = np.zeros(problem.n)
    y0[problem.sq] = [0.0, 1.0, 0.0]
    dt = 1e-3 if quick else 2e-4
    res = simulate(problem, (0.0, 1.6), y0, method="moreau", dt=dt)
    y, vy = res.y[:, problem.sq][:, 1], res.y[:, problem.se][:, 1]
    first = np.flatnonzero((vy[:-1] < 0) & (vy[1:] > 0))[0] + 1   # the first impact: v_y turns up
    moving = np.flatnonzero(np.abs(vy) > 1e-6)
    return {"apex": float(y[first:].max()), "rest_time": float(res.t[moving[-1] + 1]), "t": res.t, "y": y}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    t_zeno = np.sqrt(2 * (1 - R) / G) * (1 + E_N) / (1 - E_N)
    print(f"first rebound apex {out['apex']:.5f} m (r + e_N^2 (1 - r) = {R + E_N**2 * (1 - R):.5f} m)")
    print(f"at rest from t = {out['rest_time']:.4f} s (Zeno point {t_zeno:.4f} s)")
    fig, ax = plt.subplots()
    ax.plot(out["t"], out["y"], label="Moreau midpoint")
    ax.axvline(t_zeno, color="k", ls="--", lw=1, label=r"$t_\infty$")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("height of the centre [m]")
    ax.legend(loc="upper right")

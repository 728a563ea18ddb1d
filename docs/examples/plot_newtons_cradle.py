"""
Newton's cradle: sequential elastic impacts between spheres
===========================================================

Five equal balls (0.1 kg, radius 0.05 m) on a line without gravity, 9 mm
apart, ball 1 moving at ``v = 1 m/s`` towards the others; the contacts
between neighbours are :class:`phmech.contact.SphereSphere` with Newton's
law and ``e_N = 1``.  With gaps the impacts are binary and one after the
other: equal masses exchange their velocities at each, at the times
``t_k = k gap / v`` (k = 1..4), so in the end ball 5 moves at ``v`` and the
others rest (the classical result; Glocker, *Set-valued force laws*, 2001,
ch. 9, for why touching balls differ).  Moreau's scheme applies each
percussion in the step whose midpoint gap is closed, at most one step after
the touch; the velocities after it are exact (the percussions are solved
exactly) and the energy is kept.
"""
import numpy as np

from phmech import PointMass, System
from phmech.contact import NonsmoothProblem, SphereSphere, simulate

N, M, R, GAP, V = 5, 0.1, 0.05, 0.009, 1.0


def run(quick=True):
    """``velocities``: the balls' x velocities at the end; ``impact_times`` of the four contacts."""
    balls = [PointMass(f"ball{i + 1}", M, position=(i * (2 * R + GAP), 0.0)) for i in range(N)]
    s = System(balls)
    contacts = [SphereSphere(balls[i].port("P"), balls[i + 1].port("P"), R, R, e_N=1.0, name=f"c{i + 1}{i + 2}")
                for i in range(N - 1)]
    problem = NonsmoothProblem(s, contacts)
    y0 = np.zeros(problem.n)
    y0[problem.sq] = np.concatenate([b.q0 for b in balls])
    y0[problem.se.start] = V                                      # ball 1 moves along x
    dt = 1e-3 if quick else 2e-4
    res = simulate(problem, (0.0, 0.06), y0, method="moreau", dt=dt)
    PN = res.steps["P_N"]
    hit = np.array([res.steps["t"][int(np.flatnonzero(PN[:, i] > 0)[0])] for i in range(N - 1)])
    return {"velocities": res.y[-1, problem.se][0::2], "impact_times": hit, "dt": dt,
            "t": res.t, "x": res.y[:, problem.sq][:, 0::2]}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    print("final velocities:", np.array2string(out["velocities"], precision=12), "(exact: 0 0 0 0 1)")
    print("impact times [ms]:", np.array2string(out["impact_times"] * 1e3, precision=2),
          "(k gap / v:", np.array2string(np.arange(1, 5) * GAP / V * 1e3, precision=2), ")")
    fig, ax = plt.subplots()
    for i in range(N):
        ax.plot(out["t"] * 1e3, out["x"][:, i], label=f"ball {i + 1}")
    ax.set_xlabel("t [ms]")
    ax.set_ylabel("x [m]")
    ax.legend(loc="upper left", fontsize="small")

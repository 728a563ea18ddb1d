"""Block on an incline and Newton's cradle: contact benchmarks with exact solutions.

Block on an inclined plane (inclination ``alpha``, Coulomb friction
``mu > tan alpha``): a point mass sliding down with speed ``v0``
decelerates at ``a = g (mu cos alpha - sin alpha)`` and sticks at
``t* = v0 / a`` after the distance ``v0^2 / (2 a)``; it stays at rest
since ``mu`` exceeds ``tan alpha``.

Newton's cradle: five equal balls on a line without gravity, ball 1 moving
at ``v`` towards the other four, ``e_N = 1``.

* With gaps ``delta`` between the balls the impacts are binary and
  sequential: equal masses exchange their velocities at each one, at the
  times ``t_k = k delta / v`` (k = 1..4); in the end only ball 5 moves, at ``v``.
* Touching (zero gaps), all four contacts are closed at the first impact;
  Newton's law applied to all of them at once (Moreau's velocity level,
  ``xi_i = gamma_i^+ + gamma_i^- in -N(P_i)``) is a linear complementarity
  problem whose solution (:func:`cradle_touching_exact`, by enumeration
  of the active sets) is *not* the sequential result: the four contacts
  act together and the balls leave with distinct velocities.  Both
  answers are correct for their model: the touching balls are a
  simultaneous impact, for which Newton's law is an assumption on the
  whole chain (Glocker, "Set-valued force laws", 2001, Ch. 9).

Where the numbers come from: neither case is taken from a published
benchmark; the data are chosen here so that the exact solutions above
apply, and the references are derived in this module.

====================  ===========================  =========================================
parameter             value                        source
====================  ===========================  =========================================
block: alpha          20 deg                       chosen here
block: mu             0.5                          chosen here (above tan alpha = 0.364:
                                                   the block stops, ``t* = 1.595`` s)
block: v0, m          2 m/s down the slope, 1 kg   chosen here
g                     9.81 m/s^2                   as in the other contact benchmarks
cradle: n, m, radius  5 balls, 0.1 kg, 0.05 m      chosen here
cradle: gap           9e-3 m, or 0 (touching)      chosen here
cradle: v, e_N        1 m/s, 1                     chosen here (e_N = 1: elastic, no gravity)
====================  ===========================  =========================================
"""
import itertools

import numpy as np

from .. import System
from ..bodies.rigid import PointMass
from ..contact import NonsmoothProblem, PointPlane, SphereSphere, simulate

G = 9.81


# -- block on an incline ----------------------------------------------------------------
def block_model(alpha=np.radians(20.0), mu=0.5, v0=2.0, m=1.0):
    """``(problem, y0, exact)``; ``exact(t) -> (s, v)`` distance and speed along the slope."""
    block = PointMass("block", m, position=(0.0, 0.0))
    s = System([block])
    s.add_gravity((0.0, -G))
    n = np.array([-np.sin(alpha), np.cos(alpha)])
    p = NonsmoothProblem(s, [PointPlane(block.port("P"), n, mu=mu, name="incline")])
    down = -np.array([np.cos(alpha), np.sin(alpha)])
    y0 = np.zeros(p.n)
    y0[p.se] = v0 * down
    a = G * (mu * np.cos(alpha) - np.sin(alpha))
    if a <= 0:
        raise ValueError(f"block on incline: mu = {mu} must exceed tan(alpha) = {np.tan(alpha):.4g}")
    t_stop = v0 / a

    def exact(t):
        tt = np.minimum(np.asarray(t, float), t_stop)
        return v0 * tt - 0.5 * a * tt**2, v0 - a * tt
    exact.t_stop, exact.down = t_stop, down
    return p, y0, exact


def v0_scale(y0, p):
    """The initial speed (scale of the velocity tolerance of the stop detection)."""
    return max(1.0, float(np.max(np.abs(y0[p.se]))))


def run_block(dt=2e-3, solver="moreau", t_end=2.5, **kw):
    """Block on the incline: result with ``errors`` (stop time, position, velocity) and ``exact``."""
    p, y0, ex = block_model(**kw)
    res = simulate(p, (0.0, t_end), y0, method=solver, dt=dt)
    q, u = res.y[:, p.sq], res.y[:, p.se]
    s_num, v_num = q @ ex.down, u @ ex.down
    s_ex, v_ex = ex(res.t)
    moving = np.abs(v_num) > 1e-10 * v0_scale(y0, p)
    t_stop = res.t[int(np.flatnonzero(moving)[-1]) + 1] if moving.any() and not moving[-1] else np.inf
    res.exact = ex
    res.errors = {"t_stop": t_stop - ex.t_stop, "position": float(np.max(np.abs(s_num - s_ex))),
                  "velocity": float(np.max(np.abs(v_num - v_ex)[res.t <= ex.t_stop - dt])),
                  "normal_drift": float(np.max(np.abs(q @ p.contacts[0].n))),
                  "energy_balance": float(np.max(np.abs(res.energy_balance())))}
    return res


# -- Newton's cradle ----------------------------------------------------------------------
def cradle_touching_exact(n=5, v=1.0, e=1.0):
    """Velocities after Newton's law on all ``n - 1`` closed contacts of touching equal balls
    (unit masses), ball 1 at ``v``: the LCP ``xi = gamma^+ + e gamma^- >= 0, P >= 0, xi P = 0``."""
    nc = n - 1
    B = np.zeros((nc, n))                  # gamma = B u (approach negative)
    for i in range(nc):
        B[i, i], B[i, i + 1] = -1.0, 1.0
    u0 = np.zeros(n)
    u0[0] = v
    D = B @ B.T
    xi0 = (1 + e) * B @ u0
    for k in range(nc + 1):
        for act in itertools.combinations(range(nc), k):
            act = list(act)
            P = np.zeros(nc)
            if act:
                P[act] = np.linalg.solve(D[np.ix_(act, act)], -xi0[act])
            xi = xi0 + D @ P
            if np.all(P >= -1e-14) and np.all(xi >= -1e-14):
                return u0 + B.T @ P
    raise RuntimeError("no solution of the cradle LCP")


def cradle_model(gap=0.009, v=1.0, n=5, radius=0.05, m=0.1):
    """``(problem, y0)``: ``n`` balls on the x axis, gaps ``gap``, ball 1 moving at ``v``."""
    balls = [PointMass(f"ball{i + 1}", m, position=(i * (2 * radius + gap), 0.0)) for i in range(n)]
    s = System(balls)
    cs = [SphereSphere(balls[i].port("P"), balls[i + 1].port("P"), radius, radius, e_N=1.0,
                       name=f"c{i + 1}{i + 2}") for i in range(n - 1)]
    p = NonsmoothProblem(s, cs)
    y0 = np.zeros(p.n)
    y0[p.sq] = np.concatenate([b.q0 for b in balls])
    y0[p.se.start] = v
    return p, y0


def run_cradle(gap=0.009, dt=2e-3, solver="moreau", t_end=0.2, v=1.0):
    """Newton's cradle; ``errors``: impact times (gapped) and final velocities against the exact ones."""
    p, y0 = cradle_model(gap, v)
    res = simulate(p, (0.0, t_end), y0, method=solver, dt=dt)
    u_end = res.y[-1, p.se][0::2]
    if gap > 0:
        u_ex = np.zeros(5)
        u_ex[-1] = v
        t_ex = np.arange(1, 5) * gap / v
        PN = res.steps["P_N"]
        t_num = np.array([res.steps["t"][int(np.flatnonzero(PN[:, i] > 0)[0])] for i in range(4)])
    else:
        u_ex = cradle_touching_exact(5, v)
        t_ex = t_num = np.zeros(4)
    res.u_exact = u_ex
    res.errors = {"impact_times": t_num - t_ex, "velocities": float(np.max(np.abs(u_end - u_ex))),
                  "energy_balance": float(np.max(np.abs(res.energy_balance()))),
                  "u_end": u_end}
    return res

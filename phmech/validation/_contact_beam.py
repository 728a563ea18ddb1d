"""A flexible cantilever whose tip strikes a rigid stop (needs Firedrake).

A clamped-free pH Euler--Bernoulli beam (:class:`phmech.fem.beam.EulerBernoulliBeam`,
mixed elements, fixed in space) of steel, ``L = 0.5`` m, square section
1 cm x 1 cm, starts undeformed at rest; a constant transverse tip force
``F = 10`` N pushes the tip towards a rigid stop ``delta = 1.5`` mm away
(the static deflection would be ``F L^3 / (3 EI) = 2.5`` mm).  The tip
strikes the stop (Newton's law, ``e_N``), rebounds and strikes again.

The tip displacement is not part of ``q`` (the beam has no configuration
variables): the gap is recovered from the stresses
(``m = EI u_y''``, see :mod:`phmech.contact.contacts`).  Reported: the
impact times, the energy account ``H(t) - H(0) - W_F + D`` (``H`` the
kinetic and elastic energy, ``W_F`` the work of the tip force, ``D`` the
impact dissipation), and the constraint drift of this formulation: the
difference between the tip displacement recovered from the stresses and
the time integral of the tip velocity (they agree exactly in the
continuous model).

Where the numbers come from: the case is not taken from a published benchmark; the data
(:data:`DATA`: steel, ``rho = 7800`` kg/m^3, ``E = 2e11`` Pa, the section,
length, force, gap and ``e_N = 0``, 8 elements) are chosen here, and the
reference first impact is that of the smooth model (:func:`first_impact`).
"""
import numpy as np

from .. import System
from ..contact import NonsmoothProblem, PointPlane, simulate

DATA = dict(L=0.5, n_elem=8, rho=7800.0, A=1e-4, E=2e11, I=1e-8 / 12.0, F=10.0, gap=1.5e-3, e_N=0.0)


def beam_model(**changes):
    """``(problem, y0, beam)`` of the cantilever and the stop."""
    from ..fem.beam import EulerBernoulliBeam
    d = {**DATA, **changes}
    beam = EulerBernoulliBeam("beam", d["L"], d["n_elem"], d["rho"], d["A"], d["E"], d["I"], ends=("clamped", "free"))
    s = System([beam])
    s.apply_force(beam.port("B"), (0.0, -d["F"]), name="tip force")
    stop = PointPlane(beam.port("B"), (0.0, 1.0), point=(d["L"], -d["gap"]), e_N=d["e_N"], name="stop")
    p = NonsmoothProblem(s, [stop])
    return p, np.zeros(p.n), beam


def first_impact(rtol=1e-10, **changes):
    """Time of the first impact from the smooth model (Radau IIA, ``rtol``, event on the gap)."""
    from ..solvers import solve
    p, y0, _ = beam_model(**changes)
    c = p.contacts[0]
    g0 = p.contact_state(p.dae.q0, np.zeros(p.ne))[0][0]

    def gap(t, y):
        return g0 + c.gap_rows @ y[p.se]
    gap.terminal, gap.direction = True, -1
    res = solve(p.dae, (0.0, 0.05), y0, method="radau", rtol=rtol, atol=rtol * 1e-3, events=[gap])
    return float(res.t_events[0][0])


def run_beam(dt=1e-4, solver="moreau", t_end=0.06, **changes):
    """The beam striking the stop; result with ``errors`` and ``tip`` (recovered tip deflection)."""
    p, y0, beam = beam_model(**changes)
    res = simulate(p, (0.0, t_end), y0, method=solver, dt=dt)
    u = res.y[:, p.se]
    c = p.contacts[0]
    tip = u @ c.gap_rows                              # n . displacement from the stresses
    v_tip = u @ p.contact_state(p.dae.q0, u[0])[1][0][0]
    integrated = np.concatenate([[0.0], np.cumsum(0.5 * (v_tip[1:] + v_tip[:-1]) * np.diff(res.t))])
    PN = res.steps["P_N"][:, 0]
    on = PN > 0
    t_imp = np.array([res.steps["t"][k] for k in range(1, len(on)) if on[k] and not on[k - 1]])
    res.tip = tip
    res.errors = {"impact_times": t_imp, "n_impacts": len(t_imp),
                  "energy_balance": float(np.max(np.abs(res.energy_balance()))),
                  "energy_scale": float(DATA["F"] * DATA["gap"]),
                  "drift": float(np.max(np.abs(tip - integrated))),
                  "penetration": float(max(0.0, -(tip + DATA["gap"]).min())),
                  "dissipated": float(res.dissipated[-1, 0])}
    return res

"""Contacts on floating flexible beams (the deflection recovered from the stresses and turned
with the frame)."""
import importlib.util

import numpy as np
import pytest

from phmech import System
from phmech.contact import NonsmoothProblem, PointPlane, simulate

needs_firedrake = pytest.mark.skipif(importlib.util.find_spec("firedrake") is None, reason="needs Firedrake")


def _floating_cantilever(**changes):
    """The cantilever of :mod:`phmech.validation._contact_beam` as a floating-frame beam whose
    frame is clamped at A: the same structure through the other beam model."""
    from phmech.fem.beam import FloatingEulerBernoulliBeam
    from phmech.validation._contact_beam import DATA
    d = {**DATA, **changes}
    beam = FloatingEulerBernoulliBeam("arm", d["L"], d["n_elem"], d["rho"], d["A"], d["E"], d["I"],
                                      frame="cantilever")
    s = System([beam])
    s.clamp(beam.port("A"), name="root")
    s.apply_force(beam.port("B"), (0.0, -d["F"]), name="tip force")
    stop = PointPlane(beam.port("B"), (0.0, 1.0), point=(d["L"], -d["gap"]), e_N=d["e_N"], name="stop")
    p = NonsmoothProblem(s, [stop])
    y0 = np.zeros(p.n)
    y0[p.sq] = p.dae.q0
    return p, y0


@needs_firedrake
def test_clamped_floating_beam_equals_fixed_beam():
    """With its frame clamped, the floating beam striking the stop reproduces the beam fixed in
    space (whose first impact agrees with the smooth model's event time, see
    ``test_flexible_beam_strikes_stop``): the same impacts and tip deflection as the fixed beam's
    run, and the energy account closes."""
    from phmech.validation._contact_beam import run_beam
    h, t_end = 5e-5, 0.012
    p, y0 = _floating_cantilever()
    res = simulate(p, (0.0, t_end), y0, method="moreau", dt=h)
    ref = run_beam(h, "moreau", t_end=t_end)
    PN = res.steps["P_N"][:, 0]
    on = PN > 0
    t_imp = np.array([res.steps["t"][k] for k in range(1, len(on)) if on[k] and not on[k - 1]])
    assert len(t_imp) >= 2
    assert len(t_imp) == ref.errors["n_impacts"] and np.allclose(t_imp, ref.errors["impact_times"], atol=1e-12)
    c = p.contacts[0]
    tip = np.array([c.stress_rows(p.dae.layout.q_getter(q)) @ u for q, u in zip(res.y[:, p.sq], res.y[:, p.se])])
    assert np.max(np.abs(tip - ref.tip)) < 1e-9 * np.max(np.abs(ref.tip))
    assert np.max(np.abs(res.energy_balance())) < 1e-12 * ref.errors["energy_scale"]


@needs_firedrake
def test_rotating_floating_beam_hits_ground():
    """A free floating beam (4 elements), turning at 3 rad/s under gravity, strikes the ground with
    its tip (inelastic, Coulomb friction).  Before the impact the deflection part of the gap,
    ``n . R(q) D e`` (recovered from the stresses), changes as the integral of the port's flexible
    velocity ``n . R Y_f e`` up to the term ``n . (omega x R D e)`` that the floating-frame ports
    omit (bounded by ``int |omega| |D e|``, and here that is all of it: independent of the
    step); the contact closes, friction and impact dissipate, and the energy account (kinetic +
    elastic + potential + dissipated) closes to round-off for Moreau's midpoint scheme."""
    from phmech.fem.beam import FloatingEulerBernoulliBeam
    beam = FloatingEulerBernoulliBeam("arm", 0.5, 4, 7800.0, 1e-4, 2e11, 1e-8 / 12, frame="simply_supported",
                                      position=(0.0, 0.3), angle=0.2)
    s = System([beam])
    s.add_gravity((0.0, -9.81))
    p = NonsmoothProblem(s, [PointPlane(beam.port("B"), (0.0, 1.0), name="ground", mu=0.3)])
    y0 = np.zeros(p.n)
    y0[p.sq] = p.dae.q0
    y0[p.se.start + 2] = -3.0
    h = 1e-4
    res = simulate(p, (0.0, 0.3), y0, method="moreau", dt=h)
    q, u = res.y[:, p.sq], res.y[:, p.se]
    c = p.contacts[0]
    Yf = np.zeros((2, p.ne))
    Yf[:, p.e_slices["arm"]] = beam.port("B").Y
    Yf[:, :3] = 0.0                                         # the frame's columns
    defl, rate, omitted, g = [], [], [], []
    for qq, uu in zip(q, u):
        R = beam.rotation(qq)
        defl.append(c.n @ R @ (c._float_rows @ uu))
        rate.append(c.n @ R @ (Yf @ uu))
        omitted.append(abs(uu[2]) * np.linalg.norm(c._float_rows @ uu))
        g.append(p.contact_state(qq, uu)[0][0])
    defl, rate, omitted, g = map(np.array, (defl, rate, omitted, g))
    PN = res.steps["P_N"][:, 0]
    t1 = res.steps["t"][int(np.flatnonzero(PN > 0)[0])]
    free = res.t < t1 - h
    dt = np.diff(res.t[free])
    integral = np.r_[0.0, np.cumsum(0.5 * (rate[free][1:] + rate[free][:-1]) * dt)]
    bound = np.r_[0.0, np.cumsum(0.5 * (omitted[free][1:] + omitted[free][:-1]) * dt)]
    drift = np.abs(defl[free] - defl[0] - integral)
    assert np.max(np.abs(defl[free])) > 1e-9                 # the beam deforms while it turns
    assert np.all(drift <= 1.01 * bound + 1e-11)          # + the step's quadrature error
    assert drift[-1] > 0.5 * bound[-1]
    assert g.min() > -np.max(np.abs(u)) * h and res.dissipated[-1, 0] > 0
    H = res.hamiltonian()
    assert np.max(np.abs(res.energy_balance())) < 1e-11 * H[0]

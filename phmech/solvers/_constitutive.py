"""The constitutive stresses of bodies whose stresses are states beside a displacement.

The geometrically consistent beams keep their displacement in the configuration and
their stresses among the efforts (``stress_dofs``); the constitutive relation
``sigma = stresses_of(q)`` is an invariant of their flow, not an equation of it.  Where
nothing moves (a static equilibrium, a steady motion) their stress-rate rows say
nothing, and the invariant takes their place: :func:`stresses_and_tangent` gives it with
its derivative in ``q``.  The strains are at most quadratic in ``q``, so central
differences give that derivative to round-off.
"""
import numpy as np


def stress_bodies(dae):
    """``(body, q slice, stress indices in e, local stress indices)`` of every body with
    stress states beside a displacement."""
    out = []
    for b in dae.system.bodies:
        if b.nq and hasattr(b, "stresses_of") and hasattr(b, "stress_dofs"):
            sd = np.asarray(b.stress_dofs, int)
            out.append((b, dae.q_slices[b.name], dae.e_slices[b.name].start + sd, sd))
    return out


def stresses_and_tangent(body, q, sd):
    """``(sigma, D)``: the constitutive stresses ``stresses_of(q)[sd]`` of ``body`` and
    ``D = d sigma / dq`` (central differences: exact for strains quadratic in ``q``)."""
    q = np.asarray(q, float)
    sigma = body.stresses_of(q)[sd]
    D = np.zeros((sd.size, q.size))
    for j in range(q.size):
        h = 1e-6 * (1.0 + abs(q[j]))
        qp, qm = q.copy(), q.copy()
        qp[j] += h
        qm[j] -= h
        D[:, j] = (body.stresses_of(qp)[sd] - body.stresses_of(qm)[sd]) / (2 * h)
    return sigma, D

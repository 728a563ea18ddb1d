"""Gravity on plates: the mass rows of a vertical translation and the first moment of the deflected
mid-surface.

A plate lies in the plane ``z = 0`` and moves only out of it.  Gravity
``g`` supplies the power ``int rho h g_z v`` (:func:`momentum_rows`: the
rows ``int rho h dv`` under the vertical component, zero in-plane rows: the
supports carry the in-plane load).  Its potential is ``V = -g . S`` with
``S = int rho h (x, y, w)`` the first moment of mass of the deflected
mid-surface (:func:`first_moment`).

The plate's state holds velocities and stresses, no deflection.  The
stress equation is ``C S' = B v`` (the rows of ``J0``; no port drives
them: ports and constraints act on the velocity rows), so where the
supports leave no rigid motion the deflection follows from the stresses as
in :func:`phmech.pictures.deflection_history`: ``K d = B^T S`` with the
stiffness ``K = B^T C^-1 B``, the least-squares solution of ``C S = B d``
(exact for the stresses the motion from the stress-free state builds).
Hence ``int rho h w = m^T K^-1 B^T S = (B K^-1 m)^T S`` with ``m`` the mass
row over the velocity unknowns: one row over the stresses.  Its rate is
``(B K^-1 m)^T C^-1 B v = m^T v`` for every velocity, so gravity's force is
exactly ``-dV/dt`` along any motion, in continuous time and for the
midpoint rule (whose stress update ``C (S1 - S0) = dt B v_mid`` is the
stress equation itself): ``H + V`` is conserved to the solver's tolerance.
A plate free to move rigidly (no support, or held only by other bodies)
has no deflection in its state: it has no first moment here (None).
"""
import numpy as np


def momentum_rows(plate):
    """``(3, ne)`` rows ``int rho h (e_k . u)`` over the plate's efforts for the unit translations
    ``e_k``: in-plane rows zero, the vertical row ``int rho h dv`` over the kept velocity unknowns."""
    rows = np.zeros((3, plate.ne))
    rho_h = plate.rho * plate.h
    rows[2] = plate.load_vector(lambda x: rho_h)
    return rows


def first_moment(plate):
    """``(s0, rows, "e")``: the first moment of mass ``S = s0 + rows @ e`` of the deflected plate
    (inertial components), or None for a plate whose supports leave a rigid motion.

    ``s0 = int rho h (x, y, 0)`` (the flat plate); ``rows`` is zero but in its third row, which
    is ``B K^-1 m`` on the stress unknowns (see the module docstring).
    """
    from ..pictures import _stiffness_factor, plate_held

    if not plate_held(plate):
        return None
    fd = plate._firedrake()
    rho_h, x = plate.rho * plate.h, plate.x
    s0 = np.array([fd.assemble(rho_h * x[i] * fd.dx(domain=plate.mesh)) for i in (0, 1)] + [0.0])
    v, s = plate.velocity_dofs, plate.stress_dofs
    B, lu = _stiffness_factor(plate)
    m = momentum_rows(plate)[2][v]
    a = np.asarray(lu.solve(np.r_[m, np.zeros(len(s))]))[:len(v)]          # K a = m
    rows = np.zeros((3, plate.ne))
    rows[2, s] = B @ a
    return s0, rows, "e"

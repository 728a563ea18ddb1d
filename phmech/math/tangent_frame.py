r"""The frame of a section that follows a tangent and a twist, and its angular velocity.

A section whose axis ``d_1`` is the unit tangent ``t / |t|`` of a curve and which is twisted by
``phi`` about it (the end section of the geometrically consistent spatial beam, whose tangent
``t = e_1 + u'`` and twist ``phi`` are given relative to its floating frame) is the rotation

.. math::

    \Lambda(t, \phi) = R_z(\psi)\, R_y(-\chi)\, R_x(\phi), \qquad
    \psi = \operatorname{atan2}(t_2, t_1), \quad
    \chi = \operatorname{atan2}(t_3, \sqrt{t_1^2 + t_2^2})

(``Lambda e_1 = t / |t|``; the angles are a yaw and a pitch of the tangent, so the frame is
defined while the tangent stays off ``+-e_3``, a pitch below 90 degrees).  Its angular velocity
in its own axes is

.. math::

    \omega = R_x^T R_y^T e_3\, \dot\psi - R_x^T e_2\, \dot\chi + e_1 \dot\phi
           = P(t, \phi)\, \dot t + e_1 \dot\phi,

with ``psi' = (t_1 t_2' - t_2 t_1') / rho^2`` and ``chi' = (rho^2 t_3' - t_3 (t_1 t_1' + t_2
t_2')) / (rho |t|^2)``, ``rho^2 = t_1^2 + t_2^2``.  The functions take real or complex
arguments (the same source), so that their derivatives by complex steps are exact to round-off
(:func:`complex_step`).
"""
import numpy as np

from ..kernels.jit import jit as _jit

#: the step of the complex-step derivatives (their error is of its square)
COMPLEX_STEP = 1e-30


@_jit
def tangent_frame(th, Lam):
    """``Lam = Lambda(t, phi)`` (3 x 3, of ``th``'s type) for ``th = (t_1, t_2, t_3, phi)``."""
    t1, t2, t3, ph = th[0], th[1], th[2], th[3]
    rho = np.sqrt(t1 * t1 + t2 * t2)
    n = np.sqrt(t1 * t1 + t2 * t2 + t3 * t3)
    cp, sp = t1 / rho, t2 / rho
    cc, sc = rho / n, t3 / n
    c, s = np.cos(ph), np.sin(ph)
    # R_z(psi) R_y(-chi) R_x(phi), written out
    Lam[0, 0] = cp * cc
    Lam[1, 0] = sp * cc
    Lam[2, 0] = sc
    Lam[0, 1] = -sp * c - cp * sc * s
    Lam[1, 1] = cp * c - sp * sc * s
    Lam[2, 1] = cc * s
    Lam[0, 2] = sp * s - cp * sc * c
    Lam[1, 2] = -cp * s - sp * sc * c
    Lam[2, 2] = cc * c


@_jit
def tangent_rate_map(th, P):
    """``P`` (3 x 3, of ``th``'s type) with the section's angular velocity in its axes
    ``omega = P t' + e_1 phi'``."""
    t1, t2, t3, ph = th[0], th[1], th[2], th[3]
    r2 = t1 * t1 + t2 * t2
    rho = np.sqrt(r2)
    n2 = r2 + t3 * t3
    n = np.sqrt(n2)
    cc, sc = rho / n, t3 / n
    c, s = np.cos(ph), np.sin(ph)
    # a = R_x^T R_y(-chi)^T e_3 (the yaw axis), b = R_x^T e_2 (the pitch axis), in the section's axes
    a0, a1, a2 = sc, cc * s, cc * c
    b0, b1, b2 = 0.0 * c, c, -s
    gp0, gp1, gp2 = -t2 / r2, t1 / r2, 0.0 * t1                       # d psi / dt
    gc0, gc1, gc2 = -t3 * t1 / (rho * n2), -t3 * t2 / (rho * n2), rho / n2   # d chi / dt
    P[0, 0], P[0, 1], P[0, 2] = a0 * gp0 - b0 * gc0, a0 * gp1 - b0 * gc1, a0 * gp2 - b0 * gc2
    P[1, 0], P[1, 1], P[1, 2] = a1 * gp0 - b1 * gc0, a1 * gp1 - b1 * gc1, a1 * gp2 - b1 * gc2
    P[2, 0], P[2, 1], P[2, 2] = a2 * gp0 - b2 * gc0, a2 * gp1 - b2 * gc1, a2 * gp2 - b2 * gc2


@_jit
def frame_derivatives(th, dLam):
    """``dLam[j] = d Lambda / d th_j`` (j < 4, real) by complex steps of :func:`tangent_frame`."""
    z = np.empty(4, np.complex128)
    L = np.empty((3, 3), np.complex128)
    for j in range(4):
        for i in range(4):
            z[i] = th[i]
        z[j] = z[j] + 1j * COMPLEX_STEP
        tangent_frame(z, L)
        for a in range(3):
            for b in range(3):
                dLam[j, a, b] = L[a, b].imag / COMPLEX_STEP

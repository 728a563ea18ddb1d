r"""Reference solution of the planar static Reissner (geometrically exact) cantilever.

An independent, high-accuracy solution of the beam equations by shooting,
for checking the finite-element beams against it.

The beam axis of length :math:`L` is clamped at :math:`s = 0` at the origin
with its tangent along :math:`+x`.  The free end :math:`s = L` carries a dead
force :math:`P = (P_x, P_y)` (inertial components) and a moment :math:`M`
(about :math:`z`).  With the section angle :math:`\theta(s)`, the position
:math:`r(s) = (x, y)` and :math:`R(\theta) = [[\cos\theta, -\sin\theta],
[\sin\theta, \cos\theta]]`, the internal force is :math:`n = P` at every
section, with material components :math:`(N, Q) = R(\theta)^T P`, and

.. math::

    r' = R(\theta)\,\bigl(e_1 + (N/EA,\; Q/GA)\bigr), \qquad
    \theta' = m / EI, \qquad
    m' = -(r' \times P)_z = -Q\,\bigl(1 + N\,(1/EA - 1/GA)\bigr),

with :math:`x = y = \theta = 0` at :math:`s = 0` and :math:`m(L) = M`
(an infinite ``EA`` or ``GA`` removes that strain).  The unknown root moment
:math:`m(0)` is found by Newton's method on :math:`m(L) - M`, the derivative
coming from the variational equations :math:`\delta\theta' = \delta m / EI`,
:math:`\delta m' = \bigl(N (1 + cN) - c Q^2\bigr)\,\delta\theta`,
:math:`c = 1/EA - 1/GA`, integrated along (DOP853, ``rtol = 1e-13``).  The
load is applied in increments from zero, each Newton iteration starting from
an extrapolation of the previous root moments, so the solution is the one
connected to the unloaded beam.
"""
import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

__all__ = ["Elastica", "cantilever", "tip_deflection_table"]

_RTOL = 1e-13
_ATOL = 1e-14
_MAXITER = 30


@dataclass(frozen=True)
class Elastica:
    """A solved cantilever.

    Attributes
    ----------
    tip : numpy.ndarray
        ``(x, y, theta)`` at ``s = L``.
    m0 : float
        The root moment ``m(0)``.
    s, x, y, theta : numpy.ndarray
        The arc length and the solution at ``n_points`` equispaced points
        (empty arrays when ``n_points`` is 0).
    """

    tip: np.ndarray
    m0: float
    s: np.ndarray
    x: np.ndarray
    y: np.ndarray
    theta: np.ndarray


def _positive(name, value, allow_inf=False):
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive number, got {value!r}") from None
    if not (value > 0) or (math.isinf(value) and not allow_inf):
        kind = "a positive number or inf" if allow_inf else "a positive finite number"
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    return value


def _finite(name, value):
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number, got {value!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value


def _shoot(m0, L, EI, Px, Py, cA, cG, t_eval=None):
    """Integrate from the root with ``m(0) = m0``; state (x, y, theta, m, dtheta, dm)."""
    c = cA - cG

    def rhs(_s, z):
        th, m, dth, dm = z[2], z[3], z[4], z[5]
        ct, st = math.cos(th), math.sin(th)
        N = ct * Px + st * Py
        Q = -st * Px + ct * Py
        e1 = 1.0 + N * cA
        g = Q * cG
        return (ct * e1 - st * g, st * e1 + ct * g, m / EI,
                -Q * (1.0 + c * N), dm / EI, (N * (1.0 + c * N) - c * Q * Q) * dth)

    sol = solve_ivp(rhs, (0.0, L), [0.0, 0.0, 0.0, m0, 0.0, 1.0], method="DOP853",
                    rtol=_RTOL, atol=_ATOL, t_eval=t_eval)
    if not sol.success:  # pragma: no cover - the right-hand side is smooth and bounded
        raise RuntimeError(f"integration of the cantilever failed: {sol.message}")
    return sol


def _newton(m0, L, EI, Px, Py, M, cA, cG, tol, scale):
    """Newton iteration on ``m(L) - M``; returns the root moment or None."""
    res_old = math.inf
    for _ in range(_MAXITER):
        end = _shoot(m0, L, EI, Px, Py, cA, cG).y[:, -1]
        res = end[3] - M
        if abs(res) <= tol * scale:
            return m0
        if not abs(res) < 2.0 * abs(res_old) or end[5] == 0.0:
            return None  # diverging: the caller takes a smaller load step
        res_old = res
        m0 -= res / end[5]
    return None


def cantilever(L=1.0, EI=1.0, P=(0.0, 0.0), M=0.0, EA=np.inf, GA=np.inf, n_points=0,
               tol=1e-12):
    """Solve the planar static Reissner cantilever under a dead tip force and moment.

    Parameters
    ----------
    L : float
        Length of the beam.
    EI : float
        Bending stiffness.
    P : sequence of 2 floats
        The dead tip force ``(Px, Py)`` in inertial components.
    M : float
        The tip moment about ``z``.
    EA, GA : float
        Axial and shear stiffness; ``numpy.inf`` (default) makes the beam
        inextensible or shear-rigid.
    n_points : int
        Number of equispaced points of ``s, x, y, theta`` in the result (0: none).
    tol : float
        Tolerance of the moment condition ``|m(L) - M|`` relative to the moment
        scale ``EI/L + |M| + |P| L``.

    Returns
    -------
    Elastica
        The tip position and angle, the root moment and the sampled solution.

    Raises
    ------
    ValueError
        A non-positive or non-finite ``L``, ``EI`` or ``tol``, a non-positive
        ``EA`` or ``GA``, non-finite loads, or a negative ``n_points``.
    RuntimeError
        The continuation does not converge.
    """
    L = _positive("L", L)
    EI = _positive("EI", EI)
    EA = _positive("EA", EA, allow_inf=True)
    GA = _positive("GA", GA, allow_inf=True)
    tol = _positive("tol", tol)
    try:
        Px, Py = P
    except (TypeError, ValueError):
        raise ValueError(f"P must be a pair (Px, Py), got {P!r}") from None
    Px, Py = _finite("P[0]", Px), _finite("P[1]", Py)
    M = _finite("M", M)
    if isinstance(n_points, bool) or int(n_points) != n_points or n_points < 0:
        raise ValueError(f"n_points must be a non-negative integer, got {n_points!r}")
    n_points = int(n_points)
    cA, cG = 1.0 / EA, 1.0 / GA

    scale = EI / L + abs(M) + math.hypot(Px, Py) * L
    load = (abs(M) * L + math.hypot(Px, Py) * L * L) / EI
    step = 1.0 / max(1, math.ceil(load / 2.0))
    hist = [(0.0, 0.0)]  # (load factor, root moment) of the converged increments
    lam = 0.0
    while lam < 1.0:
        new = min(1.0, lam + step)
        if len(hist) >= 2:  # secant predictor along the load path
            (l1, m1), (l2, m2) = hist[-2], hist[-1]
            guess = m2 + (m2 - m1) * (new - l2) / (l2 - l1)
        else:
            guess = hist[-1][1]
        m0 = _newton(guess, L, EI, new * Px, new * Py, new * M, cA, cG, tol, new * scale)
        if m0 is None:
            step *= 0.5
            if step < 1e-6:
                raise RuntimeError(f"the load continuation stalled at load factor {lam}")
            continue
        hist.append((new, m0))
        lam = new
    m0 = hist[-1][1]

    s = np.linspace(0.0, L, n_points)
    if n_points >= 2:
        sol = _shoot(m0, L, EI, Px, Py, cA, cG, t_eval=s)
        x, y, theta = sol.y[0].copy(), sol.y[1].copy(), sol.y[2].copy()
        tip = sol.y[:3, -1].copy()
    else:
        tip = _shoot(m0, L, EI, Px, Py, cA, cG).y[:3, -1].copy()
        x = y = theta = np.zeros(n_points)
    return Elastica(tip=tip, m0=float(m0), s=s, x=x, y=y, theta=theta)


def tip_deflection_table(loads=(1, 2, 5, 10)):
    """Tip deflections of the inextensible, shear-rigid cantilever under a vertical load.

    The tip force is ``P = (0, -alpha EI / L**2)`` (downwards).

    Parameters
    ----------
    loads : sequence of float
        The load parameters ``alpha = |P| L**2 / EI``.

    Returns
    -------
    numpy.ndarray
        Rows ``(alpha, u/L, w/L, theta_tip)``: the horizontal shortening
        ``u = L - x_tip``, the downward deflection ``w = -y_tip`` and the tip
        rotation ``theta_tip = -theta(L)`` (clockwise, the sense of the load,
        positive), as tabulated by Mattiasson (1981).
    """
    rows = []
    for alpha in loads:
        alpha = _finite("alpha", alpha)
        x, y, th = cantilever(L=1.0, EI=1.0, P=(0.0, -alpha)).tip
        rows.append((alpha, 1.0 - x, -y, -th))
    return np.array(rows, dtype=float).reshape(-1, 4)

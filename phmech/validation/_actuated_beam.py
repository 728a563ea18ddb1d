"""An independent model of the actuated plate: a bending-torsion beam with lumped attachments.

Used as a cross-check of :mod:`phmech.validation.actuated_plate` (no
Firedrake, no ports, no multipliers).  The plate strip of width ``b`` and
thickness ``h`` along ``0 <= y <= L`` becomes a beam on its centre line
``x = b/2``:

* bending: Euler-Bernoulli, ``EI = E b h^3 / 12`` (a long free Kirchhoff
  strip bends anticlastically, ``M_xx = 0``, so its bending stiffness is
  ``E I``, not ``D b``), cubic Hermite elements with consistent mass
  ``rho b h`` per length;
* torsion: Saint-Venant, ``GJ = G b h^3 / 3`` (the twist of a free
  Kirchhoff strip, ``w = theta' x y``: torque ``2 D (1 - nu) b theta'``),
  rotary inertia ``rho h b^3 / 12`` per length (Kirchhoff plates have no
  rotary inertia of the thickness), linear elements;
* an attached rigid body at ``(x_a, y_a)`` moves with the node at ``y_a``:
  heave ``w - (x_a - b/2) phi``, roll rate ``w'``, pitch rate ``phi``
  (``phi`` the twist about the y axis, the plate's ``rot_y = -dw/dx``);
  its 3 x 3 mass matrix in (heave, roll, pitch) is added through that map;
* a proof mass ``m`` on a spring ``k`` above a casing: one more degree of
  freedom, the spring between it and the casing heave.

The clamped root restrains the anticlastic curvature and the warping of the
strip, which a beam does not see; the plate is therefore a few per cent
stiffer in its lowest modes (see the tests for the measured differences).
"""
import numpy as np
import scipy.linalg as sla


def _hermite(le):
    K = np.array([[12, 6 * le, -12, 6 * le], [6 * le, 4 * le ** 2, -6 * le, 2 * le ** 2],
                  [-12, -6 * le, 12, -6 * le], [6 * le, 2 * le ** 2, -6 * le, 4 * le ** 2]]) / le ** 3
    M = np.array([[156, 22 * le, 54, -13 * le], [22 * le, 4 * le ** 2, 13 * le, -3 * le ** 2],
                  [54, 13 * le, 156, -22 * le], [-13 * le, -3 * le ** 2, -22 * le, 4 * le ** 2]]) * le / 420
    return K, M


def beam_frequencies(length, width, h, rho, E, nu, attachments=(), actuators=(), n_el=80, k=6):
    """Lowest ``k`` natural frequencies [Hz] of the beam model (see the module docstring).

    Parameters
    ----------
    attachments : list of ``(x, y, M3)``
        Rigid bodies at plate point ``(x, y)`` with 3 x 3 mass matrix ``M3``
        in (heave, roll rate, pitch rate).
    actuators : list of ``(x, y, m, k_spring)``
        Proof masses on springs above the attachments at ``(x, y)``.
    n_el : int
        Elements of the uniform grid (the attachment stations are added as nodes).

    Returns
    -------
    f : ndarray (k,)  [Hz]
    """
    ys = np.linspace(0.0, length, n_el + 1)
    for y in [a[1] for a in attachments] + [a[1] for a in actuators]:
        if np.min(np.abs(ys - y)) > 1e-9 * length:
            ys = np.sort(np.r_[ys, y])
    nn = len(ys)
    nd = 3 * nn                      # per node: w, w', phi
    na = len(actuators)
    K = np.zeros((nd + na, nd + na))
    M = np.zeros_like(K)
    EI = E * width * h ** 3 / 12
    GJ = E / (2 * (1 + nu)) * width * h ** 3 / 3
    rA, rIp = rho * width * h, rho * h * width ** 3 / 12
    for i in range(nn - 1):
        le = ys[i + 1] - ys[i]
        Kb, Mb = _hermite(le)
        idx = [3 * i, 3 * i + 1, 3 * i + 3, 3 * i + 4]
        K[np.ix_(idx, idx)] += EI * Kb
        M[np.ix_(idx, idx)] += rA * Mb
        it = [3 * i + 2, 3 * i + 5]
        K[np.ix_(it, it)] += GJ / le * np.array([[1, -1], [-1, 1]])
        M[np.ix_(it, it)] += rIp * le / 6 * np.array([[2, 1], [1, 2]])

    def station(x, y):
        j = int(np.argmin(np.abs(ys - y)))
        T = np.zeros((3, nd + na))
        T[0, 3 * j], T[0, 3 * j + 2] = 1.0, -(x - width / 2)
        T[1, 3 * j + 1] = 1.0
        T[2, 3 * j + 2] = 1.0
        return T

    for x, y, M3 in attachments:
        T = station(x, y)
        M += T.T @ np.asarray(M3, float) @ T
    for i, (x, y, m, ks) in enumerate(actuators):
        d = -station(x, y)[0]
        d[nd + i] += 1.0
        K += ks * np.outer(d, d)
        M[nd + i, nd + i] += m
    keep = np.r_[np.arange(3, nd + na)]      # clamped root: node 0 removed
    w2 = sla.eigh(K[np.ix_(keep, keep)], M[np.ix_(keep, keep)], eigvals_only=True, subset_by_index=[0, k - 1])
    return np.sqrt(np.maximum(w2, 0.0)) / (2 * np.pi)

"""
A reduced body: Craig-Bampton reduction of the rod with a tip mass
==================================================================

The axial rod of the FormBody example (:func:`phmech.validation.reduced_bodies.rod`:
64 elements, fixed at ``x = 0``) is
reduced by :func:`phmech.reduce.craig_bampton` to its interface port ``tip``
(the static constraint mode) and ``k`` fixed-interface normal modes (Craig &
Bampton, *AIAA J.* 6, 1968), projected so that the reduced body stays
port-Hamiltonian (``M_r`` SPD, ``J_r`` skew).  Welded to the tip mass it is a
body like any other.  The fundamental frequency converges from above to the
full model's as modes are added; the reference is the closed form
``beta L tan(beta L) = rho A L / M = 4`` (``omega = 12.6464 rad/s``, Blevins,
table 12-2) and the full 64-element model.  A short midpoint run of the
reduced system and the recovery of the full efforts end the example.
"""
import numpy as np
from scipy.optimize import brentq

from phmech import PointMass, System
from phmech.joints import Revolute
from phmech.validation.reduced_bodies import EA, L_ROD as L, RHO_A as RHOA   # the rod's data

NEEDS_FIREDRAKE = True
M_TIP = 1.5


def with_tip(body):
    """``body`` welded at its port ``tip`` to the point mass."""
    tip = PointMass("tip", M_TIP, (L, 0.0))
    s = System([body, tip])
    s.add_joint(Revolute(body.port("tip"), tip.port("P"), name="weld"))
    return s


def run(quick=True):
    """``omega``: the fundamental frequency of the reduced rod with the tip mass for each number
    of modes ``n_modes``; ``full``: that of the full model; ``n_full``/``n_reduced`` unknowns."""
    from phmech.reduce import craig_bampton
    from phmech.validation.reduced_bodies import rod

    body = rod(64)
    full = float(with_tip(body).linearize().eigenmodes(k=1).omega[0])
    n_modes = [1, 2, 4, 8] if quick else [1, 2, 3, 4, 6, 8, 12]
    omega = []
    for k in n_modes:
        red = craig_bampton(body, ["tip"], n_modes=k)
        omega.append(float(with_tip(red).linearize().eigenmodes(k=1).omega[0]))
    s = with_tip(red)
    res = s.simulate(0.01, dt=1e-4)
    e_full = red.recover(res.e(red))
    beta_l = brentq(lambda x: x * np.tan(x) - RHOA * L / M_TIP, 1e-9, np.pi / 2 - 1e-9)   # beta L tan = 4
    return {"n_modes": n_modes, "omega": np.array(omega), "full": full, "exact": beta_l / L * np.sqrt(EA / RHOA),
            "n_reduced": int(res.e(red).shape[1]), "n_full": int(e_full.shape[1])}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    print(f"full model ({out['n_full']} unknowns): omega = {out['full']:.6f} rad/s; closed form {out['exact']:.6f}")
    for k, w in zip(out["n_modes"], out["omega"]):
        print(f"{k:2d} modes: omega = {w:.6f} rad/s  ({w / out['full'] - 1:+.1e} against the full model)")
    fig, ax = plt.subplots()
    ax.semilogy(out["n_modes"], out["omega"] / out["full"] - 1, "o-")
    ax.set_xlabel("fixed-interface modes")
    ax.set_ylabel("omega_reduced / omega_full - 1")

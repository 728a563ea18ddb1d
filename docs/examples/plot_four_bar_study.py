"""
Four-bar: natural frequencies over the crank angle (a parameter study)
======================================================================

The flexible four-bar of Kitis & Lindenberg (1990) / Chebbi et al. (2017)
(:mod:`phmech.validation.four_bar`) linearized at crank angles around the
full turn; :func:`phmech.study.study` computes the first three natural
frequencies at each angle of the grid (here in this process; ``processes=N``
or ``mpi=True`` share the angles among workers).  Each point is the case's
own computation, so a point equals the direct linearization of
:class:`phmech.mechanisms.FourBar` at that angle (to round-off).
"""
import numpy as np

from phmech.study import study

NEEDS_FIREDRAKE = True


def run(quick=True):
    """``f1_hz`` etc. over ``angles`` (deg); ``direct_f1_hz`` at the first angle from
    :class:`~phmech.mechanisms.FourBar` without the study."""
    from phmech.mechanisms import FourBar

    angles = np.arange(0, 360, 60 if quick else 15)
    res = study("four_bar", {"theta1_deg": list(angles)}, fixed={"n_elem": 3}, plot=False)
    fb = FourBar(n_elem=3)
    direct = fb.linearize(np.radians(float(angles[1]))).eigenmodes(k=3, method="dense").freq_hz
    return {"angles": angles, **{f"f{i}_hz": np.array(res.column(f"f{i}_hz")) for i in (1, 2, 3)},
            "direct_f1_hz": float(direct[0]), "wall_time": res.wall_time}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    print(f"{len(out['angles'])} angles in {out['wall_time']:.1f} s; at {out['angles'][1]} deg f1 = "
          f"{out['f1_hz'][1]:.4f} Hz (direct linearization {out['direct_f1_hz']:.4f} Hz)")
    fig, ax = plt.subplots()
    for i in (1, 2, 3):
        ax.plot(out["angles"], out[f"f{i}_hz"], "o-", ms=3, label=f"mode {i}")
    ax.set_xlabel(r"crank angle $\theta_1$ [deg]")
    ax.set_ylabel("natural frequency [Hz]")
    ax.set_yscale("log")
    ax.legend(loc="center right")

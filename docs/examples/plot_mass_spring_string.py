"""
Mass-spring network: the modes of a taut string of beads
========================================================

A :class:`phmech.massspring.MassSpringSystem2d` of ``N`` equal masses
``m`` between two fixed points, joined by ``N + 1`` equal springs
(stiffness ``k``, rest length ``l_0``) pulled to the length ``a > l_0``
(tension ``T = k (a - l_0)``).  About the straight configuration the motions
along the line and across it decouple; both are the chain of beads with
fixed ends,

.. math:: \\omega_j = 2\\sqrt{\\kappa/m}\\,\\sin\\frac{j\\pi}{2(N+1)},
          \\quad j = 1..N,

with ``kappa = k`` along the line and ``kappa = T / a`` across it (the
geometric stiffness of the preload; Lagrange's beaded string, e.g. French,
*Vibrations and Waves*, ch. 5).  ``natural_frequencies`` linearizes the
network with the springs' exact tangent stiffness, so all 2N frequencies are
exact to round-off.  A plucked string is then integrated with the
generalized-alpha method.
"""
import numpy as np

from phmech import massspring as ms

M, K, L0, A = 0.05, 400.0, 0.08, 0.1


def string(n):
    """``n`` beads on a taut string from (0, 0) to ((n + 1) a, 0)."""
    mss = ms.MassSpringSystem2d()
    mss.gravity = [0.0, 0.0]
    nodes = [mss.add(ms.Fix([0.0, 0.0]))]
    nodes += [mss.add(ms.Mass(M, [A * (i + 1), 0.0])) for i in range(n)]
    nodes.append(mss.add(ms.Fix([A * (n + 1), 0.0])))
    for a, b in zip(nodes[:-1], nodes[1:]):
        mss.add(ms.Spring(L0, K, [a, b]))
    return mss


def exact(n):
    """The 2n frequencies [Hz] of the beaded string in closed form, sorted."""
    s = np.sin(np.arange(1, n + 1) * np.pi / (2 * (n + 1)))
    T = K * (A - L0)
    return np.sort(np.concatenate([2 * np.sqrt(K / M) * s, 2 * np.sqrt(T / A / M) * s])) / (2 * np.pi)


def run(quick=True):
    """``freq_hz``: the network's 2n natural frequencies (sorted); a plucked string for the figure."""
    n = 8 if quick else 16
    mss = string(n)
    freq = mss.natural_frequencies()
    mss.masses[n // 2].pos = np.array([A * (n // 2 + 1), 0.02])     # pluck the middle bead
    res = mss.simulate(0.5, 500, rho_inf=0.9)
    return {"n": n, "freq_hz": freq, "positions": res.positions(), "t": res.t}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    err = np.max(np.abs(out["freq_hz"] - exact(out["n"])) / exact(out["n"]))
    print(f"{2 * out['n']} frequencies, largest relative deviation from the closed form {err:.1e}")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
    ax1.plot(out["freq_hz"], "o", label="natural_frequencies")
    ax1.plot(exact(out["n"]), "k+", ms=9, label="closed form")
    ax1.set_xlabel("mode")
    ax1.set_ylabel("frequency [Hz]")
    ax1.legend(loc="upper left")
    pos = out["positions"]
    for k in range(0, len(out["t"]), len(out["t"]) // 8):
        ax2.plot(pos[k, :, 0], pos[k, :, 1], "o-", ms=3, alpha=0.3 + 0.7 * k / len(out["t"]))
    ax2.set_xlabel("x [m]")
    ax2.set_ylabel("y [m]")
    ax2.set_title("the plucked string")
    fig.tight_layout()

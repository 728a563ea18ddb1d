"""
A user force law: a hardening spring carrying a mass under gravity
==================================================================

A point mass (m = 2 kg) hangs on a vertical guide from a spring whose
tension is a plain Python function of its length ``l`` and rate ``l'``,

.. math:: F(l, l') = k (l - l_0) + k_3 (l - l_0)^3

(``k = 100 N/m``, ``k_3 = 2e4 N/m^3``, rest length ``l_0 = 0.3 m``: a Duffing
spring), given as ``law=`` to :meth:`~phmech.System.add_spring`.  phmech
compiles the law with the kernels and takes its derivative by the complex
step (or from ``law_derivative=``).  The static equilibrium under gravity
stretches the spring by ``d``, the real root of

.. math:: m g = k d + k_3 d^3,

and the small vibration about it has the tangent stiffness:
``omega^2 = (k + 3 k_3 d^2) / m``.  :meth:`~phmech.System.linearize` finds
both (Newton, then the eigenvalue problem), exact to the Newton tolerance.
"""
import numpy as np

from phmech import PointMass, System

M, G, K1, K3, L0 = 2.0, 9.81, 100.0, 2.0e4, 0.3


def hardening(length, rate):
    """The spring's tension [N] at ``length`` [m] (rate-independent)."""
    d = length - L0
    return K1 * d + K3 * d**3


def model():
    """The mass on the vertical guide, started with the spring at rest."""
    mass = PointMass("mass", M, position=(0.0, -L0))
    s = System([mass])
    s.slide(mass.port("P"), (0.0, 1.0))
    s.add_spring(mass.port("P"), None, law=hardening, at=(0.0, 0.0), name="duffing")
    s.add_gravity((0.0, -G))
    return s, mass


def exact():
    """``(d, omega)``: the static stretch (the real root of the cubic) and the frequency."""
    roots = np.roots([K3, 0.0, K1, -M * G])
    d = float(roots[np.argmin(np.abs(roots.imag))].real)
    return d, float(np.sqrt((K1 + 3 * K3 * d**2) / M))


def run(quick=True):
    """``stretch`` (m) and ``omega`` (rad/s) of the equilibrium and its mode; a free fall from the
    rest length for the figure."""
    s, mass = model()
    lin = s.linearize()
    stretch = -float(lin.q[1]) - L0
    omega = float(lin.eigenmodes(k=1).omega[0])
    s2, mass2 = model()
    res = s2.simulate(1.0, dt=2e-3 if quick else 5e-4)
    return {"stretch": stretch, "omega": omega, "t": res.t, "y": res.q(mass2)[:, 1]}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    d, w = exact()
    print(f"static stretch {out['stretch']:.8f} m (root of m g = k d + k3 d^3: {d:.8f} m)")
    print(f"omega = {out['omega']:.6f} rad/s (sqrt((k + 3 k3 d^2) / m) = {w:.6f} rad/s; "
          f"linear spring alone: {np.sqrt(K1 / M):.4f})")
    fig, ax = plt.subplots()
    ax.plot(out["t"], -out["y"] - L0, label="released at the rest length")
    ax.axhline(d, color="k", ls="--", lw=1, label="static stretch d")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("stretch [m]")
    ax.legend(loc="lower right")

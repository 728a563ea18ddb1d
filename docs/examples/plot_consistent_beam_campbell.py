"""
Geometrically consistent beam: Campbell diagram of a spinning blade
===================================================================

A uniform cantilever (``L = rho A = EI = 1``, ``EA = 4900``: slenderness 70)
on a hub spinning in its own plane at the rate ``Omega``, modelled with the
planar geometrically consistent beam
:class:`phmech.fem.beam_nonlinear.NonlinearFloatingBeam` (exact
rotating-frame inertia, Green-Lagrange axial strain: geometric stiffening)
and a driven frame rate (:class:`~phmech.fem.beam_nonlinear.FrameRate`).
:func:`phmech.solvers.steady.campbell` finds the steady state at each speed
(continuation in the speed), linearizes about it and follows the modes by
their modal assurance criterion.

The in-plane (chordwise) frequency of an inextensible blade without hub
offset is the flapwise one less the centrifugal softening,
``omega_c^2 = omega_f^2 - Omega^2`` (Hodges & Rutkowski, *AIAA J.* 19, 1981),
with the flapwise values of Wright, Smith, Thresher & Wang (*J. Appl. Mech.*
49, 1982), in units of ``sqrt(EI / rho A L^4)`` at ``Omega`` = 0, 2, ..., 10:
3.5160, 4.1373, 5.5850, 7.3604, 9.2568, 11.2023.  The slender blade's
axial stretch changes them by less than 0.5 %; the linear floating frame
(no geometric stiffening) would keep the frequency at rest instead.
"""
import numpy as np

from phmech import System

NEEDS_FIREDRAKE = True
SPEEDS = np.array([0.0, 2.0, 4.0, 6.0, 8.0, 10.0])
FLAPWISE = np.array([3.5160, 4.1373, 5.5850, 7.3604, 9.2568, 11.2023])     # Wright et al. 1982


def spinning_blade(speed, n_elem=8):
    """The consistent cantilever on a hub driven at ``speed``, assembled."""
    from phmech.fem.beam_nonlinear import FrameRate, NonlinearFloatingBeam

    blade = NonlinearFloatingBeam("blade", 1.0, n_elem, frame="cantilever", rho=1.0, A=1.0, E=4900.0, I=1 / 4900)
    s = System([blade])
    s.pin(blade.port("A"))
    s.add_joint(FrameRate(blade, rate=speed))
    return s.assemble()


def run(quick=True):
    """``chordwise``: the lowest in-plane frequency at each of ``SPEEDS`` (units of
    sqrt(EI / rho A L^4))."""
    from phmech.solvers.steady import campbell

    n = 6 if quick else 12
    c = campbell(lambda speed: spinning_blade(speed, n), list(SPEEDS), k=2)
    omega = np.asarray(c["omega"])
    return {"speeds": SPEEDS, "chordwise": omega[:, 0], "second": omega[:, 1], "n_elem": n}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    ref = np.sqrt(FLAPWISE**2 - SPEEDS**2)
    for mu, w, r in zip(SPEEDS, out["chordwise"], ref):
        print(f"Omega = {mu:4.1f}: chordwise {w:.4f}   inextensible reference {r:.4f}   ({w / r - 1:+.2%})")
    fig, ax = plt.subplots()
    ax.plot(SPEEDS, out["chordwise"], "o-", label="NonlinearFloatingBeam, mode 1")
    ax.plot(SPEEDS, ref, "k+", ms=10, label=r"$\sqrt{\omega_f^2 - \Omega^2}$ (Wright et al.)")
    ax.plot(SPEEDS, np.full(len(SPEEDS), FLAPWISE[0]), ":", color="gray", label="at rest (no stiffening)")
    ax.set_xlabel(r"hub rate $\Omega$")
    ax.set_ylabel(r"frequency $\omega$")
    ax.legend(loc="upper left")

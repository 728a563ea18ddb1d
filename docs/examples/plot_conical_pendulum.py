"""
Conical pendulum: relative equilibrium of a rotating assembly and its Campbell diagram
======================================================================================

A vertical shaft driven at the rate Omega about z carries a uniform rod
(length L = 0.4965 m) on a horizontal hinge at its top, under gravity along
-z.  Turning with the shaft, the rod stands still at the angle theta from the
vertical: a *relative equilibrium*, found by
:func:`phmech.solvers.static.relative_equilibrium` (Newton on the equations
of the motion turning rigidly with the assembly).  The balance of the
centrifugal and the gravity moments about the hinge gives

.. math:: \\cos\\theta = \\frac{3 g}{2 L \\Omega^2}
          \\quad (\\Omega^2 > 3 g / 2 L),

and the small swing about it, relative to the turning shaft
(:func:`phmech.solvers.static.relative_modes`), has the frequency

.. math:: \\omega = \\Omega \\sin\\theta

(both from the rod's equation of motion in the rotating frame,
``(m L^2/3) theta'' = (m L^2/3) Omega^2 sin(theta) cos(theta) - m g (L/2) sin(theta)``;
e.g. Den Hartog, *Mechanics*, sec. on the governor).  Below the critical rate
``sqrt(3 g / 2 L)`` the hanging rod is the only branch; the sweep below
starts above it and continues in the speed.
"""
import numpy as np

from phmech import SpatialRigidBody, System
from phmech.joints import SpatialJoint
from phmech.solvers.static import relative_equilibrium, relative_modes

G = 9.81
TIP = (0.28, 0.0, -0.41)                      # the rod's free end, hinged at the origin
L = float(np.hypot(TIP[0], TIP[2]))


def assembly(rate):
    """The shaft driven at ``rate`` about z with the rod hinged at its top."""
    shaft = SpatialRigidBody("shaft", 2.0, np.diag([0.05, 0.05, 0.02]))
    arm = SpatialRigidBody.bar("arm", 1.2, (0, 0, 0), TIP)
    s = System([shaft, arm])
    s.add_joint(SpatialJoint("revolute", shaft.port("P"), None, axis=(0, 0, 1), rate=-rate, name="drive"))
    s.add_joint(SpatialJoint("revolute", shaft.port("P"), arm.port("A"), axis=(0, 1, 0), name="hinge"))
    s.add_gravity((0, 0, -G))
    return s, arm


def run(quick=True):
    """``theta`` and ``omega`` (rad, rad/s) at each rate of ``rates`` (rad/s) of the sweep."""
    rates = np.linspace(8.0, 14.0, 4 if quick else 13)
    theta, omega, q0 = [], [], None
    for rate in rates:
        s, arm = assembly(rate)
        dae = s.assemble()
        y = relative_equilibrium(dae, (0, 0, 1), rate, q0=q0)
        q0 = y[:dae.nq]                                            # continuation in the speed
        tip = arm.rotation(y[dae.q_slices["arm"]])[:, 0]                # the bar's axis (body x)
        theta.append(float(np.arccos(-tip[2])))
        omega.append(float(relative_modes(dae, y, (0, 0, 1), rate, k=1).omega[0]))
    return {"rates": rates, "theta": np.array(theta), "omega": np.array(omega)}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    rates = out["rates"]
    exact_theta = np.arccos(3 * G / (2 * L * rates**2))
    print(f"max |theta - arccos(3 g / (2 L Omega^2))| = {np.max(np.abs(out['theta'] - exact_theta)):.2e} rad")
    print(f"max |omega - Omega sin(theta)| = {np.max(np.abs(out['omega'] - rates * np.sin(exact_theta))):.2e} rad/s")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
    ax1.plot(rates, np.degrees(out["theta"]), "o", label="relative_equilibrium")
    ax1.plot(rates, np.degrees(exact_theta), "k-", lw=1, label=r"$\arccos(3g/2L\Omega^2)$")
    ax1.set_xlabel(r"shaft rate $\Omega$ [rad/s]")
    ax1.set_ylabel(r"rod angle $\theta$ [deg]")
    ax1.legend(loc="lower right")
    ax2.plot(rates, out["omega"], "o", label="relative_modes")
    ax2.plot(rates, rates * np.sin(exact_theta), "k-", lw=1, label=r"$\Omega\sin\theta$")
    ax2.plot(rates, rates, ":", color="gray", label=r"$\omega = \Omega$")
    ax2.set_xlabel(r"shaft rate $\Omega$ [rad/s]")
    ax2.set_ylabel(r"swing frequency $\omega$ [rad/s]")
    ax2.set_title("Campbell diagram")
    ax2.legend(loc="upper left")
    fig.tight_layout()

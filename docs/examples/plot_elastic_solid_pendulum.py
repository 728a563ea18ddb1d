"""
A 3D elastic solid: a steel arm swinging on a hinge
===================================================

A steel bar 0.4 m x 0.05 m x 0.05 m (rho = 7800 kg/m^3, E = 200 GPa,
nu = 0.3) as a :class:`phmech.fem.ElasticSolid`: linear elastodynamics in
velocity-stress form (CG2 velocity, symmetric DG1 stress on tetrahedra)
written as a :class:`~phmech.fem.FormBody`, in a floating frame clamped to
its face ``x = 0``.  A rigid-interface port on that face
(``add_face_port``: the face's mean velocity and rotation rate) carries a
revolute joint about z, and gravity acts along -y.

The arm is stiff: its elastic modes are some 10^4 times faster than the
swing, so the swing is the compound pendulum's,

.. math:: \\omega^2 = \\frac{m g d}{I_O}, \\qquad d = \\frac{L}{2}, \\quad
          I_O = m\\left(\\frac{L^2}{3} + \\frac{a^2}{12}\\right),

``omega = 6.053 rad/s``.  :meth:`~phmech.System.linearize` finds the hanging
equilibrium (the small static sag included) and the modes about it; the
lowest is the swing, the next ones the arm's bending.
"""
import numpy as np

from phmech import System

NEEDS_FIREDRAKE = True
LENGTH, SIDE, RHO, E, NU, G = 0.4, 0.05, 7800.0, 2e11, 0.3, 9.81


def arm_on_hinge(m=1):
    """The arm hanging from its hinge (mesh of 4m x m x m boxes, six tetrahedra each)."""
    import firedrake as fd
    from phmech.fem import ElasticSolid
    from phmech.joints.spatial import Revolute3

    mesh = fd.BoxMesh(4 * m, m, m, LENGTH, SIDE, SIDE)             # markers 1 (x = 0) ... 6 (z = c)
    arm = ElasticSolid("arm", mesh, RHO, E, NU, floating=True, reference=("clamped", 1),
                       orientation=(np.cos(-np.pi / 4), 0.0, 0.0, np.sin(-np.pi / 4)))   # along -y
    pin = arm.add_face_port("pin", 1)
    s = System([arm])
    s.add_joint(Revolute3(pin, None, axis=(0.0, 0.0, 1.0), name="hinge"))
    s.add_gravity((0.0, -G, 0.0))
    return s, arm


def run(quick=True):
    """``omega``: the lowest frequencies about the hanging equilibrium (rad/s); ``mass``."""
    s, arm = arm_on_hinge(1 if quick else 2)
    modes = s.linearize().eigenmodes(k=3, method="dense")
    return {"omega": np.sort(modes.omega), "mass": float(arm.mass)}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run()
    m = RHO * LENGTH * SIDE**2
    w = np.sqrt(m * G * LENGTH / 2 / (m * (LENGTH**2 / 3 + SIDE**2 / 12)))
    print(f"mass {out['mass']:.4f} kg; swing omega = {out['omega'][0]:.5f} rad/s "
          f"(compound pendulum {w:.5f} rad/s); next: {np.array2string(out['omega'][1:], precision=0)} rad/s")
    fig, ax = plt.subplots()
    ax.semilogy(range(1, len(out["omega"]) + 1), out["omega"], "o", label="ElasticSolid on its hinge")
    ax.axhline(w, color="k", ls="--", lw=1, label="compound pendulum")
    ax.set_xlabel("mode")
    ax.set_ylabel(r"$\omega$ [rad/s]")
    ax.legend(loc="lower right")

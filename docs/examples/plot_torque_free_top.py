"""
A torque-free symmetric body: precession of the angular velocity
================================================================

A free spatial rigid body with the principal inertias
``I_1 = I_2 = 0.2`` and ``I_3 = 0.5 kg m^2`` is spun at ``omega_3 = 10 rad/s``
about its symmetry axis with a small wobble ``omega_1 = 0.5 rad/s``.  Euler's
equations without a torque give, in the body frame, a rotation of the
transverse angular velocity about the symmetry axis at the constant rate

.. math:: \\lambda = \\frac{I_3 - I_1}{I_1}\\,\\omega_3 = 15\\ \\mathrm{rad/s},
          \\qquad \\omega_1 + i\\omega_2 \\propto e^{i\\lambda t}

(Landau & Lifshitz, *Mechanics*, sec. 36; Goldstein, *Classical Mechanics*,
sec. 5.6).  The spatial body is described by quaternions; its efforts are the
body-frame velocity and angular velocity, so ``res.e(body)[:, 3:]`` is the
body-frame angular velocity.  The midpoint rule keeps the kinetic energy and
the angular momentum's length; the precession rate carries its O(dt^2)
phase error.
"""
import numpy as np

from phmech import SpatialRigidBody, System

I1, I3, W1, W3 = 0.2, 0.5, 0.5, 10.0


def run(quick=True):
    """``rate``: the precession rate of ``(omega_1, omega_2)`` in the body frame (rad/s)."""
    top = SpatialRigidBody("top", 1.0, np.diag([I1, I1, I3]), angular_velocity=(W1, 0.0, W3))
    s = System([top])
    dt = 2e-3 if quick else 5e-4
    res = s.simulate(2.0, dt=dt)
    w = res.e(top)[:, 3:6]
    phase = np.unwrap(np.arctan2(w[:, 1], w[:, 0]))
    rate = np.polyfit(res.t, phase, 1)[0]
    H = res.hamiltonian()
    return {"rate": float(rate), "energy_drift": float(np.max(np.abs(H - H[0])) / H[0]), "t": res.t, "w": w}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    print(f"precession rate {out['rate']:.6f} rad/s, (I3 - I1) / I1 * omega3 = {(I3 - I1) / I1 * W3:.6f} rad/s")
    print(f"kinetic energy kept to {out['energy_drift']:.1e} (relative)")
    fig, ax = plt.subplots()
    for k, name in enumerate((r"$\omega_1$", r"$\omega_2$")):
        ax.plot(out["t"], out["w"][:, k], label=name)
    ax.set_xlabel("t [s]")
    ax.set_ylabel("body-frame angular velocity [rad/s]")
    ax.legend(loc="upper right")

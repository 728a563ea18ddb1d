"""
Initial velocities: a pendulum kicked from rest and a thrown point mass
=======================================================================

Initial motions are given per body in inertial components, with the
bodies' ``velocity=`` / ``angular_velocity=`` or with
``System.simulate(..., velocities={body: ...})``; phmech projects them onto
the joints (``dae.projection_report`` names what changed).

* A uniform rod (L = 0.6 m) hanging from a pin gets the angular velocity
  ``omega_0 = 5 rad/s``.  Energy conservation,
  ``(1/2)(m L^2/3) omega_0^2 = m g (L/2)(1 - cos theta_max)``, gives the
  highest angle of the swing,

  .. math:: \\cos\\theta_{max} = 1 - \\frac{\\omega_0^2 L}{3 g};

  the implicit midpoint rule keeps the energy to O(dt^2) (1e-3 s here),
  and the output sampling near the turning point adds a few 1e-6 rad.
* A point mass thrown at 8 m/s at 40 deg above the horizontal under gravity
  lands at the range ``v^2 sin(2 alpha) / g``: the midpoint rule integrates
  the constant acceleration exactly, so the trajectory is the parabola to
  round-off.
"""
import numpy as np

from phmech import PlanarRigidBody, PointMass, System
from phmech.joints import Revolute

G, L, W0 = 9.81, 0.6, 5.0
V, ALPHA = 8.0, np.radians(40.0)


def run(quick=True):
    """``theta_max`` (rad) of the kicked pendulum and ``range`` (m) of the throw."""
    rod = PlanarRigidBody.rod("rod", 1.0, L, angle=-np.pi / 2)
    pend = System([rod])
    pend.add_joint(Revolute(rod.port("A"), None, name="pin"))
    pend.add_gravity((0.0, -G))
    res = pend.simulate(1.0, dt=1e-3, dt_out=1e-3 if quick else 2.5e-4,
                        velocities={rod: {"angular_velocity": W0}})
    angle = res.q(rod)[:, 2] + np.pi / 2
    ball = PointMass("ball", 0.2, position=(0.0, 0.0), velocity=(V * np.cos(ALPHA), V * np.sin(ALPHA)))
    throw = System([ball])
    throw.add_gravity((0.0, -G))
    t_flight = 2 * V * np.sin(ALPHA) / G
    res2 = throw.simulate(t_flight, dt=t_flight / 50)
    return {"theta_max": float(angle.max()), "range": float(res2.q(ball)[-1, 0]),
            "height_end": float(res2.q(ball)[-1, 1]), "t": res.t, "angle": angle, "path": res2.q(ball)}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    print(f"theta_max = {out['theta_max']:.6f} rad, arccos(1 - w0^2 L / 3 g) = "
          f"{np.arccos(1 - W0**2 * L / (3 * G)):.6f} rad")
    print(f"range = {out['range']:.12f} m, v^2 sin(2 alpha) / g = {V**2 * np.sin(2 * ALPHA) / G:.12f} m "
          f"(end height {out['height_end']:.1e} m)")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
    ax1.plot(out["t"], np.degrees(out["angle"]))
    ax1.axhline(np.degrees(np.arccos(1 - W0**2 * L / (3 * G))), color="k", ls="--", lw=1)
    ax1.set_xlabel("t [s]")
    ax1.set_ylabel("rod angle from hanging [deg]")
    ax2.plot(out["path"][:, 0], out["path"][:, 1], "o-", ms=2)
    ax2.set_xlabel("x [m]")
    ax2.set_ylabel("y [m]")
    ax2.set_aspect("equal")
    fig.tight_layout()

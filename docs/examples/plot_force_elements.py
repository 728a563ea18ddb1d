"""
Force elements: springs, a torsional spring and a bushing
=========================================================

Three small systems in one model, without gravity, each with a closed-form
frequency about its unloaded configuration:

* a uniform rod (m = 0.8 kg, L = 0.5 m) pinned at one end, held by a
  torsional spring ``k_t = 3 N m/rad`` on the pin
  (:meth:`~phmech.System.add_torsional_spring`; its rest angle is the initial
  one) and by a point-to-point spring ``k = 40 N/m`` from its tip to a ground
  point straight across (:meth:`~phmech.System.add_spring`):
  ``omega^2 = (k_t + k L^2) / (m L^2 / 3)``;
* a point mass (0.5 kg) between two ground points by two springs of
  ``k = 25 N/m`` pulled to 1.5 times their rest length (tension ``T``): along
  the line ``omega^2 = 2 k / m``, across it the strings' ``omega^2 = 2 T / (m a)``
  (``a`` the spring length);
* a disc (m = 2 kg, J = 0.01 kg m^2) on a bushing to the ground
  (:meth:`~phmech.System.add_bushing`, stiffness diag(200, 200, 0.5)):
  ``omega^2 = 200 / 2`` twice and ``0.5 / 0.01`` in rotation.

:meth:`~phmech.System.linearize` takes the springs' exact tangent stiffness
(with the preload's geometric part), so all six frequencies are exact to
round-off; a run with the midpoint rule conserves the springs' energy.
"""
import numpy as np

from phmech import PlanarRigidBody, PointMass, System
from phmech.joints import Revolute

M_ROD, L_ROD, K_T, K_TIP = 0.8, 0.5, 3.0, 40.0
M_PT, K_PT, A_REST, STRETCH = 0.5, 25.0, 0.2, 1.5
M_DISC, J_DISC, K_BUSH = 2.0, 0.01, (200.0, 200.0, 0.5)


def model():
    """The three systems in one :class:`~phmech.System`."""
    rod = PlanarRigidBody.rod("rod", M_ROD, L_ROD, position=(0.0, 0.0))
    point = PointMass("point", M_PT, position=(0.0, 1.0))
    disc = PlanarRigidBody("disc", M_DISC, J_DISC, position=(2.0, 0.0))
    s = System([rod, point, disc])
    pin = s.add_joint(Revolute(rod.port("A"), None, name="pin"))
    s.add_torsional_spring(pin, K_T)
    s.add_spring(rod.port("B"), None, stiffness=K_TIP, rest_length=1.0, at=(L_ROD, -1.0))   # across the tip
    a = STRETCH * A_REST
    s.add_spring(point.port("P"), None, stiffness=K_PT, rest_length=A_REST, at=(-a, 1.0))
    s.add_spring(point.port("P"), None, stiffness=K_PT, rest_length=A_REST, at=(a, 1.0))
    s.add_bushing(disc.port("P"), None, stiffness=np.diag(K_BUSH))
    return s


def exact():
    """The six frequencies in closed form, sorted."""
    a = STRETCH * A_REST
    T = K_PT * (a - A_REST)
    w2 = [(K_T + K_TIP * L_ROD**2) / (M_ROD * L_ROD**2 / 3), 2 * K_PT / M_PT, 2 * T / (M_PT * a),
          K_BUSH[0] / M_DISC, K_BUSH[1] / M_DISC, K_BUSH[2] / J_DISC]
    return np.sort(np.sqrt(w2))


def run(quick=True):
    """``omega``: the six frequencies of the linearization (rad/s), sorted; ``energy_drift``:
    the largest relative change of the energy in a short midpoint run."""
    s = model()
    omega = np.sort(s.linearize().eigenmodes(k=6).omega)
    dae = s.assemble()
    y0 = dae.initial_state()
    y0[dae.nq:][dae.e_slices["disc"]] = [0.1, 0.0, 0.5]             # set the disc moving
    res = s.simulate(0.5 if quick else 2.0, y0=y0, dt=1e-3)
    H = res.hamiltonian() + dae.potential_energy(res.y)
    return {"omega": omega, "energy_drift": float(np.max(np.abs(H - H[0])) / H[0]), "t": res.t,
            "disc": res.q("disc")}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    for w, w_ex in zip(out["omega"], exact()):
        print(f"omega = {w:10.6f} rad/s   closed form {w_ex:10.6f} rad/s")
    print(f"midpoint run: energy kept to {out['energy_drift']:.1e} (relative)")
    fig, ax = plt.subplots()
    ax.plot(out["t"], out["disc"][:, 0] - 2.0, label="disc x - x0 [m]")
    ax.plot(out["t"], out["disc"][:, 2], label="disc angle [rad]")
    ax.set_xlabel("t [s]")
    ax.legend(loc="upper right")

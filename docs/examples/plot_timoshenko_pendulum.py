"""
A pH PDE of one's own: a Timoshenko beam, alone and as a pendulum with a tip body
==================================================================================

A Timoshenko beam written as port-Hamiltonian weak forms and given to
:class:`phmech.fem.FormBody`: transverse velocity ``v`` and rotation rate ``w``
of the sections in P1, shear force ``Q`` and bending moment ``M`` in DG0
(and, in the floating frame, the axial pair ``u``, ``N``),

.. math::

    m(e, \\delta e) &= \\int \\rho A\\, v\\,\\delta v + \\rho I\\, w\\,\\delta w
                      + \\frac{Q\\,\\delta Q}{\\kappa G A} + \\frac{M\\,\\delta M}{E I}, \\\\
    j(e, \\delta e) &= \\int -Q\\,\\delta v' - M\\,\\delta w' + Q\\,\\delta w
                      + (v' - w)\\,\\delta Q + w'\\,\\delta M .

Simply supported and fixed in space (``v = 0`` at both ends; ``M = 0`` is natural), the
frequencies of mode ``n`` (``k = n pi / L``) are the lower roots of

.. math:: (\\kappa G A k^2 - \\rho A \\omega^2)(E I k^2 + \\kappa G A - \\rho I \\omega^2) = (\\kappa G A k)^2

(Timoshenko's beam, e.g. Han, Benaroya & Wei, J. Sound Vib. 225 (1999) 935-988): a thick
steel beam (``L/h = 5``) lies 6 % and 20 % below Euler-Bernoulli in its first two modes, and
the P1/DG0 pair (shear and bending in DG0: no locking) converges at second order
(32 elements: 1.1e-3 and 3.8e-3 relative).

In a floating frame the same forms make a pendulum: the rotation rate ``w`` is the sections'
angular velocity relative to the frame (``spin=[(field, None, rho I)]``: its rigid part is the
frame's rotation, its rotary inertia counts in the frame's), the beam clamped to its frame at
``x = 0``, pinned there to the ground, a rigid body welded to its tip.  The pendulum's swing
under gravity keeps the midpoint rule's exact power balance, and hanging at rest it swings at the
frequency of the same pendulum made rigid (the sections' rotary inertia ``rho I L`` counted; the
beam's compliance lowers it by 5e-7).
"""
import numpy as np

from phmech import PointMass, System
from phmech.joints import Revolute

NEEDS_FIREDRAKE = True
L, H, B = 0.5, 0.1, 0.05                     # length, depth, width [m]
RHO, E, NU, KAPPA = 7800.0, 2.1e11, 0.3, 5.0 / 6.0
A, I = B * H, B * H ** 3 / 12
G = E / (2 * (1 + NU))


def exact_omega(n):
    """The lower root of the simply supported Timoshenko frequency equation for mode ``n``."""
    k, kga = n * np.pi / L, KAPPA * G * A
    a, b, c = RHO * A * RHO * I, -(RHO * A * (E * I * k ** 2 + kga) + RHO * I * kga * k ** 2), kga * k ** 2 * E * I * k ** 2
    return np.sqrt((-b - np.sqrt(b * b - 4 * a * c)) / (2 * a))


def timoshenko_forms(axial=False):
    """``(m, j)`` of the Timoshenko beam; ``axial`` puts the rod's pair ``(u, N)`` first."""
    import firedrake as fd

    def split(e):
        return e if axial else (None, e[0], e[1], None, e[2], e[3])

    def m(e, de):
        (u, v, w, N, Q, M), (du, dv, dw, dN, dQ, dM) = split(e), split(de)
        form = RHO * A * v * dv + RHO * I * w * dw + Q * dQ / (KAPPA * G * A) + M * dM / (E * I)
        return (form + (RHO * A * u * du + N * dN / (E * A) if axial else 0)) * fd.dx

    def j(e, de):
        (u, v, w, N, Q, M), (du, dv, dw, dN, dQ, dM) = split(e), split(de)
        form = -Q * dv.dx(0) - M * dw.dx(0) + Q * dw + (v.dx(0) - w) * dQ + w.dx(0) * dM
        return (form + (-N * du.dx(0) + u.dx(0) * dN if axial else 0)) * fd.dx
    return m, j


def simply_supported(n):
    """The beam fixed in space, ``v = 0`` at both ends (markers 1, 2 of the interval mesh)."""
    import firedrake as fd
    from phmech.fem import FormBody
    mesh = fd.IntervalMesh(n, L)
    P1, D0 = fd.FunctionSpace(mesh, "CG", 1), fd.FunctionSpace(mesh, "DG", 0)
    m, j = timoshenko_forms()
    return FormBody("beam", P1 * P1 * D0 * D0, m, j, fixed=[(0, 1), (0, 2)], velocity=(0, 1), dim=2)


def pendulum(n=8, tip_mass=20.0, angle=-np.pi / 3):
    """The floating beam pinned at ``x = 0`` at ``angle`` to the x axis, a point mass welded to its
    tip, under gravity."""
    import firedrake as fd
    from phmech.fem import FormBody
    mesh = fd.IntervalMesh(n, L)
    P1, D0 = fd.FunctionSpace(mesh, "CG", 1), fd.FunctionSpace(mesh, "DG", 0)
    m, j = timoshenko_forms(axial=True)
    beam = FormBody("beam", P1 * P1 * P1 * D0 * D0 * D0, m, j, fixed=[(0, 1), (1, 1), (2, 1)], velocity=(0, 1),
                    dim=2, floating=True, density=RHO * A, spin=[(2, None, RHO * I)], orientation=angle)
    beam.add_frame_port("A", (0.0, 0.0))
    ds = fd.ds(2)
    beam.add_form_port("tip", [lambda de: de[0] * ds, lambda de: de[1] * ds], [lambda de: de[2] * ds],
                       position=(L, 0.0))
    tip = PointMass("tip", tip_mass, (L * np.cos(angle), L * np.sin(angle)))
    s = System([beam, tip])
    s.pin(beam.port("A"), name="pivot")
    s.add_joint(Revolute(beam.port("tip"), tip.port("P"), name="weld"))
    s.add_gravity((0.0, -9.81))
    return s, beam


def rigid_pendulum_omega(tip_mass=20.0, g=9.81):
    """The small-swing frequency of the same pendulum made rigid: ``I = rho A L^3 / 3 + rho I L + M L^2``
    about the pivot (the sections' rotary inertia included), ``sqrt(g (rho A L^2 / 2 + M L) / I)``."""
    inertia = RHO * A * L ** 3 / 3 + RHO * I * L + tip_mass * L ** 2
    return np.sqrt(g * (RHO * A * L ** 2 / 2 + tip_mass * L) / inertia)


def run(quick=True):
    """The simply supported frequencies on 8, 16, 32 elements (and 64), a pendulum's swing and its
    linearized frequency hanging at rest."""
    ns = [8, 16, 32] if quick else [8, 16, 32, 64]
    omega = np.array([simply_supported(n).natural_frequencies(2)[0] for n in ns])
    s, beam = pendulum(4 if quick else 8)
    res = s.simulate(0.3 if quick else 1.0, solver="midpoint", dt=1e-3)
    H = res.hamiltonian()
    hanging, _ = pendulum(4, angle=-np.pi / 2)
    swing = float(hanging.linearize().eigenmodes(1).omega[0])
    return {"n": ns, "omega": omega, "exact": np.array([exact_omega(1), exact_omega(2)]), "swing": swing,
            "balance": float(np.max(np.abs(res.energy_balance()))), "energy": float(np.max(np.abs(H))),
            "result": res}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    err = np.abs(out["omega"] / out["exact"] - 1.0)
    for n, om, e in zip(out["n"], out["omega"], err):
        print(f"{n:3d} elements: omega = {om[0]:.4f}, {om[1]:.4f} rad/s (errors {e[0]:.1e}, {e[1]:.1e})")
    print("exact (Timoshenko):", np.array2string(out["exact"], precision=4),
          "; observed orders:", np.array2string(np.log2(err[:-1] / err[1:]), precision=2))
    print(f"pendulum: energy balance {out['balance']:.2e} J of {out['energy']:.2e} J; swing "
          f"{out['swing']:.6f} rad/s, rigid {rigid_pendulum_omega():.6f} rad/s")
    fig, ax = plt.subplots()
    res = out["result"]
    ax.plot(res.t, res.energy_balance())
    ax.set_xlabel("time [s]")
    ax.set_ylabel("H - H0 - W [J]")

"""
A body from its weak forms: an axial rod with a tip mass
========================================================

:class:`phmech.fem.FormBody` makes a flexible body of any port-Hamiltonian
weak forms on a Firedrake space of co-energy variables.  Here: an axial rod
(length 2 m, ``rho A = 3 kg/m``, ``EA = 1200 N``) in velocity--force form,

.. math:: m(e, \\delta e) = \\int \\rho A\\, v\\,\\delta v + \\frac{N\\,\\delta N}{EA}\\,dx, \\qquad
          j(e, \\delta e) = \\int -N\\,\\delta v' + v'\\,\\delta N\\,dx,

fixed at ``x = 0`` (``v = 0``), with a port at ``x = L`` welded to a point mass
``M = 1.5 kg``.  The fundamental frequency of the rod with a tip mass solves

.. math:: \\beta L \\tan(\\beta L) = \\frac{\\rho A L}{M} = 4, \\qquad
          \\omega = \\beta\\sqrt{EA / \\rho A}

(Blevins, *Formulas for Natural Frequency and Mode Shape*, table 12-2,
longitudinal bar with a tip mass): ``omega = 12.6464 rad/s``; the P1/DG0 pair
converges at second order (32 elements: 1e-4 relative).
"""
import numpy as np
from scipy.optimize import brentq

from phmech import PointMass, System
from phmech.joints import Revolute

NEEDS_FIREDRAKE = True
L, RHOA, EA, M_TIP = 2.0, 3.0, 1200.0, 1.5


def exact_omega():
    """The root of beta L tan(beta L) = rho A L / M in (0, pi/2), as omega."""
    x = brentq(lambda x: x * np.tan(x) - RHOA * L / M_TIP, 1e-9, np.pi / 2 - 1e-9)
    return x / L * np.sqrt(EA / RHOA)


def rod(n=32):
    """The rod as a :class:`~phmech.fem.FormBody` with its port ``tip`` at x = L."""
    import firedrake as fd
    from phmech.fem import FormBody

    mesh = fd.IntervalMesh(n, L)                                     # markers 1 (x = 0), 2 (x = L)
    W = fd.FunctionSpace(mesh, "CG", 1) * fd.FunctionSpace(mesh, "DG", 0)   # velocity, axial force
    m = lambda e, de: (RHOA * e[0] * de[0] + e[1] * de[1] / EA) * fd.dx
    j = lambda e, de: (-e[1] * de[0].dx(0) + e[0].dx(0) * de[1]) * fd.dx
    body = FormBody("rod", W, m, j, fixed=[(0, 1)], dim=2)           # v = 0 at x = 0
    body.add_form_port("tip", [lambda de: de[0] * fd.ds(2), None], position=(L, 0.0))
    return body


def with_tip(body):
    """``body`` welded at its port ``tip`` to the point mass."""
    tip = PointMass("tip", M_TIP, (L, 0.0))
    s = System([body, tip])
    s.add_joint(Revolute(body.port("tip"), tip.port("P"), name="weld"))
    return s


def run(quick=True):
    """``omega``: the fundamental frequency (rad/s) for 16 and 32 elements (64 with ``quick=False``)."""
    ns = [16, 32] if quick else [16, 32, 64]
    omega = [float(with_tip(rod(n)).linearize().eigenmodes(k=1).omega[0]) for n in ns]
    return {"n": ns, "omega": np.array(omega)}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    w = exact_omega()
    err = np.abs(out["omega"] - w) / w
    for n, om, e in zip(out["n"], out["omega"], err):
        print(f"{n:3d} elements: omega = {om:.6f} rad/s  (beta L tan beta L = 4: {w:.6f}; {e:.1e})")
    print("observed orders:", np.array2string(np.log2(err[:-1] / err[1:]), precision=2))
    fig, ax = plt.subplots()
    ax.loglog(out["n"], err, "o-", label="FormBody rod + tip mass")
    ax.loglog(out["n"], err[0] * (np.array(out["n"]) / out["n"][0]) ** -2.0, "k--", lw=1, label="slope -2")
    ax.set_xlabel("elements")
    ax.set_ylabel("relative error of the fundamental frequency")
    ax.legend(loc="upper right")

"""
Large deflections: the cantilever of the elastica with the geometrically exact beam
===================================================================================

A cantilever of length ``L`` and bending stiffness ``EI`` under a dead vertical tip force
``P = alpha EI / L^2`` bends far beyond the range of a linear curvature: at ``alpha = 10`` its
tip drops by ``w = 0.81061 L`` and turns by 82 degrees (the inextensible elastica, Bisshopp &
Drucker 1945; the table of Mattiasson 1981).  :class:`phmech.fem.GeometricallyExactBeam`
(nodal positions and unit directors, the exact strains of Reissner's beam theory) is clamped
with a weld, loaded at its tip and solved by :func:`phmech.solvers.static.equilibrium` with load
stepping.  With a stiff section (``EA = k G A / 0.32 = 1e6 EI / L^2``) the beam is nearly
inextensible and shear-rigid: on 16 quadratic elements the tip is within 1e-4 L of the
published values at the four loads.

The full table, the observed order 4 and the roll-up into a circle:
``python -m phmech.validation.elastica``.
"""
import numpy as np

from phmech import System
from phmech.solvers.static import equilibrium

NEEDS_FIREDRAKE = True
#: Mattiasson (1981): w / L at alpha = P L^2 / EI
PUBLISHED = {1.0: 0.30172, 2.0: 0.49346, 5.0: 0.71379, 10.0: 0.81061}


def cantilever(alpha, n_elem=16):
    """The clamped unit cantilever (``EI = 1``, ``EA = 1e6``) under ``P = alpha``; returns the nodes."""
    from phmech.fem import GeometricallyExactBeam
    beam = GeometricallyExactBeam("beam", 1.0, n_elem, rho=1.0, A=1.0, E=1e6, I=1e-6)
    s = System([beam])
    s.clamp(beam.port("A"))
    s.apply_force(beam.port("B"), (0.0, -alpha))
    dae = s.assemble()
    q = equilibrium(dae, load_steps=4)[dae.sq]
    return beam.nodes(q)[0]


def run(quick=True):
    """The tip deflections at the four loads (8 elements when ``quick``, else 16)."""
    n = 8 if quick else 16
    nodes = {a: cantilever(a, n) for a in PUBLISHED}
    return {"n_elem": n, "nodes": nodes, "w": {a: -x[-1, 1] for a, x in nodes.items()}}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    fig, ax = plt.subplots()
    for a, x in out["nodes"].items():
        w = out["w"][a]
        print(f"alpha = {a:4g}: w/L = {w:.5f} (published {PUBLISHED[a]:.5f})")
        ax.plot(x[:, 0], x[:, 1], "o-", ms=3, label=f"alpha = {a:g}")
    ax.set_aspect("equal")
    ax.set_xlabel("x / L")
    ax.set_ylabel("y / L")
    ax.legend()
    plt.show()

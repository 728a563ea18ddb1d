"""
Plates: a simply supported square Kirchhoff plate against Navier's solution
===========================================================================

An aluminium plate (1 m x 1 m, h = 10 mm, rho = 2700 kg/m^3, E = 70 GPa,
nu = 0.3) simply supported on all four edges, discretized as a
:class:`phmech.fem.KirchhoffPlate` (CG2 velocity, HHJ1 bending moments in
Firedrake).  Navier's double sine series gives its frequencies in closed
form,

.. math:: \\lambda_{mn} = \\omega_{mn} a^2 \\sqrt{\\frac{\\rho h}{D}} = \\pi^2 (m^2 + n^2),
          \\qquad D = \\frac{E h^3}{12 (1 - \\nu^2)},

``lambda = 19.739, 49.348 (twice), 78.957`` for the four lowest (Leissa,
*Vibration of Plates*, NASA SP-160, 1969, sec. 4.1; the values of
``validation/plates/leissa.json``).  ``plate.natural_frequencies`` solves the
condensed pencil; the eigenvalue error of the HHJ element of degree k is
O(h^(2k)), fourth order here (``tests/fem/test_plates.py``).
"""
import numpy as np

NEEDS_FIREDRAKE = True
H, RHO, E, NU = 0.01, 2700.0, 70e9, 0.3


def run(quick=True):
    """``lam``: the four lowest frequency parameters ``omega a^2 sqrt(rho h / D)``."""
    import firedrake as fd
    from phmech.fem import KirchhoffPlate

    n = 8 if quick else 16
    plate = KirchhoffPlate("plate", fd.UnitSquareMesh(n, n), h=H, rho=RHO, E=E, nu=NU, degree=2,
                           boundary={m: "simply_supported" for m in (1, 2, 3, 4)})
    omega, _ = plate.natural_frequencies(4)
    return {"lam": np.sort(plate.lam(omega, 1.0)), "n": n}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    exact = np.pi**2 * np.array([2.0, 5.0, 5.0, 8.0])
    for k, (lam, ex) in enumerate(zip(out["lam"], exact)):
        print(f"mode {k + 1}: lambda = {lam:.4f}   Navier {ex:.4f}   ({lam / ex - 1:+.1e})")
    fig, ax = plt.subplots()
    ax.plot(range(1, 5), out["lam"], "o", label=f"KirchhoffPlate, {out['n']} x {out['n']} mesh")
    ax.plot(range(1, 5), exact, "k+", ms=10, label=r"$\pi^2 (m^2 + n^2)$")
    ax.set_xticks(range(1, 5))
    ax.set_xlabel("mode")
    ax.set_ylabel(r"$\lambda = \omega a^2 \sqrt{\rho h / D}$")
    ax.legend(loc="upper left")

"""Eigen study of any parameter in a few lines: a cantilever with a tip mass.

The first three bending frequencies of a clamped steel beam as the tip mass
grows; compare with the classical Rayleigh limit for a heavy tip mass,
omega_1 ~ sqrt(3 EI / (L^3 (m_tip + 0.24 m_beam))).

    python examples/eigen_sweep_tip_mass.py
"""
import numpy as np

from phmech import System
from phmech.fem import FloatingEulerBernoulliBeam
from phmech.solvers.eigen import sweep

L, d, rho, E = 0.3, 6e-3, 7870.0, 2e11
A, I = np.pi * d**2 / 4, np.pi * d**4 / 64


def cantilever(m_tip):
    beam = FloatingEulerBernoulliBeam("beam", L, 8, rho, A, E, I, frame="cantilever",
                                      point_masses=[(L, m_tip)] if m_tip > 0 else [])
    s = System([beam])
    s.clamp(beam.port("A"))
    return s.linearize()


def run(masses=(0.0, 0.01, 0.03, 0.1, 0.3)):
    """Frequencies (rad/s), shape (len(masses), 3), and the Rayleigh estimates of omega_1."""
    omega, _ = sweep(masses, cantilever, k=3)
    m_beam = rho * A * L
    rayleigh = np.sqrt(3 * E * I / (L**3 * (np.asarray(masses) + 0.24 * m_beam)))
    return omega, rayleigh


if __name__ == "__main__":
    masses = (0.0, 0.01, 0.03, 0.1, 0.3)
    omega, rayleigh = run(masses)
    for m, w, r in zip(masses, omega, rayleigh):
        print(f"m_tip = {m:5.3f} kg: omega = {w[0]:8.2f} {w[1]:9.2f} {w[2]:9.2f} rad/s "
              f"(Rayleigh estimate of omega_1: {r:8.2f})")

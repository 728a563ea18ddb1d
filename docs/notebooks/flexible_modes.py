# %% [markdown]
# # A flexible beam: eigen analysis and a free vibration
#
# A steel rod (L = 0.3 m, 6 mm round section) as a `FloatingEulerBernoulliBeam`:
# mixed finite elements in Firedrake (cubic Hermite transverse velocity, DG1
# bending moment), clamped at its end A.  Its linearization gives the bending
# modes, checked against the Euler-Bernoulli cantilever,
# $\omega_n = (\beta_n L)^2 \sqrt{EI / (\rho A L^4)}$ with $\cos\beta L \cosh\beta L = -1$
# ($\beta_n L$ = 1.875104, 4.694091, 7.854757; Blevins, *Formulas for Natural
# Frequency and Mode Shape*, table 8-1), and their convergence with the mesh.
# Then the rod, released from rest under gravity, vibrates about its static
# deflection; the implicit midpoint rule keeps the discrete power balance.
#
# Needs Firedrake (`source /opt/phmech/env.sh`).

# %%
import numpy as np
import matplotlib.pyplot as plt
from scipy.optimize import brentq

from phmech import System
from phmech.fem import FloatingEulerBernoulliBeam

RHO, E, D, L = 7870.0, 2e11, 6e-3, 0.3
A, I = np.pi * D**2 / 4, np.pi * D**4 / 64
f = lambda x: np.cos(x) * np.cosh(x) + 1.0
exact = np.array([brentq(f, (k + 0.3) * np.pi, (k + 0.7) * np.pi) for k in range(3)])
print("Euler-Bernoulli beta L:", np.round(exact, 6))

# %% [markdown]
# ## Modes against Euler-Bernoulli, four meshes

# %%
def cantilever(n_elem):
    beam = FloatingEulerBernoulliBeam("beam", L, n_elem, RHO, A, E, I, frame="cantilever")
    s = System([beam])
    s.clamp(beam.port("A"))
    return s, beam

meshes = [2, 4, 8, 16]
errors = []
for n in meshes:
    s, _ = cantilever(n)
    omega = np.sort(s.linearize().eigenmodes(k=3, method="dense").omega)
    beta_l = L * np.sqrt(omega * np.sqrt(RHO * A / (E * I)))
    errors.append(np.abs(beta_l / exact - 1))
    print(f"{n:2d} elements: beta L = {np.round(beta_l, 6)}")
errors = np.array(errors)
rates = np.log2(errors[:-1] / errors[1:])
print(f"mode 1 error at 16 elements = {errors[-1, 0]:.2e}")
print(f"mode 2 error at 16 elements = {errors[-1, 1]:.2e}")
print("observed orders (log2 ratios), mode 1:", np.round(rates[:, 0], 2))
print("observed orders (log2 ratios), mode 2:", np.round(rates[:, 1], 2))

# %%
fig, ax = plt.subplots(figsize=(5, 3.4))
for k in range(3):
    ax.loglog(meshes, errors[:, k], "o-", label=f"mode {k + 1}")
ax.loglog(meshes, errors[0, 0] * (np.array(meshes) / meshes[0]) ** -4.0, "k--", lw=1, label="slope -4")
ax.set(xlabel="elements", ylabel=r"relative error of $\beta L$", title="cantilever modes")
ax.legend()
fig.tight_layout()

# %% [markdown]
# ## Free vibration under gravity
#
# Released from rest, undeformed, the rod swings about its static deflection.
# The energy balance $H(t) - H(0) - W(t)$ (W the work of gravity through the
# ports) is exact for the midpoint rule up to its Newton tolerance.

# %%
s, beam = cantilever(8)
s.add_gravity((0.0, -9.81))
res = s.simulate(0.05, solver="midpoint", dt=5e-5)
H = res.hamiltonian()
balance = np.max(np.abs(res.energy_balance()))
print(f"steps: {res.stats['nsteps']}")
print(f"power balance:   max |H - H(0) - W| = {balance:.1e} J (H up to {H.max():.3e} J)")

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.4))
ax1.plot(res.t * 1e3, H * 1e3)
ax1.set(xlabel="t [ms]", ylabel="H [mJ]", title="stored energy (kinetic + elastic)")
ax2.plot(res.t * 1e3, res.energy_balance())
ax2.set(xlabel="t [ms]", ylabel="H - H(0) - W [J]", title="discrete power balance")
fig.suptitle("clamped rod released under gravity, 8 elements, dt = 0.05 ms")
fig.tight_layout()

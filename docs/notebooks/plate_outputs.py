# %% [markdown]
# # A plate: Navier's frequencies, a forced vibration, ParaView and the 3D viewer
#
# An aluminium plate (1 m x 1 m, h = 10 mm, rho = 2700 kg/m^3, E = 70 GPa,
# nu = 0.3) as a `KirchhoffPlate` (CG2 velocity, HHJ1 bending moments in
# Firedrake).  Simply supported, its frequency parameters are Navier's,
# $\lambda_{mn} = \omega_{mn} a^2 \sqrt{\rho h / D} = \pi^2 (m^2 + n^2)$
# (Leissa, *Vibration of Plates*, NASA SP-160, 1969, sec. 4.1).  Clamped and
# driven through a patch port, it is integrated with the midpoint rule and
# written for ParaView (`to_pvd`) and as a page for the browser (`to_html`,
# one offline file).
#
# Needs Firedrake (`source /opt/phmech/env.sh`).

# %%
import os

import numpy as np
import matplotlib.pyplot as plt
import firedrake as fd

from phmech import System
from phmech.fem import KirchhoffPlate

H_PLATE, RHO, E, NU = 0.01, 2700.0, 70e9, 0.3

# %% [markdown]
# ## Frequencies against Navier

# %%
plate = KirchhoffPlate("plate", fd.UnitSquareMesh(8, 8), h=H_PLATE, rho=RHO, E=E, nu=NU, degree=2,
                       boundary={m: "simply_supported" for m in (1, 2, 3, 4)})
omega, _ = plate.natural_frequencies(4)
lam = np.sort(plate.lam(omega, 1.0))
navier = np.pi**2 * np.array([2.0, 5.0, 5.0, 8.0])
for k in range(4):
    print(f"mode {k + 1}: lambda = {lam[k]:.4f}   Navier {navier[k]:.4f}")
print(f"largest relative error of lambda = {np.max(np.abs(lam / navier - 1)):.2e}")

# %% [markdown]
# ## A clamped plate driven through a patch port

# %%
clamped = KirchhoffPlate("plate", fd.UnitSquareMesh(6, 6), H_PLATE, RHO, E, NU, degree=2,
                         boundary={m: "clamped" for m in (1, 2, 3, 4)})
patch = clamped.add_patch_port("centre", (0.4, 0.6), 0.25)
s = System([clamped])
s.apply_force(patch, lambda t: (0.0, 0.0, 200.0 * np.sin(3e3 * t)))
res = s.simulate(4e-3, solver="midpoint", dt=1e-4)
Hs = res.hamiltonian()
print(f"steps: {res.stats['nsteps']}")
print(f"power balance:   max |H - H(0) - W| = {np.max(np.abs(res.energy_balance())):.1e} J "
      f"(H up to {Hs.max():.3e} J)")

# %%
os.makedirs("plate_output", exist_ok=True)
files = res.to_pvd("plate_output/plate.pvd", scale=2000.0)
page = res.to_html("plate_output/plate.html", scale=2000.0)
print(f"ParaView: {files[0]} with {len(files) - 1} frame files")
print(f"viewer page: {page} ({os.path.getsize(page) / 1e6:.1f} MB, offline)")

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.4))
ax1.plot(range(1, 5), lam, "o", label="KirchhoffPlate, 8 x 8")
ax1.plot(range(1, 5), navier, "k+", ms=10, label=r"$\pi^2 (m^2 + n^2)$")
ax1.set(xticks=range(1, 5), xlabel="mode", ylabel=r"$\lambda$", title="simply supported")
ax1.legend(loc="upper left")
ax2.plot(res.t * 1e3, Hs * 1e3)
ax2.set(xlabel="t [ms]", ylabel="H [mJ]", title="clamped, driven at 3000 rad/s")
fig.tight_layout()

"""
Outputs: ParaView series, an offline HTML viewer, CSV and pictures
==================================================================

A spatial double pendulum (two bars on a spherical joint to the ground and
a revolute joint between them) swings under gravity for 1 s.  The result
is written as

* a ParaView collection (:meth:`phmech.Result.to_pvd`): one ``.vtu`` file
  per kept output row, in a folder beside the ``.pvd`` (``every=`` thins
  them: ``ceil(rows / every)`` frames), with velocities and energies as
  point and cell data;
* one self-contained HTML page (:meth:`phmech.Result.to_html`: a three.js
  view with shaded bars, joints and ground, orbit and zoom, play/pause,
  speed and time slider; no network);
* a CSV table (:meth:`phmech.Result.to_csv`) of the time and the columns
  given (here a coordinate and the energy), headed by ``#`` lines of provenance.

The drawings come from one picture of each body
(:func:`phmech.io.paraview.trajectory_geometry`), drawn here with
matplotlib.  The check is the number of ParaView frames, and that the
midpoint rule's energy ``H + V`` is kept to its O(dt^2).
"""
import math
import os
import tempfile

import numpy as np

from phmech import SpatialRigidBody, System
from phmech.io.paraview import trajectory_geometry


def double_pendulum():
    """Two 0.5 m bars (3 cm square sections): a spherical joint at the top, a revolute one between them."""
    upper = SpatialRigidBody.bar("upper", 1.0, (0, 0, 0), (0.5, 0.0, 0.0), section=(0.03, 0.03))
    lower = SpatialRigidBody.bar("lower", 1.0, (0.5, 0.0, 0.0), (0.5, 0.0, 0.5), section=(0.03, 0.03))
    s = System([upper, lower])
    s.sphere(upper.port("A"))
    s.connect(upper.port("B"), lower.port("A"), "revolute", axis=(1.0, 0.0, 0.0))
    s.add_gravity((0.0, -9.81, 0.0))
    return s


def run(quick=True, folder=None, every=10):
    """``frames``: the ``.vtu`` files written (one per ``every`` output rows); ``rows``;
    ``energy_drift`` of the run; the paths written."""
    folder = folder or tempfile.mkdtemp(prefix="phmech_outputs_")
    s = double_pendulum()
    res = s.simulate(1.0, dt=2e-3 if quick else 5e-4, dt_out=1e-2)
    files = res.to_pvd(os.path.join(folder, "pendulum.pvd"), every=every)
    page = res.to_html(os.path.join(folder, "pendulum.html"))
    H = res.hamiltonian() + s.assemble().potential_energy(res.y)
    table = res.to_csv(os.path.join(folder, "pendulum.csv"), {"tip_x": res.q("lower")[:, 0], "energy": H})
    vtu = [f for f in files if str(f).endswith(".vtu")]
    return {"frames": len(vtu), "rows": len(res.t), "every": every, "files": files, "html": page, "csv": table,
            "energy_drift": float(np.max(np.abs(H - H[0]))), "result": res}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run()
    print(f"{out['frames']} ParaView frames for {out['rows']} rows every {out['every']} "
          f"(ceil = {math.ceil(out['rows'] / out['every'])}); the page: {os.path.basename(out['html'])}, "
          f"{os.path.getsize(out['html']) / 1e3:.0f} kB")
    print(f"max |H + V - (H + V)(0)| = {out['energy_drift']:.1e} J")
    times, names, frames = trajectory_geometry(out["result"], every=10)
    fig, ax = plt.subplots()
    for k, frame in enumerate(frames):
        for b, pts in enumerate(frame):
            ax.plot(pts[:, 0], pts[:, 1], "o-", color=f"C{b}", alpha=0.2 + 0.8 * k / len(frames))
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title("the pendulum every 0.1 s (projection on x-y)")

"""
Checkpoints and restart: a run continued equals the uninterrupted one
=====================================================================

A rigid crank-slider (crank 0.15 m driven at 150 rad/s, coupler 0.3 m,
block on a guide) is integrated with the implicit midpoint rule to 20 ms
while writing a checkpoint every 5 ms (``checkpoint=``,
``checkpoint_every=``: an HDF5 file written atomically, with the
trajectory, the solver state and the model's identity), then continued
from the checkpoint to 40 ms with ``restart=``.  The restarted run keeps the
step grid and the solver state, so it equals the run made in one piece bit
for bit: the largest difference of the states is exactly 0.
:meth:`phmech.Result.load` reads a file back (another model is refused,
naming what differs).
"""
import os
import tempfile

import numpy as np

from phmech import PlanarRigidBody, PointMass, Result, System


def crank_slider():
    """The rigid crank-slider of the README."""
    crank = PlanarRigidBody.rod("crank", 0.36, 0.15)
    rod = PlanarRigidBody.rod("rod", 0.15, 0.3, position=(0.15, 0.0))
    block = PointMass("block", 0.08, position=(0.45, 0.0))
    mech = System([crank, rod, block])
    mech.pin(crank.port("A"))
    mech.drive(crank, 150.0)
    mech.slide(block, (1.0, 0.0))
    mech.connect(crank.port("B"), rod.port("A"))
    mech.connect(rod.port("B"), block.port("P"))
    return mech


def run(quick=True, folder=None):
    """``difference``: the largest |y_restarted - y_whole| over the common output rows (exactly 0)."""
    folder = folder or tempfile.mkdtemp(prefix="phmech_restart_")
    path = os.path.join(folder, "run.h5")
    opts = dict(solver="midpoint", dt=1e-4, dt_out=1e-3)
    mech = crank_slider()
    first = mech.simulate(0.02, checkpoint=path, checkpoint_every=0.005, **opts)
    saved = Result.load(path, mech)                           # the file, checked against the model
    more = mech.simulate(0.04, restart=path, **opts)
    whole = crank_slider().simulate(0.04, **opts)
    rows = np.searchsorted(whole.t, more.t)
    return {"difference": float(np.max(np.abs(more.y - whole.y[rows]))), "saved_t_end": float(saved.t[-1]),
            "first": first, "more": more, "whole": whole}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run()
    print(f"checkpoint holds the run to t = {out['saved_t_end']:.3f} s")
    print(f"restarted run - uninterrupted run: max |dy| = {out['difference']:.1e}")
    fig, ax = plt.subplots()
    ax.plot(out["whole"].t * 1e3, out["whole"].q("block")[:, 0], "k-", lw=3, alpha=0.3, label="in one piece")
    ax.plot(out["first"].t * 1e3, out["first"].q("block")[:, 0], "C0--", label="first part (checkpointed)")
    ax.plot(out["more"].t * 1e3, out["more"].q("block")[:, 0], "C1:", lw=2, label="restarted")
    ax.set_xlabel("t [ms]")
    ax.set_ylabel("block x [m]")
    ax.legend(loc="lower left")

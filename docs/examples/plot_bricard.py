"""
Bricard's mechanism: an overconstrained spatial loop and the midpoint rule's order
==================================================================================

Benchmark A04 of the IFToMM library of computational multibody benchmarks
(Gonzalez, Dopico, Lugris & Cuadrado, *Multibody Syst. Dyn.* 16, 2006): five
uniform slender links (1 m, 1 kg) and six revolute joints, released from rest
under gravity along -y.  Grubler's count gives 0 degrees of freedom, the
mechanism has 1: one closure row is redundant; the assembly finds it
(``dae.redundant_rows``) and sets its multiplier to zero.

The implicit midpoint rule is of order 2: the error of the point P3
(initially (1, -1, 0)) at t = 0.5 s against a run with a quarter of the
finest step falls by 4 each time the step is halved, ``log2`` of the error
ratios is the observed order (2 up to the asymptotic range).  The full case
with its published trajectory is :mod:`phmech.validation.bricard`.
"""
import numpy as np

from phmech import SpatialRigidBody, System
from phmech.joints import Revolute3

JOINTS = [(0, 0, 0), (1, 0, 0), (1, -1, 0), (1, -1, 1), (0, -1, 1), (0, 0, 1)]
AXES = [(0, 1, 0), (0, 0, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 0)]


def bricard():
    """The five links, six revolute joints and gravity."""
    bars = [SpatialRigidBody.bar(f"link{i + 1}", 1.0, JOINTS[i], JOINTS[i + 1]) for i in range(5)]
    s = System(bars)
    s.add_joint(Revolute3(bars[0].port("A"), None, axis=AXES[0], name="J1"))
    for i in range(1, 5):
        s.add_joint(Revolute3(bars[i - 1].port("B"), bars[i].port("A"), axis=AXES[i], name=f"J{i + 1}"))
    s.add_joint(Revolute3(bars[4].port("B"), None, axis=AXES[5], name="J6"))
    s.add_gravity((0.0, -9.81, 0.0))
    return s


def run(quick=True, t_end=0.5):
    """``order``: the observed orders (log2 of successive error ratios) of P3(t_end);
    ``redundant``: the redundant rows found at assembly."""
    dts = np.array([2e-2, 1e-2, 5e-3]) if quick else np.array([1e-2, 5e-3, 2.5e-3, 1.25e-3])
    P3 = []
    for dt in list(dts) + [dts[-1] / 4]:
        s = bricard()
        res = s.simulate(t_end, dt=dt, dt_out=t_end)
        P3.append(res.q("link3")[-1, :3])                  # link 3 starts at the joint J3
    err = np.max(np.abs(np.array(P3[:-1]) - P3[-1]), axis=1)
    return {"dt": dts, "error": err, "order": np.log2(err[:-1] / err[1:]),
            "redundant": list(s.assemble().redundant_rows)}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    out = run(quick=False)
    print(f"redundant rows: {out['redundant']}")
    print("observed orders:", np.array2string(out["order"], precision=3))
    fig, ax = plt.subplots()
    ax.loglog(out["dt"], out["error"], "o-", label="midpoint rule")
    ax.loglog(out["dt"], out["error"][0] * (out["dt"] / out["dt"][0]) ** 2, "k--", lw=1, label="slope 2")
    ax.set_xlabel("step dt [s]")
    ax.set_ylabel("max |P3 - P3_ref| at 0.5 s [m]")
    ax.legend(loc="lower right")

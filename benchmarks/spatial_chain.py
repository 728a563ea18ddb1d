"""Spatial and planar chains of N rigid bars, and Bricard's mechanism: time per step.

The chain: N uniform bars of 1 m and 1 kg (a 0.1 m x 0.1 m box section, so
that the spin about a bar's axis has inertia), end to end along x, the first
on a spherical joint to the ground at the origin, neighbours joined by
spherical joints at their common ends; gravity 9.81 m/s^2 along -z, released
at rest in the horizontal; 0.5 s at dt = 1e-3 with the implicit midpoint
rule.  The planar chain: the same bars (I = m L^2 / 12) on revolute joints,
gravity along -y, N = 5, 20, 80.  Bricard's mechanism
(:mod:`phmech.validation.bricard`, box links so that Exudyn's rigid bodies
can carry them): 10 s at dt = 1e-3.

Each line gives the unknowns, the set-up (assembly and consistent start),
the time per step (the run's wall time over its steps) and the residual's
path (``compiled`` when every contribution has a kernel).  With Exudyn
importable (``pip install exudyn``), the same chain in Exudyn (rigid bodies
with Euler parameters, spherical joints, its trapezoidal rule with index-2
constraints, one thread) and the ratio phmech / Exudyn; without it the peer
columns stay empty (the planar chain and Bricard in Exudyn:
``peers/exudyn_mechanisms.py``).  Runs against whatever ``phmech`` is importable, so
``PYTHONPATH=<other checkout>`` measures another version.

    python benchmarks/spatial_chain.py [--sizes 5 20 80 320] [--planar-sizes 5 20 80] [--t-end 0.5]
                                       [--bricard-t-end 10]
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)                    # peers/

from peers import exudyn_mechanisms  # noqa: E402  (after the path)

G = 9.81
SECTION = (0.1, 0.1)


def phmech_chain(n):
    """The chain in phmech: ``(System, bars)``."""
    from phmech import SpatialRigidBody, System
    from phmech.joints import Spherical
    bars = [SpatialRigidBody.bar(f"bar{i}", 1.0, (i, 0.0, 0.0), (i + 1.0, 0.0, 0.0), section=SECTION)
            for i in range(n)]
    s = System(bars)
    s.add_joint(Spherical(bars[0].port("A"), None, name="J0"))
    for i in range(1, n):
        s.add_joint(Spherical(bars[i - 1].port("B"), bars[i].port("A"), name=f"J{i}"))
    s.add_gravity((0.0, 0.0, -G))
    return s, bars


def planar_chain(n):
    """The planar chain in phmech: ``(System, bars)``."""
    from phmech import PlanarRigidBody, System
    from phmech.joints import Revolute
    bars = [PlanarRigidBody(f"bar{i}", 1.0, 1.0 / 12, center=(0.5, 0.0), ports={"A": (0.0, 0.0), "B": (1.0, 0.0)},
                            position=(float(i), 0.0)) for i in range(n)]
    s = System(bars)
    s.add_joint(Revolute(bars[0].port("A"), None, name="J0"))
    for i in range(1, n):
        s.add_joint(Revolute(bars[i - 1].port("B"), bars[i].port("A"), name=f"J{i}"))
    s.add_gravity((0.0, -G))
    return s, bars


def path_of(dae):
    """Which residual ran: the compiled residual's path, or its leftovers."""
    c = dae.compiled_residual()
    if c is None:
        return "python (no numba)"
    if hasattr(c, "path"):
        return c.path
    return "compiled" if c.pure else "python: " + ", ".join(c.leftovers[:2])


def run_phmech(system, t_end, dt):
    """``(unknowns, set-up [s], per step [s], path, final state)`` of one midpoint run.

    The time per step is the run's wall time less the loading of compiled kernels not yet
    loaded in this process (``stats["kernel_time"]``, a one-time cost of the process, reported
    by the solver on its own)."""
    tic = time.perf_counter()
    dae = system.assemble()
    y0 = dae.initial_state()
    setup = time.perf_counter() - tic
    path = path_of(dae)
    tic = time.perf_counter()
    res = system.simulate(t_end, solver="midpoint", dt=dt, y0=y0)
    wall = time.perf_counter() - tic - res.stats.get("kernel_time", 0.0)
    return dae.n, setup, wall / res.stats["nsteps"], path, res


def exudyn_chain(n, t_end, dt):
    """The chain in Exudyn; ``(set-up [s], per step [s], z of the last bar's end)`` or None
    without Exudyn."""
    try:
        import exudyn as exu
        from exudyn.utilities import InertiaCuboid
    except ImportError:
        return None
    from peers.exudyn_crank_slider import settings
    tic = time.perf_counter()
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.CreateGround(referencePosition=[0.0, 0.0, 0.0])
    inertia = InertiaCuboid(density=1.0 / (SECTION[0] * SECTION[1]), sideLengths=[1.0, *SECTION])
    bodies = []
    for i in range(n):
        bodies.append(mbs.CreateRigidBody(inertia=inertia, referencePosition=[i + 0.5, 0.0, 0.0],
                                          gravity=[0.0, 0.0, -G]))
    mbs.CreateSphericalJoint(itemNumbers=[ground, bodies[0]], position=[0.0, 0.0, 0.0])
    for i in range(1, n):
        mbs.CreateSphericalJoint(itemNumbers=[bodies[i - 1], bodies[i]], position=[float(i), 0.0, 0.0])
    mbs.Assemble()
    sim, solver_type = settings(dt, t_end, solver="trapezoidal",
                                linear_solver="dense" if 6 * n <= 120 else "sparse")
    setup = time.perf_counter() - tic
    tic = time.perf_counter()
    exu.SolveDynamic(mbs, sim, solverType=solver_type)
    wall = time.perf_counter() - tic
    node = mbs.GetObject(bodies[-1])["nodeNumber"]
    r = mbs.GetNodeOutput(node, exu.OutputVariableType.Position)
    R = mbs.GetNodeOutput(node, exu.OutputVariableType.RotationMatrix).reshape(3, 3)
    return setup, wall / int(round(t_end / dt)), float((np.asarray(r) + R @ [0.5, 0.0, 0.0])[2])


def chain_table(kind, build, peer_run, axis, sizes, args):
    """Print the per-step table of one chain; returns ``[(N, per step, Exudyn per step or None)]``."""
    label = "xyz"[axis] + "_end"
    print(f"{kind} chain, {args.t_end} s at dt = {args.dt}, midpoint")
    print(f"{'N':>5s} {'n':>6s} {'set-up [s]':>10s} {'step [ms]':>10s} {'Exudyn [ms]':>11s} {'ratio':>6s} "
          f"{label:>9s} {label + ' Exudyn':>12s}  path")
    unknowns, out = [], []
    for n in sizes:
        s, bars = build(n)
        nu, setup, per_step, path, res = run_phmech(s, args.t_end, args.dt)
        dae = s.assemble()
        q = res.y[-1][dae.q_slices[bars[-1].name]]
        end = float(bars[-1].port_position(q, bars[-1].port("B"))[axis])
        peer = None if args.no_peer else peer_run(n, args.t_end, args.dt)
        ex = f"{1e3 * peer[1]:11.3f} {per_step / peer[1]:6.1f}" if peer else f"{'-':>11s} {'-':>6s}"
        px = f"{peer[2]:12.5f}" if peer else f"{'-':>12s}"
        print(f"{n:5d} {nu:6d} {setup:10.3f} {1e3 * per_step:10.3f} {ex} {end:9.5f} {px}  {path}", flush=True)
        unknowns.append(nu)
        out.append((n, per_step, peer[1] if peer else None))
    if len(unknowns) > 1:
        slope = np.polyfit(np.log(unknowns), np.log([o[1] for o in out]), 1)[0]
        print(f"cost slope d log(step) / d log(n): {slope:.2f}")
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[5, 20, 80, 320], help="numbers of bars")
    p.add_argument("--planar-sizes", type=int, nargs="*", default=[5, 20, 80], help="numbers of planar bars")
    p.add_argument("--t-end", type=float, default=0.5, help="span of the chain runs [s]")
    p.add_argument("--dt", type=float, default=1e-3)
    p.add_argument("--bricard-t-end", type=float, default=10.0, help="span of Bricard's run [s] (0: skip)")
    p.add_argument("--no-peer", action="store_true", help="skip Exudyn")
    args = p.parse_args(argv)
    import phmech
    print(f"phmech {phmech.__version__} from {phmech.__file__}")
    run_phmech(phmech_chain(2)[0], 3 * args.dt, args.dt)     # load the kernels outside the timings
    rows = {}
    chains = (("spatial", phmech_chain, exudyn_chain, 2, args.sizes),
              ("planar", planar_chain, exudyn_mechanisms.planar_chain, 1, args.planar_sizes))
    for kind, build, peer_run, axis, sizes in chains:
        if sizes:
            rows[kind] = chain_table(kind, build, peer_run, axis, sizes, args)
    if args.bricard_t_end > 0:
        from phmech.validation import bricard
        s, links = bricard.build(section="box")
        nu, setup, per_step, path, res = run_phmech(s, args.bricard_t_end, args.dt)
        dae = s.assemble()
        p3 = links[1].port_position(res.y[-1][dae.q_slices[links[1].name]], links[1].port("B"))
        peer = None if args.no_peer else exudyn_mechanisms.bricard(args.bricard_t_end, args.dt)
        print(f"Bricard (box links), {args.bricard_t_end} s at dt = {args.dt}: n = {nu}, set-up {setup:.3f} s, "
              f"{1e3 * per_step:.3f} ms per step, {per_step * res.stats['nsteps']:.2f} s in all ({path}); "
              f"P3 = {np.array2string(p3, precision=6)}")
        if peer:
            print(f"  Exudyn: {1e3 * peer[1]:.3f} ms per step, ratio {per_step / peer[1]:.2f}; "
                  f"P3 = {np.array2string(peer[2], precision=6)}, |difference| {np.linalg.norm(p3 - peer[2]):.1e}")
        rows["bricard"] = (per_step, peer[1] if peer else None)
    return rows


if __name__ == "__main__":
    main()

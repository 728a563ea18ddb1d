"""Geometrically exact planar beam: time per step against Exudyn's ``ObjectBeamGeometricallyExact2D``.

The model: a flexible pendulum, a soft strip (length 1 m, section 0.1 m x 0.01 m,
E = 5 MPa, G = E / 2.6 with shear factor 5/6, rho = 1100 kg/m^3) pinned at its
root, released horizontal and at rest under gravity; it falls, bends far (the
tip passes 0.6 m below the pin, with the strip's curvature reversing) and swings.
In phmech it is :class:`phmech.fem.GeometricallyExactBeam` on ``n`` linear
elements (the discretization of Exudyn's element: linear interpolation of the
nodal positions and rotations, one-point reduced integration) and, with the
same nodes, on ``n / 2`` quadratic elements; the implicit midpoint rule at the
step ``dt``.  The peer: Exudyn's geometrically exact 2D beam on ``n`` elements
(``NodeRigidBody2D`` nodes), a ``RevoluteJoint2D`` to the ground,
``LoadMassProportional`` gravity on every element, implicit generalized-alpha
(spectral radius 0.9) at the same step, modified Newton with relative tolerance 1e-8
(the settings of the other Exudyn peers, ``peers/exudyn_crank_slider.py``).

The two codes run alternately in one process, one thread each; a pair is one
run of each, the time per step is the process CPU time of the solve over its
steps, and the claimed ratio is the median over the pairs (the spread is
printed beside it).  The tips at the end are printed for both: the same
continuum, so they agree to the discretizations' and integrators' errors.
Exudyn is an optional dependency of the benchmarks (``pip install exudyn``).
Target: phmech ahead of Exudyn per step (ratio below 1).

At the same nodes the two discretizations differ in accuracy: the tip at 1 s
(``dt = 1e-3``) is ``y = -0.0539`` m on 8 and 16 quadratic elements, while the
linear elements give -0.065 (16) and -0.057 (32) in phmech and -0.029 (16),
-0.048 (32), -0.053 (64), -0.0537 (128) in Exudyn.  ``--matched`` adds pairs
of phmech's ``n / 2`` quadratic elements against Exudyn on ``8 n`` elements,
the accuracy matched.

    python benchmarks/exact_beam.py [--n-elem 16] [--tfinal 1] [--dt 1e-3] [--pairs 5] [--matched]
"""
import argparse
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(os.path.dirname(HERE))      # the phmech of this checkout, unless PYTHONPATH names another

#: the strip: length, width, thickness [m], Young's modulus [Pa], density [kg/m^3], gravity [m/s^2]
DATA = dict(L=1.0, b=0.1, h=0.01, E=5e6, rho=1100.0, g=9.81)


def section(p=DATA):
    """``(A, I, EA, kGA, EI, rho A, rho I)`` of the strip."""
    A, I = p["b"] * p["h"], p["b"] * p["h"] ** 3 / 12
    G = p["E"] / 2.6
    return A, I, p["E"] * A, 5.0 / 6.0 * G * A, p["E"] * I, p["rho"] * A, p["rho"] * I


def phmech_run(n_elem, degree, t_end, dt):
    """``(cpu per step, wall per step, tip at t_end, path)`` of phmech's pendulum."""
    from phmech import System
    from phmech.fem import GeometricallyExactBeam
    from _timing import timed_midpoint
    p = DATA
    A, I = section()[:2]
    beam = GeometricallyExactBeam("strip", p["L"], n_elem, p["rho"], A, p["E"], I, degree=degree)
    s = System([beam])
    s.pin(beam.port("A"), name="pin")
    s.add_gravity((0.0, -p["g"]))
    dae = s.assemble()
    res, cpu, wall = timed_midpoint(dae, dae.initial_state(), t_end, dt)
    q = res.q(beam)[-1]
    return cpu, wall, beam.port_position(q, beam.port("B")), res.stats["path"]


def exudyn_run(n_elem, t_end, dt):
    """``(cpu per step, wall per step, tip at t_end)`` of Exudyn's pendulum."""
    import exudyn as exu
    from exudyn import itemInterface as ii
    from peers.exudyn_crank_slider import settings
    p = DATA
    _, _, EA, GA, EI, rhoA, rhoI = section()
    Le = p["L"] / n_elem
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.AddObject(ii.ObjectGround())
    nodes = [mbs.AddNode(ii.NodeRigidBody2D(referenceCoordinates=[i * Le, 0.0, 0.0])) for i in range(n_elem + 1)]
    for i in range(n_elem):
        e = mbs.AddObject(ii.ObjectBeamGeometricallyExact2D(
            nodeNumbers=[nodes[i], nodes[i + 1]], length=Le, massPerLength=rhoA,
            crossSectionInertia=rhoI, bendingStiffness=EI, axialStiffness=EA,
            shearStiffness=GA))
        m = mbs.AddMarker(ii.MarkerBodyMass(bodyNumber=e))
        mbs.AddLoad(ii.LoadMassProportional(markerNumber=m, loadVector=[0.0, -p["g"], 0.0]))
    mg = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=ground, localPosition=[0.0, 0.0, 0.0]))
    mn = mbs.AddMarker(ii.MarkerNodePosition(nodeNumber=nodes[0]))
    mbs.AddObject(ii.ObjectJointRevolute2D(markerNumbers=[mg, mn]))
    tip = mbs.AddSensor(ii.SensorNode(nodeNumber=nodes[-1], outputVariableType=exu.OutputVariableType.Position,
                                      storeInternal=True, writeToFile=False))
    mbs.Assemble()
    # fixed step, dense solver, modified Newton (relative tolerance 1e-8), one thread, no output
    sim, solver_type = settings(dt, t_end, solver="genalpha", rho_inf=0.9)
    sim.solution.sensors.writePeriod = t_end / 4
    cpu, wall = time.process_time(), time.perf_counter()
    mbs.SolveDynamic(sim, solverType=solver_type)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    n = sim.timeIntegration.numberOfSteps
    return cpu / n, wall / n, mbs.GetSensorStoredData(tip)[-1, 1:3]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n-elem", type=int, default=16, help="elements of Exudyn and of phmech's linear beam (even)")
    p.add_argument("--tfinal", type=float, default=1.0)
    p.add_argument("--dt", type=float, default=1e-3)
    p.add_argument("--pairs", type=int, default=5, help="interleaved pairs of runs; the median ratio counts")
    p.add_argument("--matched", action="store_true",
                   help="also pairs of n / 2 quadratic elements against Exudyn on 8 n elements (equal accuracy)")
    args = p.parse_args(argv)
    if args.n_elem < 2 or args.n_elem % 2:
        p.error(f"--n-elem must be an even number of at least 2, got {args.n_elem}")
    try:
        import exudyn
    except ImportError as err:
        print(f"Exudyn not installed ({err}): pip install exudyn")
        return
    n = args.n_elem
    print(f"flexible pendulum, {n + 1} nodes, {args.tfinal} s at dt = {args.dt}; Exudyn {exudyn.__version__}")
    models = (("linear", n, 1), ("quadratic", n // 2, 2))
    ratios = {name: [] for name, _, _ in models}
    last = {}
    for _ in range(args.pairs):
        for name, ne, degree in models:
            ours = phmech_run(ne, degree, args.tfinal, args.dt)
            peer = exudyn_run(n, args.tfinal, args.dt)
            ratios[name].append(ours[0] / peer[0])
            last[name], last["exudyn"] = ours, peer
    peer = last["exudyn"]
    print(f"  Exudyn BeamGeometricallyExact2D, {n} elements, gen.-alpha: {1e3 * peer[0]:.3f} ms/step CPU "
          f"({1e3 * peer[1]:.3f} wall); tip {np.array2string(peer[2], precision=5)}")
    for name, ne, degree in models:
        cpu, wall, tip, path = last[name]
        r = np.array(ratios[name])
        print(f"  phmech midpoint, {ne} {name} elements ({path}): {1e3 * cpu:.3f} ms/step CPU ({1e3 * wall:.3f} wall); "
              f"tip {np.array2string(tip, precision=5)}")
        print(f"    ratio phmech / Exudyn per step (CPU), median of {len(r)} interleaved pairs: {np.median(r):.2f} "
              f"(range {r.min():.2f}-{r.max():.2f}; target < 1: {'met' if np.median(r) < 1 else 'NOT met'})")
    if args.matched:
        r = []
        for _ in range(args.pairs):
            ours, peer = phmech_run(n // 2, 2, args.tfinal, args.dt), exudyn_run(8 * n, args.tfinal, args.dt)
            r.append(ours[0] / peer[0])
        r = np.array(r)
        print(f"  matched accuracy: Exudyn on {8 * n} elements {1e3 * peer[0]:.3f} ms/step, tip "
              f"{np.array2string(peer[2], precision=5)}; phmech on {n // 2} quadratic elements {1e3 * ours[0]:.3f} "
              f"ms/step, tip {np.array2string(ours[2], precision=5)}")
        print(f"    ratio phmech / Exudyn per step (CPU), median of {len(r)} interleaved pairs: {np.median(r):.3f} "
              f"(range {r.min():.3f}-{r.max():.3f})")


if __name__ == "__main__":
    main()

"""Consistent spatial beam: time per step of ``hinged_beam --geometric-stiffness`` against Exudyn.

phmech: :func:`phmech.validation.hinged_beam.build` with the geometrically
consistent spatial beam (:class:`~phmech.fem.beam3d_nonlinear.NonlinearSpatialBeam`,
Green-Lagrange strain, 6 elements), hinged by a spherical joint, the torque
ramp about the vertical axis on the beam's frame, midpoint rule at
``dt = 0.01``.  The peer: the same beam (length 141.42, section 9, second
moments 6.75, rho 7.8e-3, E 2.1e6, G = E / 2.6) in Exudyn as 6
``ObjectANCFBeam`` elements (geometrically exact, shear deformable ANCF;
63 coordinates), a spherical joint at the root, the same torque on the root
section, implicit generalized-alpha (rho_inf 0.9) at the same step with
Exudyn's modified Newton (relative tolerance 1e-8, absolute 1e-6: its default
1e-10 stalls at round-off and aborts); once with the torque ramp as a Python
load function (as a user writes it) and once with a constant torque (no
Python call in the step: the faster of the two is the peer).

A second phmech row runs the same beam with the torque replaced by the
body-frame tip force ``(0, M(t) / L, 0)`` (the same moment about the hinge):
the frame moment (:class:`~phmech.fem.beam3d_nonlinear.FrameMoment`) has no
kernel yet, so the first model runs the Python residual (with the beams'
kernels), the second one the compiled residual.

Both codes run one thread; the time per step is the process CPU time of
the solve over the number of steps (the machine may be shared: wall times
are printed beside it).  Exudyn is an optional dependency of the benchmarks
(``pip install exudyn``).  Target: phmech within 2x Exudyn per step.

    python benchmarks/consistent_beam.py [--n-elem 6] [--tfinal 2] [--dt 0.01] [--repeat 3]
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

#: the hinged beam's data (phmech.validation.hinged_beam.DATA)
DATA = dict(L=141.42, A=9.0, I=6.75, rho=7.8e-3, E=2.1e6, torque=200.0)


def _torque(t, M=DATA["torque"]):
    return M * np.clip(min(t / 0.2, (10.2 - t) / 0.2), 0.0, 1.0)


def phmech_run(n_elem, t_end, dt, tip_couple=False):
    """``(cpu per step, wall per step, Newton iterations per step, path, tip at t_end)``.

    ``tip_couple``: the torque replaced by the body-frame tip force ``(0, M(t) / L, 0)`` (the same
    moment about the hinge, a load of the compiled form) instead of the moment on the frame."""
    import warnings
    from _timing import timed_midpoint
    from phmech.validation import hinged_beam as hb
    if tip_couple:
        from phmech import System
        from phmech.fem.beam3d_nonlinear import NonlinearSpatialBeam
        p = DATA
        beam = NonlinearSpatialBeam("beam", p["L"], n_elem, p["rho"], p["A"], p["E"], p["I"], p["I"])
        s = System([beam])
        s.sphere(beam.port("A"), name="hinge")
        s.apply_force(beam.port("B"), lambda t: (0.0, _torque(t) / p["L"], 0.0), frame="body", name="couple")
    else:
        s, beam = hb.build(n_elem, geometric_stiffness=True)
    dae = s.assemble()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = dae.compiled_residual()
        path = f"{c.path}" + (f" (Python for: {', '.join(c.leftovers)})" if c.leftovers else "")
        res, cpu, wall = timed_midpoint(dae, dae.initial_state(), t_end, dt)
    n = res.stats["nsteps"]
    q = res.q(beam)[-1]
    ux, uy, uz = beam.displacement_rows([beam.L])
    tip = q[:3] + beam.rotation(q) @ np.array([beam.L + ux[0] @ q, uy[0] @ q, uz[0] @ q])
    return cpu, wall, res.stats["nfev"] / n, path, tip


def exudyn_run(n_elem, t_end, dt, ramp=True):
    """``(cpu per step, wall per step, Newton iterations per step, tip at t_end)`` of the ANCF beam."""
    import exudyn as exu
    from exudyn import itemInterface as ii
    L, A, I, rho, E = (DATA[k] for k in ("L", "A", "I", "rho", "E"))
    G = E / 2.6
    Le = L / n_elem
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.AddObject(ii.ObjectGround())
    sec = exu.BeamSection()
    sec.massPerLength = rho * A
    sec.inertia = rho * np.diag([2 * I, I, I])
    sec.stiffnessMatrix = np.diag([E * A, G * A, G * A, G * 2 * I, E * I, E * I])
    nodes = [mbs.AddNode(ii.NodePointSlope23(referenceCoordinates=[i * Le, 0, 0, 0, 1, 0, 0, 0, 1]))
             for i in range(n_elem + 1)]
    elements = [mbs.AddObject(ii.ObjectANCFBeam(nodeNumbers=[nodes[i], nodes[i + 1]], length=Le, sectionData=sec))
                for i in range(n_elem)]
    m_ground = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=ground, localPosition=[0.0, 0.0, 0.0]))
    m_root = mbs.AddMarker(ii.MarkerNodePosition(nodeNumber=nodes[0]))
    mbs.AddObject(ii.ObjectJointSpherical(markerNumbers=[m_ground, m_root]))
    m_section = mbs.AddMarker(ii.MarkerBodyRigid(bodyNumber=elements[0], localPosition=[-Le / 2, 0.0, 0.0]))
    if ramp:
        mbs.AddLoad(ii.LoadTorqueVector(markerNumber=m_section, loadVector=[0.0, 0.0, 1.0],
                                        loadVectorUserFunction=lambda mbs, t, v: [0.0, 0.0, _torque(t)]))
    else:
        mbs.AddLoad(ii.LoadTorqueVector(markerNumber=m_section, loadVector=[0.0, 0.0, DATA["torque"]]))
    tip = mbs.AddSensor(ii.SensorNode(nodeNumber=nodes[-1], outputVariableType=exu.OutputVariableType.Position,
                                      storeInternal=True, writeToFile=False))
    mbs.Assemble()
    s = exu.SimulationSettings()
    ti = s.timeIntegration
    ti.numberOfSteps = int(round(t_end / dt))
    ti.endTime = t_end
    ti.adaptiveStep = False
    ti.verboseMode = 0
    ti.generalizedAlpha.spectralRadius = 0.9
    ti.generalizedAlpha.computeInitialAccelerations = False     # the start is at rest, unloaded
    # Exudyn's relative Newton tolerance (1e-8) and the absolute one of the crank-slider peer: the
    # default 1e-10 stalls at round-off and aborts the torque ramp near t = 1 s
    ti.newton.relativeTolerance = 1e-8
    ti.newton.absoluteTolerance = 1e-6
    s.solution.file.write = False
    s.solution.sensors.writePeriod = 0.5 * dt
    s.show.statistics = False
    s.show.computationTime = False
    s.parallel.numberOfThreads = 1
    cpu, wall = time.process_time(), time.perf_counter()
    mbs.SolveDynamic(s, solverType=exu.DynamicSolverType.GeneralizedAlpha)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    n = ti.numberOfSteps
    return cpu / n, wall / n, mbs.sys["dynamicSolver"].it.newtonStepsCount / n, mbs.GetSensorStoredData(tip)[-1, 1:]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n-elem", type=int, default=6)
    p.add_argument("--tfinal", type=float, default=2.0)
    p.add_argument("--dt", type=float, default=0.01)
    p.add_argument("--repeat", type=int, default=3, help="runs of each code; the fastest counts")
    args = p.parse_args(argv)
    print(f"consistent spatial beam, {args.n_elem} elements, {args.tfinal} s at dt = {args.dt}")
    ours = []
    for couple in (False, True):
        runs = [phmech_run(args.n_elem, args.tfinal, args.dt, couple) for _ in range(args.repeat)]
        cpu, wall, its, path, tip = min(runs, key=lambda r: r[0])
        ours.append((cpu, wall, "hinged_beam --geometric-stiffness" if not couple else
                     "same beam, torque as a body-frame tip force"))
        print(f"  phmech midpoint, {ours[-1][2]}: {1e3 * cpu:.3f} ms/step CPU ({1e3 * wall:.3f} wall), "
              f"{its:.2f} residuals/step; path {path}; tip {np.array2string(tip, precision=4)}")
    try:
        import exudyn
    except ImportError as err:
        print(f"  Exudyn not installed ({err}): pip install exudyn")
        return
    best = None
    for ramp in (True, False):
        r = min((exudyn_run(args.n_elem, args.tfinal, args.dt, ramp) for _ in range(args.repeat)), key=lambda r: r[0])
        print(f"  Exudyn {exudyn.__version__} ANCFBeam gen.-alpha, torque {'ramp (Python)' if ramp else 'constant'}: "
              f"{1e3 * r[0]:.3f} ms/step CPU ({1e3 * r[1]:.3f} wall), {r[2]:.2f} Newton iterations/step; "
              f"tip {np.array2string(r[3], precision=4)}")
        best = r if best is None or r[0] < best[0] else best
    for cpu, wall, what in ours:
        ratio = cpu / best[0]
        print(f"  ratio phmech / Exudyn per step (CPU), {what}: {ratio:.2f} "
              f"(target <= 2: {'met' if ratio <= 2 else 'NOT met'}); wall: {wall / best[1]:.2f}")


if __name__ == "__main__":
    main()

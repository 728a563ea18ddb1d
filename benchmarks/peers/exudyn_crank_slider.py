"""The stiffened crank-slider in Exudyn: a peer measurement for phmech's benchmarks.

Same mechanism and data as :mod:`phmech.validation.crank_slider`
(:data:`phmech.validation.crank_slider.DATA`): rigid crank 0.15 m (0.36 kg
rod) driven at 150 rad/s about a fixed bearing, coupler beam 0.3 m with a
6 mm circular steel section (E = 2e11 Pa, rho = 7870 kg/m^3), slider
0.033 kg on a horizontal guide through the bearing, no gravity.  The start
is undeformed with the rigid-body velocities of the crank at angle 0
(coupler turning at -omega L_crank / L about the slider pin, slider at rest),
as phmech's ``initial_state()`` gives them.

The coupler is a chain of Exudyn's planar ANCF cable elements
(``ObjectANCFCable2D``: absolute positions and slopes, cubic Hermite
interpolation, axial strain ``|r'| - 1`` and material curvature
``(r' x r'') / |r'|^2``, full Gauss integration, so the model is
geometrically exact and includes geometric stiffening; no shear, no rotary
inertia, as phmech's Euler-Bernoulli beams).  The crank is an ``ObjectRigidBody2D`` on a revolute joint; the drive
is a velocity-level coordinate constraint on its rotation (no Python user
function in the solve).  Revolute joints connect crank and coupler, coupler
and slider (a mass point); a coordinate constraint keeps the slider on the
guide.  The equations are index-3 DAEs solved by Exudyn's implicit
generalized-alpha method (``solver="genalpha"``) or its trapezoidal rule
with index-2 constraints (``solver="trapezoidal"``), at a fixed step.

The quantity of interest is phmech's: the transverse displacement of the
coupler's material midpoint (X = L/2) from the chord between the beam's
ends, over L, ``u_y(L/2)/L = e1 x (r(L/2) - r(0)) / L`` with
``e1 = (r(L) - r(0)) / |r(L) - r(0)|``, and its peak magnitude over the run.

    python benchmarks/peers/exudyn_crank_slider.py            # full tables (about 2 min CPU)
    python benchmarks/peers/exudyn_crank_slider.py --quick    # shorter sweeps
    python benchmarks/peers/exudyn_crank_slider.py --phmech   # also phmech at 8 elements, dt = 1e-5

Exudyn is an optional dependency of this benchmark only (``pip install exudyn``).
"""
import argparse
import time

import numpy as np

#: the crank-slider data (same values as phmech.validation.crank_slider.DATA)
DATA = dict(L_crank=0.15, omega=150.0, L=0.3, d=6e-3, E=2.0e11, rho=7870.0, m_slider=0.033,
            m_crank=0.36)

#: phmech's converged peak |u_y(L/2)|/L of the stiffened coupler (NonlinearFloatingBeam) as quoted for
#: the benchmarks; phmech's midpoint runs at hand give 0.015551 (8 elements, dt = 1e-5), 0.015545
#: (8, 2.5e-6) and 0.015543 (16, 2.5e-6): the peak moves by ~5e-4 relative with the step (README.md)
PHMECH_STIFFENED_PEAK = 0.015538
#: the same for the linear floating frame of the thesis
PHMECH_LINEAR_PEAK = 0.018620

SOLVERS = ("genalpha", "trapezoidal")
LINEAR_SOLVERS = ("dense", "sparse")


def _check(n_elements, dt, t_end, solver, linear_solver, rho_inf, overrides):
    bad = [f"parameter {k!r} (known: {sorted(DATA)})" for k in sorted(set(overrides) - set(DATA))]
    bad += [f"{k} = {v!r} (a positive number)" for k, v in overrides.items()
            if k in DATA and not (np.isscalar(v) and np.isfinite(v) and v > 0)]
    if not (isinstance(n_elements, (int, np.integer)) and n_elements >= 1):
        bad.append(f"n_elements = {n_elements!r} (a positive integer)")
    if not (np.isfinite(dt) and dt > 0):
        bad.append(f"dt = {dt!r} (a positive step)")
    if not (np.isfinite(t_end) and t_end > 0):
        bad.append(f"t_end = {t_end!r} (a positive end time)")
    elif np.isfinite(dt) and dt > 0 and abs(t_end / dt - round(t_end / dt)) > 1e-6 * t_end / dt:
        bad.append(f"t_end / dt = {t_end / dt!r} (t_end must be a whole number of steps)")
    if solver not in SOLVERS:
        bad.append(f"solver = {solver!r} (one of {SOLVERS})")
    if linear_solver not in LINEAR_SOLVERS:
        bad.append(f"linear_solver = {linear_solver!r} (one of {LINEAR_SOLVERS})")
    if not (np.isfinite(rho_inf) and 0.0 <= rho_inf <= 1.0):
        bad.append(f"rho_inf = {rho_inf!r} (spectral radius in [0, 1])")
    if bad:
        raise ValueError("exudyn crank-slider: invalid " + "; ".join(bad))


def build(n_elements, **overrides):
    """Build the Exudyn model; returns ``(SC, mbs, sensors)`` (assembled).

    ``sensors`` maps ``"A"``, ``"B"`` (coupler ends), ``"M"`` (material
    midpoint), ``"slider"`` and ``"crank"`` to Exudyn sensor numbers whose
    stored data are the positions (rotation for the crank) at every step.
    """
    import exudyn as exu
    from exudyn import itemInterface as ii

    p = {**DATA, **overrides}
    Lc, L, omega = p["L_crank"], p["L"], p["omega"]
    A = np.pi * p["d"] ** 2 / 4
    I = np.pi * p["d"] ** 4 / 64
    Le = L / n_elements

    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.AddObject(ii.ObjectGround(referencePosition=[0.0, 0.0, 0.0]))
    n_ground = mbs.AddNode(ii.NodePointGround(referenceCoordinates=[0.0, 0.0, 0.0]))
    m_ground_c = mbs.AddMarker(ii.MarkerNodeCoordinate(nodeNumber=n_ground, coordinate=0))

    # crank: uniform rod, centre of mass at Lc/2, angle 0, turning at omega
    n_crank = mbs.AddNode(ii.NodeRigidBody2D(referenceCoordinates=[Lc / 2, 0.0, 0.0],
                                             initialVelocities=[0.0, omega * Lc / 2, omega]))
    crank = mbs.AddObject(ii.ObjectRigidBody2D(mass=p["m_crank"], inertia=p["m_crank"] * Lc ** 2 / 12,
                                               nodeNumber=n_crank))
    m_bearing = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=ground, localPosition=[0.0, 0.0, 0.0]))
    m_crank_A = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=crank, localPosition=[-Lc / 2, 0.0, 0.0]))
    m_crank_B = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=crank, localPosition=[Lc / 2, 0.0, 0.0]))
    mbs.AddObject(ii.ObjectJointRevolute2D(markerNumbers=[m_bearing, m_crank_A]))
    m_crank_rot = mbs.AddMarker(ii.MarkerNodeCoordinate(nodeNumber=n_crank, coordinate=2))
    # motor: rotation rate of the crank = omega (velocity-level constraint)
    mbs.AddObject(ii.ObjectConnectorCoordinate(markerNumbers=[m_ground_c, m_crank_rot],
                                               velocityLevel=True, offset=omega))

    # coupler: ANCF cable elements from the crank pin to the slider, rigid velocities of the start
    nodes = []
    for i in range(n_elements + 1):
        s = i * Le
        nodes.append(mbs.AddNode(ii.NodePoint2DSlope1(
            referenceCoordinates=[Lc + s, 0.0, 1.0, 0.0],
            initialVelocities=[0.0, omega * Lc * (1.0 - s / L), 0.0, -omega * Lc / L])))
    elements = [mbs.AddObject(ii.ObjectANCFCable2D(
        nodeNumbers=[nodes[i], nodes[i + 1]], length=Le, massPerLength=p["rho"] * A,
        bendingStiffness=p["E"] * I, axialStiffness=p["E"] * A))
        for i in range(n_elements)]
    m_coupler_A = mbs.AddMarker(ii.MarkerNodePosition(nodeNumber=nodes[0]))
    m_coupler_B = mbs.AddMarker(ii.MarkerNodePosition(nodeNumber=nodes[-1]))
    mbs.AddObject(ii.ObjectJointRevolute2D(markerNumbers=[m_crank_B, m_coupler_A]))

    # slider on the horizontal guide y = 0
    n_slider = mbs.AddNode(ii.NodePoint2D(referenceCoordinates=[Lc + L, 0.0]))
    mbs.AddObject(ii.ObjectMassPoint2D(mass=p["m_slider"], nodeNumber=n_slider))
    m_slider = mbs.AddMarker(ii.MarkerNodePosition(nodeNumber=n_slider))
    mbs.AddObject(ii.ObjectJointRevolute2D(markerNumbers=[m_coupler_B, m_slider]))
    m_slider_y = mbs.AddMarker(ii.MarkerNodeCoordinate(nodeNumber=n_slider, coordinate=1))
    mbs.AddObject(ii.ObjectConnectorCoordinate(markerNumbers=[m_ground_c, m_slider_y]))

    # sensors stored in memory only
    k = min(int(np.floor(0.5 * n_elements)), n_elements - 1)    # element holding X = L/2
    pos = exu.OutputVariableType.Position

    def node_sensor(n, var=pos):
        return mbs.AddSensor(ii.SensorNode(nodeNumber=n, outputVariableType=var,
                                           writeToFile=False, storeInternal=True))

    sensors = {
        "A": node_sensor(nodes[0]), "B": node_sensor(nodes[-1]),
        "M": mbs.AddSensor(ii.SensorBody(bodyNumber=elements[k], localPosition=[L / 2 - k * Le, 0.0, 0.0],
                                         outputVariableType=pos, writeToFile=False, storeInternal=True)),
        "slider": node_sensor(n_slider),
        "crank": node_sensor(n_crank, exu.OutputVariableType.Rotation),
    }
    mbs.Assemble()
    return SC, mbs, sensors


def settings(dt, t_end, solver="genalpha", rho_inf=0.9, linear_solver="dense", modified_newton=True,
             newton_rtol=1e-8, newton_atol=1e-6):
    """Exudyn simulation settings: fixed step ``dt``, no files, no console output, one thread."""
    import exudyn as exu

    s = exu.SimulationSettings()
    ti = s.timeIntegration
    ti.numberOfSteps = int(round(t_end / dt))
    ti.endTime = t_end
    ti.adaptiveStep = False              # fixed step: no step reduction on Newton failure
    ti.verboseMode = 0
    ti.newton.useModifiedNewton = modified_newton
    ti.newton.relativeTolerance = newton_rtol
    ti.newton.absoluteTolerance = newton_atol
    ti.generalizedAlpha.spectralRadius = rho_inf
    ti.generalizedAlpha.computeInitialAccelerations = True
    s.solution.file.write = False
    s.solution.sensors.writePeriod = 0.5 * dt      # every step
    s.show.statistics = False
    s.show.computationTime = False
    s.parallel.numberOfThreads = 1
    s.linearSolver.solverType = (exu.LinearSolverType.EXUdense if linear_solver == "dense"
                                 else exu.LinearSolverType.EigenSparse)
    solver_type = (exu.DynamicSolverType.GeneralizedAlpha if solver == "genalpha"
                   else exu.DynamicSolverType.TrapezoidalIndex2)
    return s, solver_type


def run(n_elements, dt, t_end=0.1, solver="genalpha", rho_inf=0.9, linear_solver="dense",
        modified_newton=True, newton_rtol=1e-8, newton_atol=1e-6, **overrides):
    """Simulate the crank-slider in Exudyn at a fixed step; returns a dict.

    Parameters
    ----------
    n_elements : int
        ANCF cable elements of the coupler.
    dt, t_end : float
        Fixed step and end time [s] (``t_end`` a whole number of steps).
    solver : ``"genalpha"`` or ``"trapezoidal"``
        Exudyn's generalized-alpha (index 3, spectral radius ``rho_inf``) or
        its trapezoidal rule with index-2 constraints (``rho_inf`` unused).
    linear_solver : ``"dense"`` (Exudyn's default) or ``"sparse"`` (Eigen sparse LU).
    modified_newton : bool
        Exudyn's default (True): the Jacobian is kept while Newton contracts.
    newton_rtol, newton_atol : float
        Exudyn's relative and absolute Newton residual tolerances.  Exudyn's
        defaults are 1e-8 and 1e-10; with the latter Newton stalls at
        round-off for small steps or many elements (it fails for 32 elements
        at dt = 1e-5, 16 at 5e-6, 8 at 1.25e-6).  1e-6 runs them all and
        leaves the peak unchanged to 8 digits where both run.
    overrides
        Entries of :data:`DATA`.

    Returns
    -------
    dict with ``peak`` (max |u_y(L/2)|/L), ``t_peak``, ``wall`` (the solve
    only [s]), ``cpu`` (its process CPU time [s]; Exudyn runs on one thread
    here, so on an idle machine ``cpu`` = ``wall``), ``setup`` (model
    building and assembly [s]), ``steps``,
    ``per_step`` (wall / steps [s]), ``cpu_per_step``, ``midpoint_history`` ``(t, u_y(L/2)/L)``,
    ``ux_history`` ``(t, u_x(L/2)/L)`` (axial, from the chord), ``checks``
    (drive and guide residuals), ``newton`` (solver counters), ``n_ode2`` and
    ``n_ae`` (numbers of coordinates and of constraint equations) and the inputs.
    """
    _check(n_elements, dt, t_end, solver, linear_solver, rho_inf, overrides)
    import exudyn as exu

    p = {**DATA, **overrides}
    tic = time.perf_counter()
    SC, mbs, sensors = build(n_elements, **overrides)
    sim, solver_type = settings(dt, t_end, solver, rho_inf, linear_solver, modified_newton,
                                newton_rtol, newton_atol)
    setup = time.perf_counter() - tic
    tic, tic_cpu = time.perf_counter(), time.process_time()
    try:
        ok = exu.SolveDynamic(mbs, sim, solverType=solver_type, storeSolver=True)
    except exu.SolverError:
        ok = False
    wall, cpu = time.perf_counter() - tic, time.process_time() - tic_cpu
    if not ok:
        raise RuntimeError(f"exudyn crank-slider: Newton failed ({solver}, n_elements = {n_elements}, "
                           f"dt = {dt}, newton_rtol = {newton_rtol}, newton_atol = {newton_atol})")
    dyn = mbs.sys["dynamicSolver"]
    it = dyn.it
    data = {k: mbs.GetSensorStoredData(v) for k, v in sensors.items()}
    t = data["M"][:, 0]
    rA, rB, rM = (data[k][:, 1:3] for k in ("A", "B", "M"))
    chord = rB - rA
    e1 = chord / np.linalg.norm(chord, axis=1)[:, None]
    d = rM - rA
    L = p["L"]
    uy = (e1[:, 0] * d[:, 1] - e1[:, 1] * d[:, 0]) / L
    ux = (e1[:, 0] * d[:, 0] + e1[:, 1] * d[:, 1] - L / 2) / L
    if not (np.all(np.isfinite(uy)) and np.all(np.isfinite(ux))):
        raise RuntimeError(f"exudyn crank-slider: non-finite midpoint displacement (n_elements = {n_elements}, dt = {dt})")
    k = int(np.argmax(np.abs(uy)))
    steps = int(round(t_end / dt))
    tc = data["crank"][:, 0]
    crank_angle = data["crank"][:, -1]
    checks = {
        "crank_angle_error": float(np.max(np.abs(np.unwrap(crank_angle) - p["omega"] * tc))),
        "guide_residual": float(np.max(np.abs(data["slider"][:, 2]))),
        "pin_residual": float(np.max(np.abs(data["slider"][:, 1:3] - rB))),
        "n_records": int(len(t)),
    }
    newton = {name: int(getattr(it, name)) for name in ("newtonStepsCount", "newtonJacobiCount",
                                                       "rejectedModifiedNewtonSteps") if hasattr(it, name)}
    return dict(peak=float(abs(uy[k])), t_peak=float(t[k]), wall=wall, cpu=cpu, setup=setup, steps=steps,
                per_step=wall / steps, cpu_per_step=cpu / steps, midpoint_history=(t, uy),
                ux_history=(t, ux), checks=checks,
                newton=newton, n_elements=int(n_elements), dt=float(dt), t_end=float(t_end),
                solver=solver, rho_inf=rho_inf if solver == "genalpha" else None,
                linear_solver=linear_solver, n_ode2=int(mbs.systemData.ODE2Size()),
                n_ae=int(mbs.systemData.AEsize()),
                exudyn_version=exu.__version__)


# ---------------------------------------------------------------------------------------------
# tables

def _try(**kw):
    try:
        return run(**kw)
    except RuntimeError:
        return None


def _row(r, P):
    return (f"{r['n_elements']:8d} {r['dt']:9.2e} {r['peak']:10.7f} {r['peak'] / P - 1.0:10.1e} "
            f"{r['t_peak']:10.5f} {r['setup']:9.4f} {r['wall']:9.3f} {r['cpu']:9.3f} {r['per_step']:12.2e}")


_HEAD = (f"{'elements':>8s} {'dt [s]':>9s} {'peak':>10s} {'rel. error':>10s} {'t_peak [s]':>10s} "
         f"{'setup [s]':>9s} {'wall [s]':>9s} {'cpu [s]':>9s} {'wall/step':>12s}")


def convergence(ns=(2, 4, 8, 16), dts=(4e-4, 2e-4, 1e-4, 5e-5, 2.5e-5, 1e-5), reference=(16, 1.25e-6),
                solver="genalpha", t_end=0.1, tol=1e-3, ref=None):
    """Peak against elements and step, relative to the finest run ``reference = (n, dt)``.

    Prints the table and returns ``(reference_run, rows, cheapest)`` where
    ``cheapest`` is the run of least CPU time within ``tol`` of the reference peak
    (``ref``: a reference run already made).
    """
    if ref is None:
        ref = run(reference[0], reference[1], t_end)
    P = ref["peak"]
    print(f"\n{solver}: peak |u_y(L/2)|/L against the converged {P:.7f} "
          f"(generalized-alpha, {ref['n_elements']} elements, dt = {ref['dt']:.3g}, t_peak = {ref['t_peak']:.5f} s)")
    print(_HEAD)
    rows = []
    for n in ns:
        for dt in dts:
            r = _try(n_elements=n, dt=dt, t_end=t_end, solver=solver)
            if r is None:
                print(f"{n:8d} {dt:9.2e}   Newton failed")
                continue
            r["error"] = r["peak"] / P - 1.0
            rows.append(r)
            print(_row(r, P), flush=True)
    ok = [r for r in rows if abs(r["error"]) <= tol]
    cheapest = min(ok, key=lambda r: r["cpu"]) if ok else None
    if cheapest:
        print(f"cheapest run within {100 * tol:.1f} % of the converged peak: {cheapest['n_elements']} elements, "
              f"dt = {cheapest['dt']:.2e}: peak {cheapest['peak']:.7f} ({cheapest['error']:+.1e}), "
              f"solve {cheapest['wall']:.3f} s wall, {cheapest['cpu']:.3f} s cpu")
    else:
        print(f"no run within {100 * tol:.1f} % of the converged peak")
    return ref, rows, cheapest


def fine_steps(ns=(8, 16), dts=(1e-5, 5e-6, 2.5e-6, 1.25e-6), t_end=0.1):
    """The peak at small steps: its scatter is the resolved high bending modes' ripple."""
    print("\ngeneralized-alpha at small steps (the converged value and its scatter)")
    print(_HEAD)
    rows = [r for n in ns for dt in dts if (r := _try(n_elements=n, dt=dt, t_end=t_end)) is not None]
    P = rows[-1]["peak"]
    for r in rows:
        print(_row(r, P))
    peaks = [r["peak"] for r in rows if r["dt"] <= 2.5e-6]
    print(f"dt <= 2.5e-6: peak {min(peaks):.7f} .. {max(peaks):.7f} (spread {max(peaks) / min(peaks) - 1:.1e})")
    return rows


def per_step(ns=(2, 4, 8, 16, 32, 64), dt=1e-4, t_end=0.1, linear_solvers=LINEAR_SOLVERS, repeat=3):
    """Solve time per step (the run of least CPU time of ``repeat``) against the number of elements."""
    print(f"\nper-step cost, generalized-alpha, dt = {dt:g}, {int(round(t_end / dt))} steps, best of {repeat} [s/step]")
    print(f"{'elements':>8s} {'coords':>6s} {'constr':>6s} "
          + " ".join(f"{ls + ' wall':>12s} {ls + ' cpu':>12s}" for ls in linear_solvers)
          + f" {'Newton it./step':>15s} {'peak':>10s}")
    out = {}
    for n in ns:
        best = {}
        for ls in linear_solvers:
            runs = [run(n, dt, t_end, linear_solver=ls) for _ in range(repeat)]
            best[ls] = min(runs, key=lambda r: r["cpu"])
        out[n] = best
        r0 = best[linear_solvers[0]]
        print(f"{n:8d} {r0['n_ode2']:6d} {r0['n_ae']:6d} "
              + " ".join(f"{best[ls]['per_step']:12.2e} {best[ls]['cpu'] / best[ls]['steps']:12.2e}"
                         for ls in linear_solvers)
              + f" {r0['newton'].get('newtonStepsCount', 0) / r0['steps']:15.2f} {r0['peak']:10.7f}", flush=True)
    return out


def against_phmech(n_elements=8, dt=1e-5, t_end=0.1):
    """Exudyn and phmech's stiffened coupler at the same elements and step: peaks and histories."""
    import sys

    from phmech.validation import crank_slider as cs

    argv, sys.argv[1:] = sys.argv[1:], []          # keep PETSc from reading our options
    try:
        ph = cs.run(t_end, n_elements, dt=dt, dt_out=dt, geometric_stiffness=True, plot=False)
    finally:
        sys.argv[1:] = argv
    ex = run(n_elements, dt, t_end)
    t, uy = ex["midpoint_history"]
    P = np.max(np.abs(ph.uy_mid))
    diff = np.abs(np.interp(ph.t, t, uy) - ph.uy_mid) / P
    print(f"\nagainst phmech ({n_elements} elements, dt = {dt:g}; phmech: NonlinearFloatingBeam, midpoint rule)")
    print(f"  peak: phmech {P:.7f}, Exudyn {ex['peak']:.7f} ({ex['peak'] / P - 1:+.1e})")
    print(f"  history: max |u_y,Exudyn - u_y,phmech| / peak = {np.max(diff):.1e} "
          f"(first 20 ms {np.max(diff[ph.t <= 0.02]):.1e})")
    return ph, ex


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="reference 16 elements at dt = 2.5e-6, no small-step and trapezoidal tables, one timing run")
    p.add_argument("--phmech", action="store_true",
                   help="also run phmech's stiffened model (8 elements, dt = 1e-5) and compare the histories")
    args = p.parse_args(argv)
    import exudyn as exu

    print(f"Exudyn {exu.__version__}; crank-slider, stiffened coupler (ANCF cable), undeformed start, 0.1 s")
    if args.quick:
        ref = run(16, 2.5e-6)
    else:
        ref = fine_steps()[-1]
    convergence(ref=ref)
    if not args.quick:
        convergence(ns=(4, 8, 16), dts=(2e-4, 1e-4, 5e-5, 2.5e-5, 1e-5), solver="trapezoidal", ref=ref)
    per_step(repeat=1 if args.quick else 3)
    if args.phmech:
        against_phmech()
    print(f"\nagreement: Exudyn converged peak {ref['peak']:.7f}; phmech stiffened {PHMECH_STIFFENED_PEAK:.6f} "
          f"({100 * (ref['peak'] / PHMECH_STIFFENED_PEAK - 1):+.3f} %), phmech linear floating frame "
          f"{PHMECH_LINEAR_PEAK:.6f} ({100 * (ref['peak'] / PHMECH_LINEAR_PEAK - 1):+.2f} %)")


if __name__ == "__main__":
    main()

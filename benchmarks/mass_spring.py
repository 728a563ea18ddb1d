"""Time per generalized-alpha step of mass-spring networks from 10 to 10^4 masses.

First a chain against Exudyn (:func:`chain_table`): ``N`` point masses of
0.1 kg in 3D on ``N`` springs (1000 N/m, total length 10 m) from a fixed
point, released horizontal under gravity, step 1e-3 s, ``rho_inf = 0.9``, no
damping, for N = 100, 1000, 10^4; the same model in Exudyn (``NodePoint`` +
``MassPoint`` + ``SpringDamper``, generalized-alpha with the same spectral
radius and its default Newton settings, the faster of its dense and sparse
solvers where both are feasible, sparse at 10^4).  phmech runs the network's
second-order form (``mss.simulate``) with the relative Newton tolerance of
Exudyn (1e-8) and, up to 1000 masses, the same network as a body of a
:class:`phmech.System` (``network_body``, first-order form, compiled residual).
Both codes are timed in this process after a first call (checks, assembly,
kernel loading); ratios are phmech / Exudyn.  Without Exudyn
(``pip install exudyn``) the table says so.

Then two lattice families: a planar square lattice with cross bracing (2D) and a
hanging net (3D, a square grid of masses with springs along the grid lines
and diagonals, held at two corners, under gravity); step 0.01 s, so
``omega h ~ 1`` for the stiffest springs.  Prints a table of the time per
step (after a first call that checks and assembles the model) with the
default solver settings and with a fresh LU factorization in every step,
the log-log slopes of time against
the number of masses, and the peak memory of the 10^4-mass 3D run
(tracemalloc, Python allocations incl. numpy arrays; the SuperLU factors
live outside and are reported by the resident set size ``ru_maxrss``).

    python benchmarks/mass_spring.py [--max-masses 10000] [--steps 5] [--chain-only]
"""
import argparse
import resource
import time
import tracemalloc

import numpy as np

from phmech import massspring as ms


def lattice(n, dim, k=1000.0, m=0.1):
    """``n x n`` grid (spacing 1) with springs along rows, columns and both diagonals.

    2D: clamped along the left edge, gravity -y.  3D: a net in the x-y plane
    held at two corners, gravity -z."""
    mss = ms.MassSpringSystem(dim)
    mss.gravity = [0, -9.81] if dim == 2 else [0, 0, -9.81]
    h = {}
    for i in range(n):
        for j in range(n):
            p = [float(i), float(j)] + ([0.0] if dim == 3 else [])
            fixed = (i == 0) if dim == 2 else (i, j) in ((0, 0), (0, n - 1))
            h[i, j] = mss.add(ms.Fix(p) if fixed else ms.Mass(m, p))
    s2 = np.sqrt(2.0)
    for i in range(n):
        for j in range(n):
            for di, dj, L in ((1, 0, 1.0), (0, 1, 1.0), (1, 1, s2), (1, -1, s2)):
                a, b = (i, j), (i + di, j + dj)
                if b in h and not (h[a].kind == "fix" and h[b].kind == "fix"):
                    mss.add(ms.Spring(L, k, [h[a], h[b]]))
    return mss


def time_per_step(mss, steps, dt=1e-2, **options):
    """Seconds per step and LU factorizations per step (omega h ~ 1 for the stiffest springs)."""
    mss.simulate(dt, 1, **options)           # checks, assembly of the patterns
    tic = time.perf_counter()
    res = mss.simulate(steps * dt, steps, **options)
    return (time.perf_counter() - tic) / steps, res.stats["nlu"] / steps


CHAIN_K, CHAIN_M, CHAIN_LENGTH, CHAIN_DT, CHAIN_RHO = 1000.0, 0.1, 10.0, 1e-3, 0.9


def chain(n):
    """The chain of :func:`chain_table` as a network."""
    mss = ms.MassSpringSystem3d()
    mss.gravity = [0.0, 0.0, -9.81]
    L = CHAIN_LENGTH / n
    prev = mss.add(ms.Fix([0.0, 0.0, 0.0]))
    for i in range(n):
        node = mss.add(ms.Mass(CHAIN_M, [(i + 1) * L, 0.0, 0.0]))
        mss.add(ms.Spring(L, CHAIN_K, [prev, node]))
        prev = node
    return mss


def exudyn_chain(n, steps, sparse):
    """Seconds per step of the chain in Exudyn (None without Exudyn)."""
    try:
        import exudyn as exu
        from exudyn.itemInterface import (MarkerBodyPosition, MarkerNodePosition, MassPoint, NodePoint,
                                          ObjectGround, SpringDamper, Force)
    except ImportError:
        return None
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.AddObject(ObjectGround(referencePosition=[0, 0, 0]))
    prev = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=[0, 0, 0]))
    L = CHAIN_LENGTH / n
    for i in range(n):
        node = mbs.AddNode(NodePoint(referenceCoordinates=[(i + 1) * L, 0, 0]))
        mbs.AddObject(MassPoint(mass=CHAIN_M, nodeNumber=node))
        mk = mbs.AddMarker(MarkerNodePosition(nodeNumber=node))
        mbs.AddLoad(Force(markerNumber=mk, loadVector=[0, 0, -9.81 * CHAIN_M]))
        mbs.AddObject(SpringDamper(markerNumbers=[prev, mk], referenceLength=L, stiffness=CHAIN_K, damping=0.0))
        prev = mk
    mbs.Assemble()
    s = exu.SimulationSettings()
    s.timeIntegration.numberOfSteps = steps
    s.timeIntegration.endTime = steps * CHAIN_DT
    s.timeIntegration.verboseMode = 0
    s.solution.file.write = False
    s.timeIntegration.generalizedAlpha.spectralRadius = CHAIN_RHO
    s.linearSolver.solverType = exu.LinearSolverType.EigenSparse if sparse else exu.LinearSolverType.EXUdense
    tic = time.perf_counter()
    mbs.SolveDynamic(s)
    return (time.perf_counter() - tic) / steps


def phmech_chain(n, steps, system=False, **options):
    """Seconds per step of the chain in phmech: ``mss.simulate`` (second-order form), or with
    ``system`` the network body of a System (first-order generalized-alpha on the compiled
    residual); timed from the end of the first step, so that set-up, kernel loading and the
    consistent start are not counted."""
    opts = dict(newton_tol=1e-8, rho_inf=CHAIN_RHO, **options)
    if not system:
        mss = chain(n)
        mss.simulate(CHAIN_DT, 1, **opts)              # checks, assembly, kernel loading
        tic = time.perf_counter()
        mss.simulate(steps * CHAIN_DT, steps, **opts)
        return (time.perf_counter() - tic) / steps
    from phmech import System
    from phmech.solvers import solve
    body, loads = ms.network_body(chain(n))
    s = System([body])
    for ld in loads:
        s.add_load(ld)
    dae = s.assemble()
    assert dae.compiled_residual().path == "compiled"
    y0 = np.r_[body.q0, body.v0]
    marks = []
    solve(dae, (0.0, (steps + 1) * CHAIN_DT), y0, method="genalpha", dt=CHAIN_DT,
          callbacks=[lambda solver: marks.append(time.perf_counter())], **opts)
    return (marks[-1] - marks[0]) / steps


def chain_table(sizes=(100, 1000, 10000)):
    """Per-step times of the chain in phmech and Exudyn and their ratios (dict by size): phmech's
    second-order form with its default iteration matrix policy (kept over steps) and with a fresh
    LU in every step, the System form up to 1000
    masses; the peer is the faster of Exudyn's dense and sparse solvers."""
    print("chain of N masses against Exudyn, seconds per step (ratio = phmech / Exudyn)")
    print(f"{'masses':>7} {'phmech':>10} {'fresh LU':>10} {'System':>10} {'Exudyn dns':>11} {'Exudyn sps':>11} "
          f"{'ratio':>7} {'fresh LU':>8} {'System':>7}")
    out = {}
    fmt = (lambda x: f"{x:.4g}" if x is not None else "-")
    for n in sizes:
        steps = 200 if n <= 100 else (50 if n <= 1000 else 10)
        ours = phmech_chain(n, steps)
        fresh = phmech_chain(n, steps, reuse_jacobian=False)
        sys_t = phmech_chain(n, steps, system=True) if n <= 1000 else None
        dense = exudyn_chain(n, steps, sparse=False) if n <= 1000 else None
        sparse = exudyn_chain(n, steps, sparse=True)
        peer = min((x for x in (dense, sparse) if x is not None), default=None)
        ratios = [x / peer if (peer and x) else None for x in (ours, fresh, sys_t)]
        print(f"{n:>7} {fmt(ours):>10} {fmt(fresh):>10} {fmt(sys_t):>10} {fmt(dense):>11} {fmt(sparse):>11} "
              f"{fmt(ratios[0]):>7} {fmt(ratios[1]):>8} {fmt(ratios[2]):>7}", flush=True)
        out[n] = dict(phmech=ours, fresh=fresh, system=sys_t, exudyn=peer, ratio=ratios[0], fresh_ratio=ratios[1],
                      system_ratio=ratios[2])
    if all(v["exudyn"] is None for v in out.values()):
        print("Exudyn is not installed (pip install exudyn): no peer times")
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--max-masses", type=int, default=10000)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--chain-only", action="store_true", help="only the chain against Exudyn")
    args = p.parse_args(argv)
    chain_table(tuple(n for n in (100, 1000, 10000) if n <= args.max_masses))
    if args.chain_only:
        return None
    sides = [s for s in (4, 8, 16, 32, 64, 101) if s * s <= args.max_masses * 1.05]
    print(f"{'case':>6} {'masses':>8} {'springs':>8} {'s/step':>10} {'LU/step':>8} {'s/step fresh LU':>16}")
    slopes = {}
    for dim in (2, 3):
        N, T, T1 = [], [], []
        for n in sides:
            mss = lattice(n, dim)
            t, nlu = time_per_step(mss, args.steps)
            t1, _ = time_per_step(mss, args.steps, reuse_jacobian=False)
            N.append(len(mss.masses))
            T.append(t)
            T1.append(t1)
            print(f"{dim}D{'':>4} {len(mss.masses):>8} {len(mss.springs):>8} {t:>10.4g} {nlu:>8.2f} {t1:>16.4g}",
                  flush=True)
        big = [k for k, x in enumerate(N) if x >= 100]
        logN = np.log(np.array(N)[big])
        slopes[dim] = (np.polyfit(logN, np.log(np.array(T)[big]), 1)[0],
                       np.polyfit(logN, np.log(np.array(T1)[big]), 1)[0])
        print(f"{dim}D: log-log slope of time per step vs masses (>= 100 masses): {slopes[dim][0]:.2f} "
              f"(default; the iteration matrix is kept over steps), "
              f"{slopes[dim][1]:.2f} (fresh LU every step)")
    n = sides[-1]
    tracemalloc.start()
    mss = lattice(n, 3)
    mss.simulate(2e-2, 2)
    cur, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"3D net with {len(mss.masses)} masses, {len(mss.springs)} springs: peak traced memory "
          f"{peak / 2 ** 20:.1f} MiB, max resident set {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    return slopes


if __name__ == "__main__":
    main()

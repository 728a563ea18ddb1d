"""A modally reduced flexible pendulum in phmech and in Exudyn's ``ObjectFFRFreducedOrder``: time per step.

The body: a steel bar 1 x 0.1 x 0.1 m (E = 2.1e11 Pa, nu = 0.3, rho = 7800 kg/m^3) of
``10 m x m x m`` boxes of six tetrahedra, quadratic velocity
(:class:`phmech.fem.ElasticSolid`, degree 2, ``m = 2``: 1025 nodes, 3075 unknowns of
displacement), its frame attached to the face ``x = 0`` (the mesh is shifted so that the face's
centre is the frame's origin), pinned there to the ground by a spherical joint, gravity 9.81
m/s^2 along -y, released at rest in the horizontal.

Both codes get the same finite-element model and the same number of modes ``k``:

* phmech: the floating solid with ``reference=("clamped", 1)`` (the face moves with the frame),
  reduced offline by :func:`phmech.reduce.modal_reduction` to the ``k`` lowest modes of its
  elastic field (the bar clamped at the face), saved (:meth:`~phmech.reduce.ReducedBody.save`)
  and loaded for the run (no Firedrake needed online); ``6 + 2k`` efforts and 7 configuration
  coordinates, the implicit midpoint rule (compiled).
* Exudyn: the mass matrix ``M`` and the stiffness ``K = D^T C^{-1} D`` of the same bar with no
  condition (the velocity--stress body's kinetic block and condensed stiffness: the
  displacement model's matrices), over the same nodes (x, y, z per node, Exudyn's ordering),
  given to its ``FEMinterface``; its Hurty--Craig--Bampton modes with the face ``x = 0`` as the
  one RBE2 interface whose rigid motion is excluded (so: the bar clamped at the face, the same
  ``k`` modes), ``ObjectFFRFreducedOrder`` (C++ terms, Euler parameters) with a spherical joint
  at its reference node, its trapezoidal rule with index-2 constraints (the midpoint rule's
  counterpart), one thread, dense LU, no output files.

Each mode count is timed in ``--pairs`` interleaved pairs (phmech then Exudyn, same step, same
span) after one warm-up run of each; the table gives the medians of the time per step and the
median of the pairs' ratios, and, as a check that both simulate the same thing, the lowest
clamped frequency from each code's modes, the frame's angle about z and the tip's elastic
deflection (body frame, y) at the end.

The offline part (the FE model, the reduction, the exported matrices) needs Firedrake and runs
once into ``--data`` (``--prepare``, or on the first run where Firedrake imports); the timing
needs Exudyn (``pip install exudyn``) and runs in an environment with or without Firedrake::

    python benchmarks/reduced_exudyn.py --prepare               # with Firedrake: data/ files
    python benchmarks/reduced_exudyn.py [--modes 10 20 40] [--dt 1e-4] [--t-end 0.05] [--pairs 5]
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)                    # peers/

L, B, RHO, E, NU, G = 1.0, 0.1, 7800.0, 2.1e11, 0.3, 9.81
DEFAULT_DATA = os.path.join(HERE, "out", "reduced_exudyn")


# -- offline (Firedrake) --------------------------------------------------------------------------
def _mesh(m):
    import firedrake as fd
    mesh = fd.BoxMesh(10 * m, m, m, L, B, B)
    mesh.coordinates.dat.data[:, 1:] -= 0.5 * B             # the face x = 0 centred on the origin
    return mesh


def solid(m=2, floating=True):
    """The bar as a :class:`~phmech.fem.ElasticSolid`: floating with the face 1 (``x = 0``) as its
    reference and a port ``root`` there, or fixed and free (``floating=False``: the matrices)."""
    from phmech.fem import ElasticSolid
    if floating:
        body = ElasticSolid("bar", _mesh(m), RHO, E, NU, degree=2, floating=True, reference=("clamped", 1))
        body.add_face_port("root", 1)
        return body
    return ElasticSolid("bar", _mesh(m), RHO, E, NU, degree=2)


def exported_matrices(body):
    """``(M, K, nodes)`` of the free bar ``body``: the kinetic block and the condensed stiffness
    ``D^T C^{-1} D`` over the velocity unknowns (node-major x, y, z) and the nodes ``(n, 3)``."""
    import firedrake as fd
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla
    v, s = body.velocity_dofs, body.stress_dofs
    if len(v) != 3 * (len(v) // 3) or not np.array_equal(v, np.arange(len(v))):
        raise RuntimeError("the free bar's velocity unknowns are not the leading node-major block")
    Mall, J = sp.csr_matrix(body.M), sp.csr_matrix(body.J0)
    M = Mall[v][:, v].tocsr()
    C, D = sp.csc_matrix(Mall[s][:, s]), sp.csr_matrix(J[s][:, v])
    K = sp.csr_matrix(D.T @ spla.splu(C).solve(D.toarray()))
    K = sp.csr_matrix(0.5 * (K + K.T))
    K.data[np.abs(K.data) < 1e-14 * np.abs(K.data).max()] = 0.0
    K.eliminate_zeros()
    V = body.space.sub(0).collapse()
    nodes = np.asarray(fd.Function(V).interpolate(fd.SpatialCoordinate(body.mesh)).dat.data_ro).reshape(-1, 3)
    return M, K, nodes


def prepare(folder, modes, m=2):
    """Write the reduced bodies ``bar_<k>.h5`` and the exported matrices ``exudyn_model.npz``."""
    from phmech.reduce import modal_reduction
    os.makedirs(folder, exist_ok=True)
    tic = time.perf_counter()
    M, K, nodes = exported_matrices(solid(m, floating=False))
    np.savez(os.path.join(folder, "exudyn_model.npz"), nodes=nodes,
             **{f"{n}_{p}": getattr(A, p) for n, A in (("M", M), ("K", K)) for p in ("data", "indices", "indptr")})
    body = solid(m)
    print(f"offline: the FE model ({K.shape[0]} displacement unknowns, {body.ne} efforts floating) "
          f"in {time.perf_counter() - tic:.1f} s", flush=True)
    for k in modes:
        tic = time.perf_counter()
        red = modal_reduction(body, k, ports=["root"])
        red.save(os.path.join(folder, f"bar_{k}.h5"))
        print(f"offline: {k} modes in {time.perf_counter() - tic:.1f} s", flush=True)


# -- online: phmech -------------------------------------------------------------------------------
def tip_vertex(points):
    return int(np.argmin(np.linalg.norm(points - np.array([L, 0.0, 0.0]), axis=1)))


def phmech_run(red, t_end, dt):
    """``(per step [s], angle about z [rad], tip deflection y [m], residual path)`` of one midpoint
    run of the loaded reduced bar."""
    from spatial_chain import path_of

    from phmech import System
    from phmech.joints import Spherical
    s = System([red])
    s.add_joint(Spherical(red.port("root"), None, name="pin"))
    s.add_gravity((0.0, -G, 0.0))
    dae = s.assemble()
    y0 = dae.initial_state()
    tic = time.perf_counter()
    res = s.simulate(t_end, solver="midpoint", dt=dt, y0=y0)
    wall = time.perf_counter() - tic - res.stats.get("kernel_time", 0.0)
    q, e = res.y[-1][dae.sq][dae.q_slices[red.name]], res.e(red)[-1]
    R = red.rotation(q)
    tip = tip_vertex(red.full_mesh.points)
    u = red.vertex_basis()[tip] @ e[red.basis.rs]
    return wall / res.stats["nsteps"], float(np.arctan2(R[1, 0], R[0, 0])), float(u[1]), path_of(dae)


# -- online: Exudyn -------------------------------------------------------------------------------
def exudyn_modes(data, k):
    """``(FEMinterface with its modes, the face nodes, lowest frequency [rad/s], seconds)``: Exudyn's
    Hurty--Craig--Bampton modes of the exported matrices, the face ``x = 0`` an RBE2 interface whose
    rigid motion is excluded."""
    import scipy.sparse as sp
    from exudyn.FEM import FEMinterface, HCBstaticModeSelection
    fem = FEMinterface()
    nodes = data["nodes"]
    n = 3 * len(nodes)
    fem.nodes = {"Position": nodes}
    fem.massMatrix = sp.csr_matrix((data["M_data"], data["M_indices"], data["M_indptr"]), shape=(n, n))
    fem.stiffnessMatrix = sp.csr_matrix((data["K_data"], data["K_indices"], data["K_indptr"]), shape=(n, n))
    face = np.flatnonzero(np.abs(nodes[:, 0]) < 1e-9)
    tic = time.perf_counter()
    fem.ComputeHurtyCraigBamptonModes(boundaryNodesList=[face], nEigenModes=k, useSparseSolver=True,
                                      computationMode=HCBstaticModeSelection.RBE2)
    seconds = time.perf_counter() - tic
    if fem.modeBasis["matrix"].shape[1] != k:
        raise RuntimeError(f"Exudyn returned {fem.modeBasis['matrix'].shape[1]} modes for {k}")
    return fem, face, float(np.sqrt(np.min(fem.eigenValues))), seconds


def exudyn_run(fem, t_end, dt):
    """``(per step [s], angle about z [rad], tip deflection y [m])`` of one run of Exudyn's
    ``ObjectFFRFreducedOrder`` from the modes of ``fem``."""
    import exudyn as exu
    import exudyn.itemInterface as eii
    from exudyn.FEM import ObjectFFRFreducedOrderInterface
    from peers.exudyn_crank_slider import settings
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    cms = ObjectFFRFreducedOrderInterface(fem)
    obj = cms.AddObjectFFRFreducedOrder(mbs, positionRef=[0.0, 0.0, 0.0], gravity=[0.0, -G, 0.0])
    ground = mbs.AddObject(eii.ObjectGround(referencePosition=[0.0, 0.0, 0.0]))
    m_ground = mbs.AddMarker(eii.MarkerBodyPosition(bodyNumber=ground, localPosition=[0.0, 0.0, 0.0]))
    m_pin = mbs.AddMarker(eii.MarkerNodePosition(nodeNumber=obj["nRigidBody"]))
    mbs.AddObject(eii.SphericalJoint(markerNumbers=[m_ground, m_pin]))
    mbs.Assemble()
    sim, solver_type = settings(dt, t_end, solver="trapezoidal", linear_solver="dense")
    tic = time.perf_counter()
    exu.SolveDynamic(mbs, sim, solverType=solver_type)
    wall = time.perf_counter() - tic
    R = np.asarray(mbs.GetNodeOutput(obj["nRigidBody"], exu.OutputVariableType.RotationMatrix)).reshape(3, 3)
    qm = np.asarray(mbs.GetNodeOutput(obj["nGenericODE2"], exu.OutputVariableType.Coordinates))
    tip = tip_vertex(fem.nodes["Position"])
    u = fem.modeBasis["matrix"][3 * tip:3 * tip + 3] @ qm
    return wall / int(round(t_end / dt)), float(np.arctan2(R[1, 0], R[0, 0])), float(u[1])


# -- the table ------------------------------------------------------------------------------------
def measure(folder, k, t_end, dt, pairs):
    """The row of ``k`` modes (a dict)."""
    from phmech.reduce import ReducedBody
    red = ReducedBody.load(os.path.join(folder, f"bar_{k}.h5"))
    with np.load(os.path.join(folder, "exudyn_model.npz"), allow_pickle=False) as f:
        data = dict(f)
    fem, face, w_exu, t_modes = exudyn_modes(data, k)
    phmech_run(red, 10 * dt, dt)                            # warm-up: kernels loaded, caches filled
    exudyn_run(fem, 10 * dt, dt)
    ph, ex = [], []
    for _ in range(pairs):
        *numbers, path = phmech_run(red, t_end, dt)
        ph.append(numbers)
        ex.append(exudyn_run(fem, t_end, dt))
    ph, ex = np.array(ph), np.array(ex)
    return {"k": k, "ne": red.ne, "phmech": float(np.median(ph[:, 0])), "exudyn": float(np.median(ex[:, 0])),
            "ratio": float(np.median(ph[:, 0] / ex[:, 0])), "w_phmech": float(red.info["omega_free"][0]),
            "w_exudyn": w_exu, "angle": (ph[-1, 1], ex[-1, 1]), "tip": (ph[-1, 2], ex[-1, 2]),
            "exudyn_modes_s": t_modes, "n_face": len(face), "path": path}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--modes", type=int, nargs="+", default=[10, 20, 40], help="mode counts")
    p.add_argument("--dt", type=float, default=1e-4, help="fixed step [s]")
    p.add_argument("--t-end", type=float, default=0.05, help="span of each timed run [s]")
    p.add_argument("--pairs", type=int, default=5, help="interleaved timed pairs per mode count")
    p.add_argument("--m", type=int, default=2, help="boxes across the section (10 m along the bar)")
    p.add_argument("--data", default=DEFAULT_DATA, help="folder of the offline files")
    p.add_argument("--prepare", action="store_true", help="only write the offline files (needs Firedrake)")
    args = p.parse_args(argv)
    sys.argv[1:] = []                   # PETSc (started by Firedrake) reads the command line
    have = all(os.path.exists(os.path.join(args.data, f"bar_{k}.h5")) for k in args.modes) and \
        os.path.exists(os.path.join(args.data, "exudyn_model.npz"))
    if args.prepare or not have:
        prepare(args.data, args.modes, args.m)
        if args.prepare:
            return 0
    try:
        import exudyn
    except ImportError:
        print("Exudyn is not importable (pip install exudyn): no comparison")
        return 1
    print(f"flexible pendulum, {args.t_end} s at dt = {args.dt}; phmech midpoint (compiled), Exudyn "
          f"{exudyn.__version__} trapezoidal index 2; medians of {args.pairs} interleaved pairs")
    print(f"{'modes':>5s} {'phmech [us/step]':>16s} {'Exudyn [us/step]':>16s} {'ratio':>6s} "
          f"{'w1 phmech':>10s} {'w1 Exudyn':>10s} {'angle ph':>9s} {'angle ex':>9s} {'tip_y ph':>10s} "
          f"{'tip_y ex':>10s}  phmech residual")
    for k in args.modes:
        r = measure(args.data, k, args.t_end, args.dt, args.pairs)
        print(f"{k:5d} {1e6 * r['phmech']:16.1f} {1e6 * r['exudyn']:16.1f} {r['ratio']:6.2f} "
              f"{r['w_phmech']:10.3f} {r['w_exudyn']:10.3f} {r['angle'][0]:9.5f} {r['angle'][1]:9.5f} "
              f"{r['tip'][0]:10.3e} {r['tip'][1]:10.3e}  {r['path']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Plates on PETSc/SLEPc/MUMPS: the same frequencies and time histories as the serial scipy path,
on one process and under ``mpiexec -n 2``."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

fd = pytest.importorskip("firedrake")
from phmech.parallel import plate_mpi as pm  # noqa: E402
from phmech.solvers.eigen_slepc import have_slepc  # noqa: E402

if not have_slepc():
    pytest.skip("slepc4py.SLEPc is not importable (scripts/install.sh builds it against this PETSc); "
                "the SLEPc eigen path cannot run", allow_module_level=True)


def _petsc_to_scipy(A):
    import scipy.sparse as sp
    indptr, indices, data = A.getValuesCSR()
    return sp.csr_matrix((data, indices, indptr), shape=A.getSize())


def _blocks(p):
    v, s = p.velocity_dofs, p.stress_dofs
    return p.M[v][:, v].tocsc(), p.M[s][:, s].tocsc(), p.J0[s][:, v].tocsc()


def test_distributed_operators_are_the_serial_plates():
    """On one process the PETSc operators are plate.M and plate.J0 (forms, conditions and numbering)."""
    from phmech.fem import KirchhoffPlate, MindlinPlate
    from phmech.parallel import kirchhoff_plate, mindlin_plate
    bc = {1: "clamped", 2: "free", 3: "simply_supported"}
    mesh = fd.UnitSquareMesh(3, 3)
    for cls, build, kw in ((KirchhoffPlate, kirchhoff_plate, {"degree": 2}),
                           (MindlinPlate, mindlin_plate, {"degree": 2})):
        p = cls("p", mesh, 0.01, 2700.0, 70e9, 0.3, boundary=bc, **kw)
        q = build(mesh, 0.01, 2700.0, 70e9, 0.3, boundary=bc, **kw)
        assert q.ne == p.ne
        assert abs(_petsc_to_scipy(q.E) - p.M).max() <= 1e-14 * abs(p.M).max()
        assert abs(_petsc_to_scipy(q.J) - p.J0).max() <= 1e-14 * abs(p.J0).max()
        assert np.array_equal(q.is_v.getIndices(), p.velocity_dofs)


def test_slepc_frequencies_equal_scipy_condensed_modes():
    """SLEPc shift-invert with the saddle-point factor: the frequencies of condensed_modes to 1e-10,
    Mv-orthonormal modes with small residuals (Kirchhoff cantilever, Mindlin, free plate with shift)."""
    from phmech.fem import KirchhoffPlate, MindlinPlate
    from phmech.fem.condensed import condensed_modes
    from phmech.solvers.eigen_slepc import condensed_modes_slepc
    mesh = fd.UnitSquareMesh(6, 6)
    cases = [(KirchhoffPlate("p", mesh, 0.05, 2700.0, 70e9, 0.3, degree=2, boundary=pm.CANTILEVER), 0.0),
             (MindlinPlate("p", mesh, 0.05, 2700.0, 70e9, 0.3, degree=2, boundary=pm.SS_ALL), 0.0),
             (KirchhoffPlate("p", mesh, 1.0, 1.0, 12 * (1 - 0.3 ** 2), 0.3, degree=2), -1.0)]
    for p, sigma in cases:
        Mv, C, B = _blocks(p)
        w0, _ = condensed_modes(Mv, C, B, 8, sigma)
        w, V = condensed_modes_slepc(Mv, C, B, 8, sigma)
        elastic = w0 > 1e-3 * w0.max()
        assert np.max(np.abs(w[elastic] / w0[elastic] - 1)) < 1e-10, (w, w0)
        assert np.all(w[~elastic] < 1e-5 * w0.max())           # the free plate's three rigid modes
        assert np.sum(~elastic) == (3 if sigma else 0)
        assert np.allclose(V.T @ (Mv @ V), np.eye(8), atol=1e-10)
        K = B.T @ np.linalg.solve(C.toarray(), B @ V)
        res = np.linalg.norm(K - (Mv @ V) * w ** 2, axis=0) / np.linalg.norm(Mv @ V * w0.max() ** 2, axis=0)
        assert res.max() < 1e-9, res


def test_slepc_bordered_constraints_are_a_clamped_edge():
    """Multipliers: v = 0 at the velocity nodes of a 'guided' edge (G v = 0, bordered factor) is the
    clamped edge of the serial plate, and the multipliers' infinite eigenvalues never show up."""
    from phmech.fem import KirchhoffPlate
    from phmech.fem.condensed import condensed_modes
    from phmech.solvers.eigen_slepc import condensed_modes_slepc
    mesh = fd.UnitSquareMesh(6, 6)
    guided = KirchhoffPlate("p", mesh, 0.05, 2700.0, 70e9, 0.3, degree=2, boundary={1: "clamped", 2: "guided"})
    clamped = KirchhoffPlate("p", mesh, 0.05, 2700.0, 70e9, 0.3, degree=2, boundary={1: "clamped", 2: "clamped"})
    idx, _ = guided.edge_nodes(2)
    col = np.searchsorted(guided.velocity_dofs, idx)
    G = np.zeros((len(col), len(guided.velocity_dofs)))
    G[np.arange(len(col)), col] = 1.0
    w, V = condensed_modes_slepc(*_blocks(guided), 6, G=G)
    w_ref, _ = condensed_modes(*_blocks(clamped), 6)
    w_scipy, _ = condensed_modes(*_blocks(guided), 6, G=G)
    assert np.max(np.abs(w / w_ref - 1)) < 1e-10
    assert np.max(np.abs(w / w_scipy - 1)) < 1e-10
    assert np.max(np.abs(G @ V)) < 1e-12 * np.max(np.abs(V))


@pytest.mark.parametrize("symmetric", [False, True])
def test_linear_midpoint_equals_system_serial(symmetric):
    """PETSc midpoint with MUMPS (LU, or LDL^T of the signed matrix), one process: the phmech.System
    run (serial midpoint solver) to 1e-10, and the exact discrete power balance."""
    from phmech.parallel import LinearMidpoint, kirchhoff_plate
    p = kirchhoff_plate(pm.mesh(4), pm.H_PLATE, pm.RHO, pm.E_MOD, pm.NU, degree=2, boundary=pm.CANTILEVER)
    stepper = LinearMidpoint(p.E, p.J, 2e-5, [p.load_vector(pm.pressure), p.patch_row(*pm.PATCH)],
                             stress=p.is_s if symmetric else None)
    assert stepper.symmetric == symmetric
    r = stepper.run(p.vector(), 0.0, 60, pm.inputs)
    t, H, v, ref = pm.reference_run(4, 60, 2e-5)
    e_ref = ref.e("p")[-1]
    assert np.allclose(r.t, t, rtol=0, atol=1e-15)
    assert np.max(np.abs(r.e.getArray() - e_ref)) < 1e-10 * np.max(np.abs(e_ref))
    assert np.max(np.abs(r.H - H)) < 1e-10 * H.max()
    assert np.max(np.abs(r.balance())) < 1e-12 * H.max()
    assert H.max() > 0.1 and np.max(np.abs(r.work)) > 0.1


def test_two_ranks_equal_serial(tmp_path):
    """``mpiexec -n 2``: distributed assembly, SLEPc frequencies (Kirchhoff and Mindlin) and the forced
    midpoint run equal the serial scipy / phmech.System results to 1e-10."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1")
    cmd = ["mpiexec", "-n", "2", "--oversubscribe", sys.executable, "-m", "phmech.parallel.plate_mpi",
           "--n", "6", "--steps", "100", "--outdir", str(tmp_path)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads((tmp_path / "summary.json").read_text())
    assert out["ranks"] == 2 and min(out["rows_per_rank"]) > 0.3 * out["kirchhoff_unknowns"]
    ref = pm.reference_modes(6)
    for key in ("kirchhoff_omega", "mindlin_omega"):
        assert np.max(np.abs(np.array(out[key]) / ref[key] - 1)) < 1e-10, (key, out[key], ref[key])
    t, H, v, _ = pm.reference_run(6, 100, 2e-5)
    assert np.allclose(out["t"], t, rtol=0, atol=1e-15)
    assert np.max(np.abs(np.array(out["H"]) - H)) < 1e-10 * H.max()
    assert np.max(np.abs(np.array(out["v_points"]) - v)) < 1e-10 * np.max(np.abs(v))
    assert out["balance_rel"] < 1e-12


def test_bad_input_is_named():
    """One error naming every bad parameter; the step size and the number of modes are checked."""
    from phmech.parallel import LinearMidpoint, kirchhoff_plate, mindlin_plate
    from phmech.solvers.eigen_slepc import condensed_modes_slepc
    mesh = fd.UnitSquareMesh(2, 2)
    with pytest.raises(ValueError, match=r"plate 'q'.*h=-1.*E=0"):
        kirchhoff_plate(mesh, -1.0, 1.0, 0.0, 0.3, name="q")
    with pytest.raises(ValueError, match=r"marker 7.*marker 1: unknown condition 'hinged'"):
        mindlin_plate(mesh, 0.1, 1.0, 1.0, 0.3, boundary={7: "free", 1: "hinged"})
    p = kirchhoff_plate(mesh, 0.1, 1.0, 1.0, 0.3, boundary={1: "clamped"})
    with pytest.raises(ValueError, match=r"dt must be positive and finite, got 0.0"):
        LinearMidpoint(p.E, p.J, 0.0)
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, "):
        condensed_modes_slepc(*p.blocks(), k=10 ** 6)

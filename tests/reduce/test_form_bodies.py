"""Craig-Bampton reduction of bodies of weak forms (FormBody): a clamped rod and a Kirchhoff
cantilever plate against their full models (frequencies from above, errors decreasing over the
mode counts, a static port load exact to round-off), the rod with a tip mass reduced and full,
SLEPc and scipy giving the same basis, and the reduction under MPI on two ranks equal to the
serial one."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

fd = pytest.importorskip("firedrake")

from phmech import PointMass, System  # noqa: E402
from phmech.joints import Revolute  # noqa: E402
from phmech.reduce import ReducedBody, craig_bampton  # noqa: E402
from phmech.validation import reduced_bodies as case  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_reduced_rod_of_forms_converges_and_is_statically_exact():
    rod = case.rod(48)
    t = case.error_table(rod, (2, 4, 8), 3)
    e = t["errors"]
    assert np.all(e >= -1e-10), e
    assert np.all(np.diff(e, axis=0) < 0), e
    assert e[-1, 0] < 1e-4
    assert case.static_check(rod, np.array([1.0, 0.0])) < 1e-10


def test_the_reduced_plate_of_forms_converges_and_is_statically_exact():
    plate = case.plate(4)
    t = case.error_table(plate, (2, 4, 8), 3)
    e = t["errors"]
    assert np.all(e >= -1e-9), e
    # the torsion mode (2) does not see the edge's mean velocity: exact to round-off with any count
    assert np.all(np.diff(e[:, [0, 2]], axis=0) < 0) and np.all(e[:, 1] < 1e-9), e
    assert e[-1, 0] < 1e-4
    assert case.static_check(plate, np.array([0.0, 0.0, 1.0])) < 1e-10


def test_the_reduced_rod_with_a_tip_mass_matches_the_full_one():
    def system(body):
        tip = PointMass("tip", 1.5, (case.L_ROD, 0.0))
        s = System([body, tip])
        s.add_joint(Revolute(body.port("tip"), tip.port("P"), name="weld"))
        return s
    rod = case.rod(32)
    red = craig_bampton(rod, ["tip"], 6)
    w_full = system(rod).linearize().eigenmodes(2).omega
    w_red = system(red).linearize().eigenmodes(2).omega
    assert np.all(w_red >= w_full * (1 - 1e-10)) and np.all(w_red / w_full - 1 < 1e-3), (w_red, w_full)
    res, _ = case.tip_mass_run(red, 0.02, 1e-4)
    assert np.max(np.abs(res.energy_balance())) <= 1e-10 * res.hamiltonian()[0]
    # the full fields at the end: the function of the full body on its mesh
    u = rod.field(red.recover(res.e(red)[-1]))
    tip_v = fd.assemble(u.subfunctions[0] * fd.ds(2, domain=rod.mesh))       # its value at x = L
    assert np.isclose(tip_v, res.e("tip")[-1, 0], rtol=1e-10, atol=1e-12)


def test_slepc_and_scipy_give_the_same_reduced_body():
    pytest.importorskip("slepc4py")
    rod = case.rod(32)
    a = craig_bampton(rod, ["tip"], 4, eigensolver="scipy")
    b = craig_bampton(rod, ["tip"], 4, eigensolver="slepc")
    for X, Y in ((a.M, b.M), (a.J0, b.J0)):
        assert abs(X - Y).max() <= 1e-8 * abs(X).max()


@pytest.mark.skipif(shutil.which("mpiexec") is None, reason="no mpiexec")
def test_the_reduction_on_two_ranks_equals_the_serial_one(tmp_path):
    pytest.importorskip("slepc4py")
    pytest.importorskip("mpi4py")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]),
           "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMP_NUM_THREADS": "1"}
    out = str(tmp_path / "rod.h5")
    cmd = ["mpiexec", "-n", "2", "--oversubscribe", sys.executable, "-m", "phmech.reduce",
           "phmech.validation.reduced_bodies:rod", "--param", "n=40", "--interface", "tip", "--modes", "5",
           "--out", out]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "on 2 rank(s)" in proc.stdout and proc.stdout.count("peak memory") == 2, proc.stdout
    b = ReducedBody.load(out)
    a = craig_bampton(case.rod(40), ["tip"], 5, eigensolver="slepc")      # one process
    assert b.info["offline"]["ranks"] == 2 and len(b.info["offline"]["per_rank"]) == 2
    assert np.allclose(a.info["omega_fixed_interface"], b.info["omega_fixed_interface"], rtol=1e-9)
    for X, Y in ((a.M, b.M), (a.J0, b.J0)):
        assert abs(X - Y).max() <= 1e-8 * abs(X).max()


def test_one_process_above_the_size_limit_solves_as_the_distributed_path(monkeypatch):
    """A large body on one process takes the PETSc solves (MUMPS, conjugate gradients) instead of
    SuperLU's bordered saddle-point factor: the limit lowered to zero, the 3D bar's reduction
    equals the SuperLU and ARPACK one (frequencies to the eigen solvers' tolerance, the reduced
    matrices to 1e-8)."""
    pytest.importorskip("slepc4py")
    from phmech.reduce import reduction
    body = case.solid(1)
    a = craig_bampton(body, ["tip"], 5, eigensolver="scipy")
    monkeypatch.setattr(reduction, "PETSC_MIN_UNKNOWNS", 0)

    def superlu(*args):
        raise AssertionError("the SuperLU constraint modes ran")
    monkeypatch.setattr(reduction, "constraint_modes", superlu)
    b = craig_bampton(body, ["tip"], 5, eigensolver="slepc")
    assert np.allclose(a.info["omega_fixed_interface"], b.info["omega_fixed_interface"], rtol=1e-9)
    for X, Y in ((a.M, b.M), (a.J0, b.J0)):
        assert abs(X - Y).max() <= 1e-8 * abs(X).max()


def test_the_command_line_names_a_bad_builder_and_too_many_modes(tmp_path):
    pytest.importorskip("mpi4py")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])}

    def reduce_(*args):
        return subprocess.run([sys.executable, "-m", "phmech.reduce", *args, "--out", str(tmp_path / "x.h5")],
                              env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    proc = reduce_("phmech.validation.reduced_bodies:nope", "--interface", "tip", "--modes", "2")
    assert proc.returncode == 1 and "cannot load 'phmech.validation.reduced_bodies:nope'" in proc.stderr
    proc = reduce_("phmech.validation.reduced_bodies:rod", "--param", "n=4", "--interface", "tip", "--modes", "9")
    assert proc.returncode == 1 and ("body 'rod': n_modes=9 is more than the body has: 4 velocity unknowns, 1 of "
                                     "them held by the interface, so at most 2 normal modes") in proc.stderr
    assert not (tmp_path / "x.h5").exists()

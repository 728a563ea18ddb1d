"""Kernel families (:mod:`phmech.kernels.families`): the registry, its declarations found in
the package, one compiled version for every model, and a family declared outside the package
that runs compiled without a change of the assembly."""
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections import namedtuple

import numpy as np
import pytest

from phmech.kernels import families as KF

numba = pytest.importorskip("numba")


def test_the_declarations_are_found_in_the_package():
    """Every module with a line ``register_family(`` is imported by :func:`families`, which
    lists the families in the order of their names."""
    names = [f.name for f in KF.families()]
    assert names == sorted(names)
    assert set(names) >= {"forces", "frame_rates", "inertial_frames", "networks", "planar_consistent_beams",
                          "planar_exact_beams", "spatial_consistent_beams", "spatial_exact_beams", "spatial_joints"}
    mods = KF.declaring_modules()
    assert "phmech.joints.spatial" in mods and "phmech.fem.beam3d_nonlinear_kernels" in mods
    assert all(m in sys.modules for m in mods)


def test_bad_declarations_name_the_family():
    with pytest.raises(TypeError, match="family 'x': its data class must be a namedtuple class"):
        KF.register_family("x", tuple, None, None, None, None)
    Other = namedtuple("Other", "a")
    with pytest.raises(ValueError, match="family 'spatial_joints' is declared twice"):
        KF.register_family("spatial_joints", Other, *[lambda *a: None] * 4)
    with pytest.raises(ValueError, match="family 'y': declare it in an importable module, not in a script"):
        KF.register_family("y", namedtuple("Script", "a", module="__main__"), None, None, None, None)
    with pytest.raises(KeyError, match="no kernel family 'nothing'; registered: forces, "):
        KF.family("nothing")


def _models():
    """The tiny models of :mod:`phmech.mechanisms.tiny`, assembled (one per family)."""
    from phmech.mechanisms.tiny import tiny_models
    return {name: (lambda m=m: m.build().assemble()) for name, m in tiny_models().items()}


def test_every_model_passes_families_of_one_type():
    """A family absent from a model passes empty data typed like full data: the compiled
    residual has one version for every model (numba's type of the families' tuple is the same)."""
    from phmech.assembly.compiled import compiled_residual
    types, present = set(), set()
    for name, build in _models().items():
        c = compiled_residual(build())
        assert c.pure, name
        types.add(numba.typeof(c.families))
        present |= {f.name for f, d in zip(KF.families(), c.families) if f.has(d)}
    assert len(types) == 1
    assert present == {f.name for f in KF.families()}     # every family had members somewhere


MODULE = textwrap.dedent('''
    """A family of viscous dampers on the velocities of bodies, declared outside phmech."""
    from collections import namedtuple

    import numba
    import numpy as np

    from phmech import PointMass, System
    from phmech.assembly.compiled import compiled_residual
    from phmech.kernels.families import register_family
    from phmech.forces.loads import Load

    DamperData = namedtuple("DamperData", "cols c")


    @numba.njit
    def has(d):
        return d.cols.size > 0


    @numba.njit
    def forces_add(t, q, e, d, fe):
        for k in range(d.cols.size):
            fe[d.cols[k]] -= d.c[k] * e[d.cols[k]]


    @numba.njit
    def residual_add(t, q, e, lam, d, out, fe, fl):
        forces_add(t, q, e, d, fe)


    @numba.njit
    def jacobian_add(t, q, e, lam, d, act, J, nq):
        for k in range(d.cols.size):
            J[nq + d.cols[k], nq + d.cols[k]] -= d.c[k]


    def pack(items, dae=None):
        cols = [se.start + np.asarray(ld.cols) for ld, sq, se in items] + [np.zeros(0, np.int64)]
        c = [np.full(len(ld.cols), ld.c) for ld, sq, se in items] + [np.zeros(0)]
        return DamperData(np.concatenate(cols).astype(np.int64), np.concatenate(c))


    register_family("test_dampers", DamperData, pack=pack, has=has, residual_add=residual_add,
                    jacobian_add=jacobian_add, port_forces_add=forces_add)


    class Damper(Load):
        """f = -c e on every velocity of a body (Python path: the same kernel on its own data)."""
        kernel_slot = "test_dampers"
        inertial = False

        def __init__(self, body, c):
            self.body, self.name, self.c = body, f"damper of {body.name}", c
            self.cols = np.arange(body.ne)

        def force(self, t, q, e=None):
            fe = np.zeros(self.body.ne)
            forces_add(t, q, e, pack([(self, slice(0, self.body.nq), slice(0, self.body.ne))]), fe)
            return fe

        def force_e(self, t, q, e=None):
            return -self.c * np.eye(self.body.ne)


    def system(own):
        """A free point mass, damped by the family above or by phmech's port damper (an
        independent model of the same force)."""
        mass = PointMass("mass", 2.0, (1.0, 0.2))
        s = System([mass])
        if own:
            s.add_load(Damper(mass, 0.7))
        else:
            s.add_damper(mass.port("P"), 0.7)
        return s


    def run(own):
        s = system(own)
        dae = s.assemble()
        y0 = dae.initial_state()
        y0[dae.se] = (1.5, -0.5)
        return s.simulate(2.0, y0=y0, dt=1e-3, newton_tol=1e-12)


    def main(with_run):
        out = {}
        dae = system(True).assemble()
        c = compiled_residual(dae)
        out["path"], out["leftovers"] = c.path, c.leftovers
        y = dae.initial_state() + 0.1 * np.random.default_rng(3).standard_normal(dae.n)
        f, fp = c.f(0.1, y), dae.f(0.1, y)
        out["f"] = float(np.max(np.abs(f - fp)) / np.max(np.abs(fp)))
        Jc, Jp = c.jacobian(y, 0.1), dae.jacobian(0.1, y).toarray()
        out["jac"] = float(np.max(np.abs(Jc - Jp)) / np.max(np.abs(Jp)))
        v = y[dae.se]
        out["power"] = float(abs(c.power(y, 0.1) + 0.7 * v @ v) / (0.7 * v @ v))
        if not with_run:
            return out
        runs = [run(own) for own in (True, False)]
        out["run_path"] = runs[0].stats.get("path")
        out["balance"] = float(np.max(np.abs(runs[0].energy_balance())))
        H = runs[0].hamiltonian()
        out["H0"], out["H_end"] = float(H[0]), float(H[-1])
        out["difference"] = float(np.max(np.abs(runs[0].y - runs[1].y)))
        return out
''')


def _outside(tmp_path, with_run):
    """``main(with_run)`` of the family's module, in a process of its own with its own kernel
    cache (the family's versions of the kernels are not stored for other processes; the
    package's cached kernels are copied, so only the kernels that take the families compile)."""
    from phmech.kernels import jit as _jit
    (tmp_path / "damper_family.py").write_text(MODULE)
    own = tmp_path / "cache"
    if os.path.isdir(_jit.cache_directory()):
        shutil.copytree(_jit.cache_directory(), own / os.path.basename(_jit.cache_directory()))
    env = dict(os.environ, PHMECH_NUMBA_CACHE_DIR=str(own))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), root, env.get("PYTHONPATH", "")])
    code = f"import json, sys, damper_family; json.dump(damper_family.main({with_run}), sys.stdout)"
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["path"] == "compiled" and out["leftovers"] == []
    return out


def test_a_family_declared_outside_the_package_is_compiled(tmp_path):
    """A new family needs no change of the assembly: a damper family declared in a module of its
    own (data class, packing, kernels) is evaluated by the compiled residual, its Jacobian and its power;
    they equal the Python path's (the same kernel called by the load's own methods) and the
    analytic power ``-c |v|^2``."""
    out = _outside(tmp_path, False)
    assert out["f"] <= 1e-14 and out["jac"] <= 1e-14 and out["power"] <= 1e-14


@pytest.mark.slow
def test_a_family_declared_outside_the_package_runs_compiled(tmp_path):
    """The same family in the compiled midpoint rule: the run equals the same mechanism with
    phmech's own port damper (an independent model), the kinetic energy decays as
    ``exp(-2 c t / m)`` and the rule's exact power balance closes with the family's port power."""
    out = _outside(tmp_path, True)
    assert out["run_path"] == "compiled"
    assert out["f"] <= 1e-14 and out["jac"] <= 1e-14 and out["power"] <= 1e-14
    # m = 2, c = 0.7, t = 2: H_end = H0 exp(-1.4); the midpoint rule's error is ~1e-8 of it
    assert out["H0"] == pytest.approx(0.5 * 2.0 * (1.5 ** 2 + 0.5 ** 2), rel=1e-12)
    assert abs(out["H_end"] - out["H0"] * np.exp(-1.4)) <= 1e-6 * out["H0"]
    assert out["balance"] <= 1e-9 * out["H0"]
    assert out["difference"] <= 1e-9

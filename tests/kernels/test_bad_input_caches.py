"""Bad input and damaged data around the caches, the mass-spring networks, the plates and the
distributed plate command: each is refused with one clear error before anything is changed,
or detected, rebuilt and reported."""
import importlib.util
import json
import logging
import os
import re
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import package_copy  # noqa: E402
from conftest import HAVE_FIREDRAKE, needs_firedrake  # noqa: E402
from phmech import massspring as ms  # noqa: E402
from phmech.fem import cache, plate_size  # noqa: E402
from phmech.fem.mesh_recipe import MeshRecipe  # noqa: E402

needs_numba = pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")


def _run(args, env=None, timeout=600, cwd=None):
    full_env = {**os.environ, "OMP_NUM_THREADS": "1", **(env or {})}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=full_env,
                          timeout=timeout, cwd=cwd)


def _strict_json(path):
    """A JSON file parsed with NaN and inf refused."""
    def refuse(name):
        raise AssertionError(f"{path}: non-finite number {name}")
    return json.loads(path.read_text(), parse_constant=refuse)


# ================================================================ FE cache
@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PHMECH_CACHE_DIR", str(tmp_path / "fe"))
    monkeypatch.setenv("PHMECH_CACHE", "1")
    return tmp_path / "fe"


def _full_key(n):
    return cache.full_key("Test", {"n": n, "L": 0.3}, [])


def test_fe_cache_entry_under_another_key_is_refused_and_named(cache_dir, caplog):
    """The entry of one parameter set copied onto the name of another is not returned for it;
    the warning names the file and the parameter that differs."""
    a, b = _full_key(4), _full_key(5)
    cache.store(a, {"M": np.arange(4.0)})
    cache.store(b, {"M": np.arange(5.0)})
    path_a, path_b = (cache_dir / (cache.digest(k) + ".npz") for k in (a, b))
    assert np.array_equal(cache.load(b)["M"], np.arange(5.0))
    path_b.write_bytes(path_a.read_bytes())
    with caplog.at_level(logging.WARNING, logger="phmech"):
        assert cache.load(b) is None
    assert str(path_b) in caplog.text and "n: 4 instead of 5" in caplog.text
    assert np.array_equal(cache.load(a)["M"], np.arange(4.0))        # the original still serves its key


def test_fe_cache_entry_without_key_is_refused(cache_dir, caplog):
    """An npz file that carries no key (written by something else) under an entry's name."""
    k = _full_key(3)
    cache_dir.mkdir(parents=True)
    np.savez(cache_dir / (cache.digest(k) + ".npz"), M=np.zeros(3))
    with caplog.at_level(logging.WARNING, logger="phmech"):
        assert cache.load(k) is None
    assert "carries no key" in caplog.text and cache.digest(k) in caplog.text


@needs_firedrake
def test_copied_beam_entry_gives_the_beam_its_own_matrices(cache_dir, monkeypatch, caplog):
    """A beam's entry copied onto another beam's key: the second beam is assembled afresh (same
    matrices as with the cache off), a warning names the file, and the rebuilt entry serves
    the next process' beam from the cache."""
    from phmech.fem import FloatingEulerBernoulliBeam

    def beam(n):
        return FloatingEulerBernoulliBeam("b", 0.3, n, 7870.0, 1.1e-5, 2e11, 1.2e-11)
    monkeypatch.setenv("PHMECH_CACHE", "0")
    ref = beam(5)
    monkeypatch.setenv("PHMECH_CACHE", "1")
    beam(4)
    (entry4,) = list(cache_dir.iterdir())
    beam(5)
    (entry5,) = [p for p in cache_dir.iterdir() if p != entry4]
    entry5.write_bytes(entry4.read_bytes())
    cache._READ.clear()
    with caplog.at_level(logging.WARNING, logger="phmech"):
        b = beam(5)
    assert not b.fe.from_cache
    assert str(entry5) in caplog.text and "instead of" in caplog.text
    assert b.M.shape == ref.M.shape and abs(b.M - ref.M).max() == 0.0 and abs(b.J0 - ref.J0).max() == 0.0
    again = beam(5)
    assert again.fe.from_cache and abs(again.M - ref.M).max() == 0.0


# ================================================================ kernel cache
KERNEL_MODULE = """
from phmech.kernels.jit import jit, cache_directory

@jit
def blend(x, y):
    return 2.0 * x + y * y

print("VALUE", blend(1.5, 3.0), "HITS", sum(blend.stats.cache_hits.values()), "DIR", cache_directory())
"""


def _probe_module(tmp_path, name, source, placement):
    """``(module name, PYTHONPATH)`` of a module with compiled functions: a file outside the package
    (numba's locators) or a module of a copy of the package (its own locator, by the path in the
    package)."""
    if placement == "package":
        where = package_copy.copy_package(tmp_path / "checkout", name, source)
        return "phmech.kernels." + name, str(where)
    (tmp_path / "kmod").mkdir()
    (tmp_path / "kmod" / f"{name}.py").write_text(textwrap.dedent(source))
    return name, os.pathsep.join([str(tmp_path / "kmod"), os.environ.get("PYTHONPATH", "")])


@pytest.fixture
def kernel_run(tmp_path, request):
    """Run a module with a compiled function in a fresh process with a temporary kernel cache
    (outside the package, or in a copy of it with ``indirect`` parameter ``"package"``)."""
    module, path = _probe_module(tmp_path, "kernel_probe", KERNEL_MODULE, getattr(request, "param", "outside"))
    env = {"PHMECH_NUMBA_CACHE_DIR": str(tmp_path / "numba"), "PYTHONPATH": path}

    def run():
        return _run(["-c", f"import {module}"], env=env, timeout=300, cwd=str(tmp_path))
    return run, tmp_path / "numba"


def _cache_files(root, suffix):
    return sorted(p for p in root.rglob("*" + suffix))


def _damage_and_rerun(run, root, damage):
    first = run()
    assert first.returncode == 0, first.stderr[-2000:]
    assert "VALUE 12.0 HITS 0" in first.stdout
    damage(root)
    second = run()
    assert second.returncode == 0, second.stderr[-2000:]
    assert "VALUE 12.0 HITS 0" in second.stdout              # recompiled, right value
    directory = second.stdout.split("DIR ")[1].strip()
    assert "kernel cache" in second.stderr and directory in second.stderr and "discarded" in second.stderr
    third = run()                                             # the rebuilt entry is used, silently
    assert third.returncode == 0 and "VALUE 12.0 HITS 1" in third.stdout, third.stdout + third.stderr
    assert "kernel cache" not in third.stderr


@needs_numba
@pytest.mark.parametrize("kernel_run, damage", [("outside", "garbage"), ("outside", "truncated index"),
                                                ("outside", "garbage data"), ("package", "garbage data")],
                         indirect=["kernel_run"])
def test_damaged_kernel_cache_is_discarded_and_recompiled(kernel_run, damage):
    run, root = kernel_run

    def spoil(root):
        index, data = _cache_files(root, ".nbi"), _cache_files(root, ".nbc")
        assert index and data
        if damage == "garbage":
            for p in index + data:
                p.write_bytes(b"\x80\x04garbage, not a pickle" * 3)
        elif damage == "truncated index":
            for p in index:
                p.write_bytes(p.read_bytes()[:len(p.read_bytes()) // 2])
        else:
            for p in data:
                p.write_bytes(os.urandom(64))
    _damage_and_rerun(run, root, spoil)


LINKED_MODULE = """
import sys
import numpy as np
from phmech.kernels.jit import jit

@jit
def blend(x, y):
    a = np.full(3, x)           # an array: numba's memory manager and its array implementations
    return 2.0 * a.sum() / 3.0 + y * y

value = blend(1.5, 3.0)
hits = sum(blend.stats.cache_hits.values())
compiler = "numba.cpython.printimpl" in sys.modules      # imported when numba's compiler starts
arrays = "numba.np.arrayobj" in sys.modules              # the module of np.full's implementation
import numba

@numba.njit
def caller(x):                 # compiled now: links (inlines) the loaded blend
    b = np.ones(2) * blend(x, 3.0)
    return b[1] + 1.0

print("VALUE", value, "HITS", hits, "COMPILER", compiler, "ARRAYS", arrays, "CALLER", caller(1.5))
"""


@needs_numba
def test_cached_kernel_is_linked_without_starting_the_compiler(tmp_path):
    """A kernel read from the cache runs without numba's compiler having started (its object code
    is linked as it is) and without importing the modules of the numba functions it inlined (its
    array allocation); a function compiled after it, which allocates too, still inlines it (its
    bitcode, parsed on demand; the memory manager compiled then); numba's own loader
    (``PHMECH_KERNEL_LOADER=numba``) gives the same values."""
    (tmp_path / "kmod").mkdir()
    (tmp_path / "kmod" / "linked_probe.py").write_text(textwrap.dedent(LINKED_MODULE))
    env = {"PHMECH_NUMBA_CACHE_DIR": str(tmp_path / "numba"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path / "kmod"), os.environ.get("PYTHONPATH", "")])}

    def run(**extra):
        out = _run(["-c", "import linked_probe"], env={**env, **extra}, timeout=300, cwd=str(tmp_path))
        assert out.returncode == 0, out.stderr[-2000:]
        return out.stdout.strip()
    assert run() == "VALUE 12.0 HITS 0 COMPILER True ARRAYS True CALLER 13.0"      # compiled, stored
    assert run() == "VALUE 12.0 HITS 1 COMPILER False ARRAYS False CALLER 13.0"    # linked from the cache
    assert run(PHMECH_KERNEL_LOADER="numba") == "VALUE 12.0 HITS 1 COMPILER True ARRAYS True CALLER 13.0"


MODEL_RUN = """
import sys
from tests.mechanisms import rigid_crank_slider
r = rigid_crank_slider()[0].simulate(0.01, dt=1e-4)
print("STATE", r.y[-1].tobytes().hex(), "KERNELS", r.stats["kernel_time"] > 0.0,
      "COMPILER", "numba.cpython.printimpl" in sys.modules, "ARRAYS", "numba.np.arrayobj" in sys.modules)
"""


@needs_numba
def test_a_model_runs_the_same_with_either_loader_of_the_cache():
    """A crank-slider in fresh processes (the package's kernel cache, filled by the first of them):
    linked from the cache without starting numba's compiler or importing numba's array
    implementations, it steps to the same state, bit for bit, as with numba's own loader, and its
    loading is reported in ``kernel_time``."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    def run(**extra):
        out = _run(["-c", MODEL_RUN], env=extra, timeout=900, cwd=root)
        assert out.returncode == 0, out.stderr[-2000:]
        return out.stdout.split()
    run()                                                  # fills the cache where it is not yet
    ours, numbas = run(), run(PHMECH_KERNEL_LOADER="numba")
    assert ours[1] == numbas[1]
    assert ours[2:] == ["KERNELS", "True", "COMPILER", "False", "ARRAYS", "False"]
    assert numbas[2:] == ["KERNELS", "True", "COMPILER", "True", "ARRAYS", "True"]


# ================================================================ kernel cache filled ahead of time
@pytest.mark.slow
@needs_numba
def test_warm_fills_every_kernel_of_the_cache(tmp_path):
    """``python -m phmech.warm --strict`` in a fresh process with an empty cache compiles
    every compiled function of the package and reports the directory; a second process finds every
    version in the cache (nothing compiled, much faster)."""
    env = {"PHMECH_NUMBA_CACHE_DIR": str(tmp_path / "numba"), "PHMECH_CACHE_DIR": str(tmp_path / "fe")}
    tic = time.perf_counter()
    cold = _run(["-m", "phmech.warm", "--strict"], env=env, timeout=1200)
    t_cold = time.perf_counter() - tic
    assert cold.returncode == 0, cold.stdout[-2000:] + cold.stderr[-3000:]
    assert str(tmp_path / "numba") in cold.stdout and "not reached" not in cold.stderr
    assert _cache_files(tmp_path / "numba", ".nbi")
    tic = time.perf_counter()
    warm = _run(["-m", "phmech.warm", "--strict", "--quiet"], env=env, timeout=1200)
    assert warm.returncode == 0, warm.stderr[-3000:]
    assert " 0 version(s) compiled now" in warm.stdout and " 0 read from the cache" not in warm.stdout
    assert time.perf_counter() - tic < 0.5 * t_cold


# ================================================================ mass-spring networks
def _pendulum_2d():
    mss = ms.MassSpringSystem2d()
    mss.gravity = [0.0, -9.81]
    f = mss.add(ms.Fix([0.0, 0.0]))
    m = mss.add(ms.Mass(1.0, [0.0, -1.0]))
    mss.add(ms.Spring(1.0, 200.0, (f, m)))
    return mss


def _snapshot(mss):
    return (mss.t, [(np.array(m.pos, float).copy(), np.array(m.vel, float).copy()) for m in mss.masses],
            mss._carry)


def _same_snapshot(a, b):
    return a[0] == b[0] and a[2] is b[2] and all(
        np.array_equal(p, q) and np.array_equal(v, w) for (p, v), (q, w) in zip(a[1], b[1]))


def test_position_given_as_a_list_runs_and_matches_an_array():
    """``masses[0].pos = [1.0, 0.0]`` is accepted (checked and turned into the array updated in
    place): same trajectory as the array, the clock and the positions advance together."""
    a, b = _pendulum_2d(), _pendulum_2d()
    a.masses[0].pos = [1.0, 0.0]
    b.masses[0].pos = np.array([1.0, 0.0])
    ra, rb = a.simulate(0.1, 10), b.simulate(0.1, 10)
    assert isinstance(a.masses[0].pos, np.ndarray) and a.masses[0].pos.dtype == float
    assert np.array_equal(ra.y, rb.y) and a.t == b.t == pytest.approx(0.1)
    assert np.array_equal(a.masses[0].pos, ra.positions()[-1, 0])


@pytest.mark.parametrize("attr, value, match", [
    ("pos", [1.0, 0.0, 0.0], r"mass 0: pos must be 2 finite numbers, got \[1\.0, 0\.0, 0\.0\]"),
    ("pos", [np.nan, 0.0], r"mass 0: pos must be 2 finite numbers, got \[nan, 0\.0\]"),
    ("vel", "fast", r"mass 0: vel must be 2 finite numbers, got 'fast'"),
    ("pos", np.array([0.5, np.inf]), r"mass 0: pos must be 2 finite numbers"),
])
def test_bad_state_after_a_run_is_refused_and_changes_nothing(attr, value, match):
    """A bad position or velocity set between two calls: one error naming the mass and value,
    raised before stepping; the clock, the other values and the carried state are untouched."""
    mss = _pendulum_2d()
    mss.simulate(0.05, 5)
    setattr(mss.masses[0], attr, value)
    before = _snapshot_raw(mss)
    with pytest.raises(ValueError, match=match):
        mss.simulate(0.1, 10)
    after = _snapshot_raw(mss)
    assert before[0] == after[0] == pytest.approx(0.05)
    assert before[1] is after[1] and before[2] is after[2] and before[3] is after[3]


def _snapshot_raw(mss):
    m = mss.masses[0]
    return mss.t, m.pos, m.vel, mss._carry


def test_failure_inside_the_run_leaves_every_object_as_it_was():
    """A run that fails after some steps (here a callback raising) changes nothing: the next call
    continues exactly as if the failed call had not happened (same as an uninterrupted run)."""
    ref = _pendulum_2d()
    ref.simulate(0.05, 5)
    r_ref = ref.simulate(0.05, 5)
    mss = _pendulum_2d()
    mss.simulate(0.05, 5)
    before = _snapshot(mss)

    def boom(solver):
        if solver.t > 0.07:
            raise RuntimeError("stop")
    with pytest.raises(RuntimeError, match="stop"):
        mss.simulate(0.05, 5, callbacks=[boom])
    assert _same_snapshot(before, _snapshot(mss))
    r = mss.simulate(0.05, 5)
    assert np.array_equal(r.y, r_ref.y) and mss.t == ref.t


@pytest.mark.parametrize("mass, match", [
    (np.nan, r"mass 0: mass must be positive and finite, got nan"),
    (0.0, r"mass 0: mass must be positive and finite, got 0\.0"),
    (-2.0, r"mass 0: mass must be positive and finite, got -2\.0"),
    (True, r"mass 0: mass must be positive and finite, got True"),
    ("1 kg", r"mass 0: mass must be positive and finite, got '1 kg'"),
])
def test_bad_mass_is_named(mass, match):
    mss = _pendulum_2d()
    mss.masses[0].mass = mass
    with pytest.raises(ValueError, match=match):
        mss.simulate(0.1, 10)
    assert mss.t == 0.0 and np.array_equal(mss.masses[0].pos, [0.0, -1.0])


def test_element_ends_moved_onto_each_other_are_refused_before_stepping():
    """A mass moved onto the fixed point of its spring between calls (zero length, no direction)."""
    mss = _pendulum_2d()
    mss.simulate(0.05, 5)
    t, q = mss.t, mss.masses[0].pos.copy()
    mss.masses[0].pos[...] = 0.0
    with pytest.raises(ValueError, match=r"spring 0: its ends fix\[0\] and mass\[0\] are at the same position "
                                         r"\[0\.0, 0\.0\]"):
        mss.simulate(0.05, 5)
    assert mss.t == t and np.array_equal(mss.masses[0].pos, [0.0, 0.0]) and not np.array_equal(q, [0.0, 0.0])


def test_coincident_spring_points_and_nan_stiffness_in_one_error():
    mss = ms.MassSpringSystem3d()
    f = mss.add(ms.Fix([0.0, 0.0, 0.0]))
    a = mss.add(ms.Mass(1.0, [0.0, 0.0, 0.0]))
    b = mss.add(ms.Mass(1.0, [1.0, 0.0, 0.0]))
    mss.add(ms.Spring(1.0, 10.0, (f, a)))
    mss.add(ms.Spring(1.0, float("nan"), (a, b)))
    with pytest.raises(ValueError) as err:
        mss.simulate(0.1, 10)
    msg = str(err.value)
    assert "spring 0: its ends fix[0] and mass[0] are at the same position [0.0, 0.0, 0.0]" in msg
    assert "spring 1: stiffness must be non-negative and finite, got nan" in msg and "2 problem(s)" in msg


def test_load_function_with_wrong_shape_is_named_before_stepping():
    mss = _pendulum_2d()
    mss.add(ms.Force(ms.Connector("mass", 0), lambda t: [1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"mass-spring force 0: force\(t\) must return 2 value\(s\), got shape "
                                         r"\(3,\)"):
        mss.simulate(0.1, 10)
    assert mss.t == 0.0


def test_gravity_changed_in_place_and_rho_inf_are_checked():
    mss = _pendulum_2d()
    with pytest.raises(ValueError, match=r"rho_inf must be a number in \[0, 1\], got 2"):
        mss.simulate(0.1, 10, rho_inf=2)
    mss.gravity[1] = np.nan
    with pytest.raises(ValueError, match=r"gravity must be 2 finite numbers"):
        mss.simulate(0.1, 10)
    assert mss.t == 0.0


def test_ragged_position_is_reported_not_crashed():
    mss = ms.MassSpringSystem2d()
    mss.add(ms.Mass(1.0, [1.0, [2.0]]))
    with pytest.raises(ValueError, match=r"mass 0: pos must be 2 finite numbers"):
        mss.simulate(0.1, 10)


# ================================================================ plates: checks before building
def test_plate_size_guard_refuses_a_huge_mesh_before_building():
    """A 1500 x 1500 recipe is refused at once (the mesh is never built), naming the unknowns,
    the memory estimate and the settings that raise the limit."""
    from phmech.fem import KirchhoffPlate, MindlinPlate

    mesh = MeshRecipe("firedrake:UnitSquareMesh", 1500, 1500)
    tic = time.perf_counter()
    with pytest.raises(ValueError, match=r"plate 'big': too large -- the mesh of 4,500,000 triangles and "
                                         r"2,253,001 vertices gives 36,012,001 unknowns at degree 2, above the "
                                         r"limit of 1,000,000 .* GB .*max_dofs= or \$PHMECH_PLATE_MAX_DOFS"):
        KirchhoffPlate("big", mesh, 0.01, 2700.0, 70e9, 0.3)
    with pytest.raises(ValueError, match=r"plate 'big': too large"):
        MindlinPlate("big", mesh, 0.01, 2700.0, 70e9, 0.3)
    assert time.perf_counter() - tic < 2.0 and not mesh.built


def test_plate_size_limit_settings(monkeypatch):
    from phmech.fem import KirchhoffPlate

    mesh = MeshRecipe("firedrake:UnitSquareMesh", 8, 8)
    with pytest.raises(ValueError, match=r"above the limit of 100 "):
        KirchhoffPlate("p", mesh, 0.01, 2700.0, 70e9, 0.3, max_dofs=100)
    monkeypatch.setenv("PHMECH_PLATE_MAX_DOFS", "100")
    with pytest.raises(ValueError, match=r"above the limit of 100 "):
        KirchhoffPlate("p", mesh, 0.01, 2700.0, 70e9, 0.3)
    monkeypatch.setenv("PHMECH_PLATE_MAX_DOFS", "lots")
    with pytest.raises(ValueError, match=r"PHMECH_PLATE_MAX_DOFS must be a positive integer or 'inf', got 'lots'"):
        KirchhoffPlate("p", mesh, 0.01, 2700.0, 70e9, 0.3)
    monkeypatch.delenv("PHMECH_PLATE_MAX_DOFS")
    for bad in (0, -5, 2.5, True):
        with pytest.raises(ValueError, match=r"plate 'p': max_dofs must be a positive integer"):
            KirchhoffPlate("p", mesh, 0.01, 2700.0, 70e9, 0.3, max_dofs=bad)


@pytest.mark.parametrize("kw, match", [
    ({"degree": True}, r"plate 'p': degree must be an integer >= 1, got True"),
    ({"degree": 2.0}, r"plate 'p': degree must be an integer >= 1, got 2\.0"),
    ({"h": np.array([0.01])}, r"plate 'p': parameters must be positive and finite: h=array\(\[0\.01\]\) is not a "
                              r"number"),
    ({"h": True}, r"parameters must be positive and finite: h=True is not a number"),
    ({"nu": np.array(0.7)}, r"Poisson ratio nu must be a number in \(-1, 0\.5\), got array\(0\.7\)"),
])
def test_plate_parameters_are_checked(kw, match):
    from phmech.fem import KirchhoffPlate

    args = {"h": 0.01, "rho": 2700.0, "E": 70e9, "nu": 0.3, **kw}
    degree = args.pop("degree", 2)
    with pytest.raises(ValueError, match=match):
        KirchhoffPlate("p", MeshRecipe("firedrake:UnitSquareMesh", 2, 2), args["h"], args["rho"], args["E"],
                       args["nu"], degree=degree)


def test_mindlin_degree_true_is_refused():
    from phmech.fem import MindlinPlate
    with pytest.raises(ValueError, match=r"plate 'm': degree must be an integer >= 2 .*got True"):
        MindlinPlate("m", MeshRecipe("firedrake:UnitSquareMesh", 2, 2), 0.01, 1.0, 1.0, 0.3, degree=True)


# ================================================================ plates: with Firedrake
@needs_firedrake
@pytest.mark.parametrize("kind, degree, reduction", [("KirchhoffPlate", 1, None), ("KirchhoffPlate", 2, None),
                                                     ("KirchhoffPlate", 3, None),
                                                     ("MindlinPlate", 2, "interpolation"),
                                                     ("MindlinPlate", 2, "projection"),
                                                     ("MindlinPlate", 3, "interpolation")])
def test_unknowns_estimate_equals_the_assembled_space(kind, degree, reduction, cache_dir):
    """The size guard's count of unknowns equals the dimension of the mixed space Firedrake builds,
    from the recipe (before building) and from the built mesh, straight and crossed diagonals."""
    import firedrake as fd

    from phmech import fem
    for diagonal in ("left", "crossed"):
        recipe = MeshRecipe("firedrake:RectangleMesh", 3, 2, 1.0, 0.7, diagonal=diagonal)
        built = fd.RectangleMesh(3, 2, 1.0, 0.7, diagonal=diagonal)
        kw = {} if reduction is None else {"reduction": reduction}
        p = getattr(fem, kind)("p", built, 0.01, 1.0, 1.0, 0.3, degree=degree, **kw)
        counts = plate_size.mesh_counts(recipe)
        assert counts == plate_size.mesh_counts(built)
        assert plate_size.unknowns(kind, counts, degree, reduction) == p.nf


@needs_firedrake
def test_zero_dimensional_thickness_is_a_number(cache_dir):
    """``h = np.array(0.01)`` builds the same plate as ``h = 0.01``."""
    from phmech.fem import KirchhoffPlate
    a = KirchhoffPlate("p", MeshRecipe("firedrake:UnitSquareMesh", 2, 2), np.array(0.01), np.float32(2700.0),
                       70e9, np.array(0.3), degree=1)
    b = KirchhoffPlate("p", MeshRecipe("firedrake:UnitSquareMesh", 2, 2), 0.01, 2700.0, 70e9, 0.3, degree=1)
    assert type(a.h) is float and a.h == 0.01 and isinstance(a.D, float)
    assert abs(a.M - b.M).max() == 0.0 and a.D == b.D


@needs_firedrake
def test_built_mesh_above_the_limit_is_refused_before_spaces(cache_dir):
    import firedrake as fd

    from phmech.fem import MindlinPlate
    with pytest.raises(ValueError, match=r"plate 'm': too large -- the mesh of 200 triangles .* above the limit "
                                         r"of 1,000 "):
        MindlinPlate("m", fd.UnitSquareMesh(10, 10), 0.01, 1.0, 1.0, 0.3, max_dofs=1000)


@needs_firedrake
def test_plate_rigid_command_refuses_a_huge_mesh_at_once(tmp_path):
    tic = time.perf_counter()
    proc = _run(["-m", "phmech.validation.plate_rigid", "--n", "3000", "--outdir", str(tmp_path), "--no-plot"],
                timeout=300)
    assert proc.returncode != 0 and "plate 'plate': too large" in proc.stderr and "unknowns" in proc.stderr
    assert time.perf_counter() - tic < 120 and not (tmp_path / "summary.json").exists()


# ================================================================ plate_mpi command line
def test_balance_without_energy_is_null_with_a_reason():
    from phmech.parallel.plate_mpi import balance_summary
    out = balance_summary(np.zeros(1), np.zeros(1))
    assert out["balance_rel"] is None and "Hamiltonian is zero" in out["balance_rel_note"]
    assert balance_summary([0.0, 1e-3], [0.0, 2.0]) == {"balance_rel": 5e-4}
    assert balance_summary([0.0, np.nan], [0.0, 2.0])["balance_rel"] is None


def test_plate_mpi_arguments_are_checked():
    from phmech.parallel.plate_mpi import check_arguments
    with pytest.raises(ValueError, match=r"plate_mpi: n must be an integer >= 1, got 0; steps must be an integer "
                                         r">= 0, got -1; dt must be a positive finite step \[s\], got nan"):
        check_arguments(0, 0, -1, float("nan"))
    with pytest.raises(ValueError, match=r"too large .* \(1,001,001 per process on 4\)"):
        check_arguments(500, 0, 0, 1e-5, ranks=4, max_dofs=10 ** 6)


@needs_firedrake
def test_plate_mpi_without_steps_writes_no_nan(tmp_path):
    """``--n 2 --modes 0 --steps 0``: exit 0, summary.json strictly finite, the undefined ratio null
    with its reason."""
    pytest.importorskip("petsc4py")
    proc = _run(["-m", "phmech.parallel.plate_mpi", "--n", "2", "--modes", "0", "--steps", "0",
                 "--outdir", str(tmp_path)], timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = _strict_json(tmp_path / "summary.json")
    assert out["balance_rel"] is None and "zero" in out["balance_rel_note"]
    assert out["H"] == [0.0] and out["ranks"] == 1


@pytest.mark.parametrize("args, match", [
    (["--steps", "-1"], "--steps: must be an integer >= 0"),
    (["--dt", "nan"], "--dt: must be positive and finite"),
    (["--n", "0"], "--n: must be a positive integer"),
    (["--n", "3000"], "too large"),
])
def test_plate_mpi_command_refuses_bad_arguments(tmp_path, args, match):
    if not HAVE_FIREDRAKE:
        pytest.skip("Firedrake is not installed")
    pytest.importorskip("petsc4py")
    tic = time.perf_counter()
    proc = _run(["-m", "phmech.parallel.plate_mpi", *args, "--outdir", str(tmp_path / "o")], timeout=300)
    assert proc.returncode == 2 and match in proc.stderr, proc.stderr[-2000:]
    assert not (tmp_path / "o" / "summary.json").exists() and time.perf_counter() - tic < 120


# ================================================================ kernel families
def _family_kernels():
    def has(d):
        return False

    def add(*args):
        pass
    return dict(pack=lambda items, dae=None: None, has=has, residual_add=add, jacobian_add=add)


def _registry_unchanged(KF, before):
    """phmech's own families are still the ones registered (nothing was replaced)."""
    assert {f.name: f for f in KF.families()} == before


@pytest.mark.parametrize("name", ["forces", "spatial_joints", "networks"])
def test_a_second_family_of_a_name_phmech_uses_is_refused_naming_both_modules(name):
    from collections import namedtuple
    from phmech.kernels import families as KF
    before = {f.name: f for f in KF.families()}
    mine = namedtuple("MyOwnData", "a", module="usermodels.dampers")
    with pytest.raises(ValueError, match=rf"family '{name}' is declared twice: by phmech\.\S+ .* and by "
                                         r"usermodels\.dampers \(data class usermodels\.dampers\.MyOwnData\)"):
        KF.register_family(name, mine, **_family_kernels())
    _registry_unchanged(KF, before)


def test_a_second_family_with_phmech_s_data_class_name_is_refused_naming_both_modules():
    """Same qualified name as the force elements' data class, in another module: refused (the
    compiled versions are told apart by it)."""
    from collections import namedtuple
    from phmech.kernels import families as KF
    from phmech.forces import elements_kernels as K
    before = {f.name: f for f in KF.families()}
    twin = namedtuple(K.ForcesData.__qualname__, "a", module="usermodels.twin")
    with pytest.raises(ValueError, match=r"family 'my_forces' \(declared in usermodels\.twin\): its data class "
                                         r"name ForcesData is already the data class of family 'forces' "
                                         r"\(declared in phmech\.forces\.elements_kernels\)"):
        KF.register_family("my_forces", twin, **_family_kernels())
    _registry_unchanged(KF, before)


@pytest.mark.parametrize("kernel", ["pack", "has", "residual_add", "jacobian_add"])
def test_a_family_with_a_none_kernel_is_refused_at_registration(kernel):
    from collections import namedtuple
    from phmech.kernels import families as KF
    before = {f.name: f for f in KF.families()}
    data = namedtuple("NoneKernelData", "a", module="usermodels.none")
    with pytest.raises(TypeError, match=rf"family 'with_none' \(declared in usermodels\.none\): no {kernel} "):
        KF.register_family("with_none", data, **{**_family_kernels(), kernel: None})
    _registry_unchanged(KF, before)
    assert "with_none" not in {f.name for f in KF.families()}


def test_a_family_with_a_kernel_that_is_no_function_is_refused():
    from collections import namedtuple
    from phmech.kernels import families as KF
    data = namedtuple("NotCallableData", "a", module="usermodels.nc")
    with pytest.raises(TypeError, match=r"family 'nc' \(declared in usermodels\.nc\): port_forces_add must be "
                                        r"callable, not 3"):
        KF.register_family("nc", data, **_family_kernels(), port_forces_add=3)


def test_the_same_module_declaring_its_family_again_is_accepted():
    """A module imported again (reload) declares the same family with new classes: the new
    declaration replaces its own, once."""
    from collections import namedtuple
    from phmech.kernels import families as KF
    first = namedtuple("ReloadData", "a", module="usermodels.reload")
    second = namedtuple("ReloadData", "a", module="usermodels.reload")
    try:
        KF.register_family("reloaded", first, **_family_kernels())
        fam = KF.register_family("reloaded", second, **_family_kernels())
        assert KF.family("reloaded") is fam and fam.data is second
        assert first not in KF._BY_DATA
    finally:
        KF._BY_DATA.pop(KF._BY_NAME.pop("reloaded").data, None)


# ================================================================ kernel cache: entries of other kernels, trust
SWAP_MODULE = """
from phmech.kernels.jit import jit, cache_directory

@jit
def blend(x, y):
    return 2.0 * x + y * y

@jit
def spread(x, y, z):
    return x - y * z

print("VALUE", blend(1.5, 3.0), spread(1.0, 2.0, 3.0), "HITS",
      sum(blend.stats.cache_hits.values()) + sum(spread.stats.cache_hits.values()), "DIR", cache_directory())
"""


@needs_numba
@pytest.mark.parametrize("loader, placement", [("phmech", "outside"), ("numba", "outside"), ("phmech", "package")])
def test_kernel_cache_entries_swapped_between_kernels_are_recompiled(tmp_path, loader, placement):
    """Each kernel's data file holding the other's code: checked against the kernel it is loaded
    for, discarded with one notice naming the cache, compiled again; the next run uses the cache
    (kernels of a file outside the package or of the package, whose entries have their own locator)."""
    module, path = _probe_module(tmp_path, "swap_probe", SWAP_MODULE, placement)
    env = {"PHMECH_NUMBA_CACHE_DIR": str(tmp_path / "numba"), "PHMECH_KERNEL_LOADER": loader, "PYTHONPATH": path}

    def run():
        return _run(["-c", f"import {module}"], env=env, timeout=300, cwd=str(tmp_path))
    first = run()
    assert first.returncode == 0 and "VALUE 12.0 -5.0 HITS 0" in first.stdout, first.stderr[-2000:]
    data = _cache_files(tmp_path / "numba", ".nbc")
    blend = [p for p in data if ".blend-" in p.name]
    spread = [p for p in data if ".spread-" in p.name]
    assert len(blend) == len(spread) == 1
    a, b = blend[0].read_bytes(), spread[0].read_bytes()
    blend[0].write_bytes(b)
    spread[0].write_bytes(a)
    second = run()
    assert second.returncode == 0, second.stderr[-2000:]
    assert "VALUE 12.0 -5.0 HITS 0" in second.stdout                 # recompiled, the right values
    directory = second.stdout.split("DIR ")[1].strip()
    notices = [ln for ln in second.stderr.splitlines() if "kernel cache" in ln]
    assert notices and directory in notices[0]
    held = re.escape(module)
    assert re.search(r"damaged entry of (blend|spread) \(ValueError: the entry holds the code of "
                     rf"{held}\.(spread|blend), not of {held}\.(blend|spread)\); discarded .*compiling again",
                     notices[0]), notices[0]
    third = run()
    assert third.returncode == 0 and "VALUE 12.0 -5.0 HITS 2" in third.stdout, third.stdout + third.stderr
    assert "kernel cache" not in third.stderr


@pytest.mark.parametrize("mode, where, text", [
    (0o777, "cache", "is writable by others (mode 0777)"),
    (0o775, "cache", "is writable by its group (mode 0775)"),
    (0o1777, "cache", "is writable by others (mode 1777)"),
    (0o777, "parent", "is writable by others (mode 0777)"),
])
def test_a_kernel_cache_writable_by_others_is_not_trusted(tmp_path, mode, where, text):
    from phmech.kernels.jit import untrusted
    cache = tmp_path / "base" / "numba"
    cache.mkdir(parents=True)
    target = cache if where == "cache" else cache.parent
    os.chmod(target, mode)
    try:
        assert untrusted(str(cache)) == f"{target} {text}"
    finally:
        os.chmod(target, 0o700)
    assert untrusted(str(cache)) is None


def test_a_sticky_world_writable_directory_above_the_cache_is_accepted(tmp_path):
    """As /tmp: nobody else can replace a directory made in it; a cache not made yet is judged by
    the directories that exist."""
    from phmech.kernels.jit import untrusted
    os.chmod(tmp_path, 0o1777)
    try:
        assert untrusted(str(tmp_path / "not" / "made" / "yet")) is None
    finally:
        os.chmod(tmp_path, 0o700)


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="changing the owner needs root")
def test_a_kernel_cache_of_another_user_is_not_trusted(tmp_path):
    from phmech.kernels.jit import untrusted
    cache = tmp_path / "numba"
    cache.mkdir()
    os.chown(cache, 65534, 65534)
    assert untrusted(str(cache)) == f"{cache} belongs to another user (uid 65534, not 0)"


@needs_numba
def test_a_world_writable_kernel_cache_is_not_used_and_the_warning_says_why(tmp_path):
    """A planted entry never loads: the kernels compile in memory, nothing is read or written there;
    the compilation of the package's kernels, imported and missing, is announced once."""
    (tmp_path / "kmod").mkdir()
    (tmp_path / "kmod" / "kernel_probe.py").write_text(textwrap.dedent(KERNEL_MODULE))
    base = tmp_path / "shared"
    base.mkdir()
    os.chmod(base, 0o777)
    env = {"PHMECH_NUMBA_CACHE_DIR": str(base),
           "PYTHONPATH": os.pathsep.join([str(tmp_path / "kmod"), os.environ.get("PYTHONPATH", "")])}
    for _ in range(2):
        proc = _run(["-c", "import kernel_probe"], env=env, timeout=300, cwd=str(tmp_path))
        assert proc.returncode == 0 and "VALUE 12.0 HITS 0" in proc.stdout, proc.stderr[-2000:]
        assert f"{base} is writable by others (mode 0777)" in proc.stderr
        assert "not used" in proc.stderr and "PHMECH_NUMBA_CACHE_DIR" in proc.stderr
        notices = [ln for ln in proc.stderr.splitlines() if "compiling the time-step kernels" in ln]
        assert len(notices) == 1 and "in memory" in notices[0], proc.stderr    # minutes: said once
        assert not _cache_files(base, ".nbi") and not _cache_files(base, ".nbc")

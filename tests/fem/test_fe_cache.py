"""The FE cache: same matrices as a fresh assembly, no Firedrake on a warm start, damaged
entries rebuilt."""
import os
import subprocess
import sys

import numpy as np
import pytest

from phmech.fem import cache


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PHMECH_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("PHMECH_CACHE", "1")
    return tmp_path


def _beam():
    from phmech.fem import FloatingEulerBernoulliBeam
    return FloatingEulerBernoulliBeam("b", 0.3, 4, 7870.0, 1.1e-5, 2e11, 1.2e-11, frame="simply_supported")


def test_cached_beam_equals_fresh_assembly(cache_dir, monkeypatch):
    monkeypatch.setenv("PHMECH_CACHE", "0")
    ref = _beam()
    ref_rows = ref.displacement_rows([0.15])
    monkeypatch.setenv("PHMECH_CACHE", "1")
    first = _beam()
    first.displacement_rows([0.15])            # stores the point rows too
    assert not first.fe.from_cache and len(list(cache_dir.iterdir())) == 1
    second = _beam()
    assert second.fe.from_cache and second.fe._fd is None          # no Firedrake objects built
    for A, B in ((second.M, ref.M), (second.J0, ref.J0), (second.K_list[0], ref.K_list[0])):
        assert abs(A - B).max() == 0.0
    for name in ("A", "B"):
        assert np.array_equal(second.port(name).Yc, ref.port(name).Yc)
        assert np.array_equal(second.port(name).Wc, ref.port(name).Wc)
    for a, b in zip(second.displacement_rows([0.15]), ref_rows):
        assert np.array_equal(a, b)
    assert second.fe._fd is None


def test_damaged_entry_is_rebuilt(cache_dir):
    _beam()
    (entry,) = list(cache_dir.iterdir())
    entry.write_bytes(entry.read_bytes()[:100])
    b = _beam()
    assert not b.fe.from_cache
    assert _beam().fe.from_cache


def test_other_parameters_other_entry(cache_dir):
    from phmech.fem import FloatingEulerBernoulliBeam
    _beam()
    FloatingEulerBernoulliBeam("b", 0.3, 5, 7870.0, 1.1e-5, 2e11, 1.2e-11)
    assert len(list(cache_dir.iterdir())) == 2


def test_warm_start_does_not_import_firedrake(cache_dir):
    code = ("import sys; from phmech.mechanisms import flexible_crank_slider as build; s, b = build(4); "
            "d = s.assemble(); d.initial_state(); b['coupler'].displacement_rows([0.15]); "
            "s, b = build(4, True); d = s.assemble(); d.initial_state(); "
            "b['coupler'].displacement_rows([0.15]); "
            "from phmech.mechanisms import hinged_spatial_beam; s, beam = hinged_spatial_beam(2); "
            "d = s.assemble(); d.initial_state(); beam.displacement_rows([0.5]); "
            "print('FIREDRAKE', 'firedrake' in sys.modules)")
    env = {**os.environ, "PHMECH_CACHE_DIR": str(cache_dir)}
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env).stdout
            for _ in range(2)]
    assert "FIREDRAKE True" in outs[0] and "FIREDRAKE False" in outs[1]


def test_firedrake_objects_of_a_cached_beam_are_built_on_use(cache_dir):
    """A beam read from the cache still offers its mesh and spaces (built on first use)."""
    _beam()
    b = _beam()
    assert b.fe.from_cache and b.fe._fd is None
    assert b.fe.Vy.dim() == b.fe.offsets["vy"].stop - b.fe.offsets["vy"].start
    assert b.fe.mesh.num_cells() == 4
    with pytest.raises(AttributeError):
        b.fe.no_such_thing


# -- plates and the spatial consistent beam ------------------------------------------------------
def _plates():
    """A Kirchhoff and a Mindlin plate on meshes built on first use, with every cached port kind."""
    from phmech.fem import KirchhoffPlate, MindlinPlate
    from phmech.fem.mesh_recipe import MeshRecipe

    k = KirchhoffPlate("k", MeshRecipe("firedrake:UnitSquareMesh", 3, 3), 0.01, 1.0, 1.0, 0.3, degree=2,
                       boundary={1: "clamped", 2: "guided"})
    m = MindlinPlate("m", MeshRecipe("firedrake:UnitSquareMesh", 2, 2), 0.1, 1.0, 1.0, 0.3, degree=2,
                     boundary={1: "simply_supported", 3: "clamped"})
    data = {}
    for p in (k, m):
        port = p.add_patch_port("a", (0.4, 0.6), 0.3)
        data[p.name] = {"M": p.M, "J0": p.J0, "omega": p.natural_frequencies(3)[0], "Y": port.Y, "W": port.W,
                        "edge": p.edge_rows(4, [lambda x: 1.0, lambda x: x[0] - 0.5]),
                        "load": p.load_vector(lambda x: 2.0 + x[0] * x[1] ** 2)}
    data["k"]["moment"] = k.edge_moment_rows(2, [lambda x: 1.0])
    data["k"]["nodes"] = k.edge_nodes(2)
    return (k, m), data


def _same(a, b):
    if isinstance(a, tuple):
        return all(_same(x, y) for x, y in zip(a, b))
    if hasattr(a, "toarray"):
        return a.shape == b.shape and abs(a - b).max() == 0.0
    return np.array_equal(a, b)


def test_cached_plates_equal_fresh_assembly(cache_dir, monkeypatch):
    monkeypatch.setenv("PHMECH_CACHE", "0")
    _, ref = _plates()
    monkeypatch.setenv("PHMECH_CACHE", "1")
    first, cold = _plates()
    assert not any(p.from_cache for p in first) and len(list(cache_dir.iterdir())) == 2
    second, warm = _plates()
    assert all(p.from_cache and p._fd is None for p in second)    # no mesh, no space built
    for name in ("k", "m"):
        for item in ref[name]:
            assert _same(cold[name][item], ref[name][item]), (name, item)
            assert _same(warm[name][item], ref[name][item]), (name, item)
    # the mesh and spaces of a cached plate are built on use, with the cached numbering
    k = second[0]
    assert k.spaces[0].dim() + k.spaces[1].dim() == k.nf and k.mesh.num_cells() == 18


def test_plate_cache_key_and_checks(cache_dir):
    import firedrake as fd

    from phmech.fem import KirchhoffPlate
    from phmech.fem.mesh_recipe import MeshRecipe, expression_key

    def plate(mesh, **kw):
        return KirchhoffPlate("p", mesh, 0.01, 1.0, 1.0, 0.3, degree=1, **kw)
    plate(fd.UnitSquareMesh(2, 2), boundary={1: "clamped"})
    assert plate(fd.UnitSquareMesh(2, 2), boundary={1: "clamped"}).from_cache     # same mesh content
    assert not plate(fd.UnitSquareMesh(2, 3), boundary={1: "clamped"}).from_cache
    assert not plate(fd.UnitSquareMesh(2, 2), boundary={1: "simply_supported"}).from_cache
    assert not plate(MeshRecipe("firedrake:UnitSquareMesh", 2, 2), boundary={1: "clamped"}).from_cache
    # a boundary condition naming a marker the mesh lacks fails on the cached path as well
    with pytest.raises(ValueError, match="marker 7"):
        plate(MeshRecipe("firedrake:UnitSquareMesh", 2, 2), boundary={7: "clamped"})
    # loads and edge shapes are keyed by the expression they build (with captured values)
    c = 2.0
    keys = {expression_key(f) for f in (lambda x: x[0], lambda x: x[1], lambda x: c * x[0], lambda x: 3.0 * x[0],
                                        lambda x: 1.0, lambda x: 1)}
    assert len(keys) == 6 and None not in keys
    assert expression_key(lambda x: fd.sin(x[0])) is None and expression_key(lambda x: x[0] if x[0] else 1) is None
    # a shape the key cannot follow is assembled (and not stored) on every call
    p = plate(MeshRecipe("firedrake:UnitSquareMesh", 2, 2), boundary={1: "clamped"})
    b1 = p.load_vector(lambda x: fd.sin(x[0]))
    assert np.array_equal(b1, p.load_vector(lambda x: fd.sin(x[0]))) and not any(
        t.startswith("load") for t in p._memo)


def _consistent_beam():
    from phmech.fem.beam3d_nonlinear import NonlinearSpatialBeam
    return NonlinearSpatialBeam("b", 141.42, 3, 7.8e-3, 9.0, 2.1e6, 6.75, 5.0)


def test_cached_consistent_spatial_beam_equals_fresh_assembly(cache_dir, monkeypatch):
    rng = np.random.default_rng(3)
    monkeypatch.setenv("PHMECH_CACHE", "0")
    ref = _consistent_beam()
    q = 1e-2 * rng.standard_normal(ref.nq)
    q[3:7] = (1.0, 0.0, 0.0, 0.0)
    e = rng.standard_normal(ref.ne)
    monkeypatch.setenv("PHMECH_CACHE", "1")
    _consistent_beam().displacement_rows([100.0])
    b = _consistent_beam()
    assert b.fe.from_cache and b.fe._fd is None
    for A, B in [(b.M, ref.M), (b.J0, ref.J0)] + list(zip(b.K, ref.K)):
        assert abs(A - B).max() == 0.0
    for x, y in zip(b.effort_terms(0.0, q, e), ref.effort_terms(0.0, q, e)):
        assert _same(x, y)
    assert np.array_equal(b.qdot(q, e), ref.qdot(q, e))
    assert np.array_equal(b.port("B").Y, ref.port("B").Y)
    for x, y in zip(b.displacement_rows([100.0]), ref.displacement_rows([100.0])):
        assert np.array_equal(x, y)
    assert b.fe._fd is None and b._mesh.num_cells() == 3


def test_warm_plate_and_consistent_beam_setup_does_not_import_firedrake(cache_dir):
    """Set-up of plate_modes, plate_rigid, actuated_plate and the consistent hinged beam: the second
    process reads everything from the cache and gives the same frequencies to the last bit."""
    code = ("import sys; import numpy as np; from phmech.validation import plate_modes as pm, plate_rigid as pr, "
            "actuated_plate as ap, hinged_beam as hb; "
            "t = [pm.case_table(c, 2, (2,), n_modes=2).lam for c in ('kirchhoff_ss', 'mindlin_ss_0.1')]; "
            "t.append(pm.case_table('kirchhoff_circular', 2, (1,), n_modes=1).lam); "
            "t.append(pr.PlateRod('welded', 2, 2).frequencies(3)); "
            "m = ap.ActuatedPlate(0.28, 1, 0, mesh_source='structured'); t.append(m.modes(3)[0]); "
            "s, beam = hb.build(2, geometric_stiffness=True); d = s.assemble(); y0 = d.initial_state(); "
            "t.append(y0); t.append(beam.displacement_rows([100.0])[1]); "
            "print('VALUES', [float(x).hex() for a in t for x in np.ravel(a)]); "
            "print('FIREDRAKE', 'firedrake' in sys.modules)")
    env = {**os.environ, "PHMECH_CACHE_DIR": str(cache_dir)}
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env).stdout
            for _ in range(2)]
    assert "FIREDRAKE True" in outs[0] and "FIREDRAKE False" in outs[1], outs
    values = [[ln for ln in out.splitlines() if ln.startswith("VALUES")] for out in outs]
    assert values[0] and values[0] == values[1]

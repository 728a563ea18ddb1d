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
    code = ("import sys; from phmech.validation import crank_slider as cs; s, b = cs.build(4); "
            "d = s.assemble(); d.initial_state(); b['coupler'].displacement_rows([0.15]); "
            "s, b = cs.build(4, True); d = s.assemble(); d.initial_state(); "
            "b['coupler'].displacement_rows([0.15]); "
            "from phmech.validation import hinged_beam as hb; s, beam = hb.build(2); "
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

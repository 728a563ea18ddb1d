"""The kernel cache is keyed by the kernels' sources and the machine, not by the checkout: a
second copy of the same package in another directory loads what the first compiled, a copy with
other kernel sources compiles its own; a compilation that takes long is announced once."""
import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest

import package_copy

needs_numba = pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")

PROBE = """
from phmech.kernels.jit import jit as _jit

@_jit
def blend(x, y):
    return 2.0 * x + y * y
"""

RUN = """
import sys
from phmech.kernels import jit as _jit
from phmech.kernels._cache_probe import blend
value = blend(1.5, 3.0)
print("VALUE", value, "HITS", sum(blend.stats.cache_hits.values()),
      "MISSES", sum(blend.stats.cache_misses.values()),
      "COMPILER", "numba.cpython.printimpl" in sys.modules)
print("DIR", _jit.cache_directory())
print("PATH", blend.stats.cache_path)
"""


def copy_package(where, probe=PROBE):
    """The package copied to ``where`` with the probe kernels as ``phmech.kernels._cache_probe``."""
    return package_copy.copy_package(where, "_cache_probe", probe)


def run_copy(where, cache, **env):
    """The probe run in a fresh process from the copy at ``where``: ``(lines by first word, stderr)``."""
    full = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(where),
            "PHMECH_NUMBA_CACHE_DIR": str(cache), **env}
    proc = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True, env=full,
                          timeout=300, cwd=str(where))
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = {ln.split(" ", 1)[0]: ln.split(" ", 1)[1] for ln in proc.stdout.splitlines() if " " in ln}
    return lines, proc.stderr


@needs_numba
def test_a_second_copy_of_the_package_loads_the_kernels_the_first_compiled(tmp_path):
    """Two copies of the same sources in different directories, one cache: the first copy's
    process compiles the kernel into ``<cache>/<digest>/kernels`` (its folder in the package),
    the second copy's process loads it without starting numba's compiler (with either loader)."""
    first = copy_package(tmp_path / "checkout-one")
    second = copy_package(tmp_path / "elsewhere" / "checkout-two")
    cache = tmp_path / "numba"
    out, _ = run_copy(first, cache)
    assert out["VALUE"] == "12.0 HITS 0 MISSES 1 COMPILER True"
    directory = out["DIR"]
    assert os.path.dirname(directory) == str(cache)
    assert out["PATH"] == os.path.join(directory, "kernels")
    assert [p.name for p in (cache / os.path.basename(directory) / "kernels").glob("_cache_probe.blend-*.nbi")]

    again, _ = run_copy(second, cache)
    assert again["DIR"] == directory and again["PATH"] == out["PATH"]
    assert again["VALUE"] == "12.0 HITS 1 MISSES 0 COMPILER False"       # loaded, nothing compiled
    with_numba, _ = run_copy(second, cache, PHMECH_KERNEL_LOADER="numba")
    assert with_numba["VALUE"].startswith("12.0 HITS 1 MISSES 0")


@needs_numba
def test_the_entry_of_a_checkout_is_fresh_for_its_sources_only(tmp_path):
    """A copy whose kernel sources differ (a comment added) has a cache directory of its own and
    compiles; entries copied there from the first copy's are stale, although their bytecode is the
    same: their stamp is the digest of the sources they were compiled from."""
    first = copy_package(tmp_path / "one")
    cache = tmp_path / "numba"
    out, _ = run_copy(first, cache)
    other = copy_package(tmp_path / "two", PROBE + "\n# another revision of the module\n")
    edited, _ = run_copy(other, cache)             # compiles into a directory of its own
    assert edited["DIR"] != out["DIR"] and os.path.dirname(edited["DIR"]) == str(cache)
    assert edited["VALUE"] == "12.0 HITS 0 MISSES 1 COMPILER True"
    mine = os.path.join(out["DIR"], "kernels")
    theirs = os.path.join(edited["DIR"], "kernels")
    for name in os.listdir(mine):
        if name.startswith("_cache_probe."):
            shutil.copy(os.path.join(mine, name), os.path.join(theirs, name))
    moved, _ = run_copy(other, cache)
    assert moved["VALUE"] == "12.0 HITS 0 MISSES 1 COMPILER True"


TWO_KERNELS = PROBE + """

@_jit
def spread(x, y, z):
    return x - y * z
"""

RUN_TWO = """
from phmech.kernels._cache_probe import blend, spread
print("VALUE", blend(1.5, 3.0), spread(1.0, 2.0, 3.0))
"""


@needs_numba
def test_a_long_compilation_is_announced_once_and_loading_is_silent(tmp_path):
    """With an empty cache (every kernel of the package missing: minutes of compiling), one line on
    stderr before the first compilation says so, with the time and the directory, and nothing else;
    a process that loads everything from the cache prints nothing."""
    where = copy_package(tmp_path / "checkout", TWO_KERNELS)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(where),
           "PHMECH_NUMBA_CACHE_DIR": str(tmp_path / "numba")}

    def run():
        proc = subprocess.run([sys.executable, "-c", RUN_TWO], capture_output=True, text=True, env=env,
                              timeout=300, cwd=str(where))
        assert proc.returncode == 0 and "VALUE 12.0 -5.0" in proc.stdout, proc.stderr[-3000:]
        return proc.stderr.splitlines()
    first = run()
    (directory,) = os.listdir(tmp_path / "numba")
    assert len(first) == 1, first
    assert re.fullmatch(r"phmech: compiling the time-step kernels once \(about \d+ (s|min)\); later runs "
                        r"load them from " + re.escape(str(tmp_path / "numba" / directory)), first[0]), first
    assert run() == []


class _Kernel:
    """A stand-in for a compiled function: its Python function and the index file of its cache."""

    def __init__(self, py_func, index):
        self.py_func = py_func
        self._cache = type("C", (), {"_cache_file": type("F", (), {"_index_path": str(index)})()})()


@needs_numba
def test_the_notice_needs_a_compilation_of_more_than_a_second(tmp_path, monkeypatch, caplog):
    """The estimate counts the kernels without an index in the cache: one small kernel missing is
    compiled without a notice; with many missing, one notice (INFO of the ``phmech`` logger where
    it has a handler), also when more kernels compile afterwards."""
    import logging

    from phmech.kernels import jit as _jit

    def small(x):
        return x + 1.0
    present = tmp_path / "present.nbi"
    present.write_bytes(b"")
    kernels = [_Kernel(small, present) for _ in range(20)]
    monkeypatch.setattr(_jit, "KERNELS", kernels)
    monkeypatch.setattr(_jit, "_ANNOUNCED", [])
    caplog.set_level(logging.INFO, logger="phmech")
    assert 0.0 < _jit.compile_estimate(small) < 1.0
    _jit.announce_compile(small)
    assert "compiling" not in caplog.text
    for k in kernels:
        k._cache._cache_file._index_path = str(tmp_path / "absent.nbi")
    assert _jit.compile_estimate(small) == _jit.compile_estimate(None) > 1.0     # counted once
    _jit.announce_compile(small)
    _jit.announce_compile(small)
    notices = [r for r in caplog.records if "compiling the time-step kernels once" in r.getMessage()]
    assert len(notices) == 1 and notices[0].levelno == logging.INFO
    assert _jit.cache_directory() in notices[0].getMessage()

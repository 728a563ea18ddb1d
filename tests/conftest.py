"""Markers and shared models of the tests.

Fixtures (models that several tests use, built once where they are not modified):

* ``rigid_crank_slider`` -- a fresh rigid crank-slider ``(system, crank, coupler, slider)``
  (:func:`mechanisms.rigid_crank_slider`); function scope, since tests add joints and loads.
* ``crank_slider4`` -- the flexible crank-slider of :mod:`phmech.validation.crank_slider`
  with 4 coupler elements, assembled, with consistent initial values (session scope;
  read only).  Needs Firedrake.
* ``single_beam`` -- ``single_beam(support, n)``: the linearization of one beam of
  the eigen tests (``"cantilever"`` or ``"pinned_pinned"``), cached per ``(support, n)``.
* ``four_bar_model`` -- ``four_bar_model(n)``: :class:`phmech.mechanisms.FourBar`
  with ``n`` elements per link, cached per ``n`` (its ``linearize`` does not modify it).
"""
import importlib.util
import os
import sys
import textwrap
from types import SimpleNamespace

import numpy as np
import pytest

# Firedrake hands sys.argv to PETSc on import; pytest's own options are not PETSc's.
sys.argv[1:] = []

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("OMP_NUM_THREADS", "1")

HAVE_FIREDRAKE = importlib.util.find_spec("firedrake") is not None

#: the prologue of a subprocess in which Firedrake cannot be imported (as on a pip install)
WITHOUT_FIREDRAKE = textwrap.dedent("""\
    import importlib.abc, sys
    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] == "firedrake":
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    sys.meta_path.insert(0, Block())
    """)
HAVE_ASSIMULO = importlib.util.find_spec("assimulo") is not None

needs_firedrake = pytest.mark.skipif(not HAVE_FIREDRAKE, reason="Firedrake is not installed")
needs_assimulo = pytest.mark.skipif(not HAVE_ASSIMULO, reason="assimulo is not installed")

#: section and material of the steel beams of the beam and eigen tests (6 mm round bar)
STEEL_ROD = dict(rho=7870.0, E=2e11, A=np.pi * 6e-3**2 / 4, I=np.pi * 6e-3**4 / 64, L=0.3)


@pytest.fixture
def rigid_crank_slider():
    """A fresh rigid crank-slider: ``(system, crank, coupler, slider)``."""
    from mechanisms import rigid_crank_slider as build
    return build()


@pytest.fixture(scope="session")
def crank_slider4():
    """The flexible crank-slider with 4 coupler elements: ``system, bodies, dae, y0`` (read only)."""
    if not HAVE_FIREDRAKE:
        pytest.skip("Firedrake is not installed")
    from phmech.mechanisms import flexible_crank_slider
    system, bodies = flexible_crank_slider(4)
    dae = system.assemble()
    return SimpleNamespace(system=system, bodies=bodies, dae=dae, y0=dae.initial_state())


@pytest.fixture(scope="session")
def single_beam():
    """``single_beam(support, n)``: linearized beam, ``"cantilever"`` (clamped at A, cantilever
    frame) or ``"pinned_pinned"`` (pinned at both ends, simply supported frame)."""
    cache = {}

    def get(support, n):
        if (support, n) not in cache:
            from phmech import System
            from phmech.fem import FloatingEulerBernoulliBeam
            p = STEEL_ROD
            frame = {"cantilever": "cantilever", "pinned_pinned": "simply_supported"}[support]
            b = FloatingEulerBernoulliBeam("b", p["L"], n, p["rho"], p["A"], p["E"], p["I"], frame=frame)
            s = System([b])
            if support == "cantilever":
                s.clamp(b.port("A"))
            else:
                s.pin(b.port("A"))
                s.pin(b.port("B"))
            cache[support, n] = s.linearize()
        return cache[support, n]
    return get


@pytest.fixture(scope="session")
def four_bar_model():
    """``four_bar_model(n)``: the flexible four-bar with ``n`` elements per link (cached)."""
    cache = {}

    def get(n):
        if n not in cache:
            from phmech.mechanisms import FourBar
            cache[n] = FourBar(n_elem=n)
        return cache[n]
    return get


def central_differences(fun, x, h=1e-6, relative=False):
    """Central differences of the vector function ``fun`` at ``x`` (one column per entry of ``x``);
    with ``relative`` the step is ``h * max(1, |x_i|)``."""
    x = np.asarray(x, float)
    cols = []
    for i in range(x.size):
        d = np.zeros(x.size)
        d[i] = h * max(1.0, abs(x[i])) if relative else h
        cols.append((np.asarray(fun(x + d)) - np.asarray(fun(x - d))) / (2 * d[i]))
    return np.column_stack(cols)


def uncompiled_f_and_jacobian(module, builder, scale):
    """``(f, dense df/dy)`` at ``t = 0.2`` of ``tests.<module>.<builder>()`` evaluated in a fresh
    process with ``NUMBA_DISABLE_JIT=1`` (the kernels run as Python), at the initial state plus
    ``scale`` times a fixed random vector; with the model and that state of this process."""
    import json
    import os
    import subprocess
    import sys
    state = f"dae.initial_state() + {scale!r} * np.random.default_rng(3).standard_normal(dae.n)"
    script = (f"import json, numpy as np, tests.{module} as t\n"
              f"dae = t.{builder}().assemble()\n"
              f"y = {state}\n"
              "print(json.dumps([dae.f(0.2, y).tolist(), dae.jacobian(0.2, y).toarray().ravel().tolist()]))\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1",
           "PYTHONPATH": os.pathsep.join([root, os.path.join(root, "tests")])}
    out = subprocess.run([sys.executable, "-c", script], env=env, cwd=root, capture_output=True, text=True,
                         check=True)
    return tuple(np.array(v) for v in json.loads(out.stdout.strip().splitlines()[-1]))


def same_midpoint_runs(system, t_end, dt=1e-3):
    """The compiled and the Python midpoint runs of ``system``: asserts that the compiled Newton
    iteration is taken and reproduces the Python one (same iterations, same trajectory to
    round-off); returns ``(compiled, python)``."""
    from phmech.solvers.midpoint import ImplicitMidpoint
    dae = system.assemble()
    assert ImplicitMidpoint(dae, 0.0, dae.initial_state(), 1.0, dt=dt)._kernel is not None
    a, b = (system.simulate(t_end, dt=dt, compiled=compiled) for compiled in (True, False))
    assert a.stats["nfev"] == b.stats["nfev"] and a.stats["nlu"] == b.stats["nlu"]
    scale = np.maximum(np.max(np.abs(b.y), axis=0), 1e-6 * np.max(np.abs(b.y)))
    assert np.max(np.abs(a.y - b.y) / scale) < 1e-10
    return a, b

"""Fill the kernel cache ahead of time: ``python -m phmech.warm``.

The compiled functions of phmech (:mod:`phmech.kernels.jit`) are
compiled on their first call and kept in a disk cache; a fresh
installation would spend a minute or two compiling in the user's first
run.  This module builds and steps tiny models through every compiled
path -- the residual and Jacobian kernels of planar and spatial frames,
point masses, packed loads, force elements and consistent beams, the Newton iterations of
the implicit midpoint rule, Radau IIA and the generalized-alpha method,
and the kernels of the classic benchmark problems -- so that every kernel
is compiled once, at installation, for the argument types the package
passes.  It prints the time taken and the cache directory, and lists any
compiled function that none of the models reached (exit status 1 with
``--strict``).

    python -m phmech.warm [--strict] [--quiet]

The cache directory is ``$PHMECH_NUMBA_CACHE_DIR`` (or
``~/.cache/phmech/numba``), as for every run; its entries are keyed by the
kernel sources and the processor, not by the checkout, so the cache filled
from one checkout or installation serves every other of the same sources.
"""
import argparse
import importlib
import sys
import time

import numpy as np

from .kernels import jit as _jit


def _step_models(say):
    """Every tiny model of :mod:`phmech.mechanisms.tiny` (one per family of contributions) with
    the midpoint rule, Radau IIA and generalized-alpha, and its Jacobian as a matrix and in the
    sparse form of the models above the dense limit."""
    from .mechanisms.tiny import tiny_models
    from .solvers import solve

    for name, m in tiny_models().items():
        tic = time.perf_counter()
        dae = m.build().assemble()
        y0 = dae.initial_state(0.0) if m.e0 is None else dae.initial_state(0.0, e0=np.array(m.e0))
        solve(dae, (0.0, m.t_end), y0, method="midpoint", dt=m.dt)
        solve(dae, (0.0, m.t_end), y0, method="radau", rtol=1e-5, atol=1e-5)
        solve(dae, (0.0, m.t_end), y0, method="genalpha", dt=m.dt)
        dae.jacobian(0.0, y0)                           # as a matrix, and as the large models' sparse one
        dae.residual().sparse_jacobian(0.0, y0)
        say(f"  {name}: midpoint, Radau IIA, generalized-alpha, sparse Jacobian ({time.perf_counter() - tic:.1f} s)")


def _networks(say):
    """A small mass-spring network in its second-order form (its own generalized-alpha run)."""
    from . import massspring as ms

    tic = time.perf_counter()
    mss = ms.MassSpringSystem2d()
    mss.gravity = [0.0, -9.81]
    a = mss.add(ms.Mass(1.0, [1.0, 0.0]))
    mss.add(ms.Spring(1.0, 100.0, (mss.add(ms.Fix([0.0, 0.0])), a)))
    mss.add(ms.Dashpot(0.1, (a, mss.add(ms.Fix([2.0, 0.0])))))
    mss.simulate(2e-2, 2)
    mss.problem().net.spring_state(mss.state()[0])
    say(f"  mass-spring network: second-order form ({time.perf_counter() - tic:.1f} s)")


def _sparse_factors(say):
    """The compiled solve with SuperLU's factors (the iteration matrices above
    :data:`~phmech.math.sizes.DENSE_MAX` unknowns; the models above are smaller)."""
    import scipy.sparse as sp

    from .solvers._dense import superlu
    tic = time.perf_counter()
    superlu(sp.csc_matrix(np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]]))).solve(np.ones(3))
    say(f"  sparse factors: compiled solve ({time.perf_counter() - tic:.1f} s)")


def _contacts(say):
    """A few steps of the contact models (sphere-plane and sphere-sphere contacts at ports, a
    rolling ball, a tippe top) with the three nonsmooth schemes."""
    from .contact import simulate
    from .validation import _contact_simple, bouncing_ball, tippe_top

    models = [("block on the incline", lambda: _contact_simple.block_model()[:2]),
              ("Newton's cradle", lambda: _contact_simple.cradle_model()[:2]),
              ("bouncing ball", lambda: bouncing_ball.model(2)[:2]),
              ("tippe top", lambda: tippe_top.model()[:2])]
    for name, build in models:
        tic = time.perf_counter()
        problem, y0 = build()
        for method in ("moreau", "moreau_shifted", "nsgenalpha"):
            simulate(problem, (0.0, 4e-3), y0, method=method, dt=2e-3)
        say(f"  {name}: Moreau, shifted Moreau, nonsmooth generalized-alpha ({time.perf_counter() - tic:.1f} s)")


def _classic(say):
    """The compiled right-hand sides, Jacobians and Radau stages of the classic benchmark problems."""
    from .solvers import solve
    from .validation import _classic_compiled as cc
    from .validation import _classic_models as cm

    for Model in (cm.AndrewsSqueezer, cm.SimeonCrank):
        tic = time.perf_counter()
        m = Model()
        n = m.n_p
        y0 = m.consistent_state(0.0, m.y0[:n], m.y0[n:2 * n])
        solve(m.index2_problem(compiled=True), (0.0, 1e-4), y0, method="radau", rtol=1e-5, atol=1e-5)
        fns = cc.ode_functions(m)
        if fns is not None:
            rhs, jac = fns
            rhs(0.0, y0[:2 * n])
            jac(0.0, y0[:2 * n])
        say(f"  {Model.__name__}: index-2 Radau IIA, ODE form ({time.perf_counter() - tic:.1f} s)")


def not_compiled():
    """Qualified names of the compiled functions of the kernel modules that have neither a
    compiled version in this process nor an entry in the disk cache."""
    for rel in _jit.kernel_modules():          # every kernel module imported, so all are registered
        importlib.import_module("phmech." + rel[:-3].replace("/", "."))
    return sorted(f"{k.py_func.__module__}.{k.py_func.__qualname__}" for k in _jit.KERNELS
                  if not k.signatures and not _jit.has_entry(k))


def compile_counts():
    """``(compiled, loaded)``: versions of the kernels compiled in this process and read from the
    disk cache."""
    compiled = sum(sum(k.stats.cache_misses.values()) for k in _jit.KERNELS)
    loaded = sum(sum(k.stats.cache_hits.values()) for k in _jit.KERNELS)
    return compiled, loaded


def warm(say=print):
    """Compile every kernel into the disk cache; returns ``(seconds, cache directory, names of
    kernels not reached)``."""
    if _jit.numba is None:
        raise RuntimeError("numba is not installed: nothing to compile (the Python paths run instead)")
    tic = time.perf_counter()
    directory = _jit.cache_directory()
    say(f"phmech kernel cache: {directory}")
    _step_models(say)
    _networks(say)
    _sparse_factors(say)
    _contacts(say)
    _classic(say)
    missing = not_compiled()
    return time.perf_counter() - tic, directory, missing


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--strict", action="store_true",
                    help="exit with status 1 when a compiled function was not reached by the models")
    ap.add_argument("--quiet", action="store_true", help="print the summary line only")
    args = ap.parse_args(argv)
    sys.argv[1:] = []                  # Firedrake hands the command line to PETSc, which would flag ours
    say = (lambda msg: None) if args.quiet else (lambda msg: print(msg, flush=True))
    seconds, directory, missing = warm(say)
    compiled, loaded = compile_counts()
    print(f"phmech kernel cache filled in {seconds:.1f} s: {len(_jit.KERNELS) - len(missing)} compiled functions, "
          f"{compiled} version(s) compiled now, {loaded} read from the cache, in {directory}")
    if missing:
        print(f"not reached by the models ({len(missing)}): {', '.join(missing)}", file=sys.stderr)
        if args.strict:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

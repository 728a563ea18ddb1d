"""numba's ``njit`` with a disk cache that follows every kernel module, or the plain function
where numba is missing.

The compiled functions call one another across modules (the midpoint,
Radau and generalized-alpha kernels contain the residual kernel, which
contains the beams' kernels), but numba's disk cache checks only the source
file of the function it stores: after an edit of ``compiled.py`` a cached
stage kernel of ``compiled_radau.py`` would still hold the old residual.
So the cache lives in a directory named after the digest of all kernel
modules (:data:`KERNEL_MODULES`) and numba's version: any edit of any of
them starts a fresh cache.  Location: ``$PHMECH_NUMBA_CACHE_DIR`` or
``~/.cache/phmech/numba``; where it cannot be written, numba's default
(``__pycache__`` beside the sources) is used.
"""
import hashlib
import os

try:
    import numba
except ImportError:  # pragma: no cover - numba is part of the installed stack
    numba = None

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: the modules with compiled functions, relative to the package (``tests/test_compiled.py``
#: checks that the list is complete)
KERNEL_MODULES = ("assembly/_jit.py", "assembly/compiled.py", "assembly/compiled_beams.py",
                  "assembly/compiled_midpoint.py", "assembly/compiled_radau.py",
                  "assembly/compiled_genalpha.py", "solvers/_newton.py", "validation/_classic_compiled.py",
                  "math/rotations.py", "bodies/frames.py", "joints/spatial_kernels.py", "loads_kernels.py")

_DIRECTORY = []


def cache_directory():
    """The directory of the compiled functions' cache for the present kernel sources."""
    if not _DIRECTORY:
        h = hashlib.sha256(numba.__version__.encode() if numba is not None else b"")
        for rel in KERNEL_MODULES:
            with open(os.path.join(_PACKAGE, rel), "rb") as fh:
                h.update(rel.encode() + b"\0" + fh.read())
        base = os.environ.get("PHMECH_NUMBA_CACHE_DIR") or os.path.join(
            os.path.expanduser("~"), ".cache", "phmech", "numba")
        _DIRECTORY.append(os.path.join(base, h.hexdigest()[:20]))
    return _DIRECTORY[0]


def jit(fn):
    """``numba.njit(cache=True)(fn)`` cached in :func:`cache_directory`; ``fn`` itself without numba."""
    if numba is None:
        return fn
    saved = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = cache_directory()       # read when the dispatcher sets up its cache
    try:
        return numba.njit(cache=True)(fn)
    finally:
        numba.config.CACHE_DIR = saved

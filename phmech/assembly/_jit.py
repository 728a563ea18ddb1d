"""numba's ``njit`` with the disk cache, or the plain function where numba is missing."""
try:
    import numba
except ImportError:  # pragma: no cover - numba is part of the installed stack
    numba = None


def jit(fn):
    """``numba.njit(cache=True)(fn)``; ``fn`` itself without numba."""
    return numba.njit(cache=True)(fn) if numba is not None else fn

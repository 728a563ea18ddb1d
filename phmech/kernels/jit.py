"""numba's ``njit`` with a disk cache that follows every kernel module, or the plain function
where numba is missing.

The compiled functions call one another across modules (the midpoint,
Radau and generalized-alpha kernels contain the residual kernel, which
contains the beams' kernels), but numba's disk cache checks only the source
file of the function it stores: after an edit of ``compiled.py`` a cached
stage kernel of ``solvers/radau_kernels.py`` would still hold the old residual.
So the cache lives in a directory named after the digest of all kernel
modules (:func:`kernel_modules`: every module of the package with a compiled
function, found by the decorator) and numba's version: any edit of any of
them starts a fresh cache.  Location: ``$PHMECH_NUMBA_CACHE_DIR`` or
``~/.cache/phmech/numba``; where it cannot be written, numba's default
(``__pycache__`` beside the sources) is used.

Inside it, the entries of a module are found by the module's path relative
to the package (``solvers/compiled.py`` in ``<directory>/solvers``), and
they are fresh when they were stored for the same digest (numba's own
locators name the folder after the source file's absolute path): every
checkout, clone or installation of the same sources on the machine shares
one cache, so the one filled by the install serves them all.  numba's key
of each entry adds the function's bytecode, its argument types and the
processor (target, CPU name and features), so machines sharing a home
directory keep entries of their own.  Compiled functions of files outside
the package keep numba's locators, in the same directory.

Before the first compilation of a process that would take more than a
second, one notice (the ``phmech`` logger) says so, with an estimate of the
time from the kernels missing from the cache (:func:`compile_estimate`).

Entries are loaded by :func:`phmech.kernels.loading.load`, which links the
cached object code without initializing numba's compiler (several times
faster in a fresh process); ``PHMECH_KERNEL_LOADER=numba`` selects numba's
own loader.

A damaged entry (a truncated or overwritten index or data file, which
numba would report as an ``UnpicklingError`` on every later run), or one
that holds the code of another function or signature (entries swapped
between kernels), is discarded and its function compiled again; a warning
names the cache directory.  The cache is code: a directory (or one above
it) writable by others or owned by another user is not used, with a
warning saying why (:func:`untrusted`), and the kernels are compiled in
memory.  ``python -m phmech.warm`` fills the cache ahead of
time (:mod:`phmech.warm`).
"""
import glob
import hashlib
import logging
import os
import re
import warnings

try:
    import numba
except ImportError:  # pragma: no cover - numba is part of the installed stack
    numba = None

from . import loading as _kernel_loading

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # phmech/

#: numba's own loader for the cached kernels instead of :func:`phmech.kernels.loading.load`
_NUMBA_LOADER = os.environ.get("PHMECH_KERNEL_LOADER", "").strip().lower() == "numba"

#: a module with compiled functions: one decorated ``@_jit`` or ``@_jit_inline`` (or calling ``numba.njit``),
#: or one that declares a kernel family or its calls (:mod:`phmech.kernels.families`)
#: (a line start written as a newline, which the search finds several times faster than ``^``)
_KERNEL_MARK = re.compile(rb"\n(?:@_jit(?:_inline)?\b|register_family\(|\s*@overload\()|numba\.njit\(")
#: text every match of :data:`_KERNEL_MARK` contains (files without any are not searched: the
#: search of the whole package takes 0.15 s, the test of the texts 0.01 s)
_KERNEL_TEXTS = (b"@_jit", b"numba.njit(", b"register_family(", b"@overload(")

_MODULES = []


def marked_modules(mark, texts=None):
    """The modules of the package whose source, after a newline, matches the regular expression
    ``mark`` (bytes), as paths relative to the package with ``/`` (sorted); with ``texts``, a tuple
    of bytes one of which every match contains, only the sources holding one are searched."""
    found = []
    for folder, dirs, files in os.walk(_PACKAGE):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
        for f in sorted(files):
            if f.endswith(".py"):
                with open(os.path.join(folder, f), "rb") as fh:
                    source = fh.read()
                if (texts is None or any(t in source for t in texts)) and mark.search(b"\n" + source):
                    found.append(os.path.relpath(os.path.join(folder, f), _PACKAGE).replace(os.sep, "/"))
    return sorted(found)


def kernel_modules():
    """The modules of the package with compiled functions, relative to the package (sorted)."""
    if not _MODULES:
        _MODULES.extend(marked_modules(_KERNEL_MARK, _KERNEL_TEXTS))
    return tuple(_MODULES)


_DIRECTORY = []

#: every compiled function made by :func:`jit` in this process (:mod:`phmech.warm`
#: checks that each has been compiled)
KERNELS = []

log = logging.getLogger("phmech")


_DIGEST = []


def sources_digest():
    """The SHA-256 (hex) of numba's version and of every kernel module, by its path relative
    to the package and its bytes: the same for every checkout, clone or installation of the
    same sources."""
    if not _DIGEST:
        h = hashlib.sha256(numba.__version__.encode() if numba is not None else b"")
        for rel in kernel_modules():
            with open(os.path.join(_PACKAGE, rel), "rb") as fh:
                h.update(rel.encode() + b"\0" + fh.read())
        _DIGEST.append(h.hexdigest())
    return _DIGEST[0]


def cache_directory():
    """The directory of the compiled functions' cache for the present kernel sources."""
    if not _DIRECTORY:
        base = os.environ.get("PHMECH_NUMBA_CACHE_DIR") or os.path.join(
            os.path.expanduser("~"), ".cache", "phmech", "numba")
        _DIRECTORY.append(os.path.join(base, sources_digest()[:20]))
    return _DIRECTORY[0]


_PACKAGE_PATHS = {}


def package_path(py_file):
    """The path of the source file ``py_file`` relative to the package (with ``/``), or None
    for a file outside it (found once a file)."""
    if py_file not in _PACKAGE_PATHS:
        if None not in _PACKAGE_PATHS:
            _PACKAGE_PATHS[None] = os.path.realpath(_PACKAGE)
        root, path = _PACKAGE_PATHS[None], os.path.realpath(os.path.abspath(py_file))
        inside = path.startswith(root + os.sep) and os.path.isfile(path)
        _PACKAGE_PATHS[py_file] = os.path.relpath(path, root).replace(os.sep, "/") if inside else None
    return _PACKAGE_PATHS[py_file]


_FILE_DIGESTS = {}


def _file_digest(rel):
    """The SHA-256 of the package's source file ``rel``, read once."""
    if rel not in _FILE_DIGESTS:
        with open(os.path.join(_PACKAGE, rel), "rb") as fh:
            _FILE_DIGESTS[rel] = hashlib.sha256(fh.read()).hexdigest()
    return _FILE_DIGESTS[rel]


def untrusted(directory):
    """Why the kernel cache in ``directory`` cannot be trusted, or None.

    Its entries are compiled code that numba unpickles, so (as ssh does for its keys) the
    directory and every existing directory above it must belong to this user or to root and
    be writable by nobody else (a directory writable by all with the sticky bit, as /tmp, is
    accepted above the cache: nobody else can replace what is in it)."""
    uid = os.getuid() if hasattr(os, "getuid") else None
    path = cache = os.path.abspath(directory)
    while True:
        if os.path.isdir(path):
            st = os.stat(path)
            mode = st.st_mode & 0o7777
            if uid is not None and st.st_uid not in (uid, 0):
                return f"{path} belongs to another user (uid {st.st_uid}, not {uid})"
            if mode & 0o022 and (path == cache or not mode & 0o1000):
                who = "others" if mode & 0o002 else "its group"
                return f"{path} is writable by {who} (mode {mode:04o})"
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


_TRUST = []


def cache_trusted():
    """Whether the kernel cache may be used; the first time it may not, a warning says why."""
    if not _TRUST:
        reason = untrusted(cache_directory())
        if reason is not None:
            _report(f"kernel cache {cache_directory()} not used: {reason}; compiled code planted there would "
                    "run when the kernels load, so they are compiled in memory instead (make the directory "
                    "yours and writable by you only, chmod go-w, or set PHMECH_NUMBA_CACHE_DIR to such a "
                    "directory)")
        _TRUST.append(reason is None)
    return _TRUST[0]


_WARNED = []


def _report(message):
    """The first problem of the kernel cache in a process as a warning, later ones in the log."""
    if _WARNED:
        log.info(message)
    else:
        _WARNED.append(message)
        warnings.warn(message, RuntimeWarning, stacklevel=4)


def has_entry(kernel):
    """Whether the compiled function ``kernel`` has an index in the disk cache (a version of it
    compiled for the present sources; a kernel called only by others is not loaded on its own
    when its callers are read from the cache)."""
    try:
        return os.path.exists(kernel._cache._cache_file._index_path)
    except AttributeError:      # no disk cache (numba's NullCache)
        return False


#: seconds numba takes to compile one kernel, about: a fixed part and a part per byte of its
#: bytecode (the helpers it inlines are compiled with it, so this is rough: a factor of two or
#: three either way).  Least squares over the 158 functions compiled by the rigid models of
#: ``python -m phmech.warm`` on an empty cache (2.0 s + 6.3 ms a byte on a loaded 2-core
#: machine, 950 s in all), scaled to an unloaded one (the install's whole warm-up, 266 s)
_COMPILE_SECONDS = (0.6, 1.8e-3)


def compile_estimate(also=None):
    """Seconds, about, that compiling the kernels made so far without an entry in the disk cache
    takes (and the Python function ``also`` of a kernel missing a version); a run compiles only
    those it calls."""
    missing = [k.py_func for k in KERNELS if not has_entry(k)]
    if also is not None and all(f is not also for f in missing):
        missing.append(also)
    fixed, per_byte = _COMPILE_SECONDS
    return sum(fixed + per_byte * len(f.__code__.co_code) for f in missing)


def _duration(seconds):
    """``seconds`` in words for the notice: "12 s", "3 min"."""
    if seconds < 90:
        return f"{max(5 * round(seconds / 5), 1):.0f} s" if seconds >= 5 else f"{seconds:.0f} s"
    return f"{round(seconds / 60):.0f} min"


_ANNOUNCED = []


def announce_compile(py_func):
    """Before the kernel of ``py_func``, missing from the disk cache, is compiled: one notice in the
    process, when compiling what is missing takes more than a second, that the kernels are compiled
    once and where they are kept (the ``phmech`` logger at INFO where it has a handler, otherwise a
    warning on stderr)."""
    if _ANNOUNCED:
        return
    seconds = compile_estimate(py_func)
    if seconds <= 1.0:
        return
    _ANNOUNCED.append(seconds)
    if cache_trusted():
        text = (f"compiling the time-step kernels once (about {_duration(seconds)}); later runs load them "
                f"from {cache_directory()}")
    else:
        text = (f"compiling the time-step kernels (about {_duration(seconds)}) in memory, as in every run "
                f"while the kernel cache {cache_directory()} is not used (see the warning)")
    if log.hasHandlers():
        log.info(text)
    else:                       # no handler: Python's last resort prints warnings to stderr
        log.warning("phmech: %s", text)


_ENSURED = set()


def _checked_cache_classes():
    """numba's function cache with the package's kernels located by their content and damaged
    entries discarded instead of raised, and the cache of an untrusted directory (none, the
    compilations announced); None where this numba lacks the classes."""
    try:
        from numba.core.caching import CompileResultCacheImpl, FunctionCache, NullCache, _CacheLocator
    except ImportError:     # pragma: no cover - present in every numba the stack installs
        return None, None

    class KernelCacheLocator(_CacheLocator):
        """The cache of a compiled function of the package: ``<cache_directory()>/<its module's
        folder relative to the package>``, its freshness the digest of the kernel sources and of
        its own file (numba's locators name the folder after the source's absolute path, so
        every checkout of the same sources would compile again).  numba's index key adds the
        function's bytecode, the argument types and the processor (target, CPU, features)."""

        def __init__(self, py_func, rel):
            self._rel = rel
            self._lineno = py_func.__code__.co_firstlineno
            self._path = os.path.join(cache_directory(), *rel.split("/")[:-1])

        def ensure_cache_path(self):
            if self._path not in _ENSURED:
                super().ensure_cache_path()
                _ENSURED.add(self._path)

        def get_cache_path(self):
            return self._path

        def get_source_stamp(self):
            return "phmech", sources_digest(), _file_digest(self._rel)

        def get_disambiguator(self):
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            rel = package_path(py_file)
            if rel is None:
                return None             # outside the package: numba's locators
            self = cls(py_func, rel)
            try:
                self.ensure_cache_path()
            except OSError:             # not writable: numba's locators (``__pycache__``, ...)
                return None
            return self

    class KernelCacheImpl(CompileResultCacheImpl):
        _locator_classes = [KernelCacheLocator, *CompileResultCacheImpl._locator_classes]

    class CheckedFunctionCache(FunctionCache):
        """A disk cache whose unreadable entries are removed and compiled again."""

        _impl_class = KernelCacheImpl

        def _files(self):
            cf = self._cache_file
            index = cf._index_path
            return [index] + glob.glob(glob.escape(index[:-len(".nbi")]) + ".*.nbc")

        def _discard(self, err):
            removed, kept = [], []
            for path in self._files():
                try:
                    os.remove(path)
                    removed.append(os.path.basename(path))
                except FileNotFoundError:
                    pass
                except OSError as oserr:
                    kept.append(f"{path} ({oserr.strerror})")
            where = cache_directory()
            msg = (f"kernel cache {where}: damaged entry of {self._py_func.__qualname__} "
                   f"({type(err).__name__}: {err}); discarded {', '.join(removed) or 'nothing'} and compiling "
                   "again")
            if kept:
                msg += (f"; could not remove {', '.join(kept)}: the function runs uncached until the "
                        f"directory is cleared (rm -rf {where})")
            _report(msg)

        def load_overload(self, sig, target_context):
            try:
                if _NUMBA_LOADER:
                    result = super().load_overload(sig, target_context)
                else:
                    result = _kernel_loading.load(self, sig, target_context)
                if result is not None:
                    _kernel_loading.check_entry(result, self._py_func, sig)
                    return result
            except Exception as err:        # unpickling errors, truncated files, foreign data
                self._discard(err)
            if self._enabled:
                announce_compile(self._py_func)
            return None

        def save_overload(self, sig, data):
            try:
                super().save_overload(sig, data)
            except Exception as err:        # e.g. a damaged index that could not be removed
                _report(f"kernel cache {cache_directory()}: {self._py_func.__qualname__} not stored "
                        f"({type(err).__name__}: {err}); clear the directory to store it "
                        f"(rm -rf {cache_directory()})")

    class AnnouncedCompilation(NullCache):
        """No disk cache (an untrusted directory): each compilation is announced as a miss is."""

        def __init__(self, py_func):
            self._py_func = py_func

        def load_overload(self, sig, target_context):
            announce_compile(self._py_func)

    return CheckedFunctionCache, AnnouncedCompilation


_CACHE_CLASS = []


def jit(fn):
    """``numba.njit(cache=True)(fn)`` cached in :func:`cache_directory`; ``fn`` itself without numba.

    The disk cache discards damaged entries (recompiling them, with a warning naming the
    directory) instead of failing with numba's unpickling error."""
    if numba is None or numba.config.DISABLE_JIT:       # the same source run as Python
        return fn
    if not _CACHE_CLASS:
        _CACHE_CLASS.extend(_checked_cache_classes())
    if not cache_trusted():
        dispatcher = numba.njit(fn)
        if _CACHE_CLASS[1] is not None:
            dispatcher._cache = _CACHE_CLASS[1](dispatcher.py_func)
        KERNELS.append(dispatcher)
        return dispatcher
    saved = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = cache_directory()       # numba's locators (files outside the package)
    try:
        if _CACHE_CLASS[0] is None:
            dispatcher = numba.njit(cache=True)(fn)
        else:
            dispatcher = numba.njit(fn)
            dispatcher._cache = _CACHE_CLASS[0](dispatcher.py_func)
    finally:
        numba.config.CACHE_DIR = saved
    KERNELS.append(dispatcher)
    return dispatcher


def inline(fn):
    """``numba.njit(inline="always")(fn)``: a small helper whose code numba writes into each
    compiled caller (``fn`` itself without numba).

    For the helpers called with arrays in the inner loops of the kernels: a call of a
    separately compiled function costs about 20 ns there (the arrays' reference counts),
    several times the helper's own work (the spatial joints' rows: 1.1 -> 0.55 us a joint).
    Such a helper has no compiled version of its own and no cache entry: it is compiled, and
    cached, inside its callers."""
    if numba is None:
        return fn
    return numba.njit(inline="always")(fn)


def record_type(numba_type, cls):
    """Whether ``numba_type`` is the numba type of an instance of the namedtuple class ``cls``
    (the test of the overloads that tell a compiled record from Python data)."""
    from numba.core import types
    return isinstance(numba_type, types.BaseNamedTuple) and numba_type.instance_class is cls


def _borrowed_value(context, builder, ty, value):
    """``value`` of type ``ty`` with the memory owner (``meminfo``) of each array set to null."""
    from numba.core import cgutils, types
    if isinstance(ty, types.Array):
        ary = cgutils.create_struct_proxy(ty)(context, builder, value=value)
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        return ary._getvalue()
    if isinstance(ty, types.BaseTuple):
        out = cgutils.get_null_value(value.type)
        for i, member in enumerate(ty):
            item = _borrowed_value(context, builder, member, builder.extract_value(value, i))
            out = builder.insert_value(out, item, i)
        return out
    return value


def _make_borrowed():
    def borrowed(x):
        return x
    if numba is None or numba.config.DISABLE_JIT:
        return borrowed
    from numba.extending import intrinsic, overload

    @intrinsic
    def _views(typingctx, x):
        def codegen(context, builder, signature, args):
            return _borrowed_value(context, builder, signature.args[0], args[0])
        return x(x), codegen

    @overload(borrowed, inline="always")
    def _typed(x):
        return lambda x: _views(x)
    return borrowed


#: ``borrowed(x)``: the arrays of ``x`` (an array, or a tuple of arrays, tuples and scalars) as
#: views without an owner, for the inner calls of a compiled loop that holds ``x`` itself.
#:
#: numba counts the references of every array passed to a compiled function (an atomic
#: increment on entry, a decrement on return), also of the arrays of a tuple the function
#: only hands on; for the crank-slider's residual these are some 400 a call.  A view without
#: an owner (as numba's ``carray``) has no count to keep, so the calls skip it.  The views
#: are valid while the caller's own references live: they must not be returned or stored.
#: Same type, so no new compiled versions; the identity in interpreted code (a loop written once
#: for both, such as :func:`~phmech.solvers.midpoint_kernels.midpoint_steps`) and without numba.
borrowed = _make_borrowed()

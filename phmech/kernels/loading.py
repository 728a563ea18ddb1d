"""Loading the compiled kernels from their disk cache, and the clocks of set-up and loading.

A fresh process loads every compiled function it calls from the kernel cache
(:mod:`phmech.kernels.jit`).  numba's own loader spends most of that time on two
things that a cached function does not need in order to run:

- it initializes its whole compiler first (its target context imports and
  registers every implementation numba has), although nothing is compiled;
- it parses the function's LLVM bitcode, kept beside the object code only so
  that functions compiled later in the process can inline it;
- it compiles the LLVM functions of its memory manager (``NRT``): every
  compiled function carries its own copy of them (numba links them into each
  library it compiles), so the loaded code needs only the manager's C
  functions, registered by name;
- it imports the module of every numba function a kernel inlined (its
  array, math and string implementations), to give that function's runtime
  environment the module's globals.  Code compiled in nopython mode reads only
  the environment's constants; the globals serve object mode, which no kernel
  uses.

:func:`load` reads the same cache entry, links the object code, and defers
all of it: the bitcode is parsed on first use by a later compilation; the
compiler, and with it the memory manager's LLVM functions, is initialized on
the first cache miss (numba's compiler does so itself before compiling); an
environment whose module is not imported is given its module's name for
globals (:func:`_environment`).  The entry's code, and so
every result, is the same as with numba's loader.  The stiffened
crank-slider of the validation cases loads its nine kernels in 0.04-0.06 s
instead of 0.5-0.9 s (``benchmarks/kernel_loading.py``, fresh processes).

Where the installed numba stores its entries differently (another layout of
the cached data), :func:`load` uses numba's loader.

:class:`KernelClock` measures the time numba spends loading or compiling;
:class:`SetupClock` accumulates the set-up of a model (its assembly and
consistent initial state) until a result reports it.
"""
import contextlib
import pickle
import sys
import time

try:
    import numba
except ImportError:  # pragma: no cover - numba is part of the installed stack
    numba = None

#: the fields of numba's cached compile result, in its order (``CompileResult._reduce``)
_FIELDS = 9

_LAZY_CLASSES = {}


def _deferred_linking_class(base):
    """``base`` (numba's code library class) whose module for linking is parsed on first use."""
    cls = _LAZY_CLASSES.get(base)
    if cls is None:
        import llvmlite.binding as ll

        class DeferredLinkingLibrary(base):
            """A library loaded from object code; its bitcode, needed only to inline it into
            functions compiled later, is parsed when such a function first asks for it."""

            @property
            def _shared_module(self):
                state = self.__dict__
                if state.get("_linking_module") is None and state.get("_linking_bitcode") is not None:
                    state["_linking_module"] = ll.parse_bitcode(state.pop("_linking_bitcode"))
                return state.get("_linking_module")

            @_shared_module.setter
            def _shared_module(self, module):
                self.__dict__["_linking_module"] = module

        cls = _LAZY_CLASSES[base] = DeferredLinkingLibrary
    return cls


def _loadable(data):
    """Whether a cache entry has the layout :func:`load` links itself: a compiled (not object
    mode) function stored as object code and bitcode, without initializers to re-run."""
    if not (isinstance(data, tuple) and len(data) == _FIELDS):
        return False
    libdata, objectmode, reload_init = data[0], data[4], data[7]
    return (isinstance(libdata, tuple) and len(libdata) == 3 and libdata[1] == "object"
            and len(libdata[2]) == 2 and not objectmode and not reload_init)


def _environment(modname, consts, env_name):
    """The runtime environment ``env_name`` of a cached function (in place of numba's
    ``environment._rebuild_env``): the live one of that name if there is one, else a new
    one with ``consts``, whose globals are its module's if that is imported and otherwise
    just the module's name (nopython code reads only the constants; the name keeps the
    environment cacheable)."""
    from numba.core.environment import Environment, lookup_environment

    env = lookup_environment(env_name)
    if env is None:
        module = sys.modules.get(modname)
        env = Environment(module.__dict__ if module is not None else {"__name__": modname})
        env.consts[:] = consts
        env.env_name = env_name
        Environment._memo[env_name] = env
    return env


class _EntryUnpickler(pickle.Unpickler):
    """numba's pickled cache entry, its environments rebuilt by :func:`_environment`."""

    def find_class(self, module, name):
        if (module, name) == ("numba.core.environment", "_rebuild_env"):
            return _environment
        return super().find_class(module, name)


def _read_entry(cache_file, key):
    """The cache entry of ``key`` in numba's ``cache_file`` (as its ``load``), or None."""
    name = cache_file._load_index().get(key)
    if name is None:
        return None
    try:
        with open(cache_file._data_path(name), "rb") as fh:
            return _EntryUnpickler(fh).load()
    except OSError:         # removed while the index still names it
        return None


def check_entry(result, py_func, sig):
    """Refuse a loaded cache entry that is not the compiled ``py_func`` for the argument types
    ``sig`` (entries swapped between kernels would otherwise fail every call, e.g. "expected
    34 arguments, got 59"): raises ``ValueError`` naming both."""
    fndesc = getattr(result, "fndesc", None)
    held = (getattr(fndesc, "modname", None), getattr(fndesc, "qualname", None))
    if held != (py_func.__module__, py_func.__qualname__):
        raise ValueError(f"the entry holds the code of {held[0]}.{held[1]}, not of "
                         f"{py_func.__module__}.{py_func.__qualname__}")
    from numba.core import sigutils
    wanted = tuple(sigutils.normalize_signature(sig)[0])
    args = tuple(getattr(result.signature, "args", ()))
    if args != wanted:
        raise ValueError(f"the entry holds {len(args)} argument types, not the {len(wanted)} of the call")


_RUNTIME = []


def _register_runtime(target_context):
    """Make the C functions of numba's memory manager known to the linker by name, as its
    ``rtsys.initialize`` does before it compiles the manager's LLVM functions, which the
    loaded code does not call (each compiled library holds its own copy); numba's compiler
    initializes the manager fully before it compiles anything."""
    if _RUNTIME:
        return
    from numba.core import config
    from numba.core.runtime import _nrt_python, rtsys

    if config.NRT_STATS:
        rtsys.initialize(target_context)
    else:
        import llvmlite.binding as ll

        for py_name, address in _nrt_python.c_helpers.items():
            ll.add_symbol(py_name if py_name.startswith("_") else "NRT_" + py_name, address)
    _RUNTIME.append(True)


def load(cache, sig, target_context):
    """The compile result of ``sig`` from numba function cache ``cache``, or None (not cached).

    Reads the entry as numba does; where it has the expected layout, links its object code
    without initializing the compiler and without parsing its bitcode (see the module's
    docstring), else rebuilds it with numba's own loader."""
    if not cache._enabled:
        return None
    codegen = target_context.codegen()
    data = _read_entry(cache._cache_file, cache._index_key(sig, codegen))
    if data is None:
        target_context.refresh()            # a miss: the compiler will be needed now
        return None
    if not _loadable(data) or not hasattr(codegen, "_engine"):
        target_context.refresh()
        return cache._impl.rebuild(target_context, data)
    from numba.core import compiler

    libdata, fndesc, env, signature, objectmode, lifted, typeann, reload_init, referenced_envs = data
    name, _, (object_code, bitcode) = libdata
    _register_runtime(target_context)       # the memory manager the compiled code calls
    library = _deferred_linking_class(codegen._library_class)(codegen, name)
    library.enable_object_caching()
    library._set_compiled_object(object_code)
    library.__dict__["_linking_bitcode"] = bitcode
    library._finalize_final_module()
    # the entry points numba looks up by name (numba's loader takes them from the bitcode)
    codegen._engine._defined_symbols |= {fndesc.mangled_name, fndesc.llvm_cpython_wrapper_name,
                                         fndesc.llvm_cfunc_wrapper_name}
    entry = target_context.get_executable(library, fndesc, env)
    result = compiler.CompileResult(
        target_context=target_context, typing_context=target_context.typing_context,
        library=library, environment=env, entry_point=entry, fndesc=fndesc, type_annotation=typeann,
        signature=signature, objectmode=objectmode, lifted=lifted, typing_error=None, call_helper=None,
        metadata=None, reload_init=reload_init, referenced_envs=referenced_envs)
    for ref in referenced_envs:
        codegen.set_env(ref.env_name, ref)
    return result


class KernelClock:
    """Seconds spent loading or compiling the compiled kernels between :meth:`start` and
    :meth:`stop`: the time numba holds its compiler lock (disk-cache loads and compilations,
    nested ones counted once); always zero without numba."""

    def __init__(self):
        self.seconds = 0.0
        self._listener = None

    def start(self):
        if numba is None:       # pragma: no cover - numba is part of the installed stack
            return
        from numba.core import event
        self._listener = event.TimingListener()
        event.register("numba:compiler_lock", self._listener)

    def stop(self):
        if self._listener is None:
            return
        from numba.core import event
        event.unregister("numba:compiler_lock", self._listener)
        if self._listener.done:
            self.seconds += self._listener.duration
        self._listener = None


_OPEN = [0]         # timed sections open in this process: only the outermost one counts


class SetupClock:
    """Seconds of set-up, and of kernel loading or compilation within it, not yet reported.

    :meth:`timing` adds the time of a block (a section nested in another timed section, of
    this or another clock, adds nothing: the outer one counts it); :meth:`take` returns
    ``(setup, kernel)`` and starts again from zero, so that the first result that reports a
    model's set-up is the only one."""

    def __init__(self):
        self.setup = 0.0
        self.kernel = 0.0

    @contextlib.contextmanager
    def timing(self):
        if _OPEN[0]:
            with held():
                yield
            return
        clock, tic = KernelClock(), time.perf_counter()
        _OPEN[0] += 1
        clock.start()
        try:
            yield
        finally:
            clock.stop()
            _OPEN[0] -= 1
            self.kernel += clock.seconds
            self.setup += time.perf_counter() - tic - clock.seconds

    def take(self):
        out = (self.setup, self.kernel)
        self.setup = self.kernel = 0.0
        return out


@contextlib.contextmanager
def held():
    """A section timed elsewhere (e.g. a solver's steps): set-up clocks add nothing inside it."""
    _OPEN[0] += 1
    try:
        yield
    finally:
        _OPEN[0] -= 1

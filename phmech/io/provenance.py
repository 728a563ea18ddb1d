"""What produced a result: phmech's version and git commit, the versions of the stack, the machine.

Recorded in every ``summary.json`` (:func:`phmech.validation._common.write_summary`),
every checkpoint and, as ``#`` comment lines, at the top of every CSV file the
validation cases write (:func:`csv_header`).  Cheap: package versions come from the installed
metadata (no import of Firedrake or PETSc unless already imported), the
git commit from one ``git`` call, cached for the process.
"""
import functools
import importlib.metadata
import importlib.util
import json
import os
import platform
import subprocess
import sys
import types

import numpy as np

#: distribution names tried, in turn, for each reported package
PACKAGES = {"numpy": ("numpy",), "scipy": ("scipy",), "firedrake": ("firedrake",),
            "petsc4py": ("petsc4py",), "assimulo": ("assimulo", "assimulo-testing"),
            "h5py": ("h5py",), "vtk": ("vtk",)}


def package_version(module, distributions=None):
    """Version of ``module`` (``None`` when it is not importable).

    An imported module's ``__version__`` is used first, then the installed
    distribution's metadata; ``"unknown"`` when importable but unversioned.
    """
    mod = sys.modules.get(module)
    if mod is not None and getattr(mod, "__version__", None):
        return str(mod.__version__)
    try:
        if importlib.util.find_spec(module) is None:
            return None
    except (ImportError, ValueError):
        return None
    for dist in distributions or (module,):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "unknown"


def petsc_version():
    """The PETSc library version when petsc4py.PETSc is already imported, else petsc4py's version
    (they are released together); ``None`` without petsc4py."""
    PETSc = sys.modules.get("petsc4py.PETSc")
    if PETSc is not None:
        try:
            return ".".join(str(v) for v in PETSc.Sys.getVersion())
        except Exception:          # a half-initialized PETSc: fall back to the metadata
            pass
    return package_version("petsc4py")


@functools.lru_cache(maxsize=1)
def git_commit():
    """``(commit, dirty)`` of the checkout phmech runs from; ``("unknown", None)`` outside git."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        commit = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=5)
        if commit.returncode != 0:
            return "unknown", None
        status = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no", "--",
                                 "phmech"], capture_output=True, text=True, timeout=10)
        dirty = bool(status.stdout.strip()) if status.returncode == 0 else None
        return commit.stdout.strip(), dirty
    except (OSError, subprocess.SubprocessError):
        return "unknown", None


def provenance():
    """JSON-ready record of phmech, the stack and the machine.

    Returns
    -------
    dict
        ``phmech`` (version, git commit, whether phmech's files differ from
        the commit), ``versions`` (numpy, scipy, firedrake, petsc, petsc4py,
        assimulo, h5py, vtk; ``None`` where not importable), ``python`` and
        ``machine`` (platform, architecture, processors).
    """
    from .. import __version__
    commit, dirty = git_commit()
    versions = {name: package_version(name, dists) for name, dists in PACKAGES.items()}
    versions["petsc"] = petsc_version()
    return {"phmech": {"version": __version__, "git_commit": commit, "modified": dirty},
            "versions": versions,
            "python": {"version": platform.python_version(), "implementation": platform.python_implementation(),
                       "executable": sys.executable},
            "machine": {"platform": platform.platform(), "architecture": platform.machine(),
                        "processor": platform.processor() or None, "cpus": os.cpu_count()}}


def _option_text(value):
    """Short text of one solver option: numbers and strings as they are, arrays by their extent."""
    import numpy as np
    if isinstance(value, np.ndarray) or (isinstance(value, (list, tuple)) and len(value) > 6):
        a = np.asarray(value)
        if a.dtype.kind in "fiu" and a.ndim == 1 and a.size:
            return f"<{a.size} values in [{a.min():.6g}, {a.max():.6g}]>"
        return f"<array {a.shape}>"
    if callable(value):
        return f"<{getattr(value, '__name__', type(value).__name__)}>"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def csv_header(case=None, solver=None, options=None, notes=()):
    """The ``#`` comment lines that open a CSV file (without line ends).

    Parameters
    ----------
    case : str, optional
        What wrote the file (a validation case's name).
    solver : str, optional
        The time integrator or eigen solver of the data.
    options : dict, optional
        Its options (step size, tolerances, ...); arrays are given by their
        extent, callables by their name.
    notes : sequence of str
        Further lines (parameters, units, sources).

    Returns
    -------
    list of str
        Lines starting with ``"# "``: phmech's version and git commit, the
        versions of numpy, scipy, Firedrake, PETSc, petsc4py and assimulo,
        Python and the machine, the case, solver and options, the notes.
        Readers skip them as comments (``np.loadtxt(..., comments="#")``,
        ``pandas.read_csv(..., comment="#")``,
        :func:`phmech.validation._common.read_csv`).
    """
    import time
    p = provenance()
    ph, v = p["phmech"], p["versions"]
    modified = {True: ", modified", False: "", None: ""}[ph["modified"]]
    names = ("numpy", "scipy", "firedrake", "petsc", "petsc4py", "assimulo")
    lines = [f"phmech {ph['version']} (git {ph['git_commit']}{modified})",
             "created " + time.strftime("%Y-%m-%dT%H:%M:%S") + (f" by case {case}" if case else ""),
             "versions: " + ", ".join(f"{n} {v.get(n) or 'absent'}" for n in names)
             + f", python {p['python']['version']}",
             f"machine: {p['machine']['platform']}, {p['machine']['cpus']} cpus"]
    if solver is not None:
        lines.append(f"solver: {solver}")
    if options:
        lines.append("options: " + ", ".join(f"{k}={_option_text(val)}" for k, val in sorted(options.items())))
    lines += [str(n) for n in notes]
    return ["# " + line.replace("\n", " ") for line in lines]


# -- what identifies a model parameter -------------------------------------------------------
class UnidentifiableError(TypeError):
    """A model parameter whose value cannot be recorded (see :func:`identify`): a checkpoint of
    the model could not tell it from another one."""


#: arrays up to this many entries are recorded by value, larger ones by their SHA-256
ARRAY_VALUES = 64
#: most values (objects, closure variables, attributes ...) recorded for one parameter
BUDGET = 2000


def identify(value, where):
    """JSON-ready record of a model parameter: equal records for parameters that act equally.

    Parameters
    ----------
    value : object
        A number, string, array, list, tuple, dict, or a function of time.
    where : str
        What the value is (e.g. ``"joint 'drive' omega"``), for errors.

    Returns
    -------
    None, bool, int, float, str, list or dict
        Numbers and strings as they are (non-finite floats as text); arrays of
        at most :data:`ARRAY_VALUES` entries as nested lists, larger ones by
        shape, type and SHA-256; Python functions by their source text (their
        compiled code when the source is not available), the values of their
        closure variables, defaults and the global names they use (and the
        values they read from modules, ``cfg.k`` of a module ``cfg``);
        ``functools.partial`` by its function and arguments; bound methods
        by their function and object; modules, classes and built-in
        functions by name; other objects by class and attributes.

    Raises
    ------
    UnidentifiableError
        For an object without attributes that is none of the above, or a
        value that refers to more than :data:`BUDGET` others (a whole model,
        a mesh ...); the message names ``where`` and the object.
    """
    return _Identifier(where).record(value, where, ())


class _Identifier:
    def __init__(self, where):
        self.where, self.count = where, 0

    def refuse(self, path, reason):
        raise UnidentifiableError(f"{path}: {reason}; the model cannot be identified, so a checkpoint "
                                  "could not tell it from another model (use numbers, arrays or functions "
                                  "of plain values)")

    def record(self, v, path, active):
        self.count += 1
        if self.count > BUDGET:
            self.refuse(self.where, f"refers to more than {BUDGET} values (a whole model, a mesh ...; "
                                    f"the last one {path} = {_short(v)})")
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, np.bool_):
            return bool(v)
        if isinstance(v, (int, np.integer)):
            return int(v)
        if isinstance(v, (float, np.floating)):
            f = float(v)
            return f if np.isfinite(f) else repr(f)
        if isinstance(v, (complex, np.complexfloating)):
            return {"complex": [self.record(v.real, path, active), self.record(v.imag, path, active)]}
        if isinstance(v, (bytes, bytearray)):
            return {"bytes": _sha(bytes(v))}
        if id(v) in active:                              # a function calling itself, an object cycle
            return {"recursion": _name(v)}
        active = active + (id(v),)
        if isinstance(v, np.ndarray):
            return self.array(v, path, active)
        if isinstance(v, (list, tuple)):
            return [self.record(x, f"{path}[{i}]", active) for i, x in enumerate(v)]
        if isinstance(v, dict):
            return {str(k): self.record(x, f"{path}[{k!r}]", active) for k, x in v.items()}
        if isinstance(v, (set, frozenset)):
            items = [self.record(x, path, active) for x in v]
            return {"set": sorted(items, key=repr)}
        return self.callable_or_object(v, path, active)

    def array(self, v, path, active):
        if v.dtype.kind in "biuf":
            if v.size <= ARRAY_VALUES:
                return (v.astype(float) if v.dtype.kind == "f" else v).tolist()
            a = np.ascontiguousarray(v)
            return {"array": list(a.shape), "dtype": a.dtype.str, "sha256": _sha(a.tobytes())}
        if v.dtype.kind == "c":
            return {"complex": [self.array(v.real, path, active), self.array(v.imag, path, active)]}
        if v.dtype.kind == "U" or v.dtype.kind == "S":
            return v.tolist()
        if v.dtype.kind == "O":
            return [self.record(x, f"{path}[{i}]", active) for i, x in enumerate(v.ravel())] + [list(v.shape)]
        self.refuse(path, f"an array of type {v.dtype}")

    def callable_or_object(self, v, path, active):
        import functools
        import types
        if isinstance(v, types.ModuleType):
            return {"module": v.__name__}
        if isinstance(v, types.FunctionType):
            return self.function(v, path, active)
        if isinstance(v, types.MethodType):
            return {"method": self.record(v.__func__, path, active),
                    "self": self.record(v.__self__, f"{path} (object of {_name(v)})", active)}
        if isinstance(v, functools.partial):
            return {"partial": self.record(v.func, path, active), "args": self.record(v.args, path, active),
                    "keywords": self.record(v.keywords, path, active)}
        if isinstance(v, (type, np.ufunc, types.BuiltinFunctionType)):
            return {"named": _name(v)}                # classes, built-in functions, numpy ufuncs
        attrs = getattr(v, "__dict__", None)
        if not isinstance(attrs, dict):
            self.refuse(path, f"{_short(v)} has no recordable value")
        return {"instance": _name(type(v)),
                "attributes": {k: self.record(x, f"{path}.{k}", active) for k, x in sorted(attrs.items())}}

    def function(self, fn, path, active):
        import inspect
        import textwrap
        code = fn.__code__
        rec = {"function": _name(fn)}
        try:
            rec["source"] = textwrap.dedent(inspect.getsource(fn))
        except (OSError, TypeError):                  # defined in ``python -c``, exec ...: the compiled code
            rec["code"] = _code_text(code)
        where = f"{path} (function {fn.__qualname__})"
        cells = fn.__closure__ or ()
        closure = {}
        for name, cell in zip(code.co_freevars, cells):
            try:
                contents = cell.cell_contents
            except ValueError:                          # a cell not yet assigned
                closure[name] = {"unassigned": True}
                continue
            closure[name] = self.record(contents, f"{where} closure variable {name!r}", active)
        if closure:
            rec["closure"] = closure
        if fn.__defaults__:
            rec["defaults"] = self.record(list(fn.__defaults__), f"{where} defaults", active)
        if fn.__kwdefaults__:
            rec["kwdefaults"] = self.record(fn.__kwdefaults__, f"{where} defaults", active)
        names = sorted(n for n in _global_names(code) if n in fn.__globals__)
        if names:
            rec["globals"] = {n: self.record(fn.__globals__[n], f"{where} global {n!r}", active) for n in names}
        read = {}
        scope = dict(fn.__globals__)
        for name, cell in zip(code.co_freevars, cells):
            try:
                scope[name] = cell.cell_contents
            except ValueError:
                scope.pop(name, None)
        for chain in sorted(_module_reads(code)):
            value, dotted = scope.get(chain[0]), chain[0]
            for attr in chain[1:]:
                if not isinstance(value, types.ModuleType) or not hasattr(value, attr):
                    break
                value, dotted = getattr(value, attr), f"{dotted}.{attr}"
            if dotted != chain[0] and not callable(value) and not isinstance(value, types.ModuleType):
                read[dotted] = self.record(value, f"{where} module value {dotted}", active)
        if read:                  # ``cfg.k`` of a module ``cfg``: its value, not only the module's name
            rec["module values"] = read
        return rec


def differences(a, b, where=""):
    """Where two records of :func:`identify` (or dicts of them) differ.

    Returns
    -------
    list of str
        ``"where: A in the checkpoint, B in the model"`` for each differing
        leaf (``where``: the keys leading to it, e.g. ``"joint 'drive'
        omega"``; a function with another source as a whole).
    """
    if a == b:
        return []
    if isinstance(a, dict) and isinstance(b, dict) and not (_leaf(a) or _leaf(b)):
        if "function" in a and "function" in b and a.get("source") != b.get("source"):
            return [f"{where}: function {a['function']} in the checkpoint, another source in the model "
                    f"({_show(a)} / {_show(b)})"]
        out = []
        for k in sorted(set(a) | set(b)):
            sub = f"{where} {k}".strip()
            if k not in a or k not in b:
                out.append(f"{sub}: {'only in the model' if k not in a else 'only in the checkpoint'}")
            else:
                out += differences(a[k], b[k], sub)
        return out
    return [f"{where}: {_show(a)} in the checkpoint, {_show(b)} in the model"]


def _leaf(record):
    """Records compared as a whole: arrays given by hash, named objects."""
    return bool(set(record) & {"array", "named", "module", "recursion", "bytes"})


def _show(value, width=70):
    while isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, dict) and "function" in value:
        text = value.get("source", "").strip() or \
            f"function {value['function']} (compiled code {value.get('code', '')[:12]}...)"
    else:
        text = json.dumps(value) if not isinstance(value, str) else value
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 3] + "..."


def _module_reads(code):
    """The attribute chains ``name.a.b`` that ``code`` (and the code nested in it) reads from a
    global or closure variable ``name`` (as tuples of names)."""
    import dis
    chains, chain = set(), None
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF"):
            if chain and len(chain) > 1:
                chains.add(tuple(chain))
            chain = [ins.argval]
        elif chain is not None and ins.opname in ("LOAD_ATTR", "LOAD_METHOD"):
            chain.append(ins.argval)
        else:
            if chain and len(chain) > 1:
                chains.add(tuple(chain))
            chain = None
    if chain and len(chain) > 1:
        chains.add(tuple(chain))
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            chains |= _module_reads(c)
    return chains


def _global_names(code):
    """The names ``code`` (and the code nested in it) looks up as globals."""
    import dis
    names = {ins.argval for ins in dis.get_instructions(code) if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            names |= _global_names(c)
    return names


def _code_text(code):
    """A record of compiled code that does not depend on where it was compiled."""
    import hashlib
    h = hashlib.sha256(code.co_code)
    for c in code.co_consts:
        h.update((_code_text(c) if hasattr(c, "co_code") else repr(c)).encode())
    h.update(repr((code.co_names, code.co_varnames, code.co_freevars, code.co_argcount)).encode())
    return h.hexdigest()


def _sha(data):
    import hashlib
    return hashlib.sha256(data).hexdigest()


def _name(v):
    return f"{getattr(v, '__module__', None) or ''}.{getattr(v, '__qualname__', type(v).__qualname__)}".lstrip(".")


def _short(v):
    text = repr(v)
    return f"{type(v).__name__} object" if len(text) > 60 else f"{type(v).__name__} {text}"

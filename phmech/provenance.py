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
import os
import platform
import subprocess
import sys

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
    from . import __version__
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

"""The Firedrake stack: whether it is there, and the one message that says how to get it.

The flexible bodies of :mod:`phmech.fem` (beams, plates, :class:`~phmech.fem.FormBody`)
assemble their matrices with Firedrake, which needs a PETSc build that pip does not
make on its own; everything else of phmech (rigid bodies, point masses, joints,
force elements, contact, mass-spring networks, the integrators and the outputs)
runs without it.  Without Firedrake:

* :func:`signpost` (called when :mod:`phmech.fem` is imported) makes every later
  ``import firedrake`` raise :class:`FiredrakeMissingError` with :data:`MESSAGE`,
  so the first finite-element body that needs Firedrake stops with that message
  (importing :mod:`phmech.fem` itself still works: the rigid outputs use its
  Firedrake-free helpers, and a body whose matrices are in the cache is built
  without Firedrake);
* the command lines of the validation cases print the message alone, without a
  traceback, and exit with status 1 (:func:`missing_stack` recognises the error,
  :func:`phmech.validation._common.run_main` prints it).
"""
import importlib.abc
import importlib.util
import sys
import warnings

#: the top-level modules of the stack whose absence the message explains
STACK_MODULES = ("firedrake", "petsc4py", "slepc4py", "pyop2", "ufl", "finat", "tsfc")


def message(missing="firedrake"):
    """What a user without the stack reads: what is missing and the two ways to get it."""
    return (
        f"phmech: this model needs Firedrake, which is not installed here (no module named {missing!r}).\n"
        "The flexible bodies of phmech.fem (beams, plates, FormBody), the MPI plates and the SLEPc eigen\n"
        "path need the Firedrake stack (Firedrake, PETSc/petsc4py, SLEPc/slepc4py), which pip cannot\n"
        "install on its own.  Two ways to get it:\n"
        "  bash scripts/install.sh     # as root on Debian 12, in a source checkout: builds the stack and\n"
        "                              # phmech into /opt/phmech/venv; then: source /opt/phmech/env.sh\n"
        "  docker build -t phmech . && docker run --rm -it phmech bash\n"
        "                              # the official Firedrake image with phmech and its compiled kernels\n"
        "The rigid, contact and mass-spring models run without it; `phmech list` shows which validation\n"
        "cases need Firedrake.")


#: the message of a missing Firedrake (:func:`message`)
MESSAGE = message()


class FiredrakeMissingError(ModuleNotFoundError):
    """Firedrake is not installed; the message (:data:`MESSAGE`) names the two ways to get it.

    A :class:`ModuleNotFoundError` (so an ``ImportError``) with ``name = "firedrake"``.
    """

    def __init__(self, name="firedrake"):
        super().__init__(message(name), name=name)


def available(name="firedrake"):
    """True when the module ``name`` of the stack can be imported (found; it is not imported).

    A module blocked by ``sys.modules[name] = None`` or by an import hook that
    refuses it counts as missing.
    """
    if name in sys.modules:
        return sys.modules[name] is not None
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


class _Signpost(importlib.abc.MetaPathFinder):
    """An import hook that answers ``import firedrake`` (and the import of every other module of
    ``blocked``, the stack's modules that are missing) with :class:`FiredrakeMissingError`: the
    one message, which names Firedrake (the hook is only in place when Firedrake is missing).

    A probe, ``importlib.util.find_spec("firedrake")``, still gets None (not found).
    """

    def __init__(self, blocked=("firedrake",)):
        self.blocked = frozenset(blocked)

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top not in self.blocked or _probing():
            return None
        raise FiredrakeMissingError("firedrake")


def _probing(depth=8):
    """True when the finder is asked by ``importlib.util.find_spec`` rather than by an import."""
    frame = sys._getframe(2)
    for _ in range(depth):
        if frame is None:
            return False
        if frame.f_code.co_name == "find_spec" and frame.f_globals.get("__name__") == "importlib.util":
            return True
        frame = frame.f_back
    return False


def signpost():
    """Without Firedrake, make ``import firedrake`` raise :class:`FiredrakeMissingError` (once),
    and so the import of every other module of :data:`STACK_MODULES` that is missing too (the
    geometrically exact beams and the Mindlin plate import ``finat`` before ``firedrake``; the
    SLEPc path imports ``petsc4py``).  A module of the stack that is installed still imports.

    With Firedrake installed nothing changes.  Returns True when the hook is in place.
    """
    if any(isinstance(f, _Signpost) for f in sys.meta_path):
        return True
    if available("firedrake"):
        return False
    missing = [name for name in STACK_MODULES if name == "firedrake" or not available(name)]
    sys.meta_path.insert(0, _Signpost(missing))
    return True


def petsc_arguments(argv):
    """The part of a command line that is PETSc's: the program name, and each option of a single
    dash and a name of two characters or more (``-log_view``, ``-ksp_type gmres``,
    ``-info``) with the value after it (a word not starting with a dash).

    A script's own arguments (``--n-elem 4``, ``-o out``, positional ones) are left to the
    script: PETSc, which Firedrake initializes with the whole command line, would otherwise
    report them at exit as options it did not use ("WARNING! There are options you set that
    were not used!").  ``PETSC_OPTIONS`` in the environment still reaches PETSc as it is.  A
    program name that looks like an option (``python -c``: ``sys.argv[0]`` is ``"-c"``) is
    given as ``python``."""
    argv = list(argv)
    out, k = ["python" if argv[:1] == ["-c"] else a for a in argv[:1]], 1
    while k < len(argv):
        a = argv[k]
        if len(a) > 2 and a[0] == "-" and a[1] != "-" and a[1].isalpha():
            out.append(a)
            if k + 1 < len(argv) and not argv[k + 1].startswith("-"):
                out.append(argv[k + 1])
                k += 1
        k += 1
    return out


def init_petsc(argv=None):
    """Initialize PETSc (petsc4py) with :func:`petsc_arguments` of the command line, before
    Firedrake initializes it with the whole command line; nothing when PETSc is already
    initialized or petsc4py is missing.  Returns True when it initialized PETSc."""
    if "petsc4py.PETSc" in sys.modules or not available("petsc4py"):
        return False
    import petsc4py
    petsc4py.init(petsc_arguments(sys.argv if argv is None else argv))
    # Firedrake's own initialization then finds PETSc running and says that it ignores the
    # command line (PETSc has the part that is PETSc's): that notice is this function's doing
    warnings.filterwarnings("ignore", message="Calling petsctools.init but PETSc has already been initialised")
    return True


class _PetscFirst(importlib.abc.MetaPathFinder):
    """An import hook that runs :func:`init_petsc` at the first ``import firedrake`` (and then
    leaves the import to the other finders), so that PETSc starts with its own options and a
    process that never imports Firedrake never starts PETSc."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "firedrake" and not _probing():
            sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
            init_petsc()
        return None


def petsc_first():
    """Install :class:`_PetscFirst` (once) where Firedrake is installed and not yet imported."""
    if "firedrake" in sys.modules or any(isinstance(f, _PetscFirst) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _PetscFirst())


def missing_stack(err):
    """The :class:`FiredrakeMissingError` that ``err`` stands for, or None.

    ``err`` (or an exception it was raised from) is a :class:`FiredrakeMissingError`,
    or a ``ModuleNotFoundError`` of a module of :data:`STACK_MODULES`.
    """
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if isinstance(err, FiredrakeMissingError):
            return err
        if isinstance(err, ModuleNotFoundError) and (err.name or "").partition(".")[0] in STACK_MODULES:
            return FiredrakeMissingError(err.name.partition(".")[0])
        err = err.__cause__ or err.__context__
    return None

"""Families of contributions with kernels of their own, and the compiled residual's calls to them.

A *family* is a kind of contribution whose terms are evaluated by kernels
written beside its declaration: the spatial joints, the frame-rate joints, the
bodies with inertial velocities, the network bodies, the force elements, the
consistent planar and spatial beams.  Its module declares it once with
:func:`register_family`:

``name``
    the slot its contributions name (their ``kernel_slot``);
``data``
    the :func:`~collections.namedtuple` class of its packed data (the compiled
    code tells the families apart by it);
``pack(members, dae)``
    the data of a model's members: the contributions that name the slot, as the
    :class:`~phmech.assembly.dae.DescriptorDAE` holds them (groups, or
    ``(contribution, q slice, e slice)``); no member gives the empty data;
``has(data)``
    whether the data holds a member (compiled);
``residual_add(t, q, e, lam, data, out, fe, fl)``
    at the time ``t``, the family's rows of ``q'`` written into ``out`` and its terms added to the
    efforts ``fe`` and the constraint rows ``fl`` (compiled);
``jacobian_add(t, q, e, lam, data, act, J, nq)``
    their exact derivatives added to the Jacobian target ``J`` of the residual (columns of
    ``q`` from 0, of ``e`` from ``nq``, then of ``lam``; ``act`` marks the active
    constraint rows; compiled);
``port_forces_add(t, q, e, data, fe)``, optional
    the family's forces that supply power through ports (the power balance
    counts them; compiled).

The kernels are compiled functions of their own (``@_jit``, ``numba.njit``), not
helpers that numba writes into their callers (``inline="always"``), which it
cannot call through the dispatch below.

The compiled residual (:mod:`phmech.assembly.compiled`) takes the data of every
registered family, in the order of their names, as one tuple and loops over it
with :func:`numba.literal_unroll`; :func:`family_residual_add` and the other
calls below resolve, when numba compiles the loop, to the kernels registered for
the data's class.  A family absent from a model passes its empty data, so one
compiled version of the residual serves every model.  Without compilation
(numba missing, or ``NUMBA_DISABLE_JIT=1`` for debugging) the same calls look
the family up by the data's class and run the same kernels as Python.

:func:`families` first imports every module of the package that declares a
family (a line starting with ``register_family(``), so that the set, and the
compiled version, is the same in every process whatever was imported before.
A new family touches its own module (and its test) only.  Outside the package
it is declared in an importable module: the kernel cache records the compiled
versions by the types of their arguments, the data classes among them, and
every process that reads the cache imports their modules.
"""
import re
from collections import namedtuple
from importlib import import_module

from .jit import marked_modules, numba

#: numba's loop over a tuple of different types, unrolled when compiled (the tuple itself in Python)
literal_unroll = numba.literal_unroll if numba is not None else (lambda families: families)

#: a registered family (see the module docstring)
Family = namedtuple("Family", "name data pack has residual_add jacobian_add port_forces_add")

_BY_NAME = {}
_BY_DATA = {}

_MARK = re.compile(rb"^register_family\(", re.M)
_DECLARED = []


def register_family(name, data, pack, has, residual_add, jacobian_add, port_forces_add=None):
    """Declare the family ``name`` with its data class and kernels (module docstring); returns
    its :data:`Family`."""
    if not (isinstance(data, type) and issubclass(data, tuple) and hasattr(data, "_fields")):
        raise TypeError(f"family '{name}': its data class must be a namedtuple class, not {data!r}")
    if data.__module__ == "__main__":
        raise ValueError(f"family '{name}': declare it in an importable module, not in a script (the kernel "
                         f"cache records the data class {data.__qualname__} by its module, which other processes "
                         "import to read the cache)")
    kernels = {"pack": pack, "has": has, "residual_add": residual_add, "jacobian_add": jacobian_add}
    missing = [k for k, f in kernels.items() if f is None]
    if missing:
        raise TypeError(f"family '{name}' (declared in {data.__module__}): no {', no '.join(missing)} "
                        "(every family gives pack, has, residual_add and jacobian_add; only port_forces_add "
                        "may be None)")
    for k, f in dict(kernels, port_forces_add=port_forces_add).items():
        if f is not None and not callable(f):
            raise TypeError(f"family '{name}' (declared in {data.__module__}): {k} must be callable, not {f!r}")
    if not data.__module__.startswith("phmech."):
        families()                          # phmech's own first: a name taken by them is refused here
    where = f"{data.__module__}.{data.__qualname__}"
    for old in _BY_NAME.values():
        same = (old.data.__module__, old.data.__qualname__) == (data.__module__, data.__qualname__)
        if old.name == name and not same:
            raise ValueError(f"family '{name}' is declared twice: by {old.data.__module__} (data class "
                             f"{old.data.__module__}.{old.data.__qualname__}) and by {data.__module__} (data "
                             f"class {where}); give the second one a name of its own")
        if old.name != name and old.data.__qualname__ == data.__qualname__:
            raise ValueError(f"family '{name}' (declared in {data.__module__}): its data class name "
                             f"{data.__qualname__} is already the data class of family '{old.name}' (declared in "
                             f"{old.data.__module__}); give the data class a name of its own")
    old = _BY_NAME.get(name)
    if old is not None:                     # the same module imported again (a reload): its new classes
        _BY_DATA.pop(old.data, None)
    family = Family(name, data, pack, has, residual_add, jacobian_add, port_forces_add)
    _BY_NAME[name] = family
    _BY_DATA[data] = family
    return family


def declaring_modules():
    """The modules of the package that declare a family, sorted (found by their source)."""
    if not _DECLARED:
        _DECLARED.extend("phmech." + rel[:-3].replace("/", ".") for rel in marked_modules(_MARK)
                         if rel != "kernels/families.py")
    return tuple(_DECLARED)


def families():
    """Every registered family in the order of their names (the declaring modules imported)."""
    for module in declaring_modules():
        import_module(module)
    return tuple(_BY_NAME[name] for name in sorted(_BY_NAME))


def family(name):
    """The family registered as ``name``."""
    families()
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no kernel family '{name}'; registered: {', '.join(sorted(_BY_NAME))}") from None


def pack_all(members, dae):
    """The data of every family (:func:`families` order) for ``members``: family name -> the
    model's contributions naming it (absent names: no member)."""
    return tuple(fam.pack(members.get(fam.name, []), dae) for fam in families())


# -- calls from compiled code: resolved by the data's class ------------------------------------
def by_data_class(where, resolve):
    """A call that runs the kernel ``resolve(cls)`` of the class ``cls`` of its argument number
    ``where`` (a namedtuple of packed data), in Python and in compiled code alike.

    Decorates a stub whose name and docstring the call keeps.  numba resolves the kernel when
    it compiles the caller (the kernel's code is linked into it, as any compiled callee's);
    ``resolve`` returning None makes the call do nothing."""
    def decorate(stub):
        def call(*args):
            kernel = resolve(type(args[where]))
            return None if kernel is None else kernel(*args)
        call.__name__, call.__qualname__, call.__doc__ = stub.__name__, stub.__qualname__, stub.__doc__
        call.__module__ = stub.__module__
        if numba is not None:
            from numba.extending import overload

            @overload(call)
            def typer(*args):
                cls = getattr(args[where], "instance_class", None)
                if cls is None:
                    return None
                kernel = resolve(cls)
                if kernel is None:
                    def impl(*args):
                        pass
                else:
                    def impl(*args):
                        return kernel(*args)
                return impl
        return call
    return decorate


def _hook(name):
    """The family's kernel ``name`` for its data class."""
    def resolve(cls):
        family = _BY_DATA.get(cls)
        if family is None:
            raise KeyError(f"no kernel family is registered for the data class {cls.__module__}.{cls.__qualname__}")
        return getattr(family, name)
    return resolve


@by_data_class(0, _hook("has"))
def family_has(data):
    """Whether ``data`` holds a member of its family."""


@by_data_class(4, _hook("residual_add"))
def family_residual_add(t, q, e, lam, data, out, fe, fl):
    """The family's ``residual_add`` on ``data``."""


@by_data_class(4, _hook("jacobian_add"))
def family_jacobian_add(t, q, e, lam, data, act, J, nq):
    """The family's ``jacobian_add`` on ``data``."""


@by_data_class(3, _hook("port_forces_add"))
def family_port_forces_add(t, q, e, data, fe):
    """The family's ``port_forces_add`` on ``data`` (nothing for a family without port forces)."""

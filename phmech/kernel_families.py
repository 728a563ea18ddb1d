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
``residual_add(q, e, lam, data, out, fe, fl)``
    the family's rows of ``q'`` written into ``out`` and its terms added to the
    efforts ``fe`` and the constraint rows ``fl`` (compiled);
``jacobian_add(q, e, lam, data, act, J, nq)``
    their exact derivatives added to the dense ``J`` of the residual (columns of
    ``q`` from 0, of ``e`` from ``nq``, then of ``lam``; ``act`` marks the active
    constraint rows; compiled);
``port_forces_add(q, e, data, fe)``, optional
    the family's forces that supply power through ports (the power balance
    counts them; compiled).

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
A new family touches its own module (and its test) only.
"""
import os
import re
from collections import namedtuple
from importlib import import_module

from ._jit import numba

#: numba's loop over a tuple of different types, unrolled when compiled (the tuple itself in Python)
literal_unroll = numba.literal_unroll if numba is not None else (lambda families: families)

#: a registered family (see the module docstring)
Family = namedtuple("Family", "name data pack has residual_add jacobian_add port_forces_add")

_BY_NAME = {}
_BY_DATA = {}

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_MARK = re.compile(rb"^register_family\(", re.M)
_DECLARED = []


def register_family(name, data, pack, has, residual_add, jacobian_add, port_forces_add=None):
    """Declare the family ``name`` with its data class and kernels (module docstring); returns
    its :data:`Family`."""
    if not (isinstance(data, type) and issubclass(data, tuple) and hasattr(data, "_fields")):
        raise TypeError(f"family '{name}': its data class must be a namedtuple class, not {data!r}")
    old = _BY_NAME.get(name)
    if old is not None and old.data.__qualname__ != data.__qualname__:
        raise ValueError(f"family '{name}' is declared twice ({old.data.__module__}.{old.data.__qualname__} "
                         f"and {data.__module__}.{data.__qualname__})")
    family = Family(name, data, pack, has, residual_add, jacobian_add, port_forces_add)
    _BY_NAME[name] = family
    _BY_DATA[data] = family
    return family


def declaring_modules():
    """The modules of the package that declare a family, sorted (found by their source)."""
    if not _DECLARED:
        found = []
        for folder, dirs, files in os.walk(_PACKAGE):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
            for f in sorted(files):
                path = os.path.join(folder, f)
                if f.endswith(".py") and path != os.path.abspath(__file__):
                    with open(path, "rb") as fh:
                        if _MARK.search(fh.read()):
                            rel = os.path.relpath(path, _PACKAGE)[:-3].replace(os.sep, ".")
                            found.append(__package__ + "." + rel)
        _DECLARED.extend(sorted(found))
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
def family_has(data):
    """Whether ``data`` holds a member of its family."""
    return _BY_DATA[type(data)].has(data)


def family_residual_add(q, e, lam, data, out, fe, fl):
    """The family's ``residual_add`` on ``data``."""
    _BY_DATA[type(data)].residual_add(q, e, lam, data, out, fe, fl)


def family_jacobian_add(q, e, lam, data, act, J, nq):
    """The family's ``jacobian_add`` on ``data``."""
    _BY_DATA[type(data)].jacobian_add(q, e, lam, data, act, J, nq)


def family_port_forces_add(q, e, data, fe):
    """The family's ``port_forces_add`` on ``data`` (nothing for a family without port forces)."""
    kernel = _BY_DATA[type(data)].port_forces_add
    if kernel is not None:
        kernel(q, e, data, fe)


def _registered(data):
    """The family of the numba type ``data`` (a named tuple of a registered class), or None."""
    return _BY_DATA.get(getattr(data, "instance_class", None))


if numba is not None:
    from numba.extending import overload

    @overload(family_has)
    def _has(data):
        fam = _registered(data)
        if fam is None:
            return None
        kernel = fam.has

        def impl(data):
            return kernel(data)
        return impl

    @overload(family_residual_add)
    def _residual_add(q, e, lam, data, out, fe, fl):
        fam = _registered(data)
        if fam is None:
            return None
        kernel = fam.residual_add

        def impl(q, e, lam, data, out, fe, fl):
            kernel(q, e, lam, data, out, fe, fl)
        return impl

    @overload(family_jacobian_add)
    def _jacobian_add(q, e, lam, data, act, J, nq):
        fam = _registered(data)
        if fam is None:
            return None
        kernel = fam.jacobian_add

        def impl(q, e, lam, data, act, J, nq):
            kernel(q, e, lam, data, act, J, nq)
        return impl

    @overload(family_port_forces_add)
    def _port_forces_add(q, e, data, fe):
        fam = _registered(data)
        if fam is None:
            return None
        kernel = fam.port_forces_add
        if kernel is None:
            def impl(q, e, data, fe):
                pass
        else:
            def impl(q, e, data, fe):
                kernel(q, e, data, fe)
        return impl

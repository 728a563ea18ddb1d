"""Meshes described by how they are built, for FE objects kept in the FE cache.

A plate's matrices depend on its mesh.  To read them from the FE cache
(:mod:`phmech.fem.cache`) without importing Firedrake, the cache key must
identify the mesh before the mesh exists: a :class:`MeshRecipe` names the
function that builds it and the arguments, and builds it (once) on first
use.  Its key holds the builder's name, the arguments, the content digest of
the mesh files it reads and of the builder's phmech source.  An already
built Firedrake mesh is identified by its content instead
(:func:`mesh_content_key`: coordinates, cell-node map, cell closure,
facets and their markers).

Derived quantities whose forms take a callable of the spatial coordinate
(a pressure, an edge shape) are keyed by the expression the callable
builds: :func:`expression_key` applies it to a recording stand-in of the
coordinate; a callable that does anything the recorder cannot follow gives
``None`` (not cached, assembled with Firedrake).
"""
import hashlib
import importlib
import importlib.util
import os

import numpy as np

_DIGESTS = {}


def file_digest(path):
    """SHA-256 of a file's content (``"absent"`` for a missing file), memoized by path and mtime."""
    try:
        st = os.stat(path)
    except OSError:
        return "absent"
    stamp = (path, st.st_mtime_ns, st.st_size)
    if stamp not in _DIGESTS:
        with open(path, "rb") as fh:
            _DIGESTS[stamp] = hashlib.sha256(fh.read()).hexdigest()
    return _DIGESTS[stamp]


def _module_digest(module):
    """Digest of a phmech module's source (found without importing it); ``""`` for other packages."""
    if not module.startswith("phmech"):
        return ""
    spec = importlib.util.find_spec(module)
    return file_digest(spec.origin) if spec is not None and spec.origin else ""


def _jsonable(value):
    if isinstance(value, (bool, str)) or value is None:
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value).hex()
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return [[str(k), _jsonable(v)] for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))]
    if isinstance(value, MeshRecipe):
        return value.key_params()
    raise TypeError(f"MeshRecipe: argument {value!r} of type {type(value).__name__} cannot be part of a "
                    "cache key (use numbers, strings, tuples, dicts or MeshRecipes)")


class MeshRecipe:
    """A Firedrake mesh given by ``builder(*args, **kwargs)``, built on first use (:meth:`build`).

    Parameters
    ----------
    builder : str
        ``"module:function"``, e.g. ``"firedrake:RectangleMesh"`` or
        ``"phmech.fem.plate:load_mesh"``; imported only when the mesh is built.
    *args, **kwargs
        Numbers, strings, tuples, dicts or other recipes (passed built).
    files : sequence of str
        Files the builder reads: their content enters the key (paths do not).
    """

    def __init__(self, builder, *args, files=(), **kwargs):
        if not isinstance(builder, str) or builder.count(":") != 1:
            raise ValueError(f"MeshRecipe: builder must be 'module:function', got {builder!r}")
        self.builder, self.args, self.kwargs = builder, args, kwargs
        self.files = tuple(str(f) for f in files)
        self._key = _jsonable([args, kwargs])      # fails early on arguments a key cannot hold
        self._mesh = None

    @classmethod
    def from_file(cls, path, coordinate_degree=1, circle=None, marker="on_boundary"):
        """The mesh of :func:`phmech.fem.plate.load_mesh` (gmsh file), keyed by the file's content."""
        return cls("phmech.fem.plate:load_mesh", str(path), coordinate_degree=coordinate_degree,
                   circle=circle, marker=marker, files=(str(path),))

    def key_params(self):
        """JSON-able description: builder, its source digest, arguments, content of the files read."""
        module = self.builder.split(":")[0]
        args = [("file:" + file_digest(a)) if isinstance(a, str) and a in self.files else a
                for a in _jsonable(list(self.args))]
        kwargs = _jsonable(self.kwargs)
        return {"builder": self.builder, "source": _module_digest(module),
                "recipe": file_digest(__file__), "args": args, "kwargs": kwargs,
                "files": [file_digest(f) for f in self.files]}

    def build(self):
        """The Firedrake mesh (built once per recipe object)."""
        if self._mesh is None:
            module, name = self.builder.split(":")
            fun = getattr(importlib.import_module(module), name)
            args = [a.build() if isinstance(a, MeshRecipe) else a for a in self.args]
            kwargs = {k: (v.build() if isinstance(v, MeshRecipe) else v) for k, v in self.kwargs.items()}
            self._mesh = fun(*args, **kwargs)
        return self._mesh

    @property
    def built(self):
        return self._mesh is not None

    def __repr__(self):
        inner = ", ".join([repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()])
        return f"MeshRecipe({self.builder}({inner}))"


def mesh_content_key(mesh):
    """Digest of a built Firedrake mesh: what fixes its degrees of freedom and boundary markers."""
    h = hashlib.sha256()
    X = mesh.coordinates
    h.update(str(X.ufl_element()).encode())
    parts = [np.asarray(X.dat.data_ro), X.function_space().cell_node_list, mesh.cell_closure,
             mesh.exterior_facets.facet_cell, mesh.exterior_facets.local_facet_dat.data_ro,
             mesh.interior_facets.facet_cell]
    for m in mesh.exterior_facets.unique_markers:
        parts += [np.array([int(m)]), mesh.exterior_facets.subset(int(m)).indices]
    for a in parts:
        a = np.ascontiguousarray(a)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(a.tobytes())
    return {"content": h.hexdigest()}


def mesh_key(mesh):
    """Key parameters of a :class:`MeshRecipe` or of a built Firedrake mesh."""
    return mesh.key_params() if isinstance(mesh, MeshRecipe) else mesh_content_key(mesh)


class _Expr:
    """Recording stand-in of the spatial coordinate: arithmetic builds a canonical string."""

    __array_ufunc__ = None          # numpy scalars defer to the reflected operators below

    def __init__(self, text):
        self.text = text

    def __getitem__(self, i):
        if self.text != "x" or not isinstance(i, (int, np.integer)) or not 0 <= int(i) < 2:
            raise _NotRecordable()
        return _Expr(f"x{int(i)}")

    @staticmethod
    def _term(v):
        if isinstance(v, _Expr):
            return v.text
        if isinstance(v, (bool, np.bool_)):
            raise _NotRecordable()
        if isinstance(v, (int, np.integer)):
            return f"i{int(v)}"
        if isinstance(v, (float, np.floating)):
            return float(v).hex()
        raise _NotRecordable()

    def _op(self, op, other, reflected=False):
        a, b = (self._term(other), self.text) if reflected else (self.text, self._term(other))
        return _Expr(f"({a}{op}{b})")

    def __add__(self, o): return self._op("+", o)
    def __radd__(self, o): return self._op("+", o, True)
    def __sub__(self, o): return self._op("-", o)
    def __rsub__(self, o): return self._op("-", o, True)
    def __mul__(self, o): return self._op("*", o)
    def __rmul__(self, o): return self._op("*", o, True)
    def __truediv__(self, o): return self._op("/", o)
    def __rtruediv__(self, o): return self._op("/", o, True)
    def __pow__(self, o): return self._op("**", o)
    def __rpow__(self, o): return self._op("**", o, True)
    def __neg__(self): return _Expr(f"(-{self.text})")
    def __pos__(self): return self

    def __bool__(self):
        raise _NotRecordable()


class _NotRecordable(Exception):
    pass


def expression_key(fun):
    """Canonical text of the UFL expression ``fun(x)`` builds from the coordinate ``x``, or None.

    Only ``x[0]``, ``x[1]``, numbers and ``+ - * / **`` are followed; anything
    else (a UFL function, a comparison, a conversion to float) gives None.
    A constant result (``lambda x: 1.0``) is keyed by its value.
    """
    try:
        out = fun(_Expr("x"))
        return "expr:" + _Expr._term(out)
    except Exception:
        return None

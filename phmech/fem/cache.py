"""Disk cache of assembled finite-element matrices, keyed by the parameters that define them.

Firedrake already caches its compiled kernels on disk, but a new process
still imports Firedrake (seconds), builds meshes and function spaces and
assembles every form.  The matrices of a beam depend only on a few numbers
(length, elements, section data), so they are stored here once, as plain
arrays in one ``.npz`` file per parameter set, and a later process with the
same parameters builds the body from the file without importing
Firedrake at all.

The key is the SHA-256 of the parameters, of the FE class' name, of
the source files that assemble the matrices and of the versions of
Firedrake and petsc4py (a change of the code or an upgrade makes a new
key, so an outdated entry is never used).  The file is named by the
digest and carries the full key (the text the digest is taken of),
which is compared on every read: an entry that cannot be read, or that
holds another object's key (a file copied or renamed under another
name), is rebuilt and a warning names the file.  Location:
``$PHMECH_CACHE_DIR`` or ``~/.cache/phmech/fe``; ``PHMECH_CACHE=0``
switches the cache off.
"""
import hashlib
import json
import logging
import os
import tempfile

import numpy as np
import scipy.sparse as sp

log = logging.getLogger("phmech")


def enabled():
    return os.environ.get("PHMECH_CACHE", "1") not in ("0", "false", "no", "off")


def directory():
    return os.environ.get("PHMECH_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "phmech", "fe")


def _source_digest(files):
    h = hashlib.sha256()
    for f in files:
        with open(f, "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()


_STACK = []


def stack_versions():
    """Versions of the FE stack (an upgrade may renumber meshes and dofs: a new key), read from
    the installed distributions without importing them."""
    if not _STACK:
        from importlib import metadata
        found = {}
        for dist in ("firedrake", "petsc4py"):
            try:
                found[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:
                found[dist] = None
        _STACK.append(found)
    return _STACK[0]


#: the entry of an npz file that holds the full key
KEY_ENTRY = "__key__"


def full_key(kind, params, sources):
    """The full key (JSON text) of an FE object of ``kind`` with ``params`` (JSON-able), assembled
    by ``sources`` (this module included) with the FE stack of :func:`stack_versions`."""
    return json.dumps({"kind": kind, "params": params, "code": _source_digest([__file__, *sources]),
                       "stack": stack_versions()}, sort_keys=True)


def key(kind, params, sources):
    """The cache key (file name) of an FE object: the digest of :func:`full_key`."""
    return digest(full_key(kind, params, sources))


def digest(text):
    """The file name of the full key ``text``."""
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _key_difference(stored, expected):
    """What differs between two full keys (for the log): the differing top-level fields, or
    the parameters that differ."""
    try:
        a, b = json.loads(stored), json.loads(expected)
    except ValueError:
        return "its key is not readable"
    if not isinstance(a, dict):
        return "its key is not readable"
    fields = sorted(f for f in set(a) | set(b) if a.get(f) != b.get(f))
    pa, pb = a.get("params"), b.get("params")
    if fields == ["params"] and isinstance(pa, list) and isinstance(pb, list) and len(pa) == len(pb):
        pa, pb = dict(enumerate(pa)), dict(enumerate(pb))
    if fields == ["params"] and isinstance(pa, dict) and isinstance(pb, dict):
        names = sorted((n for n in set(pa) | set(pb) if pa.get(n) != pb.get(n)), key=str)
        return "it holds other parameters (" + ", ".join(
            f"{n}: {pa.get(n)!r} instead of {pb.get(n)!r}" for n in names[:4]) + ")"
    if "kind" in fields:
        return f"it holds a {a.get('kind')!r} instead of a {b.get('kind')!r}"
    return "its key differs in " + ", ".join(fields)


def _flatten(prefix, value, out):
    if sp.issparse(value):
        A = sp.csr_matrix(value)
        out[prefix + "#csr_data"] = A.data
        out[prefix + "#csr_indices"] = A.indices
        out[prefix + "#csr_indptr"] = A.indptr
        out[prefix + "#csr_shape"] = np.array(A.shape)
    elif isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}/{k}", v, out)
    elif isinstance(value, slice):
        out[prefix + "#slice"] = np.array([value.start, value.stop])
    elif isinstance(value, (tuple, list)):
        out[prefix + "#len"] = np.array(len(value))
        for i, v in enumerate(value):
            _flatten(f"{prefix}/{i}", v, out)
    else:
        out[prefix] = np.asarray(value)


def _unflatten(arrays):
    tree = {}

    def put(path, value):
        parts = path.split("/")
        node = tree
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = value

    csr = {}
    for name in arrays.files:
        if name == KEY_ENTRY:
            continue
        base, _, tag = name.partition("#")
        a = arrays[name]
        if tag.startswith("csr_"):
            csr.setdefault(base, {})[tag] = a
        elif tag == "slice":
            put(base, slice(int(a[0]), int(a[1])))
        elif tag == "len":
            put(base + "/#len", int(a))
        else:
            put(base, a if a.ndim else a[()])
    for base, parts in csr.items():
        put(base, sp.csr_matrix((parts["csr_data"], parts["csr_indices"], parts["csr_indptr"]),
                                shape=tuple(parts["csr_shape"])))

    def fix(node):
        if isinstance(node, dict):
            if "#len" in node:
                return tuple(fix(node[str(i)]) for i in range(node["#len"]))
            return {k: fix(v) for k, v in node.items()}
        return node
    return fix(tree)


#: entries read in this process, by path: ``(mtime_ns, size), full key, data`` (read once,
#: shared; the FE objects treat their matrices as constants)
_READ = {}


def load(text):
    """The stored dictionary of the full key ``text`` (:func:`full_key`), or None.

    An entry whose stored key is not ``text`` (another object's entry
    under this name) or that cannot be read is not used: a warning names
    the file, and the caller rebuilds and overwrites it."""
    if not enabled():
        return None
    path = os.path.join(directory(), digest(text) + ".npz")
    try:
        st = os.stat(path)
    except OSError:
        return None
    stamp = (st.st_mtime_ns, st.st_size)
    hit = _READ.get(path)
    if hit is not None and hit[0] == stamp and hit[1] == text:
        return hit[2]
    try:
        with np.load(path, allow_pickle=False) as arrays:
            stored = str(arrays[KEY_ENTRY][()]) if KEY_ENTRY in arrays.files else None
            if stored == text:
                data = _unflatten(arrays)
    except Exception as err:  # a damaged entry is rebuilt, never used
        log.warning("FE cache: ignoring unreadable entry %s (%s); rebuilding it", path, err)
        return None
    if stored != text:
        why = "it carries no key" if stored is None else _key_difference(stored, text)
        log.warning("FE cache: entry %s does not belong to its name (%s); ignoring it and rebuilding it",
                    path, why)
        return None
    _READ[path] = (stamp, text, data)
    return data


def store(text, data):
    """Write ``data`` (dict of arrays, sparse matrices, slices, nested dicts) atomically under the
    full key ``text``, which the entry carries."""
    if not enabled():
        return
    d = directory()
    flat = {KEY_ENTRY: np.array(text)}
    for name, v in data.items():
        _flatten(name, v, flat)
    tmp = None
    try:
        os.makedirs(d, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, suffix=".npz.tmp")
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **flat)
        os.replace(tmp, os.path.join(d, digest(text) + ".npz"))
        tmp = None
    except OSError as err:          # a read-only home or a full disk: run without the cache
        log.info("FE cache: not written (%s)", err)
    finally:
        if tmp is not None:
            try:
                os.remove(tmp)
            except OSError:
                pass


class CachedFE:
    """Base of FE objects kept in the cache.

    A subclass names its entries (``KIND``, ``CACHED``: the attributes
    stored), the Firedrake objects built on first use
    (``FIREDRAKE_ATTRIBUTES``, made by ``_setup_firedrake``) and
    ``_assemble()``, which returns the ``CACHED`` attributes as a dict.
    Derived results (point rows, couplings) are added with :meth:`_remember`.
    """

    KIND = None
    CACHED = ()
    FIREDRAKE_ATTRIBUTES = ()
    #: further modules (names) whose source enters the key, e.g. a base class that assembles ports
    EXTRA_SOURCES = ()

    def _load_or_assemble(self, params):
        """Read the entry of ``params`` or assemble it; the key also covers the source files
        that assemble it (the subclass' module and the matrix conversion)."""
        import sys
        here = os.path.dirname(os.path.abspath(__file__))
        sources = [sys.modules[type(self).__module__].__file__, os.path.join(here, "_petsc.py")]
        sources += [sys.modules[m].__file__ for m in self.EXTRA_SOURCES]
        self._fd = None
        self._points = None
        self._key = full_key(self.KIND, params, sources)
        data = load(self._key)
        self.from_cache = data is not None
        if data is None:
            data = self._assemble()
            data["memo"] = {}
            store(self._key, data)
        for name in self.CACHED:
            setattr(self, name, data[name])
        self._memo = dict(data.get("memo", {}))

    def __getattr__(self, name):
        if name in type(self).FIREDRAKE_ATTRIBUTES and self.__dict__.get("_fd") is None:
            self._setup_firedrake()
            return getattr(self, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _remember(self, tag, value):
        """Keep a derived result in memory and in the cache entry."""
        self._memo[tag] = value
        store(self._key, {**{name: getattr(self, name) for name in self.CACHED}, "memo": self._memo})
        return value

    @staticmethod
    def points_tag(points):
        """The memo tag of a set of evaluation points."""
        return "points_" + hashlib.sha256(np.ascontiguousarray(points, float).tobytes()).hexdigest()[:16]

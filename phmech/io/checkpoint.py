"""Checkpoints of a run in HDF5: the trajectory, the solver state and the model's identity.

A checkpoint holds everything needed to continue a run so that the
continued trajectory equals the uninterrupted one (bit for bit for the
fixed-step midpoint rule): the output rows ``(t, y, work)`` and their
labels, the solver's name, options and counters, the solver state
(:meth:`phmech.solvers.base.Solver.checkpoint_state`: step size, step
grid, the points where the current Jacobian was evaluated -- no
factorizations) and the model's identification (bodies, joints, sizes and a
hash of the assembled matrices).  Nothing is pickled: arrays are HDF5
datasets, everything else one JSON document.  A SHA-256 checksum over the
JSON document and every dataset is stored and verified on reading, so a
truncated or corrupted file is reported (:class:`CheckpointError`), never
used.  Files are written atomically and checked (built in memory, written
to a temporary file in the same directory, flushed, read back and only then
renamed), so an interrupted or failed write -- a killed process, a full
disk, a file size limit -- leaves the previous checkpoint intact and no
temporary file behind.

Layout: root attributes ``format`` (``"phmech-checkpoint"``),
``format_version`` and ``checksum``; dataset ``meta`` (JSON); group
``data`` with ``t``, ``y``, optional ``work``, and ``state/<key>`` for the
array entries of the solver state.
"""
import hashlib
import json
import logging
import os

import numpy as np
import scipy.sparse as sp

from .provenance import UnidentifiableError, differences, identify, provenance  # noqa: F401 (re-exported)

log = logging.getLogger("phmech")

FORMAT = "phmech-checkpoint"
FORMAT_VERSION = 1


class CheckpointError(RuntimeError):
    """A checkpoint file cannot be used (unreadable, corrupted, or of another model)."""


# -- the model's identity ---------------------------------------------------------------
def _hash_matrix(A):
    """SHA-256 of a (sparse or dense) matrix: shape and the canonical CSR arrays."""
    A = sp.csr_matrix(A, dtype=float, copy=True)      # a copy: the model's own matrix keeps its pattern
    A.sum_duplicates()
    A.eliminate_zeros()
    A.sort_indices()
    h = hashlib.sha256(repr(A.shape).encode())
    for arr in (A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data):
        h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()


def model_identity(problem):
    """What identifies an assembled model: sizes, labels, bodies, joints, parameters and matrix hashes.

    Parameters
    ----------
    problem : :class:`phmech.solvers.problem.Problem`
        An assembled :class:`~phmech.assembly.DescriptorDAE` or a
        :class:`~phmech.solvers.problem.DAEProblem`.

    Returns
    -------
    dict
        JSON-ready: ``n, nq, ne, nl``, ``labels`` (SHA-256 of the variable
        labels), ``bodies`` (name, type, nq, ne), ``joints`` (name, type,
        rows), ``loads``, ``parameters`` and ``matrices`` (hashes of ``E``,
        ``M``, ``J0``, ``R`` and of ``G`` at the reference configuration).
        ``parameters`` holds what the matrices do not show: for every body,
        joint and load (and the problem itself) that declares
        ``identity_parameters()`` -- drive values, load values, gravity,
        damping, the functions of a hand-written problem -- their records by
        :func:`phmech.io.provenance.identify` (functions by source and closure
        values), keyed ``"joint 'name'"``, ``"load 'name'"`` ...

    Raises
    ------
    UnidentifiableError
        A parameter cannot be recorded (a function referring to an object
        without recordable value); the message names the parameter.
    """
    ident = {k: int(getattr(problem, k)) for k in ("n", "nq", "ne", "nl") if hasattr(problem, k)}
    ident["labels"] = hashlib.sha256("\n".join(problem.labels()).encode()).hexdigest()
    system = getattr(problem, "system", None)
    owners = [("problem", problem)]
    if system is not None:
        ident["bodies"] = [[b.name, type(b).__name__, int(b.nq), int(b.ne)] for b in system.bodies]
        ident["joints"] = [[j.name, type(j).__name__, int(j.n_rows)] for j in system.joints]
        # force elements (phmech.forces) are recorded as loads: checkpoints of models with a damper
        # written before the dampers became force elements keep their identity
        loads = list(system.loads) + list(getattr(system, "forces", []))
        ident["loads"] = [[ld.name, type(ld).__name__] for ld in loads]
        kinds = (("body", system.bodies), ("joint", system.joints), ("load", loads))
        owners += [(f"{kind} '{x.name}'", x) for kind, items in kinds for x in items]
    params = {}
    for owner, item in owners:
        declared = getattr(item, "identity_parameters", None)
        values = declared() if callable(declared) else None
        if values:
            params[owner] = {str(k): identify(v, f"{owner} {k}") for k, v in values.items()}
    ident["parameters"] = params
    mats = {}
    for key in ("E", "M", "J0", "R"):
        A = getattr(problem, key, None)
        if A is not None:
            mats[key] = _hash_matrix(A)
    if system is not None and hasattr(problem, "q0"):
        mats["G(q0)"] = _hash_matrix(problem.G(problem.q0))
    ident["matrices"] = mats
    return ident


def compare_identity(stored, problem, path="the checkpoint"):
    """Raise one :class:`CheckpointError` listing every difference between ``stored`` and ``problem``.

    Differing parameters are named with both values, e.g. ``joint 'drive' omega:
    150.0 in the checkpoint, 100.0 in the model``.
    """
    now = model_identity(problem)
    diffs = []
    for key in sorted(set(stored) | set(now)):
        a, b = stored.get(key), now.get(key)
        if key == "matrices" and isinstance(a, dict) and isinstance(b, dict):
            diffs += [f"matrix {m} differs" for m in sorted(set(a) | set(b)) if a.get(m) != b.get(m)]
        elif key == "parameters" and a is None:
            diffs.append("the checkpoint records no drive, load or gravity values (written by an older "
                         "phmech), so this model cannot be checked against it")
        elif key == "parameters":
            diffs += differences(a, b)
        elif key in ("bodies", "joints", "loads") and a != b:
            diffs.append(f"{key}: stored {_describe(a)}, this model {_describe(b)}")
        elif a != b:
            diffs.append(f"{key}: stored {a!r}, this model {b!r}")
    if diffs:
        raise CheckpointError(f"{path} belongs to another model: " + "; ".join(diffs))


def _describe(items):
    if items is None:
        return "none"
    return "[" + ", ".join("/".join(str(x) for x in it) for it in items) + "]"


# -- reading and writing ------------------------------------------------------------------
def _checksum(meta_text, arrays):
    h = hashlib.sha256(meta_text.encode())
    for key in sorted(arrays):
        a = np.ascontiguousarray(arrays[key])
        h.update(f"{key}|{a.dtype.str}|{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _json_value(key, v):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v)
    if isinstance(v, (list, tuple)):
        return [_json_value(f"{key}[{i}]", x) for i, x in enumerate(v)]
    if isinstance(v, dict):
        return {str(k): _json_value(f"{key}.{k}", x) for k, x in v.items()}
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return _json_value(key, v.item())
    raise CheckpointError(f"checkpoint: {key} = {v!r} cannot be stored (only numbers, strings, "
                          "lists and dicts are; no pickled objects)")


def _image(meta_text, arrays):
    """The bytes of the HDF5 file, built in memory: a full disk or a file size limit then fails
    a plain ``write`` (with its error number) and cannot leave the HDF5 library half-done."""
    import io

    import h5py
    buf = io.BytesIO()
    with h5py.File(buf, "w") as fh:
        fh.attrs["format"] = FORMAT
        fh.attrs["format_version"] = FORMAT_VERSION
        fh.attrs["checksum"] = _checksum(meta_text, arrays)
        fh.create_dataset("meta", data=np.frombuffer(meta_text.encode(), dtype=np.uint8))
        grp = fh.create_group("data")
        for key, a in arrays.items():
            grp.create_dataset(key, data=a)
    return buf.getvalue()


TEMPORARY_PREFIX = ".phmech-ckpt-"


def _temporary(directory):
    """A new file in ``directory`` for an atomic write: ``(name, fd)``, mode ``0666`` less the umask."""
    import secrets
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        name = os.path.join(directory, f"{TEMPORARY_PREFIX}{os.getpid()}-{secrets.token_hex(6)}.h5")
        try:
            return name, os.open(name, flags, 0o666)
        except FileExistsError:
            continue


def _cause(err):
    """The reason of a failed write, with the file size limit when that is what was hit."""
    import errno
    text = err.strerror or str(err)
    if err.errno == errno.EFBIG:
        try:
            import resource
            limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
            if limit != resource.RLIM_INFINITY:
                text += f" (the file size limit, ulimit -f, is {limit} bytes)"
        except (ImportError, OSError, ValueError):
            pass
    return text


def write(path, meta, arrays):
    """Write ``meta`` (JSON-ready dict) and ``arrays`` (name -> ndarray) atomically to ``path``.

    The file is built in memory, written to a temporary file in the same
    directory, flushed to the disk, checked (size, and the SHA-256 of the
    bytes read back) and only then renamed to ``path``; a failure at any
    point leaves a previous ``path`` as it was and removes the temporary
    file.  New files get the mode ``0666`` less the umask.  ``arrays`` with
    a ``None`` value are left out.  Returns ``path``.

    Raises
    ------
    CheckpointError
        The file could not be written (full disk, file size limit, lost
        device, ...); the message names the file and the cause.
    """
    path = _file_path(path)
    arrays = {k: np.asarray(v) for k, v in arrays.items() if v is not None}
    meta_text = json.dumps(_json_value("meta", meta), sort_keys=True)
    image = _image(meta_text, arrays)
    directory = os.path.dirname(os.path.abspath(path))
    tmp, written = None, 0
    try:
        os.makedirs(directory, exist_ok=True)
        tmp, fd = _temporary(directory)
        try:
            view = memoryview(image)
            while written < len(image):
                written += os.write(fd, view[written:])
            os.fsync(fd)
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size != len(image):
            raise CheckpointError(f"checkpoint {path!r} could not be written: the file holds {size} of "
                                  f"{len(image)} bytes after writing")
        with open(tmp, "rb") as fh:
            back = fh.read()
        if hashlib.sha256(back).digest() != hashlib.sha256(image).digest():
            raise CheckpointError(f"checkpoint {path!r} could not be written: the {len(image)} bytes read "
                                  "back differ from those written")
        os.replace(tmp, path)
        tmp = None
        _sync_directory(directory)
    except OSError as err:
        kept = (f"the previous checkpoint in {path!r} is unchanged" if os.path.exists(path)
                else "no checkpoint was written")
        raise CheckpointError(f"checkpoint {path!r} could not be written: {_cause(err)} (after {written} of "
                              f"{len(image)} bytes); {kept}") from None
    finally:
        if tmp is not None:
            try:
                os.remove(tmp)
            except OSError:
                pass
    log.debug("checkpoint written: %s (t = %s)", path, meta.get("t"))
    return path


def _sync_directory(directory):
    """Make a rename in ``directory`` durable (where the system allows opening a directory)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def check_target(path, name="checkpoint"):
    """Refuse, before a run, a checkpoint file that could not be written.

    Parameters
    ----------
    path : str or os.PathLike
        The checkpoint file; its directory must exist and take new files
        (checked by creating and removing a temporary file).
    name : str
        The option, for messages (``"checkpoint"``, ``"--checkpoint"``).

    Returns
    -------
    str
        ``path`` as a string.

    Raises
    ------
    TypeError
        ``path`` is not a path.
    ValueError
        The path is empty or a directory, its directory is missing or not
        a directory, or no file can be created there; the message names the
        path and the cause.
    """
    try:
        text = os.fspath(path)
    except TypeError:
        raise TypeError(f"{name} must be a file path, got {path!r}") from None
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if not text:
        raise ValueError(f"{name} must be a file path, got an empty string")
    if "\0" in text:
        raise ValueError(f"{name} {text!r}: the path contains a NUL character")
    if os.path.isdir(text):
        raise ValueError(f"{name} {text!r} is a directory; give a file in it, e.g. "
                         f"{os.path.join(text, 'checkpoint.h5')!r}")
    directory = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(directory):
        what = "is not a directory" if os.path.exists(directory) else "does not exist"
        raise ValueError(f"{name} {text!r} cannot be written: the directory {directory!r} {what}")
    try:
        tmp, fd = _temporary(directory)
        os.close(fd)
        os.remove(tmp)
    except OSError as err:
        raise ValueError(f"{name} {text!r} cannot be written: no file can be created in {directory!r} "
                         f"({err.strerror or err})") from None
    return text


def check_arguments(solver, checkpoint, checkpoint_every):
    """The driver's checks of ``checkpoint=`` and ``checkpoint_every=`` before a run (``solver``: its
    name, for messages): the file must be writable (:func:`check_target`), and an interval
    needs a file."""
    if checkpoint is None:
        if checkpoint_every is not None:
            raise ValueError(f"{solver}: checkpoint_every={checkpoint_every!r} is given without checkpoint=; "
                             "pass the file to write the checkpoints to (checkpoint='run.h5')")
        return
    check_target(checkpoint)


#: most bytes a checkpoint's datasets may declare together (they are read into memory)
READ_LIMIT = 8 * 2 ** 30
#: deepest nesting of a checkpoint's metadata (phmech writes a few levels)
MAX_DEPTH = 100


def _file_path(path, what="checkpoint"):
    """``path`` as a string, refused (:class:`CheckpointError`) when it is no path or holds a NUL."""
    try:
        text = os.fspath(path)
    except TypeError:
        raise CheckpointError(f"{what} must be a file path, got {path!r}") from None
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if "\0" in text:
        raise CheckpointError(f"{what} {text!r}: the path contains a NUL character")
    return text


def read(path, limit=None):
    """Read and verify a checkpoint; returns ``(meta, arrays)``.

    The file is data: its datasets are read as plain numbers (no object,
    variable-length or opaque types; nothing is unpickled), their sizes are
    checked against the bytes the file stores and ``limit`` (default
    :data:`READ_LIMIT`) before any is read, and the metadata and arrays
    against the layout phmech writes (nesting, row lengths, increasing times).

    Raises
    ------
    CheckpointError
        The file is missing, not an HDF5 checkpoint, truncated, crafted, or
        its contents do not match the stored checksum; the message names the
        file.
    """
    import h5py
    path = _file_path(path)
    limit = READ_LIMIT if limit is None else limit
    if not os.path.isfile(path):
        raise CheckpointError(f"checkpoint {path!r} does not exist")
    try:
        with h5py.File(path, "r") as fh:
            if fh.attrs.get("format") != FORMAT:
                raise CheckpointError(f"{path!r} is not a phmech checkpoint (format attribute "
                                      f"{fh.attrs.get('format')!r})")
            version = int(fh.attrs["format_version"])
            if version > FORMAT_VERSION:
                raise CheckpointError(f"{path!r} has checkpoint format {version}; this phmech reads up to "
                                      f"{FORMAT_VERSION}")
            stored, meta_text, arrays = stored_contents(fh, path, limit)
    except CheckpointError:
        raise
    except Exception as err:       # h5py raises OSError, KeyError, ValueError ... on damaged files
        raise CheckpointError(f"checkpoint {path!r} cannot be read (truncated or damaged file?): "
                              f"{type(err).__name__}: {err}") from None
    actual = _checksum(meta_text, arrays)
    if actual != stored:
        raise CheckpointError(f"checkpoint {path!r} is corrupted: checksum {actual[:16]}... does not match "
                              f"the stored {stored[:16]}...; not using it")
    try:
        meta = json.loads(meta_text)
    except (ValueError, RecursionError) as err:
        reason = "nested too deeply" if isinstance(err, RecursionError) else str(err)
        raise CheckpointError(f"checkpoint {path!r}: unreadable metadata ({reason})") from None
    _check_layout(path, meta, arrays)
    return meta, arrays


def stored_contents(fh, path, limit):
    """``(checksum, metadata text, {name: array})`` of an open phmech HDF5 file (a checkpoint or a
    reduced body), the declared sizes checked against the file and ``limit`` before any is read."""
    stored, datasets = stored_datasets(fh)
    _check_sizes(path, datasets, os.path.getsize(path), limit)
    text = datasets.pop("meta")[()].tobytes().decode()
    return stored, text, {name[len("data/"):]: d[()] for name, d in datasets.items()}


def stored_datasets(fh):
    """``(checksum, datasets)`` of an open phmech HDF5 file (a checkpoint or a reduced body):
    the stored checksum and ``{"meta": ..., "data/<name>": ...}`` of every dataset, not read."""
    import h5py

    stored = fh.attrs["checksum"]
    stored = stored.decode() if isinstance(stored, bytes) else str(stored)
    datasets = {"meta": fh["meta"]}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            datasets[f"data/{name}"] = obj
    fh["data"].visititems(visit)
    return stored, datasets


def _check_sizes(path, datasets, file_size, limit):
    """Refuse datasets of types other than numbers, and declared sizes the file does not hold
    (or beyond ``limit``), before reading any of them."""
    total = 0
    for name, d in datasets.items():
        if d.dtype.kind not in "biuf" or d.dtype.fields is not None or d.dtype.subdtype is not None:
            raise CheckpointError(f"checkpoint {path!r}: dataset {name!r} is of type {d.dtype} (a checkpoint "
                                  "holds numbers only)")
        declared = int(d.size) * d.dtype.itemsize
        stored = d.id.get_storage_size()
        if d.compression is not None or declared != stored:
            raise CheckpointError(f"checkpoint {path!r}: dataset {name!r} declares {declared} bytes "
                                  f"{'(compressed) ' if d.compression else ''}but the file stores {stored} for it "
                                  "(phmech writes every dataset in full, uncompressed)")
        total += declared
    if total > file_size or total > limit:
        raise CheckpointError(f"checkpoint {path!r}: its datasets declare {total} bytes, more than "
                              + (f"the file's {file_size} bytes" if total > file_size else
                                 f"the limit of {limit} bytes (checkpoint.read(path, limit=...))"))


def _depth(value):
    """The nesting depth of a JSON value (without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (list, dict)):
            deepest = max(deepest, d)
            stack += [(x, d + 1) for x in (v.values() if isinstance(v, dict) else v)]
    return deepest


def _check_layout(path, meta, arrays):
    """Refuse metadata and arrays that are not of the layout :func:`save_run` writes."""
    def bad(reason):
        raise CheckpointError(f"checkpoint {path!r}: {reason}")
    if not isinstance(meta, dict):
        bad(f"the metadata is a {type(meta).__name__}, not a record")
    depth = _depth(meta)
    if depth > MAX_DEPTH:
        bad(f"the metadata is nested {depth} levels deep (at most {MAX_DEPTH})")
    kinds = {"solver": str, "options": dict, "stats": dict, "state": dict, "model": dict, "labels": list,
             "t0": (int, float), "t_end": (int, float), "message": str}
    for key, kind in kinds.items():
        if not isinstance(meta.get(key), kind) or isinstance(meta.get(key), bool):
            bad(f"the metadata entry {key!r} is {meta.get(key)!r:.80}, not a "
                f"{kind.__name__ if isinstance(kind, type) else 'number'}")
    if not all(isinstance(x, str) for x in meta["labels"]):
        bad("the variable labels are not all strings")
    n_events = meta.get("n_events")
    if n_events is not None and (not isinstance(n_events, int) or isinstance(n_events, bool) or n_events < 0):
        bad(f"the number of events {n_events!r} is not a count")
    for key, v in meta["state"].items():
        if isinstance(v, list):
            try:
                np.asarray(v, dtype=float)
            except (TypeError, ValueError):
                bad(f"the solver state entry {key!r} is not a list of numbers of one shape")
    t, y, n = arrays.get("t"), arrays.get("y"), len(meta["labels"])
    if t is None or y is None:
        bad(f"no {'t' if t is None else 'y'} dataset")
    if t.ndim != 1 or y.ndim != 2 or y.shape != (len(t), n):
        bad(f"the rows y{list(y.shape)} do not match the times t{list(t.shape)} and the {n} variables")
    for key, a in arrays.items():
        rows = len(t) if key == "work" else None
        if key == "work" and a.shape != (rows,):
            bad(f"the work record has shape {list(a.shape)}, not one value per row ({rows})")
        if key.startswith("state/") and key[6:] in ("y", "y_old") and a.shape != (n,):
            bad(f"the solver state {key[6:]!r} has shape {list(a.shape)}, not the {n} variables")
        if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
            bad(f"dataset {key!r} holds non-finite values")
    if len(t) and np.any(np.diff(t) < 0):
        i = int(np.flatnonzero(np.diff(t) < 0)[0])
        bad(f"the stored times decrease (row {i + 1}: t = {t[i + 1]!r} after {t[i]!r})")
    if not np.isfinite(meta["t0"]) or not np.isfinite(meta["t_end"]) or (len(t) and t[0] < meta["t0"]):
        bad(f"the times t0 = {meta['t0']!r}, t_end = {meta['t_end']!r} do not frame the rows")
    if meta.get("n_events"):
        for i in range(meta["n_events"]):
            te, ye = arrays.get(f"events/t{i}"), arrays.get(f"events/y{i}")
            if te is not None and (te.ndim != 1 or ye is None or ye.shape != (len(te), n)):
                bad(f"the event rows of event {i} do not match their times and the {n} variables")


# -- solver state <-> file ------------------------------------------------------------------
def split_state(state):
    """``(scalars, arrays)`` of a solver state dict (arrays go to datasets ``state/<key>``)."""
    scalars, arrays = {}, {}
    for k, v in (state or {}).items():
        if isinstance(v, np.ndarray) and v.ndim > 0:
            arrays[f"state/{k}"] = v
        else:
            scalars[k] = v
    return scalars, arrays


def join_state(scalars, arrays):
    """The solver state dict back from :func:`split_state`'s parts."""
    state = dict(scalars or {})
    for k, v in arrays.items():
        if k.startswith("state/"):
            state[k[len("state/"):]] = np.array(v)
    return state


def save_run(path, t, y, work, labels, solver, options, stats, state, identity, t0, t_end,
             message="success", t_events=None, y_events=None):
    """Write a run (rows so far, solver state, model identity) as a checkpoint; returns ``path``."""
    scalars, arrays = split_state(state)
    meta = {"solver": solver, "options": options, "stats": stats, "state": scalars,
            "has_state": state is not None, "model": identity, "labels": list(labels),
            "t0": t0, "t_end": t_end, "t": float(t[-1]) if len(t) else t0, "message": message,
            "n_events": None if t_events is None else len(t_events), "provenance": provenance()}
    arrays.update({"t": np.asarray(t, float), "y": np.asarray(y, float).reshape(len(t), -1),
                   "work": None if work is None else np.asarray(work, float)})
    for i, (te, ye) in enumerate(zip(t_events or [], y_events or [])):
        arrays[f"events/t{i}"] = np.asarray(te, float)
        arrays[f"events/y{i}"] = np.asarray(ye, float)
    arrays = {k: np.asarray(a) for k, a in arrays.items() if a is not None}
    bad = [k for k, a in arrays.items() if a.dtype.kind == "f" and not np.all(np.isfinite(a))]
    if bad:
        raise CheckpointError(f"checkpoint {path!r}: refusing to write non-finite values in {bad}")
    return write(path, meta, arrays)


#: attributes every step-based solver keeps (see :class:`phmech.solvers.base.Solver`)
COMMON_STATE = ("t", "t_old", "y", "y_old", "nsteps", "nreject", "nfev", "njev", "nlu")


def common_state(solver):
    """The state every solver shares: time, state, last step and counters."""
    return {k: (np.array(getattr(solver, k)) if k in ("y", "y_old") else getattr(solver, k))
            for k in COMMON_STATE}


def restore_common(solver, state):
    """Set the shared state of :func:`common_state` on ``solver`` (status follows ``t_bound``)."""
    for k in COMMON_STATE:
        v = state[k]
        setattr(solver, k, np.array(v, float) if k in ("y", "y_old") else (float(v) if k.startswith("t")
                                                                           else int(v)))
    solver.status = "running" if solver.t < solver.t_bound else "finished"


# -- during a run and on restart --------------------------------------------------------------
class Checkpointer:
    """Driver callback writing the run so far every ``every`` seconds of simulated time.

    Parameters
    ----------
    path : str
        The checkpoint file (replaced atomically at each write).
    every : float or None
        Interval in simulated time from ``t0``; ``None``: only the final write
        (done by the driver through :meth:`phmech.result.Result.save`).
    rows : the driver's output rows (attributes ``t, y, w`` and ``solver``)
    t0 : float
        Start of the run (the grid of the intervals).
    """

    def __init__(self, path, every, rows, t0, t_events=None, y_events=None):
        from .._checks import positive_option
        solver = rows.solver
        if not hasattr(solver, "checkpoint_state"):
            raise ValueError(f"{solver.name}: checkpoints are not supported by this solver "
                             "(midpoint and radau support them)")
        self.every = positive_option(solver.name, "checkpoint_every", every, allow_none=True)
        self.path, self.rows, self.t0 = os.fspath(path), rows, float(t0)
        self.t_events, self.y_events = t_events, y_events
        self.identity = model_identity(solver.problem)
        self.written = int(np.floor((solver.t - self.t0) / self.every + 1e-9)) if self.every else 0
        self.count = 0

    def __call__(self, solver):
        if self.every is None:
            return
        n = int(np.floor((solver.t - self.t0) / self.every + 1e-9))
        if n <= self.written:
            return
        self.written = n
        rows = self.rows
        save_run(self.path, rows.t, np.array(rows.y), rows.w if solver.records_work else None,
                 solver.problem.labels(), solver.name, getattr(solver, "options", {}),
                 solver.stats(), solver.checkpoint_state(), self.identity, self.t0, solver.t_end,
                 message="checkpoint", t_events=self.t_events,
                 y_events=[np.reshape(y, (-1, solver.problem.n)) for y in self.y_events or []])
        self.count += 1


class Resume:
    """An opened restart file (see :func:`open_restart`)."""

    def __init__(self, path, meta, arrays, options):
        self.path, self.meta, self.arrays, self.options = path, meta, arrays, options
        self.t0 = float(meta["t0"])
        self.state = join_state(meta["state"], arrays)
        self.t = float(self.state["t"])

    def fill(self, rows, t_events, y_events):
        """Put the stored rows and events into the driver's collections."""
        t, y = self.arrays["t"], self.arrays["y"]
        w = self.arrays.get("work", np.zeros(len(t)))
        for i in range(len(t)):
            rows.add(t[i], y[i], w[i])
        for i in range(len(t_events)):
            t_events[i].extend(self.arrays.get(f"events/t{i}", np.zeros(0)).tolist())
            y_events[i].extend(list(self.arrays.get(f"events/y{i}", np.zeros((0, len(y[0]) if len(y) else 0)))))


def open_restart(path, problem, cls, options, t_end):
    """Read ``path``, check that it belongs to ``problem`` and solver ``cls``; returns a :class:`Resume`.

    ``options`` given now override the stored ones (a change is logged: the
    continued run then differs from an uninterrupted one).
    """
    meta, arrays = read(path)
    compare_identity(meta["model"], problem, f"checkpoint {path!r}")
    if meta["solver"] != cls.name:
        raise CheckpointError(f"checkpoint {path!r} was written by solver {meta['solver']!r}; "
                              f"cannot continue it with {cls.name!r} (pass solver={meta['solver']!r})")
    if not meta.get("has_state") or not hasattr(cls, "restore_state"):
        raise CheckpointError(f"checkpoint {path!r}: solver {meta['solver']!r} stored no state to continue from")
    merged = dict(meta["options"])
    for k, v in options.items():
        if k in merged and merged[k] != v:
            log.warning("restart from %s: option %s changed from %r to %r; the continued run will "
                        "differ from an uninterrupted one", path, k, merged[k], v)
        merged[k] = v
    res = Resume(path, meta, arrays, merged)
    if not res.t0 <= res.t:
        raise CheckpointError(f"checkpoint {path!r}: inconsistent times t0 = {res.t0}, t = {res.t}")
    if t_end < res.t:
        raise CheckpointError(f"checkpoint {path!r} reaches t = {res.t}, beyond the requested t_end = {t_end}")
    return res

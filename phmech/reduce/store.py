"""The file of a reduced body: HDF5 of plain numbers and one JSON document, no pickle.

Layout: root attributes ``format`` (``"phmech-reduced-body"``),
``format_version``, ``phmech_version`` and ``checksum`` (SHA-256 over the
JSON document and every dataset, :func:`phmech.io.checkpoint._checksum`);
dataset ``meta`` (the JSON text as bytes) and group ``data`` with the
arrays.  The file is built in memory and written to a temporary file that
is renamed over ``path``, so a failed write leaves a previous file intact.
Reading refuses, before any dataset is read, types other than numbers and
declared sizes the file does not store; then the format, the versions and
the checksum.  Loading needs numpy and h5py only.
"""
import io
import json
import os
import tempfile

import numpy as np

FORMAT = "phmech-reduced-body"
FORMAT_VERSION = 1


class ReducedFileError(RuntimeError):
    """A reduced-body file cannot be used (unreadable, damaged, of another version or model)."""


def _version():
    from .. import __version__
    return __version__


def write(path, meta, arrays):
    """Write ``meta`` (JSON-ready) and ``arrays`` (name -> ndarray) to ``path``; returns ``path``."""
    import h5py

    from ..io.checkpoint import _checksum
    path = os.fspath(path)
    arrays = {k: np.ascontiguousarray(v) for k, v in arrays.items()}
    bad = [k for k, a in arrays.items() if a.dtype.kind not in "biuf" or (a.dtype.kind == "f"
                                                                          and not np.all(np.isfinite(a)))]
    if bad:
        raise ReducedFileError(f"reduced body file {path!r}: refusing to write non-finite or non-numeric {bad}")
    text = json.dumps(meta, sort_keys=True)
    buf = io.BytesIO()
    with h5py.File(buf, "w") as fh:
        fh.attrs["format"] = FORMAT
        fh.attrs["format_version"] = FORMAT_VERSION
        fh.attrs["phmech_version"] = _version()
        fh.attrs["checksum"] = _checksum(text, arrays)
        fh.create_dataset("meta", data=np.frombuffer(text.encode(), dtype=np.uint8))
        grp = fh.create_group("data")
        for k, a in arrays.items():
            grp.create_dataset(k, data=a)
    directory = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".phmech-reduced-", suffix=".h5")
        with os.fdopen(fd, "wb") as fh:
            fh.write(buf.getvalue())
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as err:
        raise ReducedFileError(f"reduced body file {path!r} could not be written: {err.strerror or err}") from None
    finally:
        if tmp is not None:
            try:
                os.remove(tmp)
            except OSError:
                pass
    return path


def read(path):
    """``(meta, arrays)`` of a reduced-body file, verified (module docstring).

    Raises
    ------
    ReducedFileError
        Missing, not a reduced-body file, of another format or phmech version, truncated or
        damaged (the message names the file and the cause).
    """
    import h5py

    from ..io.checkpoint import READ_LIMIT, CheckpointError, _checksum, stored_contents
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ReducedFileError(f"reduced body file {path!r} does not exist")
    try:
        with h5py.File(path, "r") as fh:
            fmt = fh.attrs.get("format")
            if fmt != FORMAT:
                raise ReducedFileError(f"{path!r} is not a phmech reduced body file (format attribute {fmt!r})")
            version = int(fh.attrs["format_version"])
            if version != FORMAT_VERSION:
                raise ReducedFileError(f"reduced body file {path!r} has format {version}; this phmech reads "
                                       f"format {FORMAT_VERSION}")
            written = fh.attrs.get("phmech_version")
            written = written.decode() if isinstance(written, bytes) else str(written)
            if written != _version():
                raise ReducedFileError(f"reduced body file {path!r} was written by phmech {written}, this is "
                                       f"phmech {_version()}: reduce the body again with this version")
            try:
                stored, text, arrays = stored_contents(fh, path, READ_LIMIT)
            except CheckpointError as err:
                raise ReducedFileError(str(err).replace("checkpoint", "reduced body file", 1)) from None
    except ReducedFileError:
        raise
    except Exception as err:    # h5py raises OSError, KeyError, ValueError ... on damaged files
        raise ReducedFileError(f"reduced body file {path!r} cannot be read (truncated or damaged file?): "
                               f"{type(err).__name__}: {err}") from None
    if _checksum(text, arrays) != stored:
        raise ReducedFileError(f"reduced body file {path!r} is damaged: its checksum does not match its contents")
    try:
        meta = json.loads(text)
    except ValueError as err:
        raise ReducedFileError(f"reduced body file {path!r}: unreadable metadata ({err})") from None
    if not isinstance(meta, dict):
        raise ReducedFileError(f"reduced body file {path!r}: the metadata is no record")
    return meta, arrays

"""A small reader of 8-bit, non-interlaced PNG files (grey, RGB, RGBA), for comparing screenshots
without an imaging library."""
import struct
import zlib

import numpy as np

CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}


def _unfilter(kind, line, prior, bpp):
    out = line.astype(np.int64)
    up = prior.astype(np.int64)
    if kind == 0:
        return line
    if kind == 1:                                  # sub: running sums per channel
        return (np.cumsum(out.reshape(-1, bpp), axis=0) % 256).astype(np.uint8).ravel()
    if kind == 2:
        return ((out + up) % 256).astype(np.uint8)
    res = np.zeros_like(out)
    for i in range(len(out)):
        left = res[i - bpp] if i >= bpp else 0
        if kind == 3:
            res[i] = (out[i] + (left + up[i]) // 2) % 256
        else:                                      # Paeth
            corner = up[i - bpp] if i >= bpp else 0
            p = left + up[i] - corner
            pa, pb, pc = abs(p - left), abs(p - up[i]), abs(p - corner)
            pred = left if pa <= pb and pa <= pc else (up[i] if pb <= pc else corner)
            res[i] = (out[i] + pred) % 256
    return res.astype(np.uint8)


def read_png(path):
    """The image of ``path`` as a ``(height, width, channels)`` uint8 array."""
    with open(path, "rb") as fh:
        blob = fh.read()
    if blob[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path!r} is not a PNG file")
    pos, data, header = 8, [], None
    while pos < len(blob):
        n, kind = struct.unpack(">I4s", blob[pos:pos + 8])
        chunk = blob[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            data.append(chunk)
        pos += 12 + n
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or interlace or colour not in CHANNELS:
        raise ValueError(f"{path!r}: only 8-bit non-interlaced grey/RGB/RGBA PNG files are read")
    bpp = CHANNELS[colour]
    raw = np.frombuffer(zlib.decompress(b"".join(data)), np.uint8).reshape(height, 1 + width * bpp)
    rows, prior = [], np.zeros(width * bpp, np.uint8)
    for r in range(height):
        prior = _unfilter(int(raw[r, 0]), raw[r, 1:], prior, bpp)
        rows.append(prior)
    return np.array(rows).reshape(height, width, bpp)

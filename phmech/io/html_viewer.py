"""A self-contained 3D viewer of a run: one HTML file, no server, no network.

:func:`write_html` (``Result.to_html(path)``) writes the pictures of every
body (:mod:`phmech.io.pictures`: rigid bodies, beams' current axes, plates'
and solids' surfaces, mass-spring networks) and the joints' points at up to
``max_frames`` output times as JSON into a single page that draws them with
three.js (WebGL; vendored in ``phmech/io/_vendor/three`` and inlined, so the
file opens offline from disk):

* shaded bodies: beams as tubes of their section (a round section of the
  same area, where the body gives one), rigid bodies as bars between their
  ports, a body with one point as a box, networks as thin springs and balls;
* plates and solids as shaded surfaces coloured by a field (a plate's
  deflection, or ``field=``: ``"speed"`` or a point-data name for every
  body that has it) with a colour bar;
* the joints as dark spheres, those to the ground on a pedestal; a ground
  grid below a spatial model (z up) or behind a planar one, a length scale;
* the camera fitted to the trajectory's box; orbit (drag), pan (right
  drag), zoom (wheel), double click: fit again; a time slider, play/pause
  (also the space bar) and the playing speed.

The page keeps its state readable for scripts: ``#frame`` holds the frame
drawn, ``#checksum`` a checksum of the drawn points' screen coordinates and
``#errors`` any script or console error (also counted in the root element's
``data-errors``).  The address sets the start: ``?frame=K`` or ``#t=SECONDS``
(the frame nearest that time), ``?play=1``, ``?speed=X``, ``?yaw=DEG&pitch=DEG``
(0, 0: planar models face on, spatial ones from the front, -y).
"""
import base64
import functools
import html
import json
import logging
import os
import re
from importlib import resources

import numpy as np

from .pictures import check_drawing_options, frame_rows, trajectory_pictures

log = logging.getLogger("phmech")

#: colours of the bodies, in order (matplotlib's default cycle)
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
#: frames of a viewer unless told otherwise
MAX_FRAMES = 200
#: units of the fields a page colours by
UNITS = {"deflection": "m", "speed": "m/s", "displacement": "m", "velocity": "m/s"}


def _decimals(size):
    """Decimals that keep about seven significant digits of coordinates of magnitude ``size``."""
    return int(min(12, max(0, 7 - np.floor(np.log10(size)))))


def _positive_int(value, key, caller):
    if not (isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1):
        raise ValueError(f"{caller}: {key} must be a positive integer, got {value!r}")


def viewer_data(result, max_frames=MAX_FRAMES, scale=1.0, n_points=21, colors=None, title=None, fps=25,
                field=None):
    """The JSON-ready content of the viewer (see :func:`write_html`)."""
    _positive_int(fps, "fps", "to_html")
    try:
        check_drawing_options(n_points, scale)
        rows = frame_rows(len(result.t), None, max_frames)
        times, names, frames, _, joints = trajectory_pictures(result, rows, n_points, scale)
    except ValueError as err:
        raise ValueError(f"to_html: {err}") from None
    system = getattr(result.dae, "system", None)
    sections = {b.name: b.picture_section() for b in getattr(system, "bodies", ())
                if callable(getattr(b, "picture_section", None))}
    return _frames_data(times, names, frames, str(getattr(result, "solver", "")), scale, colors,
                        title or f"phmech run: {', '.join(names)}", fps, joints, sections, field)


def _field_values(part, field):
    """The scalar field ``field`` on the points of ``part`` (a vector's length), or None."""
    if field == "speed":
        v = part.point_data.get("velocity")
    else:
        v = part.point_data.get(field)
    if v is None:
        return None
    v = np.asarray(v, float)
    return np.linalg.norm(v.reshape(len(v), -1), axis=1) if v.ndim > 1 else v


def _fields(names, frames, field):
    """The coloured bodies: ``({body index: (n_frames, m) values}, field name)``."""
    if field is not None and not isinstance(field, str):
        raise ValueError(f"to_html: field must be a point-data name, 'speed' or None, got {field!r}")
    out = {}
    for b in range(len(names)):
        first = frames[0][b]
        name = field if field is not None else ("deflection" if first.kind == "surface" else None)
        if name is None:
            continue
        vals = [_field_values(parts[b], name) for parts in frames]
        if all(v is not None for v in vals):
            out[b] = np.array(vals)
    if field is not None and not out:
        have = sorted({k for parts in frames[:1] for p in parts for k in p.point_data} | {"speed"})
        raise ValueError(f"to_html: no body has the field {field!r}; the fields are {have}")
    return out, field if field is not None else "deflection"


def _frames_data(times, names, frames, solver, scale, colors, title, fps, joints=(), sections=None, field=None):
    """The viewer's content from the parts ``frames[k][b]`` of body ``b`` at ``times[k]``."""
    colors = dict(colors or {})
    sections = dict(sections or {})
    unknown = sorted(set(colors) - set(names))
    if unknown:
        raise ValueError(f"to_html: colors given for unknown bodies {unknown}; the bodies are {names}")
    for b, name in enumerate(names):
        pts = np.vstack([parts[b].points for parts in frames])
        if not np.all(np.isfinite(pts)):
            raise ValueError(f"to_html: body '{name}' has non-finite coordinates; not writing")
    allpts = np.vstack([p.points for parts in frames for p in parts] + [j.points for j in joints])
    lo, hi = allpts.min(axis=0), allpts.max(axis=0)
    size = float(np.max(hi - lo)) or 1.0
    dec = _decimals(size)
    bar = 0.008 * size                                                 # the radius of a drawn bar
    coloured, field_name = _fields(names, frames, field)
    bodies = []
    for b, name in enumerate(names):
        first = frames[0][b]
        shape, radius = sections.get(name) or ("bar", bar)
        radius = float(np.clip(radius, 0.3 * bar, 5 * bar))
        entry = {"name": name, "kind": first.kind, "color": colors.get(name, PALETTE[b % len(PALETTE)]),
                 "shape": shape,
                 "radius": radius, "segments": first.segments().ravel().tolist(),
                 "triangles": first.triangles().ravel().tolist(),
                 "vertices": np.concatenate([c[:, 0] for t, c in first.cells if t == "vertex"]
                                            or [np.zeros(0, int)]).tolist(),
                 "frames": [np.round(parts[b].points, dec).ravel().tolist() for parts in frames]}
        if b in coloured:
            vals = coloured[b]
            if not np.all(np.isfinite(vals)):
                raise ValueError(f"to_html: body '{name}' has non-finite values of {field_name!r}; not writing")
            top = float(np.abs(vals).max())
            entry["field"] = np.round(vals, _decimals(top or 1.0) + 2).tolist()
            entry["scalar_max"] = top
            if first.kind == "surface":
                entry["scalar"] = entry["field"]
        bodies.append(entry)
    data_field = None
    if coloured:
        vals = np.concatenate([v.ravel() for v in coloured.values()])
        data_field = {"name": field_name, "unit": UNITS.get(field_name, ""), "min": float(vals.min()),
                      "max": float(vals.max())}
    planar = bool(np.ptp(allpts[:, 2]) == 0.0)
    return {"title": title, "solver": solver, "times": [float(t) for t in times], "bodies": bodies,
            "joints": [{"name": j.name, "kind": j.kind, "grounded": j.grounded, "bodies": j.bodies,
                        "frames": np.round(j.points, dec).ravel().tolist()} for j in joints],
            "joint_radius": 1.8 * bar, "center": ((lo + hi) / 2).tolist(), "lo": lo.tolist(), "hi": hi.tolist(),
            "size": size, "scale": float(scale), "fps": int(fps), "planar": planar, "field": data_field}


def write_html(result, path, max_frames=MAX_FRAMES, scale=1.0, n_points=21, colors=None, title=None, fps=25,
               field=None):
    """Write the self-contained 3D viewer of a run (see the module docstring).

    Parameters
    ----------
    result : :class:`phmech.result.Result`
        A run of an assembled :class:`~phmech.System` or a mass-spring run.
    path : str
        The ``.html`` file.
    max_frames : int or None
        At most this many frames, evenly sampled over the output rows
        (first and last kept); None: every row.
    scale : float
        Magnification of the deformation drawn (beams, plates); the bodies
        joined to a deformed body move with it.
    n_points : int
        Points along each beam axis.
    colors : dict, optional
        Colour (CSS) of a body by name.
    title : str, optional
        Heading of the page (default: the bodies' names).
    fps : int
        Frames per second when playing at speed 1.
    field : str, optional
        Colour the bodies by this point field: ``"speed"`` (the length of
        the velocity) or the name of a part's point data (a vector by its
        length); default: plates and solids by their ``deflection``.

    Returns
    -------
    str
        ``path``.
    """
    return _write_page(viewer_data(result, max_frames, scale, n_points, colors, title, fps, field), path,
                       "to_html")


def page_html(result, **options):
    """The viewer's page of a run as text (the options of :func:`write_html`)."""
    return render_page(viewer_data(result, **options))


def write_modes_html(modes, i, path, n_frames=24, scale=0.05, n_points=21, colors=None, title=None, fps=12):
    """Write vibration mode ``i`` as the self-contained HTML viewer, animated over one period.

    The geometry is that of the ParaView mode series (:func:`phmech.io.paraview.mode_geometry`:
    the largest displacement of a drawn point is ``scale`` times the size of the mechanism);
    the viewer's time is the physical time ``k T / n_frames`` over the period ``T = 2 pi / omega``.

    Parameters
    ----------
    modes : :class:`phmech.solvers.eigen.Modes`
    i : int
        The mode.
    path : str
        The ``.html`` file.

    Returns
    -------
    str
        ``path``.
    """
    from .paraview import _mode_part, mode_geometry

    times, names, pictures = mode_geometry(modes, i, n_frames, scale, n_points)
    frames = [[_mode_part(name, pts) for name, pts in zip(names, picture)] for picture in pictures]
    w = float(modes.omega[i])
    heading = title or f"mode {i}: {w / (2 * np.pi):.6g} Hz ({w:.6g} rad/s)"
    return _write_page(_frames_data(times, names, frames, f"mode {i}", 1.0, colors, heading, fps), path,
                       "modes to_html")


@functools.lru_cache(maxsize=None)
def _asset(*parts):
    """A file of the package's viewer assets, as text."""
    return resources.files(__package__).joinpath(*parts).read_text(encoding="utf-8")


@functools.lru_cache(maxsize=None)
def _imports():
    """The import map of the page's script: three.js and its orbit controls as ``data:`` modules."""
    def data_url(name):
        code = _asset("_vendor", "three", name).encode("utf-8")
        return "data:text/javascript;base64," + base64.b64encode(code).decode("ascii")
    return json.dumps({"imports": {"three": data_url("three.module.min.js"),
                                   "three/addons/controls/OrbitControls.js": data_url("OrbitControls.js")}})


def render_page(data):
    """The page (text) showing the viewer's content ``data``."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")
    parts = {"TITLE": html.escape(data["title"]), "SCRIPT": _asset("viewer", "viewer.js"), "DATA": text,
             "IMPORTS": _imports()}
    # one pass over the page: a title such as "@DATA@" is text, not a placeholder
    return re.sub("@(TITLE|SCRIPT|DATA|IMPORTS)@", lambda m: parts[m.group(1)], _asset("viewer", "page.html"))


def _write_page(data, path, caller):
    """The page with ``data`` written to ``path``."""
    page = render_page(data)
    path = os.fspath(path)
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(page)
    except OSError as err:
        raise OSError(f"{caller}: cannot write {path!r}: {err}") from None
    log.info(caller + ": %d frames of %d bodies in %s (%.1f kB)", len(data["times"]), len(data["bodies"]), path,
             len(page) / 1e3)
    return path


def in_notebook():
    """Whether the code runs in a Jupyter kernel (an IPython shell with a kernel)."""
    import sys
    if "ipykernel" not in sys.modules or "IPython" not in sys.modules:
        return False
    shell = sys.modules["IPython"].get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class InlineView:
    """The viewer's page shown inline by a notebook: an iframe holding the page (``srcdoc``).

    Attributes
    ----------
    page : str
        The page, as :func:`write_html` writes it.
    data : str
        The HTML a notebook shows.
    """

    def __init__(self, page, title, height):
        self.page = page
        self.data = (f'<iframe srcdoc="{html.escape(page, quote=True)}" '
                     f'style="width:100%;height:{height}px;border:1px solid #ddd" '
                     f'title="{html.escape(title, quote=True)}"></iframe>')

    def _repr_html_(self):
        return self.data

    def __repr__(self):
        return f"InlineView({len(self.page) / 1e3:.0f} kB page)"


def show(result, path=None, height=540, **options):
    """The viewer of a run in a notebook (inline, the page of :func:`write_html` in an iframe),
    else written to ``path`` (default: a new temporary file) with a line saying where.

    Parameters
    ----------
    result : :class:`phmech.result.Result`
    path : str, optional
        Where to write the page outside a notebook.
    height : int
        Height of the inline view in pixels.
    **options
        The options of :func:`write_html` (``max_frames``, ``scale``, ``field``, ...).

    Returns
    -------
    InlineView or str
        The inline view in a notebook, else the written path.
    """
    if not (isinstance(height, (int, np.integer)) and not isinstance(height, bool) and 100 <= height <= 4000):
        raise ValueError(f"show: height must be an integer number of pixels in [100, 4000], got {height!r}")
    data = viewer_data(result, **options)
    if in_notebook() and path is None:
        return InlineView(render_page(data), data["title"], int(height))
    if path is None:
        import tempfile
        fd, path = tempfile.mkstemp(prefix="phmech-viewer-", suffix=".html")
        os.close(fd)
    _write_page(data, path, "show")
    print(f"phmech viewer written to {os.path.abspath(path)} (open it in a browser)")
    return path

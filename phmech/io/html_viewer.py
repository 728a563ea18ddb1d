"""A self-contained HTML viewer of a run: one file, no server, no network.

:func:`write_html` (``Result.to_html(path)``) writes the pictures of every
body (:mod:`phmech.io.pictures`: rigid bodies, beams' current axes, plates'
surfaces coloured by their deflection, mass-spring networks) at up to
``max_frames`` output times as JSON into a single HTML page, together with
a small canvas renderer written for it: a perspective view that turns by
dragging the mouse (wheel: zoom, double click: reset), play/pause (also the
space bar), a time slider and a legend.  Nothing is loaded from elsewhere,
so the file opens in any browser, offline.

The page keeps its state readable for scripts: the element ``#frame`` holds
the frame index drawn, ``#checksum`` a checksum of the drawn screen
coordinates and ``#errors`` any script error.  The query string sets the
start: ``?frame=K``, ``?play=1``, ``?yaw=DEG&pitch=DEG``.
"""
import html
import json
import logging
import os
import re

import numpy as np

from .pictures import sampled_trajectory

log = logging.getLogger("phmech")

#: colours of the bodies, in order (matplotlib's default cycle)
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
#: frames of a viewer unless told otherwise
MAX_FRAMES = 200


def _decimals(size):
    """Decimals that keep about seven significant digits of coordinates of magnitude ``size``."""
    return int(min(12, max(0, 7 - np.floor(np.log10(size)))))


def viewer_data(result, max_frames=MAX_FRAMES, scale=1.0, n_points=21, colors=None, title=None, fps=25):
    """The JSON-ready content of the viewer (see :func:`write_html`)."""
    times, names, frames = sampled_trajectory(result, None, max_frames, n_points, scale, fps, "to_html")
    return _frames_data(times, names, frames, str(getattr(result, "solver", "")), scale, colors,
                        title or f"phmech run: {', '.join(names)}", fps)


def _frames_data(times, names, frames, solver, scale, colors, title, fps):
    """The viewer's content from the parts ``frames[k][b]`` of body ``b`` at ``times[k]``."""
    colors = dict(colors or {})
    unknown = sorted(set(colors) - set(names))
    if unknown:
        raise ValueError(f"to_html: colors given for unknown bodies {unknown}; the bodies are {names}")
    allpts = np.vstack([p.points for parts in frames for p in parts])
    for b, name in enumerate(names):
        pts = np.vstack([parts[b].points for parts in frames])
        if not np.all(np.isfinite(pts)):
            raise ValueError(f"to_html: body '{name}' has non-finite coordinates; not writing")
    lo, hi = allpts.min(axis=0), allpts.max(axis=0)
    size = float(np.max(hi - lo)) or 1.0
    dec = _decimals(size)
    bodies = []
    for b, name in enumerate(names):
        first = frames[0][b]
        entry = {"name": name, "kind": first.kind, "color": colors.get(name, PALETTE[b % len(PALETTE)]),
                 "segments": first.segments().ravel().tolist(), "triangles": first.triangles().ravel().tolist(),
                 "vertices": np.concatenate([c[:, 0] for t, c in first.cells if t == "vertex"]
                                            or [np.zeros(0, int)]).tolist(),
                 "frames": [np.round(parts[b].points, dec).ravel().tolist() for parts in frames]}
        if first.kind == "surface":
            w = np.array([parts[b].point_data["deflection"] for parts in frames])
            wmax = float(np.abs(w).max())
            entry["scalar"] = np.round(w, _decimals(wmax or 1.0) + 2).tolist()
            entry["scalar_max"] = wmax
        bodies.append(entry)
    planar = bool(np.ptp(allpts[:, 2]) == 0.0)
    return {"title": title, "solver": solver,
            "times": [float(t) for t in times], "bodies": bodies, "center": ((lo + hi) / 2).tolist(),
            "size": size, "scale": float(scale), "fps": int(fps), "planar": planar}


def write_html(result, path, max_frames=MAX_FRAMES, scale=1.0, n_points=21, colors=None, title=None, fps=25):
    """Write the self-contained HTML viewer of a run (see the module docstring).

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
        Magnification of the deformation drawn (beams, plates).
    n_points : int
        Points along each beam axis.
    colors : dict, optional
        Colour (CSS) of a body by name.
    title : str, optional
        Heading of the page (default: the bodies' names).
    fps : int
        Frames per second when playing.

    Returns
    -------
    str
        ``path``.
    """
    return _write_page(viewer_data(result, max_frames, scale, n_points, colors, title, fps), path, "to_html")


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


def _write_page(data, path, caller):
    """The page with ``data`` written to ``path``."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")
    parts = {"TITLE": html.escape(data["title"]), "SCRIPT": _SCRIPT, "DATA": text}
    # one pass over the page: a title such as "@DATA@" is text, not a placeholder
    page = re.sub("@(TITLE|SCRIPT|DATA)@", lambda m: parts[m.group(1)], _PAGE)
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


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>@TITLE@</title>
<style>
body { font-family: sans-serif; margin: 8px; color: #222; }
#bar { display: flex; gap: 10px; align-items: center; margin: 4px 0; }
#slider { flex: 1; }
#view { border: 1px solid #bbb; cursor: grab; display: block; }
#legend span { display: inline-block; margin-right: 14px; }
#legend i { display: inline-block; width: 14px; height: 4px; margin-right: 4px; vertical-align: middle; }
#errors { color: #b00; white-space: pre; }
.small { font-size: 12px; color: #555; }
</style>
</head>
<body>
<div><b>@TITLE@</b> <span class="small">drag: turn, wheel: zoom, double click: reset, space: play/pause</span></div>
<div id="bar"><button id="play" type="button">Play</button>
<input id="slider" type="range" min="0" max="0" step="1" value="0">
<span id="time"></span> <span class="small">frame <span id="frame">0</span>,
checksum <span id="checksum"></span></span></div>
<canvas id="view" width="800" height="480"></canvas>
<div id="legend"></div>
<div id="errors"></div>
<script type="application/json" id="phmech-data">@DATA@</script>
<script>
@SCRIPT@
</script>
</body>
</html>
"""

_SCRIPT = r"""
(function () {
  "use strict";
  var errors = document.getElementById("errors");
  function report(msg) { errors.textContent += msg + "\n"; }
  window.addEventListener("error", function (ev) { report("error: " + (ev.message || ev)); });
  var D = JSON.parse(document.getElementById("phmech-data").textContent);
  var canvas = document.getElementById("view"), ctx = canvas.getContext("2d");
  var slider = document.getElementById("slider"), playBtn = document.getElementById("play");
  var frameOut = document.getElementById("frame"), timeOut = document.getElementById("time");
  var sumOut = document.getElementById("checksum");
  var nF = D.times.length, deg = Math.PI / 180;
  var args = {};
  window.location.search.replace(/^\?/, "").split("&").forEach(function (kv) {
    if (kv) { var p = kv.split("="); args[decodeURIComponent(p[0])] = decodeURIComponent(p[1] || ""); }
  });
  var home = D.planar ? {yaw: 0, pitch: 90 * deg} : {yaw: -35 * deg, pitch: 25 * deg};
  var view = {yaw: home.yaw, pitch: home.pitch, zoom: 1};
  if (args.yaw) { view.yaw = parseFloat(args.yaw) * deg; }
  if (args.pitch) { view.pitch = parseFloat(args.pitch) * deg; }
  var k = Math.min(nF - 1, Math.max(0, parseInt(args.frame || "0", 10) || 0));
  slider.max = String(nF - 1);
  slider.value = String(k);
  var timer = null;

  function legend() {
    var el = document.getElementById("legend");
    D.bodies.forEach(function (b) {
      var s = document.createElement("span"), i = document.createElement("i");
      i.style.background = b.color;
      s.appendChild(i);
      var label = b.name + " (" + b.kind + ")";
      if (b.kind === "surface") {
        label += ": deflection up to " + b.scalar_max.toPrecision(3) + " m (red up, blue down)";
      }
      s.appendChild(document.createTextNode(label));
      el.appendChild(s);
    });
    if (D.scale !== 1) { el.appendChild(document.createTextNode("deformation drawn x" + D.scale)); }
  }

  function colour(s) {   // s in [-1, 1]: blue - white - red
    var a = Math.min(1, Math.abs(s)), r, g, b;
    if (s < 0) { r = 255 - 196 * a; g = 255 - 179 * a; b = 255 - 63 * a; }
    else { r = 255 - 75 * a; g = 255 - 251 * a; b = 255 - 217 * a; }
    return "rgb(" + Math.round(r) + "," + Math.round(g) + "," + Math.round(b) + ")";
  }

  function projector() {
    var W = canvas.width, H = canvas.height;
    var cy = Math.cos(view.yaw), sy = Math.sin(view.yaw), cp = Math.cos(view.pitch), sp = Math.sin(view.pitch);
    var s = view.zoom * 0.85 * Math.min(W, H) / D.size, c = D.center, far = 4 * D.size;
    return function (P, i) {
      var x = P[3 * i] - c[0], y = P[3 * i + 1] - c[1], z = P[3 * i + 2] - c[2];
      var x1 = cy * x - sy * y, y1 = sy * x + cy * y;
      var up = cp * z + sp * y1, depth = sp * z - cp * y1;
      var f = far / (far - depth);
      return [W / 2 + s * x1 * f, H / 2 - s * up * f, depth];
    };
  }

  function triad(proj) {
    var names = ["x", "y", "z"], cols = ["#c00", "#080", "#00c"];
    var o = proj([D.center[0], D.center[1], D.center[2]], 0);
    for (var a = 0; a < 3; a++) {
      var p = [D.center[0], D.center[1], D.center[2]];
      p[a] += 0.12 * D.size;
      var e = proj(p, 0), x0 = 40, y0 = canvas.height - 40;
      ctx.strokeStyle = cols[a]; ctx.fillStyle = cols[a]; ctx.lineWidth = 1.5;
      ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x0 + e[0] - o[0], y0 + e[1] - o[1]); ctx.stroke();
      ctx.fillText(names[a], x0 + 1.15 * (e[0] - o[0]), y0 + 1.15 * (e[1] - o[1]));
    }
  }

  function draw() {
    var W = canvas.width, H = canvas.height, proj = projector(), sum = 0, tris = [];
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, W, H);
    var screen = D.bodies.map(function (b) {
      var P = b.frames[k], n = P.length / 3, S = new Array(n);
      for (var i = 0; i < n; i++) {
        S[i] = proj(P, i);
        sum += S[i][0] * (1 + i % 7) + S[i][1] * (1 + i % 5);
      }
      return S;
    });
    D.bodies.forEach(function (b, j) {
      var S = screen[j], T = b.triangles;
      for (var t = 0; t < T.length; t += 3) {
        var w = (b.scalar[k][T[t]] + b.scalar[k][T[t + 1]] + b.scalar[k][T[t + 2]]) / 3;
        tris.push([S[T[t]], S[T[t + 1]], S[T[t + 2]], w / (b.scalar_max || 1)]);
      }
    });
    tris.sort(function (a, b) { return (a[0][2] + a[1][2] + a[2][2]) - (b[0][2] + b[1][2] + b[2][2]); });
    tris.forEach(function (t) {
      ctx.fillStyle = colour(t[3]); ctx.strokeStyle = "rgba(60,60,60,0.35)"; ctx.lineWidth = 0.5;
      ctx.beginPath(); ctx.moveTo(t[0][0], t[0][1]); ctx.lineTo(t[1][0], t[1][1]); ctx.lineTo(t[2][0], t[2][1]);
      ctx.closePath(); ctx.fill(); ctx.stroke();
    });
    D.bodies.forEach(function (b, j) {
      var S = screen[j], L = b.segments, V = b.vertices;
      ctx.strokeStyle = b.color; ctx.fillStyle = b.color;
      ctx.lineWidth = b.kind === "network" ? 1.2 : 2.5;
      ctx.beginPath();
      for (var s = 0; s < L.length; s += 2) {
        ctx.moveTo(S[L[s]][0], S[L[s]][1]); ctx.lineTo(S[L[s + 1]][0], S[L[s + 1]][1]);
      }
      ctx.stroke();
      var r = b.kind === "vertex" ? 5 : 3;
      V.forEach(function (v) { ctx.fillRect(S[v][0] - r, S[v][1] - r, 2 * r, 2 * r); });
    });
    triad(proj);
    frameOut.textContent = String(k);
    timeOut.textContent = "t = " + D.times[k].toPrecision(6) + " s";
    sumOut.textContent = sum.toFixed(3);
    document.body.setAttribute("data-frame", String(k));
  }

  function show(i) { k = ((i % nF) + nF) % nF; slider.value = String(k); draw(); }
  function play(on) {
    if (timer !== null) { clearInterval(timer); timer = null; }
    if (on) { timer = setInterval(function () { show(k + 1); }, 1000 / D.fps); }
    playBtn.textContent = on ? "Pause" : "Play";
  }
  function fit() {
    canvas.width = Math.max(320, Math.min(1600, window.innerWidth - 24));
    canvas.height = Math.max(240, Math.min(1000, window.innerHeight - 110));
    draw();
  }
  playBtn.addEventListener("click", function () { play(timer === null); });
  slider.addEventListener("input", function () { play(false); show(parseInt(slider.value, 10)); });
  window.addEventListener("keydown", function (ev) {
    if (ev.key === " ") { ev.preventDefault(); play(timer === null); }
  });
  var drag = null;
  canvas.addEventListener("mousedown", function (ev) { drag = [ev.clientX, ev.clientY]; });
  window.addEventListener("mouseup", function () { drag = null; });
  window.addEventListener("mousemove", function (ev) {
    if (drag === null) { return; }
    view.yaw += 0.01 * (ev.clientX - drag[0]);
    view.pitch = Math.max(-Math.PI / 2, Math.min(Math.PI / 2, view.pitch + 0.01 * (ev.clientY - drag[1])));
    drag = [ev.clientX, ev.clientY];
    draw();
  });
  canvas.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    view.zoom *= Math.exp(-0.001 * ev.deltaY);
    draw();
  }, {passive: false});
  canvas.addEventListener("dblclick", function () {
    view.yaw = home.yaw; view.pitch = home.pitch; view.zoom = 1; draw();
  });
  window.addEventListener("resize", fit);
  legend();
  fit();
  if (args.play === "1") { play(true); }
})();
"""

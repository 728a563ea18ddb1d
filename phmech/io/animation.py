"""Animations of a whole mechanism: MP4 (ffmpeg), GIF (pillow) or inline HTML in a notebook.

The pictures are those of :mod:`phmech.io.pictures` (and of the ParaView
output): rigid bodies as the segments between their ports, point masses as
markers, beams as their current axes (the deformation magnified by
``scale``), mass-spring networks as their masses joined by lines, plates as
surfaces coloured by their deflection (seen from above; from the side in
the ``"xz"`` and ``"yz"`` planes, lifted by ``scale`` times the deflection).
Spatial models are drawn in a coordinate plane (``plane="xy"``, ``"xz"``
or ``"yz"``; by default the two coordinates of largest extent over the
run).  A run is drawn in at most ``max_frames`` frames (default 100,
evenly sampled), with a progress bar while a file is written (``tqdm``,
when installed).

::

    res = system.simulate(0.1, dt=1e-4, dt_out=1e-3)
    res.animate("crank_slider.mp4")        # or .gif
    res.animate()                          # in a notebook: shown inline (HTML/JavaScript player)

Vibration modes: :func:`animate_modes` (one period of a mode of
:meth:`~phmech.system.System.linearize` ... ``eigenmodes``).
"""
import logging
import os
import shutil

import numpy as np

from .pictures import Part

log = logging.getLogger("phmech")

#: the coordinate indices of the drawing planes
PLANES = {"xy": (0, 1), "xz": (0, 2), "yz": (1, 2)}
#: frames of an animation unless told otherwise
MAX_FRAMES = 100


def _plane_axes(frames, plane):
    if plane is None:
        pts = np.vstack([p for frame in frames for p in frame])
        ext = np.ptp(pts, axis=0)
        if ext[2] == 0.0:                          # planar model
            return PLANES["xy"], "xy"
        i, j = sorted(np.argsort(ext)[-2:])
        return (i, j), "xyz"[i] + "xyz"[j]
    if plane not in PLANES:
        raise ValueError(f"animate: plane must be one of {sorted(PLANES)} or None, got {plane!r}")
    return PLANES[plane], plane


def _as_part(name, p):
    if isinstance(p, Part):
        return p
    return Part.chain(name, p)


def _progress_bar(total, enabled):
    """A ``tqdm.auto`` bar (None when disabled or tqdm is not installed)."""
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc="animate", unit="frame", leave=False)


class MechanismAnimation:
    """A matplotlib animation of the mechanism's pictures over time.

    Parameters
    ----------
    times : array
        The time of each frame [s].
    names : list of str
        The bodies.
    frames : list of list of Part or ndarray
        ``frames[k][b]``: the picture of body ``b`` in frame ``k``, a
        :class:`~phmech.io.pictures.Part` or its points ``(m, 3)`` (a poly-line).
    plane : {"xy", "xz", "yz"} or None
        The drawing plane (None: the two coordinates of largest extent).
    colors : dict, optional
        Colour of a body by name (default: matplotlib's colour cycle).
    title : str, optional
    size : (float, float)
        Figure size in inches.
    dpi : int
        Pixels per inch of the written frames.
    time_label : str
        Format of the time shown in the corner (``{t}`` is the time).
    margin : float
        Free space around the drawing, relative to its size.
    legend : bool
        Name the bodies in a legend.
    cmap : str
        Colour map of the plates' deflection.

    Notes
    -----
    The figure is made on construction; :meth:`save` writes a file, the
    HTML representation (:meth:`_repr_html_`, used by Jupyter) is
    matplotlib's JavaScript player (``to_jshtml``).  :meth:`pixel` maps
    model coordinates to pixels of the written frames.  ``artists[b]`` is
    the drawing of body ``b``: a line, the line collection of a network, or
    the coloured triangles of a plate seen from above.
    """

    def __init__(self, times, names, frames, plane=None, colors=None, title=None, size=(6.4, 4.0), dpi=100,
                 time_label="t = {t:.4f} s", margin=0.08, legend=True, cmap="RdBu_r"):
        from matplotlib.figure import Figure
        if len(frames) == 0:
            raise ValueError("animate: no frames to draw")
        self.times, self.names = np.asarray(times, float), list(names)
        self.parts = [[_as_part(n, p) for n, p in zip(self.names, frame)] for frame in frames]
        self.frames = [[p.points for p in parts] for parts in self.parts]
        (self.i, self.j), self.plane = _plane_axes(self.frames, plane)
        colors = dict(colors or {})
        unknown = sorted(set(colors) - set(self.names))
        if unknown:
            raise ValueError(f"animate: colors given for unknown bodies {unknown}; the bodies are {self.names}")
        self.dpi = int(dpi)
        self.fig = Figure(figsize=size, dpi=self.dpi)
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        FigureCanvasAgg(self.fig)
        ax = self.ax = self.fig.add_axes([0.14, 0.13, 0.82, 0.8])
        pts = np.vstack([p for frame in self.frames for p in frame])
        lo, hi = pts[:, [self.i, self.j]].min(axis=0), pts[:, [self.i, self.j]].max(axis=0)
        pad = margin * max(np.max(hi - lo), 1e-12)
        ax.set_xlim(lo[0] - pad, hi[0] + pad)
        ax.set_ylim(lo[1] - pad, hi[1] + pad)
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlabel(f"{self.plane[0]} [m]")
        ax.set_ylabel(f"{self.plane[1]} [m]")
        ax.grid(True, alpha=0.3)
        if title:
            ax.set_title(title)
        self.artists, self.nodes = [], {}
        for b, name in enumerate(self.names):
            self.artists.append(self._first(b, name, colors.get(name, f"C{b % 10}"), cmap))
        self.label = ax.text(0.02, 0.95, "", transform=ax.transAxes, va="top")
        self.time_label = time_label
        if legend and ax.get_legend_handles_labels()[0]:
            ax.legend(loc="upper right", fontsize="small")
        self._draw(0)
        self._animation = None

    @property
    def animation(self):
        """matplotlib's ``FuncAnimation`` of the frames (made on first use: the files are written
        frame by frame without it)."""
        if self._animation is None:
            from matplotlib import animation
            self._animation = animation.FuncAnimation(self.fig, self._draw, frames=len(self.frames), blit=False,
                                                      init_func=lambda: self._draw(0))
        return self._animation

    def _first(self, b, name, color, cmap):
        """The artist of body ``b`` in the first frame."""
        ax, part = self.ax, self.parts[0][b]
        p2 = part.points[:, [self.i, self.j]]
        if part.kind == "network":
            from matplotlib.collections import LineCollection
            art = LineCollection(p2[part.segments()], colors=color, linewidths=1.2, label=name)
            ax.add_collection(art)
            masses = np.concatenate([c[:, 0] for t, c in part.cells if t == "vertex"] or [np.zeros(0, int)])
            self.nodes[b] = (masses, ax.plot(p2[masses, 0], p2[masses, 1], "o", color=color, markersize=4)[0])
            return art
        if part.kind == "surface" and self.plane == "xy":
            from matplotlib.tri import Triangulation
            w = np.concatenate([parts[b].point_data["deflection"] for parts in self.parts])
            lim = max(float(np.abs(w).max()), 1e-300)
            art = ax.tripcolor(Triangulation(p2[:, 0], p2[:, 1], part.triangles()),
                               part.point_data["deflection"], shading="gouraud", cmap=cmap, vmin=-lim, vmax=lim)
            ax.set_position([0.1, 0.13, 0.62, 0.8])        # room for the colour bar on the right
            cax = self.fig.add_axes([0.78, 0.15, 0.025, 0.72])
            self.fig.colorbar(art, cax=cax, label=f"{name}: deflection w [m]")
            return art
        if part.kind == "surface":                         # side view of the lifted surface
            return ax.plot(p2[:, 0], p2[:, 1], ".", color=color, markersize=2, label=name)[0]
        style = dict(marker="s", markersize=9, linestyle="none") if len(p2) == 1 else \
            dict(marker="o", markersize=3, linewidth=2.5, markevery=[0, len(p2) - 1])
        return ax.plot(p2[:, 0], p2[:, 1], color=color, label=name, **style)[0]

    def _draw(self, k):
        for b, (art, part) in enumerate(zip(self.artists, self.parts[k])):
            p2 = part.points[:, [self.i, self.j]]
            if part.kind == "network":
                art.set_segments(p2[part.segments()])
                masses, dots = self.nodes[b]
                dots.set_data(p2[masses, 0], p2[masses, 1])
            elif part.kind == "surface" and self.plane == "xy":
                art.set_array(part.point_data["deflection"])
            else:
                art.set_data(p2[:, 0], p2[:, 1])
        self.label.set_text(self.time_label.format(t=self.times[k]))
        return self.artists + [self.label]

    def pixel(self, xyz):
        """Pixel coordinates ``(column, row)`` in the written frames of model points ``(m, 3)``
        (row 0 at the top)."""
        pts = np.atleast_2d(np.asarray(xyz, float))
        self.fig.canvas.draw()
        disp = self.ax.transData.transform(pts[:, [self.i, self.j]])
        height = self.fig.get_size_inches()[1] * self.dpi
        return np.column_stack([disp[:, 0], height - disp[:, 1]])

    def save(self, path, fps=25, bitrate=None, progress=True):
        """Write the animation: ``.mp4`` with ffmpeg (H.264), ``.gif`` with pillow; returns ``path``.

        ``progress``: show a ``tqdm.auto`` bar of the written frames (when tqdm is installed)."""
        from matplotlib import animation
        path = os.fspath(path)
        ext = os.path.splitext(path)[1].lower()
        if ext not in (".mp4", ".gif"):
            raise ValueError(f"animate: the file must end in .mp4 or .gif, got {path!r}")
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        if ext == ".mp4":
            if not animation.writers.is_available("ffmpeg"):
                raise RuntimeError(f"animate: writing {path!r} needs ffmpeg on the PATH "
                                   f"(found: {shutil.which('ffmpeg')}); write a .gif instead")
            writer = animation.FFMpegWriter(fps=fps, codec="libx264", bitrate=bitrate,
                                            extra_args=["-pix_fmt", "yuv420p"])
        else:
            writer = animation.PillowWriter(fps=fps)
        bar = _progress_bar(len(self.frames), progress)
        try:               # each frame drawn once (matplotlib's Animation.save draws every frame twice)
            with writer.saving(self.fig, path, self.dpi):
                for k in range(len(self.frames)):
                    self._draw(k)
                    writer.grab_frame()
                    if bar is not None:
                        bar.update(1)
        finally:
            if bar is not None:
                bar.close()
        log.info("animate: %d frames written to %s", len(self.frames), path)
        return path

    def to_html(self, fps=25):
        """The animation as an HTML/JavaScript player (matplotlib's ``to_jshtml``)."""
        return self.animation.to_jshtml(fps=fps)

    def _repr_html_(self):
        return self.to_html()


def _finish(anim, path, html, fps, progress=True):
    if path is not None:
        return anim.save(path, fps=fps, progress=progress)
    return anim.to_html(fps) if html else anim


def animate(result, path=None, *, every=None, max_frames=MAX_FRAMES, scale=1.0, fps=25, n_points=21, plane=None,
            colors=None, title=None, html=False, size=(6.4, 4.0), dpi=100, legend=True,
            time_label="t = {t:.4f} s", progress=True, cmap="RdBu_r"):
    """Animate a run of a mechanism.

    Parameters
    ----------
    result : :class:`phmech.result.Result`
        With its assembled system (``result.dae.system``), or a mass-spring run.
    path : str, optional
        ``.mp4`` (ffmpeg) or ``.gif`` (pillow) file to write.
    every : int, optional
        Draw every ``every``-th output row (the last one always); default all.
    max_frames : int or None
        At most this many frames, evenly sampled from those of ``every``
        (first and last kept); None: no bound.
    scale : float
        Magnification of the deformation drawn (beams' axes, plates lifted in
        a side view); the plates' colours show the true deflection.
    fps : int
        Frames per second of the file or player.
    n_points : int
        Points along each beam axis.
    plane, colors, title, size, dpi, legend, time_label, cmap
        See :class:`MechanismAnimation`.
    html : bool
        Without ``path``: return the HTML player (a string) instead of the
        :class:`MechanismAnimation` (which a notebook shows inline as well).
    progress : bool
        Show a progress bar while writing ``path`` (``tqdm.auto``, when installed).

    Returns
    -------
    str or MechanismAnimation
        ``path`` when a file was written, the HTML text with ``html=True``,
        else the animation object.
    """
    from .pictures import sampled_trajectory
    times, names, frames = sampled_trajectory(result, every, max_frames, n_points, scale, fps, "animate")
    anim = MechanismAnimation(times, names, frames, plane=plane, colors=colors, title=title, size=size, dpi=dpi,
                              legend=legend, time_label=time_label, cmap=cmap)
    return _finish(anim, path, html, fps, progress)


def animate_modes(modes, i, path=None, *, n_frames=24, scale=0.05, fps=12, n_points=21, plane=None,
                  colors=None, title=None, html=False, size=(6.4, 4.0), dpi=100):
    """Animate vibration mode ``i`` over one period (the pictures of
    :func:`phmech.io.paraview.mode_geometry`); arguments and result as :func:`animate`.

    ``scale`` is the largest displacement relative to the size of the
    mechanism; the time shown is the physical time within the period.
    """
    from .paraview import mode_geometry
    times, names, frames = mode_geometry(modes, i, n_frames, scale, n_points)
    if title is None:
        title = f"mode {i + 1}: omega = {modes.omega[i]:.4g} rad/s"
    anim = MechanismAnimation(times, names, frames, plane=plane, colors=colors, title=title, size=size, dpi=dpi,
                              time_label="t = {t:.3e} s")
    return _finish(anim, path, html, fps)

"""Animations of a whole mechanism: MP4 (ffmpeg), GIF (pillow) or inline HTML in a notebook.

The pictures are those of the ParaView output (:mod:`phmech.vtk_output`):
rigid bodies as the segments between their ports, point masses as
markers, beams as their deformed axes.  Spatial models are drawn in a
coordinate plane (``plane="xy"``, ``"xz"`` or ``"yz"``; by default the
two coordinates of largest extent over the run).

::

    res = system.simulate(0.1, dt=1e-4, dt_out=1e-3)
    res.animate("crank_slider.mp4")        # or .gif
    res.animate()                          # in a notebook: shown inline (HTML/JavaScript player)

Vibration modes: :func:`animate_modes` (one period of a mode of
:meth:`~phmech.assembly.DescriptorDAE.linearize` ... ``eigenmodes``).
"""
import logging
import os
import shutil

import numpy as np

log = logging.getLogger("phmech")

#: the coordinate indices of the drawing planes
PLANES = {"xy": (0, 1), "xz": (0, 2), "yz": (1, 2)}


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


class MechanismAnimation:
    """A matplotlib animation of the mechanism's pictures over time.

    Parameters
    ----------
    times : array
        The time of each frame [s].
    names : list of str
        The bodies.
    frames : list of list of ndarray
        ``frames[k][b]``: points ``(m, 3)`` of body ``b`` in frame ``k``.
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

    Notes
    -----
    The figure is made on construction; :meth:`save` writes a file, the
    HTML representation (:meth:`_repr_html_`, used by Jupyter) is
    matplotlib's JavaScript player (``to_jshtml``).  :meth:`pixel` maps
    model coordinates to pixels of the written frames.
    """

    def __init__(self, times, names, frames, plane=None, colors=None, title=None, size=(6.4, 4.0), dpi=100,
                 time_label="t = {t:.4f} s", margin=0.08, legend=True):
        from matplotlib import animation
        from matplotlib.figure import Figure
        if len(frames) == 0:
            raise ValueError("animate: no frames to draw")
        self.times, self.names, self.frames = np.asarray(times, float), list(names), frames
        (self.i, self.j), self.plane = _plane_axes(frames, plane)
        colors = dict(colors or {})
        unknown = sorted(set(colors) - set(self.names))
        if unknown:
            raise ValueError(f"animate: colors given for unknown bodies {unknown}; the bodies are {self.names}")
        self.dpi = int(dpi)
        self.fig = Figure(figsize=size, dpi=self.dpi)
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        FigureCanvasAgg(self.fig)
        ax = self.ax = self.fig.add_axes([0.14, 0.13, 0.82, 0.8])
        pts = np.vstack([p for frame in frames for p in frame])
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
        self.artists = []
        for b, name in enumerate(self.names):
            color = colors.get(name, f"C{b % 10}")
            first = frames[0][b]
            style = dict(marker="s", markersize=9, linestyle="none") if len(first) == 1 else \
                dict(marker="o", markersize=3, linewidth=2.5, markevery=[0, len(first) - 1])
            line, = ax.plot(first[:, self.i], first[:, self.j], color=color, label=name, **style)
            self.artists.append(line)
        self.label = ax.text(0.02, 0.95, "", transform=ax.transAxes, va="top")
        self.time_label = time_label
        if legend:
            ax.legend(loc="upper right", fontsize="small")
        self.animation = animation.FuncAnimation(self.fig, self._draw, frames=len(frames), blit=False,
                                                 init_func=lambda: self._draw(0))

    def _draw(self, k):
        for line, pts in zip(self.artists, self.frames[k]):
            line.set_data(pts[:, self.i], pts[:, self.j])
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

    def save(self, path, fps=25, bitrate=None):
        """Write the animation: ``.mp4`` with ffmpeg (H.264), ``.gif`` with pillow; returns ``path``."""
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
        self.animation.save(path, writer=writer, dpi=self.dpi)
        log.info("animate: %d frames written to %s", len(self.frames), path)
        return path

    def to_html(self, fps=25):
        """The animation as an HTML/JavaScript player (matplotlib's ``to_jshtml``)."""
        return self.animation.to_jshtml(fps=fps)

    def _repr_html_(self):
        return self.to_html()


def _finish(anim, path, html, fps):
    if path is not None:
        return anim.save(path, fps=fps)
    return anim.to_html(fps) if html else anim


def animate(result, path=None, *, every=1, fps=25, n_points=21, plane=None, colors=None, title=None,
            html=False, size=(6.4, 4.0), dpi=100, legend=True, time_label="t = {t:.4f} s"):
    """Animate a run of a mechanism.

    Parameters
    ----------
    result : :class:`phmech.result.Result`
        With its assembled system (``result.dae.system``).
    path : str, optional
        ``.mp4`` (ffmpeg) or ``.gif`` (pillow) file to write.
    every : int
        Draw every ``every``-th output row (the last one always).
    fps : int
        Frames per second of the file or player.
    n_points : int
        Points along each beam axis.
    plane, colors, title, size, dpi, legend, time_label
        See :class:`MechanismAnimation`.
    html : bool
        Without ``path``: return the HTML player (a string) instead of the
        :class:`MechanismAnimation` (which a notebook shows inline as well).

    Returns
    -------
    str or MechanismAnimation
        ``path`` when a file was written, the HTML text with ``html=True``,
        else the animation object.
    """
    from .vtk_output import trajectory_geometry
    if not (isinstance(fps, (int, np.integer)) and fps >= 1):
        raise ValueError(f"animate: fps must be a positive integer, got {fps!r}")
    times, names, frames = trajectory_geometry(result, every=every, n_points=n_points)
    anim = MechanismAnimation(times, names, frames, plane=plane, colors=colors, title=title, size=size, dpi=dpi,
                              legend=legend, time_label=time_label)
    return _finish(anim, path, html, fps)


def animate_modes(modes, i, path=None, *, n_frames=24, scale=0.05, fps=12, n_points=21, plane=None,
                  colors=None, title=None, html=False, size=(6.4, 4.0), dpi=100):
    """Animate vibration mode ``i`` over one period (the pictures of
    :func:`phmech.vtk_output.mode_geometry`); arguments and result as :func:`animate`.

    ``scale`` is the largest displacement relative to the size of the
    mechanism; the time shown is the physical time within the period.
    """
    from .vtk_output import mode_geometry
    times, names, frames = mode_geometry(modes, i, n_frames, scale, n_points)
    if title is None:
        title = f"mode {i + 1}: omega = {modes.omega[i]:.4g} rad/s"
    anim = MechanismAnimation(times, names, frames, plane=plane, colors=colors, title=title, size=size, dpi=dpi,
                              time_label="t = {t:.3e} s")
    return _finish(anim, path, html, fps)

"""Pictures of the bodies of a run: the geometry that the ParaView output, the animations and the
HTML viewer draw.

Every body draws itself (the protocol of :mod:`phmech.bodies.picture`: ``body.picture`` gives
one :class:`~phmech.bodies.picture.Part` per output time, ``body.mode_picture`` a mode shape):

* rigid bodies and point masses: the poly-line through their ports (a
  vertex for a single port);
* beams with a floating frame (planar and spatial, linear and geometrically
  consistent): a poly-line through ``n_points`` points of the current axis,
  the frame's rigid motion plus the deformation magnified by ``scale``;
* plates (:mod:`phmech.fem.plate_picture`): the triangles of the mesh in
  the plane ``z = 0`` lifted by ``scale`` times the deflection, with the
  bending moments per cell;
* mass-spring networks (:func:`phmech.massspring.network_body`, or the
  result of :meth:`~phmech.massspring.MassSpringSystem.simulate`, whose
  model draws itself whole): the masses and fixed points joined by their
  springs, dashpots and distance constraints.

With ``scale != 1`` the bodies joined to a deformed body move with its magnified deformation
(:mod:`phmech.io.attachments`), so a body at a beam's tip stays at the drawn tip; the joints'
drawn points come with the pictures (:func:`trajectory_pictures`).

Point data of a part: ``velocity`` (inertial ``[m/s]``, when the body
provides it), ``displacement`` (the deformation in inertial components,
unmagnified ``[m]``: zero for rigid bodies, the elastic displacement of a
beam's axis, ``(0, 0, w)`` on a plate, the motion since the first picture
for the nodes of a network) and, on plates, ``deflection`` ``w`` ``[m]``.
This module knows no body type.
"""
import numpy as np

from ..bodies.picture import KINDS, Part
from .attachments import follow_deformation

__all__ = ["KINDS", "Part", "frame_rows", "sampled_trajectory", "check_drawing_options", "trajectory_parts",
           "trajectory_pictures"]


def frame_rows(n_rows, every=None, max_frames=None):
    """Output rows to draw: every ``every``-th (default all), the last always; then at most
    ``max_frames`` of them, evenly sampled (first and last kept)."""
    for key, v in (("every", every), ("max_frames", max_frames)):
        if v is not None and not (isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1):
            raise ValueError(f"{key} must be a positive integer or None, got {v!r}")
    if n_rows < 1:
        raise ValueError("the result has no output rows to draw")
    rows = list(range(0, n_rows, every or 1))
    if rows[-1] != n_rows - 1:
        rows.append(n_rows - 1)
    if max_frames is not None and len(rows) > max_frames:
        pick = np.unique(np.round(np.linspace(0, len(rows) - 1, max_frames)).astype(int))
        rows = [rows[i] for i in pick]
    return rows


def sampled_trajectory(result, every, max_frames, n_points, scale, fps, caller):
    """The frames a moving picture draws: ``fps`` checked, the rows of :func:`frame_rows`
    and the pictures of :func:`trajectory_parts`, every error prefixed by ``caller``.

    Returns ``(times, names, frames)``."""
    if not (isinstance(fps, (int, np.integer)) and not isinstance(fps, bool) and fps >= 1):
        raise ValueError(f"{caller}: fps must be a positive integer, got {fps!r}")
    try:
        rows = frame_rows(len(result.t), every, max_frames)
        times, names, frames, _ = trajectory_parts(result, rows, n_points, scale)
    except ValueError as err:
        raise ValueError(f"{caller}: {err}") from None
    return times, names, frames


def check_drawing_options(n_points, scale):
    """One error for a bad number of axis points or deformation scale."""
    problems = []
    if not (isinstance(n_points, (int, np.integer)) and not isinstance(n_points, bool) and n_points >= 2):
        problems.append(f"n_points must be an integer >= 2, got {n_points!r}")
    if not (isinstance(scale, (int, float, np.integer, np.floating)) and not isinstance(scale, bool)
            and np.isfinite(scale)):
        problems.append(f"scale must be a finite number, got {scale!r}")
    if problems:
        raise ValueError("; ".join(problems))


def trajectory_parts(result, rows, n_points=21, scale=1.0):
    """The pictures of every body of ``result`` at the output ``rows``.

    Parameters
    ----------
    result : :class:`phmech.result.Result`
        A run of an assembled :class:`~phmech.System`, or of a
        :class:`~phmech.massspring.MassSpringSystem`.
    rows : list of int
        Output rows (:func:`frame_rows`).
    n_points : int
        Points along each beam axis.
    scale : float
        Magnification of the deformation (beams' axes, plates' deflection); the bodies
        joined to a deformed body follow it.

    Returns
    -------
    times : ndarray
    names : list of str
    frames : list of list of Part
        ``frames[k][b]``: body ``b`` at ``times[k]``.
    energies : ndarray (len(rows), n bodies)
        Each body's stored energy (the network's total for a mass-spring run).
    """
    times, names, frames, energies, _ = trajectory_pictures(result, rows, n_points, scale)
    return times, names, frames, energies


def trajectory_pictures(result, rows, n_points=21, scale=1.0):
    """:func:`trajectory_parts` and the joints' drawn points: ``(times, names, frames, energies,
    joints)``, ``joints`` a list of :class:`~phmech.io.attachments.JointTrack` (empty for a
    model drawn as a whole)."""
    check_drawing_options(n_points, scale)
    dae = result.dae
    t = np.asarray(result.t, float)
    rows = list(rows)
    whole = getattr(dae, "pictures", None)
    if whole is not None:                                            # a model drawn as a whole (a network)
        names, pictures, energies = whole(t, result.y, rows, n_points, scale)
        return t[rows], names, [[pic(k) for pic in pictures] for k in range(len(rows))], energies, []
    system = getattr(dae, "system", None)
    if system is None:
        raise ValueError("the result has no assembled system of bodies (load it with its model: "
                         "Result.load(path, system))")
    bodies = system.bodies
    Q = [result.y[:, dae.sq][:, dae.q_slices[b.name]] for b in bodies]
    E = [result.y[:, dae.se][:, dae.e_slices[b.name]] for b in bodies]
    pictures = [b.picture(t, qh, eh, rows, n_points=n_points, scale=scale) for b, qh, eh in zip(bodies, Q, E)]
    frames = [[pic(k) for pic in pictures] for k in range(len(rows))]
    joints = follow_deformation(system, Q, E, rows, frames, scale)
    energies = np.array([[float(b.hamiltonian(eh[i])) for b, eh in zip(bodies, E)] for i in rows])
    return t[rows], [b.name for b in bodies], frames, energies, joints

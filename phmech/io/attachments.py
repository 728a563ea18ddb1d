"""Joints in the pictures: where each joint is drawn, and bodies joined to a deformed body moved
with its magnified deformation.

A picture drawn with ``scale != 1`` magnifies the deformation of the flexible bodies (a beam's
axis, a plate's deflection); the bodies joined to them are rigid and would stay where the
unmagnified motion puts them, so the joint would look torn.  :func:`follow_deformation`
translates every body joined to a deformed body, directly or through other undeformed bodies,
by ``(scale - 1)`` times the deformation at the joint (the mean when several deformed bodies
reach it).  A body held by the ground (a joint with a single body that fixes a point:
revolute, weld, slider, spherical, ...) stays: the ground anchors it.  The bodies keep their
drawn orientation; the joint's point is where the two pictures meet again.

The port of a joint is found in its body's picture as the picture point nearest the port's
position (``body.port_position``), undeformed or deformed: rigid bodies draw their ports, beams
``n_points`` points of their axis (the ends, where joints usually sit, are among them).
This module knows no body type.
"""
import numpy as np

from ..bodies.picture import pad3

__all__ = ["JointTrack", "follow_deformation"]

#: kinds of one-body joints that fix no point of the body (drivers of its rotation)
FREE_KINDS = ("angular_velocity",)


class JointTrack:
    """A joint's drawn point over the frames.

    Attributes
    ----------
    name, kind : str
    bodies : list of str
        The bodies it joins (one: joined to the ground).
    points : ndarray, shape (n_frames, 3)
    """

    def __init__(self, name, kind, bodies, points):
        self.name, self.kind, self.bodies, self.points = name, kind, list(bodies), np.asarray(points, float)

    @property
    def grounded(self):
        return len(self.bodies) == 1


def _port_index(body, q, port, part, scale):
    """Index of the picture point of ``part`` at ``port``, and the deformation there (3,)."""
    pos = pad3(body.port_position(q, port))[0]
    disp = part.point_data.get("displacement")
    disp = np.zeros_like(part.points) if disp is None else pad3(disp)
    ref = part.points - scale * disp
    dist = np.minimum(np.linalg.norm(ref - pos, axis=1), np.linalg.norm(ref + disp - pos, axis=1))
    i = int(np.argmin(dist))
    return i, disp[i]


def follow_deformation(system, Q, E, rows, frames, scale):
    """Move the bodies joined to deformed bodies with their magnified deformation; the joints' tracks.

    Parameters
    ----------
    system : System
        The assembled model's bodies and joints (``system.bodies``, ``system.joints``).
    Q, E : list of ndarray
        Each body's configurations and efforts over the output rows.
    rows : list of int
    frames : list of list of Part
        ``frames[k][b]``: body ``b`` at ``rows[k]``, changed in place.
    scale : float
        The magnification the pictures were drawn with.

    Returns
    -------
    list of JointTrack
    """
    bodies = list(system.bodies)
    index = {id(b): i for i, b in enumerate(bodies)}
    n_frames, n_bodies = len(frames), len(bodies)
    joints = [j for j in getattr(system, "joints", ()) if all(id(p.body) in index for p in j.ports())]
    # the port of each joint end in the pictures: (body index, port) -> (point indices, deformation)
    located = {}
    for j in joints:
        for p in j.ports():
            b = index[id(p.body)]
            key = (b, p.name)
            if key not in located:
                found = [_port_index(p.body, Q[b][rows[k]], p, frames[k][b], scale) for k in range(n_frames)]
                located[key] = (np.array([f[0] for f in found]), np.array([f[1] for f in found]))
    deformed = [any(np.any(part.point_data.get("displacement", 0.0) != 0.0) for part in (f[b] for f in frames))
                for b in range(n_bodies)]
    grounded = [False] * n_bodies
    links = [[] for _ in range(n_bodies)]
    for j in joints:
        ends = [(index[id(p.body)], p.name) for p in j.ports()]
        if len({b for b, _ in ends}) == 1:
            if len(ends) == 1 and j.kind not in FREE_KINDS:
                grounded[ends[0][0]] = True
            continue
        for a, pa in ends:
            for b, pb in ends:
                if a != b:
                    links[a].append((b, (a, pa)))
    if scale != 1.0:
        _shift(frames, located, deformed, grounded, links, scale)
    tracks = []
    for j in joints:
        b, name = index[id(j.ports()[0].body)], j.ports()[0].name
        idx = located[(b, name)][0]
        pts = np.array([frames[k][b].points[idx[k]] for k in range(n_frames)])
        tracks.append(JointTrack(j.name, j.kind, [body.name for body in j.bodies()], pts))
    return tracks


def _shift(frames, located, deformed, grounded, links, scale):
    """Translate the undeformed, ungrounded bodies reached from each deformed body."""
    n_frames, n_bodies = len(frames), len(deformed)
    total = np.zeros((n_bodies, n_frames, 3))
    count = np.zeros(n_bodies)
    for d in range(n_bodies):
        if not deformed[d]:
            continue
        for r, (_, port) in links[d]:
            if deformed[r] or grounded[r]:
                continue
            offset = (scale - 1.0) * located[(d, port)][1]
            seen, todo = {d, r}, [r]
            while todo:                         # the undeformed bodies held through r
                b = todo.pop()
                total[b] += offset
                count[b] += 1
                for c, _ in links[b]:
                    if c not in seen and not deformed[c] and not grounded[c]:
                        seen.add(c)
                        todo.append(c)
    for b in np.flatnonzero(count):
        for k in range(n_frames):
            frames[k][b].points = frames[k][b].points + total[b, k] / count[b]

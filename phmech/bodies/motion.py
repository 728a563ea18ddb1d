"""Initial velocities of bodies, given as inertial vectors, and the efforts they stand for.

A body's motion is stated by two inertial vectors (components in the ground frame):

* ``velocity``: the velocity of the frame origin ``P`` (the point of ``position``; for a
  point mass, the point itself) -- 2 or 3 components;
* ``angular_velocity``: the angular velocity of the frame -- a number for planar bodies
  (about z), 3 components for spatial ones; point masses have none.

The efforts ``e`` of a floating frame are body-frame components (``e = (R^T v, omega)``
planar, ``(R^T v, R^T omega)`` spatial, ``R`` the frame's rotation at the initial
configuration); :func:`frame_efforts` converts, :func:`frame_velocity` converts back.
Flexible variables start at zero velocity.  The bodies take both as constructor
arguments (``PlanarRigidBody(..., velocity=, angular_velocity=)``, ...) and
:meth:`phmech.System.initial_state` takes them for any body with a frame
(``velocities={body: ...}``); the assembly projects them onto the joints.
"""
import numpy as np


def _kind(body):
    """``"point"``, ``"planar"`` or ``"spatial"``: how the body's frame velocities are laid out,
    or None for a body without one frame (fixed structures, networks of points)."""
    frame = np.asarray(body.frame_dofs)
    if not body.nq:
        return None
    if body.rotation_kind is None:
        return "point" if len(frame) == body.dim else None
    return {(2, 3): "planar", (3, 6): "spatial"}.get((body.dim, len(frame)))


def check_motion(body, velocity=None, angular_velocity=None):
    """The stated initial motion of ``body`` as arrays ``(v, omega)`` (None where not given).

    Raises
    ------
    ValueError
        Naming the body, the parameter and the value: a wrong number of components, a
        non-finite value, or a motion the body cannot take (an angular velocity of a point
        mass, any velocity of a body without a frame).
    """
    owner = f"body '{body.name}'"
    if velocity is None and angular_velocity is None:
        return None, None
    kind = _kind(body)
    if kind is None:
        raise ValueError(f"{owner}: velocity and angular_velocity need a body with one frame (a rigid body, a "
                         f"point mass, a floating beam); {type(body).__name__} '{body.name}' has none "
                         "(give its efforts with initial_state(e0=...))")
    v = w = None
    if velocity is not None:
        v = _vector(velocity, body.dim, "velocity", owner, f"{body.dim} inertial components [m/s]")
    if angular_velocity is not None:
        if kind == "point":
            raise ValueError(f"{owner}: a point mass has no angular velocity, got angular_velocity="
                             f"{angular_velocity!r}")
        n = 1 if kind == "planar" else 3
        w = _vector(angular_velocity, n, "angular_velocity", owner,
                    "a number [rad/s]" if n == 1 else "3 inertial components [rad/s]")
    return v, w


def _vector(value, n, what, owner, expected):
    try:
        a = np.array(value, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"{owner}: {what} must be {expected}, got {value!r}") from None
    if a.size != n or np.ndim(value) > 1 or (n > 1 and np.ndim(value) == 0):
        raise ValueError(f"{owner}: {what} must be {expected}, got {value!r}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{owner}: {what} must be finite, got {value!r}")
    return a


def frame_efforts(body, q, velocity=None, angular_velocity=None):
    """``(indices, values)``: the body's efforts (indices into its ``e``) of the inertial motion
    ``velocity`` / ``angular_velocity`` (checked by :func:`check_motion`) at its configuration ``q``.

    Only the stated parts are returned (a body given only an angular velocity keeps the
    translational efforts it has).
    """
    v, w = check_motion(body, velocity, angular_velocity)
    frame = np.asarray(body.frame_dofs)
    R = body.rotation(np.asarray(q, float))
    idx, vals = [], []
    if v is not None:
        idx.append(frame[:body.dim])
        vals.append(R.T @ v)
    if w is not None:
        idx.append(frame[body.dim:])
        vals.append(w if w.size == 1 else R.T @ w)
    if not idx:
        return np.zeros(0, int), np.zeros(0)
    return np.concatenate(idx), np.concatenate(vals)


def frame_velocity(body, q, e):
    """The inertial ``(velocity, angular_velocity)`` of the body's frame origin from its
    configuration ``q`` and efforts ``e`` (``angular_velocity`` None for a point mass; a
    number for planar bodies)."""
    kind = _kind(body)
    if kind is None:
        raise ValueError(f"body '{body.name}': {type(body).__name__} has no frame velocity")
    frame = np.asarray(body.frame_dofs)
    e = np.asarray(e, float)
    R = body.rotation(np.asarray(q, float))
    v = R @ e[frame[:body.dim]]
    if kind == "point":
        return v, None
    if kind == "planar":
        return v, float(e[frame[2]])
    return v, R @ e[frame[3:6]]

"""Rigid bodies and point masses as port-Hamiltonian subsystems."""
import numpy as np
import scipy.sparse as sp

from ..math.rotations import E3, skew
from .base import Body, FloatingFrameBody, SpatialFrameBody, planar_axis
from .frames import Points, points_qdot
from .motion import check_motion


def positive(value, what, owner, allow_zero=False):
    """``float(value)`` if it is finite and positive (or zero when allowed); else a ValueError."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{owner}: {what} must be a number, got {value!r}") from None
    if not np.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        kind = "non-negative" if allow_zero else "positive"
        raise ValueError(f"{owner}: {what} must be {kind} and finite, got {value!r}")
    return v


def rigid_frame_blocks(m, s, Iz):
    """Planar mass and gyroscopic blocks of the frame variables ``(v_P, omega)``.

    For a mass distribution with mass ``m``, first moments ``s = (s_x, s_y)``
    and polar moment ``Iz`` about the frame origin; the body-frame velocity of
    a material point at ``r`` is ``v_P + omega S r``.
    """
    sx, sy = s
    M = np.array([[m, 0.0, -sy], [0.0, m, sx], [-sy, sx, Iz]])
    K = np.array([[0.0, -m, -sx], [m, 0.0, -sy], [sx, sy, 0.0]])
    return M, K


def turning_point_velocity(body, x, axis, point):
    """Inertial velocities ``a x (x - c)`` of the points ``x`` (rows, 2 or 3 coordinates) turning
    at unit rate about ``axis`` through ``point`` (planar points: about z)."""
    x = np.asarray(x, float)
    c = np.asarray(point, float)[:x.shape[1]]
    if x.shape[1] == 2:
        a = planar_axis(body, axis)
        r = x - c
        return a * np.column_stack([-r[:, 1], r[:, 0]])
    return np.cross(np.asarray(axis, float), x - c)


def steady_inertial(body, v):
    """``v``, the inertial velocities of points turning with an assembly, if they are zero (points
    on the axis); else an error: inertial velocity components turn with the assembly, so they are
    not constant along a relative equilibrium and the body never is steady in them."""
    if np.any(np.abs(v) > 1e-12):              # unit rate: the points' distances from the axis
        raise ValueError(f"body '{body.name}' ({type(body).__name__}) keeps inertial velocity components, "
                         "which turn with the assembly off its axis: it is never steady in them (give it a "
                         "floating frame: PlanarRigidBody, SpatialRigidBody)")
    return np.asarray(v, float)


class PlanarRigidBody(FloatingFrameBody):
    """A planar rigid body in a floating frame.

    ``e = (v_P^x, v_P^y, omega)``: body-frame velocity of the frame origin P and
    angular velocity.  The pH form is ``M e' = -omega K e + B u`` with the
    rigid mass matrix ``M`` about P and the gyroscopic skew matrix ``K``.

    Parameters
    ----------
    name : str
    mass : float
        Mass [kg].
    inertia : float
        Moment of inertia about the centre of mass [kg m^2].
    center : (float, float)
        Centre of mass in the body frame [m] (default: the origin P).
    ports : dict of str -> (float, float)
        Named points in the body frame [m]; ``"P"`` (the origin) is always added.
    position, angle : initial configuration of the frame [m], [rad].
    velocity : (float, float), optional
        Initial velocity of the frame origin P, inertial components [m/s] (default: at rest).
    angular_velocity : float, optional
        Initial angular velocity [rad/s] (default 0).  Both are projected onto the joints
        at the start (:mod:`phmech.bodies.motion`).
    """

    def __init__(self, name, mass, inertia, center=(0.0, 0.0), ports=None,
                 position=(0.0, 0.0), angle=0.0, velocity=None, angular_velocity=None):
        super().__init__(name, position, angle)
        owner = f"body '{name}'"
        m = positive(mass, "mass", owner)
        Ic = positive(inertia, "inertia", owner, allow_zero=True)
        c = np.asarray(center, dtype=float)
        if c.shape != (2,) or not np.all(np.isfinite(c)):
            raise ValueError(f"{owner}: center must be 2 finite numbers, got {center!r}")
        Mrr, K = rigid_frame_blocks(m, m * c, Ic + m * c @ c)
        self.mass, self.inertia, self.center = m, Ic, c
        self.M = sp.csr_matrix(Mrr)
        self.J0 = sp.csr_matrix((3, 3))
        self.K_list = [sp.csr_matrix(K)]
        self.e_labels = ["vx", "vy", "omega"]
        for pname, r in {"P": (0.0, 0.0), **(ports or {})}.items():
            self.add_point(pname, r)
        self.initial_velocity, self.initial_angular_velocity = check_motion(self, velocity, angular_velocity)

    def add_point(self, name, r):
        """Add a port at body-frame point ``r``."""
        r = np.asarray(r, dtype=float)
        if r.shape != (2,) or not np.all(np.isfinite(r)):
            raise ValueError(f"body '{self.name}', port '{name}': position must be 2 finite numbers, got {r!r}")
        Y = np.array([[1.0, 0.0, -r[1]], [0.0, 1.0, r[0]]])
        return self.add_port(name, Y, [[0.0, 0.0, 1.0]], r)

    @classmethod
    def rod(cls, name, mass, length, **kw):
        """A slender uniform rod along the body x axis with ports ``A`` (x=0) and ``B`` (x=L)."""
        L = positive(length, "length", f"body '{name}'")
        ports = {"A": (0.0, 0.0), "B": (L, 0.0), **kw.pop("ports", {})}
        return cls(name, mass, mass * L**2 / 12.0, center=(L / 2, 0.0), ports=ports, **kw)


class PointMass(Body):
    """A point mass: ``m v' = F`` in inertial components, one port ``P``.

    Planar or spatial after the length of ``position``: ``q`` is the
    position, ``e`` the inertial velocity; ``velocity`` (inertial components
    [m/s], default at rest) is the initial one, projected onto the joints at
    the start (:mod:`phmech.bodies.motion`).
    """

    kinematics_group = Points
    #: the position's indices in the body's ``q`` and ``e`` for :func:`~phmech.bodies.frames.points_qdot`
    _POINT = np.arange(3, dtype=np.int64)

    def __init__(self, name, mass, position=(0.0, 0.0), velocity=None):
        super().__init__(name)
        owner = f"body '{name}'"
        self.mass = positive(mass, "mass", owner)
        pos = np.asarray(position, dtype=float)
        if pos.shape not in ((2,), (3,)) or not np.all(np.isfinite(pos)):
            raise ValueError(f"{owner}: position must be 2 or 3 finite numbers, got {position!r}")
        self.dim = pos.size
        self.q_labels = ["x", "y", "z"][:self.dim]
        self.q0 = pos.copy()
        self.M = sp.identity(self.dim, format="csr") * self.mass
        self.J0 = sp.csr_matrix((self.dim, self.dim))
        self.e_labels = ["vx", "vy", "vz"][:self.dim]
        self.add_port("P", np.eye(self.dim))
        self.initial_velocity, self.initial_angular_velocity = check_motion(self, velocity)

    def qdot(self, q, e):
        out = np.empty(self.dim)
        points_qdot(np.asarray(q, float), np.asarray(e, float), self._POINT[:self.dim], self._POINT[:self.dim], out)
        return out

    def qdot_jacobians(self, q, e):
        return np.zeros((self.dim, self.dim)), np.eye(self.dim)

    def retract(self, q, v):
        return np.asarray(q, float) + v[:self.dim]

    def rotation_velocity(self, q, axis, point):
        """The inertial velocity ``a x (x - c)`` (zero: a point mass is steady on the axis only)."""
        x = np.asarray(q, float)[None, :self.dim]
        return steady_inertial(self, turning_point_velocity(self, x, axis, point).ravel())


class SpatialRigidBody(SpatialFrameBody):
    """A spatial rigid body: mass, inertia tensor about the centre of mass, centre ``c``.

    Ports: ``"P"`` (the origin) and any named body-frame points.  ``velocity`` (of the
    origin P) and ``angular_velocity`` are the initial motion in inertial components
    [m/s], [rad/s] (default at rest), projected onto the joints at the start
    (:mod:`phmech.bodies.motion`).
    """

    def __init__(self, name, mass, inertia, center=(0.0, 0.0, 0.0), ports=None,
                 position=(0.0, 0.0, 0.0), orientation=(1.0, 0.0, 0.0, 0.0), velocity=None,
                 angular_velocity=None):
        super().__init__(name, position, orientation)
        owner = f"body '{name}'"
        m = positive(mass, "mass", owner)
        try:
            Ic = np.asarray(inertia, float)
        except (TypeError, ValueError):
            Ic = np.full(1, np.nan)
        if Ic.shape == (3,):
            Ic = np.diag(Ic)
        if (Ic.shape != (3, 3) or not np.all(np.isfinite(Ic)) or not np.allclose(Ic, Ic.T)
                or np.linalg.eigvalsh(Ic).min() < -1e-14 * max(np.abs(Ic).max(), 1e-300)):
            raise ValueError(f"{owner}: inertia must be a symmetric positive semi-definite 3x3 "
                             f"matrix (or its 3 principal values), got {inertia!r}")
        c = np.asarray(center, float)
        if c.shape != (3,) or not np.all(np.isfinite(c)):
            raise ValueError(f"{owner}: center must be 3 finite numbers, got {center!r}")
        # second moments int r r^T dm about the origin
        Theta = 0.5 * np.trace(Ic) * np.eye(3) - Ic + m * np.outer(c, c)
        Jp = np.trace(Theta) * np.eye(3) - Theta
        if not np.any(Jp):
            raise ValueError(f"{owner}: no rotational inertia (inertia {inertia!r} about the centre, the centre at "
                             "the frame origin): its rotation would be undetermined; give the inertia (a point "
                             "is a PointMass)")
        Sc = skew(c)
        self.M = sp.csr_matrix(np.block([[m * np.eye(3), -m * Sc], [m * Sc, Jp]]))
        self.J0 = sp.csr_matrix((6, 6))
        # K_i = int N^T S_i N dm with N = [I, -S(r)]
        Ks = []
        for Si in E3:
            quad = sum(Theta[a, b] * E3[a] @ Si @ E3[b] for a in range(3) for b in range(3))
            Ks.append(sp.csr_matrix(np.block([[m * Si, -m * Si @ Sc], [m * Sc @ Si, -quad]])))
        self.K_list = Ks
        self.mass, self.inertia, self.center = m, Ic, c
        self.e_labels = ["vx", "vy", "vz", "wx", "wy", "wz"]
        for pname, r in {"P": (0.0, 0.0, 0.0), **(ports or {})}.items():
            self.add_point(pname, r)
        self.initial_velocity, self.initial_angular_velocity = check_motion(self, velocity, angular_velocity)

    def add_point(self, name, r):
        """Add a port at body-frame point ``r``."""
        r = np.asarray(r, float)
        if r.shape != (3,) or not np.all(np.isfinite(r)):
            raise ValueError(f"body '{self.name}', port '{name}': position must be 3 finite numbers, got {r!r}")
        return self.add_port(name, np.hstack([np.eye(3), -skew(r)]),
                             np.hstack([np.zeros((3, 3)), np.eye(3)]), r)

    @classmethod
    def bar(cls, name, mass, start, end, section=None, **kw):
        """A uniform straight bar from inertial point ``start`` to ``end``, frame origin at ``start``.

        The body x axis runs along the bar; ``section = (b, h)`` gives a box
        cross-section (inertia of the box), ``None`` a slender bar with its
        mass on the axis (``I = m L^2 / 12`` about the transverse axes, no
        axial inertia).  Ports ``A`` (start) and ``B`` (end).
        """
        from ..math.rotations import quat_from_matrix
        a, b = np.asarray(start, float), np.asarray(end, float)
        L = np.linalg.norm(b - a)
        positive(L, "length", f"body '{name}'")
        ex = (b - a) / L
        helper = np.eye(3)[int(np.argmin(np.abs(ex)))]
        ey = np.cross(helper, ex)
        ey /= np.linalg.norm(ey)
        R = np.column_stack([ex, ey, np.cross(ex, ey)])
        It = mass * L**2 / 12.0
        if section is None:
            inertia = np.diag([0.0, It, It])
        else:
            sb, sh = (positive(v, "section", f"body '{name}'") for v in section)
            inertia = np.diag([mass * (sb**2 + sh**2) / 12, It + mass * sh**2 / 12, It + mass * sb**2 / 12])
        ports = {"A": (0.0, 0.0, 0.0), "B": (L, 0.0, 0.0), **kw.pop("ports", {})}
        body = cls(name, mass, inertia, center=(L / 2, 0.0, 0.0), ports=ports, position=a,
                   orientation=quat_from_matrix(R), **kw)
        body.length = L
        body.section = None if section is None else (sb, sh)
        return body

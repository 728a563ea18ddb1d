"""Rigid bodies and point masses as planar port-Hamiltonian subsystems."""
import numpy as np
import scipy.sparse as sp

from .subsystem import FloatingFrameBody, Subsystem, rigid_frame_blocks


def _positive(value, what, owner):
    value = float(value)
    if not np.isfinite(value) or value <= 0.0:
        raise ValueError(f"{owner}: {what} must be positive and finite, got {value!r}")
    return value


class PlanarRigidBody(FloatingFrameBody):
    """A planar rigid body in a floating frame.

    ``e = (v_P^x, v_P^y, omega)``: body-frame velocity of the frame origin P and
    angular velocity.  The pH form is ``M e' = -omega K e + B u`` with the
    rigid mass matrix ``M`` about P and the gyroscopic skew matrix ``K``.

    Parameters
    ----------
    name : str
        Body name (used in errors and results).
    mass : float
        Mass [kg].
    inertia : float
        Moment of inertia about the centre of mass [kg m^2].
    center : (float, float)
        Centre of mass in the body frame [m] (default: the origin P).
    ports : dict of str -> (float, float)
        Named points in the body frame [m]; ``"P"`` (the origin) is always added.
    position, angle : initial configuration of the frame [m], [rad].
    """

    def __init__(self, name, mass, inertia, center=(0.0, 0.0), ports=None,
                 position=(0.0, 0.0), angle=0.0):
        super().__init__(name, position, angle)
        m = _positive(mass, "mass", f"body '{name}'")
        Ic = float(inertia)
        if not np.isfinite(Ic) or Ic < 0:
            raise ValueError(f"body '{name}': inertia must be non-negative, got {inertia!r}")
        c = np.asarray(center, dtype=float)
        Mrr, K = rigid_frame_blocks(m, m * c, Ic + m * c @ c)
        self.mass, self.inertia, self.center = m, Ic, c
        self.M = sp.csr_matrix(Mrr)
        self.J0 = sp.csr_matrix((3, 3))
        self.K = sp.csr_matrix(K)
        self.e_labels = ["vx", "vy", "omega"]
        ports = {"P": (0.0, 0.0), **(ports or {})}
        for pname, r in ports.items():
            r = np.asarray(r, dtype=float)
            Y = np.array([[1.0, 0.0, -r[1]], [0.0, 1.0, r[0]]])
            self._add_port(pname, Y, [[0.0, 0.0, 1.0]], r)

    @classmethod
    def rod(cls, name, mass, length, **kw):
        """A slender uniform rod along the body x axis with ports ``A`` (x=0) and ``B`` (x=L)."""
        L = _positive(length, "length", f"body '{name}'")
        ports = {"A": (0.0, 0.0), "B": (L, 0.0), **kw.pop("ports", {})}
        return cls(name, mass, mass * L**2 / 12.0, center=(L / 2, 0.0), ports=ports, **kw)


class PointMass(Subsystem):
    """A point mass: ``m v' = F`` in inertial components, ``q = (x, y)``, one port ``P``."""

    def __init__(self, name, mass, position=(0.0, 0.0)):
        super().__init__(name)
        self.mass = _positive(mass, "mass", f"body '{name}'")
        self.q_labels = ["x", "y"]
        self.q0 = np.array(position, dtype=float)
        self.M = sp.identity(2, format="csr") * self.mass
        self.J0 = sp.csr_matrix((2, 2))
        self.e_labels = ["vx", "vy"]
        self._add_port("P", np.eye(2))

    def qdot(self, q, e):
        return np.array(e[:2], dtype=float)

    def qdot_jacobians(self, q, e):
        return np.zeros((2, 2)), np.eye(2)

    def port_position(self, q, port):
        return np.array(q[:2], dtype=float)

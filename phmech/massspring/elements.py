"""The elements of a mass-spring network, with the source document's constructors.

``Mass(m, pos)``, ``Fix(pos)``, ``Spring(length, stiffness, (a, b))`` (rest
length first), ``Chain(length, stiffness, (a, b))`` (tension only),
``DistanceConstraint(length, (a, b))``, and beyond the source
``Dashpot(damping, (a, b))`` (axial viscous damper) and
``Force(node, force)`` (a nodal load, constant or a function of time).

The constructors only store what they are given; every value is checked
when the network is assembled (:meth:`MassSpringSystem.check`), so that all
inconsistencies of a model are reported together in one error.
"""
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Connector:
    """Handle of a node returned by :meth:`MassSpringSystem.add`: ``kind`` is
    ``"mass"`` or ``"fix"``, ``index`` the position in ``mss.masses`` / ``mss.fixes``."""

    kind: str
    index: int

    def __repr__(self):
        return f"{self.kind}[{self.index}]"


def _stored_vector(value):
    """A float copy of a vector; anything else as given (reported by the checks)."""
    try:
        a = np.array(value, dtype=float)
    except (TypeError, ValueError):
        return value
    return a if a.ndim == 1 else value


class Mass:
    """A point mass ``m`` [kg] at ``pos`` with velocity ``vel`` (default zero).

    ``pos`` and ``vel`` are numpy arrays that :meth:`MassSpringSystem.simulate`
    updates in place, so repeated calls continue the motion.
    """

    def __init__(self, m, pos, vel=None):
        self.mass = m
        self.pos = _stored_vector(pos)
        self.vel = None if vel is None else _stored_vector(vel)

    def __repr__(self):
        return f"Mass({self.mass}, pos={np.asarray(self.pos).tolist()}, vel={np.asarray(self.vel).tolist()})"


class Fix:
    """A fixed point at ``pos``."""

    def __init__(self, pos):
        self.pos = _stored_vector(pos)

    def __repr__(self):
        return f"Fix({np.asarray(self.pos).tolist()})"


class _Pair:
    """An element between two nodes ``connectors = (a, b)`` (handles from ``add``)."""

    kind = "element"

    def __init__(self, connectors):
        self.connectors = tuple(connectors) if isinstance(connectors, (list, tuple)) else connectors


class Spring(_Pair):
    """Hookean spring of rest length ``length`` [m] and stiffness ``stiffness`` [N/m].

    The force on node ``a`` is ``k (L - L0) n`` with ``n = (x_b - x_a) / L``
    (the source's law, tension positive).
    """

    kind = "spring"
    tension_only = False

    def __init__(self, length, stiffness, connectors):
        super().__init__(connectors)
        self.length, self.stiffness = length, stiffness

    def __repr__(self):
        return f"{type(self).__name__}({self.length}, {self.stiffness}, {self.connectors})"


class Chain(Spring):
    """A tension-only spring (a rope link): force ``k max(L - L0, 0) n``.

    No force when slack; its Jacobian is exact on both sides of the kink
    ``L = L0`` (the taut branch is used for ``L > L0``, zero otherwise).
    """

    kind = "chain"
    tension_only = True


class Dashpot(_Pair):
    """Axial viscous damper ``c`` [N s/m]: force on ``a`` is ``c (n·(v_b - v_a)) n``."""

    kind = "dashpot"

    def __init__(self, damping, connectors):
        super().__init__(connectors)
        self.damping = damping

    def __repr__(self):
        return f"Dashpot({self.damping}, {self.connectors})"


class DistanceConstraint(_Pair):
    """Rigid distance ``|x_b - x_a| = length``; its multiplier is the bar's tension [N]."""

    kind = "constraint"

    def __init__(self, length, connectors):
        super().__init__(connectors)
        self.length = length

    def __repr__(self):
        return f"DistanceConstraint({self.length}, {self.connectors})"


class Force:
    """A nodal load on a mass: a constant vector or a function ``t -> vector`` [N]."""

    kind = "force"

    def __init__(self, node, force):
        self.node, self.force = node, force

    def __repr__(self):
        return f"Force({self.node}, {self.force!r})"

"""A mass-spring network as a body of the pH assembly (:class:`phmech.System`).

``network_body(mss)`` returns the masses of a network as one
:class:`~phmech.bodies.base.Body` (``q`` the positions, ``e`` the inertial
velocities, ``M`` diagonal, ``J0 = 0``, ``q' = e``) and its forces as two
loads on it, so the assembly needs no knowledge of networks:

* :class:`NetworkConservativeForce`: springs, chains and a constant gravity,
  with the potential ``V(q)`` (spring + gravity energy) and the exact
  stiffness ``df/dq`` (material and geometric);
* :class:`NetworkForce`: dashpots, nodal loads and a time-dependent
  gravity, with exact ``df/dq`` and ``df/dv`` -- their power is supplied work.

The core's energy account is then exact: ``Result.energy_balance()``
(kinetic energy against the work of all loads), and ``H + V`` against
the work of the non-conservative one.  Fixed points are part of the
network.  Distance constraints are not carried over (the core's joints
act on ports of rigid frames); a network with constraints is refused --
integrate it with :meth:`MassSpringSystem.simulate` (the second-order form).

The body form uses the assembly's per-body kinematics with dense
``dq'/de`` blocks, so it suits networks of up to a few hundred masses;
large networks run in the second-order form.
"""
import numpy as np
import scipy.sparse as sp

from ..bodies.base import Body
from ..loads import Load


class NetworkBody(Body):
    """The free masses of a network: ``M e' = f``, ``q' = e`` (inertial components)."""

    def __init__(self, name, prob, q0, v0):
        super().__init__(name)
        self.dim = prob.dim
        self.prob = prob
        nm, d = prob.net.nm, prob.dim
        ax = "xyz"[:d]
        self.q_labels = [f"mass{i}.{a}" for i in range(nm) for a in ax]
        self.e_labels = [f"mass{i}.v{a}" for i in range(nm) for a in ax]
        self.q0 = np.asarray(q0, float).copy()
        self.v0 = np.asarray(v0, float).copy()
        self.M = prob.M.tocsr()
        self.J0 = sp.csr_matrix(self.M.shape)

    @property
    def translation_dofs(self):
        return np.arange(self.dim)

    def qdot(self, q, e):
        return np.array(e, dtype=float)

    def qdot_jacobians(self, q, e):
        n = len(self.q0)
        return np.zeros((n, n)), np.eye(n)

    def retract(self, q, v):
        return np.asarray(q, float) + v


class _NetworkLoad(Load):
    inertial = False

    def __init__(self, body, name):
        self.body, self.name = body, name
        self.cols = np.arange(body.ne)
        self.prob, self.net = body.prob, body.prob.net


class NetworkConservativeForce(_NetworkLoad):
    """Springs, chains and constant gravity: ``f = -dV/dq``, with the potential ``V``.

    (A dashpot exerts no force at rest, so the network's force at zero velocity is the spring force.)"""

    def force(self, t, q, e=None):
        zero = np.zeros_like(q)
        return self.net.internal_force(q, zero) + self.prob.external_force(t) - self.prob.load_force(t)

    def force_q(self, t, q, e=None):
        return self.net.internal_jacobians(q, np.zeros_like(q))[0]

    def potential(self, q):
        E = self.prob.energies(np.r_[q, np.zeros(len(q))])
        return float(E[1] + E[2])


class NetworkForce(_NetworkLoad):
    """Dashpots, nodal loads and a time-dependent gravity (no potential: supplied work)."""

    def force(self, t, q, e=None):
        return self.net.internal_force(q, e) - self.net.internal_force(q, np.zeros_like(q)) + self.prob.load_force(t)

    def force_q(self, t, q, e=None):
        return self.net.internal_jacobians(q, e)[0] - self.net.internal_jacobians(q, np.zeros_like(q))[0]

    def force_e(self, t, q, e=None):
        return self.net.internal_jacobians(q, e)[1]


def network_body(mss, name="network"):
    """``(body, [conservative load, other load])`` of the network ``mss`` for a :class:`phmech.System`."""
    if mss.constraints:
        raise ValueError(f"network_body: the network has {len(mss.constraints)} distance constraint(s); the body "
                         "form carries masses, springs, chains, dashpots and loads only -- use mss.simulate()")
    prob = mss.problem()
    q, v = mss.state()
    body = NetworkBody(name, prob, q, v)
    return body, [NetworkConservativeForce(body, f"{name}.springs+gravity"), NetworkForce(body, f"{name}.forces")]

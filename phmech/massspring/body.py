"""A mass-spring network as a body of the pH assembly (:class:`phmech.System`).

``network_body(mss)`` returns the masses of a network as one
:class:`~phmech.bodies.base.Body` (``q`` the positions, ``e`` the inertial
velocities, ``M`` diagonal, ``J0 = 0``, ``q' = e`` evaluated with the point
masses' kinematics family) and its forces as loads on it, so the assembly
needs no knowledge of networks:

* :class:`NetworkConservativeForce`: springs, chains and a constant gravity,
  with the potential ``V(q)`` (spring + gravity energy) and the exact
  stiffness ``df/dq`` (material and geometric);
* :class:`NetworkDamperForce`: the dashpots, with exact ``df/dq`` and ``df/dv``;
* :class:`NetworkInput`: a nodal load or a time-dependent gravity, ``f = A^T u(t)``
  (the assembly's packed loads) -- their power is supplied work, as the dashpots'.

The spring and dashpot forces are the kernels of
:mod:`phmech.massspring.kernels`; both network force loads name the compiled
residual's slot ``"networks"`` and give their data (:meth:`kernel_entry`), so
a system of network bodies runs its residual compiled.  The core's energy
account is then exact: ``Result.energy_balance()`` (kinetic energy against
the work of all loads), and ``H + V`` against the work of the others.  Fixed
points are part of the network.  Distance constraints are not carried over
(the core's joints act on ports of rigid frames); a network with constraints
is refused -- integrate it with :meth:`MassSpringSystem.simulate` (the
second-order form).
"""
import numpy as np
import scipy.sparse as sp

from ..bodies.base import Body
from ..bodies.frames import Points
from ..bodies.picture import pad3
from ..bodies.rigid import steady_inertial, turning_point_velocity
from ..forces.loads import Load
from . import kernels as kn


class NetworkBody(Body):
    """The free masses of a network: ``M e' = f``, ``q' = e`` (inertial components)."""

    kinematics_group = Points

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

    def picture(self, t, Q, E, rows, n_points=21, scale=1.0):
        """A function ``k -> Part``: the network at ``rows[k]`` (:meth:`Network.part`)."""
        net = self.prob.net
        x0 = pad3(net.nodes(Q[rows[0]]))
        return lambda k: net.part(self.name, Q[rows[k]], E[rows[k]], x0)

    def qdot(self, q, e):
        return np.array(e, dtype=float)

    def rotation_velocity(self, q, axis, point):
        """Each mass' inertial velocity ``a x (x - c)`` (zero: the masses are steady on the axis only)."""
        x = np.asarray(q, float).reshape(-1, self.dim)
        return steady_inertial(self, turning_point_velocity(self, x, axis, point).ravel())

    def qdot_jacobians(self, q, e):
        n = len(self.q0)
        return np.zeros((n, n)), np.eye(n)

    def retract(self, q, v):
        return np.asarray(q, float) + v


class _NetworkLoad(Load):
    """Springs or dashpots of a network body (an :class:`~phmech.massspring.network.ElementSet`)
    and constant nodal forces ``fc``, by the kernels of :mod:`phmech.massspring.kernels`."""

    inertial = False
    #: the kernel family of the load (:func:`phmech.massspring.kernels.pack_family`)
    kernel_slot = "networks"

    def __init__(self, body, name, elements, fc=None):
        self.body, self.name = body, name
        self.cols = np.arange(body.ne)
        self.prob, self.net = body.prob, body.prob.net
        self.elements = elements
        self.fc = fc

    def force(self, t, q, e=None):
        out = np.zeros(self.body.ne) if self.fc is None else self.fc.copy()
        return self.elements.force(q, np.zeros_like(q) if e is None else e, out)

    def force_q(self, t, q, e=None):
        return self.elements.jacobians(q, np.zeros_like(q) if e is None else e)[0]

    def kernel_entry(self, qoff, eoff):
        """``(I, F, Cc, Cv)``: the elements with the body's offsets ``qoff`` in ``q`` and ``eoff``
        in ``e``, and the constant forces on the effort columns ``Cc``."""
        I = self.elements.I.copy()
        for col, off in ((kn.AQ, qoff), (kn.BQ, qoff), (kn.AE, eoff), (kn.BE, eoff)):
            I[:, col] = np.where(I[:, col] >= 0, I[:, col] + off, -1)
        if self.fc is None:
            return I, self.elements.F, np.zeros(0, np.int64), np.zeros(0)
        return I, self.elements.F, (eoff + self.cols).astype(np.int64), self.fc


class NetworkConservativeForce(_NetworkLoad):
    """Springs, chains and constant gravity: ``f = -dV/dq``, with the potential ``V``."""

    def __init__(self, body, name):
        p = body.prob
        fc = None if p.g_const is None else p.m_nodes * np.tile(p.g_const, p.net.nm)
        super().__init__(body, name, p.net.spring_elements, fc)

    def potential(self, q, e=None):
        E = self.prob.energies(np.r_[q, np.zeros(len(q))])
        return float(E[1] + E[2])


class NetworkDamperForce(_NetworkLoad):
    """The dashpots (no potential: their power is dissipated)."""

    def __init__(self, body, name):
        super().__init__(body, name, body.prob.net.dashpot_elements)

    def force_e(self, t, q, e=None):
        return self.elements.jacobians(q, e)[1]


class NetworkInput(Load):
    """A nodal load or a time-dependent gravity on a network body: ``f = A^T u(t)`` on ``cols``
    (the packed form of :class:`~phmech.forces.loads.Load`)."""

    inertial = False

    def __init__(self, body, name, cols, A, fun):
        self.body, self.name = body, name
        self.cols, self.A, self.fun = np.asarray(cols, int), np.asarray(A, float), fun


def network_body(mss, name="network"):
    """``(body, loads)`` of the network ``mss`` for a :class:`phmech.System`: the spring and
    gravity load (with a potential), then the dashpots' and the time-dependent loads (nodal
    forces, gravity given as a function of time), those present."""
    if mss.constraints:
        raise ValueError(f"network_body: the network has {len(mss.constraints)} distance constraint(s); the body "
                         "form carries masses, springs, chains, dashpots and loads only -- use mss.simulate()")
    prob = mss.problem()
    q, v = mss.state()
    body = NetworkBody(name, prob, q, v)
    d, nm = prob.dim, prob.net.nm
    loads = [NetworkConservativeForce(body, f"{name}.springs+gravity")]
    if prob.net.dashpots.m:
        loads.append(NetworkDamperForce(body, f"{name}.dashpots"))
    if prob.gravity_fun is not None:
        A = np.zeros((d, nm * d))
        for a in range(d):
            A[a, a::d] = prob.net.m
        loads.append(NetworkInput(body, f"{name}.gravity", np.arange(nm * d), A, prob.gravity_fun))
    for k, (node, fun) in enumerate(prob.loads):
        loads.append(NetworkInput(body, f"{name}.force{k}", node * d + np.arange(d), np.eye(d), fun))
    return body, loads

"""The equations of motion of a mass-spring network as a second-order problem.

``M q'' = f(t, q, v) - G(q)^T lam``, ``g(q) = 0`` with ``q`` the stacked
positions of the free masses, ``f`` the spring, chain and dashpot forces
(:mod:`phmech.massspring.network`), gravity ``m_i g(t)`` and the nodal
loads, ``g`` the distance constraints ``|x_j - x_i| - L`` and ``lam`` their
tensions.  It has the interface of
:class:`~phmech.solvers.genalpha.SecondOrderProblem` (for the
generalized-alpha method) and, through it, the first-order problem contract
of every solver of :func:`phmech.solvers.solve`.

Energy account: ``hamiltonian(y)`` is kinetic + spring energy + the gravity
potential ``-sum m_i g . x_i`` (constant gravity); ``power(t, y)`` is the
power of the nodal loads and of a time-dependent gravity minus the power
dissipated in the dashpots; the constraint forces do no work on motions
that meet ``G v = 0``.
"""
import numpy as np
import scipy.sparse as sp

from ..bodies.picture import pad3
from ..solvers.genalpha import SecondOrderProblem


class MassSpringProblem(SecondOrderProblem):
    """Second-order problem of an assembled network.

    Parameters
    ----------
    network : :class:`~phmech.massspring.network.Network`
    gravity : array (dim,) or callable ``t -> (dim,)``
    loads : list of ``(mass index, callable t -> (dim,))``
    """

    def __init__(self, network, gravity, loads=()):
        self.net = net = network
        self.dim, self.nq, self.nl = net.dim, net.nq, net.nl
        self.m_nodes = np.repeat(net.m, net.dim)
        self.M = sp.diags(self.m_nodes, format="csr")
        self.gravity_fun = gravity if callable(gravity) else None
        self.g_const = None if callable(gravity) else np.asarray(gravity, float)
        self.loads = list(loads)
        self._layout()

    # -- model ---------------------------------------------------------------
    def gravity(self, t):
        return np.asarray(self.gravity_fun(t), float) if self.gravity_fun else self.g_const

    def external_force(self, t):
        """Gravity and nodal loads at ``t`` (independent of the state; computed once when constant)."""
        if self.gravity_fun is None and not self.loads:
            if getattr(self, "_constant_force", None) is None:
                self._constant_force = (self.net.m[:, None] * self.g_const[None, :]).ravel()
            return self._constant_force
        f = (self.net.m[:, None] * self.gravity(t)[None, :]).ravel()
        for k, fun in self.loads:
            f[k * self.dim:(k + 1) * self.dim] += fun(t)
        return f

    def load_force(self, t):
        """The forces whose work is counted as supplied: nodal loads, and gravity when it varies in time."""
        f = np.zeros(self.nq)
        if self.gravity_fun is not None:
            f += (self.net.m[:, None] * self.gravity(t)[None, :]).ravel()
        for k, fun in self.loads:
            f[k * self.dim:(k + 1) * self.dim] += fun(t)
        return f

    def force(self, t, q, v):
        f = self.net.internal_force(q, v)
        f += self.external_force(t)
        return f

    def force_jacobians(self, t, q, v):
        return self.net.internal_jacobians(q, v)

    def g(self, q):
        return self.net.g(q)

    def G(self, q):
        return self.net.G(q)

    def constraint_hessian(self, q, w):
        return self.net.constraint_hessian(q, w)

    def constraint_velocity_jacobian(self, q, v):
        return self.net.constraint_velocity_jacobian(q, v)

    def constraint_curvature(self, q, v):
        return self.net.constraint_curvature(q, v)

    def labels(self):
        ax = "xyz"[:self.dim]
        return ([f"mass{i}.{a}" for i in range(self.net.nm) for a in ax]
                + [f"mass{i}.v{a}" for i in range(self.net.nm) for a in ax]
                + [f"constraint{r}.lam" for r in range(self.nl)])

    # -- energy ----------------------------------------------------------------
    def energies(self, y):
        """``(kinetic, spring, gravity)`` energies of one state or of rows of states."""
        Y = np.atleast_2d(y)
        out = np.empty((len(Y), 3))
        for k, row in enumerate(Y):
            q, v, _ = self.split(row)
            out[k, 0] = 0.5 * float(v @ (self.m_nodes * v))
            out[k, 1] = self.net.spring_energy(q)
            out[k, 2] = 0.0 if self.g_const is None else -float(self.m_nodes @ (q * np.tile(self.g_const, self.net.nm)))
        return out[0] if np.ndim(y) == 1 else out

    def pictures(self, t, Y, rows, n_points=21, scale=1.0):
        """The model drawn as a whole: ``(["network"], [k -> Part], energies (len(rows), 1))``."""
        Q, V = Y[:, self.sq], Y[:, self.se]
        x0 = pad3(self.net.nodes(Q[rows[0]]))
        part = lambda k: self.net.part("network", Q[rows[k]], V[rows[k]], x0)   # noqa: E731
        return ["network"], [part], np.array([[float(self.hamiltonian(Y[i]))] for i in rows])

    def hamiltonian(self, y):
        return self.energies(y).sum(axis=-1)

    def power(self, t, y):
        q, v, _ = self.split(y)
        return float(self.load_force(t) @ v) - self.net.dashpot_dissipation(q, v)

    @property
    def supplies_power(self):
        """Whether any power is supplied (nodal loads, time-varying gravity, dashpots): without
        one the supplied work is zero and the solvers keep no record of it."""
        return bool(self.loads) or self.gravity_fun is not None or bool(self.net.dashpots.m)

    def load_power(self, t, y):
        return float(self.load_force(t) @ self.split(y)[1])

    def dissipation(self, t, y):
        q, v, _ = self.split(y)
        return self.net.dashpot_dissipation(q, v)

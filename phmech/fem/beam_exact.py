r"""The planar geometrically exact (Simo-Reissner) beam in port-Hamiltonian form.

Kinematics
----------
The axis is at ``r(X) = (x, y)`` and each section carries a unit director
``d = (cos theta, sin theta)``, ``X`` in ``[0, L]`` the arc length of the
straight reference axis.  Rotations are finite: nothing is measured relative
to a floating frame.  The strains of Reissner's beam theory are exact,

.. math::

    \Gamma_1 = d \cdot r' - 1, \qquad \Gamma_2 = d^\perp \cdot r', \qquad
    \kappa = d \times d' \;(= \theta'),

(axial strain, shear strain and curvature, invariant under rigid motions).
The configuration holds the nodal positions and directors,
``q = (x_i, y_i, c_i, s_i)`` per node, the efforts the inertial velocities
and angular velocities ``(v_i, omega_i)`` per node and the stress
resultants ``(N, Q, M)`` (axial force, shear force, bending moment) at the
quadrature points.  The kinematic equation ``r_i' = v_i``,
``d_i' = omega_i S d_i`` is linear in ``q`` for given ``e``: the implicit
midpoint rule applies a Cayley rotation to each director and keeps
``|d_i| = 1`` exactly.

Structure
---------
The Hamiltonian is quadratic in the efforts,
``H = 1/2 int rho A |v|^2 + rho I omega^2 + N^2 / EA + Q^2 / (k G A) + M^2 / EI``,
and the strains, interpolated from the nodal values, are quadratic in ``q``.
Their rates are ``(Gamma_1, Gamma_2, kappa)' = B(q) e_v``; the effort
equations are

.. math::

    M_v \dot e_v = -\sum_g w_g B_g(q)^T \sigma_g + B u, \qquad
    C_g \dot\sigma_g = w_g B_g(q) e_v,

a skew interconnection (``e . f = 0`` for every state).  So the implicit
midpoint rule has an exact discrete power balance, the constitutive
relation ``C_g sigma_g = w_g Gamma(q)_g`` is an exact invariant of it (the
strains are quadratic), and the angular momentum of a free beam, a
quadratic invariant by the objectivity of the strains, is conserved
exactly.

Discretization
--------------
Continuous Lagrange elements of degree ``p`` (``degree``) for the position,
the director and the velocities; the stresses are discontinuous of degree
``p - 1``, represented by their values at the ``p`` Gauss points of each
element with the diagonal compliance ``w_g / EA`` etc. (the mixed form
with the stresses in ``DG(p - 1)``): the classical reduced integration,
free of shear and membrane locking.  The director is interpolated
componentwise (it is unit at the nodes only); the error this adds to the
strains is of the order of the interpolation error and converges away.
Firedrake assembles the mass matrix of the velocity space and the values
and derivatives of the shape functions at the quadrature points, once
(:class:`~phmech.fem.beam_nodal.ExactBeamFE`).  The state-dependent terms are the kernels of
:mod:`phmech.fem.beam_exact_kernels`.

Ports ``A`` (``X = 0``) and ``B`` (``X = L``) are the end nodes: their
velocity and angular-velocity rows are exact for any deformation (they
select the node's efforts), and their angle is the director's.

The shear-rigid limit (Kirchhoff's elastica) is reached with a large
shear stiffness; the static reference solution of :mod:`phmech.validation._elastica`
gives both.
"""
import math

import numpy as np

from ..bodies.base import Body, _finite_array, planar_axis
from . import beam_exact_kernels as _kernels
from .beam_common import _check_positive, check_n_elem
from .beam_nodal import NodalBeam

__all__ = ["GeometricallyExactBeam"]

class GeometricallyExactBeam(NodalBeam):
    """A planar geometrically exact (Simo-Reissner) beam: large displacements and rotations,
    exact strains, shear-deformable (see the module docstring).

    ``q = (x_i, y_i, cos theta_i, sin theta_i)`` per node, ``e = (v_x, v_y, omega)`` per node
    (inertial) followed by ``(N, Q, M)`` per quadrature point.

    Parameters
    ----------
    name : str
    L : float
        Length [m] of the straight reference axis.
    n_elem : int
        Number of elements.
    rho, A, E, I : float
        Density [kg/m^3], area [m^2], Young's modulus [Pa], second moment of area [m^4].
    G : float, optional
        Shear modulus [Pa] (default ``E / 2.6``, Poisson's ratio 0.3).
    shear_factor : float
        Shear correction ``k`` of the shear stiffness ``k G A`` (default 5/6, a rectangle).
    degree : int
        Polynomial degree ``p`` of the elements (1 to 4; default 2).
    position, angle : the root ``X = 0`` and the direction of the straight initial axis.
    dim : 2 (this beam) or 3: the spatial beam
        (:class:`~phmech.fem.beam_exact3d.GeometricallyExactBeam3D`, whose parameters
        ``Iz``, ``Jt`` and ``orientation`` take the place of ``angle``).

    Attributes
    ----------
    EA, GA, EI : axial, shear (``k G A``) and bending stiffness.
    n_nodes : number of nodes.
    velocity_dofs, stress_dofs : local indices in ``e`` of the nodal velocities and of the stresses.
    """

    dim = 2
    QN, EN = 4, 3
    #: the family's kernels (:mod:`phmech.fem.beam_exact_kernels`)
    _kernels = _kernels
    #: the kernel family evaluating the beams' kinematics and effort terms
    kernel_slot = "planar_exact_beams"

    def __new__(cls, *args, dim=2, **options):
        if dim == 3:                # the spatial beam (its own class)
            from .beam_exact3d import GeometricallyExactBeam3D
            return GeometricallyExactBeam3D(*args, **options)
        if dim != 2:
            raise ValueError(f"GeometricallyExactBeam: dim must be 2 or 3, got {dim!r}")
        return super().__new__(cls)

    def __init__(self, name, L, n_elem, rho, A, E, I, G=None, shear_factor=5.0 / 6.0, degree=2,
                 position=(0.0, 0.0), angle=0.0, dim=2):
        Body.__init__(self, name)
        n_elem = check_n_elem(name, n_elem)
        G = E / 2.6 if G is None else G
        _check_positive(name, L=L, rho=rho, A=A, E=E, I=I, G=G, shear_factor=shear_factor)
        self._check_degree(name, degree)
        owner = f"beam '{name}'"
        root = _finite_array(position, (2,), "position", owner)
        angle = float(_finite_array(angle, (), "angle", owner))
        self.rho, self.A, self.E_mod, self.I, self.G_mod, self.shear_factor = rho, A, E, I, G, shear_factor
        self.rhoA, self.rhoI = rho * A, rho * I
        self.EA, self.GA, self.EI = E * A, shear_factor * G * A, E * I
        #: the stiffnesses of ``(Gamma_1, Gamma_2, kappa)``
        self.stiffness = np.array([self.EA, self.GA, self.EI])
        fe = self._set_up_nodes(L, n_elem, degree, [self.rhoA, self.rhoA, self.rhoI])
        nn, ng = len(fe.X), len(fe.W)
        t = np.array([math.cos(angle), math.sin(angle)])
        q0 = np.zeros((nn, 4))
        q0[:, :2] = root + fe.X[:, None] * t
        q0[:, 2:] = t
        self.q0 = q0.ravel()
        self.q_labels = [f"{c}{i}" for i in range(nn) for c in ("x", "y", "c", "s")]
        self.e_labels = ([f"{c}{i}" for i in range(nn) for c in ("vx", "vy", "omega")]
                         + [f"{c}{g}" for g in range(ng) for c in ("N", "Q", "M")])

    # -- configuration -------------------------------------------------------
    def nodes(self, q):
        """``(positions (nn, 2), directors (nn, 2))`` of the configuration ``q``."""
        Q = np.asarray(q, float).reshape(self.n_nodes, 4)
        return Q[:, :2], Q[:, 2:]

    def port_angle(self, q, port):
        """The angle of the port node's director (in ``(-pi, pi]``)."""
        i = self._port_node[port.name]
        return math.atan2(q[4 * i + 3], q[4 * i + 2])

    def retract(self, q, v):
        """Each node moved by its velocity and its director turned by its angular velocity over unit time."""
        out = np.array(q, float).reshape(self.n_nodes, 4)
        v = np.asarray(v, float).reshape(self.n_nodes, 3)
        out[:, :2] += v[:, :2]
        c, s = np.cos(v[:, 2]), np.sin(v[:, 2])
        d = out[:, 2:].copy()
        out[:, 2], out[:, 3] = c * d[:, 0] - s * d[:, 1], s * d[:, 0] + c * d[:, 1]
        return out.ravel()

    def rotation_velocity(self, q, axis, point):
        """The nodal velocities of the beam turning rigidly at unit rate about the inertial z axis through ``point``."""
        a = planar_axis(self, axis)
        r = self.nodes(q)[0] - np.asarray(point, float)[:2]
        return (a * np.column_stack([-r[:, 1], r[:, 0], np.ones(self.n_nodes)])).ravel()

    # -- momenta -------------------------------------------------------------------
    def angular_momentum(self, q, e):
        """``int rho A r x v + rho I omega`` about the inertial origin (z component)."""
        r = self.nodes(q)[0]
        E = np.asarray(e, float)[self.velocity_dofs].reshape(self.n_nodes, 3)
        Mv = self.fe.Mv
        return float(self.rhoA * (r[:, 0] @ (Mv @ E[:, 1]) - r[:, 1] @ (Mv @ E[:, 0]))
                     + self.rhoI * np.sum(Mv @ E[:, 2]))

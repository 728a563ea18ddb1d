r"""The spatial geometrically exact (Simo-Reissner) beam in port-Hamiltonian form.

The spatial counterpart of :mod:`phmech.fem.beam_exact`: each node carries its
position ``r_a`` and the rotation ``R_a = (d_a1, d_a2, d_a3)`` of its section
(``d_1`` along the axis, ``d_2``, ``d_3`` the principal axes of the section), 12
numbers; its efforts are the inertial velocity ``v_a`` and the angular velocity
``omega_a`` in the section's axes (material).  With the interpolated ``r``, ``d_i``
the strains

.. math::

    \Gamma_i = d_i \cdot r' - \delta_{i1} \quad\text{(axial and the two shear strains)}, \qquad
    \kappa_m = \tfrac12 \epsilon_{mnp}\, d_p \cdot d_n' \quad\text{(twist and the two curvatures)}

are exact for the rotations of the nodes (``R^T R' = [\kappa]_\times``), invariant under rigid
motions and quadratic in ``q``.  The kinematics ``r_a' = v_a``, ``R_a' = R_a [omega_a]_x`` is
linear in ``q`` for given efforts: the implicit midpoint rule turns each ``R_a`` by a Cayley
rotation and keeps it a rotation exactly.  The Hamiltonian is

.. math::

    H = \tfrac12 \int \rho A |v|^2 + \omega \cdot J \omega
        + \frac{N^2}{EA} + \frac{Q_2^2 + Q_3^2}{k G A} + \frac{T^2}{G J_t}
        + \frac{M_2^2}{E I_y} + \frac{M_3^2}{E I_z},

``J = rho diag(I_y + I_z, I_y, I_z)``, with a constant mass matrix: the stresses
``(N, Q_2, Q_3, T, M_2, M_3)`` are efforts at the Gauss points, and the velocity and
stress rows are coupled by the skew strain-rate operator ``[[0, -B^T], [B, 0]](q)``
(:mod:`phmech.fem.beam_exact3d_kernels`).  The material angular velocities add the
gyroscopic terms ``-omega_a x pi_a`` (``pi_a``: the node's angular momentum in its
axes), also power-free.  So the midpoint rule has an exact discrete power balance and the
constitutive relation is an exact invariant of it.  The angular momentum of a free beam
(:meth:`GeometricallyExactBeam3D.angular_momentum`) is conserved by the flow; the midpoint
rule keeps it to its second order only (unlike the planar beam, where it is exact): the
material angular velocities generate a rigid rotation of the nodes only where the ``R_a``
are rotations, and the midpoint of two rotations is not one.
Elements, quadrature and stresses as in the planar beam (Lagrange elements of degree
``p`` for the kinematic fields, the stresses at the ``p`` Gauss points: locking-free).

Ports ``A`` and ``B`` are the end nodes: their velocity rows are the nodes' inertial
velocities, their rotation rows the nodes' angular velocities in the section's axes,
and a port's frame is its node's section (:meth:`~phmech.fem.beam_nodal.NodalBeam.port_frame`:
the node's position and the nine entries of its rotation, read by the joints' and
loads' kernels, whose rows and derivatives are then exact at any deformation).  So a
port takes every spatial joint, to the ground or to another body's port, its
position residual the exact integral of its velocity rows; a force or a moment in
inertial components or in the section's axes (``frame="body"``, a follower load).  An angle driver at a port is refused (the
section's quaternion has no continuous sign here): a rate driver works.
"""
import numpy as np

from ..bodies.base import Body, _finite_array
from ..math.rotations import RotationMatrix, UnitQuaternion
from . import beam_exact3d_kernels as _kernels
from .beam_common import _check_positive, check_n_elem
from .beam_nodal import NodalBeam

__all__ = ["GeometricallyExactBeam3D"]


def _rotate(R, phi):
    """``R expm([phi]_x)`` (Rodrigues)."""
    t = float(np.linalg.norm(phi))
    K = np.array([[0.0, -phi[2], phi[1]], [phi[2], 0.0, -phi[0]], [-phi[1], phi[0], 0.0]])
    if t < 1e-12:
        return R @ (np.eye(3) + K)
    return R @ (np.eye(3) + np.sin(t) / t * K + (1.0 - np.cos(t)) / t ** 2 * (K @ K))


class GeometricallyExactBeam3D(NodalBeam):
    """A spatial geometrically exact (Simo-Reissner) beam: large displacements and rotations,
    exact strains, bending in both planes, torsion and shear (see the module docstring).

    ``q = (r_a, d_a1, d_a2, d_a3)`` per node (12 numbers), ``e = (v_a, omega_a)`` per node
    followed by ``(N, Q_2, Q_3, T, M_2, M_3)`` per quadrature point.

    Parameters
    ----------
    name : str
    L, n_elem : length [m] of the straight reference axis and number of elements.
    rho, A, E : density [kg/m^3], area [m^2], Young's modulus [Pa].
    I, Iz : second moments of area [m^4] about the section's axes ``d_2`` and ``d_3``
        (``Iz`` default ``I``).
    G : shear modulus [Pa] (default ``E / 2.6``).
    Jt : torsion constant [m^4] (default ``Iy + Iz``, a circular section).
    shear_factor : ``k`` of the shear stiffness ``k G A`` (default 5/6).
    degree : polynomial degree of the elements (1 to 4; default 2).
    position : the root ``X = 0``.
    orientation : unit quaternion ``(w, x, y, z)`` of the sections of the straight initial
        beam: its axis is ``R e_1`` (default: along ``x``, the section axes along ``y``, ``z``).
    """

    dim = 3
    QN, EN = 12, 6
    #: the sections' rotations in ``q`` (:meth:`~phmech.fem.beam_nodal.NodalBeam.port_frame`)
    section_rotation = RotationMatrix
    #: the family's kernels (:mod:`phmech.fem.beam_exact3d_kernels`)
    _kernels = _kernels
    #: the kernel family evaluating the beams' kinematics and effort terms
    kernel_slot = "spatial_exact_beams"

    def __init__(self, name, L, n_elem, rho, A, E, I, Iz=None, G=None, Jt=None, shear_factor=5.0 / 6.0,
                 degree=2, position=(0.0, 0.0, 0.0), orientation=(1.0, 0.0, 0.0, 0.0)):
        Body.__init__(self, name)
        Iy = I
        n_elem = check_n_elem(name, n_elem, fields=8)
        Iz = Iy if Iz is None else Iz
        G = E / 2.6 if G is None else G
        Jt = Iy + Iz if Jt is None else Jt
        _check_positive(name, L=L, rho=rho, A=A, E=E, I=Iy, Iz=Iz, G=G, Jt=Jt, shear_factor=shear_factor)
        self._check_degree(name, degree)
        owner = f"beam '{name}'"
        root = _finite_array(position, (3,), "position", owner)
        p = _finite_array(orientation, (4,), "orientation", owner)
        if abs(np.linalg.norm(p) - 1.0) > 1e-10:
            raise ValueError(f"beam '{name}': orientation must be a unit quaternion, got {orientation!r} "
                             f"(norm {np.linalg.norm(p):.6g})")
        R0 = UnitQuaternion.matrix(p)
        self.rho, self.A, self.E_mod, self.Iy, self.Iz, self.G_mod, self.Jt = rho, A, E, Iy, Iz, G, Jt
        self.shear_factor = shear_factor
        self.rhoA = rho * A
        #: the sections' inertia per length in their axes, ``rho (Iy + Iz, Iy, Iz)``
        self.section_inertia = rho * np.array([Iy + Iz, Iy, Iz])
        GA = shear_factor * G * A
        #: the stiffnesses of ``(Gamma_1, Gamma_2, Gamma_3, kappa_1, kappa_2, kappa_3)``
        self.stiffness = np.array([E * A, GA, GA, G * Jt, E * Iy, E * Iz])
        self.EA, self.GA = E * A, GA
        fe = self._set_up_nodes(L, n_elem, degree, np.r_[np.full(3, self.rhoA), self.section_inertia])
        nn, ng = len(fe.X), len(fe.W)
        q0 = np.zeros((nn, 12))
        q0[:, :3] = root + fe.X[:, None] * R0[:, 0]
        q0[:, 3:] = R0.T.ravel()                      # d_1, d_2, d_3: the columns of R0
        self.q0 = q0.ravel()
        self.q_labels = [f"{c}{i}" for i in range(nn) for c in
                         ("x", "y", "z", *(f"d{k}{a}" for k in (1, 2, 3) for a in "xyz"))]
        self.e_labels = ([f"{c}{i}" for i in range(nn) for c in ("vx", "vy", "vz", "omega1", "omega2", "omega3")]
                         + [f"{c}{g}" for g in range(ng) for c in ("N", "Q2", "Q3", "T", "M2", "M3")])

    # -- what the ports carry ----------------------------------------------------
    # -- configuration -------------------------------------------------------
    def nodes(self, q):
        """``(positions (nn, 3), rotations (nn, 3, 3))`` of the configuration ``q``."""
        Q = np.asarray(q, float).reshape(self.n_nodes, 12)
        return Q[:, :3], np.transpose(Q[:, 3:].reshape(-1, 3, 3), (0, 2, 1))

    def port_rotation(self, q, port):
        """The rotation ``R`` of the port node's section."""
        i = self._port_node[port.name]
        return RotationMatrix.matrix(q[12 * i + 3:12 * i + 12])

    def retract(self, q, v):
        """Each node moved by its velocity and its section turned by ``expm([omega])`` over unit time."""
        out = np.array(q, float).reshape(self.n_nodes, 12)
        v = np.asarray(v, float).reshape(self.n_nodes, 6)
        out[:, :3] += v[:, :3]
        for a in range(self.n_nodes):
            out[a, 3:] = _rotate(out[a, 3:].reshape(3, 3).T, v[a, 3:]).T.ravel()
        return out.ravel()

    def rotation_velocity(self, q, axis, point):
        """The nodal velocities of the beam turning rigidly at unit rate about the inertial ``axis``
        through ``point``."""
        a = np.asarray(axis, float)
        r, R = self.nodes(q)
        v = np.cross(a, r - np.asarray(point, float))
        return np.column_stack([v, np.einsum("aji,j->ai", R, a)]).ravel()

    # -- momenta -------------------------------------------------------------------
    def angular_momentum(self, q, e):
        """``int rho A r x v + sum_a R_a pi_a`` about the inertial origin (``pi_a``: the nodes'
        angular momenta in their axes), the quadratic invariant of a free beam."""
        r, R = self.nodes(q)
        E = np.asarray(e, float)[self.velocity_dofs].reshape(self.n_nodes, 6)
        Mv = self.fe.Mv
        lin = self.rhoA * np.cross(r, Mv @ E[:, :3]).sum(axis=0)
        pi = (Mv @ E[:, 3:]) * self.section_inertia
        return lin + np.einsum("aij,aj->i", R, pi)

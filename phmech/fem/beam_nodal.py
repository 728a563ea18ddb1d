"""What the geometrically exact beams share: the shape-function tables of their elements and the
nodal layout (:class:`NodalBeam`) of :mod:`phmech.fem.beam_exact` and :mod:`phmech.fem.beam_exact3d`."""
import numpy as np
import scipy.sparse as sp

from ..bodies.base import Body
from ..bodies.picture import Part, pad3, round_section
from ..forces.loads_kernels import FOLLOWER_DIRECTOR, FOLLOWER_SECTION
from ._petsc import to_numpy, to_scipy
from .beam_operators import KernelBeam
from .cache import CachedFE

__all__ = ["ExactBeamFE", "NodalBeam", "MAX_DEGREE"]

#: the highest polynomial degree of the elements
MAX_DEGREE = 4


class ExactBeamFE(CachedFE):
    """Shape-function tables of Lagrange elements of ``degree`` on ``[0, L]`` (nodes sorted along ``X``).

    Attributes
    ----------
    X : (nn,) nodal coordinates, increasing
    Mv : CSR (nn, nn): the mass matrix ``int N_i N_j dX``
    Xg, W : (ng,) quadrature points (``degree`` Gauss points per element, increasing) and weights
    conn : (ng, degree + 1) the nodes of each quadrature point's element
    Nt, Dt : (ng, degree + 1) values and ``X``-derivatives of those nodes' shape functions there
    """

    KIND = "ExactBeamFE"
    CACHED = ("X", "Mv", "Xg", "W", "conn", "Nt", "Dt")
    FIREDRAKE_ATTRIBUTES = ("mesh", "V")

    def __init__(self, L, n_elem, degree):
        self.L, self.n_elem, self.degree = L, n_elem, degree
        self._load_or_assemble([float(L), int(n_elem), int(degree)])

    def _setup_firedrake(self):
        if self._fd is not None:
            return
        import firedrake as fd

        self._fd = fd
        self.mesh = fd.IntervalMesh(self.n_elem, self.L)
        self.V = fd.FunctionSpace(self.mesh, "CG", self.degree)

    def _assemble(self):
        import finat.ufl

        self._setup_firedrake()
        fd, mesh, V, p = self._fd, self.mesh, self.V, self.degree
        u, v = fd.TrialFunction(V), fd.TestFunction(V)
        X = fd.Function(V).interpolate(fd.SpatialCoordinate(mesh)[0]).dat.data_ro.copy()
        order = np.argsort(X, kind="stable")
        node = np.empty_like(order)
        node[order] = np.arange(order.size)            # Firedrake's dof -> node number along X
        Mv = to_scipy(fd.assemble(u * v * fd.dx, mat_type="aij"))[order][:, order].tocsr()
        # p Gauss points per cell: the default scheme exact for degree 2p - 1
        Qe = finat.ufl.FiniteElement("Quadrature", mesh.ufl_cell(), degree=2 * p - 1, quad_scheme="default")
        Q = fd.FunctionSpace(mesh, Qe)
        qdx = fd.dx(metadata={"quadrature_degree": 2 * p - 1})
        W = to_numpy(fd.assemble(fd.TestFunction(Q) * qdx))
        Xg = fd.Function(Q).interpolate(fd.SpatialCoordinate(mesh)[0]).dat.data_ro.copy()
        Nq = to_scipy(fd.assemble(fd.interpolate(u, Q))).tocsr()
        Dq = to_scipy(fd.assemble(fd.interpolate(u.dx(0), Q))).tocsr()
        cells_v, cells_q = V.cell_node_map().values, Q.cell_node_map().values
        ng = Q.dim()
        conn = np.zeros((ng, p + 1), np.int64)
        Nt, Dt = np.zeros((ng, p + 1)), np.zeros((ng, p + 1))
        for cv, cq in zip(cells_v, cells_q):
            for g in cq:
                conn[g] = node[cv]
                Nt[g] = Nq[g, cv].toarray().ravel()
                Dt[g] = Dq[g, cv].toarray().ravel()
        og = np.argsort(Xg, kind="stable")
        return {"X": X[order], "Mv": Mv, "Xg": Xg[og], "W": W[og], "conn": conn[og], "Nt": Nt[og], "Dt": Dt[og]}


class NodalBeam(KernelBeam, Body):
    """What the geometrically exact beams share: nodes that carry the configuration (the position
    first, ``QN`` numbers per node) and the velocities (the translation first, ``EN`` per node),
    stresses at the quadrature points (``EN`` per point, of stiffnesses ``stiffness``) and ports at
    the end nodes (``_port_node``).  The planar and the spatial beam set these and their kernels."""

    rotation_kind = None
    kinematics_group = None
    omega_indices = ()
    has_effort_terms = True
    #: numbers of ``q`` and of ``e`` per node (set by the beams)
    QN = EN = None

    @staticmethod
    def _check_degree(name, degree):
        if isinstance(degree, bool) or not isinstance(degree, (int, np.integer)) or not 1 <= degree <= MAX_DEGREE:
            raise ValueError(f"beam '{name}': degree must be an integer from 1 to {MAX_DEGREE}, got {degree!r}")

    def _set_up_nodes(self, L, n_elem, degree, inertia):
        """The element tables, the layout of ``e`` (``EN`` velocities per node, then ``EN`` stresses per
        quadrature point), ``M`` (the nodes' ``inertia`` per length, the compliances ``w / stiffness``),
        a zero ``J0`` and the ports ``A`` and ``B`` at the end nodes; returns the element tables."""
        self.L, self.n_elem, self.degree = float(L), n_elem, int(degree)
        fe = self.fe = ExactBeamFE(self.L, n_elem, self.degree)
        nn, ng, EN, dim = len(fe.X), len(fe.W), self.EN, self.dim
        self.n_nodes = nn
        self.velocity_dofs = np.arange(EN * nn)
        self.stress_dofs = EN * nn + np.arange(EN * ng)
        self.M = sp.block_diag([sp.kron(fe.Mv, sp.diags(inertia)),
                                sp.diags(np.repeat(fe.W, EN) / np.tile(self.stiffness, ng))], format="csr")
        self.J0 = sp.csr_matrix((self.ne, self.ne))
        self.mass = self.rhoA * self.L
        self._node_mass = self.rhoA * np.asarray(fe.Mv @ np.ones(nn)).ravel()
        self._port_node = {}
        for pname, i in (("A", 0), ("B", nn - 1)):
            Y, W = np.zeros((dim, self.ne)), np.zeros((EN - dim, self.ne))
            Y[:, EN * i:EN * i + dim] = np.eye(dim)
            W[:, EN * i + dim:EN * (i + 1)] = np.eye(EN - dim)
            self.add_port(pname, Y, W, np.r_[fe.X[i], np.zeros(dim - 1)])
            self._port_node[pname] = i
        return fe

    @property
    def frame_dofs(self):
        """The nodal velocities: every node moves rigidly (:meth:`retract`); the stresses follow."""
        return self.velocity_dofs

    @property
    def flexible_velocity_dofs(self):
        """None beyond :attr:`frame_dofs` (the deformation is the nodes' configuration)."""
        return np.zeros(0, int)

    @property
    def displacement_dofs(self):
        return np.zeros(0, int)

    def _positions(self, q):
        return np.asarray(q, float).reshape(self.n_nodes, self.QN)[:, :self.dim]

    def position(self, q):
        """The root node ``X = 0``."""
        return np.asarray(q[:self.dim], float)

    #: the kind of the sections' rotations in ``q`` after each node's position (None: the planar
    #: beam's director, which no spatial kernel reads)
    section_rotation = None
    #: the ports' velocity rows are the nodes' inertial velocities (their rotation rows are in the
    #: sections' axes, :meth:`port_frame`)
    port_velocity = "inertial"

    def follower_frame(self, port):
        """``(code, index in q)`` of the port node's section for a load given in its axes (a follower
        load, :mod:`phmech.forces.loads_kernels`): the nine entries of a spatial section, the
        director ``(cos, sin)`` of a planar one."""
        i = self._port_node[port.name]
        return (FOLLOWER_SECTION if self.dim == 3 else FOLLOWER_DIRECTOR), self.QN * i + self.dim

    def port_frame(self, port):
        """The port node's position and, spatial, its section's rotation (nine entries) in ``q``; no
        offset: the port is the node."""
        i = self._port_node[port.name]
        kind = self.section_rotation
        return self.QN * i, kind, self.QN * i + self.dim if kind is not None else -1, np.zeros(self.dim)

    def port_position(self, q, port):
        i = self._port_node[port.name]
        return np.asarray(q[self.QN * i:self.QN * i + self.dim], float)

    def steady_effort_rate(self, axis):
        """``C`` (sparse, ``ne x ne``) with ``e' = C e`` along a rigid rotation at unit rate about the
        inertial ``axis``: the nodes' inertial velocities turn with it (``v' = a x v``), their angular
        velocities (in the sections' axes) and the stresses stay (the balance of a relative
        equilibrium, :func:`~phmech.solvers.static.relative_equilibrium`)."""
        a = np.asarray(axis, float)
        if self.dim == 2:
            turn = a[2] * np.array([[0.0, -1.0], [1.0, 0.0]])
        else:
            turn = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
        node = np.zeros((self.EN, self.EN))
        node[:self.dim, :self.dim] = turn
        return sp.block_diag([sp.kron(sp.identity(self.n_nodes), node),
                              sp.csr_matrix((len(self.stress_dofs), len(self.stress_dofs)))], format="csr")

    def rigid_motion_map(self, q):
        """``(ne, len(frame_dofs))``: efforts of the nodal velocities (the stresses at rest)."""
        B = np.zeros((self.ne, len(self.velocity_dofs)))
        B[self.velocity_dofs, np.arange(len(self.velocity_dofs))] = 1.0
        return B

    def strains(self, q):
        """``(ng, EN)``: the strains at the quadrature points :attr:`fe.Xg <ExactBeamFE.Xg>` (the
        axial and shear strains, then the curvatures)."""
        out = np.empty((len(self.fe.W), self.EN))
        self._kernels.strains(np.asarray(q, float), self._own_data(), 0, out)
        return out

    def stresses_of(self, q):
        """The stresses of the constitutive relation at ``q`` (the strains times :attr:`stiffness`)
        as an effort vector with zero velocities."""
        e = np.zeros(self.ne)
        e[self.stress_dofs] = (self.strains(q) * self.stiffness).ravel()
        return e

    def momentum_rows(self):
        """``(dim, ne)``: the linear momentum ``int rho A v`` from the efforts (gravity's rows)."""
        rows = np.zeros((self.dim, self.ne))
        for c in range(self.dim):
            rows[c, c:self.EN * self.n_nodes:self.EN] = self._node_mass
        return rows

    def first_moment(self):
        """``(s0, rows, "q")``: the first moment of mass ``int rho A r = rows @ q`` (inertial)."""
        rows = np.zeros((self.dim, self.nq))
        for c in range(self.dim):
            rows[c, c::self.QN] = self._node_mass
        return np.zeros(self.dim), rows, "q"

    def deformed_axis(self, q, u=None, n_points=None):
        """The nodes ``(nn, dim)`` of ``q``, displaced by the velocities of ``u`` (a mode) if given."""
        r = self._positions(q).copy()
        if u is not None:
            r += np.asarray(u, float)[self.velocity_dofs].reshape(self.n_nodes, self.EN)[:, :self.dim]
        return r

    def picture(self, t, Q, E, rows, n_points=21, scale=1.0):
        """A function ``k -> Part``: the poly-line through the nodes at ``rows[k]`` (the
        displacement from the straight initial axis magnified by ``scale``)."""
        ref = self._positions(self.q0)

        def part(k):
            r = self._positions(Q[rows[k]])
            v = np.asarray(E[rows[k]], float)[self.velocity_dofs].reshape(self.n_nodes, self.EN)[:, :self.dim]
            return Part.chain(self.name, ref + scale * (r - ref), {"velocity": pad3(v), "displacement": pad3(r - ref)})
        return part

    def mode_picture(self, q, u, n_points=21):
        return pad3(self.deformed_axis(q, u))

    def picture_section(self):
        """``("tube", radius)``: the round section of the beam's area ``A``."""
        r = round_section(getattr(self, "A", None))
        return None if r is None else ("tube", r)

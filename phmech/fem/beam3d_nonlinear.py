"""A spatial floating-frame beam with geometric stiffening and exact rotating-frame inertia.

The spatial counterpart of :mod:`phmech.fem.beam_nonlinear` (read its
docstring first): the efforts are the absolute velocities of the deformed
axis in frame components, ``v_P + omega x X e1 + a_f(X)``, and the absolute
spin of the sections ``omega_1 + s_f(X)``; the kinetic energy
``1/2 int rho A |v|^2 + rho I_p spin^2`` is exact with a constant mass matrix.
The configuration holds the frame ``(r_P, p)``, the displacement
``u = (u_x, u_y, u_z)`` and the twist ``phi`` of the sections relative to the
frame, with

    u' = a - Omega x (X e1 + u),      phi' = s - Omega_1,

where ``Omega`` is the frame's angular velocity fixed by the gauge of the
cantilever frame (``u(0) = 0``, tangent ``e1 + u'(0)`` along ``e1``,
``phi(0) = 0``): ``Omega = (omega_1, sigma omega_2, sigma omega_3)`` with
``sigma = 1 / (1 + u_x'(0))``.  The gauge components are removed from ``u``
and the efforts, and their rates vanish identically.

Stored energy ``1/2 int (n^2/EA + m_z^2/EI_z + m_y^2/EI_y + t^2/GJ)`` with the
Green-Lagrange axial strain ``eps = u_x' + |u'|^2 / 2`` (``strain="green"``;
``"linear"``: ``eps = u_x'``), the curvatures ``u_y''``, ``u_z''`` and the twist
rate ``phi'`` (small rotations relative to the frame), whose rates are

    eps'     = (e1 + u') . a'                     (green: rotation invariant)
    kappa_z' = a_y'' - (Omega x u'')_y,   kappa_y' = a_z'' - (Omega x u'')_z,   phi'' = s_f'.

The structure ``J(q, e) = [[-Omega x (.), -B^T], [B, 0]]`` is skew (the
rotating-frame term of the sections' spin momentum acts on the frame rows,
as in :class:`~phmech.fem.beam3d.FloatingSpatialBeam`), so ``H = e^T M e / 2``
and the midpoint rule keeps an exact discrete power balance.  Neglected:
shear, the rotary inertia of bending, nonlinear curvature and the
rotating-frame terms of the spin inertia other than those on the frame.

Discretization: cubic Hermite for the three displacement and velocity
components (one space, so ``Omega x`` maps it onto itself), P1 for spin
and twist, continuous P2 for ``n``, DG1 for ``m_z, m_y`` and DG0 for ``t``.

Ports ``A`` (``X = 0``) and ``B`` (``X = L``) carry the velocity of their
point, ``Y e = a(X)``, and the rotation rate of their section in frame
components, ``W e = (s(X), -a_z'(X), a_y'(X))`` (``'`` here ``d/dX``): the
spin and the rate ``e1 x a'(X)`` of the section's tangent, so joints can
weld or hinge the beam at either end (:func:`~phmech.joints.spatial.Weld3`,
:func:`~phmech.joints.spatial.Revolute3`).  On a deformed tangent
``t = e1 + u'(X)`` the exact rate is ``t x a'(X) / |t|^2`` plus the spin.  At
``A`` the gauge keeps the tangent along ``e1`` with the length
``1 + u_x'(0)``, and the section turns with the frame at
``Omega = (omega_1, sigma omega_2, sigma omega_3)``: the port's transverse
rows carry the factor ``sigma(q)`` (its :attr:`~phmech.bodies.base.Port.gauge`,
evaluated by the joint kernels), so a weld or a driven hinge at ``A`` holds
the section exactly, also on a fast hub where the root stretches.  At ``B``
the port's rows ``W`` are constant, the exact rate where the tangent is the
undeformed ``e1``.  For the joints the section at ``B`` is exact: it is the
frame of the deformed tangent ``t = e1 + u'(L)`` and the twist ``phi(L)``
(:meth:`NonlinearSpatialBeam.tangent_section`, :mod:`phmech.math.tangent_frame`),
``R_B = R Lambda(t, phi)``, and the joints' rotation rows there are its exact
angular velocity, so a weld or hinge at a deformed tip holds the section its
position residual measures (a chain of welded beams, each frame carrying its
share of the rotation, converges to the elastica).  What stays first order at
``B``: a moment applied there (:class:`~phmech.forces.loads.PortMoment`) acts
through the constant rows ``W``; and the beam's own curvature is linear in its
frame (small rotations relative to the frame).  The frame's own rate can
also be driven by :class:`~phmech.fem.frame_rate.FrameRate3` (gauge
:meth:`frame_rate_gauge`) beside a :func:`~phmech.joints.spatial.Revolute3`
that holds the axis.
Moments may also act on the frame through :class:`FrameMoment`.
"""
from collections import namedtuple

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from ..bodies.picture import AxisPicture
from ..bodies.base import SpatialFrameBody
from ..forces.loads import Load, _as_load_function
from ..math.gauge import frame_scale
from ..math.rotations import UnitQuaternion
from ..math.tangent_frame import tangent_frame
from ._petsc import to_numpy, to_scipy
from . import beam3d_nonlinear_kernels as _kernels
from .beam_common import CellPointEvaluator, _check_positive, check_n_elem
from .beam_nonlinear import STRAINS, _single_dof
from .beam_operators import KernelBeam
from .cache import CachedFE

#: the data of a port whose section follows the beam's tangent ``t = e1 + u'`` and twist ``phi``
#: (:meth:`NonlinearSpatialBeam.tangent_section`): ``(t, phi)_j = theta_0[j] + theta_c[j]
#: q[theta_q[j]]``; the rows (over ``e``) of the tangent's rate ``a'`` (``A``, 3), of the frame's
#: angular velocity (``Wf``, 3) and of the spin (``s``); the frame gauge ``(q entry, d, c, flags)``
TangentSection = namedtuple("TangentSection", "theta_q theta_c theta_0 A Wf s gauge")

#: Omega x p for p = (px, py, pz): rows of (Omega_i, p_j) products with their signs
_CROSS = {0: ((1, 2, 1.0), (2, 1, -1.0)),      # (Omega x p)_x = Omega_2 p_z - Omega_3 p_y (0-based: 1, 2)
          1: ((2, 0, 1.0), (0, 2, -1.0)),      # (Omega x p)_y = Omega_3 p_x - Omega_1 p_z
          2: ((0, 1, 1.0), (1, 0, -1.0))}      # (Omega x p)_z = Omega_1 p_y - Omega_2 p_x


class NonlinearSpatialBeam(KernelBeam, AxisPicture, SpatialFrameBody):
    """Spatial beam with exact rotating-frame inertia and geometric stiffening (module docstring).

    ``q = (r_P, p, u_x, u_y, u_z, phi)``, ``e = (v_P, omega, a_x, a_y, a_z, s, n, m_z, m_y, t)``.

    Parameters
    ----------
    name : str
    L, n_elem : length and number of elements.
    rho, A, E, Iy, Iz : density, area, Young's modulus, second moments (bending in x-z and x-y).
    G, Jt, Ip : shear modulus, torsion constant, polar moment (defaults as in
        :class:`~phmech.fem.beam3d.FloatingSpatialBeam`).
    strain : ``"green"`` (geometric stiffening) or ``"linear"``.
    position, orientation : frame origin and unit quaternion.
    """

    kinematics_group = None
    omega_indices = ()
    has_effort_terms = True
    #: the family's kernels (:mod:`phmech.fem.beam3d_nonlinear_kernels`)
    _kernels = _kernels
    #: the kernel family evaluating the beams' kinematics and effort terms
    #: (:mod:`phmech.kernels.families`; data by the kernel module's ``pack``)
    kernel_slot = "spatial_consistent_beams"

    def __init__(self, name, L, n_elem, rho, A, E, Iy, Iz, G=None, Jt=None, Ip=None, strain="green",
                 position=(0.0, 0.0, 0.0), orientation=(1.0, 0.0, 0.0, 0.0)):
        SpatialFrameBody.__init__(self, name, position, orientation)
        n_elem = check_n_elem(name, n_elem, fields=8)
        G = E / 2.6 if G is None else G
        Jt = Iy + Iz if Jt is None else Jt
        Ip = Iy + Iz if Ip is None else Ip
        _check_positive(name, L=L, rho=rho, A=A, E=E, Iy=Iy, Iz=Iz, G=G, Jt=Jt, Ip=Ip)
        if strain not in STRAINS:
            raise ValueError(f"beam '{name}': strain must be one of {list(STRAINS)}, got {strain!r}")
        self.L, self.n_elem, self.strain = float(L), n_elem, strain
        rhoA, EA, EIy, EIz, GJ, rIp = rho * A, E * A, E * Iy, E * Iz, G * Jt, rho * Ip
        self.rhoA, self.EA = rhoA, EA
        fe = self.fe = SpatialConsistentBeamFE(self.L, int(n_elem), rhoA, EA, EIy, EIz, GJ, rIp)
        Mw, Jw, Kw, MV, xi, one, wq = fe.Mw, fe.Jw, list(fe.Kw), fe.MV, fe.xi, fe.one, fe.wq
        E1, Nq, D2, trv, trs, trP = fe.E1, fe.Nq, fe.D2, fe.trv, fe.trs, fe.trP
        edges = fe.edges
        names = ["ax", "ay", "az", "s", "n", "mz", "my", "t"]
        off = {k: np.arange(edges[i], edges[i + 1]) for i, k in enumerate(names)}
        nV, nP = len(off["ax"]), len(off["s"])
        oneP = np.ones(nP)
        zero = _single_dof(trv["A"], "the value at X = 0", name)
        slope = _single_dof(trs, "the slope at X = 0", name)
        zeroP = _single_dof(trP, "the twist at X = 0", name)
        keep = {"x": np.setdiff1d(np.arange(nV), [zero]), "y": np.setdiff1d(np.arange(nV), [zero, slope]),
                "z": np.setdiff1d(np.arange(nV), [zero, slope]), "s": np.setdiff1d(np.arange(nP), [zeroP])}
        # local effort layout
        sizes = [3, 3, len(keep["x"]), len(keep["y"]), len(keep["z"]), len(keep["s"]),
                 len(off["n"]), len(off["mz"]), len(off["my"]), len(off["t"])]
        ofs = np.cumsum([0] + sizes)
        fnames = ["vP", "omega", "ax", "ay", "az", "s", "n", "mz", "my", "t"]
        self.fields = {k: np.arange(ofs[i], ofs[i + 1]) for i, k in enumerate(fnames)}
        ne = int(ofs[-1])
        nq = 7 + len(keep["x"]) + len(keep["y"]) + len(keep["z"]) + len(keep["s"])
        # full[e_local -> W coefficients]: absolute velocity and spin fields, stresses
        rows, cols, vals = [], [], []

        def put(r, c, v):
            r, c, v = np.broadcast_arrays(np.atleast_1d(r), np.atleast_1d(c), np.asarray(v, float))
            rows.append(r.ravel())
            cols.append(c.ravel())
            vals.append(v.ravel())
        for k, comp in enumerate(("ax", "ay", "az")):
            put(off[comp], k, one)                                       # translations
        put(off["ay"], 5, xi)                                            # omega_3 x X e1 = (0, X w3, -X w2)
        put(off["az"], 4, -xi)
        put(off["s"], 3, oneP)                                           # omega_1: spin of every section
        for comp, c in (("ax", "x"), ("ay", "y"), ("az", "z"), ("s", "s")):
            put(off[comp][keep[c]], self.fields[comp], 1.0)
        for k in ("n", "mz", "my", "t"):
            put(off[k], self.fields[k], 1.0)
        full = sp.csr_matrix((np.concatenate(vals), (np.concatenate(cols), np.concatenate(rows))),
                             shape=(ne, Mw.shape[0]))
        self.M = (full @ Mw @ full.T).tocsr()
        self.J0 = (full @ Jw @ full.T).tocsr()      # rigid fields have no strain: no rigid entries
        self.J0.eliminate_zeros()
        K = [(full @ Ki @ full.T).tolil() for Ki in Kw]
        spin = np.asarray(full[:, off["s"]] @ fe.spinP).ravel()
        nz = np.flatnonzero(spin)
        for k, row, sign in ((1, 5, -1.0), (2, 4, 1.0)):      # -Omega x (h e1) on the frame rows
            K[k][row, nz] = K[k][row, nz].toarray() + sign * spin[nz]
            K[k][nz, row] = K[k][nz, row].toarray() - sign * spin[nz][:, None]
        self.K = [Ki.tocsr() for Ki in K]
        self.K_list = []
        # maps from local e and q to full coefficient vectors
        def sel(keep_, col0, ncol, n_):
            return sp.csr_matrix((np.ones(len(keep_)), (keep_, col0 + np.arange(len(keep_)))), shape=(n_, ncol))
        self.Pe = [full[:, off[c]].T.tocsr() for c in ("ax", "ay", "az")]          # nV x ne (absolute fields)
        qo = np.cumsum([7, len(keep["x"]), len(keep["y"]), len(keep["z"]), len(keep["s"])])
        self.Pq = [sel(keep[c], qo[i], nq, nV) for i, c in enumerate(("x", "y", "z"))]
        self.Pq_phi = sel(keep["s"], qo[3], nq, nP)
        self._sel_s = sel(keep["s"], self.fields["s"][0], ne, nP)
        self._sel_a = [sel(keep[c], self.fields["a" + c][0], ne, nV) for c in ("x", "y", "z")]
        self.xi = xi
        self._Pn = sp.csr_matrix((np.ones(len(off["n"])), (np.arange(len(off["n"])), self.fields["n"])),
                                 shape=(len(off["n"]), ne))
        self._Pm = {k: sp.csr_matrix((np.ones(len(off[k])), (np.arange(len(off[k])), self.fields[k])),
                                     shape=(len(off[k]), ne)) for k in ("mz", "my")}
        W_ = wq
        self._W = W_
        self._F = [(E1 @ P).tocsr() for P in self.Pe]           # a' at the quadrature points (nQ x ne)
        self._S = [(E1 @ P).tocsr() for P in self.Pq]           # u' at the quadrature points (nQ x nq)
        self._Nn = (Nq @ self._Pn).tocsr()
        self._D2q = [(D2 @ P).tocsr() for P in self.Pq]         # u'' tested by DG1 (nm x nq)
        self._cq = np.asarray(self.Pq[0].T @ trs).ravel()       # u_x'(0) on q
        self._gauge_q = _single_dof(self._cq, "the gauge functional on q", name)
        # the velocity fields relative to the frame origin (u' = a_rel - Omega x (X e1 + u)): without v_P
        Pe_rel = [P.toarray() for P in self.Pe]
        for P in Pe_rel:
            P[:, :3] = 0.0
        self._dense = {"Pq": [P.toarray() for P in self.Pq], "Pe": [P.toarray() for P in self.Pe],
                       "Pe_rel": Pe_rel}
        # per i: beta_i(q) = B_i q on the stress rows (curvature and linear-strain terms with Omega_i)
        Bm = {k: [] for k in range(3)}
        mz, my = self._Pm["mz"].T, self._Pm["my"].T
        # kappa_z' -= Omega_3 u_x'' - Omega_1 u_z'';  kappa_y' -= Omega_1 u_y'' - Omega_2 u_x''
        Bm[2].append(-(mz @ self._D2q[0]))
        Bm[0].append(mz @ self._D2q[2])
        Bm[0].append(-(my @ self._D2q[1]))
        Bm[1].append(my @ self._D2q[0])
        if strain == "linear":       # eps' = a_x' - (Omega_2 u_z' - Omega_3 u_y')
            NW = self._Nn.T @ sp.diags(W_)
            Bm[1].append(-(NW @ self._S[2]))
            Bm[2].append(NW @ self._S[1])
        self._B = [sp.csr_matrix(sum(Bm[i])) if Bm[i] else sp.csr_matrix((ne, nq)) for i in range(3)]
        self.q_labels = ["x", "y", "z", "p0", "p1", "p2", "p3"] + [f"u{i}" for i in range(nq - 7)]
        self.q0 = np.r_[self.q0, np.zeros(nq - 7)]
        self.e_labels = ["vx", "vy", "vz", "wx", "wy", "wz"]
        self.mass = float(self.M[0, 0])
        spin_field = full[:, off["s"]]                          # ne x nP: e -> spin coefficients
        for pname, X, slope, spin_at in (("A", 0.0, trs, trP), ("B", self.L, fe.trsL, fe.trPL)):
            Y = np.vstack([P.T @ trv[pname] for P in self.Pe])
            # rotation rate of the section: (s, -a_z', a_y') at X, divided by the stretch of the
            # axis in the transverse rows; at A, where the frame holds the section's tangent
            # (u_y' = u_z' = 0), the stretch is 1 + u_x'(0) and the rows are the frame's rate
            # (omega_1, sigma omega_2, sigma omega_3) exactly; at B they are taken at the undeformed
            # tangent (exact to first order in the deformation there)
            W = np.vstack([spin_field @ spin_at, -(self.Pe[2].T @ slope), self.Pe[1].T @ slope])
            port = self.add_port(pname, Y, W, (X, 0.0, 0.0))
            if pname == "A":
                port.gauge = (self._gauge_q, 1.0, float(self._cq[self._gauge_q]), (0.0, 1.0, 1.0))
            else:                # the end section: its tangent and twist, and the rows of their rates
                tq = [np.asarray(P.T @ slope).ravel() for P in self.Pq] + [np.asarray(self.Pq_phi.T @ spin_at).ravel()]
                idx = [_single_dof(r, "the slope or twist at X = L", name) for r in tq]
                Wf = np.zeros((3, ne))
                Wf[0, 3] = Wf[1, 4] = Wf[2, 5] = 1.0
                self._tip = TangentSection(
                    tuple(idx), tuple(float(r[i]) for r, i in zip(tq, idx)), (1.0, 0.0, 0.0, 0.0),
                    np.vstack([np.asarray(P.T @ slope).ravel() for P in self.Pe]), Wf,
                    np.asarray(spin_field @ spin_at).ravel(), port.gauge or
                    (self._gauge_q, 1.0, float(self._cq[self._gauge_q]), (0.0, 1.0, 1.0)))
        self._trace_q = {pn: np.vstack([P.T @ trv[pn] for P in self.Pq]) for pn in ("A", "B")}
        self._Mfield = rhoA * MV
        self._one, self._spin_row = one, spin

    # -- the kernels --------------------------------------------------------------
    def kernel_operators(self):
        """The sparse operators of :mod:`phmech.fem.beam3d_nonlinear_kernels` (local columns)."""
        out = {"Pq_phi": self.Pq_phi, "Sel_s": self._sel_s, "Nn": self._Nn}
        for c, x in enumerate("xyz"):
            out["Pq_" + x], out["PeR_" + x] = self.Pq[c], sp.csr_matrix(self._dense["Pe_rel"][c])
            out["S_" + x], out["F_" + x] = self._S[c], self._F[c]
        for i in range(3):
            out[f"B_{i}"], out[f"K_{i}"] = self._B[i], self.K[i]
        return out

    # -- frame rate -------------------------------------------------------------
    def frame_rate_gauge(self, axis):
        """``g`` on ``q`` with the frame's rate about its axis ``axis`` ``Omega_k = omega_k / (1 + g . q)``
        (:class:`~phmech.fem.frame_rate.FrameRate3`): zero about the beam's axis, the gauge
        ``u_x'(0)`` about the transverse axes."""
        return np.zeros(self.nq) if axis == 0 else np.array(self._cq, float)

    def frame_scale(self, q):
        """``d`` with ``Omega = d * omega`` and ``dd/dq`` (3 x nq)."""
        k = self._gauge_q
        s, ds = frame_scale(1.0, self._cq[k], q[k])
        d = np.array([1.0, s, s])
        grad = np.zeros((3, self.nq))
        grad[1, k] = grad[2, k] = ds
        return d, grad

    def retract(self, q, v):
        d, _ = self.frame_scale(q)
        out = np.array(q, float)
        out[:3] += self.rotation(q) @ v[:3]
        out[3:7] = UnitQuaternion.retract(q[3:7], d * v[3:6])
        return out

    def port_position(self, q, port):
        return self.position(q) + self.rotation(q) @ (port.position + self._trace_q[port.name] @ q)

    def tangent_section(self, port):
        """Port ``B``'s :data:`TangentSection`: its section is the frame of the deformed tangent and
        the twist there (:mod:`phmech.math.tangent_frame`), so the joints' rotation rows at ``B`` are
        exact at any deformation; None at ``A``, whose section is the frame."""
        return self._tip if port.name == "B" else None

    def port_rotation(self, q, port):
        """The section's rotation: the frame's at ``A``; at ``B`` the frame's times ``Lambda(t, phi)``
        of the deformed tangent and twist."""
        R = self.rotation(q)
        if port.name != "B":
            return R
        tip = self._tip
        th = np.array([c0 + c * q[i] for i, c, c0 in zip(tip.theta_q, tip.theta_c, tip.theta_0)])
        Lam = np.empty((3, 3))
        tangent_frame(th, Lam)
        return R @ Lam

    # -- structure ------------------------------------------------------------------
    # -- rigid motions of the deformed shape (quasi-static start) ---------------------
    @property
    def flexible_velocity_dofs(self):
        """Local indices of ``(a_f, s_f)`` in ``e`` (same order as :attr:`displacement_dofs` in ``q``)."""
        return np.r_[self.fields["ax"], self.fields["ay"], self.fields["az"], self.fields["s"]]

    @property
    def displacement_dofs(self):
        """Local indices of ``(u, phi)`` in ``q``."""
        return np.arange(7, self.nq)

    @property
    def stress_dofs(self):
        return np.r_[self.fields["n"], self.fields["mz"], self.fields["my"], self.fields["t"]]

    def rotation_velocity(self, q, axis, point):
        """Body-frame ``(v_P, omega)`` of the deformed beam turning rigidly at unit rate: the frame
        turns at ``Omega = d(q) * omega`` (the flexible part: :meth:`rigid_motion_map`)."""
        v = SpatialFrameBody.rotation_velocity(self, q, axis, point)
        v[3:6] /= self.frame_scale(q)[0]
        return v

    def rigid_motion_map(self, q):
        """``B`` (ne x 6): efforts ``B (v_P, omega)`` move the deformed body rigidly (``u' = phi' = 0``)."""
        d, _ = self.frame_scale(q)
        Pq = self._dense["Pq"]
        p = [self.xi + Pq[0] @ q, Pq[1] @ q, Pq[2] @ q]
        x0 = [self.xi, 0.0 * self.xi, 0.0 * self.xi]
        B = np.zeros((self.ne, 6))
        B[np.arange(6), np.arange(6)] = 1.0
        for i in range(3):
            # a = Omega_i e_i x (X e1 + u); a_f = a - omega_i e_i x X e1 (restricted to the kept dofs)
            for c in range(3):
                for k, j, sgn in _CROSS[c]:
                    if k == i:
                        B[:, 3 + i] += self._sel_a[c].T @ (sgn * (d[i] * p[j] - x0[j]))
        return B

    def _linear_strains(self):
        """``(B0, C)``: the linear strain rates of the flexible velocities and the compliance (dense,
        made once)."""
        if getattr(self, "_strain_ops", None) is None:
            sig, flex = self.stress_dofs, self.flexible_velocity_dofs
            self._strain_ops = (self.J0[sig][:, flex].toarray(), self.M[sig][:, sig].toarray())
        return self._strain_ops

    def elastic_stiffness(self):
        """Cholesky factor of the linear stiffness ``B0^T C^-1 B0`` on ``(u, phi)``."""
        B0, C = self._linear_strains()
        return sla.cho_factor(B0.T @ np.linalg.solve(C, B0))

    def stresses_of(self, q):
        """The constitutive stresses of the displacement and twist in ``q`` (an effort vector)."""
        B0, C = self._linear_strains()
        rhs = B0 @ q[self.displacement_dofs]
        if self.strain == "green":
            Sv = [S @ q for S in self._S]
            quad = self._Nn.T @ (self._W * 0.5 * (Sv[0] ** 2 + Sv[1] ** 2 + Sv[2] ** 2))
            rhs += quad[self.stress_dofs]
        e = np.zeros(self.ne)
        if getattr(self, "_compliance_lu", None) is None:
            self._compliance_lu = sla.lu_factor(C)
        e[self.stress_dofs] = sla.lu_solve(self._compliance_lu, rhs)
        return e

    # -- state helpers ---------------------------------------------------------------
    def first_moment(self):
        """``(s0, rows, "q")``: first moment of mass about the frame origin ``s0 + rows @ q`` (frame
        components, the displacement in the configuration)."""
        from .beam_common import axis_first_moment
        return (*axis_first_moment(self, self.rhoA), "q")

    def displacement_rows(self, points):
        """Rows giving ``(u_x, u_y, u_z)`` at ``points`` from ``q`` (three arrays ``(npts, nq)``)."""
        P = self.fe.point_rows(np.clip(np.atleast_1d(np.asarray(points, float)), 0.0, self.L))
        return [P @ Pq for Pq in self._dense["Pq"]]

    @property
    def _mesh(self):
        """The Firedrake mesh (built on first use when the model came from the FE cache)."""
        return self.fe.mesh

    def angular_momentum(self, q, e):
        """Inertial angular momentum about the inertial origin."""
        R = self.rotation(q)
        # momentum density pairs: int rho A (X e1 + u) x a + spin; evaluated with the field mass matrix
        Pe = self._dense["Pe"]
        Mf = self._Mfield
        pos = [self.xi + self._dense["Pq"][0] @ q, self._dense["Pq"][1] @ q, self._dense["Pq"][2] @ q]
        vel = [Pe[c] @ e for c in range(3)]
        mv = [Mf @ v for v in vel]
        rel = np.array([pos[1] @ mv[2] - pos[2] @ mv[1], pos[2] @ mv[0] - pos[0] @ mv[2],
                        pos[0] @ mv[1] - pos[1] @ mv[0]])
        rel[0] += self._spin_row @ e
        P = np.array([self._one @ m for m in mv])
        return R @ rel + np.cross(q[:3], R @ P)


class SpatialConsistentBeamFE(CachedFE):
    """FE matrices and operators of :class:`NonlinearSpatialBeam` on ``[0, L]``, kept in the FE cache.

    Over the mixed space ``(a_x, a_y, a_z, s, n, m_z, m_y, t)`` (Hermite x 3,
    P1, P2, DG1, DG1, DG0): the energy metric ``Mw``, the structure ``Jw``,
    the rotating-frame forms ``Kw``; on the Hermite space ``V`` its mass
    matrix ``MV``, the coefficients ``xi`` of ``X`` and ``one`` of 1, the
    values of ``u'`` (``E1``) and of ``n`` (``Nq``) at the degree-7
    quadrature points with weights ``wq``, the curvature test ``D2``, the
    end traces ``trv``, ``trs`` and ``trsL`` (slopes at 0 and ``L``), ``trP`` and ``trPL`` (P1 at
    0 and ``L``) and the
    spin moment ``spinP = int rho I_p dphi``.
    """

    KIND = "SpatialConsistentBeamFE"
    CACHED = ("Mw", "Jw", "Kw", "edges", "MV", "xi", "one", "wq", "E1", "Nq", "D2", "trv", "trs", "trP",
              "trsL", "trPL", "spinP")
    FIREDRAKE_ATTRIBUTES = ("mesh", "V")

    def __init__(self, L, n_elem, rhoA, EA, EIy, EIz, GJ, rIp):
        self.L, self.n_elem = float(L), int(n_elem)
        self.coef = (rhoA, EA, EIy, EIz, GJ, rIp)
        self._load_or_assemble([self.L, self.n_elem] + [float(c) for c in self.coef])

    def _setup_firedrake(self):
        if self._fd is not None:
            return
        import firedrake as fd

        self.mesh = fd.IntervalMesh(self.n_elem, self.L)
        self.V = fd.FunctionSpace(self.mesh, "Hermite", 3)
        self._fd = fd

    def _assemble(self):
        import finat.ufl

        self._setup_firedrake()
        fd, mesh, V = self._fd, self.mesh, self.V
        rhoA, EA, EIy, EIz, GJ, rIp = self.coef
        x = fd.SpatialCoordinate(mesh)[0]
        P1 = fd.FunctionSpace(mesh, "CG", 1)
        Vn, D1, D0 = fd.FunctionSpace(mesh, "CG", 2), fd.FunctionSpace(mesh, "DG", 1), fd.FunctionSpace(mesh, "DG", 0)
        spaces = [V, V, V, P1, Vn, D1, D1, D0]
        W = fd.MixedFunctionSpace(spaces)
        ax, ay, az, s, n, mz, my, t = fd.TrialFunctions(W)
        dax, day, daz, ds_, dn, dmz, dmy, dt = fd.TestFunctions(W)
        dx = fd.dx
        d2 = (lambda f: f.dx(0).dx(0))
        out = {}
        out["Mw"] = to_scipy(fd.assemble((rhoA * (dax * ax + day * ay + daz * az) + rIp * ds_ * s + dn * n / EA
                                          + dmz * mz / EIz + dmy * my / EIy + dt * t / GJ) * dx, mat_type="aij"))
        out["Jw"] = to_scipy(fd.assemble((-dax.dx(0) * n + dn * ax.dx(0) - d2(day) * mz + dmz * d2(ay)
                                          - d2(daz) * my + dmy * d2(az) - ds_.dx(0) * t + dt * s.dx(0)) * dx,
                                         mat_type="aij"))
        Kforms = [rhoA * (-day * az + daz * ay), rhoA * (dax * az - daz * ax), rhoA * (-dax * ay + day * ax)]
        out["Kw"] = tuple(to_scipy(fd.assemble(k * dx, mat_type="aij")) for k in Kforms)
        out["edges"] = np.cumsum([0] + [Vi.dim() for Vi in spaces])
        # Hermite coefficients of X and 1; derivative and quadrature operators
        u_, v_ = fd.TrialFunction(V), fd.TestFunction(V)
        out["MV"] = MV = to_scipy(fd.assemble(u_ * v_ * dx, mat_type="aij"))
        lu = splu(MV.tocsc())
        out["xi"] = lu.solve(to_numpy(fd.assemble(x * v_ * dx)))
        out["one"] = lu.solve(to_numpy(fd.assemble(v_ * dx)))
        Qe = finat.ufl.FiniteElement("Quadrature", mesh.ufl_cell(), degree=7, quad_scheme="default")
        Q = fd.FunctionSpace(mesh, Qe)
        out["wq"] = to_numpy(fd.assemble(fd.TestFunction(Q) * fd.dx(metadata={"quadrature_degree": 7})))
        out["E1"] = to_scipy(fd.assemble(fd.interpolate(u_.dx(0), Q))).tocsr()
        out["Nq"] = to_scipy(fd.assemble(fd.interpolate(fd.TrialFunction(Vn), Q))).tocsr()
        out["D2"] = to_scipy(fd.assemble(fd.TestFunction(D1) * d2(u_) * dx, mat_type="aij")).tocsr()
        out["trv"] = {e_: to_numpy(fd.assemble(v_ * fd.ds(m_))) for e_, m_ in (("A", 1), ("B", 2))}
        out["trs"] = to_numpy(fd.assemble(v_.dx(0) * fd.ds(1)))
        out["trP"] = to_numpy(fd.assemble(fd.TestFunction(P1) * fd.ds(1)))
        out["trsL"] = to_numpy(fd.assemble(v_.dx(0) * fd.ds(2)))
        out["trPL"] = to_numpy(fd.assemble(fd.TestFunction(P1) * fd.ds(2)))
        out["spinP"] = to_numpy(fd.assemble(rIp * fd.TestFunction(P1) * dx))
        return out

    def point_rows(self, points):
        """Rows evaluating a Hermite field at ``points`` (cached)."""
        tag = "V_" + self.points_tag(points)
        if tag not in self._memo:
            self._setup_firedrake()
            if self._points is None:
                self._points = CellPointEvaluator(self.mesh)
            self._remember(tag, self._points.rows(points, (self._fd.TestFunction(self.V),))[0])
        return self._memo[tag]


class FrameMoment(Load):
    """A moment acting on the frame of a :class:`NonlinearSpatialBeam` (on the root section).

    Power ``m . Omega`` with ``Omega = d(q) omega`` the frame's angular velocity;
    ``m`` in inertial (default) or frame components.
    """

    def __init__(self, body, moment, frame="inertial", name=None):
        self.name = name or f"frame moment({body.name})"
        if frame not in ("inertial", "body"):
            raise ValueError(f"load '{self.name}': frame must be 'inertial' or 'body', got {frame!r}")
        self.body = body
        self.inertial = frame == "inertial"
        self.fun = _as_load_function(moment, 3, "moment", self.name)
        self.cols = np.arange(3, 6)
        self.A = np.eye(3)

    def kernel_gauge(self, sq):
        """The frame's rate ``Omega = d(q) omega``: the moment's body-frame components 2 and 3
        scaled by the beam's gauge (:meth:`NonlinearSpatialBeam.frame_scale`), as on port A."""
        k, d, c, rows = self.body.port("A").gauge
        return sq.start + k, d, c, rows

"""A spatial Euler-Bernoulli beam with torsion in a floating frame (Firedrake).

Fields on ``[0, L]`` (body axis ``e1``): axial velocity ``v_x`` (P1) and
force ``n`` (DG0); bending in the x-y plane, ``v_y`` (Hermite) and moment
``m_z`` (DG1); bending in the x-z plane, ``v_z`` (Hermite) and ``m_y``
(DG1); torsion, spin velocity ``w_x`` (P1) and torque ``t`` (DG0).  Each
pair is the pH velocity-stress form of the planar element
(:mod:`phmech.fem.beam`), with the derivatives on the velocities.  The
body-frame velocity of the axis point ``x`` is
``v = v_P + omega x (x e1) + v_f(x)`` and the spin of its section
``omega_1 + w_x(x)`` (torsional rotary inertia ``rho I_p``, whose spin
angular momentum ``h e1`` enters the frame's rotation equations through the
rotating-frame term ``-omega x h e1``; the rotary inertia of bending is
neglected, as in Euler-Bernoulli theory).

Frame condition: cantilever at x = 0 (``v_f``, both slopes and ``w_x``
vanish there).  Ports ``A`` (x = 0) and ``B`` (x = L) give the body-frame
velocity (3 rows) and angular velocity ``omega + (w_x, -v_z', v_y')``.
"""
import numpy as np
import scipy.sparse as sp

from ..bodies.picture import AxisPicture
from ..bodies.base import SpatialFrameBody
from ._petsc import to_numpy, to_scipy
from .beam_common import CellPointEvaluator, _check_positive, check_n_elem
from .cache import CachedFE
from .floating_frame import frame_blocks, gyroscopic_forms, rigid_couplings, rigid_fields


class FloatingSpatialBeam(AxisPicture, SpatialFrameBody):
    """Spatial floating-frame beam (pH subsystem), cantilever deformation field.

    Parameters
    ----------
    name : str
    L, n_elem : length and number of elements.
    rho, A, E : density, section area, Young's modulus (any consistent units).
    Iy, Iz : second moments for bending in the x-z and the x-y plane.
    G, Jt : shear modulus and torsion constant (default: ``G = E / 2.6``,
        ``Jt = Iy + Iz``).
    Ip : polar moment for the torsional rotary inertia (default ``Iy + Iz``).
    position, orientation : frame origin and quaternion of the frame.
    geometric_stiffness : bool
        True builds the geometrically consistent beam instead
        (:class:`~phmech.fem.beam3d_nonlinear.NonlinearSpatialBeam`: exact
        rotating-frame inertia, Green-Lagrange axial strain).
    """

    def __new__(cls, *args, geometric_stiffness=False, **kwargs):
        if geometric_stiffness:
            from .beam3d_nonlinear import NonlinearSpatialBeam
            return NonlinearSpatialBeam(*args, **kwargs)
        return super().__new__(cls)

    def __init__(self, name, L, n_elem, rho, A, E, Iy, Iz, G=None, Jt=None, Ip=None,
                 position=(0.0, 0.0, 0.0), orientation=(1.0, 0.0, 0.0, 0.0), geometric_stiffness=False):
        super().__init__(name, position, orientation)
        n_elem = check_n_elem(name, n_elem, fields=8)
        G = E / 2.6 if G is None else G
        Jt = Iy + Iz if Jt is None else Jt
        Ip = Iy + Iz if Ip is None else Ip
        _check_positive(name, L=L, rho=rho, A=A, E=E, Iy=Iy, Iz=Iz, G=G, Jt=Jt, Ip=Ip)
        self.L, self.n_elem = float(L), int(n_elem)
        rhoA, EA, EIy, EIz, GJ, rIp = rho * A, E * A, E * Iy, E * Iz, G * Jt, rho * Ip
        fe = self.fe = SpatialBeamFE(self.L, self.n_elem, rhoA, EA, EIy, EIz, GJ, rIp)
        M, J, Kff, off, nf = fe.M, fe.J, fe.Kff, fe.off, fe.nf
        Mfr, Kfr, Mrr, Krr, tr = fe.Mfr, fe.Kfr, fe.Mrr, fe.Krr, fe.trace
        drop = []
        for key in ("vx", "vy", "vz", "wx", "sy", "sz"):
            row = tr["A"][key]
            nz = np.flatnonzero(np.abs(row) > 1e-12 * np.abs(row).max())
            if len(nz) != 1:
                raise RuntimeError(f"beam '{name}': trace {key} at A is not a single degree of freedom")
            drop.append(int(nz[0]))
        keep = np.setdiff1d(np.arange(nf), drop)
        r = 6
        self.M, self.J0, self.K_list = frame_blocks(Mrr, Mfr[keep], M[keep][:, keep], J[keep][:, keep], Krr,
                                                    [Kf[keep] for Kf in Kfr], [Ki[keep][:, keep] for Ki in Kff])
        pos = {int(k): r + i for i, k in enumerate(keep)}
        # spin angular momentum of the sections, h = (int rho I_p (omega_1 + w_x)) e1: its rotating-frame
        # term -omega x h acts on the frame's omega_2 and omega_3 equations (skew pairs in K_2, K_3)
        spin = np.zeros(self.M.shape[0])
        spin[3] = rIp * self.L
        wx_keep = [pos[i] for i in range(off["wx"].start, off["wx"].stop) if i in pos]
        spin[wx_keep] = fe.c_wx[[i for i in range(off["wx"].start, off["wx"].stop) if i in pos]]
        nz = np.flatnonzero(spin)
        for k, (row, sign) in ((1, (5, -1.0)), (2, (4, 1.0))):
            Kadd = sp.csr_matrix((np.r_[sign * spin[nz], -sign * spin[nz]],
                                  (np.r_[np.full(len(nz), row), nz], np.r_[nz, np.full(len(nz), row)])),
                                 shape=self.M.shape)
            self.K_list[k] = (self.K_list[k] + Kadd).tocsr()
        self.fields = {k: np.array([pos[i] for i in range(sl.start, sl.stop) if i in pos], int)
                       for k, sl in off.items()}
        self.e_labels = ["vx", "vy", "vz", "wx", "wy", "wz"]
        self.mass = float(Mrr[0, 0])
        self._off, self._keep, self._r = off, keep, r
        self.EA, self.EIy, self.EIz = EA, EIy, EIz
        for end, xe in (("A", 0.0), ("B", self.L)):
            T = tr[end]
            Y = np.zeros((3, self.ne))
            Y[:, :3] = np.eye(3)
            Y[1, 5] = xe       # omega x (x e1) = (0, x w3, -x w2)
            Y[2, 4] = -xe
            Y[0, r:], Y[1, r:], Y[2, r:] = T["vx"][keep], T["vy"][keep], T["vz"][keep]
            Wr = np.zeros((3, self.ne))
            Wr[:, 3:6] = np.eye(3)
            Wr[0, r:], Wr[1, r:], Wr[2, r:] = T["wx"][keep], -T["sz"][keep], T["sy"][keep]
            self.add_port(end, Y, Wr, (xe, 0.0, 0.0))

    def first_moment(self):
        """``(s0, rows, "e")``: first moment of mass about the frame origin ``s0 + rows @ e`` (frame
        components; the displacement recovered from the stresses, :meth:`displacement_rows`)."""
        from .beam_common import axis_first_moment
        return (*axis_first_moment(self, self.fe.coef[0]), "e")

    def displacement_rows(self, points):
        """Rows giving the flexible displacement ``(u_x, u_y, u_z)`` at ``points`` from ``e``.

        Recovered exactly from the stresses (``n = EA u_x'``, ``m_z = EI_z u_y''``,
        ``m_y = EI_y u_z''``) with the cantilever conditions; valid for motions
        that start undeformed.
        """
        M = self.M.toarray()
        J = self.J0.toarray()
        pts = np.atleast_1d(np.asarray(points, float))
        rows = []
        for vel, stress in (("vx", "n"), ("vy", "mz"), ("vz", "my")):
            iv, is_ = self.fields[vel], self.fields[stress]
            C = M[np.ix_(is_, is_)]
            D = J[np.ix_(is_, iv)]
            U = np.linalg.lstsq(D, C, rcond=None)[0]          # stress -> velocity-space dofs
            P = self._point_rows(vel, pts)                     # (npts, len(iv))
            R = np.zeros((len(pts), self.ne))
            R[:, is_] = P @ U
            rows.append(R)
        return rows

    @property
    def _mesh(self):
        """The Firedrake mesh (built on first use when the model came from the FE cache)."""
        return self.fe.mesh

    def _point_rows(self, key, pts):
        full = self.fe.point_rows(key, np.clip(pts, 0.0, self.L))
        # restrict to the kept dofs of this field, in the order of self.fields[key]
        sl = self._off[key]
        kept = [i - sl.start for i in self._keep if sl.start <= i < sl.stop]
        return full[:, kept]


class SpatialBeamFE(CachedFE):
    """Mixed FE matrices of the spatial floating beam on ``[0, L]``, kept in the FE cache.

    Fields ``(v_x, v_y, v_z, w_x, n, m_z, m_y, t)`` in P1, Hermite, Hermite,
    P1, DG0, DG1, DG1, DG0; the couplings with the six rigid velocity
    fields of the frame (``Mfr``, ``Kfr``, ``Mrr``, ``Krr``), the boundary
    traces and the sections' spin moment ``c_wx`` (see
    :class:`FloatingSpatialBeam`).
    """

    KIND = "SpatialBeamFE"
    CACHED = ("M", "J", "Kff", "off", "nf", "Mfr", "Kfr", "Mrr", "Krr", "trace", "c_wx")
    EXTRA_SOURCES = ("phmech.fem.floating_frame",)
    FIREDRAKE_ATTRIBUTES = ("mesh", "spaces")
    NAMES = ("vx", "vy", "vz", "wx", "n", "mz", "my", "t")

    def __init__(self, L, n_elem, rhoA, EA, EIy, EIz, GJ, rIp):
        self.L, self.n_elem = L, n_elem
        self.coef = (rhoA, EA, EIy, EIz, GJ, rIp)
        self._load_or_assemble([float(L), int(n_elem)] + [float(c) for c in self.coef])
        self.nf = int(self.nf)

    def _setup_firedrake(self):
        if self._fd is not None:
            return
        import firedrake as fd

        self._fd = fd
        self.mesh = mesh = fd.IntervalMesh(self.n_elem, self.L)
        P1, H3 = fd.FunctionSpace(mesh, "CG", 1), fd.FunctionSpace(mesh, "Hermite", 3)
        D0, D1 = fd.FunctionSpace(mesh, "DG", 0), fd.FunctionSpace(mesh, "DG", 1)
        self.spaces = dict(zip(self.NAMES, [P1, H3, H3, P1, D0, D1, D1, D0]))

    def _assemble(self):
        self._setup_firedrake()
        fd, mesh = self._fd, self.mesh
        rhoA, EA, EIy, EIz, GJ, rIp = self.coef
        x = fd.SpatialCoordinate(mesh)[0]
        spaces = [self.spaces[k] for k in self.NAMES]
        W = fd.MixedFunctionSpace(spaces)
        vx, vy, vz, wx, n, mz, my, t = fd.TrialFunctions(W)
        dvx, dvy, dvz, dwx, dn, dmz, dmy, dt = fd.TestFunctions(W)
        dx = fd.dx
        out = {}
        out["M"] = to_scipy(fd.assemble((rhoA * (dvx * vx + dvy * vy + dvz * vz) + rIp * dwx * wx
                                         + dn * n / EA + dmz * mz / EIz + dmy * my / EIy + dt * t / GJ) * dx,
                                        mat_type="aij"))
        d2 = (lambda u: u.dx(0).dx(0))
        out["J"] = to_scipy(fd.assemble((-dvx.dx(0) * n + dn * vx.dx(0)
                                         - d2(dvy) * mz + dmz * d2(vy)
                                         - d2(dvz) * my + dmy * d2(vz)
                                         - dwx.dx(0) * t + dt * wx.dx(0)) * dx, mat_type="aij"))
        # K_i: int rho A dv . (e_i x v) (phmech.fem.floating_frame)
        Kforms = gyroscopic_forms(rhoA, (vx, vy, vz), (dvx, dvy, dvz), dx, 3)
        out["Kff"] = tuple(to_scipy(fd.assemble(k, mat_type="aij")) for k in Kforms)
        edges = np.cumsum([0] + [V.dim() for V in spaces])
        out["off"] = {k: slice(int(edges[i]), int(edges[i + 1])) for i, k in enumerate(self.NAMES)}
        out["nf"] = int(edges[-1])
        # the frame's rigid velocity fields of the axis (phmech.fem.floating_frame) and the spin of
        # the sections, 1 for omega_1: the sections' rotary inertia rho I_p adds to omega_1's column
        one, zero = fd.Constant(1.0), fd.Constant(0.0)
        dxm = fd.dx(domain=mesh)
        Mfr, Kfr, Mrr, Krr = rigid_couplings(fd, rhoA, (dvx, dvy, dvz), rigid_fields((x, zero, zero), 3, one, zero),
                                             dxm, 3)
        Mfr[:, 3] += to_numpy(fd.assemble(rIp * dwx * dx))
        Mrr[3, 3] += fd.assemble(rIp * dxm)
        out["Mfr"], out["Kfr"], out["Mrr"], out["Krr"] = Mfr, tuple(Kfr), Mrr, tuple(Krr)
        out["trace"] = {}
        for end, mark in (("A", 1), ("B", 2)):
            out["trace"][end] = {"vx": to_numpy(fd.assemble(dvx * fd.ds(mark))),
                                 "vy": to_numpy(fd.assemble(dvy * fd.ds(mark))),
                                 "vz": to_numpy(fd.assemble(dvz * fd.ds(mark))),
                                 "wx": to_numpy(fd.assemble(dwx * fd.ds(mark))),
                                 "sy": to_numpy(fd.assemble(dvy.dx(0) * fd.ds(mark))),
                                 "sz": to_numpy(fd.assemble(dvz.dx(0) * fd.ds(mark)))}
        out["c_wx"] = to_numpy(fd.assemble(rIp * dwx * dx))
        return out

    def point_rows(self, key, points):
        """Rows evaluating field ``key`` (over its whole space) at ``points``, cached."""
        tag = f"{key}_" + self.points_tag(points)
        if tag not in self._memo:
            self._setup_firedrake()
            if self._points is None:
                self._points = CellPointEvaluator(self.mesh)
            self._remember(tag, self._points.rows(points, (self._fd.TestFunction(self.spaces[key]),))[0])
        return self._memo[tag]

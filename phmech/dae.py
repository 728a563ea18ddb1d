"""The assembled descriptor DAE of a :class:`~phmech.system.System`.

Variables ``y = (q, e, lam)``; see :mod:`phmech.system` for the equations.
This module holds the right-hand side, its exact sparse Jacobian, the
energy and power bookkeeping and the consistent initial values.
"""
import numpy as np
import scipy.sparse as sp

from ._planar import S, drot, rot


#: up to this many efforts the products in the right-hand side use dense matrices
DENSE_MAX = 300


class ConsistencyError(ValueError):
    """A model or an initial state is inconsistent; the message lists every problem."""

    def __init__(self, problems, what="model"):
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"inconsistent {what} ({len(self.problems)} problem(s)):\n{lines}")


class _Term:
    """Global form of a joint or load block: ``sign * P R(theta) Y`` on columns ``cols``."""

    __slots__ = ("rows", "cols", "Y", "angle", "P", "sign")

    def __init__(self, rows, cols, Y, angle, P, sign):
        self.rows, self.cols, self.Y, self.angle, self.P, self.sign = rows, cols, Y, angle, P, sign

    def matrix(self, q):
        if self.angle is None:
            A = self.Y
        else:
            A = rot(q[self.angle]) @ self.Y
        if self.P is not None:
            A = self.P @ A
        return self.sign * A

    def dmatrix(self, q):
        """Derivative of :meth:`matrix` with respect to the angle (None if constant)."""
        if self.angle is None:
            return None
        A = drot(q[self.angle]) @ self.Y
        if self.P is not None:
            A = self.P @ A
        return self.sign * A


class DescriptorDAE:
    """The assembled descriptor system ``E y' = f(t, y)`` of a :class:`System`."""

    def __init__(self, system):
        self.system = system
        bodies = system.bodies
        if not bodies:
            raise ConsistencyError(["the system has no bodies"])
        problems = []
        for b in bodies:
            problems += b.check()
        owners = {id(b) for b in bodies}
        for j in system.joints:
            for p in j.ports():
                if id(p.body) not in owners:
                    problems.append(f"joint '{j.name}': body '{p.body.name}' is not in the system")
        for ld in system.loads:
            if id(ld.port.body) not in owners:
                problems.append(f"load '{ld.name}': body '{ld.port.body.name}' is not in the system")
        if problems:
            raise ConsistencyError(problems)

        # index slices
        self.q_slices, self.e_slices = {}, {}
        iq = ie = 0
        for b in bodies:
            self.q_slices[b.name] = slice(iq, iq + b.n_q)
            self.e_slices[b.name] = slice(ie, ie + b.n_e)
            iq += b.n_q
            ie += b.n_e
        self.nq, self.ne = iq, ie
        self.lam_slices = {}
        il = 0
        for j in system.joints:
            self.lam_slices[j.name] = slice(il, il + j.n_rows)
            il += j.n_rows
        self.nl = il
        self.n = self.nq + self.ne + self.nl
        self.sq = slice(0, self.nq)
        self.se = slice(self.nq, self.nq + self.ne)
        self.sl = slice(self.nq + self.ne, self.n)

        # block-diagonal matrices
        self.M = sp.block_diag([b.M for b in bodies], format="csr")
        self.J0 = sp.block_diag([b.J0 for b in bodies], format="csr")
        Rs = [b.R if b.R is not None else sp.csr_matrix(b.M.shape) for b in bodies]
        self.R = sp.block_diag(Rs, format="csr")
        self.has_R = self.R.nnz > 0
        # gyroscopic terms (omega index, rows of the body, K with global columns, slot)
        self.gyro = []
        for b in bodies:
            off = self.e_slices[b.name].start
            for slot, (iw, K) in enumerate(b.gyro_terms()):
                K = sp.csr_matrix(K)
                Kg = sp.csr_matrix((K.data, K.indices + off, K.indptr), shape=(K.shape[0], self.ne))
                self.gyro.append((off + iw, slice(off, off + b.n_e), Kg, slot))
        self.E = sp.block_diag([sp.identity(self.nq), self.M, sp.csr_matrix((self.nl, self.nl))],
                               format="csr")

        # joint terms
        self.terms = []
        for j in system.joints:
            base = self.lam_slices[j.name].start
            for blk in j.blocks:
                rows = np.arange(base + blk.rows.start, base + blk.rows.stop)
                term = self._term(rows, blk.port, blk.rotational, blk.sign, blk.P)
                if blk.body_frame:
                    term.angle = None
                self.terms.append(term)
        self.load_terms = []
        self.spatial_loads = []
        for ld in system.loads:
            if ld.port.Y.shape[0] == 3:
                A = ld.port.W if ld.kind == "moment" else ld.port.Y
                off = self.e_slices[ld.port.body.name].start
                cols = np.flatnonzero(np.any(A != 0, axis=0))
                self.spatial_loads.append((ld, cols + off, A[:, cols], self.q_slices[ld.port.body.name]))
                continue
            rot_ = ld.kind == "moment"
            t = self._term(None, ld.port, rot_, 1.0, None)
            if ld.kind == "force" and ld.frame == "body":
                t.angle = None
            self.load_terms.append((ld, t))
        self._precompute_G()
        self._precompute_jacobian()
        self._precompute_fast_paths()
        self.q0 = np.concatenate([b.q0 for b in bodies])
        for j in system.joints:
            j.bind(self.body_q_getter(self.q0))

    def _term(self, rows, port, rotational, sign, P):
        off = self.e_slices[port.body.name].start
        A = port.W if rotational else port.Y
        cols = np.flatnonzero(np.any(A != 0, axis=0))
        angle = None
        if not rotational and port.body.angle_index is not None:
            angle = self.q_slices[port.body.name].start + port.body.angle_index
        return _Term(rows, cols + off, A[:, cols], angle, P, sign)

    def _precompute_G(self):
        """Write ``G(q) = G0 + sum_k cos(theta_k) Gc_k + sin(theta_k) Gs_k``.

        With ``R(theta) = cos(theta) I + sin(theta) S`` every joint block is a
        constant plus a cosine and a sine part of its body's angle.
        """
        angles = sorted({t.angle for t in self.terms if t.angle is not None})
        self.G_angles = np.array(angles, dtype=int)
        k_of = {a: k for k, a in enumerate(angles)}
        self.G0 = np.zeros((self.nl, self.ne))
        self.Gc = np.zeros((len(angles), self.nl, self.ne))
        self.Gs = np.zeros_like(self.Gc)
        self._Gcs = None
        for t in self.terms:
            P = np.eye(2) if t.P is None else t.P
            if t.angle is None:
                A = t.Y if t.P is None else t.P @ t.Y
                self.G0[np.ix_(t.rows, t.cols)] += t.sign * A
            else:
                k = k_of[t.angle]
                self.Gc[k][np.ix_(t.rows, t.cols)] += t.sign * (P @ t.Y)
                self.Gs[k][np.ix_(t.rows, t.cols)] += t.sign * (P @ S @ t.Y)

    def _precompute_jacobian(self):
        """Constant sparsity data of ``d(J(e) e)/de``."""
        A = sp.coo_matrix(self.J0 - self.R if self.has_R else self.J0)
        self._jc_rows, self._jc_cols, self._jc_data = A.row, A.col, A.data
        rows, cols, data, widx = [], [], [], []
        for iw, sl, K, _ in self.gyro:
            Kc = K.tocoo()
            rows.append(Kc.row + sl.start)
            cols.append(Kc.col)
            data.append(Kc.data)
            widx.append(np.full(Kc.nnz, iw))
        cat = (lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt))
        self._jg_rows, self._jg_cols = cat(rows, int), cat(cols, int)
        self._jg_data, self._jg_w = cat(data, float), cat(widx, int)

    def _precompute_fast_paths(self):
        """Vectorized kinematics, gyroscopic terms and constant joint velocities."""
        from .rigid import PointMass
        from .subsystem import FloatingFrameBody
        fq, fe_, pq, pe, self._other_bodies = [], [], [], [], []
        for b in self.system.bodies:
            oq, oe = self.q_slices[b.name].start, self.e_slices[b.name].start
            if isinstance(b, FloatingFrameBody) and type(b).qdot is FloatingFrameBody.qdot:
                fq.append([oq, oq + 1, oq + 2])
                fe_.append([oe, oe + 1, oe + 2])
            elif isinstance(b, PointMass):
                pq += [oq, oq + 1]
                pe += [oe, oe + 1]
            elif b.n_q:
                self._other_bodies.append(b)
        self._fq = np.array(fq, int).reshape(-1, 3).T
        self._fe = np.array(fe_, int).reshape(-1, 3).T
        self._pq, self._pe = np.array(pq, int), np.array(pe, int)
        # gyroscopic terms gathered by slot (one per angular-velocity component):
        # in each slot a row belongs to one body and is scaled by that body's omega
        n_slots = 1 + max((g[3] for g in self.gyro), default=-1)
        self._K_slots = []
        for slot in range(n_slots):
            K_all = sp.csr_matrix((self.ne, self.ne))
            w_row = np.full(self.ne, self.ne)  # index into (e, 0)
            for iw, sl, K, sl_ in self.gyro:
                if sl_ != slot:
                    continue
                pad = sp.vstack([sp.csr_matrix((sl.start, self.ne)), K,
                                 sp.csr_matrix((self.ne - sl.stop, self.ne))], format="csr")
                K_all = K_all + pad
                w_row[sl] = iw
            # small systems: dense products avoid scipy.sparse call overhead
            K_all = K_all.toarray() if self.ne <= DENSE_MAX else K_all.tocsr()
            self._K_slots.append((K_all, w_row))
        self._J0_mv = self.J0.toarray() if self.ne <= DENSE_MAX else self.J0
        joints = self.system.joints
        self._w_dynamic = [(j, self.lam_slices[j.name]) for j in joints
                           if not getattr(j._w, "constant", False)]
        self._w_const = (np.concatenate([j.velocity(0.0) for j in joints]) if joints else np.zeros(0))

    # -- views -------------------------------------------------------------
    def body_q_getter(self, q):
        return lambda body: q[self.q_slices[body.name]]

    def split(self, y):
        return y[self.sq], y[self.se], y[self.sl]

    def labels(self):
        """Names of all components of ``y``."""
        out = []
        for b in self.system.bodies:
            out += [f"{b.name}.q.{l}" for l in b.q_labels]
        for b in self.system.bodies:
            lab = list(b.e_labels) + [f"e{i}" for i in range(len(b.e_labels), b.n_e)]
            out += [f"{b.name}.e.{l}" for l in lab]
        for j in self.system.joints:
            out += [f"{j.name}.lam{i}" for i in range(j.n_rows)]
        return out

    # -- the right-hand side -------------------------------------------------
    def G(self, q):
        """Dense constraint matrix ``G(q)``, shape ``(nl, ne)``."""
        if not len(self.G_angles):
            return self.G0.copy()
        th = q[self.G_angles]
        if self._Gcs is None:
            self._Gcs = np.vstack([self.Gc.reshape(len(th), -1), self.Gs.reshape(len(th), -1)])
        return self.G0 + (np.concatenate([np.cos(th), np.sin(th)]) @ self._Gcs).reshape(self.nl, self.ne)

    def dG(self, q):
        """Derivatives ``dG/dtheta_k`` for the angles in ``G_angles``, shape (k, nl, ne)."""
        th = q[self.G_angles]
        return -np.sin(th)[:, None, None] * self.Gc + np.cos(th)[:, None, None] * self.Gs

    def w(self, t):
        """Prescribed constraint velocities ``w(t)``."""
        w = self._w_const.copy()
        for j, sl in self._w_dynamic:
            w[sl] = j.velocity(t)
        return w

    def w_rate(self, t):
        if not self.nl:
            return np.zeros(0)
        return np.concatenate([j.velocity_rate(t) for j in self.system.joints])

    def Je(self, e):
        """``J(e) e`` with the gyroscopic terms."""
        out = self._J0_mv @ e
        if self._K_slots:
            e_ext = np.append(e, 0.0)
            for K_all, w_row in self._K_slots:
                out -= e_ext[w_row] * (K_all @ e)
        return out

    def load_vector(self, t, q):
        """``B(q) u(t)``: generalized forces of the applied loads."""
        out = np.zeros(self.ne)
        for ld, term in self.load_terms:
            u = np.atleast_1d(np.asarray(ld.fun(t), float))
            out[term.cols] += term.matrix(q).T @ u
        for ld, cols, A, sq in self.spatial_loads:
            out[cols] += A.T @ self._spatial_load_body(ld, t, q[sq])
        return out

    @staticmethod
    def _spatial_load_body(ld, t, qb):
        """Body-frame components of a spatial load."""
        u = np.asarray(ld.fun(t), float).reshape(3)
        return ld.port.body.rotation3(qb).T @ u if ld.frame == "inertial" else u

    def f(self, t, y):
        """Right-hand side of ``E y' = f(t, y)``."""
        q, e, lam = y[self.sq], y[self.se], y[self.sl]
        out = np.empty(self.n)
        self._qdot_into(q, e, out)
        G = self.G(q)
        fe = self.Je(e) + G.T @ lam
        if self.has_R:
            fe -= self.R @ e
        if self.load_terms or self.spatial_loads:
            fe += self.load_vector(t, q)
        out[self.se] = fe
        out[self.sl] = self.w(t) - G @ e
        return out

    def _qdot_into(self, q, e, out):
        """Kinematic equations ``q' = T(q) e`` written into ``out[:nq]``."""
        if self._fq.size:
            th = q[self._fq[2]]
            c, s = np.cos(th), np.sin(th)
            vx, vy = e[self._fe[0]], e[self._fe[1]]
            out[self._fq[0]] = c * vx - s * vy
            out[self._fq[1]] = s * vx + c * vy
            out[self._fq[2]] = e[self._fe[2]]
        if self._pq.size:
            out[self._pq] = e[self._pe]
        for b in self._other_bodies:
            out[self.q_slices[b.name]] = b.qdot(q[self.q_slices[b.name]], e[self.e_slices[b.name]])

    def jacobian(self, t, y):
        """Sparse ``df/dy`` (exact), in CSC format."""
        q, e, lam = y[self.sq], y[self.se], y[self.sl]
        nq, ne, nl = self.nq, self.ne, self.nl
        blocks_r, blocks_c, blocks_v = [], [], []

        def add_dense(A, r0, c0):
            r, c = np.nonzero(A)
            blocks_r.append(r + r0)
            blocks_c.append(c + c0)
            blocks_v.append(A[r, c])

        for b in self.system.bodies:
            sq, se = self.q_slices[b.name], self.e_slices[b.name]
            a, c = b.qdot_jacobians(q[sq], e[se])
            add_dense(a, sq.start, sq.start)
            add_dense(c, sq.start, nq + se.start)
        G = self.G(q)
        if len(self.G_angles):
            dG = self.dG(q)
            # d(G^T lam)/dq  (ne x nq) and d(G e)/dq (nl x nq), column per angle
            GTl_q = np.zeros((ne, nq))
            Ge_q = np.zeros((nl, nq))
            GTl_q[:, self.G_angles] = np.einsum("kij,i->jk", dG, lam)
            Ge_q[:, self.G_angles] = np.einsum("kij,j->ik", dG, e)
        else:
            GTl_q = np.zeros((ne, nq))
            Ge_q = np.zeros((nl, nq))
        for ld, term in self.load_terms:
            dA = term.dmatrix(q)
            if dA is not None:
                u = np.atleast_1d(np.asarray(ld.fun(t), float))
                GTl_q[term.cols, term.angle] += dA.T @ u
        for ld, cols, A, sq in self.spatial_loads:
            if ld.frame != "inertial":
                continue
            f0 = A.T @ self._spatial_load_body(ld, t, q[sq])
            for i in range(sq.start, sq.stop):
                qp = q[sq].copy()
                qp[i - sq.start] += 1e-7
                GTl_q[cols, i] += (A.T @ self._spatial_load_body(ld, t, qp) - f0) / 1e-7
        add_dense(GTl_q, nq, 0)
        add_dense(-Ge_q, nq + ne, 0)
        add_dense(G.T, nq, nq + ne)
        add_dense(-G, nq + ne, nq)
        # d(J(e) e)/de = J0 - R - sum omega K - (K e) 1_omega^T
        blocks_r += [self._jc_rows + nq, self._jg_rows + nq]
        blocks_c += [self._jc_cols + nq, self._jg_cols + nq]
        blocks_v += [self._jc_data, -self._jg_data * e[self._jg_w]]
        for iw, sl, K, _ in self.gyro:
            Ke = K @ e
            blocks_r.append(np.arange(sl.start, sl.stop) + nq)
            blocks_c.append(np.full(sl.stop - sl.start, iw + nq))
            blocks_v.append(-Ke)
        return sp.csc_matrix((np.concatenate(blocks_v),
                              (np.concatenate(blocks_r), np.concatenate(blocks_c))),
                             shape=(self.n, self.n))

    def linearize(self, q=None):
        """Linearization at rest at configuration ``q``: a
        :class:`~phmech.solvers.eigen.LinearSystem` (see its ``eigenmodes``)."""
        from .solvers.eigen import linearize
        return linearize(self, q)

    # -- energy and ports --------------------------------------------------
    def hamiltonian(self, y):
        """Total stored energy for one state or an array of states (rows)."""
        y = np.atleast_2d(y)
        e = y[:, self.se]
        H = 0.5 * np.einsum("ij,ij->i", e, (self.M @ e.T).T)
        return H if H.shape[0] > 1 else H[0]

    def power(self, t, y):
        """Power entering through the prescribed velocities and the loads (and dissipated)."""
        return sum(self.power_terms(t, y).values())

    def power_terms(self, t, y):
        """Power through every port: ``{joint or load name: power}`` (W), plus ``"dissipation"``.

        A joint supplies ``w_j . lam_j`` (non-zero only for prescribed
        motions); a load ``u . y``.  Their sum is :meth:`power`.
        """
        q, e, lam = self.split(y)
        out = {}
        w = self.w(t)
        for j in self.system.joints:
            sl = self.lam_slices[j.name]
            out[j.name] = float(w[sl] @ lam[sl])
        for ld, term in self.load_terms:
            u = np.atleast_1d(np.asarray(ld.fun(t), float))
            out[ld.name] = float(u @ (term.matrix(q) @ e[term.cols]))
        for ld, cols, A, sq in self.spatial_loads:
            out[ld.name] = float(self._spatial_load_body(ld, t, q[sq]) @ (A @ e[cols]))
        if self.has_R:
            out["dissipation"] = -float(e @ (self.R @ e))
        return out

    def constraint_residual(self, t, y):
        """Velocity-level residual ``G(q) e - w(t)``."""
        q, e, _ = self.split(y)
        return self.G(q) @ e - self.w(t)

    def position_residuals(self, t, q):
        """Dictionary joint name -> position-level residual (joints that have one)."""
        get = self.body_q_getter(q)
        out = {}
        for j in self.system.joints:
            r = j.position_residual(get, t)
            if r is not None:
                out[j.name] = np.atleast_1d(r)
        return out

    # -- initial values ----------------------------------------------------
    def initial_state(self, t0=0.0, q0=None, e0=None, project="rigid", tol=1e-8):
        """Consistent initial values ``y0 = (q0, e0, lam0)``.

        ``q0`` defaults to the bodies' initial configurations and ``e0`` to
        zero (bodies at rest, undeformed).  The position-level joint
        residuals are checked: every violated joint is reported in one
        :class:`ConsistencyError`.  The velocities are then projected onto
        ``G(q0) e = w(t0)`` in the metric of ``M`` (the smallest change of
        kinetic energy): with ``project="rigid"`` (default) only the rigid
        (frame) velocities are corrected, so an undeformed body starts with
        zero flexible velocity and its rigid motion follows from the
        kinematics; where that is impossible, or with ``project="all"``,
        every velocity takes part.  With ``project=False`` a violation
        raises, naming the joints.  The multipliers are those of the hidden
        acceleration constraint.
        """
        q0 = self.q0.copy() if q0 is None else np.asarray(q0, float).copy()
        e0 = np.zeros(self.ne) if e0 is None else np.asarray(e0, float).copy()
        if q0.shape != (self.nq,) or e0.shape != (self.ne,):
            raise ValueError(f"initial_state: q0 needs {self.nq} and e0 needs {self.ne} values")
        scale = max(1.0, float(np.max(np.abs(q0[np.isfinite(q0)]), initial=0.0)))
        problems = []
        for name, r in self.position_residuals(t0, q0).items():
            if np.max(np.abs(r)) > tol * scale:
                problems.append(f"joint '{name}': position residual {np.array2string(r, precision=3)} at t={t0}")
        if problems:
            raise ConsistencyError(problems, "initial configuration")
        G = self.G(q0)
        w = self.w(t0)
        r = G @ e0 - w
        self.projection_report = {}
        if self.nl and np.max(np.abs(r), initial=0) > tol * max(1.0, np.max(np.abs(w), initial=0)):
            if not project:
                bad = [f"joint '{j.name}': velocity residual {np.array2string(r[sl], precision=3)}"
                       for j, sl in ((j, self.lam_slices[j.name]) for j in self.system.joints)
                       if np.max(np.abs(r[sl])) > tol]
                raise ConsistencyError(bad, "initial velocities")
            e0 = self._project(G, e0, w, rigid_only=(project == "rigid"))
            self.projection_report = {j.name: float(np.max(np.abs(r[self.lam_slices[j.name]])))
                                      for j in self.system.joints}
        lam0 = self.consistent_multipliers(t0, q0, e0)
        return np.concatenate([q0, e0, lam0])

    @property
    def M_lu(self):
        """Sparse LU factorization of the (constant) mass matrix, computed once."""
        if getattr(self, "_M_lu", None) is None:
            from scipy.sparse.linalg import splu
            self._M_lu = splu(sp.csc_matrix(self.M))
        return self._M_lu

    def _project(self, G, e0, w, rigid_only=True):
        if rigid_only:
            sel = np.concatenate([self.e_slices[b.name].start + np.asarray(b.frame_dofs, int)
                                  for b in self.system.bodies])
            Ms = self.M[sel][:, sel].toarray()
            Gs = G[:, sel]
            MinvGT = np.linalg.solve(Ms, Gs.T)
            A = Gs @ MinvGT
            if np.linalg.matrix_rank(A) == self.nl:
                out = e0.copy()
                out[sel] -= MinvGT @ np.linalg.solve(A, G @ e0 - w)
                return out
        MinvGT = self.M_lu.solve(np.ascontiguousarray(G.T))
        A = G @ MinvGT
        rank = np.linalg.matrix_rank(A)
        if rank < self.nl:
            raise ConsistencyError(self._redundancy_report(G), "constraints")
        return e0 - MinvGT @ np.linalg.solve(A, G @ e0 - w)

    def _redundancy_report(self, G):
        """Name the joints whose rows are linearly dependent on earlier ones."""
        problems, kept = [], np.zeros((0, self.ne))
        for j in self.system.joints:
            sl = self.lam_slices[j.name]
            for i, row in enumerate(G[sl]):
                trial = np.vstack([kept, row])
                if np.linalg.matrix_rank(trial) > kept.shape[0]:
                    kept = trial
                else:
                    problems.append(f"joint '{j.name}': row {i} is redundant (dependent on earlier joints)")
        return problems or ["constraint matrix G is rank deficient"]

    def consistent_multipliers(self, t, q, e):
        """Multipliers from the differentiated constraint ``d/dt (G e) = w'``."""
        if not self.nl:
            return np.zeros(0)
        G = self.G(q)
        # f with lam = 0 gives q' and the effort right-hand side without constraint forces
        fy = self.f(t, np.concatenate([q, e, np.zeros(self.nl)]))
        qdot, rhs_e = fy[self.sq], fy[self.se]
        Gdot_e = np.zeros(self.nl)
        if len(self.G_angles):
            Gdot_e = np.einsum("kij,j,k->i", self.dG(q), e, qdot[self.G_angles])
        MinvGT = self.M_lu.solve(np.ascontiguousarray(G.T))
        A = G @ MinvGT
        b = self.w_rate(t) - Gdot_e - G @ self.M_lu.solve(rhs_e)
        try:
            return np.linalg.solve(A, b)
        except np.linalg.LinAlgError:
            raise ConsistencyError(self._redundancy_report(G), "constraints") from None

    def derivative(self, t, y):
        """Consistent ``y'`` (the multipliers' rate is set to zero)."""
        fy = self.f(t, y)
        yd = np.zeros(self.n)
        yd[self.sq] = fy[self.sq]
        yd[self.se] = self.M_lu.solve(fy[self.se])
        return yd

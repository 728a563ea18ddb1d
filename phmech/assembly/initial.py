"""Redundant constraints and consistent initial values.

Redundant rows.  Overconstrained mechanisms (Bricard's mechanism, a planar
loop modelled with spatial joints) have joint rows that depend on others:
``G`` is rank deficient and ``G M^-1 G^T`` singular.  At assembly the rows
are tested in order (joints as added, rows within a joint) at the initial
configuration: a row whose component normal to the rows kept before it is
below ``1e-9`` of its norm is *redundant* (:mod:`phmech.assembly.redundancy`:
open chains and trees are recognized as independent from their structure,
only the closed loops are swept numerically).  Its multiplier is set to zero (the row's equation becomes
``lam_i = 0``), so the kept rows carry the joint forces and every
solver sees a regular iteration matrix.  The dependent rows keep holding
along the motion because the rows they depend on hold; the report names
them (``DescriptorDAE.redundant_rows``).  A redundant row whose
prescribed velocity contradicts the rows it depends on is an error.

Initial values.  Positions: every joint's position-level residual is
checked; when it is off, the configuration is projected onto the
constraint manifold by Newton steps along the frames' velocities (the
smallest correction in the metric of ``M``), and what was moved is
reported; failure lists every violated joint in one error.  Velocities:
projected onto ``G e = w`` in the metric of ``M`` (frame velocities first).
Multipliers: from the hidden acceleration constraint.  All solves use the
saddle-point matrix ``[[M, G^T], [G, 0]]`` of the active rows, which is
regular whenever ``M`` is positive definite on ``ker G`` (also for bodies
without rotary inertia about an axis that the joints fix).
"""
import logging

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from .redundancy import independent_rows
from .._checks import ConsistencyError
from ..bodies.motion import check_motion, frame_efforts, frame_velocity

log = logging.getLogger("phmech")


#: models with more efforts than this solve the saddle-point systems block-wise ...
BLOCK_MIN = 2000
#: ... when they have at most this many constraint rows
BLOCK_MAX_ROWS = 200


class BlockSaddle:
    """``[[M, s G^T], [G, 0]]`` solved through the block structure of ``M``.

    The frame (rigid) velocities couple to every flexible unknown of their
    body, so a sparse LU of the whole matrix fills in quadratically with the
    element count.  Here ``M`` is split into the frame part ``r`` (a few
    unknowns per body) and the rest ``f``: ``M_ff`` (banded finite-element
    blocks) is factorized alone, the small Schur complement
    ``S = M_rr - M_rf M_ff^-1 M_fr`` densely, and the constraints through the
    dense ``G M^-1 G^T`` of the few constraint rows.  Memory and time grow
    linearly with the model.  Raises when ``M`` is singular.
    """

    def __init__(self, M, G, frame, sign):
        n = M.shape[0]
        M = sp.csc_matrix(M)
        self.n, self.sign = n, sign
        self.r = np.asarray(frame, int)
        self.f = np.setdiff1d(np.arange(n), self.r)
        Mff = M[self.f][:, self.f].tocsc()
        self.Mfr = M[self.f][:, self.r].toarray()
        self.Mrf = self.Mfr.T
        self.lu_ff = splu(Mff)
        X = self.lu_ff.solve(np.asfortranarray(self.Mfr)) if len(self.r) else np.zeros((len(self.f), 0))
        S = M[self.r][:, self.r].toarray() - self.Mrf @ X
        self.X = X
        self.S = np.linalg.cholesky(0.5 * (S + S.T)) if len(self.r) else None
        self.G = G
        self.MinvGT = np.column_stack([self.solve_M(G.getrow(i).toarray().ravel()) for i in range(G.shape[0])]) \
            if G.shape[0] else np.zeros((n, 0))
        A = G @ self.MinvGT
        if G.shape[0]:
            self.A_lu = np.linalg.cholesky(0.5 * (A + A.T))

    def solve_M(self, b):
        """``M^-1 b``."""
        out = np.empty(self.n)
        yf = self.lu_ff.solve(b[self.f]) if len(self.f) else np.zeros(0)
        if len(self.r):
            rhs = b[self.r] - self.Mrf @ yf
            xr = np.linalg.solve(self.S.T, np.linalg.solve(self.S, rhs))
            out[self.r] = xr
            out[self.f] = yf - self.X @ xr
        else:
            out[self.f] = yf
        return out

    def solve(self, b):
        """Solution of the saddle-point system for the right-hand side ``b = (r, s)``."""
        r, s_ = b[:self.n], b[self.n:]
        y = self.solve_M(r)
        if not self.G.shape[0]:
            return y
        # M x + sign G^T mu = r, G x = s  ->  sign (G M^-1 G^T) mu = G M^-1 r - s
        rhs = self.G @ y - s_
        mu = np.linalg.solve(self.A_lu.T, np.linalg.solve(self.A_lu, rhs)) / self.sign
        return np.r_[y - self.sign * (self.MinvGT @ mu), mu]


class InitialValuesMixin:
    """Redundancy detection, consistent initial values and consistent derivatives."""

    def _find_redundant_rows(self, q):
        L = self.layout
        G = self._G_at(q)
        row_joint = np.repeat(np.arange(len(L.joints)), [j.n_rows for j in L.joints])
        col_body = np.repeat(np.arange(len(L.bodies)), [b.ne for b in L.bodies])
        found = independent_rows(G, row_joint, col_body)

        def owners(rows):      # (joint, row within the joint) of constraint rows
            return [(L.joints[row_joint[i]], i - L.lam_slices[L.joints[row_joint[i]].name].start) for i in rows]
        if len(found.zero_rows):
            raise ConsistencyError([f"joint '{j.name}': row {k} is zero at the initial configuration "
                                    "(the port has no velocity rows in that direction)"
                                    for j, k in owners(found.zero_rows)], "constraints")
        self.active[:] = found.active
        redundant = np.flatnonzero(~self.active)
        self.redundant_rows = [(j.name, int(k)) for j, k in owners(redundant)]
        if not self.redundant_rows:
            return
        # a dependent row must not prescribe a velocity the rows it depends on contradict
        # (it depends on the kept rows of its loop only)
        w0 = self.w(0.0)
        G = sp.csr_matrix(G)
        mismatch = np.zeros(self.nl)
        for rows, cols in found.loops:
            act, red = rows[self.active[rows]], rows[~self.active[rows]]
            if len(red):
                Gc = G[:, cols]
                coef = np.linalg.lstsq(Gc[act].toarray().T, Gc[red].toarray().T, rcond=None)[0]
                mismatch[red] = w0[red] - coef.T @ w0[act]
        bad = [f"joint '{n}': row {k} is redundant but prescribes a velocity that contradicts "
               f"the other joints (mismatch {m:.3g})"
               for (n, k), m in zip(self.redundant_rows, mismatch[redundant])
               if abs(m) > 1e-9 * (1 + np.abs(w0).max())]
        if bad:
            raise ConsistencyError(bad, "constraints (contradictory)")
        log.info("redundant constraint rows (multipliers set to zero): %s",
                 ", ".join(f"{n}[{k}]" for n, k in self.redundant_rows))

    # -- saddle-point solves ----------------------------------------------
    def _saddle(self, G, sel=None, sign=1.0):
        """Solver of ``[[M_ss, sign G_s^T], [G_s, 0]]`` over effort indices ``sel`` (default all).

        Large models with few constraint rows use the block structure (see
        :class:`BlockSaddle`); the others one sparse LU of the whole matrix.
        """
        M = self.M if sel is None else self.M[sel][:, sel]
        Gs = G if sel is None else G[:, sel]
        Gsp = sp.csr_matrix(Gs)
        if sel is None and self.ne > BLOCK_MIN and Gsp.shape[0] <= BLOCK_MAX_ROWS:
            try:
                return BlockSaddle(self.M, Gsp, self.layout.frame_indices(), sign)
            except (RuntimeError, np.linalg.LinAlgError):
                pass    # singular M: the full saddle-point matrix may still be regular
        K = sp.bmat([[M, sign * Gsp.T], [Gsp, None]], format="csc")
        if K.shape[0] == 0:
            return None
        return splu(K)

    def _G_at(self, q):
        """``G(q)``, kept for the last ``q`` asked here (the set-up evaluates it at ``q0``
        several times; a joint's rows cost as much as the rest of the set-up)."""
        last = getattr(self, "_G_last", None)
        if last is None or not np.array_equal(last[0], q):
            last = self._G_last = (np.array(q, float), self.G(q))
        return last[1]

    def _active_G(self, q):
        return self._G_at(q)[np.flatnonzero(self.active)]

    # -- positions ---------------------------------------------------------
    def _position_vector(self, t, q):
        """Residual of every row (zeros where a joint has no position level), active rows only."""
        get = self.layout.q_getter(q)
        out = np.zeros(self.nl)
        for j in self.system.joints:
            r = j.position_residual(get, t)
            if r is not None:
                out[self.lam_slices[j.name]] = r
        return out[self.active]

    def project_positions(self, t, q, tol=1e-10, max_iter=20):
        """Newton projection of ``q`` onto the position-level constraints; returns the new ``q``.

        Each step moves the frames by the velocity ``delta`` of least kinetic
        metric with ``G delta = -g`` (``g`` the residuals), applied with each
        body's own retraction (quaternions stay unit).
        """
        L = self.layout
        sel = L.frame_indices()
        q = np.array(q, float)
        scale = max(1.0, float(np.max(np.abs(q), initial=0.0)))
        for it in range(max_iter + 1):
            g = self._position_vector(t, q)
            if np.max(np.abs(g), initial=0.0) <= tol * scale:
                # redundant rows hold when the geometry is consistent, else it is impossible
                problems = self._position_problems(t, q, 1e3 * tol * scale)
                if problems:
                    raise ConsistencyError(problems, "initial configuration (the joints cannot all "
                                           "be satisfied: redundant rows are violated after projection)")
                return q, it
            if it == max_iter:
                break
            G = self._active_G(q)
            try:
                lu = self._saddle(G, sel)
                x = lu.solve(np.r_[np.zeros(len(sel)), -g])
            except RuntimeError:
                break
            delta = np.zeros(self.ne)
            delta[sel] = x[:len(sel)]
            for b in L.bodies:
                if b.nq:
                    sq, se = L.q_slices[b.name], L.e_slices[b.name]
                    q[sq] = b.retract(q[sq], delta[se][b.frame_dofs])
        raise ConsistencyError(self._position_problems(t, q, tol * scale), "initial configuration "
                               "(the Newton projection onto the joints did not converge)")

    def _position_problems(self, t, q, tol):
        return [f"joint '{name}': position residual {np.array2string(r, precision=3)} at t={t}"
                for name, r in self.position_residuals(t, q).items() if np.max(np.abs(r)) > tol]

    # -- initial state -------------------------------------------------------
    def initial_state(self, t0=0.0, q0=None, e0=None, project="rigid", positions="project", tol=1e-8,
                      velocities=None):
        """Consistent initial values ``y0 = (q0, e0, lam0)``.

        Parameters
        ----------
        q0, e0 : arrays, optional
            Default: the bodies' initial configurations and the efforts of the
            velocities the bodies were given (``velocity=``, ``angular_velocity=``
            of their constructors), zero elsewhere (at rest, undeformed).  A given
            ``e0`` is the whole effort vector: the bodies' own velocities are then
            not used.
        velocities : dict, optional
            ``{body or name: motion}``, the initial motion of bodies with a frame in
            inertial components (:mod:`phmech.bodies.motion`): ``motion`` is the
            velocity of the frame origin P [m/s], or a dict with ``"velocity"``
            and/or ``"angular_velocity"`` (a number planar, 3 components spatial)
            [rad/s].  It replaces what it names of the body's own velocities (or of
            ``e0``); flexible variables keep their values.
        project : ``"rigid"`` (default), ``"all"`` or False
            Velocities are projected onto ``G(q0) e = w(t0)`` in the metric
            of ``M`` (the smallest change of kinetic energy): ``"rigid"``
            corrects only the frame velocities, so an undeformed body starts
            with zero flexible velocity (where that is impossible every
            velocity takes part); with False a violation raises, naming the joints.
        positions : ``"project"`` (default) or ``"check"``
            A violated position-level joint residual is corrected by Newton
            projection (``self.projection_report`` says by how much, per
            body) or, with ``"check"``, raises one :class:`ConsistencyError`
            listing every violated joint.
        tol : float
            Relative tolerance of the checks.

        The multipliers are those of the hidden acceleration constraint.  Stated
        velocities that the joints do not allow are projected like any other
        (``project``): ``self.projection_report["stated_velocities"]`` holds, per
        body, the given and the projected inertial motion, and a warning names them.
        """
        with self.setup_clock.timing():
            return self._initial_state(t0, q0, e0, project, positions, tol, velocities)

    def _stated_motion(self, velocities, own):
        """``{body: (v, omega)}``: the inertial motion stated for each body (checked), from the
        bodies' own velocities when ``own`` and from ``velocities``."""
        stated = {}
        if own:
            for b in self.system.bodies:
                v, w = getattr(b, "initial_velocity", None), getattr(b, "initial_angular_velocity", None)
                if v is not None or w is not None:
                    stated[b] = (v, w)
        if velocities is None:
            return stated
        if not isinstance(velocities, dict):
            raise TypeError(f"initial_state: velocities must be a dict {{body or name: motion}}, got {velocities!r}")
        by_name = {b.name: b for b in self.system.bodies}
        for key, motion in velocities.items():
            name = key if isinstance(key, str) else getattr(key, "name", None)
            body = by_name.get(name)
            if body is None or not (isinstance(key, str) or body is key):
                raise ValueError(f"initial_state: velocities names {key!r}, which is no body of the system; "
                                 f"the bodies are {sorted(by_name)}")
            if isinstance(motion, dict):
                unknown = sorted(set(motion) - {"velocity", "angular_velocity"})
                if unknown:
                    raise ValueError(f"initial_state: velocities of body '{name}': unknown entries {unknown}; "
                                     "give 'velocity' and/or 'angular_velocity'")
                v, w = check_motion(body, motion.get("velocity"), motion.get("angular_velocity"))
            else:
                v, w = check_motion(body, motion)
            old = stated.get(body, (None, None))
            stated[body] = (old[0] if v is None else v, old[1] if w is None else w)
        return stated

    def _initial_state(self, t0, q0, e0, project, positions, tol, velocities=None):
        stated = self._stated_motion(velocities, own=e0 is None)
        q0 = self.q0.copy() if q0 is None else np.array(q0, float)
        e0 = np.zeros(self.ne) if e0 is None else np.array(e0, float)
        if q0.shape != (self.nq,) or e0.shape != (self.ne,):
            raise ValueError(f"initial_state: q0 needs {self.nq} and e0 needs {self.ne} values, "
                             f"got shapes {q0.shape} and {e0.shape}")
        bad = []
        if not (np.all(np.isfinite(q0)) and np.all(np.isfinite(e0))):
            bad = [f"q0[{i}] ({lab}) = {v}" for i, (lab, v) in enumerate(zip(self.labels()[:self.nq], q0))
                   if not np.isfinite(v)]
            bad += [f"e0[{i}] = {v}" for i, v in enumerate(e0) if not np.isfinite(v)]
        if bad:
            raise ValueError("initial_state: non-finite initial values: " + ", ".join(bad))
        if positions not in ("project", "check"):
            raise ValueError(f"initial_state: positions must be 'project' or 'check', got {positions!r}")
        scale = max(1.0, float(np.max(np.abs(q0), initial=0.0)))
        self.projection_report = {}
        problems = self._position_problems(t0, q0, tol * scale)
        if problems:
            if positions == "check":
                raise ConsistencyError(problems, "initial configuration")
            q1, iters = self.project_positions(t0, q0)
            moved = {b.name: float(np.max(np.abs(q1[self.q_slices[b.name]] - q0[self.q_slices[b.name]])))
                     for b in self.system.bodies if b.nq}
            self.projection_report["positions"] = {k: v for k, v in moved.items() if v > 0}
            log.warning("initial configuration projected onto the joints in %d Newton steps; "
                        "violated: %s; largest change per body: %s", iters, "; ".join(problems),
                        self.projection_report["positions"])
            q0 = q1
        for body, (v, w) in stated.items():          # the inertial motion at the (projected) configuration
            idx, vals = frame_efforts(body, q0[self.q_slices[body.name]], v, w)
            e0[np.arange(self.ne)[self.e_slices[body.name]][idx]] = vals
        e_stated = e0.copy()
        G = self._active_G(q0)
        w = self.w(t0)[self.active]
        r = G @ e0 - w
        if len(r) and np.max(np.abs(r)) > tol * max(1.0, np.max(np.abs(w), initial=0)):
            if not project:
                rr = self._G_at(q0) @ e0 - self.w(t0)
                raise ConsistencyError(
                    [f"joint '{j.name}': velocity residual {np.array2string(rr[self.lam_slices[j.name]], precision=3)}"
                     for j in self.system.joints if np.max(np.abs(rr[self.lam_slices[j.name]])) > tol],
                    "initial velocities")
            rr = self._G_at(q0) @ e0 - self.w(t0)
            self.projection_report["velocities"] = {
                j.name: float(np.max(np.abs(rr[self.lam_slices[j.name]]), initial=0.0))
                for j in self.system.joints}
            e0 = self._project_velocities(G, e0, w, rigid_only=(project == "rigid"))
            self._report_stated(stated, q0, e_stated, e0, tol)
        lam0 = self.consistent_multipliers(t0, q0, e0)
        return np.concatenate([q0, e0, lam0])

    def _report_stated(self, stated, q0, given, projected, tol):
        """Record and report the stated motions that the projection onto the joints changed."""
        changed = {}
        for body, (v, w) in stated.items():
            sq, se = self.q_slices[body.name], self.e_slices[body.name]
            if np.max(np.abs(projected[se] - given[se]), initial=0.0) > tol * max(1.0, np.abs(given[se]).max()):
                v0, w0 = frame_velocity(body, q0[sq], given[se])
                changed[body.name] = {"given": (v0 if v is None else v, w0 if w is None else w.item() if w.size == 1
                                                else w),
                                      "projected": frame_velocity(body, q0[sq], projected[se])}
        if not changed:
            return
        self.projection_report["stated_velocities"] = changed

        def vector(a):
            a = np.atleast_1d(np.asarray(a, float))
            a = np.where(np.abs(a) > 1e-12 * max(1.0, np.abs(a).max()), a, 0.0)    # round-off shown as 0
            return f"{a[0]:.6g}" if a.size == 1 else "(" + ", ".join(f"{x:.6g}" for x in a) + ")"

        def text(motion):
            v, w = motion
            return f"velocity {vector(v)}" + ("" if w is None else f", angular velocity {vector(w)}")
        log.warning("initial velocities projected onto the joints (inertial components): %s",
                    "; ".join(f"body '{n}': given {text(c['given'])} -> {text(c['projected'])}"
                              for n, c in changed.items()))

    def _project_velocities(self, G, e0, w, rigid_only=True):
        """Smallest change of ``e0`` in the metric of ``M`` with ``G e = w``."""
        rhs = w - G @ e0
        if rigid_only:
            sel = self.layout.frame_indices()
            try:
                lu = self._saddle(G, sel)
                x = lu.solve(np.r_[np.zeros(len(sel)), rhs])
                if np.all(np.isfinite(x)):
                    out = e0.copy()
                    out[sel] += x[:len(sel)]
                    if np.max(np.abs(G @ out - w), initial=0) <= 1e-9 * max(1.0, np.abs(w).max(initial=0)):
                        return out
            except RuntimeError:
                pass
        try:
            lu = self._saddle(G)
        except RuntimeError:
            raise ConsistencyError(self._singular_mass_report(G), "model") from None
        return e0 + lu.solve(np.r_[np.zeros(self.ne), rhs])[:self.ne]

    def _singular_mass_report(self, G):
        """Name the bodies of a motion that the joints allow and that has no inertia."""
        msg = ("the saddle-point matrix [[M, G^T], [G, 0]] is singular: the mass matrix is not "
               "positive definite on the motions the joints allow")
        if self.ne > 3000:
            return [msg]
        from scipy.linalg import null_space
        Z = null_space(G) if G.shape[0] else np.eye(self.ne)
        Mz = Z.T @ (self.M @ Z)
        w, V = np.linalg.eigh(0.5 * (Mz + Mz.T))
        if not len(w) or w[0] > 1e-12 * max(abs(w[-1]), 1e-300):
            return [msg]
        v = Z @ V[:, 0]
        names = [b.name for b in self.system.bodies
                 if np.max(np.abs(v[self.e_slices[b.name]])) > 1e-6 * np.max(np.abs(v))]
        return [f"{msg}: body/bodies {names} can move without kinetic energy (e.g. a slender bar "
                "without axial inertia spinning about its axis); add inertia or a joint that fixes it"]

    def _accelerations(self, t, q, e):
        """Consistent ``(e', lam)`` from ``M e' = rhs + G^T lam`` and ``G e' + (dG/dt) e = w'``."""
        G = self._active_G(q)
        fy = self.f(t, np.concatenate([q, e, np.zeros(self.nl)]))
        qdot, rhs = fy[self.sq], fy[self.se]
        _, Ge_q = self.G_derivatives(q, e, np.zeros(self.nl))
        Gdot_e = (Ge_q @ qdot)[self.active]
        try:
            lu = self._saddle(G, sign=-1.0)
        except RuntimeError:
            raise ConsistencyError(self._singular_mass_report(G), "model") from None
        x = lu.solve(np.r_[rhs, self.w_rate(t)[self.active] - Gdot_e])
        lam = np.zeros(self.nl)
        lam[self.active] = x[self.ne:]
        return x[:self.ne], lam

    def consistent_multipliers(self, t, q, e):
        """Multipliers from the differentiated constraint ``d/dt (G e) = w'``."""
        if not self.nl:
            return np.zeros(0)
        return self._accelerations(t, q, e)[1]

    def derivative(self, t, y):
        """Consistent ``y'`` (accelerations from the hidden constraint; multipliers' rate zero)."""
        q, e, _ = self.split(y)
        yd = np.zeros(self.n)
        fy = self.f(t, y)
        yd[self.sq] = fy[self.sq]
        yd[self.se] = self._accelerations(t, q, e)[0] if self.nl else self._saddle(np.zeros((0, self.ne))).solve(fy[self.se])
        return yd

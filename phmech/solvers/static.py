"""Static equilibria of an assembled system under its loads, springs and joint reactions.

A static equilibrium is a state ``y* = (q*, e*, lam*)`` at which nothing moves:
the frame velocities vanish, the effort equations balance
(``0 = J0 e* + f(q*, e*) + G(q*)^T lam*``: gravity, loads, springs and their
preloads against the stresses of the flexible bodies and the joint
reactions) and the joints hold at position level.  The stresses of the
flexible bodies are efforts, so ``e*`` is not zero under a load.

Newton's method on the constraint manifold
------------------------------------------
The unknowns are a frame motion ``delta`` (the frame velocities over unit
time: each body moves by its own retraction, quaternions stay unit), the
efforts ``e`` and the multipliers of the independent constraint rows.  The
conditions and their exact derivatives, all taken from the model's one
residual ``f(t, y)`` and its Jacobian ``A = df/dy``
(:meth:`~phmech.assembly.dae.DescriptorDAE.jacobian`):

======================  ===========================  ==========================================
condition               rows                         derivative
======================  ===========================  ==========================================
effort balance          ``f_e(q, e, lam) = 0``        ``A_eq T`` (``delta``), ``A_ee``, ``A_el``
frames at rest          ``e[frames] = 0``             identity
joints hold             ``g(q) = 0``                  ``G[:, frames]`` (``delta``)
constitutive stresses   ``sigma = s(q)``              ``-ds/dq T``, identity
======================  ===========================  ==========================================

``T = A_qe`` is the kinematic map ``q' = T(q) e``.  Bodies that keep a
displacement in the configuration beside stress states (the geometrically
consistent beams) add their flexible velocities to the motions (the
displacement moved by its rate over unit time) and replace their stress-rate
rows, which say nothing at rest, by the constitutive relation
``sigma = stresses_of(q)`` (:mod:`._constitutive`); the rows of their
velocities then balance the stresses of the deformed beam against the loads.  A joint without a
position level (a prescribed velocity) holds its velocity rows
``G e = w`` instead.  A singular iteration matrix means a motion that no
stiffness resists: a neutral one (a spherical pendulum's spin about its own
axis) takes the least-squares step of least norm and stays where it is; one
along which a load acts (a mechanism under a load it cannot carry, a free
body under gravity) leaves a residual that stops falling, and the error
names the variables of that motion.
"""
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ._constitutive import stress_bodies, stresses_and_tangent
from ._newton import converged

#: above this many unknowns the Newton systems are solved sparse
DENSE_MAX = 400
#: singular values of the equilibrated Newton matrix below this share of the largest are neutral motions
NEUTRAL = 1e-9


class EquilibriumError(RuntimeError):
    """No static equilibrium was found (the message gives the cause and the variables)."""


def _position_level(dae, t):
    """Which active constraint rows belong to a joint with a position level (the others hold
    their velocity rows)."""
    get = dae.layout.q_getter(dae.q0)
    has = np.zeros(dae.nl, bool)
    for j in dae.system.joints:
        if j.position_residual(get, t) is not None:
            has[dae.lam_slices[j.name]] = True
    return has[dae.active]


class _Conditions:
    """The equilibrium conditions of ``dae`` at time ``t`` and their Jacobian; with ``turning =
    (axis, point, rate)`` those of the relative equilibrium turning about that axis."""

    def __init__(self, dae, t, turning=None):
        self.dae, self.t, self.turning = dae, t, turning
        #: bodies with stress states beside a displacement (:mod:`._constitutive`)
        self.laws = stress_bodies(dae)
        #: the motions: every frame's velocities and the flexible velocities of the bodies above
        flexible = [dae.layout.e_index(b, b.flexible_velocity_dofs) for b, *_ in self.laws]
        self.motions = np.sort(np.concatenate([dae.layout.frame_indices()] + flexible)).astype(int)
        self.deformed = {b.name for b, *_ in self.laws}
        self.stress_rows = np.concatenate([se for *_, se, _ in self.laws]).astype(int) if self.laws else None
        self.act = np.flatnonzero(dae.active)
        nf, ne, na = len(self.motions), dae.ne, len(self.act)
        self.n = nf + ne + na
        self.x_slices = (slice(0, nf), slice(nf, nf + ne), slice(nf + ne, self.n))
        self.has = _position_level(dae, t)
        #: subtracted from the residual: ``(1 - s) r(y_start)`` on a load step's path (:func:`_load_steps`)
        self.offset = None
        #: ``M e'`` along the steady rotation, ``MC e``: the efforts in inertial components turn
        #: with the assembly (the bodies' ``steady_effort_rate``), None when none do
        self.MC = None
        if turning is not None:
            rows, cols, vals = [], [], []
            for b in dae.layout.bodies:
                if hasattr(b, "steady_effort_rate"):
                    C = sp.coo_matrix(b.steady_effort_rate(turning[0]))
                    o = dae.e_slices[b.name].start
                    rows.append(o + C.row)
                    cols.append(o + C.col)
                    vals.append(C.data)
            if rows:
                C = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                                  shape=(dae.ne, dae.ne))
                self.MC = (sp.csr_matrix(dae.M) @ (turning[2] * C)).tocsr()

    def state(self, q, e, lam_act):
        dae = self.dae
        y = np.zeros(dae.n)
        y[dae.sq], y[dae.se] = q, e
        y[dae.nq + dae.ne + self.act] = lam_act
        return y

    def residual(self, y):
        """``(balance, frame velocities, joint rows)`` stacked, and which joint rows are positions."""
        dae = self.dae
        q, e, lam = dae.split(y)
        vel = dae._active_G(q) @ e - dae.w(self.t)[self.act]
        rows = np.where(self.has, dae._position_vector(self.t, q), vel)
        balance = dae.f(self.t, y)[dae.se]
        if self.MC is not None:
            balance = balance - self.MC @ e
        for b, sq, se, sd in self.laws:         # the constitutive stresses for their idle rate rows
            balance[se] = e[se] - b.stresses_of(q[sq])[sd]
        r = np.concatenate([balance, e[self.motions] - self.frame_velocity(q), rows])
        return (r if self.offset is None else r - self.offset), self.has

    def frame_velocity(self, q):
        """The motions' velocities: zero at rest, the assembly's rigid rotation when turning (a
        deformed body turning in its deformed shape, ``rigid_motion_map``, has flexible
        velocities too)."""
        if self.turning is None:
            return np.zeros(len(self.motions))
        axis, point, rate = self.turning
        dae = self.dae
        v = np.zeros(dae.ne)
        for b in dae.layout.bodies:
            if len(b.frame_dofs):
                qb, se = q[dae.q_slices[b.name]], dae.e_slices[b.name]
                w = rate * np.asarray(b.rotation_velocity(qb, axis, point), float)
                if b.name in self.deformed:
                    v[se] = b.rigid_motion_map(qb) @ w
                else:
                    v[se.start + b.frame_dofs] = w
        return v[self.motions]

    def frame_velocity_motion(self, q, h=1e-7):
        """``d frame_velocity / d delta`` (central differences along each frame motion: the rigid
        rotation's velocity field is a few products of the configuration)."""
        nf = len(self.motions)
        D = np.zeros((nf, nf))
        if self.turning is None:
            return D
        for j in range(nf):
            d = np.zeros(nf)
            d[j] = h
            D[:, j] = (self.frame_velocity(self.move(q, d)) - self.frame_velocity(self.move(q, -d))) / (2 * h)
        return D

    def jacobian(self, y, has, constitutive=True):
        """The conditions' Jacobian; ``constitutive=False`` keeps the stress-rate rows of the
        bodies with stress states (the linearized motion, whose constitutive relation is an
        invariant) instead of the constitutive rows of the conditions."""
        dae, nq, ne = self.dae, self.dae.nq, self.dae.ne
        A = sp.csr_matrix(dae.jacobian(self.t, y))
        se, sl = slice(nq, nq + ne), nq + ne + self.act
        T = A[:nq, se][:, self.motions]
        G = sp.csr_matrix(dae._active_G(y[dae.sq]))
        Gf = G[:, self.motions]
        P, V = sp.diags(has.astype(float)), sp.diags((~has).astype(float))
        nf = len(self.motions)
        Ief = sp.csr_matrix((np.ones(nf), (np.arange(nf), self.motions)), shape=(nf, ne))
        Vf = None if self.turning is None else sp.csr_matrix(-self.frame_velocity_motion(y[dae.sq]))
        top = [A[se, :nq] @ T, A[se, se] if self.MC is None else A[se, se] - self.MC, A[se][:, sl]]
        if self.laws and constitutive:
            stress = np.zeros(ne, bool)
            stress[self.stress_rows] = True
            keep = sp.diags((~stress).astype(float))
            top = [keep @ X for X in top]
            law = np.zeros((ne, nf))
            for b, sq, rows, sd in self.laws:
                law[rows] = -stresses_and_tangent(b, y[sq], sd)[1] @ T[sq].toarray()
            top[0] = top[0] + sp.csr_matrix(law)
            top[1] = top[1] + sp.diags(stress.astype(float))
        return sp.bmat([top,
                        [Vf, Ief, None],
                        [P @ Gf, V @ G, None]], format="csc")

    def move(self, q, delta):
        """The configuration moved by the motion ``delta``: a displacement by its rate
        ``q'(q, delta)`` over unit time, then each frame by its body's retraction (to first
        order ``T delta``, the derivative the Jacobian uses)."""
        dae = self.dae
        v = np.zeros(dae.ne)
        v[self.motions] = delta
        q = q.copy()
        for b in dae.layout.bodies:
            if b.nq:
                sq, se = dae.q_slices[b.name], dae.e_slices[b.name]
                qb = q[sq]
                if b.name in self.deformed:
                    d = b.displacement_dofs
                    qb[d] += b.qdot(qb, v[se])[d]
                q[sq] = b.retract(qb, v[se][b.frame_dofs])
        return q

    def unknown_labels(self):
        labels = self.dae.labels()
        nq, ne = self.dae.nq, self.dae.ne
        return ([f"motion of {labels[nq + i]}" for i in self.motions] + [labels[nq + i] for i in range(ne)]
                + [labels[nq + ne + i] for i in self.act])


def _free_motion(cond, J, r):
    """A sentence naming where the residual ``r`` falls outside the range of ``J``: the rows of
    the loads that no stiffness carries."""
    if J.shape[0] > 4 * DENSE_MAX:
        return "a motion that nothing resists"
    U, s, _ = np.linalg.svd(J.toarray())
    null = s <= 1e-12 * max(s[0] if s.size else 0.0, 1e-300)
    rp = U[:, null] @ (U[:, null].T @ r)
    top = [i for i in np.argsort(-np.abs(rp))[:3] if abs(rp[i]) > 0.1 * np.max(np.abs(rp))]
    return ("no spring or joint carries the load in "
            + ", ".join(_residual_label(cond, np.eye(len(r))[i]) for i in top))


def _solve(J, r):
    """``(x, singular)``: the Newton step; for a singular ``J`` the least-squares step of least
    norm (a neutral motion, e.g. a spherical pendulum's spin about its axis, stays where it is)."""
    if J.shape[0] > DENSE_MAX:
        try:
            with np.errstate(all="ignore"):
                x = spla.spsolve(J, r)
        except RuntimeError:                       # SuperLU: "factor is exactly singular"
            x = np.full(J.shape[0], np.nan)
        if np.all(np.isfinite(x)):
            return x, False
    Jd = J.toarray()
    # rows and columns equilibrated first: the stress rows' compliances and the stiff joints
    # differ by many orders, and an unscaled singular-value cut would drop a regular direction
    # (a spinning blade's: 1e-12 of the largest unscaled, 1.6e-5 scaled); a neutral motion is
    # round-off, 1e-10 or less scaled (a hanging rod's spin about itself), so the cut is NEUTRAL
    dr = _inverse_max(np.abs(Jd).max(axis=1, initial=0.0))
    dc = _inverse_max(np.abs(dr[:, None] * Jd).max(axis=0, initial=0.0))
    U, s, Vt = np.linalg.svd(dr[:, None] * Jd * dc[None, :])
    keep = s > NEUTRAL * max(s[0] if s.size else 0.0, 1e-300)
    x = dc * (Vt[keep].T @ ((U[:, keep].T @ (dr * r)) / s[keep]))
    return x, not bool(np.all(keep))


def _inverse_max(m):
    """``1 / m`` where ``m > 0``, 1 elsewhere (the scaling of a zero row or column)."""
    out = np.ones_like(m)
    np.divide(1.0, m, out=out, where=m > 0)
    return out


def equilibrium(dae, q0=None, t=0.0, tol=1e-10, max_iter=50, max_rotation=0.5, load_steps=1):
    """The static equilibrium near the configuration ``q0``.

    Parameters
    ----------
    dae : DescriptorDAE
        The assembled system (``System.assemble()``).
    q0 : array, optional
        Starting configuration (default: the initial one, ``dae.q0``).
    t : float
        Time of the loads and of the joints' prescribed positions.
    tol : float
        Relative tolerance of the Newton correction and of the residual.
    max_iter : int
        Newton iterations at most.
    max_rotation : float
        Largest frame motion of one Newton step [rad or length]: the step is shortened
        beyond it (a far start does not jump past the equilibrium).
    load_steps : int
        Steps of the continuation in the load from the start (1: Newton from the start
        alone): see :func:`_load_steps`.  For large deflections (a heavy, soft structure, a
        preloaded network) and to find a limit load.

    Returns
    -------
    array
        The equilibrium state ``y = (q, e, lam)``: frame velocities zero, the flexible
        bodies' stresses and the joint reactions as they balance the loads.

    Raises
    ------
    EquilibriumError
        When the iteration matrix is singular (a free motion, named) or Newton does
        not converge; with ``load_steps`` also at a limit point of the equilibrium path
        (snap-through: no equilibrium near the path beyond it), with its load factor.
    """
    if isinstance(load_steps, bool) or not isinstance(load_steps, (int, np.integer)) or load_steps < 1:
        raise ValueError(f"equilibrium: load_steps must be a positive integer, got {load_steps!r}")
    cond = _Conditions(dae, t)
    if load_steps == 1:
        return _newton(cond, q0, tol, max_iter, max_rotation, "equilibrium", "no static equilibrium")
    return _load_steps(cond, q0, int(load_steps), tol, max_iter, max_rotation)


def _load_steps(cond, q0, n, tol, max_iter, max_rotation):
    """The equilibrium at the end of the path ``r(y) = (1 - s) r(y_start)``, ``s`` from 0 to 1.

    At ``s = 0`` the start solves it; at ``s = 1`` it is the equilibrium.  Under dead loads
    from an unloaded start (stresses zero, springs at rest) ``r(y_start)`` is the load
    itself, so ``s`` is the load factor: load stepping.  Each step from ``s`` to ``s + ds``
    (first ``ds = 1 / n``) predicts along the path's tangent, ``A dy = -r(y_start) ds``, and
    corrects by the Newton iteration of :func:`equilibrium`; a correction larger than half
    the predicted step (the path bends sharply, or Newton went to another branch) halves
    ``ds``.  Where ``ds`` falls below ``1e-4 / n`` the path has a limit point: the load
    cannot grow past that factor on this branch (snap-through), and the error says so
    instead of jumping to another equilibrium."""
    dae = cond.dae
    sf, se, sl = cond.x_slices
    q, e, lam = _start(cond, q0, "equilibrium")
    y = cond.state(q, e, lam)
    r0, has = cond.residual(y)
    scale = max(1.0, float(np.max(np.abs(r0))))
    s, ds, ds_min = 0.0, 1.0 / n, 1e-4 / n
    try:
        while s < 1.0:
            s1 = min(1.0, s + ds)
            dx, _ = _solve(cond.jacobian(y, has), -r0 * (s1 - s))   # the Jacobian does not see the offset
            start = (cond.move(q, dx[sf]), e + dx[se], lam + dx[sl])
            cond.offset = (1.0 - s1) * r0
            try:
                y1 = _newton(cond, start[0], tol, max_iter, max_rotation, "equilibrium", "no static equilibrium",
                             start=start[1:], scale=scale)
                q1, e1, _ = dae.split(y1)
                lam1 = y1[dae.nq + dae.ne + cond.act]
                moved = np.concatenate([q1 - start[0], e1 - start[1], lam1 - start[2]])
                ok = np.max(np.abs(moved)) <= 0.5 * np.max(np.abs(dx)) + np.sqrt(tol) * (1.0 + np.max(np.abs(dx)))
            except EquilibriumError:
                ok = False
            if ok:
                s, y, q, e, lam = s1, y1, q1, e1, lam1
                ds = min(2.0 * ds, 1.0 / n)
                continue
            ds *= 0.5
            if ds < ds_min:
                raise EquilibriumError(f"equilibrium: the equilibrium path from the start has a limit point near "
                                       f"the load factor {s:.6g} (load steps of {n}): no equilibrium near it carries "
                                       "more of the load (snap-through, or a load beyond what the structure "
                                       "carries); the equilibrium at the full load, if any, is on another branch")
        return y
    finally:
        cond.offset = None


def relative_equilibrium(dae, axis, rate, point=(0.0, 0.0, 0.0), q0=None, t=0.0, tol=1e-10, max_iter=50,
                         max_rotation=0.5):
    """The relative equilibrium near ``q0`` of an assembly turning rigidly about an axis.

    Every body turns at ``rate`` [rad/s] about the inertial ``axis`` through ``point``: the
    frames' velocities are the rigid rotation's (:meth:`~phmech.bodies.base.Body.rotation_velocity`
    of each body), the effort balance holds with them (centrifugal and gyroscopic terms, gravity
    along the axis, springs, the joint reactions), the joints hold.  A flyball governor, a
    conical pendulum, a rotor with appendages: the steady motion whose body-frame velocities,
    deformation and reactions are constant.  The conditions are those of :func:`equilibrium`
    with the frame rows ``e_frames = rate * v(q)`` instead of ``e_frames = 0``, solved by the
    same Newton iteration; the turning of the whole assembly about the axis is the neutral
    motion of its least-norm steps.  A drive of the assembly (a driven shaft) must turn at
    ``rate`` (its velocity row is a condition).  Loads across the axis (gravity not along it)
    leave no relative equilibrium: the error names the unbalanced rows.  A geometrically
    consistent beam turns in its deformed shape (its velocity field is the rigid rotation of
    the deformed centreline) with its stresses given by its constitutive law, so a blade on a
    hub offset from the axis, with a tip body, stretches and bends to its steady shape.

    Parameters
    ----------
    dae : DescriptorDAE
    axis : 3-vector
        The inertial spin axis (normalized here); ``(0, 0, 1)`` for planar models.
    rate : float
        The spin rate [rad/s] (sign by the right-hand rule about ``axis``).
    point : 3-vector
        A point of the axis.
    q0, t, tol, max_iter, max_rotation
        As in :func:`equilibrium`; start from a configuration near the wanted branch (a
        governor's arms spread: hanging arms are a relative equilibrium too).

    Returns
    -------
    array
        The state ``y = (q, e, lam)`` at the relative equilibrium.
    """
    a = np.asarray(axis, float)
    if a.shape != (3,) or not np.all(np.isfinite(a)) or np.linalg.norm(a) == 0.0:
        raise ValueError(f"relative_equilibrium: axis must be a non-zero 3-vector, got {axis!r}")
    c = np.asarray(point, float)
    if c.shape != (3,) or not np.all(np.isfinite(c)):
        raise ValueError(f"relative_equilibrium: point must be a finite 3-vector, got {point!r}")
    if isinstance(rate, bool) or not np.isfinite(rate):
        raise ValueError(f"relative_equilibrium: rate must be a finite number, got {rate!r}")
    cond = _Conditions(dae, t, (a / np.linalg.norm(a), c, float(rate)))
    try:
        cond.frame_velocity(dae.q0)
    except (NotImplementedError, ValueError) as err:
        raise EquilibriumError(f"relative_equilibrium: {err}") from None
    y = _newton(cond, q0, tol, max_iter, max_rotation, "relative_equilibrium", "no relative equilibrium")
    # a driven joint holds its angle; its rate must be the assembly's too
    q, e, _ = dae.split(y)
    vel = dae._active_G(q) @ e - dae.w(t)[cond.act]
    scale = max(1.0, abs(float(rate)) * (1.0 + float(np.max(np.abs(q), initial=0.0))))
    bad = np.flatnonzero(np.abs(vel) > np.sqrt(tol) * scale)
    if bad.size:
        labels = dae.labels()
        rows = ", ".join(f"{labels[dae.nq + dae.ne + cond.act[i]]} ({vel[i]:+.3g})" for i in bad[:4])
        raise EquilibriumError(f"relative_equilibrium: the assembly turning at {rate!r} rad/s about {tuple(float(x) for x in a)} "
                               f"violates the velocity rows {rows}: a drive turns at another rate or "
                               "about another axis")
    return y


@dataclass
class RelativeModes:
    """Small vibrations about a relative (or static) equilibrium.

    Attributes
    ----------
    omega : array
        Angular frequencies [rad/s] (``Im lambda > 0``), ascending.
    growth : array
        ``Re lambda`` [1/s] of each (zero for a conservative, stable motion; positive: unstable).
    vectors : array (n, k)
        Eigenvectors over the frame motions, the efforts and the active multipliers.
    labels : list of str
        The unknowns of ``vectors``' rows.
    """

    omega: np.ndarray
    growth: np.ndarray
    vectors: np.ndarray
    labels: list


def relative_modes(dae, y, axis=(0.0, 0.0, 1.0), rate=0.0, point=(0.0, 0.0, 0.0), k=6, t=0.0, zero_tol=1e-7):
    """The ``k`` lowest vibration modes about the relative equilibrium ``y`` (a state of
    :func:`relative_equilibrium` at the same ``axis``, ``rate`` and ``point``; ``rate = 0``: a
    static equilibrium).

    The motion is written in the frame motions ``delta`` relative to the turning assembly (each
    body's retraction about its place on the steady motion), the efforts and the multipliers;
    along the steady motion their linearized equations have constant coefficients, and they are
    the Jacobian of the equilibrium conditions (:func:`relative_equilibrium`'s Newton matrix):
    ``delta' = d(e_frames - rate v(q))`` (the frame rows), ``M de' = d(balance)``, ``0 = d(joints)``.
    The eigenvalues are those of this pencil (dense QZ); the infinite ones (multipliers) and the
    zero ones (the assembly turned about the axis, the drift of velocity-level joints) are
    removed.  No pH structure is kept (gyroscopic and centrifugal terms away from rest).
    """
    a = np.asarray(axis, float)
    cond = _Conditions(dae, t, (a / np.linalg.norm(a), np.asarray(point, float), float(rate)))
    r, has = cond.residual(np.asarray(y, float))
    scale = max(1.0, float(np.max(np.abs(dae.f(t, y)[dae.se]))))
    if np.max(np.abs(r)) > 1e-6 * scale:
        raise EquilibriumError(f"relative_modes: y is not a relative equilibrium at rate {rate!r} (residual "
                               f"{np.max(np.abs(r)):.3e} in {_residual_label(cond, r)})")
    J = cond.jacobian(np.asarray(y, float), has, constitutive=False).toarray()
    sf, se, sl = cond.x_slices
    ne, nf = dae.ne, len(cond.motions)
    order = np.r_[np.arange(ne, ne + nf), np.arange(ne), np.arange(ne + nf, cond.n)]    # frame rows first
    A = J[order]
    E = np.zeros_like(A)
    E[sf, sf] = np.eye(nf)
    E[se, se] = sp.csr_matrix(dae.M).toarray()
    (alpha, beta), V = sla.eig(A, E, homogeneous_eigvals=True)
    finite = np.abs(beta) > 1e-12 * np.maximum(np.abs(alpha), 1.0)
    lam, V = alpha[finite] / beta[finite], V[:, finite]
    size = max(float(np.max(np.abs(lam))) if lam.size else 1.0, 1.0)
    osc = (lam.imag > zero_tol * size) & (np.abs(lam) > zero_tol * size)
    lam, V = lam[osc], V[:, osc]
    pick = np.argsort(lam.imag)[:k]
    labels = cond.unknown_labels()
    return RelativeModes(lam.imag[pick], lam.real[pick], V[:, pick], labels)


def _start(cond, q0, caller):
    """``(q, e, lam)`` to start from: the configuration ``q0`` (checked; default the initial
    one), the frames moving as the conditions want (at rest for a static equilibrium), the
    stresses of the bodies with a constitutive law those of ``q0`` (a deformed start, as on a
    continuation path, begins with its own stresses), no reactions."""
    dae = cond.dae
    q = np.array(dae.q0 if q0 is None else q0, float)
    if q.shape != (dae.nq,):
        raise ValueError(f"{caller}: q0 needs {dae.nq} values, got shape {q.shape}")
    if not np.all(np.isfinite(q)):
        raise ValueError(f"{caller}: q0 has non-finite values at {dae.labels()[int(np.argmin(np.isfinite(q)))]}")
    e, lam = np.zeros(dae.ne), np.zeros(len(cond.act))
    e[cond.motions] = cond.frame_velocity(q)
    for b, sq, se, sd in cond.laws:
        e[se] = b.stresses_of(q[sq])[sd]
    return q, e, lam


def _newton(cond, q0, tol, max_iter, max_rotation, caller, none, start=None, scale=None):
    """Newton's method on the conditions ``cond`` from the configuration ``q0`` (the loop of
    :func:`equilibrium` and :func:`relative_equilibrium`); ``start = (e, lam)``: the efforts
    and active multipliers to start from (default: at rest, no reactions); ``scale``: of the
    residual's tolerance (default: the residual at the start, at least 1)."""
    t = cond.t
    q, e, lam = _start(cond, q0, caller)
    sf, se, sl = cond.x_slices
    if start is not None:
        e, lam = (np.array(v, float) for v in start)
    y = cond.state(q, e, lam)
    r, has = cond.residual(y)
    scale = max(1.0, float(np.max(np.abs(r)))) if scale is None else scale
    prev, step, worst = 0.0, np.inf, []
    for it in range(max_iter + 1):
        size = float(np.max(np.abs(r)))
        if size <= tol * scale and (it == 0 or step <= np.sqrt(tol)):
            return y
        if it == max_iter:
            break
        J = cond.jacobian(y, has)
        dx, singular = _solve(J, -r)
        # a singular matrix whose residual stops falling: a load that a free motion cannot carry
        worst = worst[-2:] + [size] if singular else []
        if len(worst) == 3 and worst[-1] > 0.5 * worst[0]:
            raise EquilibriumError(f"{caller}: {none} near this configuration (residual "
                                   f"{size:.3e}): " + _free_motion(cond, J, r))
        big = np.max(np.abs(dx[sf]), initial=0.0)
        if big > max_rotation:
            dx *= max_rotation / big
        q = cond.move(q, dx[sf])
        e, lam = e + dx[se], lam + dx[sl]
        y = cond.state(q, e, lam)
        r, has = cond.residual(y)
        step = float(np.max(np.abs(dx) / (1.0 + np.abs(np.concatenate([np.zeros(len(cond.motions)), e, lam])))))
        if converged(step, prev, tol, True) and np.max(np.abs(r)) <= np.sqrt(tol) * scale:
            return y
        prev = step
    raise EquilibriumError(f"{caller}: no convergence in {max_iter} iterations at t = {t} "
                           f"(largest residual {np.max(np.abs(r)):.3e} at "
                           f"{_residual_label(cond, r)})")


def _residual_label(cond, r):
    dae = cond.dae
    labels = dae.labels()
    i = int(np.argmax(np.abs(r)))
    nf, ne = len(cond.motions), dae.ne
    if i < ne:
        return f"the balance of {labels[dae.nq + i]}"
    if i < ne + nf:
        return f"the velocity {labels[dae.nq + cond.motions[i - ne]]}"
    return f"the joint row {labels[dae.nq + ne + cond.act[i - ne - nf]]}"


def balance(dae, q, t=0.0, tol=1e-9):
    """The efforts and multipliers that hold the configuration ``q`` at rest, or an error.

    Solves the equilibrium conditions at fixed ``q`` (the frame motion not an unknown)
    in the least-squares sense; ``q`` is an equilibrium when they hold.

    Returns
    -------
    array
        The state ``y = (q, e, lam)``.

    Raises
    ------
    EquilibriumError
        When ``q`` is not an equilibrium (the residual and where it is largest).
    """
    cond = _Conditions(dae, t)
    sf = cond.x_slices[0]
    y = cond.state(np.asarray(q, float), np.zeros(dae.ne), np.zeros(len(cond.act)))
    r, has = cond.residual(y)
    scale = max(1.0, float(np.max(np.abs(dae.f(t, y)[dae.se]))))
    if np.max(np.abs(r)) <= tol * scale:
        return y
    J = cond.jacobian(y, has).toarray()[:, sf.stop:]
    x = np.linalg.lstsq(J, -r, rcond=None)[0]
    y = cond.state(y[dae.sq], x[:dae.ne], x[dae.ne:])
    r, _ = cond.residual(y)
    if np.max(np.abs(r)) > np.sqrt(tol) * scale:
        raise EquilibriumError(f"the configuration is not a static equilibrium under the model's loads "
                               f"(residual {np.max(np.abs(r)):.3e} in {_residual_label(cond, r)}); "
                               "linearize about equilibrium(dae, q0) instead")
    return y

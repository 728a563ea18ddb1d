"""Quasi-static initial deformation of geometrically consistent beams.

A flexible body that starts undeformed while its frame moves is hit by the
whole inertial load at once: axial and bending waves follow that the
physical mechanism, started smoothly, does not have (they dominate the
integration cost of the crank-slider).  The thesis' remedy is to start from
the deformation in equilibrium with the initial rigid motion.

:func:`quasi_static_state` finds it for the
:class:`~phmech.fem.beam_nonlinear.NonlinearFloatingBeam` bodies of a
system: each beam moves rigidly in its deformed shape (``u' = 0``,
``u'' = 0``: its flexible efforts are ``a_f = omega rho(u)`` and their rates
``omega' rho(u)``), the rigid accelerations and multipliers follow from the
equations of motion restricted to these motions, and the displacement
``u`` is such that the beams' flexible equations hold too: the elastic
forces balance the inertial (centrifugal, Euler, Coriolis) and constraint
loads.  Positions are projected onto the joints and velocities onto the
velocity constraints at every iteration; the stresses are the constitutive
ones of ``u``.  The iteration is a Newton-like fixed point with the linear
elastic stiffness; it stops at a relative change of ``tol``.
"""
import numpy as np
import scipy.linalg as sla

from .._checks import ConsistencyError


def _rigid_map(dae, bodies):
    """Blocks of ``e = B beta``: the frame velocities of every body (beams: rigid in the deformed shape)."""
    names = {b.name for b in bodies}
    blocks = []
    for b in dae.system.bodies:
        if b.name not in names and len(b.frame_dofs) != b.ne:
            raise ValueError(f"quasi-static start: body '{b.name}' is flexible but not a geometrically "
                             "consistent beam; its deformation cannot be initialized")
        blocks.append((b, dae.e_slices[b.name], b.name in names))
    return blocks


def _B(dae, q, blocks):
    cols = []
    for b, se, consistent in blocks:
        part = b.rigid_motion_map(q[dae.q_slices[b.name]]) if consistent else np.eye(b.ne)
        full = np.zeros((dae.ne, part.shape[1]))
        full[se] = part
        cols.append(full)
    return np.hstack(cols) if cols else np.zeros((dae.ne, 0))


def _rigid_state(dae, t0, q, blocks, bodies, beta0):
    """The beams' constitutive stresses of ``q``, positions projected onto the joints, and the rigid
    velocities ``e = B beta + stresses`` closest to ``beta0`` with ``G e = w``; returns ``(q, e, B, G)``."""
    stress = np.zeros(dae.ne)
    for b in bodies:
        sq, se = dae.q_slices[b.name], dae.e_slices[b.name]
        part = b.stresses_of(q[sq])
        stress[se.start + b.stress_dofs] = part[b.stress_dofs]
    q = dae.project_positions(t0, q)[0] if dae.nl else q
    B = _B(dae, q, blocks)
    G = dae.G(q)
    G = (G.toarray() if hasattr(G, "toarray") else G)[dae.active]
    beta = beta0
    if G.shape[0]:
        GB = G @ B
        beta = beta0 + np.linalg.lstsq(GB, dae.w(t0)[dae.active] - G @ stress - GB @ beta0, rcond=None)[0]
    return q, B @ beta + stress, B, G


def quasi_static_state(dae, y0, bodies, t0=0.0, tol=1e-10, max_iter=60):
    """Consistent initial state with the beams in ``bodies`` quasi-statically deformed.

    Parameters
    ----------
    dae : :class:`~phmech.assembly.DescriptorDAE`
    y0 : array
        A consistent initial state (e.g. from ``dae.initial_state()``): its frame
        velocities are kept as far as the constraints allow.
    bodies : list of :class:`~phmech.fem.beam_nonlinear.NonlinearFloatingBeam`
    t0, tol, max_iter : start time, relative tolerance on the displacement, iteration limit.

    Returns
    -------
    y : array, the initial state (positions, velocities and multipliers consistent).
    """
    bodies = list(bodies)
    bad = [b.name for b in bodies if not hasattr(b, "rigid_motion_map")]
    if bad:
        raise ValueError(f"quasi-static start: bodies {bad} are not geometrically consistent beams")
    cols = _rigid_map(dae, bodies)
    q, e = np.array(y0[dae.sq]), np.array(y0[dae.se])
    beta0 = np.concatenate([e[se][b.frame_dofs] if consistent else e[se] for b, se, consistent in cols])
    M = dae.M.toarray()
    K = {b.name: b.elastic_stiffness() for b in bodies}
    history = []
    for it in range(max_iter + 1):
        q, e, B, G = _rigid_state(dae, t0, q, cols, bodies, beta0)
        # accelerations of the rigid motions and the multipliers
        fy = dae.f(t0, np.concatenate([q, e, np.zeros(dae.nl)]))
        qdot, rhs = fy[dae.sq], fy[dae.se]
        _, Ge_q = dae.G_derivatives(q, e, np.zeros(dae.nl))
        gamma = dae.w_rate(t0)[dae.active] - (Ge_q @ qdot)[dae.active]
        nb, na = B.shape[1], G.shape[0]
        A = np.block([[B.T @ M @ B, -(G @ B).T], [G @ B, np.zeros((na, na))]])
        x = np.linalg.lstsq(A, np.r_[B.T @ rhs, gamma], rcond=None)[0]
        alpha, lam_a = x[:nb], x[nb:]
        resid = rhs + G.T @ lam_a - M @ (B @ alpha)
        change = 0.0
        for b in bodies:
            sq, se = dae.q_slices[b.name], dae.e_slices[b.name]
            du = sla.cho_solve(K[b.name], resid[se][b.flexible_velocity_dofs])
            qb = q[sq]
            qb[b.displacement_dofs] += du
            q[sq] = qb
            change = max(change, np.max(np.abs(du)) / max(1e-300, np.max(np.abs(qb[b.displacement_dofs]))))
        history.append(change)
        if change <= tol:
            break
    else:
        raise ConsistencyError([f"quasi-static start: no convergence in {max_iter} iterations "
                                f"(relative changes {', '.join(f'{c:.1e}' for c in history[-3:])})"],
                               "initial deformation")
    q, e, _, _ = _rigid_state(dae, t0, q, cols, bodies, beta0)
    y = dae.initial_state(t0, q0=q, e0=e, project=False, positions="check")
    dae.quasi_static_report = {"iterations": len(history), "relative_changes": history}
    return y

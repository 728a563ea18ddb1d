"""Steady motions, the linearization about them, and Campbell diagrams.

:func:`~phmech.solvers.eigen.linearize` works at rest, where the
configuration-dependent and gyroscopic parts of the Jacobian vanish.  A
rotor, a blade on a spinning hub or a satellite with appendages vibrates
about a *steady motion*: the efforts and the deformation are constant while
the rigid motion (the frame's position and orientation) advances.  This
module finds such motions and linearizes the whole descriptor DAE
``E y' = f(t, y)`` about them.

Ignorable coordinates
---------------------
Let ``A = df/dy`` at the steady state.  A configuration variable is
*ignorable* when no equation other than its own kinematic row depends on it
(the frame's position and, without gravity, its orientation: the dynamics in
body-frame components do not see them).  They are found as the largest set
``S`` of configuration variables whose columns of ``A`` vanish outside the
rows of ``S``, with one exception: the constraint forces ``G(q)^T lam``.
The multipliers of joints to the ground are inertial components, which turn
with a spinning body, so ``G^T lam`` depends on the orientation; but a
turned orientation with turned multipliers is the same motion (the
symmetry of a model without gravity or other inertial loads), and since the
multipliers are algebraic the pair changes nothing else.  So the
dependence through ``G^T lam`` does not count (``A`` is taken with
``lam = 0`` for the test).  The block of ``S`` only integrates the rigid
motion and is left out.

Where a frame orientation is *not* ignorable (gravity across the spin
axis, an inertial load, a tilted drive), the steady motion is not a
relative equilibrium in these coordinates: the linearization at a frozen
time is not the one of the motion (it is periodic in time) and
:func:`steady_modes` refuses it, naming the variables.

Steady state
------------
With ``S`` fixed, the unknowns are the other configuration variables, the
efforts and the multipliers; the conditions are that their rates vanish:
``f_q = 0`` on the rows outside ``S`` (constant deformation), ``f_e = 0``
(constant body-frame velocities: ``M e' = 0``) and the constraint rows.
Bodies whose stresses are states beside a displacement in the
configuration (the geometrically consistent beams: ``stress_dofs`` and
``stresses_of(q)``) keep the constitutive relation as an invariant of the
flow, not as an equation; at a steady state their stress-rate rows repeat
the displacement-rate rows, so they are replaced by the invariant
``sigma = stresses_of(q)`` (its derivative in ``q`` by central differences).
Newton's method on these rows with the exact Jacobian of the model;
:func:`steady_states` continues in a parameter (the speed) so that large
strains are reached from small ones.

Linearization and structure
---------------------------
``E_r dy_r' = A_r dy_r`` with ``E_r = diag(I, M, 0)`` restricted to the
variables outside ``S``.  At rest ``A_r`` has the port-Hamiltonian form
(the effort block is ``J0 - R``, skew up to the dissipation).  About a
steady motion it is not: the derivative of the gyroscopic term ``J(e) e``
with respect to ``e`` is ``J(e) + (dJ/de) e``, whose second part is not
skew, and the configuration rows add the geometric stiffness of the
prestress.  :attr:`SteadyModes.skew_defect` reports how far the effort
block is from ``J - R`` form (``||A_ee + A_ee^T|| / ||A_ee||``; zero at
rest without dissipation).  The eigenvalues are those of the pencil
``(A_r, E_r)`` (dense QZ); the infinite ones (multipliers) and the zero ones
(position-level drift of the velocity constraints) are removed by rule.
"""
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ..math.modal import match as match_modes
from ._constitutive import stress_bodies, stresses_and_tangent
from ._newton import converged
from .base import count_option, positive_option


class SteadyStateError(RuntimeError):
    """The steady-state iteration did not converge (the message gives the parameter and residual)."""


def _dense(A):
    return A.toarray() if sp.issparse(A) else np.asarray(A)


def ignorable(dae, A, rtol=1e-10):
    """Indices (into ``y``) of the ignorable configuration variables of the Jacobian ``A``
    (entries below ``rtol`` times the largest count as zero: a steady state is known to
    the solver's tolerance)."""
    A = sp.csc_matrix(A, copy=True)
    if A.nnz:
        A.data[np.abs(A.data) <= rtol * np.max(np.abs(A.data))] = 0.0
    nq = dae.nq
    S = set(range(nq))
    changed = True
    while changed:
        changed = False
        for j in sorted(S):
            rows = A.indices[A.indptr[j]:A.indptr[j + 1]][A.data[A.indptr[j]:A.indptr[j + 1]] != 0]
            if any(r not in S for r in rows):
                S.discard(j)
                changed = True
    return np.array(sorted(S), dtype=int)


def _without_multipliers(dae, y):
    y0 = np.array(y, float)
    y0[dae.sl] = 0.0
    return y0


def _orientations(dae):
    """``(body, index array in y)`` of every body's frame orientation parameters."""
    out = []
    for b in dae.system.bodies:
        kind = getattr(b, "rotation_kind", None)
        if kind is not None and b.nq:
            k = dae.q_slices[b.name].start + b.rotation_index
            out.append((b, np.arange(k, k + kind.n_params)))
    return out


def _frame_variables(dae):
    """Indices in ``y`` of the bodies' frame orientations (the ones a spin turns)."""
    idx = [i for _, i in _orientations(dae)]
    return np.concatenate(idx) if idx else np.zeros(0, int)


def _quaternions(dae):
    """``(body name, index array in y)`` of every unit-quaternion orientation."""
    return [(b.name, i) for b, i in _orientations(dae) if len(i) == 4]


def _unit_quaternions(where, quats, y, it=None):
    """Scale every quaternion of ``y`` to unit length (the rotation ``Q(p)/|p|^2`` does not change);
    a quaternion that has collapsed is one error naming its body."""
    for name, idx in quats:
        n = float(np.linalg.norm(y[idx]))
        if not np.isfinite(n) or n < 1e-8:
            at = "in the guess" if it is None else f"after Newton step {it}"
            cls = ValueError if it is None else SteadyStateError
            raise cls(f"{where}: the orientation quaternion of body {name!r} has norm {n:.3e} {at}; "
                      "start from a configuration with unit quaternions nearer the steady motion")
        y[idx] /= n


def _steady_system(dae, t, y, laws):
    """Residual and Jacobian of the steady-state conditions (all rows of ``y``)."""
    r = dae.f(t, y)
    J = sp.lil_matrix(dae.jacobian(t, y))
    for b, sq, se, sd in laws:
        rows = dae.nq + se
        q = y[sq]
        sigma, D = stresses_and_tangent(b, q, sd)
        r[rows] = y[rows] - sigma
        J[rows, :] = 0.0
        J[np.ix_(rows, np.arange(sq.start, sq.stop))] = -D
        J[rows, rows] = 1.0
    return r, sp.csc_matrix(J)


def _guess(where, dae, y):
    """The guess ``y`` as an array of the model's size with finite values, or one ValueError
    naming the first non-finite variables."""
    try:
        y = np.array(y, float)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: the guess y must be {dae.n} numbers, got {y!r:.80}") from None
    if y.shape != (dae.n,):
        raise ValueError(f"{where}: y needs {dae.n} values, got shape {y.shape}")
    bad = np.flatnonzero(~np.isfinite(y))
    if bad.size:
        labels = dae.labels()
        names = ", ".join(f"{labels[i]} = {float(y[i])!r}" for i in bad[:5]) + (" ..." if bad.size > 5 else "")
        raise ValueError(f"{where}: the guess y has {bad.size} non-finite value(s): {names}")
    return y


def steady_state(dae, y, t=0.0, fixed=None, tol=1e-10, max_iter=50):
    """A steady motion near ``y``: constant efforts, deformation and multipliers.

    Parameters
    ----------
    dae : DescriptorDAE
    y : array
        Starting guess (e.g. ``dae.initial_state()``: the rigid motion, undeformed).
    t : float
        Time at which the prescribed velocities ``w(t)`` are taken (they must be constant).
    fixed : array of int, optional
        Ignorable variables (default: found from the Jacobian at ``y``).
    tol : float
        Relative tolerance of the Newton correction.

    Returns
    -------
    (y, fixed) : the steady state and the ignorable variables.
    """
    y = _guess("steady_state", dae, y)
    tol = positive_option("steady_state", "tol", tol)
    max_iter = count_option("steady_state", "max_iter", max_iter)
    laws = stress_bodies(dae)
    quats = _quaternions(dae)
    _unit_quaternions("steady_state", quats, y)
    if fixed is None:
        fixed = ignorable(dae, _steady_system(dae, t, _without_multipliers(dae, y), laws)[1])
    free = np.setdiff1d(np.arange(dae.n), fixed)
    res, prev = None, 0.0
    for it in range(max_iter):
        r, J = _steady_system(dae, t, y, laws)
        r, J = r[free], J[free][:, free]
        try:
            dz = sp.linalg.spsolve(J.tocsc(), -r) if J.shape[0] > 300 else np.linalg.solve(J.toarray(), -r)
        except (np.linalg.LinAlgError, RuntimeError) as err:
            raise SteadyStateError(f"steady state: singular Jacobian at iteration {it} ({err}); the model "
                                   "may have a free motion that is not ignorable (e.g. an undriven rotation; an assembly "
                                   "turning as a whole is found by phmech.solvers.static.relative_equilibrium)") \
                from None
        if not np.all(np.isfinite(dz)):
            raise SteadyStateError(f"steady state: the Newton step is not finite at iteration {it}")
        y[free] += dz
        _unit_quaternions("steady state", quats, y, it)
        res = float(np.max(np.abs(dz) / (1.0 + np.abs(y[free]))))
        if converged(res, prev, tol, True):
            return y, fixed
        prev = res
    raise SteadyStateError(f"steady state: no convergence in {max_iter} iterations at t = {t} "
                           f"(last correction {res:.3e})")


def steady_states(make, params, y=None, tol=1e-10, substeps=1, fixed=None, position_tol=1e-8):
    """Steady states along a parameter (continuation).

    Parameters
    ----------
    make : callable ``p -> DescriptorDAE``
        The model at parameter ``p`` (e.g. the hub speed); the same layout for every ``p``.
    params : sequence of float
        Parameter values in the order they are reached.
    y : array, optional
        Guess at the first value (default: that model's ``initial_state()``).
    substeps : int
        Parameter values from one given value to the next (at least 1: the next one alone; more
        for large steps in strain).
    fixed : array of int, optional
        Ignorable variables for every value (default: found at each one).
    position_tol : float
        Tolerance of the position check of each new start (a stretched body's joints hold to
        the Newton tolerance of the previous state, not to round-off).

    Returns
    -------
    list of (dae, y)
    """
    if not (isinstance(substeps, (int, np.integer)) and not isinstance(substeps, bool) and substeps >= 1):
        raise ValueError(f"steady_states: substeps must be an integer of at least 1, got {substeps!r}")
    tol = positive_option("steady_states", "tol", tol)
    out, prev = [], None
    for p in params:
        chain = [p] if prev is None else list(np.linspace(prev, p, int(substeps) + 1)[1:])
        for pp in chain:
            dae = make(pp)
            if y is not None and prev is None:
                y = _guess("steady_states", dae, y)
            if y is None:
                y = dae.initial_state()
            else:
                # the previous steady state with the new prescribed velocities made consistent
                q, e, _ = dae.split(y)
                y = dae.initial_state(q0=q, e0=e, project="all", positions="check", tol=position_tol)
            y, _ = steady_state(dae, y, tol=tol, fixed=fixed)
        out.append((dae, y.copy()))
        prev = p
    return out


@dataclass
class SteadyModes:
    """Vibrations about a steady motion.

    Attributes
    ----------
    omega : array
        Angular frequencies [rad/s], ascending (``Im lambda > 0``).
    growth : array
        ``Re lambda`` of each mode [1/s] (zero for a conservative, stable motion).
    vectors : array (n, k)
        Eigenvectors over all variables of ``y`` (ignorable ones zero).
    skew_defect : float
        ``||A_ee + A_ee^T + 2 R|| / ||A_ee||`` of the effort block.
    ignorable : array of int
        The variables left out.
    """

    omega: np.ndarray
    growth: np.ndarray
    vectors: np.ndarray
    skew_defect: float
    ignorable: np.ndarray


def linearize_about(dae, y, t=0.0, fixed=None):
    """``(A_r, E_r, keep)``: the pencil about the steady state ``y`` without the ignorable variables."""
    A = sp.csc_matrix(dae.jacobian(t, y))
    if fixed is None:
        fixed = ignorable(dae, dae.jacobian(t, _without_multipliers(dae, y)))
    fixed = np.asarray(fixed, int)
    kept = np.setdiff1d(_frame_variables(dae), fixed)
    if kept.size:
        labels = dae.labels()
        raise ValueError("steady modes: the frame orientation variables " + ", ".join(labels[i] for i in kept)
                         + " are not ignorable at this state (gravity or an inertial load across the motion?): "
                         "a linearization at a frozen time would not give its vibrations; for an assembly "
                         "turning as a whole about a fixed axis (several bodies sharing one rotation, a hub "
                         "offset, gravity along the axis) use phmech.solvers.static.relative_equilibrium "
                         "and relative_modes")
    keep = np.setdiff1d(np.arange(dae.n), fixed)
    M = sp.csr_matrix(dae.M)
    E = sp.block_diag([sp.identity(dae.nq), M, sp.csr_matrix((dae.nl, dae.nl))], format="csr")
    return A[keep][:, keep], E[keep][:, keep], keep


def steady_modes(dae, y, k=6, t=0.0, fixed=None, zero_tol=1e-7):
    """The ``k`` lowest vibration modes about the steady state ``y`` (dense QZ of the pencil)."""
    A, E, keep = linearize_about(dae, y, t, fixed)
    Ad, Ed = _dense(A), _dense(E)
    w, V = sla.eig(Ad, Ed, homogeneous_eigvals=True)
    alpha, beta = w
    finite = np.abs(beta) > 1e-12 * np.maximum(np.abs(alpha), 1.0)
    lam = alpha[finite] / beta[finite]
    V = V[:, finite]
    scale = max(float(np.max(np.abs(lam))) if lam.size else 1.0, 1.0)
    osc = (lam.imag > zero_tol * scale) & (np.abs(lam) > zero_tol * scale)
    lam, V = lam[osc], V[:, osc]
    order = np.argsort(lam.imag)[:k]
    vectors = np.zeros((dae.n, order.size), complex)
    vectors[keep] = V[:, order]
    nq, ne = dae.nq, dae.ne
    se = np.flatnonzero((keep >= nq) & (keep < nq + ne))
    Aee = Ad[np.ix_(se, se)]
    R = _dense(dae.R)[np.ix_(keep[se] - nq, keep[se] - nq)] if dae.has_R else 0.0
    defect = float(np.linalg.norm(Aee + Aee.T + 2 * R) / max(np.linalg.norm(Aee), 1e-300))
    fixed = np.setdiff1d(np.arange(dae.n), keep)
    return SteadyModes(lam.imag[order], lam.real[order], vectors, defect, fixed)


def campbell(make, speeds, k=4, y=None, substeps=1, fixed=None, position_tol=1e-8):
    """Frequencies against a speed parameter with the modes tracked (a Campbell diagram).

    Each speed's modes are matched to the previous speed's by the modal assurance
    criterion of their efforts in the metric of ``M`` (greedy, best pairs first).  The
    efforts are absolute velocities in frame components, which contain ``Omega x u``: their
    shapes change with the speed faster than the displacements do, so steps in the speed
    must be small where the frequencies change fast (the returned ``mac`` tells).

    Returns
    -------
    dict with ``speed`` (n,), ``omega`` (n, k) in the tracked order, ``growth`` (n, k),
    ``mac`` (n, k) (the match of each mode with its predecessor; 1 for the first speed).
    """
    states = steady_states(make, speeds, y=y, substeps=substeps, fixed=fixed, position_tol=position_tol)
    omega = np.full((len(speeds), k), np.nan)
    growth = np.full_like(omega, np.nan)
    mac = np.ones_like(omega)
    prev = None
    for i, (dae, ys) in enumerate(states):
        m = steady_modes(dae, ys, k=k + 2, fixed=fixed)
        if m.omega.size < k:
            raise ValueError(f"campbell: k = {k} modes asked for, the model has {m.omega.size} vibration modes "
                             f"at speed {speeds[i]!r}")
        se = dae.se
        W = sp.csr_matrix(dae.M)
        vecs = m.vectors[se]
        if prev is None:
            pick, value = list(range(min(k, vecs.shape[1]))), np.ones(k)
        else:
            pick, value = match_modes(prev, vecs, W)
        for j, b in enumerate(pick):
            if b is not None:
                omega[i, j], growth[i, j], mac[i, j] = m.omega[b], m.growth[b], value[j]
        prev = vecs[:, [b for b in pick if b is not None]]
    return dict(speed=np.asarray(speeds, float), omega=omega, growth=growth, mac=mac)

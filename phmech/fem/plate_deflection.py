"""The deflection of a plate recovered from its stresses; gravity's rows and first moment on plates.

A plate's state holds velocities and stresses, no deflection.  The stress
equation is ``C S' = B v`` (the stress rows of ``J0``; no port drives
them: ports and constraints act on the velocity rows), so where the
supports leave no rigid motion (:func:`plate_held`) the deflection since a
stress state ``S0`` follows from the stresses: ``K d = B^T (S - S0)`` with
the stiffness ``K = B^T C^-1 B`` (:func:`recovered_deflection`), the
least-squares solution of ``C (S - S0) = B d``, exact for the stresses a
motion builds.  The pictures of a run (:mod:`phmech.io.pictures`) draw it.

Gravity ``g`` supplies the power ``int rho h g_z v`` (:func:`momentum_rows`:
the rows ``int rho h dv`` under the vertical component; the in-plane rows
are zero: the supports carry the in-plane load).  Its potential is
``V = -g . S`` with ``S = int rho h (x, y, w)`` the first moment of mass of
the deflected mid-surface (:func:`first_moment`), the deflection recovered
from the stress-free state: ``int rho h w = m^T K^-1 B^T S = (B K^-1 m)^T S``
with ``m`` the mass row over the velocity unknowns, one row over the
stresses.  Its rate is ``(B K^-1 m)^T C^-1 B v = m^T v`` for every velocity,
so gravity's force is exactly ``-dV/dt`` along any motion, in continuous
time and for the midpoint rule (whose stress update
``C (S1 - S0) = dt B v_mid`` is the stress equation itself): ``H + V`` is
conserved to the solver's tolerance.  A plate free to move rigidly (no
support, or held only by other bodies) has no deflection in its state and
no first moment here (None).
"""
import weakref

import numpy as np
import scipy.sparse as sp

#: per plate: whether it is held and the factor of the recovery
_RECOVERY = weakref.WeakKeyDictionary()


def _entry(plate):
    return _RECOVERY.setdefault(plate, {})


def rigid_velocity_fields(plate):
    """The plate's rigid motions ``w = 1, x, y`` (with ``omega = grad w`` on Mindlin plates) as
    columns over the velocity unknowns, the removed ones left out."""
    fd = plate._firedrake()
    x = plate.x
    Vv = plate.spaces[0]
    cols = []
    for w, g in ((1.0 + 0.0 * x[0], (0.0, 0.0)), (x[0], (1.0, 0.0)), (x[1], (0.0, 1.0))):
        full = np.zeros(plate.nf)
        full[:Vv.dim()] = fd.Function(Vv).interpolate(w).dat.data_ro
        if len(plate.spaces) == 4:                                # Mindlin: rotations = grad w (constants)
            Vw = plate.spaces[1]
            f = fd.Function(Vw)
            if any(g):                                            # L2 projection: exact for constants
                u, dv = fd.TrialFunction(Vw), fd.TestFunction(Vw)
                fd.solve(fd.inner(u, dv) * fd.dx == fd.inner(fd.Constant(g), dv) * fd.dx(domain=plate.mesh), f,
                         solver_parameters={"ksp_type": "preonly", "pc_type": "lu"})
            full[Vv.dim():Vv.dim() + Vw.dim()] = np.asarray(f.dat.data_ro).ravel()
        cols.append(full[plate._keep][plate.velocity_dofs])
    return np.column_stack(cols)


def plate_held(plate):
    """True when the plate's supports leave it no rigid motion (no combination of the rigid
    fields :func:`rigid_velocity_fields` strains it by nothing)."""
    entry = _entry(plate)
    if "held" not in entry:
        v, s = plate.velocity_dofs, plate.stress_dofs
        B = plate.J0[s][:, v]
        R = rigid_velocity_fields(plate)
        absB = abs(B)
        held = True
        for c in np.linalg.svd(R, full_matrices=False)[2]:       # an orthonormal basis of span(R)
            r = R @ c
            if np.linalg.norm(B @ r) <= 1e-9 * np.linalg.norm(absB @ np.abs(r)):
                held = False
        entry["held"] = held
    return entry["held"]


def stiffness_factor(plate):
    """``(B, LU)``: ``B`` and the sparse LU of ``[[0, B^T], [B, -C]]`` (the deflection from the
    stresses), kept while the plate lives."""
    entry = _entry(plate)
    if "factor" not in entry:
        from scipy.sparse.linalg import splu
        v, s = plate.velocity_dofs, plate.stress_dofs
        B = plate.J0[s][:, v].tocsc()
        C = plate.M[s][:, s].tocsc()
        entry["factor"] = (B, splu(sp.bmat([[sp.csc_matrix((len(v), len(v))), B.T], [B, -C]], format="csc")))
    return entry["factor"]


def recovered_deflection(plate, dS):
    """Deflection over the velocity unknowns ``(N, nv)`` from stress changes ``dS`` ``(N, ns)``
    (rows over ``plate.stress_dofs``) of a held plate: ``K d = B^T dS``."""
    B, lu = stiffness_factor(plate)
    dS = np.atleast_2d(np.asarray(dS, float))
    nv = len(plate.velocity_dofs)
    rhs = np.vstack([B.T @ dS.T, np.zeros((dS.shape[1], dS.shape[0]))])
    return np.asarray(lu.solve(rhs))[:nv].T


def momentum_rows(plate):
    """``(3, ne)`` rows ``int rho h (e_k·u)`` over the plate's efforts for the unit translations
    ``e_k``: in-plane rows zero, the vertical row ``int rho h dv`` over the kept velocity unknowns."""
    rows = np.zeros((3, plate.ne))
    rho_h = plate.rho * plate.h
    rows[2] = plate.load_vector(lambda x: rho_h)
    return rows


def first_moment(plate):
    """``(s0, rows, "e")``: the first moment of mass ``S = s0 + rows @ e`` of the deflected plate
    (inertial components), or None for a plate whose supports leave a rigid motion.

    ``s0 = int rho h (x, y, 0)`` (the flat plate); ``rows`` is zero but in its third row, which
    is ``B K^-1 m`` on the stress unknowns (see the module docstring).
    """
    if not plate_held(plate):
        return None
    fd = plate._firedrake()
    rho_h, x = plate.rho * plate.h, plate.x
    s0 = np.array([fd.assemble(rho_h * x[i] * fd.dx(domain=plate.mesh)) for i in (0, 1)] + [0.0])
    v, s = plate.velocity_dofs, plate.stress_dofs
    B, lu = stiffness_factor(plate)
    m = momentum_rows(plate)[2][v]
    a = np.asarray(lu.solve(np.r_[m, np.zeros(len(s))]))[:len(v)]          # K a = m
    rows = np.zeros((3, plate.ne))
    rows[2, s] = B @ a
    return s0, rows, "e"

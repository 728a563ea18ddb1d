"""Implicit midpoint rule for linear pH systems on distributed PETSc matrices.

For ``E de/dt = J e + sum_j b_j u_j(t)`` with ``E`` symmetric positive
definite and ``J`` skew, one step of size ``h`` is

.. math::

    (E - \\tfrac{h}{2} J)\\, e_{n+1} = (E + \\tfrac{h}{2} J)\\, e_n + h \\sum_j b_j\\, u_j(t_{n+1/2}),

the same discrete equations as :class:`phmech.solvers.midpoint.ImplicitMidpoint`
on a linear model (whose Newton iteration converges in one step).  The
left matrix is factorized once by MUMPS (distributed under MPI); a step
costs one matrix-vector product and one pair of triangular solves.

When ``J`` only couples velocities and stresses (``J = [[0, -B^T], [B, 0]]``,
as for the plates) the stress rows multiplied by -1 make the left matrix
symmetric (indefinite),

.. math::  S = \\begin{bmatrix} M_v & \\tfrac{h}{2} B^T \\\\ \\tfrac{h}{2} B & -C \\end{bmatrix},

and MUMPS factorizes it as ``L D L^T``: half the factor of the LU, half
the work per step.  With
``H = e^T E e / 2`` and the collocated outputs ``y_j = b_j^T e_{n+1/2}``
the discrete power balance is exact up to rounding,

.. math::  H_{n+1} - H_n = h \\sum_j u_j(t_{n+1/2})\\, y_j ,

and :class:`MidpointRun` records both sides.
"""
import logging
from dataclasses import dataclass

import numpy as np

from ..solvers.eigen_slepc import mumps_solver

log = logging.getLogger("phmech")


@dataclass
class MidpointRun:
    """Histories of a run: ``t`` (n+1,), ``H`` (n+1,), ``work`` (n+1,) supplied since ``t[0]``,
    ``y`` (n, m) midpoint outputs and the final state ``e`` (a PETSc Vec)."""

    t: np.ndarray
    H: np.ndarray
    work: np.ndarray
    y: np.ndarray
    e: object

    def balance(self):
        """``H - H[0] - work``: zero up to rounding."""
        return self.H - self.H[0] - self.work


class LinearMidpoint:
    """Fixed-step midpoint rule on PETSc matrices (see the module docstring).

    Parameters
    ----------
    E, J : PETSc Mat
        Mass (co-energy) and skew structure matrices, same distribution.
    dt : float
        Step size.
    inputs : sequence of PETSc Vec
        Input columns ``b_j`` (also the output rows, collocated).
    stress : PETSc IS, optional
        The stress unknowns: with them the rows are signed so that the left
        matrix is symmetric and factorized as ``L D L^T`` (checked; LU when
        it is not symmetric).
    """

    def __init__(self, E, J, dt, inputs=(), stress=None):
        from petsc4py import PETSc
        if not (np.isfinite(dt) and dt > 0):
            raise ValueError(f"LinearMidpoint: the step dt must be positive and finite, got {dt!r}")
        self.dt = float(dt)
        self.E, self.J = E, J
        self.comm = E.getComm()
        self.inputs = list(inputs)
        diff = PETSc.Mat.Structure.DIFFERENT_NONZERO_PATTERN
        self.Am = E.copy()
        self.Am.axpy(-0.5 * self.dt, J, structure=diff)
        self.Ap = E.copy()
        self.Ap.axpy(0.5 * self.dt, J, structure=diff)
        self.signed = list(self.inputs)
        symmetric = False
        if stress is not None:
            d = E.createVecLeft()
            d.set(1.0)
            ds = d.getSubVector(stress)
            ds.set(-1.0)
            d.restoreSubVector(stress, ds)
            S = self.Am.copy()
            S.diagonalScale(L=d)
            asym = S.transpose(PETSc.Mat())
            asym.axpy(-1.0, S, structure=PETSc.Mat.Structure.DIFFERENT_NONZERO_PATTERN)
            if asym.norm(PETSc.NormType.INFINITY) <= 1e-13 * S.norm(PETSc.NormType.INFINITY):
                symmetric = True
                self.Am = S
                self.Ap.diagonalScale(L=d)
                self.signed = [b.copy() for b in self.inputs]
                for b in self.signed:
                    b.pointwiseMult(b, d)
            else:
                log.info("LinearMidpoint: J couples velocities or stresses among themselves; LU factor")
        self.symmetric = symmetric
        self.ksp = mumps_solver(self.Am, self.comm, "LinearMidpoint: E - dt/2 J", symmetric=symmetric)
        self.rhs = E.createVecLeft()
        self._w = E.createVecLeft()
        self._mid = E.createVecLeft()

    def hamiltonian(self, e):
        """``e^T E e / 2`` (collective)."""
        self.E.mult(e, self._w)
        return 0.5 * e.dot(self._w)

    def step(self, e, t, u_mid):
        """One step from ``(t, e)`` in place; ``u_mid`` the input values at ``t + dt/2``.

        Returns the outputs ``b_j^T e_{n+1/2}``.
        """
        self.Ap.mult(e, self.rhs)
        for b, u in zip(self.signed, u_mid):
            if u:
                self.rhs.axpy(self.dt * u, b)
        e.copy(self._mid)
        self.ksp.solve(self.rhs, e)
        self._mid.axpy(1.0, e)
        self._mid.scale(0.5)
        return np.array([b.dot(self._mid) for b in self.inputs])

    def run(self, e0, t0, nsteps, u=None, energy=True):
        """``nsteps`` steps from ``e0`` (copied) at ``t0``; ``u(t)`` returns the input values.

        ``energy=False`` skips the Hamiltonian and work records (timings).
        """
        e = e0.copy()
        t = float(t0)
        m = len(self.inputs)
        ts, H, W, Y = [t], [self.hamiltonian(e) if energy else np.nan], [0.0], []
        for _ in range(int(nsteps)):
            um = np.zeros(m) if u is None else np.atleast_1d(np.asarray(u(t + 0.5 * self.dt), float))
            y = self.step(e, t, um)
            t = t0 + (len(ts)) * self.dt
            ts.append(t)
            Y.append(y)
            if energy:
                H.append(self.hamiltonian(e))
                W.append(W[-1] + self.dt * float(um @ y))
        if not energy:
            H, W = np.full(len(ts), np.nan), np.full(len(ts), np.nan)
        return MidpointRun(np.array(ts), np.array(H), np.array(W), np.array(Y).reshape(-1, m), e)

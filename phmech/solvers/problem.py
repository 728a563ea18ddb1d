"""The problem contract of the solvers, and a plain descriptor DAE for models written by hand.

Every solver of :mod:`phmech.solvers` integrates ``E y' = f(t, y)`` for
an object with the interface of :class:`Problem`: the assembled systems
(:class:`~phmech.assembly.DescriptorDAE`) and :class:`DAEProblem`, for
models not assembled from pH subsystems (classic benchmark formulations,
reduced models, test problems).

The state is ``y = (q, e, lam)``: configuration ``q`` (``E`` block
``I``), efforts ``e`` (block ``M``, invertible) and the multipliers
``lam`` (block ``0``; algebraic, of index 2 for the error control), in
this order.
"""
from typing import Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import spsolve


@runtime_checkable
class Problem(Protocol):
    """What a solver relies on.

    Attributes
    ----------
    n, nq, ne, nl : int
        Sizes of ``y``, ``q``, ``e`` and ``lam`` (``n = nq + ne + nl``).
    sq, se, sl : slice
        Their positions in ``y`` (consecutive, in this order).
    E : sparse matrix, shape (n, n)
        ``diag(I, M, 0)``.
    M : sparse matrix, shape (ne, ne)
        The mass matrix (symmetric positive definite).

    Methods
    -------
    f(t, y) -> ndarray (n,)
        The right-hand side.
    jacobian(t, y) -> sparse matrix (n, n)
        ``df/dy``, exact (no finite differences in the assembled systems).
    derivative(t, y) -> ndarray (n,)
        ``y'`` of a consistent state (for starting steps and assimulo).
    power(t, y) -> float
        Power supplied through the ports minus dissipation (the work record).
    labels() -> list of str
        One name per variable (used in error messages).
    constraint_residual(t, y) -> ndarray (nl,)
        Residual of the algebraic equations (the velocity constraints).
    """

    n: int
    nq: int
    ne: int
    nl: int
    sq: slice
    se: slice
    sl: slice
    E: sp.spmatrix
    M: sp.spmatrix

    def f(self, t: float, y: np.ndarray) -> np.ndarray: ...

    def jacobian(self, t: float, y: np.ndarray) -> sp.spmatrix: ...

    def derivative(self, t: float, y: np.ndarray) -> np.ndarray: ...

    def power(self, t: float, y: np.ndarray) -> float: ...

    def labels(self) -> list: ...

    def constraint_residual(self, t: float, y: np.ndarray) -> np.ndarray: ...


class DAEProblem:
    """``E y' = f(t, y)``; the last ``n_alg`` variables are algebraic.

    Parameters
    ----------
    E : (n, n) array or sparse matrix
        Its leading ``n - n_alg`` block must be invertible, the rest zero.
    f : callable ``f(t, y) -> (n,)``
    jac : callable ``jac(t, y) -> (n, n)``, optional
        ``df/dy`` (dense or sparse); used as given.  Only when it is
        omitted is the Jacobian approximated by forward differences.
    n_alg : int
        Number of algebraic variables (at the end of ``y``).
    labels : list of str, optional
    power : callable ``power(t, y)``, optional
        Power supplied to the system (for energy bookkeeping).

    Notes
    -----
    All variables but the algebraic ones count as efforts ``e`` (``nq = 0``);
    the algebraic rows of ``f`` are the constraint residual.
    """

    def __init__(self, E, f, jac=None, n_alg=0, labels=None, power=None):
        self.E = sp.csr_matrix(E, dtype=float)
        if self.E.shape[0] != self.E.shape[1]:
            raise ValueError(f"DAEProblem: E must be square, got shape {self.E.shape}")
        self.n = self.E.shape[0]
        if isinstance(n_alg, bool) or not isinstance(n_alg, (int, np.integer)) or not 0 <= n_alg <= self.n:
            raise ValueError(f"DAEProblem: n_alg must be an integer in [0, {self.n}], got {n_alg!r}")
        self.nl = int(n_alg)
        self.nq, self.ne = 0, self.n - self.nl
        self.sq, self.se, self.sl = slice(0, 0), slice(0, self.ne), slice(self.ne, self.n)
        self.M = self.E[:self.ne, :self.ne]
        if abs(self.E[:, self.ne:]).sum() or abs(self.E[self.ne:, :]).sum():
            raise ValueError("DAEProblem: E must vanish on the algebraic rows and columns")
        if not callable(f) or (jac is not None and not callable(jac)):
            raise ValueError("DAEProblem: f (and jac, when given) must be callables of (t, y)")
        self._f, self._jac, self._power = f, jac, power
        self.labels_ = list(labels) if labels is not None else [f"y{i}" for i in range(self.n)]
        if len(self.labels_) != self.n:
            raise ValueError(f"DAEProblem: {len(self.labels_)} labels for {self.n} variables")

    def labels(self):
        return list(self.labels_)

    def identity_parameters(self):
        """The functions of the problem (part of a checkpoint's model identity)."""
        return {"f": self._f, "jac": self._jac, "power": self._power}

    def f(self, t, y):
        return np.asarray(self._f(t, y), dtype=float)

    def jacobian(self, t, y):
        """``df/dy``: the user's ``jac``, or forward differences when none is given."""
        if self._jac is not None:
            J = sp.csc_matrix(self._jac(t, y), dtype=float)
            if J.shape != (self.n, self.n):
                raise ValueError(f"DAEProblem: jac returned shape {J.shape}, expected {(self.n, self.n)}")
            return J
        f0 = self.f(t, y)
        J = np.empty((self.n, self.n))
        for i in range(self.n):
            h = 1e-7 * max(1.0, abs(y[i]))
            yp = y.copy()
            yp[i] += h
            J[:, i] = (self.f(t, yp) - f0) / h
        return sp.csc_matrix(J)

    def derivative(self, t, y):
        """``y'`` from the differential rows (algebraic rates set to zero)."""
        fy = self.f(t, y)
        yd = np.zeros(self.n)
        if self.ne:
            yd[:self.ne] = spsolve(sp.csc_matrix(self.M), fy[:self.ne])
        return yd

    @property
    def supplies_power(self):
        """Whether a power was given (without one the supplied work is zero and not recorded)."""
        return self._power is not None

    def power(self, t, y):
        return 0.0 if self._power is None else float(self._power(t, y))

    def constraint_residual(self, t, y):
        """The algebraic rows of ``f``."""
        return self.f(t, y)[self.sl]

    def split(self, y):
        return y[self.sq], y[self.se], y[self.sl]

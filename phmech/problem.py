"""A plain descriptor DAE ``E y' = f(t, y)`` for models written by hand.

The solvers of :mod:`phmech.solvers` integrate any object with the
interface of :class:`~phmech.assembly.DescriptorDAE`; this class provides it
for models that are not assembled from pH subsystems (classic benchmark
formulations, reduced models).  The algebraic variables (multipliers, of
index 2 for the error control) must come last.
"""
import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import spsolve


class DAEProblem:
    """``E y' = f(t, y)``; the last ``n_alg`` variables are algebraic.

    Parameters
    ----------
    E : (n, n) array or sparse matrix
        Its leading ``n - n_alg`` block must be invertible, the rest zero.
    f : callable ``f(t, y) -> (n,)``
    jac : callable ``jac(t, y) -> (n, n)``, optional
        ``df/dy``; finite differences when omitted.
    n_alg : int
        Number of algebraic variables (at the end of ``y``).
    labels : list of str, optional
    power : callable ``power(t, y)``, optional
        Power supplied to the system (for energy bookkeeping).
    """

    def __init__(self, E, f, jac=None, n_alg=0, labels=None, power=None):
        self.E = sp.csr_matrix(E)
        self.n = self.E.shape[0]
        self.nl = int(n_alg)
        self.nq, self.ne = 0, self.n - self.nl
        self.sq, self.se, self.sl = slice(0, 0), slice(0, self.ne), slice(self.ne, self.n)
        self.M = self.E[:self.ne, :self.ne]
        if abs(self.E[:, self.ne:]).sum() or abs(self.E[self.ne:, :]).sum():
            raise ValueError("DAEProblem: E must vanish on the algebraic rows and columns")
        self._f, self._jac, self._power = f, jac, power
        self.labels_ = list(labels) if labels is not None else [f"y{i}" for i in range(self.n)]
        if len(self.labels_) != self.n:
            raise ValueError(f"DAEProblem: {len(self.labels_)} labels for {self.n} variables")

    def labels(self):
        return list(self.labels_)

    def f(self, t, y):
        return np.asarray(self._f(t, y), dtype=float)

    def jacobian(self, t, y):
        if self._jac is not None:
            return sp.csc_matrix(self._jac(t, y))
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
        yd[:self.ne] = spsolve(sp.csc_matrix(self.M), fy[:self.ne]) if self.ne else []
        return yd

    def power(self, t, y):
        return 0.0 if self._power is None else float(self._power(t, y))

    def split(self, y):
        return y[self.sq], y[self.se], y[self.sl]

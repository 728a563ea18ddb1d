"""The first-order form of the generalized-alpha method (Jansen, Whiting & Hulbert 2000).

:class:`FirstOrderForm` holds the part of
:class:`~phmech.solvers.genalpha.GeneralizedAlpha` that integrates problems
``E y' = f(t, y)`` (see that module's docstring for the method): the start,
the step, the driver of the simplified Newton iteration (one loop,
:func:`~phmech.solvers.genalpha_kernels.genalpha_newton`, compiled for
assembled systems whose residual is completely compiled, with dense factors
up to :data:`phmech.math.sizes.DENSE_MAX` unknowns, interpreted with
:class:`PythonStage` otherwise), and the iteration matrix.
"""
import numpy as np
import scipy.sparse as sp

from ..math.sizes import DENSE_MAX
from .base import SolverError


def first_order_parameters(rho_inf):
    """``(alpha_m, alpha_f, gamma)`` of the first-order method of Jansen, Whiting & Hulbert (2000, eqs. 17, 19)."""
    r = float(rho_inf)
    am, af = 0.5 * (3 - r) / (1 + r), 1 / (1 + r)
    return am, af, 0.5 + am - af


class FirstOrderForm:
    """The first-order form's methods of :class:`~phmech.solvers.genalpha.GeneralizedAlpha`
    (which provides ``problem``, ``t``, ``y``, the options, the step grid and ``_lu_of``)."""

    def _init_first_order(self, acc0, compiled):
        d = self.problem
        self.nd = d.n - d.nl
        self.am, self.af, self.gamma = first_order_parameters(self.rho_inf)
        res = np.asarray(d.constraint_residual(self.t, self.y), float)
        if res.size and np.max(np.abs(res)) > 1e-8 * max(1.0, float(np.max(np.abs(self.y)))):
            k = int(np.argmax(np.abs(res)))
            raise ValueError(f"genalpha: inconsistent initial state: constraint row {d.labels()[d.sl][k]} has "
                             f"residual {res[k]:.3g}")
        if acc0 is None:
            self.xd = np.asarray(d.derivative(self.t, self.y), float)[:self.nd].copy()
        else:
            self.xd = np.array(acc0[0], dtype=float)
            if self.xd.shape != (self.nd,):
                raise ValueError(f"genalpha: acc0 of the first-order form must start with x' of length {self.nd}")
        self.Ed = sp.csr_matrix(d.E)[:self.nd, :]
        self.Ed_d = sp.csr_matrix(self.Ed[:, :self.nd])
        self.Ed_d.sort_indices()
        self.xd_old = self.xd.copy()
        self.y_old = self.y.copy()
        # compiled Newton iteration (phmech.solvers.genalpha_kernels): systems whose residual
        # the kernel evaluates completely, factorized densely
        self._kernel = None
        make = getattr(d, "compiled_residual", None)
        if compiled and make is not None and d.n <= DENSE_MAX:
            c = make()
            if c is not None and c.pure:
                self._kernel = c
                E = self.Ed_d
                self._Ed_csr = (E.indptr.astype(np.int64), E.indices.astype(np.int64), E.data.astype(float))
                self._Ed_dense = self.Ed.toarray()
                self._lu_c = (None,)
                self._no_lu, self._no_piv = np.zeros((0, 0)), np.zeros(0, np.int64)

    def _step_first_order(self):
        """One step: ``E x'_{n+am} = f_d(t_{n+af}, y_{n+af})`` on the differential rows, the
        constraints ``f_a(t_{n+1}, y_{n+1}) = 0`` at the step's end (index 2, no drift of ``G e = w``)."""
        nd = self.nd
        h, t1 = self._step_times()
        t0, y0, xd0 = self.t, self.y, self.xd
        scale = np.maximum(np.abs(y0), 1e-8)
        lu = self._lu if (self.reuse_jacobian and self._lu_h == h) else None   # simplified Newton over steps
        for attempt in range(2):
            started_fresh = lu is None
            y1 = y0.copy()
            y1[:nd] += h * xd0
            lu, err, ok = self._newton_first_order(h, t1, y1, lu, scale)
            if ok or started_fresh:
                break
            lu = None
        if not ok:
            raise SolverError(self.name, t0, f"Newton iteration did not converge (last relative increment "
                              f"{err:.3g} after {self.max_newton} iterations): reduce dt")
        self._lu, self._lu_h = lu, h
        self.t_old, self.y_old, self.xd_old = t0, y0, xd0
        self.y, self.xd = y1, self._parts(h, y1)[0]
        self._h_last = t1 - t0
        self.t = t1
        self.nsteps += 1

    def _parts(self, h, y1):
        """``(x'+, x'_{n+am}, y_{n+af})`` of the iterate ``y1`` of a step of size ``h`` from ``(t, y, xd)``."""
        nd, y0, xd0 = self.nd, self.y, self.xd
        xd1 = xd0 + (y1[:nd] - y0[:nd] - h * xd0) / (h * self.gamma)
        return xd1, xd0 + self.am * (xd1 - xd0), y0 + self.af * (y1 - y0)

    _NONFINITE = ("the residual became non-finite (diverging Newton iterates, or the model returns NaN): "
                  "reduce dt")

    def _newton_first_order(self, h, t1, y1, lu, scale):
        """Simplified Newton iteration of one step attempt from the predictor ``y1`` (updated in
        place) with the factors ``lu`` (None: factorize at the first iterate); returns the
        factors used, the last relative increment and whether it converged.

        The loop is :func:`~phmech.solvers.genalpha_kernels.genalpha_newton`, compiled for a
        compiled residual with dense factors, else interpreted with :class:`PythonStage`; it
        returns here for each new iteration matrix and is resumed after the factorization."""
        from . import genalpha_kernels as gk
        c = self._kernel
        t_af = self.t + self.af * h
        if c is not None:
            data, run = gk.GenalphaData(*self._Ed_csr, c.model(), c.inputs(t_af), c.inputs(t1)), gk.genalpha_newton
        else:
            data, run = PythonStage(self), gk.genalpha_newton_py
        fresh, it, prev, r_given = lu is None, 0, 0.0, False
        r = np.empty(self.problem.n)
        while True:
            factors = lu
            if c is not None:                   # row-major LAPACK arrays for the compiled loop
                if lu is not None and self._lu_c[0] is not lu:
                    lu_piv = lu.lu_piv
                    self._lu_c = (lu, np.ascontiguousarray(lu_piv[0]), np.asarray(lu_piv[1], np.int64))
                factors = self._lu_c[1:] if lu is not None else (self._no_lu, self._no_piv)
            status, it, err, prev, nres = run(
                data, factors, lu is not None, self.y, self.xd, y1, h, self.gamma, self.am, self.af, t_af, t1,
                fresh, it, prev, r, r_given, scale, self.newton_tol, self.max_newton)
            if c is not None:                   # the Python data count their own calls
                self.nfev += 2 * nres
            if status == gk.NONFINITE:
                raise SolverError(self.name, self.t, self._NONFINITE)
            if status != gk.NEED_LU:
                return lu, err, status == gk.CONVERGED
            lu, fresh, r_given = self._factor_first_order(t_af, t1, self._parts(h, y1)[2], y1,
                                                          self.am / (h * self.gamma)), True, True

    def _factor_first_order(self, t_af, t1, y_af, y1, c):
        """LU of ``c E - af df/dy(t_af)`` (differential rows) over ``-df/dy(t1)`` (algebraic rows);
        dense for the compiled iteration (with the compiled Jacobian where there is one)."""
        d, nd, af = self.problem, self.nd, self.af
        self.njev += 1 + bool(d.nl)
        if self._kernel is not None:
            jac = self._compiled_jacobian if self._kernel.has_jacobian else None
            J_af = jac(t_af, y_af) if jac else d.jacobian(t_af, y_af).toarray()
            J_1 = (jac(t1, y1) if jac else d.jacobian(t1, y1).toarray())[nd:] if d.nl else np.zeros((0, d.n))
            A = np.vstack([c * self._Ed_dense - af * J_af[:nd], -J_1])
        else:
            J_af = sp.csr_matrix(d.jacobian(t_af, y_af))
            J_1 = sp.csr_matrix(d.jacobian(t1, y1))[nd:] if d.nl else sp.csr_matrix((0, d.n))
            A = sp.vstack([c * self.Ed - af * J_af[:nd], -J_1], format="csc")
            A = A.toarray() if d.n <= DENSE_MAX else A
        return self._lu_of(A, "dependent constraints or a singular mass matrix on the allowed motions")

    def _compiled_jacobian(self, t, y):
        """The compiled dense ``df/dy`` at ``(t, y)`` (``t``: the loads' inputs)."""
        return self._kernel.jacobian(y, t=t)


class PythonStage:
    """The step data of the interpreted generalized-alpha iteration
    (:func:`~phmech.solvers.genalpha_kernels.genalpha_newton` run as Python): the problem's
    residual at ``t_{n+af}`` and ``t_{n+1}`` and ``E_d``, counting the evaluations in the
    solver's statistics."""

    def __init__(self, solver):
        self.solver = solver

    def f(self, k, t, y, out):
        s = self.solver
        with np.errstate(all="ignore"):
            out[:] = s.problem.f(t, y)
        s.nfev += 1

    def ed_product(self, x, out):
        out[:x.size] = self.solver.Ed_d @ x

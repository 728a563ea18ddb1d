"""Adapters to the assimulo DAE solvers (IDA from SUNDIALS, Radau5DAE).

Both receive the residual ``F(t, y, y') = E y' - f(t, y)``.  IDA gets the
exact (dense) iteration matrix ``c E - df/dy`` and the multipliers are
excluded from its error test (``suppress_alg``), as index-2 variables must
be.  They still enter IDA's Newton convergence test, where an absolute
tolerance as small as that of the states makes the iteration fail on
multipliers of the size of real joint forces: their absolute tolerance is
``atol_lambda`` (default ``1e4 * atol``); Radau5DAE is told the index of every variable (1 for ``q`` and ``e``,
2 for the multipliers) and estimates its own Jacobian.
"""
import time

import numpy as np

from .base import DAESolver, SolverError
from ..result import Result


def _import_assimulo():
    try:
        from assimulo.problem import Implicit_Problem
        from assimulo import solvers
    except ImportError as err:  # pragma: no cover - depends on the install
        raise ImportError("the assimulo solvers need the package 'assimulo' "
                          "(scripts/install.sh installs assimulo-testing)") from err
    return Implicit_Problem, solvers


class _AssimuloSolver(DAESolver):
    max_step = None
    _cls = None

    def __init__(self, dae, t_span, y0, max_step=None, ncp=None, atol_lambda=None, max_steps=None, **kw):
        super().__init__(dae, t_span, y0, **kw)
        self.max_steps = max_steps
        self.max_step = max_step
        self.atol_lambda = 1e4 * self.atol if atol_lambda is None else float(atol_lambda)
        self.ncp = ncp

    def _problem(self):
        Implicit_Problem, solvers = _import_assimulo()
        dae = self.dae
        E = dae.E.tocsr()
        counter = self

        def res(t, y, yd):
            counter.nfev += 1
            return E @ yd - dae.f(t, y)

        yd0 = dae.derivative(self.t0, self.y)
        prob = Implicit_Problem(res, self.y.copy(), yd0, self.t0, name="phmech")
        return prob, solvers, E

    def _configure(self, solver):
        solver.verbosity = 50
        solver.rtol = self.rtol
        d = self.dae
        solver.atol = np.r_[np.full(d.nq + d.ne, self.atol), np.full(d.nl, self.atol_lambda)]
        if self.max_step is not None:
            solver.maxh = self.max_step
        if self.max_steps is not None:
            solver.maxsteps = int(self.max_steps)
        solver.report_continuously = False

    def _run(self):
        raise NotImplementedError

    def solve(self):
        prob, solvers, E = self._problem()
        solver = self._make(prob, solvers, E)
        self._configure(solver)
        tic = time.perf_counter()
        try:
            if self.t_eval is not None:
                t, y, _ = solver.simulate(self.t_end, 0, self.t_eval)
            else:
                t, y, _ = solver.simulate(self.t_end, self.ncp or 0)
        except Exception as err:
            raise SolverError(self.name, float(getattr(solver, "t", self.t0)), f"{type(err).__name__}: {err}") from None
        wall = time.perf_counter() - tic
        raw = solver.get_statistics()
        st = {k: raw[k] for k in raw.keys()}
        stats = {"nsteps": int(st.get("nsteps", 0)), "nreject": int(st.get("nstepfails", st.get("nerrfails", 0))),
                 "nfev": int(st.get("nfcns", self.nfev)), "njev": int(st.get("njacs", 0)),
                 "nlu": int(st.get("nlus", st.get("njacs", 0))), "wall_time": wall}
        y = np.asarray(y)
        if not np.all(np.isfinite(y)):
            raise SolverError(self.name, float(t[-1]), "the solution became non-finite")
        self.status = "finished"
        return Result(np.asarray(t), y, self.dae, self.name, stats)


class IDA(_AssimuloSolver):
    """SUNDIALS IDA (variable-order BDF) through assimulo, dense linear algebra.

    Options: ``rtol``, ``atol``, ``atol_lambda``, ``max_step``, ``max_steps``
    (passed to assimulo's ``maxsteps``), ``t_eval``
    or ``ncp`` (number of communication points; 0 = every internal step).
    """

    name = "ida"

    def _make(self, prob, solvers, E):
        dae = self.dae
        Ed = E.toarray()
        counter = self

        def jac(c, t, y, yd):
            counter.njev += 1
            return c * Ed - dae.jacobian(t, y).toarray()

        prob.jac = jac
        prob.algvar = np.r_[np.ones(dae.nq + dae.ne), np.zeros(dae.nl)]
        s = solvers.IDA(prob)
        s.suppress_alg = True
        s.usejac = True
        s.make_consistent  # noqa: B018 - initial values are consistent already
        return s


class Radau5DAE(_AssimuloSolver):
    """Radau IIA (order 5) through assimulo's Radau5DAE (dense, Fortran core)."""

    name = "radau5"

    def _make(self, prob, solvers, E):
        dae = self.dae
        s = solvers.Radau5DAE(prob)
        s.index = [1] * (dae.nq + dae.ne) + [2] * dae.nl
        return s

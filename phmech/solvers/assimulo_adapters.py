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
import numpy as np

from .base import DAESolver, SolverError, positive_option


def _import_assimulo():
    try:
        from assimulo.problem import Implicit_Problem
        from assimulo import solvers
    except ImportError as err:  # pragma: no cover - depends on the install
        raise ImportError("the assimulo solvers need the package 'assimulo' "
                          "(scripts/install.sh installs assimulo-testing)") from err
    return Implicit_Problem, solvers


class _AssimuloSolver(DAESolver):
    """An assimulo solver behind the step contract: each :meth:`step` continues the
    assimulo run to the driver's next target (output time, breakpoint or end)."""

    _cls = None

    def __init__(self, dae, t_span, y0, rtol=1e-6, atol=1e-6, max_step=None, atol_lambda=None, max_steps=None):
        super().__init__(dae, t_span, y0, rtol=rtol, atol=atol)
        self.max_step = positive_option(self.name, "max_step", max_step, allow_none=True)
        if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer))
                                      or max_steps < 1):
            raise ValueError(f"{self.name}: option max_steps must be a positive integer, got {max_steps!r}")
        self.max_steps = max_steps
        self.atol_lambda = 1e4 * self.atol if atol_lambda is None else positive_option(
            self.name, "atol_lambda", atol_lambda)

    def _problem(self):
        Implicit_Problem, solvers = _import_assimulo()
        dae = self.dae
        E = dae.E.tocsr()
        counter = self

        def res(t, y, yd):
            counter.nfev += 1
            return E @ yd - dae.f(t, y)

        yd0 = dae.derivative(self.t, self.y)
        prob = Implicit_Problem(res, self.y.copy(), yd0, self.t, name="phmech")
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

    def step(self):
        """Integrate from ``t`` to ``t_bound`` in one assimulo run (a fresh one per
        breakpoint interval), reporting at the driver's output times inside it."""
        prob, solvers, E = self._problem()
        solver = self._make(prob, solvers, E)
        self._configure(solver)
        t_bound = self.t_bound
        outs = getattr(self, "outputs", None)
        inside = None if outs is None else [float(t) for t in outs if self.t < t < t_bound]
        try:
            if inside is None:
                t, y, _ = solver.simulate(t_bound, 0)
            else:
                t, y, _ = solver.simulate(t_bound, 0, inside + [t_bound])
        except Exception as err:
            raise SolverError(self.name, float(getattr(solver, "t", self.t)),
                              f"{type(err).__name__}: {err}") from None
        t, y = np.asarray(t, float), np.asarray(y, float)
        keep = t > self.t
        self._chunk_t = np.r_[self.t, t[keep]]
        self._chunk_y = np.vstack([self.y[None, :], y[keep]])
        self.t_old, self.y_old = self.t, self.y
        self.t, self.y = t_bound, y[-1].copy()
        raw = solver.get_statistics()
        st = {k: raw[k] for k in raw.keys()}
        self.nsteps += int(st.get("nsteps", 0))
        self.nreject += int(st.get("nstepfails", st.get("nerrfails", 0)))
        self.njev += int(st.get("njacs", 0))
        self.nlu += int(st.get("nlus", st.get("njacs", 0)))

    def dense_output(self):
        """Piecewise-linear interpolation over the solver's internal steps of the last chunk."""
        tc, yc = self._chunk_t, self._chunk_y

        def interp(t):
            tt = np.atleast_1d(np.asarray(t, float))
            out = np.column_stack([np.interp(tt, tc, yc[:, i]) for i in range(yc.shape[1])])
            return out[0] if np.ndim(t) == 0 else out
        return interp


class IDA(_AssimuloSolver):
    """SUNDIALS IDA (variable-order BDF) through assimulo, dense linear algebra.

    Options: ``rtol``, ``atol``, ``atol_lambda``, ``max_step``, ``max_steps``
    (assimulo's ``maxsteps``, per continuation to the next output time).
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

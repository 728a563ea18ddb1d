"""Adapters to the assimulo DAE solvers (IDA from SUNDIALS, Radau5DAE).

Both receive the residual ``F(t, y, y') = E y' - f(t, y)``.  IDA gets the
exact (dense) iteration matrix ``c E - df/dy`` and the multipliers are
excluded from its error test (``suppress_alg``), as index-2 variables must
be.  They still enter IDA's Newton convergence test, where an absolute
tolerance as small as that of the states makes the iteration fail on
multipliers of the size of real joint forces: their absolute tolerance is
``atol_lambda`` (default ``1e4 * atol``).  Radau5DAE is told the index of
every variable (1 for ``q`` and ``e``, 2 for the multipliers) and
estimates its own Jacobian.

Under the driver's step contract one :meth:`~_AssimuloSolver.step` is one
assimulo run from ``t`` to ``t_bound`` (so a breakpoint restarts the
integrator, as it should at a kink of the data).  The run reports at the
driver's output times inside it (``t_outputs``, interpolated by assimulo
to the method's order), or at every internal step when the driver wants
every step; the dense output is the piecewise-linear interpolant through
these points, which is what events are located on.  Callbacks therefore
run once per interval between breakpoints.

Where the problem supplies a power, the supplied work ``W`` is one more
differential variable of the run, ``W' = P(t, y)``, placed before the
multipliers: assimulo integrates it with the same method and error control
as the state, so that the energy balance ``H - H0 - W`` of every row is the
method's own error whatever the output times (not that of a quadrature over
the rows).  Its Jacobian row leaves out ``dP/dy`` (the iteration converges
on ``W`` once the state has, ``W`` entering no other equation).
"""
import numpy as np

from .base import Solver, SolverError, count_option, positive_option


def _import_assimulo():
    try:
        from assimulo.problem import Implicit_Problem
        from assimulo import solvers
    except ImportError as err:  # pragma: no cover - depends on the install
        raise ImportError("the assimulo solvers need the package 'assimulo' "
                          "(scripts/install.sh installs assimulo-testing)") from err
    return Implicit_Problem, solvers


class _AssimuloSolver(Solver):
    """An assimulo solver behind the step contract (see the module docstring).

    Parameters
    ----------
    problem, t0, y0, t_bound
        See :class:`~phmech.solvers.base.Solver`.
    rtol, atol : float
        Tolerances (multipliers left out of the error test).
    atol_lambda : float, optional
        Absolute tolerance of the multipliers (default ``1e4 * atol``).
    first_step : float, optional
        Initial step of every run (assimulo's ``inith``).
    max_step : float, optional
        Largest step (assimulo's ``maxh``).
    max_steps : int, optional
        Step limit of the whole integration: each run gets the budget left
        (assimulo's ``maxsteps``), and exceeding it is a :class:`SolverError`.
    """

    def __init__(self, problem, t0, y0, t_bound=None, rtol=1e-6, atol=1e-6, atol_lambda=None,
                 first_step=None, max_step=None, max_steps=None, **unknown):
        self.refuse_unknown(unknown)
        super().__init__(problem, t0, y0, t_bound)
        _import_assimulo()
        self.rtol = positive_option(self.name, "rtol", rtol)
        self.atol = positive_option(self.name, "atol", atol)
        self.atol_lambda = 1e4 * self.atol if atol_lambda is None else positive_option(
            self.name, "atol_lambda", atol_lambda)
        self.first_step = positive_option(self.name, "first_step", first_step, allow_none=True)
        self.max_step = positive_option(self.name, "max_step", max_step, allow_none=True)
        self.max_steps = count_option(self.name, "max_steps", max_steps, allow_none=True)
        self._chunk = None
        power = getattr(problem, "power", None)
        #: the supplied work is integrated with the state (see the module docstring)
        self.records_work = callable(power) and bool(getattr(problem, "supplies_power", True))
        self.work = self.work_old = 0.0
        #: where W sits in assimulo's variables: after q and e, before the multipliers
        self._iw = problem.n - problem.nl

    def _augment(self, v, w):
        """``v`` with the work ``w`` inserted at :attr:`_iw` (where the work is recorded)."""
        return np.insert(v, self._iw, w) if self.records_work else v

    def _reduce(self, Y):
        """``(states, work)`` of assimulo's variables ``Y`` (rows)."""
        if not self.records_work:
            return Y, None
        return np.delete(Y, self._iw, axis=-1), Y[..., self._iw]

    def _problem(self):
        Implicit_Problem, solvers = _import_assimulo()
        problem = self.problem
        E = problem.E.tocsr()
        counter = self

        if self.records_work:
            iw, power = self._iw, problem.power

            def res(t, y, yd):
                counter.nfev += 1
                x = np.delete(y, iw)
                return np.insert(E @ np.delete(yd, iw) - problem.f(t, x), iw, yd[iw] - power(t, x))
        else:
            def res(t, y, yd):
                counter.nfev += 1
                return E @ yd - problem.f(t, y)

        yd0 = self._augment(problem.derivative(self.t, self.y), problem.power(self.t, self.y)
                            if self.records_work else 0.0)
        y0 = self._augment(self.y.copy(), self.work)
        return Implicit_Problem(res, y0, yd0, self.t, name="phmech"), solvers, E

    def _configure(self, solver):
        d = self.problem
        solver.verbosity = 50
        solver.rtol = self.rtol
        atol = np.r_[np.full(d.nq + d.ne, self.atol), np.full(d.nl, self.atol_lambda)]
        if self.records_work:            # the work to the tolerance of the energy
            energy = getattr(d, "hamiltonian", None)
            scale = max(1.0, abs(float(energy(self.y)))) if energy is not None else 1.0
            atol = self._augment(atol, self.atol * scale)
        solver.atol = atol
        if self.first_step is not None:
            solver.inith = self.first_step
        if self.max_step is not None:
            solver.maxh = self.max_step
        if self.max_steps is not None:
            solver.maxsteps = self.max_steps - self.nsteps

    def _step(self):
        """One assimulo run from ``t`` to ``t_bound``, reporting at the output times inside it."""
        prob, solvers, E = self._problem()
        solver = self._make(prob, solvers, E)
        self._configure(solver)
        t_bound = self.t_bound
        outs = self.t_outputs
        inside = None if outs is None else [float(t) for t in outs if self.t < t < t_bound]
        solver.report_continuously = inside is None          # every internal step
        try:
            if inside is None:
                t, y, _ = solver.simulate(t_bound, 0)
            else:
                t, y, _ = solver.simulate(t_bound, 0, inside + [t_bound])
        except Exception as err:
            raise SolverError(self.name, self.t,
                              f"{type(err).__name__}: {err}") from None
        self._count(solver)
        if self.max_steps is not None and self.nsteps > self.max_steps:
            raise SolverError(self.name, float(solver.t), f"more than max_steps = {self.max_steps} steps")
        t = np.asarray(t, float)
        y, w = self._reduce(np.asarray(y, float))
        keep = (t > self.t) & (t < t_bound)
        self._chunk = (np.r_[self.t, t[keep], t_bound], np.vstack([self.y[None, :], y[keep], y[-1:]]),
                       np.r_[self.work, w[keep], w[-1]] if w is not None else None)
        self.t_old, self.y_old = self.t, self.y
        self.t, self.y = t_bound, y[-1].copy()
        if w is not None:
            self.work_old, self.work = self.work, float(w[-1])

    def _count(self, solver):
        st = solver.get_statistics()
        get = lambda key: int(st[key]) if key in st.keys() else 0  # noqa: E731
        self.nsteps += get("nsteps")
        self.nreject += get("nerrfails")
        self.njev += get("njacs") if self._counts_jacobians else 0
        self.nlu += get("nlus") or get("njacs")      # IDA factorizes at every Jacobian

    def interior_points(self):
        """Times, states and work the last run reported strictly inside ``(t_old, t)``."""
        tc, yc, wc = self._chunk
        return tc[1:-1], yc[1:-1], wc[1:-1] if wc is not None else np.zeros(max(tc.size - 2, 0))

    def work_output(self):
        """The work the last run reported, linear between its points (the output times are
        among them, where it is assimulo's)."""
        tc, _, wc = self._chunk

        def interp(t):
            return np.interp(t, tc, wc)
        return interp

    def dense_output(self):
        """Piecewise-linear interpolation through the points the last run reported."""
        tc, yc, _ = self._chunk

        def interp(t):
            tt = np.atleast_1d(np.asarray(t, float))
            out = np.column_stack([np.interp(tt, tc, yc[:, i]) for i in range(yc.shape[1])])
            return out[0] if np.ndim(t) == 0 else out.reshape(np.shape(t) + (-1,))
        return interp


class IDA(_AssimuloSolver):
    """SUNDIALS IDA (variable-order BDF) through assimulo, with the exact dense Jacobian."""

    name = "ida"
    _counts_jacobians = False        # counted in the Jacobian callback

    def _make(self, prob, solvers, E):
        problem = self.problem
        Ed = E.toarray()
        counter = self

        if self.records_work:
            iw = self._iw

            def jac(c, t, y, yd):
                counter.njev += 1
                A = c * Ed - problem.jacobian(t, np.delete(y, iw)).toarray()
                A = np.insert(np.insert(A, iw, 0.0, axis=0), iw, 0.0, axis=1)
                A[iw, iw] = c
                return A
        else:
            def jac(c, t, y, yd):
                counter.njev += 1
                return c * Ed - problem.jacobian(t, y).toarray()

        prob.jac = jac
        prob.algvar = self._augment(np.r_[np.ones(problem.nq + problem.ne), np.zeros(problem.nl)], 1.0)
        s = solvers.IDA(prob)
        s.suppress_alg = True
        s.usejac = True
        return s


class Radau5DAE(_AssimuloSolver):
    """Radau IIA (order 5) through assimulo's Radau5DAE (dense, Fortran core)."""

    name = "radau5"
    _counts_jacobians = True

    def _make(self, prob, solvers, E):
        s = solvers.Radau5DAE(prob)
        s.index = [1] * (self.problem.nq + self.problem.ne + int(self.records_work)) + [2] * self.problem.nl
        return s

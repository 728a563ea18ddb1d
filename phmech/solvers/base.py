"""The contract every time integrator implements.

A solver integrates ``E y' = f(t, y)`` (the problem contract is
:class:`phmech.solvers.problem.Problem`) one step at a time.  It is built as
``Solver(problem, t0, y0, t_bound, **options)``, checks every option
(an unknown one, or a value it cannot honour, is one clear ``ValueError``
naming the solver, the option and the value) and provides

* :meth:`Solver.step` -- advance one step, never beyond ``t_bound``,
  setting ``t_old``, ``y_old``, ``t``, ``y``; a failure raises
  :class:`SolverError`;
* :meth:`Solver.dense_output` -- a callable ``t -> y(t)`` over the last
  step ``[t_old, t]``, vectorized in ``t`` (shape ``(n,)`` for a scalar,
  ``(len(t), n)`` for an array);
* the counters ``nsteps, nreject, nfev, njev, nlu`` and ``status``
  (``"running"``, ``"finished"`` when ``t`` has reached ``t_bound``,
  ``"failed"`` after a :class:`SolverError`);
* optionally an exact record of the supplied work, ``work`` at ``t``
  (``records_work = True`` and :meth:`Solver.work_output`, the work over
  the last step, between the step points consistent with the energy of the
  dense output, :func:`balanced_work`; the implicit midpoint rule keeps one).

A solver whose step is a run of several internal steps (the assimulo
adapters; the compiled implicit midpoint rule when the driver allows it)
may also provide ``interior_points()``: the times and states it reported
strictly inside ``(t_old, t)`` (and, for a solver with a work record, the
work there), which the driver returns as rows when the output is every
step.

The driver (:func:`phmech.solvers.driver.solve`) may move ``t_bound``
between steps (breakpoints: no step straddles one); moving it beyond ``t``
puts a finished solver back to ``"running"``.  Before each step it sets
hints that a solver may use or ignore: ``t_target``, the next time the
driver needs a state at (an output time or ``t_bound``), ``t_outputs``,
all output times of the run (``None`` for output at every step), and
``single_steps``: ``False`` when the driver does not need to see every
step (no events and no callbacks), so that a step may be a run of several
up to ``t_target`` (``True`` by default).
"""
import inspect

import numpy as np

from .._checks import count_option, positive_option  # noqa: F401 (the solvers' option checks)


class SolverError(RuntimeError):
    """A solver failed; ``t`` is the time reached and ``cause`` says why."""

    def __init__(self, solver, t, cause):
        self.solver, self.t, self.cause = solver, t, cause
        super().__init__(f"{solver} failed at t = {t:.9g}: {cause}")


def linear_interpolant(t0, t1, y0, y1, h=None):
    """``t -> y`` on the chord from ``(t0, y0)`` to ``(t1, y1)`` (``h``: the step, default ``t1 - t0``)."""
    h = t1 - t0 if h is None else h

    def interp(t):
        a = (np.asarray(t, float) - t0) / h
        return np.multiply.outer(1.0 - a, y0) + np.multiply.outer(a, y1)
    return interp


def balanced_work(problem, state, line, ts, ys, ws):
    """The supplied work ``t -> W(t)`` between step points, consistent with the energy there.

    At a step point the work is the solver's record.  Between two, the
    state is the dense output ``y(t)`` and the energy of the balance is
    ``H(y(t))``, which is not linear in ``t``; the work is the linear
    interpolant of the record plus the same curvature,
    ``W(t) = W_lin(t) + H(y(t)) - H_lin(t)`` (``_lin``: the linear
    interpolant of the values at the step points).  The balance
    ``H - W`` of a row is then the linear interpolant of the balance at
    the step points (for ``H = e^T M e / 2`` and the midpoint rule, ``W``
    is the work of the step's constant forces along the dense output),
    and the work is of the order of the dense output.

    Parameters
    ----------
    problem : :class:`phmech.solvers.problem.Problem`
        Its ``hamiltonian(y)`` is the energy of the balance
        (:meth:`phmech.result.Result.energy_balance`); without one the work
        is linear between the step points.
    state : callable
        ``t -> y(t)``, the solver's dense output over the steps.
    line : callable
        ``v -> (t -> v(t))``: the linear interpolant on each step of values
        ``v`` given at the step points (one per point).
    ts, ys, ws : sequences
        The step points: times (ascending), states and work.

    Returns
    -------
    callable
        ``t -> W(t)``, vectorized in ``t`` as ``state``.  The energy is
        evaluated one state at a time (the same numbers however the rows
        are grouped into calls), at the step points only where rows need it.
    """
    work = line(np.asarray(ws, float))
    energy = getattr(problem, "hamiltonian", None)
    if energy is None:
        return work
    ts = np.asarray(ts, float)
    points, known = np.zeros(ts.size), np.zeros(ts.size, bool)

    def balanced(t):
        first = np.clip(np.searchsorted(ts, np.atleast_1d(t)) - 1, 0, ts.size - 2)
        for i in np.unique(np.r_[first, first + 1]):          # the step points around the rows
            if not known[i]:
                points[i], known[i] = energy(ys[i]), True
        y = state(t)
        H = energy(y) if np.ndim(t) == 0 else np.array([energy(row) for row in y])
        return work(t) + (H - line(points)(t))          # the record itself at a step point
    return balanced


#: Gauss-Legendre's three nodes and weights on ``[0, 1]`` (exact for polynomials of degree 5)
GAUSS3 = ((0.5 - 0.1 * np.sqrt(15.0), 0.5, 0.5 + 0.1 * np.sqrt(15.0)), (5.0 / 18.0, 8.0 / 18.0, 5.0 / 18.0))


def piecewise_linear(ts, hs, vs):
    """``t -> v(t)`` on each step ``[ts[i], ts[i + 1]]`` of size ``hs[i]`` by the formula of a
    single step (the state as :func:`linear_interpolant`; values of one number per point, the
    work and the energy of :func:`balanced_work`, as ``v0 + a (v1 - v0)``); a step point itself
    is returned as computed."""
    last = hs.size - 1

    def interp(t):
        if np.ndim(t) == 0:                    # the driver's case: one output time
            t = float(t)
            j = int(np.searchsorted(ts, t))
            if j < ts.size and ts[j] == t:
                return np.array(vs[j])
            i = min(max(j - 1, 0), last)
            a = (t - ts[i]) / hs[i]
            if vs.ndim == 1:
                return vs[i] + a * (vs[i + 1] - vs[i])
            return (1.0 - a) * vs[i] + a * vs[i + 1]
        tt = np.asarray(t, float)
        j = np.searchsorted(ts, tt, side="left")
        i = np.clip(j - 1, 0, last)
        a = (tt - ts[i]) / hs[i]
        at = np.clip(j, 0, ts.size - 1)
        exact = ts[at] == tt
        if vs.ndim == 1:
            return np.where(exact, vs[at], vs[i] + a * (vs[i + 1] - vs[i]))
        v = (1.0 - a)[..., None] * vs[i] + a[..., None] * vs[i + 1]
        return np.where(exact[..., None], vs[at], v)
    return interp


class QuadratureWork:
    """The record of the supplied work of a solver by a quadrature of the power over each step.

    A solver without an exact discrete power balance (Radau IIA, generalized-alpha) keeps the
    work ``W(t_{n+1}) = W(t_n) + h sum_i b_i P(t_n + c_i h, y(t_n + c_i h))`` with the nodes
    and weights :attr:`work_rule` (default :data:`GAUSS3`) and ``y(t)`` its dense output, so
    that ``H - W`` at a step point is the method's own energy error and not that of a
    quadrature over the output rows; between step points the work is consistent with the
    energy of the dense output (:func:`balanced_work`), as for the midpoint rule.  Radau IIA
    takes its own nodes: there the collocation polynomial satisfies the equations, so
    ``dH/dt = P`` at the nodes and the balance of a step is the error of the three-point Radau
    quadrature of ``dH/dt`` (a polynomial of degree 5), ``O(h^6)``.

    The solver calls :meth:`_init_work` once and :meth:`_record_work` after each step (or run
    of steps) with the step points, once its dense output covers them.
    """

    #: ``(nodes, weights)`` on ``[0, 1]`` of the work's quadrature over a step
    work_rule = GAUSS3

    def _init_work(self):
        power = getattr(self.problem, "power", None)
        #: the supplied work is recorded (the problem has a power; not one that is zero by construction)
        self.records_work = callable(power) and bool(getattr(self.problem, "supplies_power", True))
        self.work = self.work_old = 0.0
        self._work_steps = None
        self._work_nodes = tuple(np.asarray(v, float) for v in self.work_rule)

    def _record_work(self, ts, ys):
        """Add the work of the steps between the step points ``ts`` (from ``t_old`` to ``t``,
        states ``ys``) by the quadrature of the power along :meth:`dense_output`."""
        if not self.records_work:
            return
        c, b = self._work_nodes
        ts = np.asarray(ts, float)
        h = np.diff(ts)
        tq = (ts[:-1, None] + h[:, None] * c[None, :]).ravel()
        Y = self.dense_output()(tq)
        powers = getattr(self.problem, "powers", None)        # all nodes in one call where it has one
        if powers is not None:
            P = np.asarray(powers(tq, Y), float).reshape(h.size, c.size)
        else:
            power = self.problem.power
            P = np.array([power(t, y) for t, y in zip(tq, Y)]).reshape(h.size, c.size)
        ws = np.cumsum(np.concatenate([[self.work], h * (P @ b)]))     # step by step, however grouped
        self.work_old, self.work = float(ws[-2]), float(ws[-1])
        self._work_steps = (ts, np.asarray(ys, float), ws)

    def work_output(self):
        """``t -> W(t)`` over the last step (each step of a run): the record at the step points,
        between them consistent with the energy of the dense output (:func:`balanced_work`)."""
        ts, ys, ws = self._work_steps
        return self.balanced_work_output(ts, ys, ws)

    def interior_work(self):
        """The work at the step points strictly inside the last run of several steps."""
        return self._work_steps[2][1:-1] if self._work_steps is not None else np.zeros(0)

    def work_state(self):
        """The work record for a checkpoint (:meth:`restore_work` continues it)."""
        return {"work": self.work, "work_old": self.work_old}

    def restore_work(self, state):
        self.work = float(state.get("work", 0.0))
        self.work_old = float(state.get("work_old", self.work))
        self._work_steps = None


class Solver:
    """Base class of the integrators of ``E y' = f(t, y)`` (see the module docstring).

    Parameters
    ----------
    problem : :class:`phmech.solvers.problem.Problem`
    t0 : float
        Initial time.
    y0 : array, shape (n,)
        Consistent initial state.
    t_bound : float
        The end of the integration (the driver may move it between steps).
        The earlier form ``Solver(problem, (t0, t_end), y0)`` is accepted too.
    """

    name = "base"
    #: the solver records the exact supplied work (attribute ``work``, :meth:`work_output`)
    records_work = False

    def __init__(self, problem, t0, y0, t_bound=None):
        self.problem = problem
        if t_bound is None and np.ndim(t0) == 1 and len(t0) == 2:     # the earlier (t0, t_end) form
            t0, t_bound = t0
        try:
            t0, t_bound = float(t0), float(t_bound)
        except (TypeError, ValueError):
            raise ValueError(f"{self.name}: t0 and t_end must be numbers, got t0 = {t0!r}, "
                             f"t_end = {t_bound!r}") from None
        if not (np.isfinite(t0) and np.isfinite(t_bound)):
            raise ValueError(f"{self.name}: t0 and t_end must be finite, got t0 = {t0!r}, t_end = {t_bound!r}")
        if not t_bound > t0:
            raise ValueError(f"{self.name}: t_end ({t_bound}) must be larger than t0 ({t0})")
        y = np.array(y0, dtype=float)
        if y.shape != (problem.n,):
            raise ValueError(f"{self.name}: y0 has shape {y.shape}, the system has {problem.n} variables")
        bad = np.flatnonzero(~np.isfinite(y))
        if len(bad):
            labels = problem.labels()
            raise ValueError(f"{self.name}: y0 has non-finite entries: "
                             + ", ".join(f"{labels[i]} = {y[i]}" for i in bad[:5]))
        self.t0, self.t_end = t0, t_bound
        self.t = self.t_old = t0
        self.y, self.y_old = y, y.copy()
        self.nsteps = self.nreject = self.nfev = self.njev = self.nlu = 0
        self.status = "running"
        self._t_bound = t_bound
        self.t_target = t_bound
        self.t_outputs = None
        self.single_steps = True

    # -- the contract ------------------------------------------------------
    @property
    def dae(self):
        """The problem (older name)."""
        return self.problem

    @property
    def t_bound(self):
        """No step goes beyond this time; the driver may move it (not below ``t``)."""
        return self._t_bound

    @t_bound.setter
    def t_bound(self, value):
        value = float(value)
        if not (np.isfinite(value) and value >= self.t):
            raise ValueError(f"{self.name}: t_bound must be finite and not before t = {self.t}, got {value!r}")
        self._t_bound = value
        if self.status != "failed":
            self.status = "running" if value > self.t else "finished"

    def step(self):
        """Advance one step (not beyond ``t_bound``); updates ``t_old, y_old, t, y`` and ``status``."""
        if self.status != "running":
            raise RuntimeError(f"{self.name}: step() called on a {self.status} solver")
        limit = getattr(self, "max_steps", None)
        if limit is not None and self.nsteps >= limit:
            self.status = "failed"
            raise SolverError(self.name, self.t, f"the step limit max_steps = {limit} is reached")
        try:
            self._step()
        except SolverError:
            self.status = "failed"
            raise
        if self.t >= self._t_bound:
            self.status = "finished"

    def _step(self):
        raise NotImplementedError

    def dense_output(self):
        """Callable ``t -> y(t)`` over ``[t_old, t]`` (``t`` scalar or array)."""
        raise NotImplementedError

    def work_output(self):
        """Callable ``t -> work(t)`` over the last step (solvers with ``records_work``)."""
        raise NotImplementedError(f"{self.name} keeps no work record")

    def balanced_work_output(self, ts, ys, ws, hs=None):
        """``t -> W(t)`` over the steps between the step points ``ts`` (states ``ys``, work
        ``ws``, sizes ``hs``, by default their differences): :func:`balanced_work` along
        :meth:`dense_output`, the :meth:`work_output` of every solver with a work record."""
        hs = np.diff(ts) if hs is None else hs
        return balanced_work(self.problem, self.dense_output(), lambda v: piecewise_linear(ts, hs, v), ts, ys, ws)

    @property
    def path(self):
        """``"compiled"`` where the steps' iteration runs compiled (a kernel of the model's compiled
        residual, :mod:`phmech.assembly.compiled`), else ``"python"``."""
        kernels = (getattr(self, "_kernel", None), getattr(self, "_newton_kernel", None))
        return "compiled" if any(k is not None for k in kernels) else "python"

    def stats(self):
        """The counters as a dict."""
        return {"nsteps": self.nsteps, "nreject": self.nreject, "nfev": self.nfev,
                "njev": self.njev, "nlu": self.nlu}

    # -- options -----------------------------------------------------------
    @classmethod
    def option_names(cls):
        """The options this solver takes (keyword parameters of its constructor)."""
        skip = {"self", "problem", "t0", "y0", "t_bound"}
        return sorted(p.name for p in inspect.signature(cls.__init__).parameters.values()
                      if p.name not in skip and p.kind is p.POSITIONAL_OR_KEYWORD)

    def refuse_unknown(self, unknown):
        """One ValueError naming the options this solver does not take."""
        if unknown:
            given = ", ".join(f"{k}={unknown[k]!r}" for k in sorted(unknown))
            raise ValueError(f"{self.name}: unknown option(s) {sorted(unknown)} ({given}); this solver takes "
                             f"{self.option_names()} and the driver {sorted(DRIVER_OPTIONS)}")


#: options of the driver (:func:`phmech.solvers.driver.solve`) besides a solver's own
DRIVER_OPTIONS = ("t_eval", "dt_out", "tstops", "events", "progress", "callbacks", "restart", "checkpoint",
                  "checkpoint_every")

#: the base class under its earlier name
DAESolver = Solver

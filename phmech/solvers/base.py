"""The contract every time integrator implements.

A solver is built from ``(problem, t_span, y0, **options)`` (the problem
contract is :mod:`phmech.problem`), checks its options, and implements

* :meth:`DAESolver.step` -- advance one step, never beyond ``t_bound``
  (which the driver may move between steps, for breakpoints), setting
  ``t_old``, ``y_old``, ``t``, ``y``;
* :meth:`DAESolver.dense_output` -- an interpolant over the last step;
* counters ``nsteps, nreject, nfev, njev, nlu`` and ``status``;
* optionally ``work``: the exact supplied work up to ``t`` (the implicit
  midpoint rule keeps one).

Output times, breakpoints, events, progress and per-step callbacks belong
to the one driver, :func:`phmech.solvers.driver.integrate`.
"""
import numpy as np


class SolverError(RuntimeError):
    """A solver failed; ``t`` is the time reached and ``cause`` says why."""

    def __init__(self, solver, t, cause):
        self.solver, self.t, self.cause = solver, t, cause
        super().__init__(f"{solver} failed at t = {t:.9g}: {cause}")


def positive_option(solver, name, value, allow_none=False, allow_inf=False):
    """``float(value)`` if positive (and finite unless ``allow_inf``); else one clear ValueError."""
    if value is None and allow_none:
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{solver}: option {name} must be a number, got {value!r}") from None
    if not (v > 0) or (np.isinf(v) and not allow_inf):
        raise ValueError(f"{solver}: option {name} must be positive{'' if allow_inf else ' and finite'}, "
                         f"got {value!r}")
    return v


class DAESolver:
    """Base class of the integrators of ``E y' = f(t, y)`` (see the module docstring)."""

    name = "base"
    #: the solver records the exact supplied work (attribute ``work``)
    records_work = False

    def __init__(self, dae, t_span, y0, rtol=1e-6, atol=1e-6):
        self.dae = dae
        try:
            t0, t_end = (float(v) for v in t_span)
        except (TypeError, ValueError):
            raise ValueError(f"{self.name}: t_span must be two numbers (t0, t_end), got {t_span!r}") from None
        if not (np.isfinite(t0) and np.isfinite(t_end)):
            raise ValueError(f"{self.name}: t0 and t_end must be finite, got t0 = {t0!r}, t_end = {t_end!r}")
        if not t_end > t0:
            raise ValueError(f"{self.name}: t_end ({t_end}) must be larger than t0 ({t0})")
        self.t0, self.t_end, self.t_bound = t0, t_end, t_end
        self.y = np.array(y0, dtype=float)
        if self.y.shape != (dae.n,):
            raise ValueError(f"{self.name}: y0 has shape {self.y.shape}, the system has {dae.n} variables")
        bad = np.flatnonzero(~np.isfinite(self.y))
        if len(bad):
            labels = dae.labels()
            raise ValueError(f"{self.name}: y0 has non-finite entries: "
                             + ", ".join(f"{labels[i]} = {self.y[i]}" for i in bad[:5]))
        self.rtol = positive_option(self.name, "rtol", rtol)
        self.atol = positive_option(self.name, "atol", atol)
        self.t = self.t_old = t0
        self.y_old = self.y.copy()
        self.nsteps = self.nreject = self.nfev = self.njev = self.nlu = 0
        self.status = "running"
        #: the driver's next target (output time or breakpoint); solvers may use it as a hint
        self.t_target = t_end

    def stats(self):
        return {"nsteps": self.nsteps, "nreject": self.nreject, "nfev": self.nfev,
                "njev": self.njev, "nlu": self.nlu}

    def step(self):
        """Advance one step (not beyond ``t_bound``)."""
        raise NotImplementedError

    def dense_output(self):
        """Callable ``t -> y(t)`` (``t`` scalar or array) over ``[t_old, t]``."""
        t0, t1, y0, y1 = self.t_old, self.t, self.y_old, self.y

        def interp(t):
            a = (np.asarray(t, float) - t0) / (t1 - t0) if t1 > t0 else np.zeros_like(np.asarray(t, float))
            return np.multiply.outer(1 - a, y0) + np.multiply.outer(a, y1)
        return interp

    def solve(self, **driver_options):
        """Integrate to ``t_end`` through the driver; returns a :class:`~phmech.result.Result`."""
        from .driver import integrate
        return integrate(self, **driver_options)

"""Implicit midpoint rule (Gauss-Legendre, one stage) for the pH descriptor DAE.

One step of size ``h`` solves, for ``y1 = (q1, e1)`` and the multipliers
``lam`` of the step,

.. math::

    E \\frac{y_1 - y_0}{h} = f_d\\bigl(t_{1/2}, \\tfrac{y_0 + y_1}{2}, \\lambda\\bigr),
    \\qquad 0 = w(t_{1/2}) - G(q_{1/2})\\, e_{1/2},

so the constraint holds at the midpoints (``constraints="midpoint"``, the
default).  Since ``H = e^T M e / 2`` is
quadratic and ``e^T J(e) e = 0``, the discrete power balance is exact:

.. math::

    H(e_1) - H(e_0) = h\\,\\bigl(w(t_{1/2})^T \\lambda + y_{1/2}^T u(t_{1/2})
                      - e_{1/2}^T R\\, e_{1/2}\\bigr)

(to the Newton tolerance), while the velocity constraint at the step
points is met to O(h) only when ``G`` depends on the configuration.  With
``constraints="endpoint"`` the constraint is imposed at ``t_1`` instead:
exact at every step point, with a power balance error of O(h^2).  The method is A-stable and second order in the
differential variables.  The nonlinear systems are solved by a simplified
Newton method on a sparse LU factorization that is reused over steps until
the contraction deteriorates; a step whose iteration is too slow is retried
with factors at its last iterate (going on from it while it contracted),
and that retry accepts an iteration stalled at the round-off floor of its
increments (the rule of :func:`~phmech.solvers._newton.newton_converged`,
shared with the compiled step).  The multiplier of a step belongs to its
midpoint and is stored with the step's end point.  The solver also records
the exact discrete work supplied through the ports (``Result.work``); at an
output time inside a step it follows the energy of the dense output
(:func:`~phmech.solvers.base.balanced_work`), so that the balance holds at
every output row, on the step grid or not.
"""
import numpy as np
import scipy.sparse as sp

from ..math.sizes import DENSE_MAX
from ._dense import DenseLU as _DenseLU, sparse_factor
from .base import (Solver, SolverError, count_option, linear_interpolant, piecewise_linear,
                   positive_option)

#: a step that needed more simplified-Newton iterations refactorizes for the next: dense factors,
#: and sparse factors with the iteration in Python (the spatial chain of 20 bars, 320 unknowns,
#: Python iteration, after 4: 3.6 instead of 6.1 iterations per step, one factorization every 3
#: steps instead of every 17, a quarter of the time per step).  With dense factors 5 rather than
#: 4 saves 4-7 % (crank-slider with the consistent coupler, the planar chain of 20 bars, the
#: spatial chain of 5) or is even (the linear crank-slider, the consistent spatial beam)
REFRESH_ITERATIONS = 5
#: the same with sparse factors and the compiled iteration: an iteration is a compiled residual and
#: two sparse triangular solves, a factorization the Jacobian assembled as a scipy matrix and its
#: SuperLU factors, the time of some 30 iterations (spatial chains of 20 and 80 bars, 0.2 s,
#: dt 1e-3: 5.1 instead of 3.7 iterations per step, a third of the factorizations, 35 % less time;
#: ``benchmarks/spatial_chain.py``)
REFRESH_ITERATIONS_SPARSE = 6

NONFINITE_INCREMENT = ("the Newton increment became non-finite: the iteration matrix is singular or "
                       "ill-conditioned (a singular mass matrix on the allowed motions, or dependent "
                       "constraints)")

#: the most steps of one compiled call (:meth:`ImplicitMidpoint._run_block`; their points are
#: kept for the dense output)
BLOCK_MAX = 1000


class ImplicitMidpoint(Solver):
    """Fixed-step implicit midpoint rule (see the module docstring).

    Parameters
    ----------
    problem, t0, y0, t_bound
        See :class:`~phmech.solvers.base.Solver`.
    dt : float
        Step size.  Each interval between breakpoints (``t_bound`` as the
        driver sets it) is divided into equal steps of about ``dt``; a
        breakpoint restarts the Newton iteration (no extrapolation across it).
    constraints : ``"midpoint"`` or ``"endpoint"``
        Where the velocity constraint is imposed.
    newton_tol : float
        Relative tolerance of the Newton increments.
    max_newton : int
        Newton iterations before the Jacobian is refreshed (and, if that
        does not help, the step fails).
    fresh_jacobian : bool
        Factorize the iteration matrix anew in every step.
    refresh_iterations : int, optional
        After a step that needed more Newton iterations, the next step starts
        with a fresh iteration matrix instead of finding out by a failed
        iteration.  Default: :data:`REFRESH_ITERATIONS`, or
        :data:`REFRESH_ITERATIONS_SPARSE` for sparse factors with the compiled
        iteration (whose factorization costs many more iterations).
    """

    name = "midpoint"
    records_work = True

    def __init__(self, problem, t0, y0, t_bound=None, dt=None, constraints="midpoint",
                 newton_tol=1e-10, max_newton=7, fresh_jacobian=False, refresh_iterations=None,
                 compiled=True, **unknown):
        self.refuse_unknown(unknown)
        super().__init__(problem, t0, y0, t_bound)
        if constraints not in ("midpoint", "endpoint"):
            raise ValueError(f"midpoint: constraints must be 'midpoint' or 'endpoint', got {constraints!r}")
        self.endpoint = constraints == "endpoint"
        self.fresh_jacobian = bool(fresh_jacobian)
        self._iterations = 0
        if dt is None:
            raise ValueError("midpoint: a positive step size dt is required, got None")
        self.dt = positive_option(self.name, "dt", dt)
        self.newton_tol = positive_option(self.name, "newton_tol", newton_tol)
        self.max_newton = count_option(self.name, "max_newton", max_newton)
        d = problem
        nd = d.nq + d.ne
        self.nd = nd
        self.D = sp.diags(np.r_[np.full(nd, 0.5), np.ones(d.nl)], format="csc")
        self.Rsc = sp.diags(np.r_[np.ones(nd), np.full(d.nl, 2.0 if self.endpoint else 1.0)], format="csc")
        self._rsc, self._dcol = self.Rsc.diagonal(), self.D.diagonal()
        self.Ed = d.E.tocsc()
        # compiled steps (dense factors) or Newton iterations (SuperLU's factors) of the systems
        # whose residual the kernel evaluates completely (phmech.assembly.compiled), constraints
        # at the midpoint
        self._kernel = None
        self._fun = d.f
        make = getattr(d, "compiled_residual", None)
        c = make() if compiled and make is not None else None
        if c is not None and c.pure:
            self._fun = c.f               # the Python iteration (larger systems, sparse factors)
        self._newton_kernel = None         # the compiled Newton iteration on sparse factors
        if c is not None and c.pure and not self.endpoint:
            from .midpoint_kernels import AVAILABLE
            if AVAILABLE:
                E = sp.csr_matrix(d.E)
                E.sort_indices()
                self._E_csr = (E.indptr.astype(np.int64), E.indices.astype(np.int64), E.data.astype(float))
                if d.n <= DENSE_MAX:
                    self._kernel = c
                    self._Ed_dense = self.Ed.toarray()
                else:
                    self._newton_kernel = c
        self.Ed_mv = self.Ed.toarray() if d.n <= DENSE_MAX else self.Ed
        if refresh_iterations is None:
            refresh_iterations = REFRESH_ITERATIONS if self._newton_kernel is None else REFRESH_ITERATIONS_SPARSE
        self.refresh_iterations = count_option(self.name, "refresh_iterations", refresh_iterations)
        self.lu = None
        self.lu_h = None
        self.z_prev = None
        self.h = None            # step of the current interval between breakpoints
        self._interval = None    # (start, end) of that interval
        self._h_last = None
        self._lu_point = None    # (t, y) where the current iteration matrix was evaluated
        self._block = None       # the points of a compiled run of several steps (_run_block)
        #: step attempts of a compiled model whose Newton iteration ran in Python (:attr:`path`)
        self._python_attempts = 0
        #: exact discrete work supplied through the ports up to ``t``
        self.work = 0.0
        self.work_old = 0.0
        self._python = PythonSteps(self)
        if self._kernel is not None:
            # load the compiled steps for this model's argument types now, with the set-up and the
            # other kernels (a call of no steps), rather than inside the first step
            from .midpoint_kernels import TransposedLU, midpoint_steps
            none = np.zeros(0)
            self._call_steps(midpoint_steps, self._record(self._kernel, *self._kernel.step_inputs(()), True),
                             TransposedLU(d.n).factors, none, none, self._scales(self.y))

    def _scales(self, y):
        d = self.problem
        s = np.empty(d.n)
        for sl in (d.sq, d.se, d.sl):
            blk = np.abs(y[sl])
            s[sl] = max(float(blk.mean()) if blk.size else 0.0, 1e-8)
        return s

    def _continue_interval(self):
        """After :meth:`restore_state` at the end of the saved run's interval: extend that
        interval to the new ``t_bound`` when its step grid carries on unchanged (same ``h``), so
        that predictor, factor and step points are those of an uninterrupted run."""
        resumed, self._resumed = getattr(self, "_resumed", False), False
        if not resumed or self._interval is None or self.t != self._interval[1] or self.h is None:
            return False
        start = self._interval[0]
        span = self.t_bound - start
        if span / max(1, int(round(span / self.dt))) != self.h:
            return False
        self._interval = (start, self.t_bound)
        return True

    def _start_interval(self):
        """A new interval ``[t, t_bound]``: equal steps near ``dt``, Newton restarted."""
        span = self.t_bound - self.t
        self.h = span / max(1, int(round(span / self.dt)))
        self._interval = (self.t, self.t_bound)
        self.lu = self.lu_h = self.z_prev = None
        self.dae_scale = self._scales(self.y)

    def _factor(self, t, ym, h):
        if self._kernel is not None:          # compiled Jacobian, matrix and factors
            self._factor_compiled(t, ym, h)
            return
        A = self.Ed / h - _scaled(self.problem.jacobian(t, ym), self._rsc, self._dcol)
        self.njev += 1
        try:
            if self.problem.n <= DENSE_MAX:
                self.lu = _DenseLU(A.toarray())
            else:
                d = self.problem
                self.lu = sparse_factor(A, np.arange(d.nq + d.ne, d.n))
        except (RuntimeError, np.linalg.LinAlgError) as err:
            raise SolverError(self.name, self.t, self._singular_why(err)) from None
        self._factored(t, ym, h)

    def _singular_why(self, err):
        return (f"singular iteration matrix ({err}): the mass matrix is singular on the motions the "
                "joints allow, or constraints are dependent")

    def _vanishing_pivot(self, bad):
        """Raise for the compiled factorization's report ``bad`` (column + 1 of a vanishing pivot)."""
        k = bad - 1
        raise SolverError(self.name, self.t, self._singular_why(
            f"pivot of column {k} ({self.problem.labels()[k]}) vanishes" if k < self.problem.n
            else "LAPACK getrf argument error"))

    def _factored(self, t, ym, h):
        self.lu_h = h
        self._lu_point = (t, np.array(ym))
        self.nlu += 1

    def _factor_compiled(self, t, ym, h):
        from .midpoint_kernels import TransposedLU, iteration_matrix
        lu = TransposedLU(self.problem.n)
        bad = iteration_matrix(np.asarray(ym, float), h, t, self._Ed_dense, self._rsc, self._dcol, lu.F,
                               lu.ipiv, lu.nz, self._kernel.model(), self._kernel.inputs(t))
        self.njev += 1
        if bad:
            self._vanishing_pivot(bad)
        self.lu = lu
        self._factored(t, ym, h)

    def _nonfinite_cause(self, t, y0, r):
        """Say why the residual is not finite: a model function, or a diverging iterate."""
        d = self.problem
        labels = d.labels()
        rows = ", ".join(labels[i] for i in np.flatnonzero(~np.isfinite(r))[:3])
        explain = getattr(d, "explain_nonfinite", None)
        if explain is not None:
            sources = list(explain(t, y0))
            if sources:
                return (f"the residual became non-finite at t = {t:.9g} ({rows}): "
                        f"{', '.join(sources)} returned NaN or inf")
        with np.errstate(all="ignore"):
            f0 = d.f(t, y0)
        self.nfev += 1
        if not np.all(np.isfinite(f0)):
            rows0 = ", ".join(labels[i] for i in np.flatnonzero(~np.isfinite(f0))[:3])
            return (f"the residual became non-finite at t = {t:.9g} in {rows0}: the model returns NaN or "
                    "inf there at the last accepted state (a load or drive function of time?)")
        return (f"the residual became non-finite at t = {t:.9g} in {rows}: the Newton iterates diverged "
                "(reduce dt)")

    def _step(self):
        """The next steps (:meth:`_run_block`); the last step of an interval ends exactly on
        ``t_bound``."""
        if self._interval is None or self._interval[1] != self.t_bound:
            if not self._continue_interval():
                self._start_interval()
        self._run_block()

    def _grid(self, t, room):
        """``(hs, t0s, ends)``: sizes, starts and ends of the next steps from ``t`` (at most
        ``room``) on the grid of the current interval: its points are ``start + k h`` (not
        accumulated sums, whose rounding would leave a sliver step of ~1e-11 before ``t_bound``
        after many thousand steps); the last step ends on ``t_bound`` (and is shorter where
        ``t_bound`` moved inside a step)."""
        start, H, bound = self._interval[0], self.h, self.t_bound
        k = int(round((t - start) / H))
        ends = start + (k + 1 + np.arange(room)) * H
        t0s = np.empty(room)
        t0s[0] = t
        t0s[1:] = ends[:-1]
        last = (bound - t0s < H * (1 + 1e-9)) | (ends >= bound)
        hs = np.full(room, H)
        if last.any():
            j = int(np.argmax(last))
            hs, t0s, ends = hs[:j + 1], t0s[:j + 1], ends[:j + 1]
            ends[j] = bound
            if abs(bound - t0s[j] - H) > 1e-9 * H:
                hs[j] = bound - t0s[j]
        return hs, t0s, ends

    def _block_grid(self):
        """The next steps, up to ``t_bound`` and at most :data:`BLOCK_MAX` (one when the driver
        needs ``single_steps``): their sizes, midpoints and ends (:meth:`_grid`).  The driver's
        output times fall anywhere inside: it reads them from the dense output, step by step as
        after single steps."""
        hs, t0s, ends = self._grid(self.t, 1 if self.single_steps else BLOCK_MAX)
        return hs, t0s + 0.5 * hs, ends

    def _record(self, kernel, W, U, dense):
        """The compiled step data (:data:`~phmech.solvers.midpoint_kernels.MidpointData`) with
        the inputs ``W``, ``U`` of the steps; ``dense``: with ``E`` as a dense matrix for the
        compiled factorization."""
        from .midpoint_kernels import MidpointData
        return MidpointData(*self._E_csr, self._Ed_dense if dense else np.empty((0, 0)), self._rsc,
                            self._dcol, kernel.model(), W, U)

    def _run_block(self):
        """The next steps from the solver's state, by the loop written once for both paths
        (:func:`~phmech.solvers.midpoint_kernels.midpoint_steps`): compiled, several in one call
        when the driver does not need to see every step (no events, no callbacks); interpreted
        (:class:`PythonSteps`: a Python residual, endpoint constraints, sparse factors, or a
        step whose inputs raise), one.  The dense output is that of the steps, one by one; the
        step points inside are the interior points.  A step that fails after others of the
        block were taken is tried again by the next call; a first step that fails raises
        :class:`~phmech.solvers.base.SolverError` with the cause."""
        from .midpoint_kernels import TransposedLU, midpoint_steps, midpoint_steps_py
        hs, tms, ends = self._block_grid()
        compiled = self._kernel is not None
        if compiled:
            W, U = self._kernel.step_inputs(tms)
            m = W.shape[0]
            compiled = m > 0             # an input raises at the first step: the Python step says so
        if compiled:
            hs, tms, ends = hs[:m], tms[:m], ends[:m]
            lu = self.lu if self.lu is not None else TransposedLU(self.problem.n)
            data, factors, run = self._record(self._kernel, W, U, True), lu.factors, midpoint_steps
        else:
            hs, tms, ends = hs[:1], tms[:1], ends[:1]
            data = factors = self._python
            run = midpoint_steps_py
        n = self.problem.n
        (done, status, err, taken, nfev, nlu, iterations, lu_h, lu_step), ym_lu, z, Y, works = self._call_steps(
            run, data, factors, hs, tms, self.dae_scale)
        if compiled:                     # the Python step data count their own calls
            self.nfev += nfev
            self.njev += nlu
            self.nlu += nlu
            if lu_step >= 0:
                self.lu, self.lu_h = lu, lu_h
                self._lu_point = (tms[lu_step], np.array(ym_lu))
        if done:
            self._iterations = iterations
            ts, ys, ws = np.empty(done + 1), np.empty((done + 1, n)), np.empty(done + 1)
            ts[0], ys[0], ws[0] = self.t, self.y, self.work
            ts[1:], ys[1:], ws[1:] = ends[:done], Y[:done], works[:done]
            self.z_prev = ys[-2]
            self.t_old, self.y_old = ts[0], ys[0]
            self.t, self.y = float(ts[-1]), ys[-1].copy()
            self._h_last = hs[done - 1]
            self.work_old, self.work = ws[-2], ws[-1]
            self.nsteps += done
            self._block = (ts, ys, hs[:done], ws)
            return
        self._fail(status, err, taken, hs[0], tms[0], z)

    def _call_steps(self, run, data, factors, hs, tms, scale):
        """``run`` (:func:`~phmech.solvers.midpoint_kernels.midpoint_steps`, compiled or
        interpreted) on the steps ``hs`` (midpoints ``tms``) from the solver's state with the
        Newton scales ``scale`` (updated in place); returns its results, the point of a
        factorization, the last iterate and the end points and work after each step."""
        d = self.problem
        n = d.n
        y, ym_lu, z = self.y.copy(), np.empty(n), np.empty(n)
        z_prev = np.array(self.z_prev if self.z_prev is not None else y, float)
        Y, works = np.empty((hs.size, n)), np.empty(hs.size)
        out = run(data, factors, y, z_prev, self.z_prev is not None, np.nan if self.lu_h is None else self.lu_h,
                  self.lu is not None, hs, tms, d.nq, d.ne, self.newton_tol, self.max_newton, scale, ym_lu,
                  self.fresh_jacobian, self.refresh_iterations, self._iterations, float(self.work), z, Y, works)
        return out, ym_lu, z, Y, works

    def _fail(self, status, err, iterations, h, tm, z):
        """Raise for the step from the solver's state that ended with ``status`` of
        :func:`~phmech.solvers.midpoint_kernels.midpoint_steps` (``z`` its last iterate)."""
        from .midpoint_kernels import step_residual
        if status == 4:
            self._vanishing_pivot(int(err))
        if status == 2:
            y0, n = self.y, self.problem.n
            r, ym, fz = np.empty(n), np.empty(n), np.empty(n)
            with np.errstate(all="ignore"):
                step_residual(self._python, 0, tm, h, self.nd, y0, self.Ed_mv @ y0, z, ym, fz, r)
            cause = self._nonfinite_cause(tm, y0, r)
        elif status == 3:
            cause = NONFINITE_INCREMENT
        else:
            cause = (f"Newton iteration converged too slowly (last relative increment {err:.3g} after "
                     f"{iterations} iterations, also with a fresh Jacobian): reduce dt")
        raise SolverError(self.name, self.t, cause)

    def _newton_sparse(self, y0, z, h, tm, nq, ne, tol, max_newton, scale, floor):
        """The Newton iteration of a step of the interpreted loop compiled
        (:func:`~phmech.solvers.midpoint_kernels.midpoint_newton`) on SuperLU's factors, for a
        compiled residual; None where it cannot run there (other factors, such as the bordered
        factors of a floating FE body)."""
        if self._newton_kernel is None or not hasattr(self.lu, "factors"):
            return None
        from .midpoint_kernels import midpoint_newton
        c = self._newton_kernel
        inputs = c.inputs(tm)
        data = self._record(c, inputs.w[None], inputs.u[None], False)
        status, it, err = midpoint_newton(data, self.lu.factors, 0, y0, z, h, tm, nq, ne, tol, max_newton,
                                          scale, floor)
        self.nfev += it + 1
        return status, it, err

    # -- checkpoints ---------------------------------------------------------
    def checkpoint_state(self):
        """What a restart needs to repeat the following steps bit for bit (no factorization).

        The step grid of the current interval (its ends and ``h``), the
        predictor's previous point, the Newton scales, the work record and
        the point where the current iteration matrix was evaluated (it is
        factorized again there on :meth:`restore_state`).
        """
        from ..io.checkpoint import common_state
        live = self.lu is not None and self._lu_point is not None
        common = common_state(self)
        if self._block is not None:       # the last step, as stepping one by one leaves it
            common["t_old"], common["y_old"] = float(self._block[0][-2]), np.array(self._block[1][-2])
        return {**common, "h": self.h, "h_last": self._h_last,
                "interval": list(self._interval) if self._interval is not None else None,
                "z_prev": None if self.z_prev is None else np.array(self.z_prev),
                "dae_scale": np.array(self.dae_scale) if hasattr(self, "dae_scale") else None,
                "work": self.work, "work_old": self.work_old, "iterations": self._iterations,
                "lu_h": self.lu_h if live else None,
                "lu_t": self._lu_point[0] if live else None,
                "lu_y": np.array(self._lu_point[1]) if live else None}

    def restore_state(self, state):
        """Continue from :meth:`checkpoint_state` (refactorizes the iteration matrix at its point)."""
        from ..io.checkpoint import restore_common
        self.h, self._h_last = state["h"], state["h_last"]
        self._interval = tuple(state["interval"]) if state["interval"] is not None else None
        self.z_prev = state.get("z_prev")
        if state.get("dae_scale") is not None:
            self.dae_scale = np.array(state["dae_scale"])
        self.work, self.work_old = float(state["work"]), float(state["work_old"])
        self._iterations = int(state.get("iterations", 0))
        self._resumed = True
        self._block = None
        self.lu = self.lu_h = None
        if state.get("lu_h") is not None:
            self._factor(float(state["lu_t"]), np.array(state["lu_y"]), float(state["lu_h"]))
        restore_common(self, state)

    def dense_output(self):
        """Linear interpolation between the step points (O(h^2), the order of the rule), over
        each step of a compiled run of several (:meth:`_run_block`)."""
        if self._block is None:
            return linear_interpolant(self.t_old, self.t, self.y_old, self.y, self._h_last)
        ts, ys, hs, _ = self._block
        return piecewise_linear(ts, hs, ys)

    def work_output(self):
        """The supplied work over the last step (of each step of a compiled run of several):
        the record at the step points, between them consistent with the energy of the dense
        output (:func:`~phmech.solvers.base.balanced_work`), so that the exact discrete power
        balance holds at every output row."""
        if self._block is not None:
            ts, ys, hs, ws = self._block
        else:
            ts, ys = np.array([self.t_old, self.t]), (self.y_old, self.y)
            hs, ws = np.array([self._h_last]), (self.work_old, self.work)
        return self.balanced_work_output(ts, ys, ws, hs)

    @property
    def path(self):
        """What ran: ``"compiled"``, ``"python"``, or ``"mixed"`` when a compiled model's Newton
        iteration ran in Python for some steps (factors the compiled iteration cannot use, such as
        the bordered factors of a floating FE body above the dense limit); ``stats()["python_steps"]``
        counts those step attempts."""
        base = super().path
        if base != "compiled" or not self._python_attempts:
            return base
        return "python" if self._python_attempts >= self.nsteps else "mixed"

    def stats(self):
        return {**super().stats(), "python_steps": self._python_attempts}

    def interior_points(self):
        """The step points strictly inside ``(t_old, t)`` of a compiled run of several steps,
        with the supplied work there."""
        if self._block is None:
            return (), (), ()
        ts, ys, _, ws = self._block
        return ts[1:-1], ys[1:-1], ws[1:-1]


class PythonSteps:
    """The step data of the interpreted midpoint steps
    (:func:`~phmech.solvers.midpoint_kernels.midpoint_steps`, run as Python): the operations of
    the loop on the solver's problem -- its Python residual (the compiled one as a callable for
    a compiled model, whose Newton iteration still runs compiled on SuperLU's factors),
    ``E`` dense or sparse, the endpoint constraints, the solver's factors (dense, SuperLU or
    bordered), counting the calls in the solver's statistics.  It is also the factors' argument
    of the loop (:meth:`solve`)."""

    def __init__(self, solver):
        self.solver = solver

    def f(self, j, t, y, out):
        s = self.solver
        with np.errstate(all="ignore"):
            out[:] = s._fun(t, y)
        s.nfev += 1

    def e_product(self, x, out):
        out[:] = self.solver.Ed_mv @ x

    def endpoint_rows(self, t1, z, r):
        s = self.solver
        if s.endpoint:
            d = s.problem
            r[d.sl] = d.G(z[d.sq]) @ z[d.se] - d.w(t1)

    def power(self, j, t, ym):
        return self.solver.problem.power(t, ym)

    def factor(self, lu, j, t, ym, h):
        self.solver._factor(t, ym, h)        # raises for a singular matrix
        return 0

    def solve(self, r):
        return self.solver.lu.solve(r)

    def newton(self, lu, j, y0, z, h, tm, nq, ne, tol, max_newton, scale, floor):
        from .midpoint_kernels import midpoint_newton_py
        s = self.solver
        out = s._newton_sparse(y0, z, h, tm, nq, ne, tol, max_newton, scale, floor)
        if out is not None:
            return out
        if s._newton_kernel is not None or s._kernel is not None:
            s._python_attempts += 1            # a compiled model iterated in Python (e.g. bordered factors)
        return midpoint_newton_py(self, self, j, y0, z, h, tm, nq, ne, tol, max_newton, scale, floor)


def _scaled(J, rows, cols):
    """``diag(rows) J diag(cols)`` of a sparse ``J`` by scaling its entries (one pass, no
    products of sparse matrices)."""
    J = sp.csc_matrix(J)
    col = np.repeat(np.arange(J.shape[1]), np.diff(J.indptr))
    return sp.csc_matrix((J.data * rows[J.indices] * cols[col], J.indices, J.indptr), shape=J.shape)

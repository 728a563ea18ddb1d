"""Common interface of the DAE solvers."""
import time

import numpy as np

from ..result import Result


class SolverError(RuntimeError):
    """A solver failed; ``t`` is the time reached and ``cause`` says why."""

    def __init__(self, solver, t, cause):
        self.solver, self.t, self.cause = solver, t, cause
        super().__init__(f"{solver} failed at t = {t:.9g}: {cause}")


class DAESolver:
    """Base class: integrate ``E y' = f(t, y)`` of a :class:`~phmech.system.DescriptorDAE`.

    Subclasses implement :meth:`_run`, which fills ``self.ts``/``self.ys``
    with the output points; solvers of our own also implement :meth:`step`.
    Counters: ``nsteps``, ``nreject``, ``nfev``, ``njev``, ``nlu``.
    """

    name = "base"

    def __init__(self, dae, t_span, y0, rtol=1e-6, atol=1e-6, t_eval=None, progress=False):
        self.dae = dae
        self.t0, self.t_end = map(float, t_span)
        if not self.t_end > self.t0:
            raise ValueError(f"{self.name}: t_end ({self.t_end}) must be larger than t0 ({self.t0})")
        self.y = np.array(y0, dtype=float)
        if self.y.shape != (dae.n,):
            raise ValueError(f"{self.name}: y0 has shape {self.y.shape}, the system has {dae.n} variables")
        if not np.all(np.isfinite(self.y)):
            raise ValueError(f"{self.name}: y0 has non-finite entries")
        self.t = self.t0
        self.rtol, self.atol = float(rtol), float(atol)
        self.t_eval = None if t_eval is None else np.asarray(t_eval, float)
        self.progress = progress
        self.nsteps = self.nreject = self.nfev = self.njev = self.nlu = 0
        self.status = "running"
        self.ts, self.ys = [self.t0], [self.y.copy()]
        self.extra = {}

    def stats(self):
        return {"nsteps": self.nsteps, "nreject": self.nreject, "nfev": self.nfev,
                "njev": self.njev, "nlu": self.nlu}

    def solve(self):
        """Integrate to ``t_end`` and return a :class:`~phmech.result.Result`."""
        tic = time.perf_counter()
        self._run()
        wall = time.perf_counter() - tic
        self.status = "finished"
        ys = np.array(self.ys)
        if not np.all(np.isfinite(ys)):
            k = int(np.argmax(~np.all(np.isfinite(ys), axis=1)))
            raise SolverError(self.name, self.ts[k], "the solution became non-finite")
        res = Result(np.array(self.ts), ys, self.dae, self.name, {**self.stats(), "wall_time": wall})
        res.work = self.extra.get("work")
        return res

    def _run(self):
        raise NotImplementedError

    def _progress_bar(self, n):
        """An iterator over ``range(n)`` with Firedrake's progress bar when asked for."""
        if not self.progress:
            return range(n)
        try:
            from firedrake import ProgressBar
            return ProgressBar(f"{self.name}").iter(range(n))
        except Exception:  # Firedrake is optional for the solvers
            return _SimpleBar(self.name, n)


class _SimpleBar:
    def __init__(self, name, n):
        self.name, self.n = name, n

    def __iter__(self):
        import sys
        step = max(1, self.n // 50)
        for i in range(self.n):
            if i % step == 0:
                sys.stderr.write(f"\r{self.name}: {100 * i // self.n:3d}%")
            yield i
        sys.stderr.write(f"\r{self.name}: 100%\n")

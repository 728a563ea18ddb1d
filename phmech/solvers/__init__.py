"""DAE solvers behind one driver.

``solve(problem, t_span, y0, method=...)`` with ``method`` one of

* ``"midpoint"`` -- :class:`ImplicitMidpoint`, our own sparse, structure-preserving
  integrator (fixed step ``dt``; exact discrete power balance);
* ``"radau"`` -- :class:`RadauIIA`, our own adaptive Radau IIA (order 5) on
  sparse matrices;
* ``"ida"`` -- SUNDIALS IDA through assimulo (variable order BDF);
* ``"radau5"`` -- Radau IIA order 5 through assimulo's Radau5DAE;
* ``"genalpha"`` -- :class:`GeneralizedAlpha`, the generalized-alpha method for
  second-order problems (:class:`~phmech.solvers.genalpha.SecondOrderProblem`).

The solvers implement one step and its dense output
(:mod:`phmech.solvers.base`); the driver (:mod:`phmech.solvers.driver`)
owns output times, breakpoints, events, the progress bar and per-step
callbacks.  Every run returns a :class:`~phmech.result.Result` carrying
the statistics; a failure raises :class:`SolverError` with the time
reached and the cause.
"""
from .assimulo_adapters import IDA, Radau5DAE
from .base import DAESolver, Solver, SolverError
from .driver import DRIVER_OPTIONS, METHODS, integrate, solve
from .genalpha import GeneralizedAlpha, SecondOrderProblem
from .midpoint import ImplicitMidpoint
from .moreau import Moreau, MoreauShifted
from .nsgenalpha import NonsmoothGenAlpha
from .radau import RadauIIA

__all__ = ["solve", "integrate", "METHODS", "DRIVER_OPTIONS", "Solver", "DAESolver", "SolverError",
           "ImplicitMidpoint", "RadauIIA", "IDA", "Radau5DAE",
           "GeneralizedAlpha", "SecondOrderProblem", "Moreau", "MoreauShifted", "NonsmoothGenAlpha"]

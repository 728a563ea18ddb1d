"""DAE solvers behind one interface.

``solve(dae, t_span, y0, method=...)`` with ``method`` one of

* ``"midpoint"`` -- :class:`ImplicitMidpoint`, our own sparse, structure-preserving
  integrator (fixed step ``dt``; exact discrete power balance);
* ``"radau"`` -- :class:`RadauIIA`, our own adaptive Radau IIA (order 5) on
  sparse matrices;
* ``"ida"`` -- SUNDIALS IDA through assimulo (variable order BDF);
* ``"radau5"`` -- Radau IIA order 5 through assimulo's Radau5DAE.

Every solver returns a :class:`~phmech.result.Result` carrying its statistics
and raises :class:`SolverError` (with the time reached and the cause) on failure.
"""
import inspect

from .assimulo_adapters import IDA, Radau5DAE
from .base import DAESolver, SolverError
from .midpoint import ImplicitMidpoint
from .radau import RadauIIA

METHODS = {"midpoint": ImplicitMidpoint, "radau": RadauIIA, "ida": IDA, "radau5": Radau5DAE}


#: options of the driver (see :func:`phmech.solvers.driver.integrate`)
DRIVER_OPTIONS = ("t_eval", "dt_out", "tstops", "events", "progress", "callbacks")


def solve(dae, t_span, y0, method="midpoint", **options):
    """Integrate ``E y' = f(t, y)`` over ``t_span`` from consistent ``y0``.

    ``options`` are the driver's (``t_eval``, ``dt_out``, ``tstops``,
    ``events``, ``progress``, ``callbacks``) and the solver's own; an
    option the solver does not take is refused by name.
    """
    try:
        cls = METHODS[method]
    except (KeyError, TypeError):
        raise ValueError(f"unknown solver {method!r}; choose one of {sorted(METHODS)}") from None
    driver = {k: options.pop(k) for k in DRIVER_OPTIONS if k in options}
    accepted = [p for p in inspect.signature(cls.__init__).parameters if p not in ("self", "dae", "t_span", "y0")]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ValueError(f"{method}: unknown option(s) {unknown}; this solver takes "
                         f"{sorted(accepted)} and the driver {sorted(DRIVER_OPTIONS)}")
    return cls(dae, t_span, y0, **options).solve(**driver)


__all__ = ["solve", "METHODS", "DAESolver", "SolverError", "ImplicitMidpoint", "RadauIIA", "IDA", "Radau5DAE"]

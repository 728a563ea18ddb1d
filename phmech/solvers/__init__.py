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
from .assimulo_adapters import IDA, Radau5DAE
from .base import DAESolver, SolverError
from .midpoint import ImplicitMidpoint
from .radau import RadauIIA

METHODS = {"midpoint": ImplicitMidpoint, "radau": RadauIIA, "ida": IDA, "radau5": Radau5DAE}


def solve(dae, t_span, y0, method="midpoint", **options):
    """Integrate ``E y' = f(t, y)`` over ``t_span`` from consistent ``y0``."""
    try:
        cls = METHODS[method]
    except KeyError:
        raise ValueError(f"unknown solver {method!r}; choose one of {sorted(METHODS)}") from None
    return cls(dae, t_span, y0, **options).solve()


__all__ = ["solve", "METHODS", "DAESolver", "SolverError", "ImplicitMidpoint", "RadauIIA", "IDA", "Radau5DAE"]

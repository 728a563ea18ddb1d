"""Unilateral contacts with impacts and friction, and the nonsmooth view of a system.

* :mod:`~phmech.contact.contacts` -- contact contributions: :class:`PointPlane`
  (a sphere at a port against a plane) and :class:`SphereSphere` (two ports),
  with Newton's impact law, Coulomb and Coulomb--Contensou friction;
* :mod:`~phmech.contact.prox` -- the contact problem of a step (semismooth
  Newton on the proximal-point equations, Gauss--Seidel fallback);
* :mod:`~phmech.contact.prox_levels` -- the contact problem of a step of the
  nonsmooth generalized-alpha method: position, velocity and acceleration
  level together;
* :mod:`~phmech.contact.problem` -- :class:`NonsmoothProblem`, the view
  ``M du = h dt + W dP`` of an assembled system that the solvers
  :class:`~phmech.solvers.moreau.Moreau`, :class:`~phmech.solvers.moreau.MoreauShifted`
  and :class:`~phmech.solvers.nsgenalpha.NonsmoothGenAlpha` integrate;
* :func:`simulate` -- a run through the common driver that also returns the
  per-contact dissipation and percussion history.
"""
import numpy as np

from .contacts import Contact, PointPlane, SphereSphere, tangents
from .problem import NonsmoothProblem
from .prox import ContactSet, ProxSolver, prox_parameters, residual

__all__ = ["Contact", "PointPlane", "SphereSphere", "tangents", "NonsmoothProblem", "ContactSet",
           "ProxSolver", "prox_parameters", "residual", "simulate"]


def simulate(problem, t_span, y0, method="moreau", **options):
    """Integrate through :func:`phmech.solvers.driver.integrate` and attach the contact history.

    Parameters
    ----------
    problem : NonsmoothProblem
    t_span : (t0, t_end)
    y0 : array (n,)
    method : ``"moreau"``, ``"moreau_shifted"``, ``"nsgenalpha"`` or a solver class
    **options
        Solver options (``dt``, ...) and driver options (``t_eval``, ``dt_out``, ``events``, ...).

    Returns
    -------
    Result
        With ``contacts`` (names), ``steps`` (a dict of per-step arrays: ``t``,
        ``P_N`` (steps x contacts), ``dissipation`` (per step and contact)),
        ``dissipated`` (cumulative per contact at the output times) and
        ``solver_object``.
    """
    from ..solvers.driver import DRIVER_OPTIONS, _solver_class, integrate
    cls = _solver_class(method)
    drv = {k: options.pop(k) for k in list(options) if k in DRIVER_OPTIONS}
    t0, t_end = t_span
    solver = cls(problem, t0, y0, t_end, **options)
    res = integrate(solver, **drv)
    nc = len(problem.contacts)
    hist = solver.history
    steps = {"t": np.r_[t0, hist["t"]],
             "P_N": np.vstack([np.zeros((1, nc)), np.array(hist["P_N"]).reshape(-1, nc)]),
             "dissipation": np.vstack([np.zeros((1, nc)), np.array(hist["dissipation"]).reshape(-1, nc)]),
             "newton": np.array(hist["newton"], int)}
    cum = np.cumsum(steps["dissipation"], axis=0)
    res.contacts = [c.name for c in problem.contacts]
    res.steps = steps
    res.dissipated = np.array([np.interp(res.t, steps["t"], cum[:, i]) for i in range(nc)]).T.reshape(len(res.t), nc)
    res.solver_object = solver
    return res

"""Unilateral contacts with impacts and friction, and the nonsmooth view of a system.

* :mod:`~phmech.contact.contacts` -- contact contributions: :class:`PointPlane`
  (a sphere at a port against a plane) and :class:`SphereSphere` (two ports),
  with Newton's impact law, Coulomb and Coulomb--Contensou friction;
* :mod:`~phmech.contact.kernels` -- the compiled gaps, force directions and
  friction velocities of all contacts of a problem, packed by the contacts;
* :mod:`~phmech.contact.problem` -- :class:`NonsmoothProblem`, the view
  ``M du = h dt + W dP`` of an assembled system that the solvers
  :class:`~phmech.solvers.moreau.Moreau`, :class:`~phmech.solvers.moreau.MoreauShifted`
  and :class:`~phmech.solvers.nsgenalpha.NonsmoothGenAlpha` integrate;
* the contact problem of a step is solved in :mod:`phmech.solvers.prox`
  (semismooth Newton on the proximal-point equations, Gauss--Seidel
  fallback) and :mod:`phmech.solvers.prox_levels` (position, velocity and
  acceleration level together, for the nonsmooth generalized-alpha method);
  the contacts depend on the solvers, never the other way round;
* :func:`simulate` -- a run through the common driver that also returns the
  per-contact dissipation and percussion history.
"""
import numpy as np

from ..solvers.driver import DRIVER_OPTIONS, _solver_class, integrate
from ..solvers.moreau import PenetrationWarning
from ..solvers.prox import ContactSet, ProxSolver, prox_parameters, residual
from .contacts import Contact, PointPlane, SphereSphere, tangents
from .problem import NonsmoothProblem

__all__ = ["Contact", "PenetrationWarning", "PointPlane", "SphereSphere", "tangents", "NonsmoothProblem", "ContactSet",
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
        With ``contacts`` (names); ``steps``, a dict of arrays over the output rows
        (every step without ``t_eval``/``dt_out``): ``t`` (the rows' times), ``P_N``
        (rows x contacts, the normal percussion accumulated over the interval ending at
        the row) and ``dissipation`` (likewise); ``dissipated`` (cumulative per contact
        at the rows); ``max_penetration`` and ``max_penetration_time`` (per contact, the
        deepest penetration of the run, >= 0) and ``solver_object``.  Within a step the
        accumulated quantities grow linearly in time, as the work record does apart from
        the curvature of the energy along the dense output
        (:func:`phmech.solvers.base.balanced_work`), so the energy balance of a row is
        the linear interpolant of that of the run without ``dt_out``.
    """
    cls = _solver_class(method)
    drv = {k: options.pop(k) for k in list(options) if k in DRIVER_OPTIONS}
    t0, t_end = t_span
    solver = cls(problem, t0, y0, t_end, **options)
    res = integrate(solver, **drv)
    P, P_tot, D, D_tot = _rows(solver, np.asarray(res.t, float))
    res.contacts = [c.name for c in problem.contacts]
    res.steps = {"t": np.array(res.t, float), "P_N": P, "dissipation": D}
    res.dissipated = D_tot
    res.max_penetration = solver.max_penetration.copy()
    res.max_penetration_time = solver.max_penetration_time.copy()
    res.solver_object = solver
    return res


def _rows(solver, t_rows):
    """The solver's records (:attr:`~phmech.solvers.moreau.NonsmoothStepper.records`) at the output
    rows: ``(P_N, P_N_total, dissipation, dissipated)``, each rows x contacts.  A row that is not
    a record time (the time of a terminal event) lies in the last step, where the cumulative
    values are linear in time."""
    rec = solver.records
    rt = np.asarray(rec["t"], float)
    nc = solver.nc
    out = [np.array(rec[k], float).reshape(-1, nc) for k in ("P_N", "P_N_total", "dissipation", "dissipated")]
    j = np.minimum(np.searchsorted(rt, t_rows), len(rt) - 1)
    hit = rt[j] == t_rows
    rows = [a[j] for a in out]
    for k in np.flatnonzero(~hit):
        a = (t_rows[k] - solver.t_old) / (solver.t - solver.t_old)
        for tot, old, new, per in ((rows[1], solver.percussion_old, solver.percussion, rows[0]),
                                   (rows[3], solver.dissipated_old, solver.dissipated, rows[2])):
            tot[k] = old + a * (new - old)
            per[k] = tot[k] - (tot[k - 1] if k else 0.0)
    return rows

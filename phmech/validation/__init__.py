"""Validation cases: each module has ``run(...)`` and a command line.

``run(...)`` returns a :class:`~phmech.validation._common.CaseResult` (its
summary, the files written and the solver results), except the contact
cases (``bouncing_ball``, ``contact_cases``, ``tippe_top``), whose ``run``
returns the result of :func:`phmech.contact.simulate` with its ``errors``.
The models the cases share with users are in :mod:`phmech.mechanisms` and
:mod:`phmech.actuators`.

Run one with ``python -m phmech.validation.<case> --help``.
"""

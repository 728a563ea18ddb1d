"""Validation cases: each module has ``run(...)`` and a command line.

``run(...)`` returns a :class:`~phmech.validation._common.CaseResult` (its
summary, the files written and the solver results); a case of one run (the
contact cases ``bouncing_ball``, ``contact_cases``, ``tippe_top``) also reads
that run's attributes through it (``out.t``, ``out.errors``, ...).
The models the cases share with users are in :mod:`phmech.mechanisms` and
:mod:`phmech.forces.actuators`.

Run one with ``python -m phmech.validation.<case> --help``.
"""

"""Structure-preserving reduction of linear pH finite-element bodies.

:func:`craig_bampton` (interface constraint modes and fixed-interface normal
modes) and :func:`modal_reduction` (free-interface modes, optionally with
attachment modes; for a floating body about its reference condition or, with
``frame="mean_axis"``, the free-free elastic modes on mean axes) project a velocity--stress body in energy coordinates
with the compatible stress basis (:mod:`phmech.reduce.basis`): the
:class:`ReducedBody` is a pH body (``M_r`` SPD, ``J_r`` skew, ``R_r`` PSD,
outputs ``B_r^T e_r``) that joins a :class:`~phmech.System` like any body,
recovers the full fields (:meth:`ReducedBody.recover`) and is kept in HDF5
(:meth:`ReducedBody.save`, :meth:`ReducedBody.load`: numpy and h5py only,
no Firedrake).
"""
from .basis import ReductionError
from .body import ReducedBody
from .reduction import craig_bampton, modal_reduction
from .store import ReducedFileError

__all__ = ["ReducedBody", "ReducedFileError", "ReductionError", "craig_bampton", "modal_reduction"]

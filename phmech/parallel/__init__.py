"""Large plate models on distributed PETSc matrices (MPI), SLEPc eigen solves and MUMPS time steps.

:mod:`.plates` assembles the Kirchhoff (HHJ) and Mindlin plates of
:mod:`phmech.fem` with Firedrake straight into PETSc matrices (a mesh
created under ``mpiexec`` is distributed automatically) and removes the
strongly imposed boundary unknowns with index sets; :mod:`.midpoint` steps
the linear port-Hamiltonian system with the implicit midpoint rule;
:mod:`phmech.solvers.eigen_slepc` gives the natural frequencies.
"""
from .midpoint import LinearMidpoint
from .plates import DistributedPlate, kirchhoff_plate, mindlin_plate

__all__ = ["DistributedPlate", "LinearMidpoint", "kirchhoff_plate", "mindlin_plate"]

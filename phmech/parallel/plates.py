"""Kirchhoff and Mindlin plates as distributed PETSc operators (no scipy conversion).

The weak forms are those of :class:`phmech.fem.plate.KirchhoffPlate` (HHJ:
velocity CG_k, moments HHJ_{k-1}) and
:class:`phmech.fem.plate_mindlin.MindlinPlate`; see their module
docstrings for the equations.  Firedrake assembles the mixed mass and
structure matrices ``E`` and ``J`` as monolithic ``aij`` matrices, whose
rows are owned rank by rank, field by field (``W.dof_dset.field_ises``).
The strong boundary conditions remove unknowns, as in the serial plates:
the global indices of the boundary nodes each rank owns (velocity nodes,
HHJ normal-normal facet dofs, Mindlin rotation components) are left out of
an index set ``keep`` and

.. math::  E_k = E[\\text{keep}, \\text{keep}], \\qquad J_k = J[\\text{keep}, \\text{keep}]

are PETSc submatrices, still distributed, ``E_k`` symmetric positive
definite and ``J_k`` skew.  On one process the kept unknowns are numbered
exactly as ``plate.M`` and ``plate.J0`` of the serial classes.
"""
import numpy as np

from ..fem import plate_size
from ..fem.plate import (KIRCHHOFF_CONDITIONS, check_boundary, check_degree, check_plate_parameters, check_poisson,
                         patch_weight, real_number)
from ..fem.form_body import condition_nodes
from ..fem.plate_forms import kirchhoff_conditions, kirchhoff_forms
from ..fem.plate_mindlin import MINDLIN_CONDITIONS, REDUCTIONS, mindlin_conditions, mindlin_forms


def _mat(form_or_tensor, fd, **kw):
    return fd.assemble(form_or_tensor, mat_type="aij", **kw).petscmat


def _check_common(name, h, rho, E, nu, degree, min_degree):
    """``(h, rho, E, nu, degree)`` checked, as floats and an int."""
    check_plate_parameters(name, h=h, rho=rho, E=E)
    nu = check_poisson(name, nu)
    degree = check_degree(name, degree, min_degree)
    return real_number(h), real_number(rho), real_number(E), nu, degree


def _guard_size(name, kind, mesh, degree, max_dofs, reduction=None):
    """The size guard of :mod:`phmech.fem.plate_size` on the largest part of the mesh (the same
    decision on every process)."""
    limit = plate_size.limit(name, max_dofs)
    counts = plate_size.mesh_counts(mesh)
    parts = [c for c in mesh.comm.allgather(counts) if c is not None]
    if parts:
        worst = max(parts, key=lambda c: plate_size.unknowns(kind, c, degree, reduction))
        plate_size.check(name, kind, worst, degree, limit, reduction,
                         scope="the mesh" if len(parts) == 1 else "the largest part of the mesh")


class DistributedPlate:
    """A plate's kept operators ``E`` (co-energy mass) and ``J`` (skew structure) on PETSc.

    Build with :func:`kirchhoff_plate` or :func:`mindlin_plate`.

    Attributes
    ----------
    E, J : PETSc Mat
        Distributed ``aij`` matrices over the kept unknowns.
    keep : PETSc IS
        Kept unknowns as global indices of the full mixed space (locally owned part).
    is_v, is_s : PETSc IS
        Velocity and stress unknowns in the kept numbering (locally owned part).
    ne : int
        Global number of kept unknowns.
    """

    def __init__(self, name, mesh, W, vel_fields, tests, rho_h, D, Efull, Jfull, drop, velocity_tests):
        from petsc4py import PETSc
        import firedrake as fd

        self._fd = fd
        self.name, self.mesh, self.W = name, mesh, W
        self.comm = Efull.getComm()
        self.rho_h, self.D = rho_h, D
        self._tests = tests
        self._velocity_tests = velocity_tests
        self.x = fd.SpatialCoordinate(mesh)
        lo, hi = Efull.getOwnershipRange()
        owned = np.arange(lo, hi, dtype=PETSc.IntType)
        kept = np.setdiff1d(owned, np.asarray(drop, dtype=PETSc.IntType))
        self.keep = PETSc.IS().createGeneral(kept, comm=self.comm)
        self.E = Efull.createSubMatrix(self.keep, self.keep)
        self.J = Jfull.createSubMatrix(self.keep, self.keep)
        self.ne = self.E.getSize()[0]
        k0 = self.E.getOwnershipRange()[0]
        vel = np.zeros(len(kept), bool)
        for j in vel_fields:
            vel |= np.isin(kept, W.dof_dset.field_ises[j].getIndices())
        pos = k0 + np.arange(len(kept), dtype=PETSc.IntType)
        self.is_v = PETSc.IS().createGeneral(pos[vel], comm=self.comm)
        self.is_s = PETSc.IS().createGeneral(pos[~vel], comm=self.comm)
        self._full = Efull.createVecRight()
        self._scatter = None

    # -- vectors -----------------------------------------------------------------
    def vector(self):
        """A zero vector over the kept unknowns (distributed like ``E``)."""
        x = self.E.createVecRight()
        x.set(0.0)
        return x

    def restrict(self, cofunction):
        """An assembled Firedrake cofunction on the mixed space restricted to the kept unknowns."""
        out = self.vector()
        with cofunction.dat.vec_ro as full:
            sub = full.getSubVector(self.keep)
            sub.copy(out)
            full.restoreSubVector(self.keep, sub)
        return out

    def load_vector(self, pressure):
        """Input column of a distributed pressure ``p(x)`` (callable of the UFL coordinate): ``int p dv``."""
        fd = self._fd
        dv = self._velocity_tests()[0]
        return self.restrict(fd.assemble(pressure(self.x) * dv * fd.dx(domain=self.mesh)))

    def patch_row(self, center, radius, quadrature_degree=None):
        """Weighted mean of the vertical velocity on a patch (:func:`phmech.fem.plate.patch_weight`)."""
        fd = self._fd
        qd = quadrature_degree or 2 * self.degree + 8
        dxq = fd.dx(domain=self.mesh, metadata={"quadrature_degree": qd})
        wgt = patch_weight(fd, self.x, np.asarray(center, float), radius)
        area = fd.assemble(wgt * dxq)
        return self.restrict(fd.assemble(wgt / area * self._velocity_tests()[0] * dxq))

    def to_function(self, x):
        """A Firedrake Function on the mixed space from a kept vector (removed unknowns zero)."""
        from petsc4py import PETSc
        fd = self._fd
        if self._scatter is None:
            self._scatter = PETSc.Scatter().create(x, None, self._full, self.keep)
        self._full.set(0.0)
        self._scatter.scatter(x, self._full, addv=PETSc.InsertMode.INSERT_VALUES,
                              mode=PETSc.ScatterMode.FORWARD)
        f = fd.Function(self.W)
        with f.dat.vec_wo as v:
            self._full.copy(v)
        return f

    def velocity_at(self, x, points):
        """The vertical velocity field of ``x`` at ``points`` (n, 2) (the same array on every rank)."""
        f = self.to_function(x)
        pe = self._fd.PointEvaluator(self.mesh, np.asarray(points, float), tolerance=1e-10)
        return np.asarray(pe.evaluate(f.subfunctions[0]))

    def hamiltonian(self, x):
        """``H = x^T E x / 2`` (collective)."""
        y = self.E.createVecLeft()
        self.E.mult(x, y)
        return 0.5 * x.dot(y)

    # -- modes -------------------------------------------------------------------
    def blocks(self):
        """``(Mv, C, B)``: velocity mass, compliance and ``B = J[s, v]`` as distributed submatrices."""
        Mv = self.E.createSubMatrix(self.is_v, self.is_v)
        C = self.E.createSubMatrix(self.is_s, self.is_s)
        B = self.J.createSubMatrix(self.is_s, self.is_v)
        return Mv, C, B

    def natural_frequencies(self, k=6, sigma=0.0, tol=1e-12, return_vecs=False):
        """Lowest ``k`` angular frequencies [rad/s] with SLEPc and MUMPS
        (:func:`phmech.solvers.eigen_slepc.condensed_modes_slepc`)."""
        from ..solvers.eigen_slepc import condensed_modes_slepc
        Mv, C, B = self.blocks()
        return condensed_modes_slepc(Mv, C, B, k, sigma, tol=tol, comm=self.comm, return_vecs=return_vecs)

    def lam(self, omega, length):
        """Nondimensional frequencies ``omega a^2 sqrt(rho h / D)``."""
        return np.asarray(omega) * length ** 2 * np.sqrt(self.rho_h / self.D)


def _dropped(fd, W, conditions):
    """Global indices of the locally owned unknowns that the ``(field, marker)`` conditions remove (a
    field ``(field, component)``: one component of a vector field), as the serial form bodies do."""
    out = [np.zeros(0, int)]
    for field, marker in conditions:
        f, nodes, bs, comps = condition_nodes(fd, W, field, marker)
        out.append(_owned_global(W, f, nodes, bs=bs, comps=comps))
    return np.concatenate(out)


def _owned_global(W, field, nodes, bs=1, comps=(0,)):
    """Global (monolithic) indices of the locally owned ``nodes`` of a field, components ``comps``."""
    V = W.sub(field)
    nodes = np.asarray(nodes, int)
    nodes = nodes[nodes < V.dof_dset.size]
    idx = W.dof_dset.field_ises[field].getIndices()
    return np.concatenate([idx[bs * nodes + c] for c in comps]) if len(nodes) else np.zeros(0, int)


def kirchhoff_plate(mesh, h, rho, E, nu, degree=2, boundary=None, name="plate", max_dofs=None):
    """Distributed :class:`~phmech.fem.plate.KirchhoffPlate` (same forms, spaces and conditions).

    ``max_dofs`` limits the unknowns per process (:mod:`phmech.fem.plate_size`).
    Returns a :class:`DistributedPlate`.
    """
    import firedrake as fd

    h, rho, E, nu, degree = _check_common(name, h, rho, E, nu, degree, 1)
    _guard_size(name, "KirchhoffPlate", mesh, degree, max_dofs)
    markers = set(int(m) for m in mesh.exterior_facets.unique_markers)
    boundary = {} if boundary is None else dict(boundary)
    check_boundary(name, markers, boundary, KIRCHHOFF_CONDITIONS)
    boundary = {m: boundary.get(m, "free") for m in sorted(markers)}
    k = int(degree)
    D = E * h ** 3 / (12.0 * (1.0 - nu ** 2))
    W, m, j = kirchhoff_forms(mesh, h, rho, E, nu, k)
    Vv, Vm = (W.sub(i).collapse() for i in range(2))
    trial = fd.TrialFunctions(W)
    dv, dM = fd.TestFunctions(W)
    Efull = _mat(m(trial, (dv, dM)), fd)
    Jfull = _mat(j(trial, (dv, dM)), fd)
    drop = _dropped(fd, W, kirchhoff_conditions(boundary))
    plate = DistributedPlate(name, mesh, W, (0,), (dv, dM), rho * h, D, Efull, Jfull, drop,
                             lambda: (dv, dv.dx(1), -dv.dx(0)))
    plate.degree, plate.boundary, plate.spaces = k, boundary, (Vv, Vm)
    return plate


def mindlin_plate(mesh, h, rho, E, nu, kappa=5.0 / 6.0, degree=2, boundary=None, reduction="interpolation",
                  name="plate", max_dofs=None):
    """Distributed :class:`~phmech.fem.plate_mindlin.MindlinPlate` (same forms, spaces and conditions).

    The Nedelec interpolation ``R_h`` of the shear strain is assembled by
    Firedrake as a PETSc matrix and ``-M_q R_h`` (with its negative
    transpose) is added to the ``(q, omega)`` blocks through a nested matrix
    whose index sets are the mixed space's fields.  ``max_dofs`` limits the
    unknowns per process (:mod:`phmech.fem.plate_size`).  Returns a
    :class:`DistributedPlate`.
    """
    import firedrake as fd
    from petsc4py import PETSc

    h, rho, E, nu, degree = _check_common(name, h, rho, E, nu, degree, 2)
    check_plate_parameters(name, kappa=kappa)
    kappa = real_number(kappa)
    if not isinstance(reduction, str) or reduction not in REDUCTIONS:
        raise ValueError(f"plate '{name}': reduction must be one of {REDUCTIONS}, got {reduction!r}")
    _guard_size(name, "MindlinPlate", mesh, degree, max_dofs, reduction)
    markers = set(int(m) for m in mesh.exterior_facets.unique_markers)
    boundary = {} if boundary is None else dict(boundary)
    check_boundary(name, markers, boundary, MINDLIN_CONDITIONS)
    boundary = {m: boundary.get(m, "free") for m in sorted(markers)}
    k = int(degree)
    forms = mindlin_forms(fd, mesh, k, reduction, h, rho, E, nu, kappa)
    Vv, Vw, Vm, Vq = forms["spaces"]
    dv, dw, dM, dq = forms["tests"]
    W, D = forms["W"], forms["D"]
    Efull = _mat(forms["E"], fd)
    Jfull = _mat(forms["J0"], fd)
    if reduction == "interpolation":
        MR = _mat(forms["Mq"], fd).matMult(_mat(forms["R"], fd))
    else:
        MR = _mat(forms["P"], fd)
    ises = W.dof_dset.field_ises
    blocks = [[None] * 4 for _ in range(4)]
    blocks[3][1] = MR.copy()
    blocks[3][1].scale(-1.0)
    blocks[1][3] = MR.transpose(PETSc.Mat())
    for i in (0, 2):             # empty diagonal blocks keep every block row and column sized
        blocks[i][i] = PETSc.Mat().createAIJ(((ises[i].getLocalSize(), None),) * 2, nnz=0, comm=Efull.getComm())
        blocks[i][i].assemble()
    nest = PETSc.Mat().createNest(blocks, isrows=ises, iscols=ises, comm=Efull.getComm())
    Jfull.axpy(1.0, nest.convert("aij", PETSc.Mat()), structure=PETSc.Mat.Structure.DIFFERENT_NONZERO_PATTERN)
    drop = _dropped(fd, W, mindlin_conditions(fd, mesh, boundary, name))
    plate = DistributedPlate(name, mesh, W, (0, 1), (dv, dw, dM, dq), rho * h, D, Efull, Jfull,
                             drop, lambda: (dv, dw[1], -dw[0]))
    plate.degree, plate.boundary, plate.spaces = k, boundary, (Vv, Vw, Vm, Vq)
    return plate

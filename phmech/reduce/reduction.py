"""Craig--Bampton and free-interface modal reduction of a linear pH body (:mod:`phmech.reduce.basis`).

Both build a velocity basis ``V_v``, complete it with the compatible stresses
into ``V = blockdiag(I_f, V_v, C^{-1} D V_v)`` and project every matrix of
the body in energy coordinates: ``M_r = V^T M V`` (SPD), ``J_r = V^T J0 V``
and the gyroscopic ``K_i`` of a floating frame (skew), ``R_r = V^T R V``
(PSD), the ports' rows ``Y V``.  The projected matrices are symmetrized (or
made skew) to round-off, so the reduced body is a pH system exactly, and
its energy balance under the midpoint rule holds to the Newton tolerance.

:func:`modal_reduction` with ``frame="mean_axis"`` takes the free-free elastic
modes of a floating body, which move its frame too (mean axes,
:mod:`phmech.reduce.basis`): the reduced body's floating frame is then the mean
axes of the deformation.
"""
import numpy as np

from ..bodies.base import Port
from .basis import (ReductionError, Split, check_mode_count, compatible_basis, constraint_modes, normal_modes,
                    independent_columns)
from .body import ReducedBody, frame_kind, full_identity
from .picture import full_mesh, with_stress


def _ports(body, ports, what):
    """The ports ``ports`` (ports or names) of ``body``, each checked to be one of its own."""
    if isinstance(ports, (str, Port)):
        ports = [ports]
    out = []
    for p in ports:
        if isinstance(p, str):
            if p not in body.ports:
                raise ReductionError(f"body '{body.name}': {what} port '{p}' is not a port of the body (its ports: "
                                     f"{sorted(body.ports)})")
            p = body.ports[p]
        elif not isinstance(p, Port):
            raise ReductionError(f"body '{body.name}': {what} must be ports or port names, got {p!r}")
        elif p.body is not body or body.ports.get(p.name) is not p:
            raise ReductionError(f"body '{body.name}': {what} port '{p.label}' is not on this body")
        if any(q is p for q in out):
            raise ReductionError(f"body '{body.name}': {what} port '{p.name}' is given twice")
        out.append(p)
    return out


def _comm(comm):
    """The PETSc communicator of ``comm`` (petsc4py or mpi4py), or None for one process."""
    if comm is None:
        return None
    from petsc4py import PETSc
    comm = comm if isinstance(comm, PETSc.Comm) else PETSc.Comm(comm)
    return comm if comm.getSize() > 1 else None


#: elastic unknowns (velocities and stresses) above which one process solves as the distributed path
#: does (PETSc, MUMPS): SuperLU's factor of a 3D body's bordered saddle-point matrix fills fast (70 s
#: and 4.4 GB at 5.6e4 unknowns of a CG2 solid, where the MUMPS eigen solve takes 5 s)
PETSC_MIN_UNKNOWNS = 20_000


def _solves(split, G, n_modes, eigensolver, comm, constraint=True):
    """``(Psi, omega, Phi)``: the constraint modes of ``G`` (with ``constraint``) and the normal
    modes with ``G`` held, on one process or distributed on ``comm`` (one process with SLEPc above
    :data:`PETSC_MIN_UNKNOWNS` elastic unknowns: the distributed solves on ``COMM_SELF``).  With
    mean axes (``split.n_frame``) ``G`` holds the rigid momenta, the normal modes are the
    free-free elastic modes and are put on ``G phi = 0`` to round-off
    (:meth:`~phmech.reduce.basis.Split.to_mean_axes`); they are solved on one process."""
    comm = _comm(comm)
    if comm is not None and split.n_frame:
        raise ReductionError(f"body '{split.body.name}': the mean-axis modes are solved on one process (the "
                             "distributed solves need a definite K, which the free-free body has not); reduce "
                             "without comm=")
    if (comm is None and not split.n_frame and eigensolver in ("auto", "slepc")
            and split.nv + split.C.shape[0] > PETSC_MIN_UNKNOWNS):
        from ..solvers.eigen_slepc import have_slepc
        if have_slepc():
            from petsc4py import PETSc
            comm = PETSc.COMM_SELF
    if comm is None:
        Psi = constraint_modes(split, G) if constraint else None
        omega, Phi = normal_modes(split, G, int(n_modes), eigensolver)
        return Psi, omega, (split.to_mean_axes(Phi) if split.n_frame else Phi)
    from . import distributed
    if eigensolver not in ("auto", "slepc"):
        raise ReductionError(f"body '{split.body.name}': under MPI the eigen solver is SLEPc, got "
                             f"eigensolver={eigensolver!r}")
    Psi, omega, Phi = distributed.modes(split, G, int(n_modes), comm)
    return (Psi if constraint else None), omega, Phi


def _symmetric(A):
    return 0.5 * (A + A.T)


def _skew(A):
    return 0.5 * (A - A.T)


def _reduced(body, split, Vv, kind, name, keep, exact, info):
    """The :class:`~phmech.reduce.body.ReducedBody` of the velocity basis ``Vv``."""
    owner = f"body '{body.name}'"
    basis = compatible_basis(split, Vv)
    M = _symmetric(basis.project(body.M))
    J0 = _skew(basis.project(body.J0))
    R = None if body.R is None else _symmetric(basis.project(body.R))
    K_list = [_skew(basis.project(K)) for K in getattr(body, "K_list", [])]
    # definiteness of the diagonally scaled metric (its blocks carry masses and stiffnesses)
    d = np.sqrt(np.abs(np.diag(M)))
    w = np.linalg.eigvalsh(M / np.outer(d, d)) if np.all(d > 0) else np.zeros(1)
    if w[0] <= 1e-12:
        raise ReductionError(f"{owner}: the reduced energy metric is not positive definite (lowest eigenvalue "
                             f"{w[0]:.3e} of the diagonally scaled metric)")
    if R is not None:
        r = np.linalg.eigvalsh(R)
        if r[0] < -1e-10 * max(abs(r).max(), 1e-300):
            raise ReductionError(f"{owner}: the reduced dissipation is not positive semidefinite ({r[0]:.3e})")
        R = None if not np.any(R) else R
    ports = [(p.name, basis.rows(p.Y), None if p.W is None else basis.rows(p.W), p.position, p.name in exact)
             for p in keep]
    extras = {"translation_dofs": np.asarray(body.translation_dofs, int), "G": info.pop("G")}
    for k in ("mass", "center", "inertia"):
        if getattr(body, k, None) is not None and kind != "fixed":
            extras[k] = np.asarray(getattr(body, k), float)
    fm = body.first_moment() if callable(getattr(body, "first_moment", None)) else None
    if fm is not None and fm[2] == "e":
        rows = basis.rows(np.asarray(fm[1], float))
        if split.n_frame and basis.Vs.shape[1] == Vv.shape[1]:
            # the modal displacements u = Vv s_r move the frame too: int rho u = M[trans, w] Vv s_r,
            # zero to round-off (the mean-axis condition); the full body's rows hold only its
            # displacement relative to its own frame
            rows[:, basis.rs] = split.rigid_rows()[:body.dim] @ Vv
        extras["first_moment"] = (np.asarray(fm[0], float), rows)
    info.update({"full_ports": sorted(body.ports), "modal_stresses": basis.Vs.shape[1] == basis.Vv.shape[1],
                 "n_full": int(body.ne), "n_reduced": int(basis.n)})
    return ReducedBody(name or body.name, M, J0, R, basis, ports, frame=kind, dim=body.dim,
                       identity=full_identity(body), info=info, K_list=K_list, q0=body.q0, extras=extras,
                       mesh=with_stress(full_mesh(body), body, basis))


def craig_bampton(body, interface, n_modes, name=None, outputs=(), eigensolver="auto", velocity=None, comm=None):
    """The Craig--Bampton reduction of a linear velocity--stress pH body (:mod:`phmech.reduce.basis`).

    The velocity basis is the static constraint modes of the interface rows (every velocity
    and angular-velocity row of the interface ports, the independent ones) and the
    ``n_modes`` lowest normal modes with the interface held (Craig & Bampton, AIAA J. 6
    (1968)); the stresses are the compatible ones of these modes and the projection is in
    energy coordinates (Polyuga & van der Schaft 2010), so the result is a pH body.  A
    floating body's frame efforts stay as they are (only the elastic part is projected).

    Parameters
    ----------
    body : Body
        A linear pH body whose efforts are frame efforts, velocities (``velocity_dofs``) and
        stresses, with ``M`` block-diagonal in kinetic and elastic energy (a
        :class:`~phmech.fem.FormBody`, a plate, a beam).
    interface : sequence of Port or str
        The ports where the body is joined and loaded; they are the reduced body's ports,
        statically exact.
    n_modes : int
        Number of fixed-interface normal modes (0: static condensation).
    name : str, optional
        The reduced body's name (default: the body's).
    outputs : sequence of Port or str, optional
        Further ports kept (projected rows, for output; not statically exact).
    eigensolver : {"auto", "slepc", "scipy"}
    velocity : sequence of int, optional
        The velocity unknowns, for a body without ``velocity_dofs``.
    comm : MPI communicator, optional
        Distribute the factorizations and the eigen solve over its ranks
        (:mod:`phmech.reduce.distributed`; every rank holds the body and gets the same result).

    Returns
    -------
    ReducedBody

    Raises
    ------
    ReductionError
        A port not on the body, more modes than the body has, a body of another form.
    """
    kind = frame_kind(body)
    ports = _ports(body, interface, "interface")
    if not ports:
        raise ReductionError(f"body '{body.name}': craig_bampton needs at least one interface port "
                             "(modal_reduction reduces without one)")
    extra = [p for p in _ports(body, outputs, "outputs") if all(p is not q for q in ports)]
    split = Split(body, velocity)
    G, labels = split.interface_rows(ports)
    if not G.shape[0]:
        raise ReductionError(f"body '{body.name}': the interface ports {[p.name for p in ports]} have no rows on "
                             "the flexible velocities")
    check_mode_count(split, n_modes, G.shape[0])
    Psi, omega, Phi = _solves(split, G, n_modes, eigensolver, comm)
    Vv = independent_columns(split, np.hstack([Psi, Phi]), "constraint and normal modes")
    info = {"method": "craig_bampton", "interface": [p.name for p in ports], "interface_rows": labels,
            "n_modes": int(n_modes), "omega_fixed_interface": omega.tolist(), "eigensolver": eigensolver, "G": G}
    return _reduced(body, split, Vv, kind, name, ports + extra, {p.name for p in ports}, info)


def modal_reduction(body, n_modes, name=None, ports=None, attachment=False, eigensolver="auto", velocity=None,
                    comm=None, frame="reference"):
    """Free-interface modal reduction: the ``n_modes`` lowest normal modes of the body with every
    port free, projected as in :func:`craig_bampton`.

    With ``frame="reference"`` these are the modes of a fixed body, or of the elastic part of a
    floating one about its reference condition (the frame held as the body's reference holds
    it: a clamp, a 3-2-1 point support).  With ``frame="mean_axis"`` (a floating body) they are
    the free-free elastic modes, ``K phi = omega^2 M phi`` of the body's whole velocity field,
    which are ``M``-orthogonal to the rigid motions: ``int rho u = 0`` and
    ``int rho X x u = 0`` (the mean-axis conditions, :mod:`phmech.reduce.basis`).  The reduced
    body's frame is then the mean axes of its deformation, and in its energy metric the frame's
    translation and rotation do not couple to the elastic coordinates (``M_r[f, v] = 0`` to
    round-off): its linear momentum is ``m (v_P + omega x c)``, ``c`` the undeformed centre of
    mass, whatever the deformation, and the first moment of the elastic part vanishes (for
    gravity the centre of mass stays at ``c``).  The gyroscopic matrices keep the
    rotating-frame couplings that do not vanish with the mean axes (the elastic velocities'
    Coriolis terms ``int rho phi . (e_i x (e_a x X))`` on the frame's rotation; their terms on
    the frame's translation, ``(e_i x e_k) . int rho phi``, are zero).  With a statically
    determinate reference of the full body (a 3-2-1 point support, a cantilever frame) the
    modes are those of the unconstrained body; a reference that constrains the deformation
    (a clamped face) keeps its constraint in them.

    Parameters
    ----------
    body : Body
    n_modes : int
        Number of normal modes (at most the body's velocity unknowns less one).
    name : str, optional
    ports : sequence of Port or str, optional
        The ports kept (default: all).
    attachment : bool
        Add the attachment modes ``K^{-1} G^T`` of the kept ports' rows (the static correction
        of MacNeal and Rubin): then a static load at a port is exact as in Craig--Bampton.
        Only with ``frame="reference"`` (a free-free body has no ``K^{-1}``).
    eigensolver : {"auto", "slepc", "scipy"}
    velocity : sequence of int, optional
    comm : MPI communicator, optional
        As in :func:`craig_bampton` (``frame="reference"`` only).
    frame : {"reference", "mean_axis"}
        The frame of the modes (above).

    Returns
    -------
    ReducedBody

    Raises
    ------
    ReductionError
        An unknown ``frame``, mean axes of a fixed body or with attachment modes, more modes than
        the body has, a port not on the body.
    """
    kind = frame_kind(body)
    keep = _ports(body, list(body.ports) if ports is None else ports, "ports")
    split = Split(body, velocity, frame=frame)
    if split.n_frame and attachment:
        raise ReductionError(f"body '{body.name}': attachment=True needs frame='reference' (the attachment modes "
                             "K^{-1} G^T need a body held by its reference; a free-free body has no K^{-1}), "
                             "got frame='mean_axis'")
    G_held = split.rigid_rows() if split.n_frame else np.zeros((0, split.nv))
    check_mode_count(split, n_modes, G_held.shape[0],
                     held="rigid-body motions" if split.n_frame else "held by the interface")
    G, labels = split.interface_rows(keep)
    _, omega, Phi = _solves(split, G_held, n_modes, eigensolver, comm, constraint=False)
    cols = [Phi]
    if attachment and G.shape[0]:
        cols.insert(0, _solves(split, G, 0, eigensolver, comm)[0])
    if not sum(c.shape[1] for c in cols):
        raise ReductionError(f"body '{body.name}': n_modes=0 without attachment modes leaves nothing to reduce to")
    Vv = independent_columns(split, np.hstack(cols), "normal and attachment modes")
    info = {"method": "modal_attachment" if attachment else "modal", "interface": [p.name for p in keep],
            "interface_rows": labels, "n_modes": int(n_modes), "omega_free": omega.tolist(),
            "eigensolver": eigensolver, "G": G, "frame": split.frame}
    return _reduced(body, split, Vv, kind, name, keep, {p.name for p in keep} if attachment else set(), info)

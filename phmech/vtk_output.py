"""ParaView output of a whole mechanism: one ``.vtu`` per output time and a ``.pvd`` collection.

Every body becomes one cell of an unstructured grid:

* bodies with a deformable axis (the planar floating beams of
  :mod:`phmech.fem.beam` and :mod:`phmech.fem.beam_nonlinear`, the spatial
  beam of :mod:`phmech.fem.beam3d`): a poly-line through ``n_points``
  points of the deformed axis;
* other bodies with ports (rigid bodies, point masses): the poly-line
  through their ports (a vertex for a single port).

Point data: ``velocity`` (inertial, ``[m/s]``; zero where a body does not
provide it, flagged by the cell field ``has_velocity``).  Cell data:
``energy`` (the body's stored energy ``e^T M e / 2``, kinetic plus elastic,
``[J]``) and ``body`` (its index in the system).  Planar models get
``z = 0``.  Written with the ``vtk`` package, so models without Firedrake
bodies work too.
"""
import inspect
import logging
import os
from xml.sax.saxutils import quoteattr

import numpy as np

log = logging.getLogger("phmech")


def _pad3(a):
    a = np.atleast_2d(np.asarray(a, float))
    return np.hstack([a, np.zeros((a.shape[0], 3 - a.shape[1]))]) if a.shape[1] < 3 else a


def _takes_u(method):
    return "u" in inspect.signature(method).parameters


def body_geometry(body, q, e, n_points=21):
    """Points of a body's picture and their inertial velocities.

    Parameters
    ----------
    body : Body
    q, e : arrays
        The body's configuration and efforts.
    n_points : int
        Points along a deformable axis.

    Returns
    -------
    points : ndarray, shape (k, 3)
    velocity : ndarray, shape (k, 3), or None when the body does not provide it
    """
    axis = getattr(body, "deformed_axis", None)
    L = getattr(body, "L", None)
    if axis is not None and not _takes_u(axis):                 # configuration carries the deformation
        pts = axis(q, n_points=n_points)
        return _pad3(pts), _beam_velocity(body, q, e, np.linspace(0.0, L, n_points))
    if L is not None and hasattr(body, "displacement_rows") and body.nq:
        x = np.linspace(0.0, L, n_points)
        rows = body.displacement_rows(x)                        # displacements from the stresses
        local = np.zeros((n_points, body.dim))
        local[:, 0] = x
        for i, r in enumerate(rows):
            local[:, i] += r @ e
        pts = body.position(q) + local @ body.rotation(q).T
        return _pad3(pts), _beam_velocity(body, q, e, x)
    ports = list(body.ports.values()) if isinstance(body.ports, dict) else list(body.ports)
    if not ports:
        raise ValueError(f"to_pvd: body '{body.name}' ({type(body).__name__}) has neither ports nor an axis "
                         "to draw")
    unique = []                                                 # ports at the same body point drawn once
    for p in ports:
        if not any(np.array_equal(p.position, u.position) for u in unique):
            unique.append(p)
    ports = unique
    R = body.rotation(q)
    pts = np.array([body.port_position(q, p) for p in ports])
    vel = np.array([R @ (p.Y @ e) for p in ports])
    return _pad3(pts), _pad3(vel)


def _beam_velocity(body, q, e, x):
    """Inertial velocity along a beam axis from its ``velocity_rows`` (planar beams), else None."""
    rows = getattr(body, "velocity_rows", None)
    if rows is None:
        return None
    try:
        rx, ry = rows(x)
    except (TypeError, ValueError, NotImplementedError):
        return None
    if rx.shape[1] != len(e):
        return None
    local = np.stack([rx @ e, ry @ e], axis=1)
    return _pad3(local @ body.rotation(q).T)


def _grid(parts):
    """The vtkUnstructuredGrid of one picture: ``parts`` = ``[(points, velocity or None, energy)]``
    per body (energy ``None``: no energy field)."""
    import vtk
    from vtk.util.numpy_support import numpy_to_vtk
    points = [p for p, _, _ in parts]
    vels = [v if v is not None else np.zeros_like(p) for p, v, _ in parts]
    flags = [v is not None for _, v, _ in parts]
    grid = vtk.vtkUnstructuredGrid()
    vp = vtk.vtkPoints()
    vp.SetData(numpy_to_vtk(np.ascontiguousarray(np.vstack(points)), deep=True))
    grid.SetPoints(vp)
    n = 0
    for pts in points:
        idl = vtk.vtkIdList()
        for i in range(n, n + len(pts)):
            idl.InsertNextId(i)
        grid.InsertNextCell(vtk.VTK_VERTEX if len(pts) == 1 else vtk.VTK_POLY_LINE, idl)
        n += len(pts)
    fields = [("velocity", np.vstack(vels), grid.GetPointData()),
              ("body", np.arange(len(parts), dtype=np.int32), grid.GetCellData()),
              ("has_velocity", np.array(flags, np.int32), grid.GetCellData())]
    if all(E is not None for _, _, E in parts):
        fields.append(("energy", np.array([E for _, _, E in parts], float), grid.GetCellData()))
    for name, data, target in fields:
        if data.dtype.kind == "f" and not np.all(np.isfinite(data)):
            raise ValueError(f"to_pvd: non-finite {name}; not writing")
        arr = numpy_to_vtk(np.ascontiguousarray(data), deep=True)
        arr.SetName(name)
        target.AddArray(arr)
    return grid


def _state_parts(bodies, qs, es, n_points):
    return [(*body_geometry(b, q, e, n_points), float(b.hamiltonian(e))) for b, q, e in zip(bodies, qs, es)]


def _write_collection(path, frames):
    """Write ``frames`` (``[(time, grid)]``) as ``<stem>_<k>.vtu`` files and the ``.pvd`` collection."""
    import vtk
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    stem = os.path.splitext(os.path.basename(path))[0]
    writer = vtk.vtkXMLUnstructuredGridWriter()
    files, entries = [], []
    for k, (t, grid) in enumerate(frames):
        name = f"{stem}_{k:05d}.vtu"
        writer.SetFileName(os.path.join(directory, name))
        writer.SetInputData(grid)
        if not writer.Write():
            raise OSError(f"to_pvd: could not write {os.path.join(directory, name)}")
        files.append(os.path.join(directory, name))
        entries.append(f'    <DataSet timestep="{float(t)!r}" part="0" file={quoteattr(name)}/>')
    with open(path, "w") as fh:
        fh.write('<?xml version="1.0"?>\n<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">\n'
                 "  <Collection>\n" + "\n".join(entries) + "\n  </Collection>\n</VTKFile>\n")
    return [path] + files


def _check_counts(n_points, **counts):
    if not (isinstance(n_points, (int, np.integer)) and n_points >= 2):
        raise ValueError(f"to_pvd: n_points must be an integer >= 2, got {n_points!r}")
    for name, v in counts.items():
        if not (isinstance(v, (int, np.integer)) and v >= 1):
            raise ValueError(f"to_pvd: {name} must be a positive integer, got {v!r}")


def write_pvd(result, path, n_points=21, every=1):
    """Write ``result`` as a ParaView collection (see the module docstring).

    Parameters
    ----------
    result : :class:`phmech.result.Result`
        With its assembled system (``result.dae.system``).
    path : str
        The ``.pvd`` file; the frames go to ``<stem>_<k>.vtu`` next to it.
    n_points : int
        Points along each beam axis.
    every : int
        Write every ``every``-th output row (the last row always).

    Returns
    -------
    list of str
        The ``.pvd`` file followed by the ``.vtu`` files.
    """
    _check_counts(n_points, every=every)
    bodies, rows = _bodies(result, "to_pvd"), output_rows(result, every)
    frames = [(result.t[i], _grid(_state_parts(bodies, qs, es, n_points)))
              for i, qs, es in _states(result, rows)]
    written = _write_collection(path, frames)
    log.info("to_pvd: %d frames of %d bodies in %s", len(rows), len(bodies), path)
    return written


def _bodies(result, who):
    system = getattr(result.dae, "system", None)
    if system is None:
        raise ValueError(f"{who}: the result has no assembled system of bodies (load it with its model: "
                         "Result.load(path, system))")
    return system.bodies


def output_rows(result, every=1):
    """Every ``every``-th output row of ``result``, the last row always included."""
    rows = list(range(0, len(result.t), every))
    if rows[-1] != len(result.t) - 1:
        rows.append(len(result.t) - 1)
    return rows


def _states(result, rows):
    """``(row, [q of each body], [e of each body])`` at the rows."""
    dae = result.dae
    bodies = dae.system.bodies
    q_all, e_all = result.y[:, dae.sq], result.y[:, dae.se]
    for i in rows:
        yield (i, [q_all[i, dae.q_slices[b.name]] for b in bodies],
               [e_all[i, dae.e_slices[b.name]] for b in bodies])


def trajectory_geometry(result, every=1, n_points=21):
    """The pictures of the mechanism over a run (the geometry of :func:`write_pvd`).

    Returns
    -------
    times : ndarray
        The output times drawn (every ``every``-th, the last always).
    names : list of str
        The bodies, in the system's order.
    frames : list of list of ndarray
        ``frames[k][b]``: the points ``(m, 3)`` of body ``b`` at ``times[k]``
        (port-to-port segments of rigid bodies, deformed axes of beams).
    """
    _check_counts(n_points, every=every)
    bodies, rows = _bodies(result, "trajectory_geometry"), output_rows(result, every)
    frames = [[body_geometry(b, q, e, n_points)[0] for b, q, e in zip(bodies, qs, es)]
              for _, qs, es in _states(result, rows)]
    return np.asarray(result.t)[rows], [b.name for b in bodies], frames


# -- mode shapes ------------------------------------------------------------------------------
def body_mode_geometry(body, q, u, n_points=21):
    """Points of a body displaced by the small modal displacement ``u`` (effort layout).

    ``u`` is read as a displacement: a mode's velocity amplitude divided by
    ``j omega``.  Beams with ``deformed_axis(q, u, n_points)`` draw their
    displaced axis; other bodies their ports moved by ``R (Y u)`` (the
    linearized motion of the port).
    """
    axis = getattr(body, "deformed_axis", None)
    if axis is not None and _takes_u(axis):
        return _pad3(axis(q, u, n_points=n_points))
    pts, _ = body_geometry(body, q, np.zeros(body.ne), n_points)
    ports = list(body.ports.values())
    unique = []
    for p in ports:
        if not any(np.array_equal(p.position, v.position) for v in unique):
            unique.append(p)
    if len(unique) != len(pts):            # a body drawn by its axis without a modal form: undisplaced
        return pts
    R = body.rotation(q)
    return pts + _pad3(np.array([R @ (p.Y @ u) for p in unique]))


def write_modes_pvd(modes, path, which=None, n_frames=24, scale=0.05, n_points=21):
    """Write vibration modes as animated ParaView series, one ``.pvd`` per mode.

    Parameters
    ----------
    modes : :class:`phmech.solvers.eigen.Modes`
        From ``system.assemble().linearize(q).eigenmodes(k)``.
    path : str
        ``<stem>.pvd``; mode ``i`` goes to ``<stem>_mode<i>.pvd`` (and its frames).
    which : list of int, optional
        The modes to write (default: all).
    n_frames : int
        Frames over one period; the time values are the physical times
        ``t = k T / n_frames`` with the mode's period ``T = 2 pi / omega``.
    scale : float
        Largest displacement of a drawn point, relative to the size of the
        mechanism (the largest extent of the undeformed picture).
    n_points : int
        Points along each beam axis.

    Returns
    -------
    list of str
        The ``.pvd`` files (one per mode).
    """
    _check_counts(n_points, n_frames=n_frames)
    which = range(len(modes.omega)) if which is None else which
    stem, ext = os.path.splitext(os.fspath(path))
    out = []
    for i in which:
        times, _, pictures = mode_geometry(modes, i, n_frames, scale, n_points)
        frames = [(t, _grid([(pts, None, None) for pts in picture])) for t, picture in zip(times, pictures)]
        out.append(_write_collection(f"{stem}_mode{i}{ext or '.pvd'}", frames)[0])
    log.info("modes: %d mode series written next to %s", len(out), path)
    return out


def mode_geometry(modes, i, n_frames=24, scale=0.05, n_points=21):
    """The pictures of vibration mode ``i`` over one period (the geometry of :func:`write_modes_pvd`).

    Returns ``(times, names, frames)`` as :func:`trajectory_geometry`: the
    times ``k T / n_frames`` with the period ``T = 2 pi / omega_i``; the
    largest displacement of a drawn point is ``scale`` times the size of the
    mechanism, reached in the first frame.
    """
    _check_counts(n_points, n_frames=n_frames)
    lin = modes.linear
    dae = lin.dae
    bodies = dae.system.bodies
    if not 0 <= i < len(modes.omega):
        raise ValueError(f"mode_geometry: mode {i} is not among the {len(modes.omega)} computed modes")
    qs = [lin.q[dae.q_slices[b.name]] for b in bodies]
    base = [body_mode_geometry(b, q, np.zeros(b.ne), n_points) for b, q in zip(bodies, qs)]
    size = np.ptp(np.vstack(base), axis=0).max() or 1.0
    w = float(modes.omega[i])
    d = modes.vectors[:, i] / (1j * w)
    # the picture is linear in the displacement: two evaluations give every phase,
    # Re(d e^{j phi}) -> cos(phi) D_re - sin(phi) D_im
    D = [[body_mode_geometry(b, q, part[dae.e_slices[b.name]], n_points) - g0
          for b, q, g0 in zip(bodies, qs, base)] for part in (d.real, d.imag)]
    Dr, Di = np.vstack(D[0]).ravel(), np.vstack(D[1]).ravel()
    # phase origin at the largest displacement: max of |cos Dr - sin Di|^2
    phi0 = 0.5 * np.arctan2(-2 * Dr @ Di, Dr @ Dr - Di @ Di)
    amp = np.abs(np.cos(phi0) * Dr - np.sin(phi0) * Di).max()
    s = scale * size / amp if amp > 0 else 0.0
    frames = []
    for k in range(n_frames):
        phi = phi0 + 2 * np.pi * k / n_frames
        frames.append([g0 + s * (np.cos(phi) * dr - np.sin(phi) * di) for g0, dr, di in zip(base, D[0], D[1])])
    return 2 * np.pi * np.arange(n_frames) / n_frames / w, [b.name for b in bodies], frames

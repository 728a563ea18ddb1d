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


def _grid(bodies, qs, es, n_points):
    """The vtkUnstructuredGrid of one state (bodies with their q and e)."""
    import vtk
    from vtk.util.numpy_support import numpy_to_vtk
    points, vels, cells, energy, flags = [], [], [], [], []
    n = 0
    for body, q, e in zip(bodies, qs, es):
        pts, vel = body_geometry(body, q, e, n_points)
        points.append(pts)
        vels.append(vel if vel is not None else np.zeros_like(pts))
        flags.append(vel is not None)
        cells.append(range(n, n + len(pts)))
        n += len(pts)
        energy.append(float(body.hamiltonian(e)))
    grid = vtk.vtkUnstructuredGrid()
    vp = vtk.vtkPoints()
    vp.SetData(numpy_to_vtk(np.ascontiguousarray(np.vstack(points)), deep=True))
    grid.SetPoints(vp)
    for ids in cells:
        idl = vtk.vtkIdList()
        for i in ids:
            idl.InsertNextId(i)
        grid.InsertNextCell(vtk.VTK_VERTEX if len(ids) == 1 else vtk.VTK_POLY_LINE, idl)
    for name, data, target in (("velocity", np.vstack(vels), grid.GetPointData()),
                               ("energy", np.array(energy), grid.GetCellData()),
                               ("body", np.arange(len(cells), dtype=np.int32), grid.GetCellData()),
                               ("has_velocity", np.array(flags, np.int32), grid.GetCellData())):
        if data.dtype.kind == "f" and not np.all(np.isfinite(data)):
            raise ValueError(f"to_pvd: non-finite {name}; not writing")
        arr = numpy_to_vtk(np.ascontiguousarray(data), deep=True)
        arr.SetName(name)
        target.AddArray(arr)
    return grid


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
    import vtk
    dae = result.dae
    system = getattr(dae, "system", None)
    if system is None:
        raise ValueError("to_pvd: the result has no assembled system of bodies (load it with its model: "
                         "Result.load(path, system))")
    if not (isinstance(n_points, (int, np.integer)) and n_points >= 2):
        raise ValueError(f"to_pvd: n_points must be an integer >= 2, got {n_points!r}")
    if not (isinstance(every, (int, np.integer)) and every >= 1):
        raise ValueError(f"to_pvd: every must be a positive integer, got {every!r}")
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    stem = os.path.splitext(os.path.basename(path))[0]
    bodies = system.bodies
    rows = list(range(0, len(result.t), every))
    if rows[-1] != len(result.t) - 1:
        rows.append(len(result.t) - 1)
    q_all, e_all = result.y[:, dae.sq], result.y[:, dae.se]
    writer = vtk.vtkXMLUnstructuredGridWriter()
    files, entries = [], []
    for k, i in enumerate(rows):
        qs = [q_all[i, dae.q_slices[b.name]] for b in bodies]
        es = [e_all[i, dae.e_slices[b.name]] for b in bodies]
        name = f"{stem}_{k:05d}.vtu"
        writer.SetFileName(os.path.join(directory, name))
        writer.SetInputData(_grid(bodies, qs, es, n_points))
        if not writer.Write():
            raise OSError(f"to_pvd: could not write {os.path.join(directory, name)}")
        files.append(os.path.join(directory, name))
        entries.append(f'    <DataSet timestep="{float(result.t[i])!r}" part="0" file={quoteattr(name)}/>')
    with open(path, "w") as fh:
        fh.write('<?xml version="1.0"?>\n<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">\n'
                 "  <Collection>\n" + "\n".join(entries) + "\n  </Collection>\n</VTKFile>\n")
    log.info("to_pvd: %d frames of %d bodies in %s", len(rows), len(bodies), path)
    return [path] + files

"""ParaView output of a whole mechanism: one ``.vtu`` per output time and a ``.pvd`` collection.

The pictures are those of :mod:`phmech.io.pictures`: rigid bodies as the
poly-line through their ports (a vertex for a single port), beams as their
current axis (rigid motion plus the deformation magnified by ``scale``),
plates as their triangulated mid-surface lifted by ``scale`` times the
deflection, mass-spring networks as lines between the masses, reduced bodies
kept with their mesh as the full mesh (intervals, triangles or tetrahedra,
:mod:`phmech.reduce.picture`) moved by ``scale`` times the recovered
displacement.

Point data: ``velocity`` (inertial, ``[m/s]``; zero where a body does not
provide it, flagged by the cell field ``has_velocity``), ``displacement``
(the deformation, unmagnified, inertial components ``[m]``) and
``deflection`` (a plate's ``w`` ``[m]``, zero on other bodies) and ``stress``
(an elastic solid's, full or reduced, at the vertices: ``XX, YY, ZZ, XY, YZ, XZ``
in inertial axes ``[Pa]``, zero on other bodies).  Cell data:
``body`` (the body's index in the system), ``energy`` (the stored energy
``e^T M e / 2`` of the body the cell belongs to, kinetic plus elastic,
``[J]``) and ``bending_moment`` (a plate triangle's ``(M_xx, M_yy, M_xy)``,
the cell means ``[N m/m]``, zero elsewhere).  Field data:
``deformation_scale``.  Planar models get ``z = 0``.  Written with the
``vtk`` package, so models without Firedrake bodies work too.
"""
import logging
import os
from xml.sax.saxutils import quoteattr

import numpy as np

from .pictures import Part, check_drawing_options, frame_rows, trajectory_parts

log = logging.getLogger("phmech")

_VTK_TYPES = {"vertex": "VTK_VERTEX", "polyline": "VTK_POLY_LINE", "line": "VTK_LINE", "triangle": "VTK_TRIANGLE",
              "tetra": "VTK_TETRA"}


def _grid(parts, energies=None, scale=1.0):
    """The vtkUnstructuredGrid of one picture: the :class:`~phmech.io.pictures.Part` of each body
    (``energies``: each body's stored energy, or None for no energy field)."""
    import vtk
    from vtk.util.numpy_support import numpy_to_vtk
    grid = vtk.vtkUnstructuredGrid()
    vp = vtk.vtkPoints()
    vp.SetData(numpy_to_vtk(np.ascontiguousarray(np.vstack([p.points for p in parts])), deep=True))
    grid.SetPoints(vp)
    point, cell = {"velocity": [], "displacement": [], "deflection": [], "stress": []}, \
        {"body": [], "has_velocity": [], "bending_moment": [], "energy": []}
    n = 0
    for b, p in enumerate(parts):
        m, nc = len(p.points), p.n_cells
        for kind, conn in p.cells:
            vtype = getattr(vtk, _VTK_TYPES[kind])
            for row in conn:
                idl = vtk.vtkIdList()
                for i in row:
                    idl.InsertNextId(int(i) + n)
                grid.InsertNextCell(vtype, idl)
        pd = p.point_data
        point["velocity"].append(pd.get("velocity", np.zeros((m, 3))))
        point["displacement"].append(pd.get("displacement", np.zeros((m, 3))))
        point["deflection"].append(pd.get("deflection", np.zeros(m)))
        point["stress"].append(pd.get("stress", np.zeros((m, 6))))
        cell["body"].append(np.full(nc, b, np.int32))
        cell["has_velocity"].append(np.full(nc, int("velocity" in pd), np.int32))
        cell["bending_moment"].append(p.cell_data.get("bending_moment", np.zeros((nc, 3))))
        if energies is not None:
            cell["energy"].append(np.full(nc, float(energies[b])))
        n += m
    fields = [(k, np.concatenate(v), grid.GetPointData()) for k, v in point.items()]
    fields += [(k, np.concatenate(v), grid.GetCellData()) for k, v in cell.items() if v]
    fields.append(("deformation_scale", np.array([float(scale)]), grid.GetFieldData()))
    for name, data, target in fields:
        if data.dtype.kind == "f" and not np.all(np.isfinite(data)):
            raise ValueError(f"to_pvd: non-finite {name}; not writing")
        arr = numpy_to_vtk(np.ascontiguousarray(data), deep=True)
        arr.SetName(name)
        if name == "bending_moment":
            for i, c in enumerate(("Mxx", "Myy", "Mxy")):
                arr.SetComponentName(i, c)
        if name == "stress":                        # a symmetric tensor in VTK's component order
            for i, c in enumerate(("XX", "YY", "ZZ", "XY", "YZ", "XZ")):
                arr.SetComponentName(i, c)
        target.AddArray(arr)
    return grid


def _write_collection(path, frames, folder=None):
    """Write ``frames`` (``[(time, grid)]``) as ``<folder>/<stem>_<k>.vtu`` files and the ``.pvd``
    collection (``folder``: a sub-folder beside the ``.pvd``, default ``<stem>``; ``""``: beside it)."""
    import vtk
    path = os.fspath(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    folder = stem if folder is None else os.fspath(folder)
    if os.path.isabs(folder) or os.pardir in folder.split(os.sep):
        raise ValueError(f"to_pvd: folder must be a sub-folder beside the .pvd file, got {folder!r}")
    directory = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(os.path.join(directory, folder), exist_ok=True)
    except OSError as err:
        raise OSError(f"to_pvd: cannot create the directory of {path!r}: {err}") from None
    writer = vtk.vtkXMLUnstructuredGridWriter()
    files, entries = [], []
    for k, (t, grid) in enumerate(frames):
        name = f"{folder}/{stem}_{k:05d}.vtu" if folder else f"{stem}_{k:05d}.vtu"
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


def write_pvd(result, path, n_points=21, every=1, scale=1.0, max_frames=None, folder=None):
    """Write ``result`` as a ParaView collection (see the module docstring).

    Parameters
    ----------
    result : :class:`phmech.result.Result`
        With its assembled system (``result.dae.system``), or a mass-spring run.
    path : str
        The ``.pvd`` file; the frames go to ``<stem>/<stem>_<k>.vtu`` beside it.
    n_points : int
        Points along each beam axis.
    every : int
        Write every ``every``-th output row (the last row always).
    scale : float
        Magnification of the deformation drawn (beams' axes, plates'
        deflection); the ``displacement`` and ``deflection`` fields stay
        unmagnified.
    max_frames : int, optional
        At most this many frames, evenly sampled from those of ``every``.
    folder : str, optional
        The sub-folder of the ``.vtu`` files beside the ``.pvd`` (default ``<stem>``;
        ``""``: beside the ``.pvd`` itself).

    Returns
    -------
    list of str
        The ``.pvd`` file followed by the ``.vtu`` files.
    """
    _check_counts(n_points, every=every)
    try:
        check_drawing_options(n_points, scale)
        rows = frame_rows(len(result.t), every, max_frames)
    except ValueError as err:
        raise ValueError(f"to_pvd: {err}") from None
    times, names, frames, energies = trajectory_parts(result, rows, n_points, scale)
    written = _write_collection(path, [(t, _grid(parts, E, scale))
                                       for t, parts, E in zip(times, frames, energies)], folder)
    log.info("to_pvd: %d frames of %d bodies in %s", len(rows), len(names), path)
    return written


def output_rows(result, every=1):
    """Every ``every``-th output row of ``result``, the last row always included."""
    return frame_rows(len(result.t), every)


def trajectory_geometry(result, every=1, n_points=21, scale=1.0):
    """The points of the mechanism's pictures over a run (:mod:`phmech.io.pictures`).

    Returns
    -------
    times : ndarray
        The output times drawn (every ``every``-th, the last always).
    names : list of str
        The bodies, in the system's order.
    frames : list of list of ndarray
        ``frames[k][b]``: the points ``(m, 3)`` of body ``b`` at ``times[k]``
        (port-to-port segments of rigid bodies, current axes of beams, the
        nodes of plates and networks).
    """
    _check_counts(n_points, every=every)
    times, names, frames, _ = trajectory_parts(result, output_rows(result, every), n_points, scale)
    return times, names, [[p.points for p in parts] for parts in frames]


# -- mode shapes ------------------------------------------------------------------------------
def write_modes_pvd(modes, path, which=None, n_frames=24, scale=0.05, n_points=21):
    """Write vibration modes as animated ParaView series, one ``.pvd`` per mode.

    Parameters
    ----------
    modes : :class:`phmech.solvers.eigen.Modes`
        From ``system.linearize(q).eigenmodes(k)``.
    path : str
        ``<stem>.pvd``; mode ``i`` goes to ``<stem>_mode<i>.pvd`` (its frames to the sub-folder
        ``<stem>_mode<i>``).
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
        times, names, pictures = mode_geometry(modes, i, n_frames, scale, n_points)
        frames = [(t, _grid([_mode_part(name, pts) for name, pts in zip(names, picture)]))
                  for t, picture in zip(times, pictures)]
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
    base = [b.mode_picture(q, np.zeros(b.ne), n_points) for b, q in zip(bodies, qs)]
    size = np.ptp(np.vstack(base), axis=0).max() or 1.0
    w = float(modes.omega[i])
    d = modes.vectors[:, i] / (1j * w)
    # the picture is linear in the displacement: two evaluations give every phase,
    # Re(d e^{j phi}) -> cos(phi) D_re - sin(phi) D_im
    D = [[b.mode_picture(q, part[dae.e_slices[b.name]], n_points) - g0
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


def _mode_part(name, pts):
    return Part.chain(name, pts)

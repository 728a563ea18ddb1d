"""Plates, deformed beams and networks in ParaView: the written .pvd/.vtu files read back with vtk,
the geometry against the result, and one frame rendered off screen."""
import os

import numpy as np
import pytest
from conftest import needs_firedrake
from mechanisms import spring_chain_3d
from test_output import read_frames

vtk = pytest.importorskip("vtk")
from vtk.util.numpy_support import vtk_to_numpy  # noqa: E402

CLAMPED = {1: "clamped", 2: "clamped", 3: "clamped", 4: "clamped"}
if not os.environ.get("DISPLAY"):             # off screen without an X server: EGL (Mesa's software driver)
    os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")


def render_png(vtu, png, scalars=None, size=(400, 300)):
    """Render the grid of ``vtu`` off screen into ``png``; return the image as an array (rows, cols, 3)."""
    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(vtu)
    reader.Update()
    mapper = vtk.vtkDataSetMapper()
    mapper.SetInputConnection(reader.GetOutputPort())
    if scalars:
        mapper.SetScalarModeToUsePointFieldData()
        mapper.SelectColorArray(scalars)
        mapper.SetScalarRange(reader.GetOutput().GetPointData().GetArray(scalars).GetRange())
        mapper.ScalarVisibilityOn()
    else:
        mapper.ScalarVisibilityOff()
    actor = vtk.vtkActor()
    actor.SetMapper(mapper)
    actor.GetProperty().SetColor(0.1, 0.2, 0.7)
    actor.GetProperty().SetLineWidth(4)
    actor.GetProperty().SetPointSize(8)
    renderer = vtk.vtkRenderer()
    renderer.AddActor(actor)
    renderer.SetBackground(1.0, 1.0, 1.0)
    camera = renderer.GetActiveCamera()
    camera.SetPosition(1.0, -2.0, 1.5)
    camera.SetViewUp(0.0, 0.0, 1.0)
    renderer.ResetCamera()
    window = vtk.vtkRenderWindow()
    window.SetOffScreenRendering(1)
    window.AddRenderer(renderer)
    window.SetSize(*size)
    window.Render()
    grab = vtk.vtkWindowToImageFilter()
    grab.SetInput(window)
    grab.Update()
    writer = vtk.vtkPNGWriter()
    writer.SetFileName(png)
    writer.SetInputConnection(grab.GetOutputPort())
    writer.Write()
    window.Finalize()
    back = vtk.vtkPNGReader()
    back.SetFileName(png)
    back.Update()
    img = back.GetOutput()
    w, h, _ = img.GetDimensions()
    return vtk_to_numpy(img.GetPointData().GetScalars()).reshape(h, w, -1)[..., :3]


def assert_not_blank(img, min_pixels=200):
    drawn = np.abs(img.astype(int) - 255).sum(axis=-1) > 30
    assert drawn.sum() > min_pixels, f"only {drawn.sum()} drawn pixels"
    return int(drawn.sum())


def test_rigid_frames_and_network_render(rigid_crank_slider, tmp_path):
    """Rigid bodies keep one cell each and no displacement; a mass-spring run is written as its
    springs (lines) and masses (vertices) at the result's positions, and renders."""
    s = rigid_crank_slider[0]
    res = s.simulate(0.01, solver="midpoint", dt=1e-4, dt_out=1e-3)
    frames = read_frames(res.to_pvd(str(tmp_path / "rigid.pvd"), max_frames=4)[0])
    assert [f[0] for f in frames] == [res.t[i] for i in (0, 3, 7, 10)]
    for t, P, cells, pd, cd in frames:
        assert np.all(pd["displacement"] == 0) and np.all(pd["deflection"] == 0)
    net = spring_chain_3d()
    files = net.to_pvd(str(tmp_path / "net.pvd"), every=20)
    frames = read_frames(files[0])
    P_res = net.positions()
    for (t, P, cells, pd, cd), i in zip(frames, (0, 20, 40, 60)):
        assert t == pytest.approx(net.t[i], abs=1e-12)
        np.testing.assert_allclose(P[:2], P_res[i], atol=1e-14)
        np.testing.assert_allclose(P[2], 0.0, atol=0)
        assert cells == [[2, 0], [0, 1], [0], [1]]                 # two springs, two masses
        np.testing.assert_allclose(pd["velocity"][:2], net.velocities()[i], atol=1e-14)
        np.testing.assert_allclose(pd["displacement"][:2], P_res[i] - P_res[0], atol=1e-14)
    assert np.linalg.norm(frames[-1][1][1] - frames[0][1][1]) > 0.1           # the masses fell
    assert_not_blank(render_png(files[-1], str(tmp_path / "net.png")))


@needs_firedrake
def test_hinged_beam_current_configuration(tmp_path):
    """The hinged spatial beam: each frame holds the current axis, rigid motion plus ``scale`` times
    the displacement field written beside it; the unmagnified axis keeps the beam's length, starts
    at the hinge and turns with the frame; one frame renders off screen."""
    from phmech.math.rotations import rot3
    from phmech.mechanisms import hinged_spatial_beam
    s, beam = hinged_spatial_beam(n_elem=2)
    res = s.simulate(0.4, solver="midpoint", dt=0.01, dt_out=0.1)
    n, scale = 6, 50.0
    one = read_frames(res.to_pvd(str(tmp_path / "one.pvd"), n_points=n)[0])
    files = res.to_pvd(str(tmp_path / "big.pvd"), n_points=n, scale=scale)
    big = read_frames(files[0])
    x = np.linspace(0.0, beam.L, n)
    q = res.q(beam)
    for i, ((t, P1, c1, pd1, _), (_, Ps, cs, pds, _)) in enumerate(zip(one, big)):
        d = pd1["displacement"]
        np.testing.assert_allclose(pds["displacement"], d, atol=0)
        np.testing.assert_allclose(Ps - P1, (scale - 1.0) * d, atol=1e-9 * beam.L)
        rigid = q[i, :3] + np.column_stack([x, 0 * x, 0 * x]) @ rot3(q[i, 3:7]).T
        np.testing.assert_allclose(P1 - d, rigid, atol=1e-9 * beam.L)
        np.testing.assert_allclose(P1[0], 0.0, atol=1e-9 * beam.L)            # at the hinge
        assert np.sum(np.linalg.norm(np.diff(P1, axis=0), axis=1)) == pytest.approx(beam.L, rel=1e-4)
    # the tip as the case computes it (its own recovery of the tip displacement)
    Rs = np.array([rot3(qq[3:7]) for qq in q])
    out_tip = q[:, :3] + np.einsum("nij,nj->ni", Rs, _tip_local(beam, res.e(beam)))
    np.testing.assert_allclose([f[1][-1] for f in one], out_tip, atol=1e-9 * beam.L)
    # it moves (the tip first lags behind the turning root: the bending outweighs the rotation)
    assert np.linalg.norm(one[-1][1][-1] - one[0][1][-1]) > 5e-6 * beam.L
    deflection = np.abs(big[-1][3]["displacement"]).max()
    assert deflection > 1e-6 * beam.L
    img = render_png(files[-1], str(tmp_path / "hinged.png"))
    print(f"hinged beam: tip deflection {deflection:.3g}, drawn x{scale}, {assert_not_blank(img)} pixels")


def _tip_local(beam, e):
    ux, uy, uz = beam.displacement_rows([beam.L])
    return np.stack([beam.L + e @ ux[0], e @ uy[0], e @ uz[0]], axis=1)


@needs_firedrake
def test_flexible_crank_slider_scale(tmp_path):
    """The crank-slider's coupler: the magnified axis moves by (s - 1) times the displacement,
    which is perpendicular to the chord and vanishes at the joints."""
    from phmech.mechanisms import flexible_crank_slider
    system, b = flexible_crank_slider(2)
    res = system.simulate(0.004, solver="midpoint", dt=1e-4, dt_out=1e-3, constraints="endpoint")
    one = read_frames(res.to_pvd(str(tmp_path / "a.pvd"), n_points=9)[0])
    big = read_frames(res.to_pvd(str(tmp_path / "b.pvd"), n_points=9, scale=100.0)[0])
    L = b["coupler"].L
    for (_, P1, cells, pd, _), (_, Ps, _, _, _) in zip(one, big):
        c = cells[1]
        np.testing.assert_allclose(Ps[c] - P1[c], 99.0 * pd["displacement"][c], atol=1e-12 * L)
        np.testing.assert_allclose(Ps[cells[0]], P1[cells[0]], atol=0)              # the rigid crank
    assert np.abs(one[-1][3]["displacement"]).max() > 1e-8


def _clamped_plate(N=4, degree=2):
    import firedrake as fd
    from phmech import System
    from phmech.fem.plate import KirchhoffPlate
    p = KirchhoffPlate("plate", fd.UnitSquareMesh(N, N), 0.01, 2700.0, 70e9, 0.3, degree=degree, boundary=CLAMPED)
    port = p.add_patch_port("centre", (0.4, 0.6), 0.25)
    s = System([p])
    s.apply_force(port, lambda t: (0.0, 0.0, 200.0 * np.sin(3e3 * t)))
    return s, p, port


@needs_firedrake
def test_clamped_plate_surface(tmp_path):
    """A clamped Kirchhoff plate as a surface: the deflection recovered from the moments equals
    the time integral of the written velocities (dense output) and the same run stored sparsely;
    the points are the nodes lifted by ``scale`` times the deflection; the port's weighted mean
    of the deflection is the integral of its velocity; the bending moments are cell means."""
    import firedrake as fd
    s, p, port = _clamped_plate()
    dt = 1e-4
    dense = s.simulate(3e-3, solver="midpoint", dt=dt)
    frames = read_frames(dense.to_pvd(str(tmp_path / "dense.pvd"))[0])
    t = np.array([f[0] for f in frames])
    W = np.array([f[3]["deflection"] for f in frames])
    V = np.array([f[3]["velocity"][:, 2] for f in frames])
    trap = np.concatenate([np.zeros((1, V.shape[1])), np.cumsum(0.5 * (V[1:] + V[:-1]) * np.diff(t)[:, None], 0)])
    wmax = np.abs(W).max()
    assert wmax > 1e-7
    np.testing.assert_allclose(W, trap, atol=1e-8 * wmax)
    # the result's own port: mean deflection = int Y e dt
    from phmech.fem.plate_picture import plate_surface
    surf = plate_surface(p)
    have = surf.node_e >= 0
    d = np.zeros((len(W), p.ne))
    d[:, surf.node_e[have]] = W[:, have]
    Y = port.Y[2]
    port_v = dense.e(p) @ Y
    np.testing.assert_allclose(d @ Y, np.r_[0, np.cumsum(0.5 * (port_v[1:] + port_v[:-1]) * dt)],
                               atol=1e-8 * wmax)
    # stored every 5th step: the same deflection at the stored times
    sparse = s.simulate(3e-3, solver="midpoint", dt=dt, dt_out=5 * dt)
    scale = 200.0
    files = sparse.to_pvd(str(tmp_path / "sparse.pvd"), scale=scale)
    sf = read_frames(files[0])
    assert len(sf) == 7
    for k, (ts, P, cells, pd, cd) in enumerate(sf):
        np.testing.assert_allclose(pd["deflection"], W[5 * k], atol=1e-8 * wmax)
        np.testing.assert_allclose(P[:, 2], scale * pd["deflection"], rtol=1e-15, atol=0)
        np.testing.assert_allclose(P[:, :2], frames[0][1][:, :2], atol=0)
        assert all(len(c) == 3 for c in cells) and len(cells) == 4 * 2 * 4 * 4        # P2 cells split in 4
        assert np.all(pd["deflection"][~have] == 0)                                   # the clamped edge
    # the largest deflection of the file is the largest nodal value of the run's deflection field
    assert np.abs(sf[-1][3]["deflection"]).max() == pytest.approx(np.abs(W[-1]).max(), rel=1e-8)
    # bending moments: cell means of the moment field (Firedrake's projection onto DG0)
    e = sparse.e(p)[-1]
    Mfun = fd.Function(p.spaces[1])
    full = np.zeros(p.nf)
    full[p._keep] = e
    Mfun.dat.data[:] = full[p.spaces[0].dim():]
    mean = fd.project(Mfun, fd.TensorFunctionSpace(p.mesh, "DG", 0, shape=(2, 2)))
    tri = sf[-1][2][::7]                                            # some triangles, at their centroids
    centroids = np.array([np.mean(sf[-1][1][c], axis=0)[:2] for c in tri])
    cell_M = np.asarray(fd.PointEvaluator(p.mesh, centroids, tolerance=1e-10).evaluate(mean)).reshape(-1, 2, 2)
    got = sf[-1][4]["bending_moment"][::7]
    np.testing.assert_allclose(got, [[m[0, 0], m[1, 1], m[0, 1]] for m in cell_M],
                               atol=1e-9 * np.abs(got).max())
    img = render_png(files[-1], str(tmp_path / "plate.png"), scalars="deflection")
    print(f"plate: max deflection {wmax:.3g} m, {assert_not_blank(img, 2000)} drawn pixels")


@needs_firedrake
def test_free_plate_without_ports(tmp_path):
    """A free plate under a uniform pressure and no ports: written (not refused) and translating
    rigidly, ``w = p t^2 / (2 rho h)`` at every node (the velocities' integral)."""
    import firedrake as fd
    from phmech import System
    from phmech.fem.plate import KirchhoffPlate, PlateLoad
    from phmech.fem.plate_deflection import plate_held
    p = KirchhoffPlate("free", fd.UnitSquareMesh(2, 2), 0.01, 2700.0, 70e9, 0.3, degree=1)
    assert not p.ports and not plate_held(p)
    s = System([p])
    pressure = 50.0
    s.add_load(PlateLoad(p, p.load_vector(lambda x: pressure + 0.0 * x[0]), lambda t: 1.0))
    res = s.simulate(1e-3, solver="midpoint", dt=1e-4, dt_out=2e-4)
    frames = read_frames(res.to_pvd(str(tmp_path / "free.pvd"))[0])
    for t, P, cells, pd, cd in frames:
        w = pressure * t ** 2 / (2 * p.rho * p.h)
        np.testing.assert_allclose(pd["deflection"], w, rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(np.abs(cd["bending_moment"]).max(), 0.0, atol=1e-9)
    assert frames[-1][3]["deflection"].min() > 0


@needs_firedrake
def test_mindlin_plate_surface(tmp_path):
    """A Mindlin plate: clamped, its deflection from the moments and shear forces equals the time
    integral of the written velocities; free, it is found free to move rigidly."""
    import firedrake as fd
    from phmech import System
    from phmech.fem.plate_mindlin import MindlinPlate
    from phmech.fem.plate_deflection import plate_held
    p = MindlinPlate("m", fd.UnitSquareMesh(3, 3), 0.02, 2700.0, 70e9, 0.3, degree=2, boundary=CLAMPED)
    port = p.add_patch_port("c", (0.5, 0.5), 0.3)
    s = System([p])
    s.apply_force(port, (0.0, 0.0, 100.0))
    res = s.simulate(1e-3, solver="midpoint", dt=1e-4)
    frames = read_frames(res.to_pvd(str(tmp_path / "m.pvd"), scale=1e3)[0])
    t = np.array([f[0] for f in frames])
    W = np.array([f[3]["deflection"] for f in frames])
    V = np.array([f[3]["velocity"][:, 2] for f in frames])
    trap = np.concatenate([np.zeros((1, V.shape[1])), np.cumsum(0.5 * (V[1:] + V[:-1]) * np.diff(t)[:, None], 0)])
    assert plate_held(p) and np.abs(W).max() > 1e-7
    np.testing.assert_allclose(W, trap, atol=1e-8 * np.abs(W).max())
    np.testing.assert_allclose(frames[-1][1][:, 2], 1e3 * W[-1], rtol=1e-15, atol=0)
    assert np.abs(frames[-1][4]["bending_moment"]).max() > 0
    free = MindlinPlate("f", fd.UnitSquareMesh(2, 2), 0.02, 2700.0, 70e9, 0.3, degree=2)
    assert not plate_held(free)

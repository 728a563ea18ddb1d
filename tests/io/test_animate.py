"""Animations read back frame by frame: counts, sizes, and the drawn slider where the result puts it."""
import importlib.util
import os
import shutil
import subprocess

import numpy as np
import pytest
from conftest import needs_firedrake
from mechanisms import loaded_clamped_plate

RED = np.array([255, 0, 0])


@pytest.fixture(scope="module")
def crank_run():
    from mechanisms import rigid_crank_slider
    s, crank, coupler, slider = rigid_crank_slider()
    res = s.simulate(0.04, solver="midpoint", dt=1e-4, dt_out=2e-3)
    return res, slider


def red_centroid(frame, tol=60):
    """Centroid ``(column, row)`` of the pure-red pixels of an RGB frame."""
    mask = np.abs(frame[..., :3].astype(int) - RED).sum(axis=-1) < tol
    rows, cols = np.nonzero(mask)
    assert len(rows) > 20, "no slider drawn"
    return np.array([cols.mean(), rows.mean()])


def check_slider_track(frames, anim, res, slider, tol_px):
    """The red square of each frame is centred at the pixel of the slider's position in the result."""
    rows = list(range(0, len(res.t), 2))
    assert len(frames) == len(rows)
    want = anim.pixel(np.column_stack([res.q(slider)[rows], np.zeros(len(rows))]))
    got = np.array([red_centroid(f) for f in frames])
    err = np.abs(got - want).max()
    assert err < tol_px, err
    # the slider travels 2 L1 = 0.3 m: many pixels, so the test sees the motion, not noise
    assert np.ptp(got[:, 0]) > 100 and np.ptp(got[:, 1]) < 2
    return err


def test_gif_frames_follow_the_result(crank_run, tmp_path):
    iio = pytest.importorskip("imageio.v3")
    from phmech.io.animation import animate
    res, slider = crank_run
    opts = dict(every=2, colors={"slider": "#ff0000"}, legend=False, dpi=80)
    path = res.animate(str(tmp_path / "cs.gif"), **opts)
    frames = iio.imread(path, index=None)
    assert frames.shape[1:3] == (320, 512)             # 6.4 x 4.0 inches at 80 dpi
    anim = animate(res, **opts)
    err = check_slider_track(frames, anim, res, slider, tol_px=1.5)
    print(f"GIF: {len(frames)} frames, slider centroid within {err:.2f} px of the result")


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed (needed for MP4)")
def test_mp4_frames_follow_the_result(crank_run, tmp_path):
    from phmech.io.animation import animate
    res, slider = crank_run
    opts = dict(every=2, colors={"slider": "#ff0000"}, legend=False, dpi=80)
    path = res.animate(str(tmp_path / "cs.mp4"), **opts)
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                            "stream=width,height,nb_read_frames,codec_name", "-of", "csv=p=0", path],
                           capture_output=True, text=True, check=True).stdout.strip().split(",")
    codec, w, h, n = probe[0], int(probe[1]), int(probe[2]), int(probe[3])
    assert codec == "h264" and (w, h) == (512, 320)
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         capture_output=True, check=True).stdout
    frames = np.frombuffer(raw, np.uint8).reshape(-1, h, w, 3)
    assert len(frames) == n
    anim = animate(res, **opts)
    # lossy compression and chroma subsampling blur the edges: a looser colour and position tolerance
    err = check_slider_track(frames, anim, res, slider, tol_px=2.5)
    print(f"MP4: {n} frames, slider centroid within {err:.2f} px of the result")


def test_html_player_and_bad_arguments(crank_run, tmp_path):
    res, _ = crank_run
    from phmech.io.paraview import output_rows
    html = res.animate(html=True, every=10)
    # matplotlib's JavaScript player: one embedded PNG per frame
    assert "<script" in html and html.count("data:image/png;base64") == len(output_rows(res, 10)) == 3
    assert res.animate(every=10)._repr_html_().count("data:image/png;base64") == 3
    with pytest.raises(ValueError, match="must end in .mp4 or .gif"):
        res.animate(str(tmp_path / "a.avi"))
    with pytest.raises(ValueError, match="unknown bodies \\['nope'\\]"):
        res.animate(colors={"nope": "red"})
    with pytest.raises(ValueError, match="fps must be a positive integer, got 0"):
        res.animate(str(tmp_path / "a.gif"), fps=0)
    with pytest.raises(ValueError, match="plane must be one of"):
        res.animate(plane="xw")


@needs_firedrake
def test_flexible_coupler_drawn_as_its_deformed_axis(tmp_path):
    """The crank-slider with a beam coupler: the drawn axis is the ParaView one (shared geometry)."""
    from phmech.io.animation import animate
    from phmech.mechanisms import flexible_crank_slider
    from phmech.io.paraview import trajectory_geometry
    system, b = flexible_crank_slider(2)
    res = system.simulate(0.002, solver="midpoint", dt=1e-4, dt_out=5e-4)
    anim = animate(res, n_points=7)
    times, names, frames = trajectory_geometry(res, n_points=7)
    assert names == ["crank", "coupler", "slider"] and len(anim.frames) == len(res.t) == len(frames)
    L = b["coupler"].L
    for k, frame in enumerate(frames):
        anim._draw(k)
        x, y = anim.artists[1].get_data()
        np.testing.assert_array_equal(np.column_stack([x, y]), frame[1][:, :2])
        assert len(x) == 7
        # the axis joins crank pin and slider (up to the drift of velocity-level constraints)
        np.testing.assert_allclose(frame[1][0], frame[0][1], atol=3e-5 * L)
        np.testing.assert_allclose(frame[1][-1, :2], res.q("slider")[k], atol=3e-5 * L)
    path = anim.save(str(tmp_path / "flex.gif"), fps=5)
    assert os.path.getsize(path) > 0


# -- bounded frames, progress, networks, plates, deformation scale -------------------------------
def test_frames_bounded_and_evenly_sampled(rigid_crank_slider, capsys, tmp_path):
    """401 output rows: 100 frames by default (first and last kept, evenly spaced), the bound
    overridden by ``max_frames``; the written GIF has as many frames as the animation."""
    s = rigid_crank_slider[0]
    res = s.simulate(0.04, solver="midpoint", dt=1e-4, dt_out=1e-4)
    assert len(res.t) == 401
    anim = res.animate()
    assert len(anim.frames) == 100
    assert anim.times[0] == res.t[0] and anim.times[-1] == res.t[-1]
    gaps = np.round(np.diff(anim.times) / 1e-4).astype(int)                  # in output rows: 400 / 99
    assert set(gaps) == {4, 5}
    assert len(res.animate(max_frames=7).frames) == 7
    assert len(res.animate(max_frames=None).frames) == 401
    assert len(res.animate(every=100).frames) == 5 and len(res.animate(every=2, max_frames=3).frames) == 3
    with pytest.raises(ValueError, match="animate: max_frames must be a positive integer or None, got 0"):
        res.animate(max_frames=0)
    iio = pytest.importorskip("imageio.v3")
    path = res.animate(str(tmp_path / "bounded.gif"), max_frames=12, dpi=40)
    assert iio.imread(path, index=None).shape[0] == 12
    if importlib.util.find_spec("tqdm") is not None:
        # the bar was drawn for the 12 frames; how far it got on screen depends on tqdm's
        # refresh interval (the bar is cleared at the end), so only its total is certain
        assert "0/12 [" in capsys.readouterr().err


def _spring_network():
    from phmech import massspring as ms
    mss = ms.MassSpringSystem2d()
    mss.gravity = [0.0, -9.81]
    f = mss.add(ms.Fix([0.0, 0.0]))
    a = mss.add(ms.Mass(1.0, [1.0, 0.0]))
    b = mss.add(ms.Mass(1.0, [2.0, 0.0]))
    c = mss.add(ms.Mass(1.0, [2.0, -1.0]))
    mss.add(ms.Spring(1.0, 300.0, (f, a)))
    mss.add(ms.Spring(1.0, 300.0, (a, b)))
    mss.add(ms.Spring(1.0, 300.0, (b, c)))
    mss.add(ms.Dashpot(0.5, (a, c)))
    return mss


def test_network_drawn_as_its_springs():
    """A mass-spring run: one line per spring and dashpot between the masses' (and the fixed
    point's) positions of the result, and the drawn lines in the pixels of the frame."""
    from matplotlib.collections import LineCollection
    res = _spring_network().simulate(0.5, 100)
    anim = res.animate(colors={"network": "#ff0000"}, legend=False, max_frames=10)
    art = anim.artists[0]
    assert isinstance(art, LineCollection) and anim.names == ["network"]
    P = res.positions()
    rows = [int(np.argmin(np.abs(res.t - t))) for t in anim.times]
    fixed = np.zeros(2)
    for k, i in enumerate(rows):
        anim._draw(k)
        nodes = np.vstack([P[i], fixed])                     # masses first, then the fixed point
        want = [nodes[[3, 0]], nodes[[0, 1]], nodes[[1, 2]], nodes[[0, 2]]]
        np.testing.assert_allclose(art.get_segments(), want, atol=1e-12)
    # the spring from the fixed point to the first mass is drawn: red pixels along its middle half
    anim._draw(len(rows) - 1)
    anim.fig.canvas.draw()
    img = np.asarray(anim.fig.canvas.buffer_rgba())[..., :3].astype(int)
    a, b = P[rows[-1], 0], fixed
    for s in (0.3, 0.5, 0.7):
        col, row = anim.pixel(np.r_[a + s * (b - a), 0.0])[0]
        patch = img[int(row) - 2:int(row) + 3, int(col) - 2:int(col) + 3]
        assert (np.abs(patch - RED).sum(axis=-1) < 60).any(), (s, col, row)


def test_network_body_of_a_system_drawn_as_a_network():
    from matplotlib.collections import LineCollection
    from phmech import System
    from phmech.massspring import network_body
    body, loads = network_body(_spring_network())
    s = System([body])
    for ld in loads:
        s.add_load(ld)
    res = s.simulate(0.05, solver="midpoint", dt=1e-3)
    anim = res.animate()
    assert isinstance(anim.artists[0], LineCollection) and len(anim.artists[0].get_segments()) == 4
    q = res.q(body)[-1].reshape(-1, 2)
    anim._draw(len(anim.frames) - 1)
    np.testing.assert_allclose(anim.artists[0].get_segments()[1], q[[0, 1]], atol=1e-12)


@needs_firedrake
def test_deformation_scale_of_a_beam():
    """The flexible coupler drawn with scale s: the axis moves by (s - 1) times the displacement."""
    from phmech.io.pictures import frame_rows, trajectory_parts
    from phmech.mechanisms import flexible_crank_slider
    system, b = flexible_crank_slider(2)
    res = system.simulate(0.003, solver="midpoint", dt=1e-4, dt_out=1e-3)
    a1, a20 = res.animate(n_points=7), res.animate(n_points=7, scale=20.0)
    _, _, parts, _ = trajectory_parts(res, frame_rows(len(res.t)), n_points=7)
    for k in range(len(res.t)):
        d = parts[k][1].point_data["displacement"]
        np.testing.assert_allclose(a20.frames[k][1] - a1.frames[k][1], 19.0 * d, atol=1e-12)
    assert np.abs(parts[-1][1].point_data["displacement"]).max() > 1e-7


@needs_firedrake
def test_plate_drawn_as_a_coloured_surface():
    p, res = loaded_clamped_plate()
    anim = res.animate(max_frames=5)
    from phmech.fem.plate_picture import deflection_history
    W, how = deflection_history(p, res.t, res.e(p), [int(np.argmin(np.abs(res.t - t))) for t in anim.times])
    assert how == "moments"
    for k in range(5):
        anim._draw(k)
        np.testing.assert_allclose(anim.artists[0].get_array(), W[k], atol=0)
    assert np.abs(W[-1]).max() > 0
    side = res.animate(plane="xz", scale=100.0, max_frames=5)
    side._draw(4)
    np.testing.assert_allclose(side.artists[0].get_data()[1], 100.0 * W[-1], rtol=1e-12)

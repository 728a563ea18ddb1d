"""Animations read back frame by frame: counts, sizes, and the drawn slider where the result puts it."""
import os
import shutil
import subprocess

import numpy as np
import pytest
from conftest import needs_firedrake

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
    from phmech.animate import animate
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
    from phmech.animate import animate
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
    from phmech.vtk_output import output_rows
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
    from phmech.animate import animate
    from phmech.validation import crank_slider
    from phmech.vtk_output import trajectory_geometry
    system, b = crank_slider.build(2)
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

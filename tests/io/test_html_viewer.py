"""The self-contained HTML viewer: its embedded data against the result, and the page run in
headless Chromium (frames change, no script error, no network needed)."""
import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest
from conftest import needs_firedrake
from mechanisms import loaded_clamped_plate, spring_chain_3d

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)),
                None)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")


def embedded(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="phmech-data">(.*?)</script>', text, re.S)
    return text, json.loads(m.group(1))


def dump_dom(path, query="", budget_ms=500):
    """The DOM of the page after ``budget_ms`` of virtual time, with every network request refused."""
    cmd = [CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
           "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9", "--window-size=900,700",
           f"--virtual-time-budget={budget_ms}", "--dump-dom", f"file://{os.path.abspath(path)}{query}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout

    def text_of(id_):
        m = re.search(rf'id="{id_}"[^>]*>(.*?)<', dom, re.S)
        return m.group(1).strip() if m else None
    return {"frame": text_of("frame"), "checksum": text_of("checksum"), "errors": text_of("errors"),
            "time": text_of("time")}


@pytest.fixture(scope="module")
def crank_run():
    from mechanisms import rigid_crank_slider
    s, crank, coupler, slider = rigid_crank_slider()
    return s.simulate(0.04, solver="midpoint", dt=1e-4, dt_out=1e-4), slider


def test_embedded_frames_are_the_result(crank_run, tmp_path):
    """At most ``max_frames`` frames, evenly sampled; the slider's point at the result's position."""
    res, slider = crank_run
    path = res.to_html(str(tmp_path / "crank.html"), max_frames=50)
    text, data = embedded(path)
    assert len(res.t) == 401 and len(data["times"]) == 50
    assert data["times"][0] == res.t[0] and data["times"][-1] == res.t[-1]
    names = [b["name"] for b in data["bodies"]]
    assert names == ["crank", "coupler", "slider"]
    body = data["bodies"][2]
    assert body["kind"] == "vertex" and body["vertices"] == [0]
    rows = [int(np.argmin(np.abs(res.t - t))) for t in data["times"]]
    P = np.array([f[:2] for f in body["frames"]])
    np.testing.assert_allclose(P, res.q(slider)[rows], atol=1e-7 * 0.45)     # seven significant digits
    assert data["planar"] is True
    # nothing to fetch: no address of another resource in the page
    assert not re.search(r"https?:|//cdn|src=|href=|@import|fetch\(|XMLHttpRequest", text)
    assert len(embedded(res.to_html(str(tmp_path / "all.html"), max_frames=None))[1]["times"]) == 401
    with pytest.raises(ValueError, match="to_html: max_frames must be a positive integer or None, got -1"):
        res.to_html(str(tmp_path / "x.html"), max_frames=-1)
    with pytest.raises(ValueError, match=r"to_html: colors given for unknown bodies \['nope'\]"):
        res.to_html(str(tmp_path / "x.html"), colors={"nope": "red"})


@needs_chromium
def test_page_in_headless_chromium(crank_run, tmp_path):
    """Offline in headless Chromium: the first and last frames draw different geometry, playing
    advances the frame, the slider's time label is shown and no script error happens."""
    res, _ = crank_run
    path = res.to_html(str(tmp_path / "crank.html"), max_frames=40)
    first = dump_dom(path, "?frame=0")
    last = dump_dom(path, "?frame=39")
    assert first["errors"] == "" and last["errors"] == "", (first, last)
    assert first["frame"] == "0" and last["frame"] == "39"
    assert first["time"] == "t = 0.00000 s"
    assert float(first["checksum"]) != float(last["checksum"])
    again = dump_dom(path, "?frame=39")
    assert again["checksum"] == last["checksum"]                  # the same frame draws the same
    playing = dump_dom(path, "?play=1", budget_ms=1000)             # 25 frames per second
    assert playing["errors"] == "" and int(playing["frame"]) >= 5, playing


def _network_result():
    return spring_chain_3d()


@needs_chromium
def test_network_page_turns_and_plays(tmp_path):
    """A spatial network: its springs as segments; the page draws different pictures when turned."""
    res = _network_result()
    path = res.to_html(str(tmp_path / "net.html"))
    _, data = embedded(path)
    body = data["bodies"][0]
    assert body["kind"] == "network" and body["segments"] == [2, 0, 0, 1] and body["vertices"] == [0, 1]
    np.testing.assert_allclose(np.reshape(body["frames"][-1], (-1, 3))[:2], res.positions()[-1], atol=1e-6)
    assert data["planar"] is False
    a = dump_dom(path, "?frame=10&yaw=0&pitch=0")
    b = dump_dom(path, "?frame=10&yaw=90&pitch=30")
    assert a["errors"] == "" and b["errors"] == "" and a["checksum"] != b["checksum"]


@needs_firedrake
@needs_chromium
def test_plate_page(tmp_path):
    """A clamped plate as coloured triangles: the embedded deflection is the ParaView one and the
    page draws the frames differently."""
    from phmech.io.pictures import frame_rows, trajectory_parts
    p, res = loaded_clamped_plate()
    path = res.to_html(str(tmp_path / "plate.html"), scale=1e4, max_frames=6)
    _, data = embedded(path)
    body = data["bodies"][0]
    assert body["kind"] == "surface" and len(body["triangles"]) == 3 * 18
    _, _, parts, _ = trajectory_parts(res, frame_rows(len(res.t), None, 6), scale=1e4)
    np.testing.assert_allclose(body["scalar"][-1], parts[-1][0].point_data["deflection"],
                               atol=1e-4 * body["scalar_max"])
    first, last = dump_dom(path, "?frame=0"), dump_dom(path, "?frame=5")
    assert first["errors"] == "" and last["errors"] == "" and first["checksum"] != last["checksum"]


def test_show_outside_and_inside_a_notebook(crank_run, tmp_path, capsys, monkeypatch):
    """Outside a notebook ``show`` writes the page and says where; in one it returns the same page
    inline (an iframe's srcdoc)."""
    import html as html_module

    from phmech.io import html_viewer
    res, _ = crank_run
    path = res.show(str(tmp_path / "shown.html"), max_frames=5)
    assert os.path.isfile(path) and path in capsys.readouterr().out
    temporary = res.show(max_frames=5)
    try:
        assert temporary.endswith(".html") and os.path.isfile(temporary)
    finally:
        os.remove(temporary)
    monkeypatch.setattr(html_viewer, "in_notebook", lambda: True)
    view = res.show(max_frames=5, height=300)
    page = html_module.unescape(re.search(r'srcdoc="(.*?)"', view.data, re.S).group(1))
    assert page == open(path, encoding="utf-8").read()
    assert "height:300px" in view.data and view._repr_html_() == view.data


def test_viewer_options_are_checked(crank_run, tmp_path):
    """Bad options raise one error naming the option and its value; the colouring field is checked."""
    res, _ = crank_run
    with pytest.raises(ValueError, match=r"to_html: no body has the field 'nope'; the fields are \[.*'speed'"):
        res.to_html(str(tmp_path / "x.html"), field="nope")
    with pytest.raises(ValueError, match="to_html: field must be a point-data name, 'speed' or None, got 3"):
        res.to_html(str(tmp_path / "x.html"), field=3)
    with pytest.raises(ValueError, match="to_html: fps must be a positive integer, got 0"):
        res.to_html(str(tmp_path / "x.html"), fps=0)
    with pytest.raises(ValueError, match=r"show: height must be an integer number of pixels in \[100, 4000\], "
                                         "got 5"):
        res.show(str(tmp_path / "x.html"), height=5)
    _, data = embedded(res.to_html(str(tmp_path / "speed.html"), field="speed", max_frames=10))
    assert data["field"]["name"] == "speed" and data["field"]["unit"] == "m/s"
    assert all(len(b["field"]) == 10 for b in data["bodies"])
    assert [j["grounded"] for j in data["joints"]].count(True) >= 2      # the pin and the slide

"""The three.js viewer page in headless Chromium: frames at two times differ, the colours of a field
change with it, no script or console error, and a screenshot matches the stored reference.

Chromium is driven from the command line (``--headless --dump-dom`` for the page's state,
``--screenshot`` for pictures), offline (every host name unresolvable, a dead proxy), with a
budget of virtual time for the page to load and draw; the frame is picked by the address
(``#t=SECONDS``).  Regenerate the reference picture after an intended change of the drawing with
``PHMECH_UPDATE_VIEWER_REFERENCE=1 python -m pytest tests/io/test_html_viewer_browser.py``.
"""
import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest
from png import read_png

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)),
                None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium binary (chromium, chromium-browser or "
                                                         "google-chrome) on PATH: scripts/install.sh installs it")
REFERENCE = os.path.join(os.path.dirname(__file__), "data", "viewer_double_pendulum.png")
UPDATE = os.environ.get("PHMECH_UPDATE_VIEWER_REFERENCE") == "1"
#: the mean absolute difference per channel (0..1) a screenshot may have from the reference: the
#: rasterizer's antialiasing may differ between Chromium builds; a different frame or view differs
#: by several times this (test_frames_differ)
TOLERANCE = 0.006
SIZE = (400, 300)


def chromium(url, tmp, *mode, budget_ms=4000):
    """Run Chromium headless and offline on ``url``: ``(stdout, stderr)``."""
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--use-angle=swiftshader",
           "--enable-unsafe-swiftshader", "--no-first-run", "--disable-extensions", "--hide-scrollbars",
           "--force-device-scale-factor=1", f"--user-data-dir={tmp}/profile",
           "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
           f"--window-size={SIZE[0]},{SIZE[1]}", f"--virtual-time-budget={budget_ms}",
           "--enable-logging=stderr", "--v=0", *mode, url]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, proc.stderr


def console_messages(stderr):
    """The page's console messages in Chromium's log (WebGL's driver notes on read-backs left out)."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line and "GL Driver Message" not in line]


def legend_text(dom):
    """The text of the page's legend (the overlay before the colour bar), its tags left out."""
    m = re.search(r'id="legend"[^>]*>(.*?)<div id="colorbar"', dom, re.S)
    return re.sub(r"<[^>]*>", " ", m.group(1)) if m else ""


def state(path, tmp, address):
    """The page's state after loading ``path`` + ``address``: frame, checksum, errors, drawn colours."""
    dom, log = chromium(f"file://{path}{address}", tmp, "--dump-dom")

    def text_of(id_):
        m = re.search(rf'id="{id_}"[^>]*>(.*?)<', dom, re.S)
        return m.group(1).strip() if m else None

    def attribute(name):
        m = re.search(rf'{name}="([^"]*)"', dom)
        return m.group(1) if m else None
    return {"frame": text_of("frame"), "checksum": text_of("checksum"), "errors": text_of("errors"),
            "n_errors": attribute("data-errors"), "ready": attribute("data-ready"),
            "colours": attribute("data-colours"), "outline": attribute("data-outline"),
            "legend": legend_text(dom),
            "console": console_messages(log)}


def screenshot(path, tmp, address, name):
    """The picture of ``path`` + ``address`` as an array of floats in [0, 1] (RGB), and its file."""
    out = os.path.join(tmp, name)
    _, log = chromium(f"file://{path}{address}", tmp, f"--screenshot={out}")
    assert console_messages(log) == []
    return read_png(out)[..., :3].astype(float) / 255.0, out


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """A rigid spatial double pendulum swinging from rest, its bars coloured by their speed."""
    from phmech.mechanisms.tiny import spatial_double_pendulum
    res = spatial_double_pendulum().simulate(0.6, solver="midpoint", dt=1e-2, dt_out=2e-2)
    tmp = tmp_path_factory.mktemp("viewer")
    return res.to_html(str(tmp / "pendulum.html"), field="speed"), str(tmp)


def test_page_is_offline_and_clean(page):
    """The scripts come from ``data:`` addresses only; the embedded data has no NaN."""
    path, _ = page
    text = open(path, encoding="utf-8").read()
    imports = json.loads(re.search(r'<script type="importmap">(.*?)</script>', text, re.S).group(1))["imports"]
    assert sorted(imports) == ["three", "three/addons/controls/OrbitControls.js"]
    assert all(v.startswith("data:text/javascript;base64,") for v in imports.values())
    data = json.loads(re.search(r'<script type="application/json" id="phmech-data">(.*?)</script>',
                                text, re.S).group(1))
    assert "NaN" not in json.dumps(data) and data["field"]["name"] == "speed"
    assert [j["name"] for j in data["joints"]] == ["shoulder", "elbow"]
    assert [j["grounded"] for j in data["joints"]] == [True, False]
    assert data["planar"] is False and data["field"]["min"] == 0.0 < data["field"]["max"]


def test_frames_differ_and_colours_change(page):
    """Two times draw different geometry and, the bars coloured by speed, different colours; no
    script or console error."""
    path, tmp = page
    start, later = state(path, tmp, "#t=0"), state(path, tmp, "#t=0.6")
    for s in (start, later):
        assert s["ready"] == "1" and s["errors"] == "" and s["n_errors"] is None and s["console"] == [], s
    assert (start["frame"], later["frame"]) == ("0", "30")
    # the legend says that the bars are drawn in the field's colours, not their own
    assert "upper (line, coloured by speed)" in start["legend"], start["legend"]
    assert float(start["checksum"]) != float(later["checksum"])
    assert start["colours"] != later["colours"], (start["colours"], later["colours"])
    a, _ = screenshot(path, tmp, "?ui=0#t=0", "start.png")
    b, _ = screenshot(path, tmp, "?ui=0#t=0.6", "later.png")
    assert a.shape == b.shape == (SIZE[1], SIZE[0], 3)
    assert np.abs(a - b).mean() > 3 * TOLERANCE


def test_screenshot_matches_the_reference(page):
    """The scene at t = 0.4 s (no text drawn: ``?ui=0``) against ``tests/io/data``'s picture."""
    path, tmp = page
    shot, file = screenshot(path, tmp, "?ui=0#t=0.4", "shot.png")
    if UPDATE:
        os.makedirs(os.path.dirname(REFERENCE), exist_ok=True)
        shutil.copyfile(file, REFERENCE)
        pytest.skip(f"reference picture written to {REFERENCE}")
    if not os.path.exists(REFERENCE):
        pytest.fail(f"no reference picture {REFERENCE}: write it with PHMECH_UPDATE_VIEWER_REFERENCE=1")
    ref = read_png(REFERENCE)[..., :3].astype(float) / 255.0
    assert shot.shape == ref.shape
    diff = np.abs(shot - ref).mean()
    assert diff <= TOLERANCE, f"the screenshot differs from {REFERENCE} by {diff:.4f} on average"


def test_surface_coloured_by_its_deflection(tmp_path):
    """A surface (a plate's picture: a square whose deflection changes sign) is drawn coloured by its
    deflection: the colour inside it changes from one end of the swing to the other; its border
    is outlined (the 16 edges of one triangle only)."""
    from phmech.bodies.picture import Part
    from phmech.io.html_viewer import _frames_data, _write_page
    x, y = (a.ravel() for a in np.meshgrid(np.linspace(0, 1, 5), np.linspace(0, 0.6, 5)))
    cells = np.array([c for i in range(4) for j in range(4) for c in
                      ([5 * i + j, 5 * i + j + 1, 5 * i + j + 5], [5 * i + j + 1, 5 * i + j + 6, 5 * i + j + 5])])
    times = np.linspace(0.0, 1.0, 3)
    frames = []
    for t in times:
        w = 0.05 * np.sin(np.pi * x) * np.sin(np.pi * y / 0.6) * np.cos(np.pi * t)
        frames.append([Part("plate", "surface", np.column_stack([x, y, w]), [("triangle", cells)],
                            {"deflection": w})])
    path = _write_page(_frames_data(times, ["plate"], frames, "", 1.0, None, "plate", 25),
                       str(tmp_path / "plate.html"), "test")
    up, down = state(path, str(tmp_path), "#t=0"), state(path, str(tmp_path), "#t=1")
    for s in (up, down):
        assert s["ready"] == "1" and s["errors"] == "" and s["console"] == [], s
    assert up["colours"] != down["colours"] and float(up["checksum"]) != float(down["checksum"])
    assert up["outline"] == "16"

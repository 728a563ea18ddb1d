"""Mode shapes where people look at them: a mode of a hanging pendulum in the HTML viewer
(and its geometry, the same as the ParaView series)."""
import json
import re

import numpy as np

from phmech import PlanarRigidBody, System
from phmech.io.paraview import mode_geometry

L, M, G = 0.8, 1.5, 9.81


def _pendulum():
    rod = PlanarRigidBody.rod("rod", M, L, angle=-np.pi / 2)          # hanging from A at the origin
    s = System([rod])
    s.pin(rod.port("A"))
    s.add_gravity((0.0, -G))
    return s


def test_the_pendulum_mode_swings_the_tip_sideways():
    """About the hanging rest the tip moves horizontally; the largest drawn displacement is
    ``scale`` times the size of the picture; half a period later the motion is reversed."""
    modes = _pendulum().linearize().eigenmodes(k=1)
    assert abs(modes.omega[0] - np.sqrt(1.5 * G / L)) < 1e-9 * modes.omega[0]     # 3 g / (2 L) of a rod
    times, names, frames = mode_geometry(modes, 0, n_frames=8, scale=0.1)
    assert names == ["rod"] and np.allclose(times, 2 * np.pi / modes.omega[0] * np.arange(8) / 8)
    base = mode_geometry(modes, 0, n_frames=8, scale=0.0)[2][0][0]
    tip = np.argmin(base[:, 1])                                                    # the lower end
    d = [f[0][tip] - base[tip] for f in frames]
    assert abs(abs(d[0][0]) - 0.1 * L) < 1e-12 and abs(d[0][1]) < 1e-12           # sideways, scale * size
    assert np.allclose(d[4], -d[0], atol=1e-12)
    assert np.allclose(frames[0][0][base[:, 1].argmax()], base[base[:, 1].argmax()], atol=1e-15)   # the pin stays


def test_mode_html_page(tmp_path):
    modes = _pendulum().linearize().eigenmodes(k=1)
    path = modes.to_html(str(tmp_path / "mode.html"), 0, n_frames=12, scale=0.1)
    text = open(path, encoding="utf-8").read()
    data = json.loads(re.search(r'<script type="application/json" id="phmech-data">(.*?)</script>', text, re.S).group(1))
    assert len(data["times"]) == 12 and data["bodies"][0]["name"] == "rod"
    hz = modes.omega[0] / (2 * np.pi)
    assert f"{hz:.6g} Hz" in data["title"] and "<title>mode 0:" in text
    frames = np.array(data["bodies"][0]["frames"]).reshape(12, -1, 3)
    assert np.ptp(frames[:, :, 0]) > 0.19 * L                                      # it swings

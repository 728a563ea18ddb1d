"""Bodies joined to a deformed body follow its magnified deformation in the pictures (ParaView,
animations, the viewer); the joints' drawn points sit where the two pictures meet."""
import numpy as np
import pytest

from phmech import PlanarRigidBody, PointMass, System
from phmech.io.pictures import frame_rows, trajectory_parts, trajectory_pictures

BEND = np.array([0.0, 0.01, 0.0])          # the stand-in deformation of the arm's tip [m]


def _bent(body):
    """``body`` drawn as a flexible body whose deformation at its last port is ``BEND``: the
    simulated port is the deformed point, the drawing the reference plus ``scale`` times ``BEND``."""
    plain = body.picture

    def picture(t, Q, E, rows, n_points=21, scale=1.0):
        part_of = plain(t, Q, E, rows, n_points, scale)

        def part(k):
            p = part_of(k)
            d = np.zeros_like(p.points)
            d[-1] = BEND
            p.points = p.points + (scale - 1.0) * d
            p.point_data["displacement"] = d
            return p
        return part
    body.picture = picture
    return body


@pytest.fixture(scope="module")
def arm_run():
    """A pinned arm (drawn bent at its tip), a link hanging from its tip, a mass at the link's end
    and a post pinned to the ground holding the tip."""
    arm = _bent(PlanarRigidBody.rod("arm", 1.0, 0.4))
    link = PlanarRigidBody.rod("link", 0.5, 0.2, position=(0.4, 0.0), angle=-np.pi / 2)
    mass = PointMass("mass", 0.2, position=(0.4, -0.2))
    post = PlanarRigidBody.rod("post", 0.5, 0.2, position=(0.4, 0.2), angle=-np.pi / 2)
    s = System([arm, link, mass, post])
    s.pin(arm.port("A"))
    s.connect(arm.port("B"), link.port("A"))
    s.connect(link.port("B"), mass.port("P"))
    s.pin(post.port("A"))
    s.connect(post.port("B"), arm.port("B"), name="prop")         # a grounded body at the tip
    s.add_gravity((0.0, -9.81))
    return s.simulate(0.05, solver="midpoint", dt=1e-3, dt_out=1e-2)


def test_joined_bodies_follow_the_magnified_deformation(arm_run):
    rows = frame_rows(len(arm_run.t))
    _, names, plain, _ = trajectory_parts(arm_run, rows, scale=1.0)
    _, _, big, _, joints = trajectory_pictures(arm_run, rows, scale=10.0)
    arm, link, mass, post = (names.index(n) for n in ("arm", "link", "mass", "post"))
    for k in range(len(rows)):
        tip = big[k][arm].points[-1]
        np.testing.assert_allclose(tip, plain[k][arm].points[-1] + 9 * BEND, atol=1e-12)
        # the link and, through it, the mass move with the drawn tip; the grounded post stays
        np.testing.assert_allclose(big[k][link].points, plain[k][link].points + 9 * BEND, atol=1e-12)
        np.testing.assert_allclose(big[k][mass].points, plain[k][mass].points + 9 * BEND, atol=1e-12)
        np.testing.assert_allclose(big[k][post].points, plain[k][post].points, atol=0)
        np.testing.assert_allclose(big[k][link].points[0], tip, atol=1e-12)     # the joint holds
    by_name = {j.name: j for j in joints}
    assert len(joints) == 5 and sum(j.grounded for j in joints) == 2
    np.testing.assert_allclose(by_name["prop"].points[-1], big[-1][post].points[-1], atol=1e-12)
    assert by_name["prop"].bodies == ["post", "arm"]


def test_scale_one_moves_nothing(arm_run):
    rows = frame_rows(len(arm_run.t))
    _, _, a, _ = trajectory_parts(arm_run, rows, scale=1.0)
    _, _, b, _, joints = trajectory_pictures(arm_run, rows, scale=1.0)
    for fa, fb in zip(a, b):
        for pa, pb in zip(fa, fb):
            np.testing.assert_array_equal(pa.points, pb.points)
    assert all(j.points.shape == (len(rows), 3) for j in joints)

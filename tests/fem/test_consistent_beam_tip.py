"""The end section of the consistent spatial beam in joints: its frame is that of the deformed
tangent and twist, its rotation rows exact (the rates of the joints' position residuals at a
deformed tip, the assembled Jacobian against differences), and a chain of welded beams converges
to the elastica instead of a wrong limit."""
import numpy as np
import pytest

pytest.importorskip("firedrake")

from phmech import SpatialRigidBody, System  # noqa: E402
from phmech.fem.beam3d_nonlinear import NonlinearSpatialBeam  # noqa: E402
from phmech.joints import SpatialJoint, Weld3  # noqa: E402
from phmech.math.rotations import UnitQuaternion  # noqa: E402
from phmech.solvers.static import equilibrium  # noqa: E402

RNG = np.random.default_rng(3)
#: the elastica's tip deflection w / L under a dead tip load P L^2 / EI = 2 (Mattiasson 1981)
ELASTICA_2 = 0.49346


def _probe(fun, x, h=1e-6):
    eye = np.eye(x.size)
    return np.column_stack([(fun(x + h * eye[j]) - fun(x - h * eye[j])) / (2 * h) for j in range(x.size)])


def _deformed_beam_and_box(kind, ground):
    """A consistent beam starting deformed and turned at random, and a box whose port sits at the
    beam's tip: the joint holds at the start."""
    b = NonlinearSpatialBeam("b", 1.0, 3, 1.0, 1.0, 100.0, 0.01, 0.02)
    q0 = b.q0.copy()
    q0[3:7] = np.array((0.9, 0.1, -0.2, 0.3)) / np.linalg.norm((0.9, 0.1, -0.2, 0.3))
    q0[7:] = 0.15 * RNG.standard_normal(b.nq - 7)
    b.q0 = q0
    p = np.array((0.8, 0.3, -0.3, 0.2)) / np.linalg.norm((0.8, 0.3, -0.3, 0.2))
    s_j = np.array((-0.2, -0.1, 0.1))
    box = SpatialRigidBody("box", 0.8, np.diag([0.05, 0.04, 0.06]), orientation=p,
                           position=b.port_position(q0, b.port("B")) - UnitQuaternion.matrix(p) @ s_j,
                           ports={"j": s_j})
    axis = RNG.standard_normal(3)
    opts = {} if kind in ("spherical", "weld") else dict(axis=axis)
    if kind == "universal":
        opts["axis2"] = np.cross(axis, RNG.standard_normal(3))
    if kind == "revolute":
        opts["rate"] = 0.4
    s = System([b] if ground else [b, box])
    j = s.add_joint(SpatialJoint(kind, b.port("B"), None if ground else box.port("j"), name="j", **opts))
    return s, b, j


@pytest.mark.parametrize("ground", (False, True), ids=("to_a_box", "to_the_ground"))
@pytest.mark.parametrize("kind", ("weld", "spherical", "revolute", "universal"))
def test_joint_rows_at_a_deformed_tip_are_the_rates_of_their_residuals(kind, ground):
    """At a deformed tip (random displacement and twist, 0.15 of the length) where the joint holds:
    ``d/dt r(q(t)) = G(q) e`` along the kinematics (the first-order rows miss it by O(1) here), and
    the assembled Jacobian (the rows' derivatives by the tangent, the twist and the gauge
    included) equals central differences."""
    s, b, j = _deformed_beam_and_box(kind, ground)
    dae = s.assemble()
    q = dae.q0.copy()
    r = lambda z: j.position_residual(dae.body_q_getter(z), 0.0)
    assert np.abs(r(q)).max() <= 1e-12
    e, lam = RNG.standard_normal(dae.ne), RNG.standard_normal(dae.nl)
    y = np.r_[q, e, lam]
    qdot = dae.f(0.0, y)[dae.sq]
    h = 1e-6
    rate = (r(q + h * qdot) - r(q - h * qdot)) / (2 * h)
    n = j.n_rows - int(j.driven)
    assert np.abs(rate[:n] - (dae.G(q) @ e)[:n]).max() <= 1e-7 * np.abs(e).max()
    z = q + 0.1 * RNG.standard_normal(q.size)
    y = np.r_[z, e, lam]
    J = dae.jacobian(0.0, y).toarray()
    assert np.abs(J - _probe(lambda x: dae.f(0.0, x), y)).max() <= 1e-6 * max(1.0, np.abs(J).max())


def _chain_tip(n_segments, n_elem=4):
    """``w / L`` of a cantilever of ``n_segments`` welded consistent beams under a dead tip load
    ``P L^2 / EI = 2`` (EI = 1, EA = 1e6)."""
    L = 1.0
    segs = [NonlinearSpatialBeam(f"s{i}", L / n_segments, n_elem, 1.0, 1.0, 1e6, 1e-6, 1e-6,
                                 position=(i * L / n_segments, 0.0, 0.0)) for i in range(n_segments)]
    s = System(segs)
    s.clamp(segs[0].port("A"), name="clamp")
    for i in range(n_segments - 1):
        s.add_joint(Weld3(segs[i].port("B"), segs[i + 1].port("A"), name=f"w{i}"))
    s.apply_force(segs[-1].port("B"), (0.0, -2.0, 0.0), name="P")
    dae = s.assemble()
    q = equilibrium(dae, load_steps=8)[dae.sq]
    residual = max(np.abs(v).max() for v in dae.position_residuals(0.0, q).values())
    last = segs[-1]
    return -last.port_position(q[dae.q_slices[last.name]], last.port("B"))[1] / L, residual


def test_a_chain_of_welded_beams_converges_to_the_elastica():
    """Each segment's frame carries its share of the rotation and the welds hold the deformed
    sections: the chain's tip converges at second order in the segment length (the beams'
    curvature is linear in their frames) to the elastica, w/L = 0.49346 at PL^2/EI = 2 (measured
    errors 0.0848, 0.0201, 0.00496 on 2, 4, 8 segments; the Richardson limit of 4 and 8 is
    0.49339), and the welds' position residuals vanish at the equilibria."""
    w, res = zip(*(_chain_tip(n) for n in (2, 4, 8)))
    err = np.array(w) - ELASTICA_2
    rates = np.log2(err[:-1] / err[1:])
    assert np.all(rates > 1.8), (w, rates)
    assert abs(w[2] + (w[2] - w[1]) / 3 - ELASTICA_2) <= 2e-4
    assert max(res) <= 1e-9


def test_sliding_joints_and_angle_drivers_at_the_tip_are_refused():
    b = NonlinearSpatialBeam("b", 1.0, 2, 1.0, 1.0, 100.0, 0.01, 0.02)
    with pytest.raises(ValueError, match=r"joint 'p': a prismatic joint at port\(s\) \['b.B'\], whose section follows"):
        SpatialJoint("prismatic", b.port("B"), None, axis=(1, 0, 0), name="p")
    with pytest.raises(ValueError, match=r"joint 'm': an angle driver at port\(s\) \['b.B'\]"):
        SpatialJoint("revolute", b.port("B"), None, axis=(0, 0, 1), rate=1.0, angle=lambda t: t, name="m")

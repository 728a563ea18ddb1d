"""The frame kinematics, quaternion rate and frame-rate joint kernels: exact Jacobians against
finite-difference probes, and the formulas against independent ones."""
import numpy as np
from conftest import central_differences
import pytest

from phmech import PlanarRigidBody, PointMass, SpatialRigidBody, System
from phmech.bodies.frames import (PlanarFrames, Points, SpatialFrames, planar_frames_jacobian, planar_frames_qdot,
                                  spatial_frames_jacobian, spatial_frames_qdot)
from phmech.fem.frame_rate import FrameRate
from phmech.math.rotations import UnitQuaternion, quat_multiply, rot2

RNG = np.random.default_rng(11)


def _fd(fun, x, h=1e-6):
    return central_differences(fun, x, h)


def test_planar_frames_kernel_is_the_rotated_velocity_and_its_jacobian_is_exact():
    """Two frames in one vector (interleaved indices): ``(x, y)' = R(theta) v``, ``theta' = omega``
    against the rotation matrix, and the kernel's Jacobian against central differences."""
    q, e = RNG.normal(size=7), RNG.normal(size=8)
    pq = np.array([[4, 0], [6, 1], [5, 3]], np.int64)
    pe = np.array([[7, 0], [2, 1], [5, 6]], np.int64)
    out = np.full(7, np.nan)
    planar_frames_qdot(q, e, pq, pe, out)
    for k in range(2):
        # two products of the same numbers summed in another order: a few eps of |v| per component
        # (a component near zero has no relative accuracy)
        v = e[pe[:2, k]]
        assert np.max(np.abs(out[pq[:2, k]] - rot2(q[pq[2, k]]) @ v)) <= 8 * np.finfo(float).eps * np.linalg.norm(v)
        assert out[pq[2, k]] == e[pe[2, k]]
    T = np.empty((2, 3, 6))
    planar_frames_jacobian(q, e, pq, pe, T)
    for k in range(2):
        def local(x, k=k):
            qq, ee = q.copy(), e.copy()
            qq[pq[:, k]], ee[pe[:, k]] = x[:3], x[3:]
            o = np.empty(7)
            planar_frames_qdot(qq, ee, pq, pe, o)
            return o[pq[:, k]]
        x0 = np.r_[q[pq[:, k]], e[pe[:, k]]]
        assert np.allclose(T[k], _fd(local, x0), rtol=0, atol=1e-8)


def test_spatial_frames_kernel_against_the_quaternion_product():
    """``p' = 1/2 p (x) (0, omega)`` by the quaternion product, ``r' = R(p) v`` for a quaternion of
    any norm; the 7 x 13 Jacobian against central differences; UnitQuaternion.rate and its
    Jacobians are the same kernel's values."""
    p = RNG.normal(size=4) * 1.3
    q, e = np.r_[RNG.normal(size=3), p], RNG.normal(size=6)
    o = np.zeros(1, np.int64)
    out = np.empty(7)
    spatial_frames_qdot(q, e, o, o, out)
    R = UnitQuaternion.matrix(p)
    assert np.allclose(out[:3], R @ e[:3], rtol=1e-13, atol=0)
    assert np.allclose(out[3:], 0.5 * quat_multiply(p, np.r_[0.0, e[3:]]), rtol=1e-13, atol=1e-15)
    assert np.array_equal(UnitQuaternion.rate(p, e[3:]), out[3:])
    T = np.empty((1, 7, 13))
    spatial_frames_jacobian(q, e, o, o, T)

    def f(x):
        r = np.empty(7)
        spatial_frames_qdot(x[:7], x[7:], o, o, r)
        return r
    assert np.allclose(T[0], _fd(f, np.r_[q, e]), rtol=0, atol=1e-8)
    Tp, Tw = UnitQuaternion.rate_jacobians(p, e[3:])
    assert np.array_equal(Tp, T[0, 3:, 3:7]) and np.array_equal(Tw, T[0, 3:, 10:])
    assert np.array_equal(UnitQuaternion.omega_matrix(e[3:]), Tp)


@pytest.mark.parametrize("Group", [PlanarFrames, Points, SpatialFrames])
def test_kinematics_groups_give_the_bodies_own_kinematics(Group):
    """A group of two bodies evaluates each body's qdot and, as triplets, its qdot_jacobians: the
    bodies and the groups call the same kernels at their own offsets."""
    bodies = {PlanarFrames: lambda i: PlanarRigidBody.rod(f"b{i}", 1.0 + i, 0.5),
              Points: lambda i: PointMass(f"b{i}", 1.0, position=(0.0, 0.0, 0.0)[:2 + i]),
              SpatialFrames: lambda i: SpatialRigidBody.bar(f"b{i}", 1.0, (0, 0, 0), (1.0, i, 0.5))}[Group]
    b = [bodies(0), bodies(1)]
    nq = b[0].nq + b[1].nq + 1
    ne = b[0].ne + b[1].ne + 2
    items = [(1, 2), (1 + b[0].nq, 2 + b[0].ne)]
    g = Group(items, b)
    q, e = RNG.normal(size=nq), RNG.normal(size=ne)
    out = np.full(nq, np.nan)
    g(q, e, out)
    r, c, v = g.jacobian_triplets(q, e, nq)
    J = np.zeros((nq, nq + ne))
    np.add.at(J, (r, c), v)
    for (oq, oe), body in zip(items, b):
        sq, se = slice(oq, oq + body.nq), slice(oe, oe + body.ne)
        assert np.allclose(out[sq], body.qdot(q[sq], e[se]), rtol=1e-14, atol=0)
        Tq, Te = body.qdot_jacobians(q[sq], e[se])
        assert np.allclose(J[sq, sq], Tq, rtol=1e-14, atol=0)
        assert np.allclose(J[sq, nq + se.start:nq + se.stop], Te, rtol=1e-14, atol=0)


def _frame_rate_system(consistent):
    """A consistent beam (or a rigid rod) on a hub driven by a frame-rate joint, and a second rod
    coupled to it by a frame-rate joint between bodies."""
    if consistent:
        from phmech.fem.beam_nonlinear import NonlinearFloatingBeam
        a = NonlinearFloatingBeam("a", 1.0, 2, 2700.0, 1e-4, 7e10, 1e-9, frame="cantilever")
    else:
        a = PlanarRigidBody.rod("a", 1.0, 1.0)
    b = PlanarRigidBody.rod("b", 0.5, 0.4, position=(1.0, 0.0))
    s = System([a, b])
    s.pin(a.port("A"), name="hub")
    s.connect(a.port("B"), b.port("A"), name="knee")
    s.add_joint(FrameRate(a, rate=lambda t: 0.5 + t, name="drive"))
    s.add_joint(FrameRate(b, a, rate=0.2, name="coupling"))
    return s


@pytest.mark.parametrize("consistent", [False, True])
def test_frame_rate_rows_and_their_exact_derivatives(consistent):
    """The frame-rate rows are ``theta_a' - theta_b'`` with ``theta'`` the kinematics' own angle rate
    (an independent evaluation: the bodies' qdot), and the group's derivative triplets equal
    central differences of ``G(q) e`` and ``G(q)^T lam``."""
    dae = _frame_rate_system(consistent).assemble()
    [g] = [g for g in dae.joint_groups if type(g).__name__ == "FrameRateGroup"]
    L = dae.layout
    q = dae.q0 + 1e-2 * RNG.normal(size=dae.nq)
    e, lam = RNG.normal(size=dae.ne), RNG.normal(size=dae.nl)
    qdot = np.empty(dae.nq)
    dae.kinematics.qdot_into(q, e, qdot)
    theta_rate = {n: qdot[L.q_slices[n].start + 2] for n in ("a", "b")}
    Ge = dae.G(q) @ e
    assert np.isclose(Ge[L.lam_slices["drive"]][0], theta_rate["a"], rtol=1e-14, atol=0)
    assert np.isclose(Ge[L.lam_slices["coupling"]][0], theta_rate["b"] - theta_rate["a"], rtol=1e-13, atol=0)
    (tr, tc, tv), (er, ec, ev) = g.jacobian_triplets(q, e, lam)
    A, B = np.zeros((dae.ne, dae.nq)), np.zeros((dae.nl, dae.nq))
    np.add.at(A, (tr, tc), tv)
    np.add.at(B, (er, ec), ev)

    def G_of(qq):
        G = np.zeros((dae.nl, dae.ne))
        g.add_G(qq, G)
        return G
    assert np.allclose(A, _fd(lambda qq: G_of(qq).T @ lam, q), rtol=0, atol=1e-8 * max(1.0, np.abs(A).max()))
    assert np.allclose(B, _fd(lambda qq: G_of(qq) @ e, q), rtol=0, atol=1e-8 * max(1.0, np.abs(B).max()))
    if consistent:
        assert np.abs(A).max() > 0 and np.abs(B).max() > 0     # the consistent beam's gauge acts


@pytest.mark.parametrize("consistent", [False, True])
def test_frame_rate_joints_run_compiled(consistent):
    """With frame-rate joints the whole residual is the kernel, and its dense Jacobian equals
    central differences of f."""
    dae = _frame_rate_system(consistent).assemble()
    c = dae.compiled_residual()
    assert c.path == "compiled" and c.leftovers == []
    y = dae.initial_state() + 1e-2 * RNG.normal(size=dae.n)
    Jc = c.jacobian(y, 0.3)
    row = np.maximum(np.max(np.abs(Jc), axis=1, keepdims=True), 1e-300)
    if not consistent:           # (the beam's stress rows span too many orders for a plain probe)
        Jfd = _fd(lambda yy: dae.f(0.3, yy), y)
        assert np.max(np.abs(Jc - Jfd) / row) <= 1e-7


def test_a_bad_frame_rate_gauge_is_refused_naming_the_joint_and_the_body():
    """A body whose frame-rate gauge does not have one finite entry per q is refused at assembly."""
    class Odd(PlanarRigidBody):
        def frame_rate_gauge(self):
            return np.array([0.0, np.nan, 0.0])

    a = Odd("odd", 1.0, 0.1)
    s = System([a])
    s.add_joint(FrameRate(a, rate=1.0, name="drive"))
    with pytest.raises(ValueError, match=r"joint 'drive': body 'odd' gives the frame-rate gauge .*nan.*; "
                                         r"it needs 3 finite numbers"):
        s.assemble()

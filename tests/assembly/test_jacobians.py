"""Every contribution's exact Jacobian against a central-difference probe, and the
spatial joints' rows against the motions each joint allows."""
import numpy as np
import pytest

from phmech import PlanarRigidBody, PointMass, SpatialRigidBody, System
from phmech.joints import SpatialJoint
from phmech.math.rotations import UnitQuaternion, quat_from_axis_angle, rot3, skew

from mechanisms import rigid_crank_slider

RNG = np.random.default_rng(7)
KINDS = ["spherical", "revolute", "universal", "prismatic", "cylindrical", "weld"]


def probe(fun, x, h=1e-6):
    """Central differences of ``fun`` at ``x`` (columns)."""
    f0 = fun(x)
    out = np.zeros((f0.size, x.size))
    for i in range(x.size):
        d = np.zeros_like(x)
        d[i] = h * max(1.0, abs(x[i]))
        out[:, i] = (fun(x + d) - fun(x - d)) / (2 * d[i])
    return out


def assert_jacobian(dae, t, y, rel=1e-6):
    J = dae.jacobian(t, y).toarray()
    Jfd = probe(lambda z: dae.f(t, z), y)
    err = np.abs(J - Jfd)
    assert np.max(err) < rel * max(1.0, np.max(np.abs(J))), np.unravel_index(np.argmax(err), err.shape)


def random_quaternion():
    p = RNG.normal(size=4)
    return p / np.linalg.norm(p)


def two_bodies(kind, driven=False, ground=False):
    """Two spatial rigid bodies in a random configuration consistent with one joint at ``c``."""
    c = RNG.normal(size=3)
    pa, pb = random_quaternion(), random_quaternion()
    A = SpatialRigidBody("A", 1.3, np.diag([0.1, 0.2, 0.25]), center=(0.1, 0.2, -0.1), orientation=pa,
                         position=c - rot3(pa) @ np.array([0.3, -0.2, 0.5]), ports={"j": (0.3, -0.2, 0.5)})
    B = SpatialRigidBody("B", 0.7, np.diag([0.05, 0.04, 0.06]), center=(-0.2, 0.0, 0.1), orientation=pb,
                         position=c - rot3(pb) @ np.array([-0.4, 0.1, 0.2]), ports={"j": (-0.4, 0.1, 0.2)})
    axis = RNG.normal(size=3)
    opts = dict(axis=axis) if kind != "spherical" and kind != "weld" else {}
    if kind == "universal":
        opts["axis2"] = np.cross(axis, RNG.normal(size=3))
    if driven:
        opts.update(rate=lambda t: 0.3 + 0.1 * t, angle=lambda t: 0.3 * t + 0.05 * t**2)
    s = System([A] if ground else [A, B])
    j = s.add_joint(SpatialJoint(kind, A.port("j"), None if ground else B.port("j"), name="joint", **opts))
    return s, A, B, j, axis / np.linalg.norm(axis)


def test_planar_system_jacobian_with_loads_and_gravity():
    s, crank, coupler, slider = rigid_crank_slider()
    s.add_gravity((0.0, -9.81))
    s.apply_force(coupler.port("B"), lambda t: (np.sin(t), 2.0), frame="inertial", name="f_in")
    s.apply_force(coupler.port("A"), (0.5, -1.0), frame="body", name="f_body")
    s.apply_moment(crank.port("B"), lambda t: 3.0 * t, name="m")
    s.add_damper(coupler.port("B"), 0.7)
    dae = s.assemble()
    y = dae.initial_state() + RNG.normal(size=dae.n) * 0.3
    assert_jacobian(dae, 0.013, y)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("ground", [False, True])
def test_spatial_joint_jacobians(kind, ground):
    s, A, B, j, _ = two_bodies(kind, driven=kind in ("revolute", "cylindrical"), ground=ground)
    s.add_gravity((0.0, 0.0, -9.81))
    s.apply_force(A.port("j"), lambda t: (1.0, -2.0 * t, 0.5), name="force")
    s.apply_moment(A.port("P"), lambda t: (0.1, 0.2, -0.3 * t), name="moment")
    s.apply_moment(A.port("P"), (0.3, 0.0, 0.1), frame="body", name="body moment")
    s.add_damper(A.port("j"), 0.4)
    dae = s.assemble()
    y = dae.initial_state() + RNG.normal(size=dae.n) * 0.2
    assert_jacobian(dae, 0.4, y)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("ground", [False, True])
def test_compiled_spatial_joint_jacobians(kind, ground):
    """The compiled residual of each spatial joint (drivers on the revolute and cylindrical
    ones) is the whole residual, and its dense Jacobian matches a central-difference probe."""
    pytest.importorskip("numba")
    s, A, B, j, _ = two_bodies(kind, driven=kind in ("revolute", "cylindrical"), ground=ground)
    s.add_gravity((0.0, 0.0, -9.81))
    dae = s.assemble()
    c = dae.compiled_residual()
    assert c.pure and c.path == "compiled"
    y = dae.initial_state() + RNG.normal(size=dae.n) * 0.2
    J = c.jacobian(y, 0.4)
    Jfd = probe(lambda z: c.f(0.4, z), y)
    assert np.max(np.abs(J - Jfd)) < 1e-6 * max(1.0, np.max(np.abs(J)))


def test_body_kinematics_jacobians():
    b = SpatialRigidBody("b", 1.0, np.eye(3), orientation=random_quaternion())
    q = b.q0 + RNG.normal(size=7) * 0.1          # also off the unit sphere
    e = RNG.normal(size=6)
    Tq, Te = b.qdot_jacobians(q, e)
    assert np.allclose(Tq, probe(lambda z: b.qdot(z, e), q), atol=1e-8)
    assert np.allclose(Te, probe(lambda z: b.qdot(q, z), e), atol=1e-8)
    idx, dR = b.rotation_derivatives(q)
    for k, i in enumerate(idx):
        d = np.zeros(7)
        d[i] = 1e-6
        assert np.allclose(dR[k], (b.rotation(q + d) - b.rotation(q - d)) / 2e-6, atol=1e-8)
    p = PlanarRigidBody.rod("p", 1.0, 1.0, angle=0.3)
    qp, ep = p.q0 + 0.1, RNG.normal(size=3)
    Tq, Te = p.qdot_jacobians(qp, ep)
    assert np.allclose(Tq, probe(lambda z: p.qdot(z, ep), qp), atol=1e-8)


def allowed_motion(kind, A, B, axis_A, cross_B):
    """Efforts of A and B for a random motion the joint allows (A moves arbitrarily)."""
    qa, qb = A.q0, B.q0
    Ra, Rb = rot3(qa[3:]), rot3(qb[3:])
    ea = RNG.normal(size=6)
    wa = Ra @ ea[3:]                                          # inertial angular velocity of A
    va = Ra @ (A.port("j").Y @ ea)                            # inertial port velocity of A
    axis = Ra @ axis_A
    s1, s2 = RNG.normal(size=2)
    wb = {"spherical": wa + RNG.normal(size=3), "revolute": wa + s1 * axis,
          "universal": wa + s1 * axis + s2 * (Rb @ cross_B), "prismatic": wa,
          "cylindrical": wa + s1 * axis, "weld": wa}[kind]
    vb = va + (s2 * axis if kind in ("prismatic", "cylindrical") else 0.0)
    # body-frame efforts of B from its port velocity and angular velocity
    wB = Rb.T @ wb
    vP = Rb.T @ vb - np.cross(wB, B.port("j").position)
    return np.r_[ea, vP, wB]


@pytest.mark.parametrize("kind", KINDS)
def test_spatial_joint_rows_allow_exactly_the_joint_motions(kind):
    for _ in range(3):
        s, A, B, j, axis = two_bodies(kind)
        dae = s.assemble()
        q = dae.q0
        G = dae.G(q)
        axis_A = j.axis_A if j.axis is not None else np.zeros(3)
        cross_B = getattr(j, "cross_B", np.zeros(3))
        for _ in range(5):
            e = allowed_motion(kind, A, B, axis_A, cross_B)
            assert np.max(np.abs(G @ e)) < 1e-12 * np.max(np.abs(e)) * 10
        # and no more: the rows are independent (12 - n_rows motions allowed)
        assert np.linalg.matrix_rank(G, tol=1e-10) == j.n_rows


@pytest.mark.parametrize("kind", KINDS)
def test_spatial_joint_rows_are_rates_of_the_position_residuals(kind):
    """d/dt r(q(t)) = G(q) e along q' = T(q) e at a consistent configuration: the rows are integrable."""
    s, A, B, j, _ = two_bodies(kind, driven=kind in ("revolute", "cylindrical"))
    dae = s.assemble()
    q = dae.q0.copy()
    e = RNG.normal(size=dae.ne)
    qdot = dae.f(0.0, np.r_[q, e, np.zeros(dae.nl)])[dae.sq]
    h = 1e-6
    r = lambda qq: j.position_residual(dae.body_q_getter(qq), 0.0)
    rate = (r(q + h * qdot) - r(q - h * qdot)) / (2 * h)
    Ge = dae.G(q) @ e
    assert np.allclose(rate, Ge, atol=1e-7 * np.max(np.abs(e)))


def test_quaternion_rotation_ignores_the_norm():
    p = random_quaternion()
    assert np.allclose(rot3(3.7 * p), rot3(p))
    assert np.allclose(rot3(p) @ rot3(p).T, np.eye(3))
    Om = UnitQuaternion.omega_matrix(RNG.normal(size=3))
    assert np.allclose(Om, -Om.T)   # |p| is an invariant of p' = Omega p
    # the body-frame angular velocity from p' recovers omega: R' = R S(omega)
    w = RNG.normal(size=3)
    pdot = UnitQuaternion.rate(p, w)
    idx_dR = UnitQuaternion.derivatives(p)
    Rdot = np.einsum("k,kij->ij", pdot, idx_dR)
    assert np.allclose(Rdot, rot3(p) @ skew(w))
    assert np.allclose(rot3(quat_from_axis_angle((0, 0, 1), np.pi / 2)) @ [1, 0, 0], [0, 1, 0])


def test_revolute_driver_prescribes_the_relative_angle():
    """A spatial bar on a driven revolute joint to the ground follows angle(t) = 0.5 sin(2t)."""
    bar = SpatialRigidBody.bar("bar", 2.0, (0, 0, 0), (0.4, 0.3, 0.0))
    s = System([bar])
    j = s.add_joint(SpatialJoint("revolute", bar.port("A"), None, axis=(0.2, -0.1, 1.0),
                                 rate=lambda t: np.cos(2 * t), angle=lambda t: 0.5 * np.sin(2 * t),
                                 name="motor"))
    s.add_gravity((0.0, -9.81, 0.0))
    errs = []
    for dt in (4e-3, 2e-3, 1e-3):
        r = s.simulate(1.0, dt=dt, constraints="endpoint")
        ang = np.array([j.relative_angle(s.assemble().body_q_getter(y[s.assemble().sq])) for y in r.y])
        errs.append(np.max(np.abs(ang - 0.5 * np.sin(2 * r.t))))
    assert errs[-1] < 1e-5
    assert np.log2(errs[0] / errs[1]) > 1.8 and np.log2(errs[1] / errs[2]) > 1.8


@pytest.mark.parametrize("kind", ["planar", "spatial"])
def test_sparse_G_path_equals_dense(kind, monkeypatch):
    """Large systems assemble G and its derivatives sparsely; both paths give the same DAE."""
    import phmech.assembly.dae as dae_module

    def build():
        if kind == "planar":
            s, crank, coupler, slider = rigid_crank_slider()
            s.add_gravity((0.0, -9.81))
        else:
            s = two_bodies("cylindrical", driven=True)[0]
            s.add_gravity((0.0, 0.0, -9.81))
        return s

    system = build()
    dense = system.assemble()
    monkeypatch.setattr(dae_module, "DENSE_G_MAX", 0)
    sparse = dae_module.DescriptorDAE(system)
    assert not sparse.dense_G and dense.dense_G
    y = dense.initial_state() + RNG.normal(size=dense.n) * 0.1
    fd, fs = dense.f(0.2, y), sparse.f(0.2, y)
    assert np.max(np.abs(fd - fs)) < 1e-13 * np.max(np.abs(fd))
    Jd, Js = dense.jacobian(0.2, y), sparse.jacobian(0.2, y)
    assert abs(Jd - Js).max() < 1e-13 * abs(Jd).max()
    assert_jacobian(sparse, 0.2, y)
    assert np.allclose(sparse.initial_state(), dense.initial_state(), atol=1e-12)


def test_body_effort_terms_hook():
    """A body with a nonlinear internal force through the effort-terms hook: a point mass on a
    cubic spring to the origin (f = -k |x|^2 x); exact Jacobian and conserved energy
    with the spring energy k |x|^4 / 4."""
    class CubicSpringMass(PointMass):
        has_effort_terms = True
        k = 40.0

        def effort_terms(self, t, q, e):
            x = q[:self.dim]
            f = -self.k * (x @ x) * x
            Dq = -self.k * ((x @ x) * np.eye(self.dim) + 2 * np.outer(x, x))
            return f, Dq, None

    m = CubicSpringMass("m", 0.5, position=(0.3, -0.2, 0.1))
    s = System([m])
    dae = s.assemble()
    y = dae.initial_state(e0=np.array([0.4, 0.1, -0.2]))
    assert_jacobian(dae, 0.0, y + RNG.normal(size=dae.n) * 0.1)
    r = s.simulate(2.0, y0=y, solver="radau", rtol=1e-10, atol=1e-10)
    x = r.q(m)
    E = r.hamiltonian() + m.k / 4 * np.sum(x**2, axis=1) ** 2
    assert np.ptp(E) < 1e-8 * E[0]


def test_the_sparse_jacobian_of_a_large_model_against_differences():
    """Above the dense limit (a chain of 36 bars on spherical joints with a spring-damper and
    a body-frame load: 36 * 13 + 108 = 576 unknowns) the Jacobian is the kernels' entries
    scattered into their CSR pattern: against central differences of the residual."""
    from phmech.assembly.dae import DENSE_JACOBIAN_MAX
    from mechanisms import spherical_chain
    s = spherical_chain(36)
    s.add_spring(s.bodies[3].port("B"), s.bodies[20].port("A"), stiffness=4.0, damping=0.3, rest_length=9.0,
                 name="tie")
    s.apply_force(s.bodies[30].port("B"), lambda t: (0.2, np.sin(t), 0.1), frame="body", name="push")
    dae = s.assemble()
    assert dae.n > DENSE_JACOBIAN_MAX
    y = dae.initial_state() + 1e-2 * RNG.standard_normal(dae.n)
    J = dae.jacobian(0.3, y)
    assert J.nnz < 0.05 * dae.n ** 2
    assert_jacobian(dae, 0.3, y)

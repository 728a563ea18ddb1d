"""Loads of the packed form: their own force is the kernel's, equal to ``A^T R(q)^T u(t)`` written
out with the rotation matrices, with exact derivatives; a distributed plate load runs compiled."""
import numpy as np
from conftest import central_differences
import pytest
import scipy.sparse as sp

from phmech import PlanarRigidBody, PointMass, SpatialRigidBody, System
from phmech.bodies import FixedBody
from phmech.forces.loads import Gravity, Load, PortForce, PortMoment
from phmech.math.rotations import rot2, rot3

RNG = np.random.default_rng(7)


def _fd(fun, x, h=1e-6):
    return central_differences(fun, x, h)


def _loads():
    """Every kind of packed load: planar and spatial, inertial and body frame, point mass, gravity."""
    rod = PlanarRigidBody.rod("rod", 1.2, 0.7)
    box = SpatialRigidBody.bar("box", 2.0, (0, 0, 0), (0.5, 0.2, 0.1), section=(0.1, 0.2))
    point = PointMass("point", 0.3, position=(0.0, 0.0, 1.0))
    u2, u3 = (lambda t: (np.sin(t), 0.5 + t)), (lambda t: (0.2, -np.cos(t), 1.0 + t))
    return [PortForce(rod.port("B"), u2), PortForce(rod.port("B"), u2, frame="body"),
            PortMoment(rod.port("A"), lambda t: 0.3 * t), Gravity(rod, (0.0, -9.81)),
            PortForce(box.port("B"), u3), PortForce(box.port("B"), u3, frame="body"),
            PortMoment(box.port("A"), u3), PortMoment(box.port("A"), u3, frame="body"),
            Gravity(box, (0.0, 0.0, -9.81)), PortForce(point.port("P"), u3), Gravity(point, (1.0, 0.0, -9.81))]


@pytest.mark.parametrize("k", range(11))
def test_packed_load_force_is_the_rotated_input(k):
    """``force = A^T R(q)^T u(t)`` (inertial) or ``A^T u(t)`` (body frame) by the rotation matrix of
    the body's own parameters (a quaternion of any norm), and ``force_q`` equals central differences."""
    ld = _loads()[k]
    assert ld.kernel_slot == "port_loads"
    body = ld.body
    q = body.q0 + 0.3 * RNG.normal(size=body.nq)
    t = 0.37
    u = np.asarray(ld.fun(t), float)
    if ld.inertial:
        R = rot2(q[2]) if body.dim == 2 else rot3(q[3:7])
        u = R.T @ u
    assert np.allclose(ld.force(t, q), np.asarray(ld.A).T @ u, rtol=1e-13, atol=1e-14)
    Dq = ld.force_q(t, q)
    if not ld.inertial:
        assert Dq is None
    else:
        assert np.allclose(Dq, _fd(lambda x: ld.force(t, x), q), rtol=0, atol=1e-8)


class _Drag(Load):
    """A user's load with its own force: quadratic drag ``-c |v| v`` on the body-frame velocity of
    the frame origin (not of the packed form)."""

    def __init__(self, body, c):
        self.name, self.body, self.c = f"drag({body.name})", body, c
        self.cols = np.arange(2)
        self.A = np.eye(2)

    def force(self, t, q, e=None):
        v = e[:2]
        return -self.c * np.linalg.norm(v) * v

    def force_q(self, t, q, e=None):
        return None

    def force_e(self, t, q, e=None):
        v = e[:2]
        n = np.linalg.norm(v)
        D = np.zeros((2, self.body.ne))
        D[:, :2] = -self.c * (n * np.eye(2) + (np.outer(v, v) / n if n > 0 else 0.0))
        return D


def test_loads_with_their_own_force_are_not_packed_and_are_added_once():
    """A user's load with its own force is not of the packed form (its slot is None): a leftover,
    added once to the kernels' residual by its own force (the packed loads, gravity and a force,
    counted once), its derivative by its own force_e in the Jacobian (against a probe)."""
    def system(drag):
        rod = PlanarRigidBody.rod("rod", 1.0, 1.0)
        s = System([rod])
        s.pin(rod.port("A"))
        s.add_gravity((0.0, -9.81))
        s.apply_force(rod.port("B"), lambda t: (t, 1.0))
        if drag:
            s.add_load(_Drag(rod, 0.4))
        return s

    s, plain = system(True), system(False).assemble()
    assert s.loads[-1].kernel_slot is None
    dae = s.assemble()
    c = dae.compiled_residual()
    if c is not None:
        assert c.path == "python" and c.leftovers == [f"load '{s.loads[-1].name}'"]
    y = RNG.normal(size=dae.n)
    v = y[dae.se][:2]
    drag = np.zeros(dae.n)
    drag[dae.nq:dae.nq + 2] = -0.4 * np.linalg.norm(v) * v
    assert np.allclose(dae.f(0.4, y), plain.f(0.4, y) + drag, rtol=1e-14, atol=1e-14)
    h = 1e-6
    Jfd = np.column_stack([(dae.f(0.4, y + h * u) - dae.f(0.4, y - h * u)) / (2 * h) for u in np.eye(dae.n)])
    assert np.max(np.abs(dae.jacobian(0.4, y).toarray() - Jfd)) < 1e-7 * np.max(np.abs(Jfd))
    assert dae.power(0.4, y) == pytest.approx(sum(dae.power_terms(0.4, y).values()), rel=1e-12, abs=1e-12)


class _Membrane(FixedBody):
    """A fixed body of four effort variables (stand-in for a plate's velocity and stress efforts)."""

    def __init__(self):
        super().__init__("membrane")
        self.M = sp.diags([1.0, 2.0, 3.0, 4.0]).tocsr()
        self.J0 = sp.csr_matrix(np.array([[0, 0, 1.0, 0], [0, 0, 0, 2.0], [-1.0, 0, 0, 0], [0, -2.0, 0, 0]]))
        self.add_port("P", np.eye(2, 4))


def test_a_distributed_plate_load_runs_compiled():
    """``PlateLoad`` (``f(t) b`` on a fixed body) is of the packed form: the model runs the compiled
    residual, whose effort rows are ``J0 e + f(t) b``."""
    from phmech.fem.plate import PlateLoad
    body = _Membrane()
    b = np.array([0.5, 0.0, -1.5, 0.0])
    s = System([body])
    s.add_load(PlateLoad(body, b, lambda t: np.cos(3 * t)))
    dae = s.assemble()
    c = dae.compiled_residual()
    assert c.path == "compiled" and c.leftovers == []
    y = RNG.normal(size=dae.n)
    assert np.allclose(c.f(0.2, y), body.J0 @ y + np.cos(0.6) * b, rtol=1e-14, atol=1e-15)

"""The compiled contact kinematics and the compiled impact bodies: gaps against the bodies' own
port geometry, force directions and friction velocities against finite-difference probes of the
motion of the material contact points, the kinematics Jacobian of discs and tops against
finite differences, the top's Euler term against its formula, and the compiled path."""
import ast
import os

import numpy as np
import pytest

from phmech import System
from phmech.bodies.rigid import PlanarRigidBody, PointMass, SpatialRigidBody
from phmech.contact import NonsmoothProblem, PointPlane, SphereSphere, tangents
from phmech.contact.bodies import Disc, Top

EPS = 1e-6


def _unit(v):
    v = np.asarray(v, float)
    return v / np.linalg.norm(v)


def _mixed():
    """Planar and spatial bodies of every port kind with plane and sphere contacts, with and
    without friction and Contensou's drilling friction."""
    disc = Disc("disc", 1.0, 0.005, position=(0.1, 0.3), angle=0.4, ports={"rim": (0.05, 0.02)})
    bar = PlanarRigidBody.rod("bar", 2.0, 0.5, position=(0.4, 0.2), angle=0.3)
    pm = PointMass("pm", 0.5, position=(-0.3, 0.4))
    top = Top("top", 0.1, [[1e-4, 1e-5, 0.0], [1e-5, 1.2e-4, 2e-6], [0.0, 2e-6, 2e-4]], position=(0.0, 0.0, 0.3),
              orientation=_unit((0.9, 0.1, -0.2, 0.3)), ports={"s": (0.01, 0.0, -0.02)})
    box = SpatialRigidBody("box", 2.0, (0.1, 0.2, 0.3), center=(0.1, 0.0, 0.05), ports={"k": (0.2, 0.1, -0.1)},
                           position=(0.2, 0.1, 0.5), orientation=_unit((0.8, 0.3, 0.1, -0.2)))
    pm3 = PointMass("pm3", 0.5, position=(0.3, -0.1, 0.2))
    contacts = [PointPlane(disc.port("rim"), (0.2, 1.0), radius=0.05, mu=0.3, name="c1"),
                PointPlane(bar.port("B"), (-1.0, 0.5), point=(1.0, 0.0), radius=0.02, mu=0.2, name="c2"),
                SphereSphere(bar.port("A"), pm.port("P"), 0.05, 0.04, name="c3"),
                SphereSphere(disc.port("C"), bar.port("B"), 0.1, 0.02, mu=0.4, name="c4"),
                PointPlane(top.port("s"), (0.0, 0.1, 1.0), radius=0.01, mu=0.3, contensou_radius=1e-3, name="c5"),
                SphereSphere(top.port("s"), box.port("k"), 0.01, 0.03, mu=0.3, contensou_radius=2e-3, name="c6"),
                SphereSphere(box.port("k"), pm3.port("P"), 0.01, 0.03, mu=0.3, name="c7"),
                PointPlane(box.port("k"), (0.3, 0.1, 1.0), point=(0.0, 0.0, -0.1), radius=0.02, mu=0.5, name="c8")]
    return NonsmoothProblem(System([disc, bar, pm, top, box, pm3]), contacts)


def _rotation(body, q):
    R = body.rotation(q)
    if R.shape == (2, 2):
        R3 = np.eye(3)
        R3[:2, :2] = R
        return R3
    return R


def _material_point(p, q_ref, port, offset):
    """Inertial position at ``q`` of the material point of ``port``'s body that sits at the
    inertial ``offset`` from the port at ``q_ref`` (the bodies' own Python geometry)."""
    body = port.body
    get = p.dae.layout.q_getter
    qb_ref = get(q_ref)(body)
    local = _rotation(body, qb_ref).T @ np.r_[offset, 0.0][:3]

    def at(q):
        qb = get(q)(body)
        return body.port_position(qb, port) + (_rotation(body, qb) @ local)[:port.dim]
    return at


def _angular_velocity(body, qp, qm, dt):
    """Inertial angular velocity from the rotations at ``q -+ dt/2 T u`` (skew part of R' R^T)."""
    Rp, Rm = _rotation(body, qp), _rotation(body, qm)
    S = (Rp - Rm) / dt @ (0.5 * (Rp + Rm)).T
    return np.array([S[2, 1] - S[1, 2], S[0, 2] - S[2, 0], S[1, 0] - S[0, 1]]) / 2


def test_gaps_and_friction_velocities_against_the_motion_of_the_contact_points():
    """``g_N`` equals the distance from the bodies' ``port_position``; ``W_N^T u`` is the rate of
    the gap and ``W_F^T u`` the tangential relative velocity of the material contact points
    (and ``r_c`` times the relative spin about the normal), both by central differences of the
    bodies' own geometry along ``q' = T(q) u``."""
    p = _mixed()
    rng = np.random.default_rng(4)
    q = p.dae.q0 + 0.05 * rng.normal(size=p.nq)
    p.normalize(q)
    g, W = p.contact_arrays(q)
    cs = p.contact_set
    get = p.dae.layout.q_getter(q)
    for trial in range(3):
        u = rng.normal(size=p.ne)
        qd = p.qdot(q, u)
        qp, qm = q + EPS * qd, q - EPS * qd
        gp, gm = p.contact_arrays(qp)[0], p.contact_arrays(qm)[0]
        for k, c in enumerate(p.contacts):
            scale = max(1.0, np.abs(u).max())
            assert abs(W[:, k] @ u - (gp[k] - gm[k]) / (2 * EPS)) < 1e-7 * scale, c.name
            if isinstance(c, PointPlane):
                x = c.port.body.port_position(get(c.port.body), c.port)
                n = c.n
                assert g[k] == pytest.approx(n @ (x - c.p0) - c.radius, abs=1e-14)
                pts = [(c.port, -c.radius * n, 1.0)]
            else:
                x1 = c.port1.body.port_position(get(c.port1.body), c.port1)
                x2 = c.port2.body.port_position(get(c.port2.body), c.port2)
                n = (x2 - x1) / np.linalg.norm(x2 - x1)
                assert g[k] == pytest.approx(np.linalg.norm(x2 - x1) - c.r1 - c.r2, abs=1e-14)
                pts = [(c.port2, -c.r2 * n, 1.0), (c.port1, c.r1 * n, -1.0)]
            if not c.nF:
                continue
            v_rel, w_rel = 0.0, 0.0
            for port, offset, sign in pts:
                at = _material_point(p, q, port, offset)
                v_rel = v_rel + sign * (at(qp) - at(qm)) / (2 * EPS)
                qb = p.dae.layout.q_getter
                w_rel = w_rel + sign * _angular_velocity(port.body, qb(qp)(port.body), qb(qm)(port.body), 2 * EPS)
            expect = list(tangents(n) @ v_rel)
            if c.nF == 3:
                expect.append(c.r_c * (w_rel @ n))
            assert np.allclose(W[:, cs.F[k]].T @ u, expect, rtol=0, atol=1e-7 * scale), c.name


def test_a_port_the_kernel_cannot_follow_is_one_error():
    """A body whose port moves in a way the packed form ``x(q) + R(q) (r + T q)`` does not cover
    is refused when the problem is built, naming the contact and the port."""
    class Bent(PointMass):
        def port_position(self, q, port):
            return np.asarray(q, float) + 0.1 * np.asarray(q, float) ** 2

    body = Bent("bent", 1.0, position=(0.2, 0.3))
    with pytest.raises(ValueError, match=r"contact 'floor': the position of port 'bent.P' is not of the form"):
        NonsmoothProblem(System([body]), [PointPlane(body.port("P"), (0.0, 1.0), name="floor")])


@pytest.mark.parametrize("make", ["disc", "top"])
def test_impact_bodies_are_compiled_with_exact_jacobians(make):
    """Discs and tops run the compiled residual (no leftovers); its dense Jacobian, the assembled
    sparse one and central differences of ``f`` agree; the top's gyroscopic rows are
    ``-Omega x Theta Omega`` for a full inertia tensor and do no work."""
    if make == "disc":
        body = Disc("d", 1.0, 0.005, position=(0.1, 0.3), angle=0.4)
    else:
        Th = np.array([[2e-4, 3e-5, -1e-5], [3e-5, 3e-4, 2e-5], [-1e-5, 2e-5, 4e-4]])
        body = Top("t", 0.2, Th, position=(0.0, 0.1, 0.3), orientation=_unit((0.9, 0.1, -0.2, 0.3)))
    s = System([body])
    s.add_gravity((0.0, -9.81) if make == "disc" else (0.0, 0.0, -9.81))
    dae = s.assemble()
    cr = dae.compiled_residual()
    assert cr.path == "compiled" and cr.leftovers == []
    rng = np.random.default_rng(2)
    y = dae.q0.copy()
    y = np.r_[y, rng.normal(size=dae.ne)]
    f = cr.f(0.0, y)
    assert np.allclose(f, dae.f(0.0, y), rtol=0, atol=1e-14 * max(1.0, np.abs(f).max()))
    J = cr.jacobian(y, 0.0)
    Jfd = np.column_stack([(dae.f(0.0, y + EPS * e) - dae.f(0.0, y - EPS * e)) / (2 * EPS) for e in np.eye(dae.n)])
    assert np.allclose(J, Jfd, rtol=0, atol=1e-7 * max(1.0, np.abs(J).max()))
    assert np.allclose(J, dae.jacobian(0.0, y).toarray(), rtol=0, atol=1e-13 * max(1.0, np.abs(J).max()))
    if make == "top":
        e = y[dae.se]
        W = e[3:6]
        loads = np.zeros(dae.ne)                  # gravity, by the load's own force
        for ld, sq, se in dae.loads:
            loads[se.start + ld.cols] += ld.force(0.0, y[dae.sq][sq], e[se])
        fe = f[dae.se] - loads
        assert np.allclose(fe[3:], -np.cross(W, Th @ W), rtol=0, atol=1e-15)
        assert abs(e @ fe) < 1e-15
        qd = f[dae.sq]
        p = y[3:7]
        assert np.allclose(qd[:3], e[:3], rtol=0, atol=0)        # inertial translation: x' = v
        assert np.allclose(qd[3:7], 0.5 * np.r_[-p[1:] @ W, p[0] * W + np.cross(p[1:], W)], atol=1e-15)


def test_contact_validation_models_run_compiled():
    """The smooth part of the contact benchmarks comes from the compiled residual."""
    from phmech.validation import bouncing_ball, tippe_top
    from phmech.validation._contact_simple import block_model, cradle_model
    for p in (bouncing_ball.model(4)[0], tippe_top.model()[0], block_model()[0], cradle_model()[0]):
        cr = p.dae.compiled_residual()
        assert cr.path == "compiled" and cr.leftovers == [] and p._compiled is cr


def test_solvers_do_not_import_the_contacts():
    """The contacts use the solvers (the contact problem of a step, the driver), never the other
    way round: no module of phmech.solvers imports phmech.contact."""
    import phmech.solvers
    folder = os.path.dirname(phmech.solvers.__file__)
    for f in sorted(os.listdir(folder)):
        if not f.endswith(".py"):
            continue
        with open(os.path.join(folder, f)) as fh:
            tree = ast.parse(fh.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert "contact" not in (node.module or "").split("."), (f, node.module)
            elif isinstance(node, ast.Import):
                assert not any("contact" in a.name.split(".") for a in node.names), f

"""Force elements between bodies (phmech.forces): frequencies against analytic models, energy,
Jacobians against probes, compiled user laws, and bad input."""
import numpy as np
import pytest
import scipy.linalg as sla

from phmech import PlanarRigidBody, PointMass, SpatialRigidBody, System
from phmech.assembly import ConsistencyError
from phmech.joints import Revolute, SpatialJoint
from phmech.math.rotations import quat_from_axis_angle

RNG = np.random.default_rng(21)


def probe(f, y, h=1e-6):
    """Central-difference Jacobian of ``f`` at ``y``."""
    cols = []
    for i in range(y.size):
        d = np.zeros(y.size)
        d[i] = h
        cols.append((f(y + d) - f(y - d)) / (2 * h))
    return np.column_stack(cols)


# -- models ------------------------------------------------------------------------------------
def two_masses(k1=40.0, k2=25.0, m1=2.0, m2=0.5, dim=2):
    """ground --k1-- m1 --k2-- m2 along x, springs at their rest lengths."""
    z = (0.0,) * (dim - 1)
    a, b = PointMass("m1", m1, (1.0, *z)), PointMass("m2", m2, (2.5, *z))
    s = System([a, b])
    s.add_spring(a.port("P"), None, stiffness=k1, at=(0.0, *z), name="k1")
    s.add_spring(a.port("P"), b.port("P"), stiffness=k2, name="k2")
    return s


def double_pendulum(k1, k2, m1=1.2, L1=0.8, m2=0.7, L2=0.5, spatial=False):
    """Two uniform rods on revolute joints (ground-rod1, rod1-rod2) with torsional springs, no
    gravity, straight along x at rest."""
    if spatial:
        def rod(name, m, L, x0):
            I = np.diag([1e-3 * m * L**2, m * L**2 / 12, m * L**2 / 12])
            return SpatialRigidBody(name, m, I, center=(L / 2, 0, 0), ports={"A": (0, 0, 0), "B": (L, 0, 0)},
                                    position=(x0, 0, 0))
        r1, r2 = rod("rod1", m1, L1, 0.0), rod("rod2", m2, L2, L1)
        s = System([r1, r2])
        j1 = s.add_joint(SpatialJoint("revolute", r1.port("A"), None, axis=(0, 0, 1), name="j1"))
        j2 = s.add_joint(SpatialJoint("revolute", r1.port("B"), r2.port("A"), axis=(0, 0, 1), name="j2"))
    else:
        r1 = PlanarRigidBody.rod("rod1", m1, L1)
        r2 = PlanarRigidBody.rod("rod2", m2, L2, position=(L1, 0.0))
        s = System([r1, r2])
        j1 = s.add_joint(Revolute(r1.port("A"), None, name="j1"))
        j2 = s.add_joint(Revolute(r1.port("B"), r2.port("A"), name="j2"))
    s.add_torsional_spring(j1, k1, name="t1")
    s.add_torsional_spring(j2, k2, name="t2")
    return s


def spatial_mix(damped=False):
    """Two spatial bodies: a spring and a bushing to the ground, a spring and a bushing between
    them, a torsional spring on a revolute joint to the ground (free rotation about its axis), a
    damper."""
    c = 0.3 if damped else 0.0
    I = np.diag([0.02, 0.03, 0.04])
    A = SpatialRigidBody("A", 1.5, I, center=(0.1, 0.0, 0.05), ports={"p": (0.3, 0.1, 0.0), "q": (-0.2, 0.0, 0.1)},
                         position=(0.0, 0.0, 0.0))
    B = SpatialRigidBody("B", 0.8, 0.5 * I, ports={"p": (0.0, 0.2, 0.0), "q": (0.1, -0.1, 0.2)},
                         position=(0.6, 0.3, 0.2), orientation=quat_from_axis_angle((1, 2, 3), 0.4))
    s = System([A, B])
    j = s.add_joint(SpatialJoint("revolute", A.port("P"), None, axis=(0.2, 0.1, 1.0), name="hinge"))
    s.add_torsional_spring(j, 3.0, damping=c, rest_angle=0.2, name="torsion")
    s.add_spring(B.port("q"), None, stiffness=40.0, damping=c, rest_length=0.5, at=(1.0, 0.5, 0.8), name="s0")
    s.add_spring(A.port("p"), B.port("p"), stiffness=30.0, damping=c, rest_length=0.2, name="s1")
    Kb = np.diag([50.0, 60.0, 70.0, 2.0, 3.0, 4.0])
    Kb[0, 4] = Kb[4, 0] = 1.0
    s.add_bushing(A.port("q"), B.port("q"), stiffness=Kb, damping=c * np.eye(6), name="bush")
    s.add_bushing(B.port("P"), None, stiffness=np.diag([5.0, 6.0, 7.0, 0.5, 0.6, 0.7]), damping=c, name="mount")
    if damped:
        s.add_damper(A.port("p"), 0.2, name="drag")
    return s


def planar_mix(damped=False):
    """Planar rigid bodies: springs, bushings, a torsional spring on a pin, a port damper."""
    c = 0.2 if damped else 0.0
    a = PlanarRigidBody("a", 1.0, 0.05, center=(0.1, 0.0), ports={"p": (0.3, 0.1)})
    b = PlanarRigidBody("b", 0.6, 0.02, ports={"p": (0.0, 0.2)}, position=(0.7, 0.2), angle=0.3)
    m = PointMass("m", 0.4, (0.2, -0.5))
    s = System([a, b, m])
    j = s.add_joint(Revolute(a.port("P"), None, name="pin"))
    s.add_torsional_spring(j, 2.0, damping=c, rest_angle=-0.1, name="torsion")
    s.add_spring(a.port("p"), b.port("p"), stiffness=20.0, damping=c, rest_length=0.4, name="s1")
    s.add_spring(m.port("P"), b.port("P"), stiffness=15.0, damping=c, name="s2")
    s.add_bushing(b.port("p"), None, stiffness=[[30.0, 2.0, 0.0], [2.0, 40.0, 1.0], [0.0, 1.0, 5.0]],
                  damping=c, name="bush")
    s.add_bushing(a.port("P"), b.port("p"), stiffness=np.diag([10.0, 12.0, 1.0]), damping=c, name="bush2")
    if damped:
        s.add_damper(m.port("P"), 0.3, name="drag")
    return s


# -- frequencies ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [2, 3])
def test_spring_mass_frequency_is_sqrt_k_over_m(dim):
    """One point mass on a spring to the ground at its rest length: the axial mode at
    sqrt(k/m); the other directions carry no stiffness (rigid modes)."""
    z = (0.0,) * (dim - 1)
    m = PointMass("m", 2.5, (1.0, *z))
    s = System([m])
    s.add_spring(m.port("P"), None, stiffness=90.0, at=(0.0, *z))
    modes = s.linearize().eigenmodes(k=1)
    assert modes.omega[0] == pytest.approx(np.sqrt(90.0 / 2.5), rel=1e-12)
    assert modes.n_rigid > 0


def test_preloaded_spring_adds_its_geometric_stiffness():
    """A mass held between two stretched springs (tension T = k (l - l0), length l each):
    axial sqrt(2 k / m), lateral sqrt(2 T / (m l))."""
    k, l, l0, mass = 50.0, 1.2, 1.0, 2.0
    m = PointMass("m", mass, (0.0, 0.0))
    s = System([m])
    s.add_spring(m.port("P"), None, stiffness=k, rest_length=l0, at=(-l, 0.0), name="left")
    s.add_spring(m.port("P"), None, stiffness=k, rest_length=l0, at=(l, 0.0), name="right")
    omega = s.linearize().eigenmodes(k=2).omega
    T = k * (l - l0)
    assert omega == pytest.approx([np.sqrt(2 * T / (mass * l)), np.sqrt(2 * k / mass)], rel=1e-12)


def test_a_stretched_spring_alone_is_linearized_at_its_rest_length():
    """One spring stretched to 1.2 m is no equilibrium: the linearization moves the mass to the
    spring's rest length, where the tension and the lateral stiffness vanish."""
    m = PointMass("m", 2.0, (1.2, 0.0))
    s = System([m])
    s.add_spring(m.port("P"), None, stiffness=50.0, rest_length=1.0, at=(0.0, 0.0))
    lin = s.linearize()
    assert lin.q == pytest.approx([1.0, 0.0], abs=1e-10)
    assert lin.eigenmodes(k=1).omega == pytest.approx([5.0], rel=1e-12)
    with pytest.raises(Exception, match="not a static equilibrium"):
        s.linearize(q=[1.2, 0.0])


@pytest.mark.parametrize("dim", [2, 3])
def test_two_mass_chain_matches_its_analytic_modes(dim):
    k1, k2, m1, m2 = 40.0, 25.0, 2.0, 0.5
    Kc = np.array([[k1 + k2, -k2], [-k2, k2]])
    exact = np.sqrt(sla.eigh(Kc, np.diag([m1, m2]), eigvals_only=True))
    modes = two_masses(k1, k2, m1, m2, dim).linearize().eigenmodes(k=2)
    assert modes.omega == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize("spatial", [False, True])
def test_torsional_double_pendulum_matches_the_linearized_model(spatial):
    """Angles theta1 (rod 1), theta2 (rod 2) about the straight configuration:
    M = [[m1 L1^2/3 + m2 L1^2, m2 L1 L2/2], [m2 L1 L2/2, m2 L2^2/3]],
    V = k1 theta1^2 / 2 + k2 (theta2 - theta1)^2 / 2."""
    k1, k2, m1, L1, m2, L2 = 7.0, 3.0, 1.2, 0.8, 0.7, 0.5
    M = np.array([[m1 * L1**2 / 3 + m2 * L1**2, m2 * L1 * L2 / 2], [m2 * L1 * L2 / 2, m2 * L2**2 / 3]])
    Kt = np.array([[k1 + k2, -k2], [-k2, k2]])
    exact = np.sqrt(sla.eigh(Kt, M, eigvals_only=True))
    omega = double_pendulum(k1, k2, m1, L1, m2, L2, spatial).linearize().eigenmodes(k=2).omega
    assert omega == pytest.approx(exact, rel=1e-9)


# -- energy -------------------------------------------------------------------------------------
@pytest.mark.parametrize("model", [planar_mix, spatial_mix])
def test_energy_of_springs_alone_is_conserved(model):
    """Undamped elements: H + V constant to the midpoint rule's O(h^2) (the drift falls ~4x with
    h/2); the springs are loaded (they start off their rest states)."""
    drifts = []
    for dt in (2e-3, 1e-3):
        s = model()
        dae = s.assemble()
        res = s.simulate(0.4, solver="midpoint", dt=dt, newton_tol=1e-12)
        E = dae.hamiltonian(res.y) + dae.potential_energy(res.y)
        assert np.ptp(dae.potential_energy(res.y)) > 0.05 * E[0]          # the springs do work
        drifts.append(np.max(np.abs(E - E[0])) / E[0])
    assert drifts[0] < 1e-3
    assert drifts[1] < 0.35 * drifts[0] or drifts[1] < 1e-10


@pytest.mark.parametrize("model", [planar_mix, spatial_mix])
def test_damped_elements_dissipate_what_the_power_says(model):
    """With dampers, H + V falls by the dissipated work: power(include_potential=False)
    integrated by the trapezoidal rule along the run."""
    s = model(damped=True)
    dae = s.assemble()
    res = s.simulate(0.3, solver="midpoint", dt=5e-4, newton_tol=1e-12)
    E = dae.hamiltonian(res.y) + dae.potential_energy(res.y)
    P = np.array([dae.power(t, y, include_potential=False) for t, y in zip(res.t, res.y)])
    assert np.all(P <= 1e-12)
    W = np.concatenate([[0.0], np.cumsum(0.5 * (P[1:] + P[:-1]) * np.diff(res.t))])
    assert E[-1] < 0.99 * E[0]
    assert np.max(np.abs(E - E[0] - W)) < 2e-3 * (E[0] - E[-1])


# -- Jacobians and the compiled slot ------------------------------------------------------------------
@pytest.mark.parametrize("model", [planar_mix, spatial_mix])
def test_jacobian_of_every_element_against_a_probe(model):
    dae = model(damped=True).assemble()
    y = dae.initial_state() + 0.1 * RNG.standard_normal(dae.n)
    J = dae.jacobian(0.3, y).toarray()
    Jfd = probe(lambda z: dae.f(0.3, z), y)
    assert np.max(np.abs(J - Jfd)) < 1e-6 * max(1.0, np.max(np.abs(J)))


@pytest.mark.parametrize("model", [planar_mix, spatial_mix])
def test_the_elements_run_compiled_and_their_power_is_the_sum_of_their_terms(model):
    """The force elements are a kernel family (no leftovers); the supplied power of the kernel is
    the sum of the power through every port."""
    pytest.importorskip("numba")
    dae = model(damped=True).assemble()
    y = dae.initial_state() + 0.1 * RNG.standard_normal(dae.n)
    c = dae.compiled_residual()
    assert c.path == "compiled" and c.leftovers == []
    assert dae.power(0.2, y) == pytest.approx(sum(dae.power_terms(0.2, y).values()), rel=1e-12, abs=1e-12)


def _law_system(law=None, law_derivative=None, linear=False):
    s = two_masses()
    a, b = s.bodies
    if linear:
        s.add_spring(a.port("P"), b.port("P"), stiffness=8.0, damping=0.5, rest_length=1.2, name="extra")
    else:
        s.add_spring(a.port("P"), b.port("P"), law=law, law_derivative=law_derivative, name="extra")
    return s


def test_a_user_law_equal_to_the_linear_one_gives_the_same_forces_on_the_compiled_path():
    """A user law f(l, l') = k (l - l0) + c l' (a plain Python function) is compiled into the force
    elements' kernels: no leftovers, no warning, the same forces and Jacobian as the linear spring
    (derivatives by the complex step of the law, or the given law_derivative); its work is
    supplied power, not a potential."""
    import warnings
    lin = _law_system(linear=True).assemble()
    y = lin.initial_state() + 0.1 * RNG.standard_normal(lin.n)
    for derivative in (None, lambda l, r: (8.0, 0.5)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            usr = _law_system(lambda l, r: 8.0 * (l - 1.2) + 0.5 * r, derivative).assemble()
            c = usr.compiled_residual()
        if c is not None:
            assert c.pure and c.leftovers == [] and c.path == "compiled"
        assert np.max(np.abs(usr.f(0.0, y) - lin.f(0.0, y))) < 1e-13
        assert abs(usr.jacobian(0.0, y) - lin.jacobian(0.0, y)).max() < 1e-12
        assert usr.potential_energy(y) < lin.potential_energy(y)
        assert usr.power(0.0, y) == pytest.approx(lin.power(0.0, y), rel=1e-12, abs=1e-12)
        # without the potentials: the linear spring keeps its dissipation, the user law all its work
        q, e, _ = lin.split(y)
        d, v = q[2:4] - q[0:2], e[2:4] - e[0:2]
        length, rate = np.linalg.norm(d), d @ v / np.linalg.norm(d)
        assert usr.power(0.0, y, include_potential=False) - lin.power(0.0, y, include_potential=False) == \
            pytest.approx(-8.0 * (length - 1.2) * rate, rel=1e-10, abs=1e-12)


def test_a_nonlinear_user_law_runs_the_compiled_midpoint_iteration_with_its_exact_jacobian():
    """A hardening spring with a smooth damper, written with numpy calls: the midpoint rule takes
    its compiled Newton iteration; the Jacobian matches a probe, and the energy balance closes with
    the law's work counted as supplied power."""
    from phmech.solvers.midpoint import ImplicitMidpoint

    def law(length, rate):
        x = length - 1.5
        return 30.0 * x + 200.0 * x ** 3 + 0.3 * np.tanh(4.0 * rate)

    s = _law_system(law)
    dae = s.assemble()
    y = dae.initial_state() + 0.05 * RNG.standard_normal(dae.n)
    J, Jfd = dae.jacobian(0.0, y).toarray(), probe(lambda z: dae.f(0.0, z), y)
    assert np.max(np.abs(J - Jfd)) < 1e-6 * max(1.0, np.max(np.abs(J)))
    if dae.compiled_residual() is not None:
        y0 = dae.initial_state()
        assert ImplicitMidpoint(dae, 0.0, y0, 1.0, dt=1e-3)._kernel is not None
    y0 = dae.initial_state()
    y0[dae.se] = (0.3, 0.0, -0.4, 0.1)
    res = s.simulate(0.5, y0=y0, dt=1e-3)
    H = res.hamiltonian() + dae.potential_energy(res.y)
    assert np.max(np.abs(res.energy_balance())) < 1e-8 * np.max(H)


def test_a_user_law_that_numba_cannot_compile_is_refused_naming_the_element():
    """A law numba cannot compile (here: a Python object inside) is an error naming the force
    element; one that does not take complex arguments asks for law_derivative."""
    pytest.importorskip("numba")
    from phmech.forces.elements_kernels import LawError
    table = {"k": 3.0}
    with pytest.raises(LawError, match=r"force element 'extra': numba cannot compile its law"):
        _law_system(lambda l, r: table["k"] * l).assemble()

    def clipped(length, rate):
        return max(length - 1.2, 0.0) * 8.0

    with pytest.raises(LawError, match=r"force element 'extra': numba cannot compile its law with complex "
                                       r"arguments .*give law_derivative"):
        _law_system(clipped).assemble()
    dae = _law_system(clipped, lambda l, r: (8.0 if l > 1.2 else 0.0, 0.0)).assemble()
    assert dae.compiled_residual().pure


# -- bad input ----------------------------------------------------------------------------------
def _bodies():
    a = PlanarRigidBody("a", 1.0, 0.1, ports={"p": (0.5, 0.0)})
    b = PlanarRigidBody("b", 1.0, 0.1, position=(1.0, 0.0))
    return a, b, System([a, b])


@pytest.mark.parametrize("call, message", [
    (lambda a, b, s: s.add_spring(a.port("p"), b.port("P"), stiffness=-3.0),
     r"^force element 'spring\(a\.p, b\.P\)': stiffness must be finite and non-negative, got -3\.0$"),
    (lambda a, b, s: s.add_spring(a.port("p"), b.port("P"), stiffness=1.0, damping=np.nan, name="x"),
     r"^force element 'x': damping must be finite and non-negative, got nan$"),
    (lambda a, b, s: s.add_spring(a.port("p"), b.port("P"), stiffness=1.0, rest_length=0.0, name="x"),
     r"^force element 'x': rest length must be finite and positive, got 0\.0$"),
    (lambda a, b, s: s.add_spring(a.port("p"), None, stiffness=1.0, name="x"),
     r"^force element 'x': a spring to the ground needs its ground point 'at'$"),
    (lambda a, b, s: s.add_bushing(a.port("p"), b.port("P"), stiffness=[[1, 2, 0], [0, 1, 0], [0, 0, 1]], name="x"),
     r"^force element 'x': stiffness matrix is not symmetric: entry \[0, 1\] = 2\.0, entry \[1, 0\] = 0\.0$"),
    (lambda a, b, s: s.add_bushing(a.port("p"), b.port("P"), damping=np.diag([1.0, -2.0, 1.0]), name="x"),
     r"^force element 'x': damping matrix is not positive semi-definite: eigenvalue -2$"),
    (lambda a, b, s: s.add_bushing(a.port("p"), b.port("P"), stiffness=np.eye(6), name="x"),
     r"^force element 'x': stiffness matrix must be a 3x3 matrix, got shape \(6, 6\)$"),
    (lambda a, b, s: s.add_torsional_spring(s.add_joint(Revolute(a.port("p"), b.port("P"))), -1.0, np.inf,
                                            name="x"),
     r"^force element 'x': stiffness must be finite and non-negative, got -1\.0; damping must be finite and "
     r"non-negative, got inf$"),
])
def test_bad_parameters_give_one_error_naming_element_parameter_and_value(call, message):
    a, b, s = _bodies()
    with pytest.raises(ValueError, match=message):
        call(a, b, s)


def test_a_torsional_spring_needs_a_revolute_joint():
    a, b, s = _bodies()
    from phmech.joints import Weld
    w = s.add_joint(Weld(a.port("p"), b.port("P"), name="w"))
    with pytest.raises(ValueError, match=r"^force element 'x': joint must be a planar or spatial revolute joint"):
        s.add_torsional_spring(w, 1.0, name="x")


def test_ports_not_in_the_system_are_named():
    a, b, s = _bodies()
    stray = PlanarRigidBody("stray", 1.0, 0.1, position=(0.0, 2.0))
    s.add_spring(a.port("p"), stray.port("P"), stiffness=1.0, name="x")
    with pytest.raises(ConsistencyError, match=r"force element 'x': port 'stray\.P' is on body 'stray', which is "
                                               r"not in the system"):
        s.assemble()


# -- flexible ports -------------------------------------------------------------------------------
def _sprung_beam():
    """A geometrically consistent beam pinned at A, its tip B on a preloaded spring to the ground:
    the tip's point follows from the beam's displacement variables."""
    pytest.importorskip("firedrake")
    from phmech.fem.beam_nonlinear import NonlinearFloatingBeam
    beam = NonlinearFloatingBeam("beam", 1.0, 3, 2700.0, 1e-4, 7e7, 1e-9, frame="cantilever")
    s = System([beam])
    s.pin(beam.port("A"))
    s.add_spring(beam.port("B"), None, stiffness=30.0, rest_length=0.3, at=(1.0, 0.5), name="tip")
    return s, beam


@pytest.mark.slow
def test_spring_on_a_flexible_port_conserves_energy():
    """The spring pulls the tip of the flexible beam (bending it): H + V constant to O(h^2)."""
    drifts = []
    for dt in (1e-3, 5e-4):
        s, beam = _sprung_beam()
        dae = s.assemble()
        assert dae.compiled_residual().path == "compiled"
        res = s.simulate(0.2, solver="midpoint", dt=dt, newton_tol=1e-9)
        E = dae.hamiltonian(res.y) + dae.potential_energy(res.y)
        assert np.ptp(dae.potential_energy(res.y)) > 0.5 * E[0]
        drifts.append(np.max(np.abs(E - E[0])) / E[0])
    assert drifts[0] < 1e-3
    assert drifts[1] < 0.35 * drifts[0] or drifts[1] < 1e-10


def test_flexible_port_jacobian_and_bad_ports():
    """The spring's Jacobian on a consistent beam's port against a probe; a torsional spring on a
    port that cannot turn is refused by name."""
    s, beam = _sprung_beam()
    dae = s.assemble()
    y = dae.initial_state() + 1e-3 * RNG.standard_normal(dae.n)
    J = dae.jacobian(0.0, y).toarray()
    Jfd = probe(lambda z: dae.f(0.0, z), y, h=1e-7)
    assert np.max(np.abs(J - Jfd)) < 1e-5 * np.max(np.abs(J))
    with pytest.raises(ValueError, match=r"port 'beam\.A' has no rotational degree of freedom"):
        s.add_bushing(beam.port("A"), None, stiffness=1.0, name="x")


def test_a_parameter_changed_after_a_run_is_used_by_the_next_one():
    """``spring.k = 360`` after a first run: the next run and linearization use 360, not the
    assembled 90 (a run alone keeps the assembled model)."""
    mass = PointMass("mass", 2.5, (1.0, 0.0))
    s = System([mass])
    spring = s.add_spring(mass.port("P"), None, stiffness=90.0, at=(0.0, 0.0))
    dae = s.assemble()
    s.simulate(0.01, dt=1e-3)
    assert s.assemble() is dae
    assert s.linearize().eigenmodes(k=1).omega == pytest.approx([6.0], rel=1e-12)
    spring.k = 360.0
    assert s.assemble() is not dae
    assert s.linearize().eigenmodes(k=1).omega == pytest.approx([12.0], rel=1e-12)
    e0 = np.zeros(s.assemble().ne)
    y0 = s.assemble().initial_state(q0=[1.1, 0.0], e0=e0)
    r = s.simulate(np.pi / 12.0, dt=1e-4, y0=y0)      # half a period at omega = 12 (a quarter at 6)
    assert abs(r.y[-1, 0] - 0.9) < 1e-4


def test_a_spring_off_the_centre_of_a_body_with_inertial_velocities_is_refused():
    """A Disc carries the inertial velocity of its centre: a spring at another of its points would
    need the body's rotation in that point's velocity, so it is refused by name (at the centre it
    acts there: -k (|x| - l0) x / |x|)."""
    from phmech import System
    from phmech.bodies.inertial import Disc
    d = Disc("d", 1.0, 0.1, position=(0.5, 0.0), angle=0.3, ports={"rim": (0.1, 0.0)})
    s = System([d])
    with pytest.raises(ValueError, match=r"port 'd.rim' lies off the point of body 'd' whose inertial velocity"):
        s.add_spring(d.port("rim"), None, stiffness=10.0, at=(0.0, 0.0))
    s.add_spring(d.port("C"), None, stiffness=10.0, rest_length=0.25, at=(0.0, 0.0))
    dae = s.assemble()
    f = dae.f(0.0, dae.initial_state())[dae.se]
    assert np.abs(f[:2] - (-2.5, 0.0)).max() <= 1e-12


def test_a_body_frame_force_on_a_body_with_inertial_velocities_and_no_sections_is_refused():
    """A Disc's velocity rows are inertial and it names no section for a follower load: a force in
    its body frame is refused instead of being applied as if inertial."""
    from phmech import System
    from phmech.bodies.inertial import Disc
    d = Disc("d", 1.0, 0.1, angle=0.3)
    with pytest.raises(ValueError, match=r"load 'f': a force at port 'd.C' of body 'd', whose efforts carry "
                                         r"inertial velocities, takes inertial components"):
        System([d]).apply_force(d.port("C"), (1.0, 0.0), frame="body", name="f")

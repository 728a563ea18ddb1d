"""The compiled paths reproduce the Python reference to round-off."""
import numpy as np
from conftest import same_midpoint_runs, uncompiled_f_and_jacobian
import pytest

from phmech.validation import _classic_compiled as cc
from phmech.validation import _classic_models as cm

pytestmark = pytest.mark.skipif(not cc.available(), reason="numba is not installed")


@pytest.mark.parametrize("Model", [cm.AndrewsSqueezer, cm.SimeonCrank])
def test_classic_kernels_equal_python_models(Model):
    """Right-hand side and Jacobian of the compiled index-2 form (one kernel; the Jacobian by
    complex steps of it) equal the Python model's assembly of the same mass, force and
    constraint kernels (its Jacobian by its own complex steps) at perturbed states (not only
    the consistent start)."""
    m = Model()
    rng = np.random.default_rng(1)
    y0 = m.consistent_state(0.0, m.y0[:7], m.y0[7:14])
    pc, pp = m.index2_problem(compiled=True), m.index2_problem(compiled=False)
    for k in range(3):
        y = y0 * (1 + 1e-2 * rng.standard_normal(y0.size)) + 1e-3 * rng.standard_normal(y0.size)
        t = 0.01 * k
        a, b = pc.f(t, y), pp.f(t, y)
        assert np.max(np.abs(a - b)) <= 1e-13 * np.max(np.abs(b))
        Ja, Jb = (np.asarray(M.toarray() if hasattr(M, "toarray") else M)
                  for M in (pc.jacobian(t, y), pp.jacobian(t, y)))
        assert np.max(np.abs(Ja - Jb)) <= 1e-12 * np.max(np.abs(Jb))


def test_classic_compiled_run_equals_python_run():
    """Radau IIA on Andrews' squeezer: the compiled and the Python model give the same
    trajectory (same steps) to round-off, and both meet the published reference."""
    from phmech.validation import _classic_run as cr

    m = cm.AndrewsSqueezer()
    y0 = m.consistent_state(0.0, m.y0[:7], m.y0[7:14])
    from phmech.solvers import solve
    out = []
    for compiled in (True, False):
        res = solve(m.index2_problem(compiled=compiled), (0.0, m.t_end), y0, method="radau",
                    rtol=1e-6, atol=1e-6)
        out.append(res)
    a, b = out
    assert a.stats["nsteps"] == b.stats["nsteps"]
    assert np.max(np.abs(a.y[-1] - b.y[-1])) <= 1e-9 * np.max(np.abs(b.y[-1]))
    assert cr.errors(m, a.y[-1])["positions"]["rel_err"] < 1e-6


# ---------------------------------------------------------------- assembled pH systems
from phmech.assembly.compiled import compiled_residual  # noqa: E402


def _perturbed(dae, seed=0, size=1e-2):
    y = dae.initial_state()
    return y + size * np.random.default_rng(seed).standard_normal(y.size)


def _free_spinning_box():
    from phmech import SpatialRigidBody, System
    return System([SpatialRigidBody("box", 2.0, np.diag([0.1, 0.2, 0.3]), center=(0.1, 0.0, 0.05))])


def _spinning_blades():
    """Two consistent beams (Green and linear strain) on a driven hub: the packed operators
    of several beams, both strain branches (the tiny model of phmech.mechanisms.tiny)."""
    from phmech.mechanisms.tiny import spinning_blades
    return spinning_blades()


def _loaded_crank_slider():
    """Gravity on every body (planar rotation and point mass), a body-frame force, an inertial
    moment with a time history: every kind of compiled load."""
    from tests.mechanisms import rigid_crank_slider
    s, crank, coupler, slider = rigid_crank_slider()
    s.add_gravity((0.0, -9.81))
    s.apply_force(coupler.port("B"), lambda t: (np.sin(3 * t), 0.5), frame="body", name="push")
    s.apply_moment(coupler.port("A"), lambda t: 0.2 * np.cos(t), name="twist")
    return s


def _spherical_chain(n=4):
    """Bars on spherical joints (to the ground and between bodies) under gravity."""
    from tests.mechanisms import spherical_chain
    return spherical_chain(n)


def _bricard():
    from phmech.validation import bricard
    return bricard.build()[0]


def _every_spatial_joint():
    """Each spatial joint type between two bodies and from a body to the ground (drivers on the
    revolute and cylindrical ones), with a body-frame moment: every branch of the joints' kernel."""
    from phmech import SpatialRigidBody, System
    from phmech.joints import SpatialJoint
    from phmech.math.rotations import rot3
    rng = np.random.default_rng(5)
    s = System([])
    for k, kind in enumerate(["spherical", "revolute", "universal", "prismatic", "cylindrical", "weld"]):
        p = rng.normal(size=(2, 4))
        p /= np.linalg.norm(p, axis=1)[:, None]
        r = rng.normal(size=3)
        j = np.array([0.3, -0.1, 0.2])
        # B's origin at A's port j: every joint between them holds at the start
        A, B = (SpatialRigidBody(f"{kind}{i}", 1.0 + i, np.diag([0.1, 0.2, 0.3]), center=(0.1, 0.0, 0.2),
                                 position=x, orientation=p[i], ports={"j": j})
                for i, x in enumerate((r, r + rot3(p[0]) @ j)))
        s.add(A)
        s.add(B)
        axis = rng.normal(size=3)
        opts = {} if kind in ("spherical", "weld") else dict(axis=axis)
        if kind == "universal":
            opts["axis2"] = np.cross(axis, rng.normal(size=3))
        if kind in ("revolute", "cylindrical"):
            opts.update(rate=lambda t: 0.3 + 0.1 * t)
        s.add_joint(SpatialJoint(kind, A.port("j"), B.port("P"), name=f"{kind} between", **opts))
        s.add_joint(SpatialJoint(kind, B.port("j"), None, name=f"{kind} to ground", **opts))
    s.add_gravity((0.0, 0.0, -9.81))
    return s


_MODELS = ["rigid crank-slider", "flexible crank-slider", "stiffened crank-slider", "hinged beam",
           "free spinning box", "two consistent blades", "loaded crank-slider", "spherical chain", "Bricard",
           "every spatial joint"]


def _model(model):
    from tests.mechanisms import rigid_crank_slider
    from phmech.mechanisms import flexible_crank_slider, hinged_spatial_beam
    return {"rigid crank-slider": lambda: rigid_crank_slider()[0],
            "flexible crank-slider": lambda: flexible_crank_slider(4)[0],
            "stiffened crank-slider": lambda: flexible_crank_slider(4, True)[0],
            "hinged beam": lambda: hinged_spatial_beam(2)[0],
            "free spinning box": _free_spinning_box,
            "two consistent blades": _spinning_blades,
            "loaded crank-slider": _loaded_crank_slider,
            "spherical chain": _spherical_chain, "Bricard": _bricard,
            "every spatial joint": _every_spatial_joint}[model]()


@pytest.mark.parametrize("model", _MODELS)
def test_every_kind_of_model_is_compiled_whole_and_its_jacobian_is_exact(model):
    """No leftovers on every kind of model; the kernels' Jacobian (what DescriptorDAE.jacobian
    returns) against central differences of the kernels' residual, entry by entry relative to
    the largest entry of its row (rows of the beams' stresses and of the frames differ by many
    orders of magnitude)."""
    dae = _model(model).assemble()
    c = compiled_residual(dae)
    assert c.pure and not c.leftovers and c.path == "compiled"
    assert c.has_jacobian
    y = _perturbed(dae, 1)
    J = c.jacobian(y, 0.013)
    assert np.array_equal(J, dae.jacobian(0.013, y).toarray())
    h = 1e-6 * np.maximum(1.0, np.abs(y))
    Jfd = np.column_stack([(c.f(0.013, y + h[i] * u) - c.f(0.013, y - h[i] * u)) / (2 * h[i])
                           for i, u in enumerate(np.eye(dae.n))])
    row = np.maximum(np.max(np.abs(J), axis=1, keepdims=True), 1.0)
    assert np.max(np.abs(J - Jfd) / row) <= 1e-5


@pytest.mark.parametrize("coupler", ["rigid", "linear frame", "stiffened", "hinged spatial beam"])
def test_compiled_midpoint_equals_python_midpoint(coupler):
    """The compiled Newton iteration reproduces the Python one: same iterations, same
    trajectory to round-off, over 300 steps of the crank-slider (rigid coupler, linear
    floating frame, geometrically consistent beam)."""
    from tests.mechanisms import rigid_crank_slider
    from phmech.mechanisms import flexible_crank_slider

    runs = []
    for compiled in (True, False):
        from phmech.mechanisms import hinged_spatial_beam
        if coupler == "hinged spatial beam":        # spherical joint, inertial force and moment
            s = hinged_spatial_beam(2)[0]
        elif coupler == "rigid":
            s = rigid_crank_slider()[0]
        else:
            s = flexible_crank_slider(4, coupler == "stiffened")[0]
        if compiled:
            from phmech.solvers.midpoint import ImplicitMidpoint
            dae = s.assemble()
            solver = ImplicitMidpoint(dae, 0.0, dae.initial_state(), 1.0, dt=1e-4)
            assert solver._kernel is not None       # the compiled iteration is the one tested
        runs.append(s.simulate(0.03, dt=1e-4, compiled=compiled))
    a, b = runs
    assert a.stats["nfev"] == b.stats["nfev"] and a.stats["nlu"] == b.stats["nlu"]
    # per component, relative to its largest value (columns that stay at round-off size
    # relative to the largest state are compared on that level); the two evaluations sum in
    # different orders, and 300 steps carry that round-off below the Newton tolerance 1e-10
    scale = np.maximum(np.max(np.abs(b.y), axis=0), 1e-6 * np.max(np.abs(b.y)))
    assert np.max(np.abs(a.y - b.y) / scale) < 1e-10
    assert abs(a.work[-1] - b.work[-1]) <= 1e-12 * max(1.0, abs(b.work[-1]))


@pytest.mark.parametrize("Model", [cm.AndrewsSqueezer, cm.SimeonCrank])
def test_classic_ode_kernel_equals_python(Model):
    """The compiled ODE form (used by the scipy peers in the benchmarks) equals the Python one."""
    m = Model()
    y0 = m.consistent_state(0.0, m.y0[:7], m.y0[7:14])
    x = y0[:14] * (1 + 1e-3 * np.random.default_rng(2).standard_normal(14))
    rhs, _ = cc.ode_functions(m)
    a, b = rhs(0.01, x), m.ode_rhs(0.01, x)
    assert np.max(np.abs(a - b)) <= 1e-11 * np.max(np.abs(b))


def test_compiled_residual_in_the_sparse_midpoint_iteration():
    """Above the dense size the midpoint rule iterates in Python on sparse factors with the compiled
    residual: the same iterations and trajectory as with the Python residual (crank-slider with a
    48-element coupler, over 300 unknowns)."""
    from phmech.solvers._dense import DENSE_MAX
    from phmech.mechanisms import flexible_crank_slider
    from phmech.solvers.midpoint import REFRESH_ITERATIONS_SPARSE
    s = flexible_crank_slider(48)[0]
    assert s.assemble().n > DENSE_MAX
    # the same refresh rule on both paths (their defaults differ: REFRESH_ITERATIONS_SPARSE)
    a, b = (s.simulate(5e-3, dt=1e-4, compiled=compiled, refresh_iterations=REFRESH_ITERATIONS_SPARSE)
            for compiled in (True, False))
    assert a.stats["nfev"] == b.stats["nfev"] and a.stats["nlu"] == b.stats["nlu"]
    scale = np.maximum(np.max(np.abs(b.y), axis=0), 1e-6 * np.max(np.abs(b.y)))
    assert np.max(np.abs(a.y - b.y) / scale) < 1e-10
    assert abs(a.work[-1] - b.work[-1]) <= 1e-12 * max(1.0, abs(b.work[-1]))


def test_every_kernel_module_keys_the_compiled_cache():
    """The compiled functions' disk cache is keyed by the digest of all modules with compiled
    functions (they contain one another): every compiled function registered once the package
    is imported lives in a module of that digest."""
    import importlib
    import os
    from phmech.kernels import jit as _jit
    modules = _jit.kernel_modules()
    assert "kernels/jit.py" in modules and "assembly/compiled.py" in modules
    for rel in modules:
        importlib.import_module("phmech." + rel[:-3].replace("/", "."))
    homes = {k.py_func.__module__ for k in _jit.KERNELS}
    assert homes and homes <= {"phmech." + rel[:-3].replace("/", ".") for rel in modules}, homes
    assert os.path.basename(os.path.dirname(_jit.cache_directory())) == "numba"


def test_spatial_chain_in_the_sparse_midpoint_iteration():
    """A chain of 20 bars on spherical joints (over the dense size): the midpoint rule iterates on
    sparse factors in its compiled Newton iteration, with the same iterations and trajectory as
    the Python iteration with the Python residual."""
    from phmech.solvers._dense import DENSE_MAX
    from phmech.solvers.midpoint import REFRESH_ITERATIONS_SPARSE, ImplicitMidpoint
    s = _spherical_chain(20)
    dae = s.assemble()
    assert dae.n > DENSE_MAX and compiled_residual(dae).pure
    # the Newton iteration on SuperLU's factors is the compiled one
    assert ImplicitMidpoint(dae, 0.0, dae.initial_state(), 1.0, dt=1e-3)._newton_kernel is not None
    # the same refresh rule on both paths (their defaults differ: REFRESH_ITERATIONS_SPARSE)
    a, b = (s.simulate(0.02, dt=1e-3, compiled=compiled, refresh_iterations=REFRESH_ITERATIONS_SPARSE)
            for compiled in (True, False))
    assert a.stats["nfev"] == b.stats["nfev"] and a.stats["nlu"] == b.stats["nlu"]
    # per block (positions, velocities, multipliers), relative to the block's size: the
    # Newton increments are measured on the block scales
    for sl in (dae.sq, dae.se, dae.sl):
        assert np.max(np.abs(a.y[:, sl] - b.y[:, sl])) < 1e-10 * np.max(np.abs(b.y[:, sl]))


def test_bricard_compiled_midpoint_equals_python_midpoint():
    """Bricard's mechanism (revolute joints between bodies, a redundant row) runs the compiled
    Newton iteration and reproduces the Python one: same iterations, same trajectory."""
    a, b = same_midpoint_runs(_bricard(), 0.1)
    assert abs(a.work[-1] - b.work[-1]) <= 1e-12 * max(1.0, abs(b.work[-1]))


def test_the_kernels_run_as_python_with_the_jit_disabled():
    """With ``NUMBA_DISABLE_JIT=1`` the same kernel source evaluates the residual and the
    Jacobian as Python: equal to the compiled values to round-off (every spatial joint type)."""
    f_py, J_py = uncompiled_f_and_jacobian("kernels.test_compiled", "_every_spatial_joint", 0.1)
    dae = _every_spatial_joint().assemble()
    y = dae.initial_state() + 0.1 * np.random.default_rng(3).standard_normal(dae.n)
    f, J = dae.f(0.2, y), dae.jacobian(0.2, y).toarray().ravel()
    assert np.max(np.abs(f - f_py)) <= 1e-13 * np.max(np.abs(f))
    assert np.max(np.abs(J - J_py)) <= 1e-13 * np.max(np.abs(J))


def test_a_model_without_kernels_for_all_parts_warns_once_and_names_them():
    """A user's load with its own force (no kernel slot) is a leftover: the compiled residual says
    the model runs in Python, and why; a force element with a user law is not (compiled)."""
    from phmech.assembly.compiled import PythonFallbackWarning
    from phmech.forces.loads import Load

    class Push(Load):
        def __init__(self, body):
            self.name, self.body, self.cols, self.A = "push", body, np.arange(3), np.eye(3)

        def force(self, t, q, e=None):
            return np.array([0.0, 0.0, -0.3 * q[2]])

        def force_q(self, t, q, e=None):
            D = np.zeros((3, self.body.nq))
            D[2, 2] = -0.3
            return D

    s = _spherical_chain(2)
    s.add_spring(s.bodies[1].port("B"), None, law=lambda length, rate: 3.0 * (length - 0.5), at=(2.0, 0.0, 1.0),
                 name="soft")
    s.add_load(Push(s.bodies[0]))
    dae = s.assemble()
    with pytest.warns(PythonFallbackWarning, match=r"no kernel for load 'push'$") as record:
        c = dae.compiled_residual()
        dae.compiled_residual()
    assert len(record) == 1
    assert not c.pure and c.path == "python" and c.leftovers == ["load 'push'"]


def _tiny_models():
    from phmech._stack import available
    from phmech.mechanisms.tiny import tiny_models
    return tiny_models(firedrake=available())


@pytest.mark.parametrize("name", sorted(_tiny_models()))
def test_the_sparse_jacobian_is_the_dense_one_scattered(name):
    """Above DENSE_JACOBIAN_MAX unknowns the Jacobian is the same kernels' entries scattered into
    their recorded CSR pattern: on the tiny model of every family it equals the dense Jacobian
    entry by entry (the same sums in the same order), and its pattern holds every nonzero."""
    dae = _tiny_models()[name].build().assemble()
    y = _perturbed(dae, 4)
    c = dae.residual()
    J_sparse = c.sparse_jacobian(0.7, y)
    J_dense = c.dense_jacobian(0.7, y)
    assert np.array_equal(J_sparse.toarray(), J_dense)
    assert J_sparse.nnz >= np.count_nonzero(J_dense)


@pytest.mark.parametrize("model", ["loaded crank-slider", "spherical chain"])
def test_the_sparse_jacobian_with_leftovers_and_inputs(model):
    """The sparse Jacobian with a leftover load (its own ``force_q``), time-dependent and
    quaternion-rotated loads and springs equals the dense one."""
    s = {"loaded crank-slider": _loaded_crank_slider, "spherical chain": _spherical_chain}[model]()
    dae = s.assemble()
    y = _perturbed(dae, 4)
    J_sparse = dae.residual().sparse_jacobian(0.7, y).toarray()
    J_kernel = dae.jacobian(0.7, y).toarray()
    assert np.max(np.abs(J_kernel - J_sparse)) <= 1e-14 * np.max(np.abs(J_kernel))


@pytest.mark.parametrize("model", ["loaded crank-slider", "spherical chain", "rigid crank-slider", "sprung bodies",
                                   "network"])
def test_the_powers_at_many_points_are_the_power_at_each(model):
    """The work records of Radau IIA and generalized-alpha take the power at all quadrature nodes
    of a run in one call (time-dependent loads and prescribed velocities, springs, a leftover
    load): each value is the power at its own point, to round-off."""
    if model in _tiny_models():
        s = _tiny_models()[model].build()
    else:
        s = {"loaded crank-slider": _loaded_crank_slider, "spherical chain": _spherical_chain}[model]()
    dae = s.assemble()
    ts = np.linspace(0.1, 0.9, 7)
    Y = np.array([_perturbed(dae, k) for k in range(ts.size)])
    P = dae.powers(ts, Y)
    one = np.array([dae.power(t, y) for t, y in zip(ts, Y)])
    assert np.max(np.abs(P - one)) <= 1e-13 * max(1.0, np.max(np.abs(one)))
    assert np.ptp(one) > 0

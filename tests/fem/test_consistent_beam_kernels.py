"""The consistent beams' kernels: exact Jacobians, one implementation for the Python and the
compiled residual, and the compiled path for models with these beams."""
import numpy as np
from conftest import central_differences, same_midpoint_runs, uncompiled_f_and_jacobian
import pytest

from phmech.assembly.compiled import compiled_residual


def _planar(frame="cantilever", strain="green", n=3):
    from phmech.fem.beam_nonlinear import NonlinearFloatingBeam
    return NonlinearFloatingBeam("p", 1.0, n, 2700.0, 1e-4, 7e10, 1e-9, frame=frame, strain=strain,
                                 position=(0.2, -0.1), angle=0.3)


def _spatial(strain="green", n=2):
    from phmech.fem.beam3d_nonlinear import NonlinearSpatialBeam
    p = np.array([0.9, 0.2, -0.3, 0.25])
    return NonlinearSpatialBeam("s", 141.42, n, 7.8e-3, 9.0, 2.1e6, 6.75, 5.0, strain=strain,
                                position=(1.0, 2.0, -0.5), orientation=p / np.linalg.norm(p))


def _state(beam, seed, scale):
    """A deformed, moving state: random displacement and slope coefficients of size ``scale``,
    random velocities and stresses."""
    rng = np.random.default_rng(seed)
    q = beam.q0.copy()
    n0 = 3 if beam.dim == 2 else 7
    q[n0:] = scale * rng.standard_normal(beam.nq - n0)
    q[:n0] += 0.1 * rng.standard_normal(n0)
    return q, rng.standard_normal(beam.ne)


def _fd(fun, x, h):
    return central_differences(fun, x, h, relative=True)


def _close(A, B, tol):
    """Entrywise, relative to the largest entry of B's row (rows differ by orders of magnitude;
    rows that vanish are compared on 1e-5 of B's largest entry: the round-off of the differences,
    eps |f| / h, is about 1e-10 of it)."""
    A = A.toarray() if hasattr(A, "toarray") else np.asarray(A)
    row = np.maximum(np.max(np.abs(B), axis=1, keepdims=True), max(1e-5 * np.abs(B).max(), 1e-300))
    return np.max(np.abs(A - B) / row) <= tol


BEAMS = [("planar green cantilever", lambda: _planar()),
         ("planar linear simply supported", lambda: _planar("simply_supported", "linear")),
         ("spatial green", lambda: _spatial()), ("spatial linear", lambda: _spatial("linear"))]


@pytest.mark.parametrize("name,make", BEAMS, ids=[b[0] for b in BEAMS])
def test_jacobians_equal_finite_differences(name, make):
    """Both kinematic Jacobians and both effort-term Jacobians of the kernels equal central
    differences of the kernels' values at a deformed, moving state (every term nonzero)."""
    beam = make()
    q, e = _state(beam, 3, 1e-2)
    Tq, Te = beam.qdot_jacobians(q, e)
    f, Dq, De = beam.effort_terms(0.0, q, e)
    assert np.array_equal(f, beam.effort_force(0.0, q, e))
    # the efforts are quadratic in q and e but for sigma(q): truncation (h^2) stays small; the
    # round-off eps |f| / h is the larger error (|f| holds the stiff stress rows)
    h = 1e-5
    assert _close(Tq, _fd(lambda x: beam.qdot(x, e), q, h), 1e-6)
    assert _close(Te, _fd(lambda x: beam.qdot(q, x), e, h), 1e-6)
    assert _close(Dq, _fd(lambda x: beam.effort_force(0.0, x, e), q, h), 1e-6)
    assert _close(De, _fd(lambda x: beam.effort_force(0.0, q, x), e, h), 1e-6)


@pytest.mark.parametrize("name,make", BEAMS, ids=[b[0] for b in BEAMS])
def test_effort_terms_do_no_work(name, make):
    """The state-dependent structure is skew: ``e . f(q, e) = 0`` at any state (to round-off of
    the largest product summed)."""
    beam = make()
    for seed in range(3):
        q, e = _state(beam, seed, 3e-2)
        f = beam.effort_force(0.0, q, e)
        assert abs(e @ f) <= 1e-12 * np.abs(e).max() * np.abs(f).max() * beam.ne


def _hinged_consistent(n=2):
    """A consistent spatial beam on a spherical joint under gravity with an inertial tip force."""
    from phmech import System
    from phmech.fem.beam3d_nonlinear import NonlinearSpatialBeam
    beam = NonlinearSpatialBeam("beam", 141.42, n, 7.8e-3, 9.0, 2.1e6, 6.75, 6.75)
    s = System([beam])
    s.sphere(beam.port("A"), name="hinge")
    s.add_gravity((0.0, 0.0, -9810.0))
    s.apply_force(beam.port("B"), lambda t: (0.0, 50.0 * np.sin(t), 100.0), name="tip")
    return s


def _two_spatial_beams():
    """Two consistent spatial beams (Green and linear strain) joined at a spherical joint."""
    from phmech import System
    from phmech.fem.beam3d_nonlinear import NonlinearSpatialBeam
    from phmech.joints import Spherical
    a = NonlinearSpatialBeam("a", 1.0, 2, 7800.0, 1e-4, 2e11, 1e-9, 1e-9)
    b = NonlinearSpatialBeam("b", 0.8, 3, 7800.0, 1e-4, 2e11, 1e-9, 2e-9, strain="linear", position=(1.0, 0, 0))
    s = System([a, b])
    s.add_joint(Spherical(a.port("A"), None, name="root"))
    s.add_joint(Spherical(a.port("B"), b.port("A"), name="elbow"))
    s.add_gravity((0.0, 0.0, -9.81))
    return s


def _planar_and_spatial():
    """Planar consistent beams on a driven hub (both strain laws): two families in one model."""
    from tests.kernels.test_compiled import _spinning_blades
    return _spinning_blades()


MODELS = {"hinged consistent beam": _hinged_consistent, "two spatial beams": _two_spatial_beams,
          "planar blades": _planar_and_spatial,
          "stiffened crank-slider": lambda: __import__("phmech.validation.crank_slider",
                                                        fromlist=["build"]).build(4, True)[0]}


@pytest.mark.parametrize("model", list(MODELS))
def test_models_with_consistent_beams_run_compiled(model):
    """Models with consistent beams run compiled (no leftovers), the dense Jacobian too."""
    dae = MODELS[model]().assemble()
    c = compiled_residual(dae)
    assert c.pure and c.leftovers == [] and c.path == "compiled" and c.has_jacobian
    assert dae.compiled_residual().path == "compiled"


def test_compiled_midpoint_equals_python_midpoint_on_a_consistent_spatial_beam():
    """The compiled Newton iteration with the spatial beams' kernels reproduces the Python one
    (the beam's own methods): same iterations, same trajectory to round-off, and the midpoint
    rule's discrete power balance H(t) - H(0) = work of the loads."""
    a, _ = same_midpoint_runs(_hinged_consistent(), 0.05)
    H = a.hamiltonian()
    assert abs(H[-1] - H[0] - a.work[-1]) <= 1e-7 * max(abs(a.work[-1]), H.max())


def test_the_beam_kernels_run_as_python_with_the_jit_disabled():
    """With ``NUMBA_DISABLE_JIT=1`` the same kernel source gives the residual and the Jacobian of
    a model with both beam families, equal to the compiled values to round-off."""
    f_py, J_py = uncompiled_f_and_jacobian("fem.test_consistent_beam_kernels", "_two_spatial_beams", 1e-2)
    dae = _two_spatial_beams().assemble()
    y = dae.initial_state() + 1e-2 * np.random.default_rng(3).standard_normal(dae.n)
    f, J = dae.f(0.2, y), dae.jacobian(0.2, y).toarray().ravel()
    assert np.max(np.abs(f - f_py)) <= 1e-13 * np.max(np.abs(f))
    assert np.max(np.abs(J - J_py)) <= 1e-13 * np.max(np.abs(J))


def test_a_subclass_with_its_own_efforts_leaves_the_slot():
    """A body family joins a slot by naming it: a subclass that writes its own effort terms and
    clears ``kernel_slot`` is evaluated by its own methods (a leftover), not by the beams' kernels."""
    from phmech import System
    from phmech.assembly.compiled import PythonFallbackWarning
    from phmech.fem.beam3d_nonlinear import NonlinearSpatialBeam

    class Damped(NonlinearSpatialBeam):
        kernel_slot = None

        def effort_force(self, t, q, e):
            return super().effort_force(t, q, e) - 0.1 * e

    beam = Damped("d", 1.0, 2, 7800.0, 1e-4, 2e11, 1e-9, 1e-9)
    dae = System([beam]).assemble()
    with pytest.warns(PythonFallbackWarning, match="effort terms of 'd'"):
        c = compiled_residual(dae)
    assert c.path == "python" and c.leftovers == ["kinematics of 'd'", "effort terms of 'd'"]
    y = dae.initial_state() + 1e-2 * np.random.default_rng(1).standard_normal(dae.n)
    plain = System([NonlinearSpatialBeam("d", 1.0, 2, 7800.0, 1e-4, 2e11, 1e-9, 1e-9)]).assemble()
    extra = dae.f(0.0, y) - plain.f(0.0, y)             # its own effort force: the beam's minus 0.1 e
    assert np.max(np.abs(extra[dae.se] + 0.1 * y[dae.se])) <= 1e-13 * np.max(np.abs(dae.f(0.0, y)))
    assert np.max(np.abs(np.delete(extra, np.arange(dae.n)[dae.se]))) <= 1e-13 * np.max(np.abs(dae.f(0.0, y)))


@pytest.mark.parametrize("frame", ["inertial", "body"])
def test_frame_moment_is_a_packed_load_with_its_exact_derivative(frame):
    """The moment on a consistent beam's frame runs the packed loads' kernel (gauge-scaled rows):
    its power is ``m . Omega`` with the frame's rate ``Omega = d(q) omega`` in the moment's
    components, and its ``q`` derivative equals central differences at a deformed state."""
    from phmech.fem.beam3d_nonlinear import FrameMoment
    from phmech.forces.loads_kernels import PACKED_SLOT
    beam = _spatial()
    m = np.array([3.0, -2.0, 5.0])
    load = FrameMoment(beam, m, frame=frame)
    assert load.kernel_slot == PACKED_SLOT
    q, e = _state(beam, 5, 1e-2)
    d, _ = beam.frame_scale(q)
    assert d[1] != 1.0                                  # the gauge is active at this state
    R = beam.rotation(q)
    Omega = R @ (d * e[3:6]) if frame == "inertial" else d * e[3:6]
    f = load.force(0.0, q, e)
    assert abs(f @ e[load.cols] - m @ Omega) <= 1e-13 * np.abs(m).sum() * np.abs(Omega).sum()
    Dq = load.force_q(0.0, q, e)
    assert _close(Dq, _fd(lambda x: load.force(0.0, x, e), q, 1e-6), 1e-7)


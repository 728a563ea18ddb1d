"""The floating frame of any form-defined body (phmech.fem.FormBody(floating=True)).

* The planar Euler-Bernoulli beam's forms (P1 / Hermite / DG0 / DG1) given to a FormBody, floating
  with its frame clamped at x = 0 (the velocities there, and the Hermite slope by its trace form,
  given as a user gives them), is the FloatingEulerBernoulliBeam (its own conditions and ports): the same
  M, J0, K and port rows to round-off, and the same modes of a pinned beam under gravity
  (both build their frame blocks with phmech.fem.floating_frame).
* Its free-free modes: three zero modes (the frame) and the Euler-Bernoulli free-free
  frequencies beta_n L = 4.7300, 7.8532 (Blevins, Formulas for natural frequency, table 8-1).
* The inertia shape integrals of a box (mass, centre, inertia tensor) against their closed forms.
* Bad floating input: no density, a density that is not m's, a reference that leaves rigid
  motions, a velocity that is not dim components.
"""
import numpy as np
import pytest

fd = pytest.importorskip("firedrake")

from phmech import System  # noqa: E402
from phmech.fem import FloatingEulerBernoulliBeam, FormBody  # noqa: E402
from phmech.fem.form_body import FormError  # noqa: E402
from phmech.joints import Revolute  # noqa: E402

L, N_EL = 0.3, 8
RHO, A, E, I = 7870.0, np.pi * 6e-3**2 / 4, 2e11, np.pi * 6e-3**4 / 64
RHO_A, EA, EI = RHO * A, E * A, E * I


def beam_forms(n=N_EL, rho_a=RHO_A):
    """The spaces and forms of the planar beam (:mod:`phmech.fem.beam_forms`), given to a
    FormBody of the user's as a user would."""
    from phmech.fem.beam_forms import beam_forms as forms, beam_space
    m, j = forms(rho_a, EA, EI)
    return beam_space(fd.IntervalMesh(n, L)), m, j


def form_beam(n=N_EL, **kw):
    W, m, j = beam_forms(n)
    body = FormBody("fb", W, m, j, velocity=(0, 1), dim=2, floating=True, density=RHO_A,
                    reference=("clamped", 1), fixed=[lambda de: de[1].dx(0) * fd.ds(1)], **kw)
    for end, mk, x in (("A", 1, 0.0), ("B", 2, L)):
        body.add_form_port(end, [lambda de, mk=mk: de[0] * fd.ds(mk), lambda de, mk=mk: de[1] * fd.ds(mk)],
                           [lambda de, mk=mk: de[1].dx(0) * fd.ds(mk)], position=(x, 0.0))
    return body


def test_the_floating_form_beam_is_the_floating_beam():
    fb = form_beam()
    beam = FloatingEulerBernoulliBeam("b", L, N_EL, RHO, A, E, I, frame="cantilever")
    assert fb.ne == beam.ne and fb.nq == beam.nq == 3
    for X, Y in [(fb.M, beam.M), (fb.J0, beam.J0), (fb.K_list[0], beam.K_list[0])]:
        assert abs(X - Y).max() <= 1e-12 * abs(Y).max()
    for end in "AB":       # a trace of the Hermite basis tabulated two ways: zeros at 1e-12 of one
        p, q = fb.port(end), beam.port(end)
        assert np.abs(p.Y - q.Y).max() <= 1e-10 * np.abs(q.Y).max()
        assert np.abs(p.W - q.W).max() <= 1e-10 * np.abs(q.W).max()
    assert fb.mass == pytest.approx(RHO_A * L, rel=1e-13)
    assert fb.center == pytest.approx([L / 2, 0.0], abs=1e-15)
    assert fb.inertia[0, 0] == pytest.approx(RHO_A * L**3 / 3, rel=1e-12)


def pinned_under_gravity(body):
    s = System([body])
    s.add_joint(Revolute(body.port("A"), None, name="pin"))
    s.add_gravity((0.0, -9.81))
    return s


def test_the_form_beam_and_the_beam_have_the_same_modes_under_gravity():
    """A pinned steel rod hanging under gravity (started 0.2 rad aside): the lowest mode is the
    compound pendulum, sqrt(3 g / (2 L)), to the flexibility of the rod (2e-5), and both bodies give the same
    frequencies to the eigen solver's accuracy."""
    ang = -np.pi / 2 + 0.2
    fb = form_beam(orientation=ang)
    beam = FloatingEulerBernoulliBeam("b", L, N_EL, RHO, A, E, I, frame="cantilever", angle=ang)
    w_form = pinned_under_gravity(fb).linearize().eigenmodes(k=3).omega
    w_beam = pinned_under_gravity(beam).linearize().eigenmodes(k=3).omega
    assert np.allclose(w_form, w_beam, rtol=1e-9)
    assert w_form[0] == pytest.approx(np.sqrt(1.5 * 9.81 / L), rel=1e-4)          # -2.2e-5: the flexibility


def test_free_free_modes_of_the_floating_form_beam():
    """No joints: three zero modes (the frame) and the free-free beam, beta L = 4.7300, 7.8532,
    converging at the beam element's order (h^4 in the frequency on these meshes)."""
    bl = np.array([4.730040745, 7.853204624])
    exact = bl**2 * np.sqrt(EI / (RHO_A * L**4))
    errs = []
    for n in (4, 8, 16):
        modes = System([form_beam(n)]).linearize().eigenmodes(k=2)
        assert modes.n_rigid == 3
        errs.append(modes.omega / exact - 1)
    errs = np.array(errs)
    assert np.all(np.abs(errs[-1]) < 1e-4), errs
    p = np.log2(np.abs(errs[:-1, 0] / errs[1:, 0]))
    assert np.all(p > 3.5), p


def box_body(reference=("clamped", 1), density=None, nx=4):
    mesh = fd.BoxMesh(nx, 2, 1, 0.4, 0.1, 0.05)
    V = fd.VectorFunctionSpace(mesh, "CG", 2)
    S = fd.TensorFunctionSpace(mesh, "DG", 1, symmetry=True)
    rho, Eb, nu = 2700.0, 70e9, 0.33

    def m(e, de):
        (v, s), (dv, ds_) = e, de
        return (rho * fd.inner(v, dv) + fd.inner(((1 + nu) * s - nu * fd.tr(s) * fd.Identity(3)) / Eb, ds_)) * fd.dx

    def j(e, de):
        (v, s), (dv, ds_) = e, de
        return (-fd.inner(s, fd.sym(fd.grad(dv))) + fd.inner(fd.sym(fd.grad(v)), ds_)) * fd.dx
    return FormBody("box", V * S, m, j, velocity=(0,), dim=3, floating=True,
                    density=rho if density is None else density, reference=reference)


def test_inertia_shape_integrals_of_a_box():
    """Mass, centre and inertia tensor about the frame origin (a corner) of a 0.4 x 0.1 x 0.05
    box: m = rho a b c, c = (a, b, c) / 2, I_xx = m (b^2 + c^2) / 3, I_xy = -m a b / 4."""
    body = box_body()
    a, b, c, rho = 0.4, 0.1, 0.05, 2700.0
    m = rho * a * b * c
    assert body.mass == pytest.approx(m, rel=1e-12)
    assert body.center == pytest.approx([a / 2, b / 2, c / 2], rel=1e-12)
    exact = m * np.array([[(b**2 + c**2) / 3, -a * b / 4, -a * c / 4],
                          [-a * b / 4, (a**2 + c**2) / 3, -b * c / 4],
                          [-a * c / 4, -b * c / 4, (a**2 + b**2) / 3]])
    assert np.allclose(body.inertia, exact, rtol=1e-12, atol=1e-14 * m)
    # the gyroscopic matrices are skew: H is kept exactly by e^T J(e) e = 0
    for K in body.K_list:
        assert abs(K + K.T).max() <= 1e-14 * abs(K).max()


def test_bad_floating_input_is_named():
    W, m, j = beam_forms()
    with pytest.raises(FormError, match="needs density="):
        FormBody("nodens", W, m, j, velocity=(0, 1), dim=2, floating=True, reference=("clamped", 1))
    with pytest.raises(FormError, match="kinetic form"):
        FormBody("wrongrho", W, m, j, velocity=(0, 1), dim=2, floating=True, density=2 * RHO_A,
                 reference=("clamped", 1))
    with pytest.raises(FormError, match="rigid motion"):
        FormBody("loose", W, m, j, velocity=(0, 1), dim=2, floating=True, density=RHO_A,
                 fixed=[(1, 1)])                       # v_y removed at x = 0, v_x free: a rigid slide left
    with pytest.raises(FormError, match="components"):
        FormBody("onecomp", W, m, j, velocity=(1,), dim=2, floating=True, density=RHO_A,
                 reference=("clamped", 1))
    with pytest.raises(FormError, match="not a boundary marker"):
        FormBody("nomark", W, m, j, velocity=(0, 1), dim=2, floating=True, density=RHO_A,
                 reference=("clamped", 7))
    with pytest.raises(FormError, match="mean_axes"):
        FormBody("mean", W, m, j, velocity=(0, 1), dim=2, floating=True, density=RHO_A, reference="mean_axes")
    with pytest.raises(ValueError, match="only apply to a floating body"):
        FormBody("fixedref", W, m, j, velocity=(0, 1), dim=2, reference=("clamped", 1))

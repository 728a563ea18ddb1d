"""Bodies defined by their pH weak forms (phmech.fem.FormBody): a rod written as 30 lines of
forms against the closed-form frequencies (observed order over four meshes), coupled to a rigid
body through a form port, its energy under the midpoint rule, the Kirchhoff plate's matrices
rebuilt from its forms, and the errors of forms that are no pH system."""
import numpy as np
import pytest

fd = pytest.importorskip("firedrake")

from phmech import PointMass, System  # noqa: E402
from phmech.fem import FormBody  # noqa: E402
from phmech.fem.form_body import FormError  # noqa: E402
from phmech.joints import Revolute  # noqa: E402

L, RHO_A, EA = 2.0, 3.0, 1200.0
C = np.sqrt(EA / RHO_A)


def rod(n, name="rod", j_sign=1.0, rho_a=RHO_A):
    """Axial rod, velocity-force form (CG1 x DG0), fixed at x = 0, a port at x = L (marker 2)."""
    mesh = fd.IntervalMesh(n, L)
    W = fd.FunctionSpace(mesh, "CG", 1) * fd.FunctionSpace(mesh, "DG", 0)

    def m(e, de):
        (v, N), (dv, dN) = e, de
        return (rho_a * v * dv + N * dN / EA) * fd.dx

    def j(e, de):
        (v, N), (dv, dN) = e, de
        return (-N * dv.dx(0) + j_sign * v.dx(0) * dN) * fd.dx

    body = FormBody(name, W, m, j, fixed=[(0, 1)], dim=2)
    body.add_form_port("tip", [lambda de: de[0] * fd.ds(2), None], position=(L, 0.0))
    return body


def frequencies_fixed_free(k):
    return (2 * np.arange(1, k + 1) - 1) * np.pi * C / (2 * L)


def orders(errors):
    e = np.abs(np.asarray(errors))
    return np.log2(e[:-1] / e[1:])


def test_a_rod_of_forms_converges_to_its_closed_form_at_order_two():
    exact = frequencies_fixed_free(3)
    errors = [(System([rod(n)]).linearize().eigenmodes(3).omega - exact) / exact for n in (8, 16, 32, 64)]
    p = orders([e[0] for e in errors])
    assert np.all(np.abs(p - 2.0) < 0.2), p
    assert np.max(np.abs(errors[-1])) < 2e-3


def tip_mass_system(n, mt=1.5):
    r = rod(n)
    tip = PointMass("tip", mt, (L, 0.0))
    s = System([r, tip])
    s.add_joint(Revolute(r.port("tip"), tip.port("P"), name="weld"))
    return s, r, tip


def tip_mass_frequency(mt=1.5):
    """Lowest root of beta L tan(beta L) = rho A L / m_t, omega = c beta."""
    from scipy.optimize import brentq
    x = brentq(lambda x: x * np.tan(x) - RHO_A * L / mt, 1e-9, np.pi / 2 - 1e-12)
    return C * x / L


def test_a_rod_with_a_rigid_tip_mass_through_its_form_port():
    exact = tip_mass_frequency()
    errors = [System.linearize(tip_mass_system(n)[0]).eigenmodes(1).omega[0] / exact - 1 for n in (8, 16, 32)]
    p = orders(errors)
    assert np.all(np.abs(p - 2.0) < 0.25), (errors, p)
    assert abs(errors[-1]) < 1e-3


def test_the_coupled_rod_keeps_its_energy_under_the_midpoint_rule():
    s, r, tip = tip_mass_system(8)
    dae = s.assemble()
    v0 = 0.3
    u = fd.Function(r.space)
    x = fd.SpatialCoordinate(r.mesh)
    u.subfunctions[0].interpolate(v0 * x[0] / L)
    e0 = np.zeros(dae.ne)
    e0[dae.e_slices["rod"]] = r.efforts(u)
    e0[dae.e_slices["tip"].start] = v0
    y0 = dae.initial_state(e0=e0)
    res = s.simulate(0.05, dt=1e-4, y0=y0)
    H = res.hamiltonian()
    assert H[0] > 0
    assert np.max(np.abs(H - H[0])) <= 1e-9 * H[0]


@pytest.mark.parametrize("defect", [None, "indefinite cell", "singular field"])
def test_the_definiteness_check_block_by_block_equals_the_dense_one(monkeypatch, defect):
    """phmech.fem.form_checks._lowest_eigenvalue above its dense size: the blocks of a matrix (here
    200 cell blocks of 3 unknowns, as a discontinuous stress field, and one chain of 300 coupled
    unknowns, as a mass matrix) solved apart give the lowest and the largest eigenvalue of the
    whole Jacobi-scaled matrix (dense eigvalsh of it), with an indefinite cell block or a singular
    chain among them."""
    import scipy.sparse as sp
    from phmech.fem import form_checks as fc
    monkeypatch.setattr(fc, "DENSE_CHECK_MAX", 100)
    rng = np.random.default_rng(3)
    cells = []
    for k in range(200):
        B = rng.standard_normal((3, 3))
        cells.append(B @ B.T + (0.1 if k else (-0.5 if defect == "indefinite cell" else 0.1)) * np.eye(3))
    n = 300
    chain = sp.diags([np.full(n - 1, -1.0), np.full(n, 2.0 if defect == "singular field" else 4.0),
                      np.full(n - 1, -1.0)], [-1, 0, 1]).tolil()
    if defect == "singular field":
        chain[0, 0] = chain[n - 1, n - 1] = 1.0                   # a free chain: the constant is a null vector
    A = sp.block_diag(cells + [chain.tocsr() * 1e-6], format="csr")
    perm = rng.permutation(A.shape[0])                           # the blocks' unknowns interleaved
    A = sp.csr_matrix(A[perm][:, perm])
    low, top = fc._lowest_eigenvalue(A, jacobi=True)
    d = 1.0 / np.sqrt(A.diagonal())
    w = np.linalg.eigvalsh((A.toarray() * d[:, None]) * d[None, :])
    assert top == pytest.approx(np.abs(w).max(), rel=1e-6)
    assert low == pytest.approx(w[0], rel=1e-5, abs=1e-9 * top)
    assert (low <= 1e-10 * top) == (defect is not None)


def test_forms_that_are_no_ph_system_are_named_with_their_defect():
    with pytest.raises(FormError, match="structure form j is not skew-symmetric"):
        rod(4, j_sign=0.5)
    with pytest.raises(FormError, match="energy metric m is not positive definite"):
        rod(4, rho_a=-1.0)


def test_markers_and_ports_on_nothing_are_refused():
    mesh = fd.IntervalMesh(4, 1.0)
    W = fd.FunctionSpace(mesh, "CG", 1) * fd.FunctionSpace(mesh, "DG", 0)

    def m(e, de):
        return (e[0] * de[0] + e[1] * de[1]) * fd.dx

    def j(e, de):
        return (-e[1] * de[0].dx(0) + e[0].dx(0) * de[1]) * fd.dx

    with pytest.raises(FormError, match=r"fixed marker 7 is not a boundary marker.*\[1, 2\]"):
        FormBody("b", W, m, j, fixed=[(0, 7)], dim=2)
    body = FormBody("b", W, m, j, fixed=[(0, 1)], dim=2)
    with pytest.raises(FormError, match=r"marker\(s\) \[5\]"):
        body.add_form_port("p", [lambda de: de[0] * fd.ds(5), None])
    with pytest.raises(ValueError, match="port 'q'.*no mesh entity, or on nodes removed"):
        body.add_form_port("q", [lambda de: de[0] * fd.ds(1), None])

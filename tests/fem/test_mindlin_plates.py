"""Mindlin plates: the soft simple support beside the hard one, and a rigid body attached to a plate."""
import numpy as np
import pytest

fd = pytest.importorskip("firedrake")

from phmech.validation import plate_modes as pm  # noqa: E402

KIRCHHOFF_SS = 2 * np.pi ** 2          # first simply supported square: omega a^2 sqrt(rho h / D)


def ss_square(h_a, support, N, **kw):
    """Unit square, all edges ``support``, ``D = 1`` and ``rho h = 1``."""
    from phmech.fem.plate_mindlin import MindlinPlate
    return MindlinPlate("p", fd.UnitSquareMesh(N, N), h_a, 1.0 / h_a, 12 * (1 - 0.09) / h_a ** 3, 0.3,
                        degree=2, boundary={m: support for m in (1, 2, 3, 4)}, **kw)


def lam1(h_a, support, N):
    p = ss_square(h_a, support, N)
    w, _ = p.natural_frequencies(1)
    return float(p.lam(w, 1.0)[0])


def test_soft_support_is_more_flexible_for_a_thick_plate():
    """h/a = 0.1: the soft support (twisting moment released at the edge) lies below the hard one,
    by a few per cent (the edge layer of Arnold & Falk; here 3.6 %); the hard one is at its
    closed form."""
    hard, soft = lam1(0.1, "simply_supported", 8), lam1(0.1, "soft_simply_supported", 8)
    assert hard == pytest.approx(pm.mindlin_ss_exact(0.1, 1)[0], rel=2e-4)
    assert 0.01 < 1 - soft / hard < 0.1, (soft, hard)


def test_soft_and_hard_supports_reach_kirchhoff_as_the_plate_thins():
    """Both supports tend to the Kirchhoff simply supported square.  The soft support's edge layer
    (width ~h) costs it O(h/a) against the hard one: the gap shrinks with the thickness
    (h/a = 0.1, 0.01, 0.001; by more than 3 per decade, and faster on this mesh, which no longer
    resolves the layer), and at h/a = 1e-4 both are within the mesh's error of 2 pi^2 (1.8e-4)."""
    gaps = []
    for h_a in (0.1, 0.01, 0.001, 1e-4):
        hard, soft = lam1(h_a, "simply_supported", 8), lam1(h_a, "soft_simply_supported", 8)
        assert soft < hard
        gaps.append((hard - soft) / hard)
    assert gaps[1] < gaps[0] / 3 and gaps[2] < gaps[1] / 3, gaps       # at 1e-4: the mesh's own gap
    assert abs(hard / KIRCHHOFF_SS - 1) < 3e-4 and abs(soft / KIRCHHOFF_SS - 1) < 3e-4


def test_soft_support_converges_under_refinement():
    """First frequency of the soft support, h/a = 0.1, meshes 4, 8, 16: the successive changes
    fall (observed order log2 of their ratio: 1.8 here, 2.8 from 8, 16, 32 as the meshes resolve
    the edge layer of width ~h), and the finest change is below 0.3 %."""
    lam = np.array([lam1(0.1, "soft_simply_supported", N) for N in (4, 8, 16)])
    d = np.abs(np.diff(lam))
    order = np.log2(d[0] / d[1])
    assert order > 1.5, (lam, order)
    assert d[1] / lam[-1] < 3e-3
    assert np.all(np.diff(lam) < 0)                  # approached from above on these meshes


def test_soft_support_on_any_edge_and_bad_condition():
    """The soft support needs no straight edge; an unknown condition names the choices."""
    from phmech.fem.plate_mindlin import MindlinPlate
    mesh = fd.UnitDiskMesh(1)
    p = MindlinPlate("disc", mesh, 0.05, 1.0, 1.0, 0.3, boundary={1: "soft_simply_supported"})
    assert p.natural_frequencies(1)[0][0] > 0
    with pytest.raises(ValueError, match="'simply_supported' needs straight edges"):
        MindlinPlate("disc", mesh, 0.05, 1.0, 1.0, 0.3, boundary={1: "simply_supported"})
    with pytest.raises(ValueError, match="soft_simply_supported"):
        MindlinPlate("q", fd.UnitSquareMesh(2, 2), 0.05, 1.0, 1.0, 0.3, boundary={1: "hinged"})


# -- a rigid body on a Mindlin plate ------------------------------------------------------------
H_PLATE, RHO, E_MOD = 0.05, 2700.0, 70e9
M_PLATE = RHO * H_PLATE                      # the unit square's mass [kg]


def plate_with_body(mass, N=6):
    """Hard simply supported Mindlin square (5 cm aluminium) and a small rigid sphere (radius
    5 cm) welded to a patch port at its centre (:class:`~phmech.forces.actuators.AttachedBody`)."""
    from phmech import System
    from phmech.forces.actuators import AttachedBody
    from phmech.fem.plate_mindlin import MindlinPlate
    p = MindlinPlate("plate", fd.UnitSquareMesh(N, N), H_PLATE, RHO, E_MOD, 0.3, degree=2,
                     boundary={m: "simply_supported" for m in (1, 2, 3, 4)})
    port = p.add_patch_port("centre", (0.5, 0.5), 0.1)
    inertia = 0.4 * mass * 0.05 ** 2
    body = AttachedBody("mass", [mass, inertia, inertia], (0.5, 0.5))
    s = System([p, body])
    s.connect(port, body.port("P"), "weld")
    return s, p, port, body, inertia


def static_bounds(p, port, mass, inertia):
    """Bounds of the first frequency of plate + body from the plate alone (no coupled model):
    Rayleigh's quotient of the static deflection ``u`` under a unit centre force (an upper bound)
    and Dunkerley's ``1 / omega^2 <= trace(K^-1 M_total)`` (a lower bound), with the centre
    compliance ``c = Y u``."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla
    v, st = p.velocity_dofs, p.stress_dofs
    B, C, Mv = p.J0[st][:, v], p.M[st][:, st], p.M[v][:, v]
    Y, W = port.Y[2][v], port.W[:2][:, v]
    lu = spla.splu(sp.bmat([[None, B.T], [B, -C]], format="csc"))
    nv, ns = len(v), len(st)

    def flex(F):                                      # K^-1 F, K = B^T C^-1 B
        F = np.atleast_2d(F.T).T
        return lu.solve(np.vstack([F, np.zeros((ns, F.shape[1]))]))[:nv]

    u = flex(Y)[:, 0]
    c = Y @ u
    rayleigh = np.sqrt(c / (u @ (Mv @ u) + mass * c ** 2 + inertia * np.sum((W @ u) ** 2)))
    trace = np.trace(flex(Mv.toarray())) + mass * c + inertia * np.trace(W @ flex(W.T))
    return 1.0 / np.sqrt(trace), rayleigh, c


@pytest.mark.parametrize("ratio", [0.1, 1.0, 10.0])
def test_body_on_plate_between_rayleigh_and_dunkerley(ratio):
    """The coupled first frequency (the assembled system's eigenmodes: plate, body and weld) lies
    between Dunkerley's and Rayleigh's bounds from the plate's static centre compliance; it falls
    below the bare plate's, and Rayleigh's estimate tightens as the body's mass dominates (2 %
    at a tenth of the plate's mass, 2e-5 at ten times)."""
    mass = ratio * M_PLATE
    s, p, port, body, inertia = plate_with_body(mass)
    w1 = s.linearize().eigenmodes(2, method="dense").omega[0]
    lower, upper, _ = static_bounds(p, port, mass, inertia)
    assert lower < w1 <= upper * (1 + 1e-9), (lower, w1, upper)
    assert w1 < p.natural_frequencies(1)[0][0]
    assert upper / w1 - 1 < {0.1: 0.05, 1.0: 5e-3, 10.0: 1e-4}[ratio]


def test_heavy_body_is_a_spring_mass():
    """A body 100 times the plate's mass: the plate is a spring of stiffness 1 / c (its static
    centre compliance), omega -> sqrt(1 / (m c)) within the plate mass's share (0.1 %)."""
    mass = 100 * M_PLATE
    s, p, port, body, inertia = plate_with_body(mass)
    w1 = s.linearize().eigenmodes(1, method="dense").omega[0]
    _, _, c = static_bounds(p, port, mass, inertia)
    assert w1 * np.sqrt(mass * c) == pytest.approx(1.0, abs=2e-3)
    assert w1 * np.sqrt(mass * c) < 1.0                  # the plate's own mass lowers it


def test_body_on_plate_power_balance_and_contact():
    """A force pulse on the body: H(t) - H(0) is the work supplied (midpoint rule), and the body
    moves with the patch it is welded to (the constraint holds along the run)."""
    mass = M_PLATE
    s, p, port, body, _ = plate_with_body(mass, N=4)
    s.apply_force(body.port("P"), lambda t: (0.0, 0.0, -1e4 * float(t < 2e-3)))
    dae = s.assemble()
    r = s.simulate(1e-2, solver="midpoint", dt=1e-4)
    H = r.hamiltonian()
    assert H.max() > 0
    assert np.max(np.abs(r.energy_balance())) < 1e-10 * H.max()
    e = r.y[:, dae.se]
    vz_patch = e[:, dae.e_slices["plate"]] @ port.Y[2]
    vz_body = e[:, dae.e_slices["mass"]] @ body.port("P").Y[2]
    assert np.max(np.abs(vz_patch - vz_body)) < 1e-9 * np.max(np.abs(vz_body))


def test_distributed_soft_support_is_the_serial_one():
    """On one process the PETSc operators of the soft support are the serial plate's (the same
    unknowns removed: the deflection only)."""
    import scipy.sparse as sp
    from phmech.fem.plate_mindlin import MindlinPlate
    from phmech.parallel import mindlin_plate
    bc = {1: "soft_simply_supported", 2: "simply_supported", 3: "clamped"}
    mesh = fd.UnitSquareMesh(3, 3)
    p = MindlinPlate("p", mesh, 0.01, 2700.0, 70e9, 0.3, degree=2, boundary=bc)
    q = mindlin_plate(mesh, 0.01, 2700.0, 70e9, 0.3, degree=2, boundary=bc)
    assert q.ne == p.ne
    for A, B in ((q.E, p.M), (q.J, p.J0)):
        indptr, indices, data = A.getValuesCSR()
        assert abs(sp.csr_matrix((data, indices, indptr), shape=A.getSize()) - B).max() <= 1e-14 * abs(B).max()

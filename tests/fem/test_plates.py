"""Kirchhoff (HHJ) and Mindlin plates: convergence orders, analytic values, thin limit, power balance."""
import numpy as np
import pytest

fd = pytest.importorskip("firedrake")

from phmech.validation import plate_modes as pm  # noqa: E402


def _plate(k=2, N=4, bc=None, model="kirchhoff", h=0.01):
    from phmech.fem.plate import KirchhoffPlate
    from phmech.fem.plate_mindlin import MindlinPlate
    cls = KirchhoffPlate if model == "kirchhoff" else MindlinPlate
    return cls("p", fd.UnitSquareMesh(N, N), h, 2700.0, 70e9, 0.3, degree=k,
               boundary=pm.SS_ALL if bc is None else bc)


@pytest.mark.parametrize("k, meshes", [(1, (4, 8, 16, 32)), (3, (4, 8, 16)),
                                       pytest.param(2, (16, 32, 64), marks=pytest.mark.slow)])
def test_kirchhoff_simply_supported_order(k, meshes):
    """Simply supported square, first mode: the HHJ eigenvalue error is O(h^(2k)).

    (k = 2 is pre-asymptotic below 16 x 16: its error changes sign between 4 x 4 and 8 x 8.)
    """
    t = pm.case_table("kirchhoff_ss", k, meshes, n_modes=2)
    assert np.all(np.abs(t.orders - 2 * k) < 0.5), (t.errors[:, 0], t.orders)
    assert abs(t.errors[-1, 0]) < {1: 3e-3, 2: 1e-8, 3: 1e-8}[k]


def test_mindlin_closed_form_and_order():
    """h/a = 0.1: the closed form (derived in mindlin_ss_exact) is reached at order 6 (k = 3)."""
    t = pm.case_table("mindlin_ss_0.1", 3, (4, 8, 16), n_modes=3)
    assert np.all(np.abs(t.orders - 6.0) < 0.5), t.orders
    assert np.max(np.abs(t.errors[-1])) < 1e-6
    # the closed form: Kirchhoff limit and the thick-plate reduction
    assert abs(pm.mindlin_ss_exact(1e-4, 1)[0] / (2 * np.pi ** 2) - 1) < 1e-6
    assert 0.9 < pm.mindlin_ss_exact(0.1, 1)[0] / (2 * np.pi ** 2) < 0.98


def test_mindlin_thin_limit_does_not_lock():
    """k = 2 (MITC7 reduction): the error on a fixed mesh is the same from h/a = 0.01 to 1e-4, while
    the plain L2 projection of the shear strain degrades as the plate thins."""
    from phmech.fem.plate_mindlin import MindlinPlate

    def err(h_a, reduction, N=8):
        p = MindlinPlate("p", fd.UnitSquareMesh(N, N), h_a, 1.0 / h_a, 12 * (1 - 0.09) / h_a ** 3, 0.3,
                         degree=2, boundary=pm.SS_ALL, reduction=reduction)
        w, _ = p.natural_frequencies(1)
        return w[0] / pm.mindlin_ss_exact(h_a, 1)[0] - 1

    e = {h: err(h, "interpolation") for h in (1e-2, 1e-4)}
    assert 0 < e[1e-2] < 2e-4 and abs(e[1e-4] / e[1e-2] - 1) < 0.2, e
    ep = {h: err(h, "projection") for h in (1e-1, 1e-2)}
    assert ep[1e-2] > 10 * ep[1e-1], ep
    # the Mindlin value itself is within 0.04 % of Kirchhoff at h/a = 0.01
    assert abs(pm.mindlin_ss_exact(0.01, 1)[0] / (2 * np.pi ** 2) - 1) < 4e-4


def test_clamped_disc_order():
    """Clamped circular plate, k = 2 on curved cells: lam_1 -> 10.2158 at order 2k = 4."""
    assert abs(pm.circular_clamped_exact() - 10.2158) < 1e-4
    t = pm.case_table("kirchhoff_circular", 2, (1, 2, 3), n_modes=1)
    assert np.all(np.abs(t.orders - 4.0) < 0.5), t.orders
    assert abs(t.errors[-1, 0]) < 1e-5


def test_cantilever_reference_below_beam_function_bound():
    """The cantilever converges from below towards its extrapolated value (order limited by the corners)."""
    ref, t, order = pm.cantilever_reference((4, 8, 16), 3, n_modes=2)
    assert 1.5 < order < 2.5
    assert np.all(np.diff(t.lam[:, 0]) > 0)
    assert abs(ref[0] - 3.4710) < 5e-4          # Leissa's 3.4917 is a Ritz upper bound
    assert ref[0] < 3.4917


@pytest.mark.parametrize("model, k", [("kirchhoff", 1), ("kirchhoff", 3), ("mindlin", 2)])
def test_structure(model, k):
    """M symmetric positive definite, J0 skew, after the strong conditions."""
    p = _plate(k, 3, {1: "clamped", 3: "simply_supported"}, model)
    M, J = p.M.toarray(), p.J0.toarray()
    assert np.max(np.abs(M - M.T)) <= 1e-14 * np.max(np.abs(M))
    assert np.max(np.abs(J + J.T)) <= 1e-14 * np.max(np.abs(J))
    np.linalg.cholesky(M)


def test_eigen_layer_agrees_with_condensed_modes():
    """System.linearize -> eigenmodes gives the condensed frequencies."""
    from phmech import System
    p = _plate(2, 4)
    modes = System([p]).linearize().eigenmodes(4, method="dense")
    w, _ = p.natural_frequencies(4)
    assert np.allclose(modes.omega, w, rtol=1e-9)


def test_patch_port_is_mesh_independent():
    """The patch mean of a smooth field converges to the continuous weighted mean."""
    from phmech.fem.plate import KirchhoffPlate
    vals = []
    for N in (4, 8, 16):
        p = KirchhoffPlate("p", fd.UnitSquareMesh(N, N), 0.01, 1.0, 1.0, 0.3, degree=2)
        port = p.add_patch_port("P", (0.4, 0.55), 0.15)
        f = fd.Function(p.spaces[0]).interpolate(fd.sin(2 * p.x[0]) * fd.exp(p.x[1]))
        full = np.zeros(len(p._full_to_e))
        full[:p.spaces[0].dim()] = f.dat.data_ro
        vals.append(port.Y[2] @ full[p._keep])
    d = np.abs(np.diff(vals))
    assert d[1] < d[0] / 4
    # reference: the same weighted mean with a fine quadrature of the exact function
    assert abs(vals[-1] - vals[-2]) < 1e-4 * abs(vals[-1])


@pytest.mark.parametrize("model, k", [("kirchhoff", 2), ("mindlin", 2)])
def test_power_balance_midpoint(model, k):
    """Cantilever with a patch force and a pressure: H(t) - H(0) = supplied work (midpoint rule)."""
    from phmech import System
    from phmech.fem.plate import PlateLoad
    p = _plate(k, 4, pm.CANTILEVER, model, h=0.05)
    port = p.add_patch_port("tip", (0.9, 0.3), 0.1)
    s = System([p])
    s.apply_force(port, lambda t: (0.0, 0.0, 1e3 * np.sin(2e3 * t)), frame="body")
    b = p.load_vector(lambda x: 1e4 * (x[1] + 10 * (x[1] - 0.5) ** 2))
    s.add_load(PlateLoad(p, b, lambda t: float(t < 1e-3)))
    r = s.simulate(3e-3, solver="midpoint", dt=2e-5)
    H = r.hamiltonian()
    assert H[-1] > 0
    assert np.max(np.abs(r.energy_balance())) < 1e-10 * np.max(H)


def test_bad_plate_input():
    from phmech.fem.plate import KirchhoffPlate
    from phmech.fem.plate_mindlin import MindlinPlate
    mesh = fd.UnitSquareMesh(2, 2)
    with pytest.raises(ValueError, match=r"plate 'q'.*h=-1.*E=0"):
        KirchhoffPlate("q", mesh, -1.0, 1.0, 0.0, 0.3)
    with pytest.raises(ValueError, match=r"marker 7.*marker 1: unknown condition 'hinged'"):
        KirchhoffPlate("q", mesh, 0.1, 1.0, 1.0, 0.3, boundary={7: "free", 1: "hinged"})
    with pytest.raises(ValueError, match="degree must be an integer >= 2"):
        MindlinPlate("q", mesh, 0.1, 1.0, 1.0, 0.3, degree=1)


def test_plate_rod_heavy_rod_is_a_simple_support():
    """Independent model: a very heavy rod holds the edge x = 1 still (v = 0, slope free), so the
    transformer variant tends to the plate clamped at x = 0 and simply supported at x = 1."""
    from phmech.fem.plate import KirchhoffPlate
    from phmech.validation.plate_rigid import E_MOD, NU, RHO, THICK, PlateRod
    f = PlateRod("transformer", 4, 2, rod_mass=1e9).frequencies(6)
    p = KirchhoffPlate("p", fd.RectangleMesh(4, 4, 1.0, 1.0), THICK, RHO, E_MOD, NU, degree=2,
                       boundary={1: "clamped", 2: "simply_supported"})
    w, _ = p.natural_frequencies(4)
    assert np.all(f[:2] < 1e-3 * f[2])             # the rod bouncing on the plate's stiffness
    assert np.allclose(f[2:], w / (2 * np.pi), rtol=1e-6)


def test_plate_rod_frequencies_converge():
    """First six frequencies of both variants converge (corner-limited order, about 2)."""
    from phmech.validation.plate_rigid import PlateRod
    for variant in ("transformer", "welded"):
        f = np.array([PlateRod(variant, n, 2).frequencies(6) for n in (4, 8, 16)])
        d = np.abs(np.diff(f, axis=0))
        assert np.all(np.log2(d[0, :3] / d[1, :3]) > 1.5), (variant, f)
        assert np.max(d[1] / f[-1]) < 3e-3


def test_plate_rod_power_balance():
    """10 ms-type run (shortened): H(t) - H(0) equals the work of the pressure, all three models."""
    from phmech.validation.plate_rigid import MODELS, run
    out = run(n=4, degree=2, t_end=3e-3, dt=5e-5, plot=False, snapshot_times=(3e-3,))
    for v in MODELS:
        H = out.H_plate[v] + out.H_rod[v]
        assert H.max() > 1.0
        assert np.max(np.abs(out.balance[v])) < 1e-11 * H.max(), v
    # the rod carries energy in both interconnections
    assert out.H_rod["transformer"].max() > 0.01 * out.H_plate["transformer"].max()


def test_plate_commands_write_their_files(tmp_path):
    """The two commands write CSV and a finite summary.json."""
    import json
    from phmech.validation import plate_modes, plate_rigid
    plate_modes.main(["--outdir", str(tmp_path / "m"), "--degrees", "2", "--coarse", "--no-plot"])
    s = json.loads((tmp_path / "m" / "summary.json").read_text())
    assert {t["case"] for t in s["tables"]} >= {"kirchhoff_ss", "mindlin_ss_0.01", "kirchhoff_circular"}
    assert (tmp_path / "m" / "plate_modes.csv").stat().st_size > 0
    plate_rigid.main(["--outdir", str(tmp_path / "r"), "--n", "4", "--tfinal", "1e-3", "--dt", "1e-4"])
    s = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert s["welded"]["power_balance_rel"] < 1e-11
    assert (tmp_path / "r" / "PlateRod_Hamiltonian.png").exists()


def test_free_plate_rigid_modes():
    """A free plate: the three rigid modes (heave and two tilts) come out at zero, with or
    without a negative shift, and the elastic modes after them agree."""
    from phmech.fem.plate import KirchhoffPlate
    p = KirchhoffPlate("p", fd.UnitSquareMesh(6, 6), 1.0, 1.0, 12 * (1 - 0.3 ** 2), 0.3, degree=2)
    w, _ = p.natural_frequencies(5, sigma=-1.0)
    w0, _ = p.natural_frequencies(5)
    assert np.all(w[:3] < 1e-5) and w[3] > 10.0
    assert np.allclose(w[3:], w0[3:], rtol=1e-10)


def test_edge_rows_integrate_velocity_and_rotation():
    """Distributed edge port rows: int w psi ds and int d_n w psi ds on x = 1, exact for polynomials."""
    from phmech.fem.plate import KirchhoffPlate
    p = KirchhoffPlate("p", fd.UnitSquareMesh(3, 3), 0.01, 1.0, 1.0, 0.3, degree=2)
    Yw, Yr = p.edge_rows(2, [lambda x: 1.0 + 0 * x[0], lambda x: x[1]])
    f = fd.Function(p.spaces[0]).interpolate(p.x[0] ** 2 + p.x[1])
    full = np.zeros(len(p._full_to_e))
    full[:p.spaces[0].dim()] = f.dat.data_ro
    e = full[p._keep]
    # w(1, y) = 1 + y; d_n w = 2
    assert np.allclose(Yw @ e, [1.5, 1 / 2 + 1 / 3], rtol=1e-12)
    assert np.allclose(Yr @ e, [2.0, 1.0], rtol=1e-12)

"""Gravity's potential on plates: the first moment of the deflection recovered from the moments."""
import warnings

import numpy as np
import pytest

fd = pytest.importorskip("firedrake")

from phmech import System  # noqa: E402

SS = {m: "simply_supported" for m in (1, 2, 3, 4)}
RHO, E_MOD, NU, G = 2700.0, 70e9, 0.3, 9.81
#: thin Kirchhoff plate; a thick Mindlin plate, where shear adds about 6 % to the deflection
THICKNESS = {"kirchhoff": 0.01, "mindlin": 0.1}


def plate(model, N, boundary=SS):
    from phmech.fem.plate import KirchhoffPlate
    from phmech.fem.plate_mindlin import MindlinPlate
    cls = KirchhoffPlate if model == "kirchhoff" else MindlinPlate
    return cls("p", fd.UnitSquareMesh(N, N), THICKNESS[model], RHO, E_MOD, NU, degree=2, boundary=boundary)


def under_gravity(p):
    s = System([p])
    (load,) = s.add_gravity((0.0, 0.0, -G))
    return s, load


def navier_mean_deflection(model):
    """``int w`` of the simply supported unit square under the uniform load ``rho h g`` (Navier's
    double sine series; for the Mindlin plate with the hard support each term gains the shear
    compliance ``1 / (kappa G h k^2)``)."""
    h = THICKNESS[model]
    q = RHO * h * G
    D = E_MOD * h ** 3 / (12 * (1 - NU ** 2))
    m, n = np.meshgrid(np.arange(1, 800, 2), np.arange(1, 800, 2))
    k2 = np.pi ** 2 * (m ** 2 + n ** 2)
    shear = 1.0 / (5.0 / 6.0 * E_MOD / (2 * (1 + NU)) * h * k2) if model == "mindlin" else 0.0
    # load coefficient 16 q / (pi^2 m n), sine integral 4 / (pi^2 m n)
    return float(np.sum(64 * q / (np.pi ** 4 * m ** 2 * n ** 2) * (1.0 / (D * k2 ** 2) + shear)))


@pytest.mark.parametrize("model", ["kirchhoff", "mindlin"])
def test_h_plus_v_conserved_released_from_rest(model):
    """Released flat from rest, the plate swings about its sagged shape: H rises from zero as V falls,
    and H + V stays constant to round-off (the force is exactly -dV/dt, also for the midpoint
    rule's stress update), through the compiled residual."""
    p = plate(model, 4)
    s, load = under_gravity(p)
    dae = s.assemble()
    assert load.exact_potential and load.name in dae.potential_loads
    assert dae.compiled_residual().path == "compiled"
    w, _ = p.natural_frequencies(1)
    period = 2 * np.pi / w[0]
    r = s.simulate(period, solver="midpoint", dt=period / 100)
    H, V = r.hamiltonian(), dae.potential_energy(r.y)
    assert np.ptp(H) > 0.9 * np.ptp(V) > 0            # the energy really moves between H and V
    assert np.ptp(H + V) < 1e-10 * np.max(H), np.ptp(H + V)
    # the sag of the swing reaches about twice the static one: V_min near 2 V_static = -2 q int w
    V_static = -RHO * THICKNESS[model] * G * navier_mean_deflection(model)
    assert 1.5 < np.min(V) / V_static < 2.1


@pytest.mark.parametrize("model", ["kirchhoff", "mindlin"])
def test_static_potential_clapeyron_and_navier(model):
    """At the static equilibrium under gravity (``B^T S = f``, ``C S = B d``) the potential is minus
    twice the strain energy (Clapeyron), and ``-rho h g int w`` converges to Navier's series."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    errors = []
    for N in (2, 4, 8):
        p = plate(model, N)
        s, _ = under_gravity(p)
        dae = s.assemble()
        v, st = p.velocity_dofs, p.stress_dofs
        B, C = p.J0[st][:, v], p.M[st][:, st]
        f = p.load_vector(lambda x: -RHO * THICKNESS[model] * G)[v]
        x = spla.spsolve(sp.bmat([[None, B.T], [B, -C]], format="csc"), np.r_[f, np.zeros(len(st))])
        y = np.zeros(dae.n)
        y[dae.se.start + st] = x[len(v):]
        U, V = dae.hamiltonian(y), dae.potential_energy(y)
        assert V == pytest.approx(-2 * U, rel=1e-10)
        errors.append(V / (-RHO * THICKNESS[model] * G * navier_mean_deflection(model)) - 1)
    errors = np.abs(errors)
    assert np.all(errors[1:] < errors[:-1] / 4), errors
    assert errors[-1] < 1e-3, errors


def test_free_plate_has_no_potential():
    """A plate free to move rigidly keeps no deflection in its state: gravity acts, its work is
    supplied work (no potential, one warning)."""
    p = plate("kirchhoff", 2, boundary={})
    s, load = under_gravity(p)
    dae = s.assemble()
    assert not load.exact_potential and load.name not in dae.potential_loads
    f = load.force(0.0, np.zeros(0))
    assert np.sum(f) == pytest.approx(-RHO * THICKNESS["kirchhoff"] * G, rel=1e-12)     # the weight
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert dae.potential_energy(dae.initial_state()) == 0.0
    assert any("gravity(p)" in str(c.message) for c in caught)

"""The spatial linear beam as a form body: torsion through a section-spin field of the floating
frame (``FormBody(spin=...)``): its frequencies against Saint-Venant torsion with their observed
order, the frame's rotating-frame terms of the spin momentum (angular momentum of a free beam
spinning about its axis and tumbling), the pH structure of the matrices."""
import numpy as np
import pytest

pytest.importorskip("firedrake")

from phmech import System  # noqa: E402
from phmech.fem.beam3d import FloatingSpatialBeam  # noqa: E402
from phmech.joints.spatial import SpatialJoint  # noqa: E402

L, RHO, A, E, G = 0.5, 7800.0, 1e-4, 2.1e11, 8.0e10
IY, IZ = 8e-10, 2e-9
JT, IP = IY + IZ, IY + IZ


def _beam(n, **kw):
    return FloatingSpatialBeam("b", L, n, RHO, A, E, IY, IZ, G=G, Jt=JT, Ip=IP, **kw)


def test_structure_and_spin_inertia():
    b = _beam(6)
    M, J0 = b.M.toarray(), b.J0.toarray()
    assert np.abs(M - M.T).max() <= 1e-14 * np.abs(M).max() and np.linalg.eigvalsh(M)[0] > 0
    assert np.abs(J0 + J0.T).max() <= 1e-14 * np.abs(J0).max()
    for K in b.K_list:
        K = K.toarray()
        assert np.abs(K + K.T).max() <= 1e-14 * np.abs(K).max()
    # the frame's inertia about its axis: the sections' rho I_p L (a line has none of its own)
    assert b.inertia[0, 0] == pytest.approx(RHO * IP * L, rel=1e-12)
    assert b.inertia[1, 1] == pytest.approx(RHO * A * L ** 3 / 3, rel=1e-12)
    # the spin rate's rigid part is omega_1: a frame spin moves no torsion unknown's equation
    assert np.abs(b.port("B").W[0, 3] - 1.0) < 1e-12 and np.abs(b.port("B").W[0, 4:6]).max() == 0.0


def _torsion_frequency(n):
    """The lowest frequency near the first torsion mode of the beam clamped at A."""
    b = _beam(n)
    s = System([b])
    s.add_joint(SpatialJoint("weld", b.port("A"), None, name="clamp"))
    modes = s.linearize().eigenmodes(12)
    wt = np.pi / (2 * L) * np.sqrt(G * JT / (RHO * IP))
    share = [np.sum(np.abs(modes.vectors[b.fields["wx"], i]) ** 2) / np.sum(np.abs(modes.vectors[:, i]) ** 2)
             for i in range(len(modes.omega))]
    i = int(np.argmax(share))
    return modes.omega[i], wt


def test_torsion_frequency_converges_at_second_order():
    errors = []
    for n in (4, 8, 16):
        w, wt = _torsion_frequency(n)
        errors.append(abs(w / wt - 1.0))
    rates = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert errors[-1] < 2e-3
    assert np.all(rates > 1.8), (errors, rates)


def test_free_spinning_beam_keeps_its_angular_momentum():
    """A free beam spinning about its axis (omega_1 with the sections' w_x at rest relative to the
    frame) and tumbling slowly.  Without the spin momentum's rotating-frame terms the inertial
    angular momentum drifts by 6.7e-4 of itself in this run; with them it keeps it up to the
    linear floating frame's own variation, second order in the small deformation (9e-8 here,
    measured with the deformed moment arms), and the midpoint rule keeps the energy exactly."""
    b = _beam(4)
    s = System([b])
    dae = s.assemble()
    y0 = dae.initial_state()
    e0 = np.zeros(b.ne)
    e0[3], e0[4] = 40.0, 0.5                        # spin about the axis, a slow tumble
    y0[dae.se][dae.e_slices["b"]] = e0
    res = s.simulate(0.05, solver="midpoint", y0=y0, dt=2e-5, dt_out=1e-3)
    Q, Ee = res.q("b"), res.e("b")
    h = np.array([b.inertial_angular_momentum(q, e, deformed=True) for q, e in zip(Q, Ee)])
    assert np.max(np.linalg.norm(h - h[0], axis=1)) < 2e-6 * np.linalg.norm(h[0])
    assert np.max(np.abs(res.energy_balance())) < 1e-9 * res.hamiltonian()[0]

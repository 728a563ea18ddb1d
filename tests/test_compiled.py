"""The compiled paths reproduce the Python reference to round-off."""
import numpy as np
import pytest

from phmech.validation import _classic_compiled as cc
from phmech.validation import _classic_models as cm

pytestmark = pytest.mark.skipif(not cc.available(), reason="numba is not installed")


@pytest.mark.parametrize("Model", [cm.AndrewsSqueezer, cm.SimeonCrank])
def test_classic_kernels_equal_python_models(Model):
    """Right-hand side and Jacobian of the compiled index-2 form equal the Python model's
    at perturbed states (not only the consistent start)."""
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

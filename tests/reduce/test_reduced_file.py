"""A reduced body kept in HDF5 (ReducedBody.save / load): the round trip is equal bit for bit
(matrices, basis, ports, and a run of the loaded body), a process that cannot import Firedrake
loads and runs it, and files of another version, damaged files and files of another model are
refused with their reason."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

h5py = pytest.importorskip("h5py")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from rods import HandRod  # noqa: E402

from phmech import PointMass, System, __version__  # noqa: E402
from phmech.joints import Revolute  # noqa: E402
from phmech.reduce import ReducedBody, ReducedFileError, craig_bampton  # noqa: E402
from conftest import WITHOUT_FIREDRAKE

ROOT = os.path.dirname(os.path.dirname(HERE))


def reduced(n=24, c=0.2, **kw):
    return craig_bampton(HandRod("rod", n, c=c, **kw), ["tip"], 4, outputs=["mid"], eigensolver="scipy")


def run(body, t_end=0.01):
    tip = PointMass("tip", 1.5, (body.port("tip").position[0], 0.0))
    s = System([body, tip])
    s.add_joint(Revolute(body.port("tip"), tip.port("P"), name="weld"))
    dae = s.assemble()
    e0 = np.zeros(dae.ne)
    e0[dae.e_slices["tip"].start] = 0.3
    e0[dae.e_slices[body.name].start + body.basis.rv[0]] = 0.3
    return s.simulate(t_end, dt=1e-4, y0=dae.initial_state(e0=e0))


def test_the_round_trip_is_equal_bit_for_bit(tmp_path):
    red = reduced()
    path = red.save(tmp_path / "rod.h5")
    back = ReducedBody.load(path)
    for k in ("M", "J0", "R"):
        assert np.array_equal(getattr(back, k).toarray(), getattr(red, k).toarray()), k
    for k in ("f", "v", "s", "Vv", "Vs"):
        assert np.array_equal(getattr(back.basis, k), getattr(red.basis, k)), k
    assert list(back.ports) == list(red.ports) and back.exact_ports == red.exact_ports
    for name, p in red.ports.items():
        assert np.array_equal(back.port(name).Y, p.Y) and np.array_equal(back.port(name).position, p.position)
    assert back.identity == red.identity and back.info == red.info
    a, b = run(red), run(back)
    assert np.array_equal(a.y, b.y) and np.array_equal(a.t, b.t)
    assert np.array_equal(back.recover(b.e(back)), red.recover(a.e(red)))


BLOCK = WITHOUT_FIREDRAKE          # the prologue of every subprocess: Firedrake cannot be imported


def test_a_process_without_firedrake_loads_and_runs_it(tmp_path):
    path = reduced().save(tmp_path / "rod.h5")
    code = BLOCK + textwrap.dedent(f"""
        import numpy as np
        from phmech import PointMass, System
        from phmech.joints import Revolute
        from phmech.reduce import ReducedBody
        try:
            import firedrake  # noqa: F401
            raise SystemExit("firedrake imported")
        except ImportError:
            pass
        rod = ReducedBody.load({str(path)!r})
        tip = PointMass("tip", 1.5, (2.0, 0.0))
        s = System([rod, tip])
        s.add_joint(Revolute(rod.port("tip"), tip.port("P"), name="weld"))
        dae = s.assemble()
        e0 = np.zeros(dae.ne)
        e0[dae.e_slices["tip"].start] = 0.3
        e0[dae.e_slices["rod"].start + rod.basis.rv[0]] = 0.3
        res = s.simulate(0.01, dt=1e-4, y0=dae.initial_state(e0=e0))
        H = res.hamiltonian()
        full = rod.recover(res.e(rod))
        print("ok", full.shape[1], abs(res.energy_balance()).max() / H[0] < 1e-10)
        """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[-3:] == ["ok", "48", "True"], proc.stdout


def test_another_version_a_damaged_file_and_another_model_are_refused(tmp_path):
    red = reduced()
    path = str(red.save(tmp_path / "rod.h5"))
    other = str(tmp_path / "old.h5")
    with open(path, "rb") as src, open(other, "wb") as dst:
        dst.write(src.read())
    with h5py.File(other, "r+") as fh:
        fh.attrs["phmech_version"] = "0.1.0"
    with pytest.raises(ReducedFileError, match=rf"written by phmech 0.1.0, this is phmech {__version__}: reduce"):
        ReducedBody.load(other)
    # one changed number of the basis: the checksum no longer matches
    with h5py.File(other, "r+") as fh:
        fh.attrs["phmech_version"] = __version__
        fh["data/basis/Vv"][3, 1] += 1e-9
    with pytest.raises(ReducedFileError, match=r"is damaged: its checksum does not match"):
        ReducedBody.load(other)
    # a truncated file
    with open(path, "rb") as src, open(other, "wb") as dst:
        dst.write(src.read()[:3000])
    with pytest.raises(ReducedFileError, match=r"cannot be read \(truncated or damaged file\?\)"):
        ReducedBody.load(other)
    with pytest.raises(ReducedFileError, match=r"does not exist"):
        ReducedBody.load(tmp_path / "none.h5")
    # the model it was reduced from, and another one (another mesh, another stiffness)
    ReducedBody.load(path, body=HandRod("rod", 24, c=0.2))
    with pytest.raises(ReducedFileError, match=r"reduced from another model than body 'rod': it differs in ne: 48 "
                                               r"in the file, 64 in the body; matrices J0, M, R; ports mid, tip"):
        ReducedBody.load(path, body=HandRod("rod", 32, c=0.2))
    with pytest.raises(ReducedFileError, match=r"differs in matrices M$"):
        ReducedBody.load(path, body=HandRod("rod", 24, c=0.2, ea=1000.0))

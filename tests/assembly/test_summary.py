"""``print(system)`` and ``print(dae)``: bodies, joints, force elements, loads, unknowns, redundant rows."""
import re

import pytest

from phmech.validation.bricard import build as bricard


def rows_of(text, section):
    """The header and the rows (columns: split at two spaces or more) of a section of a summary."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(section + " ("))
    out = []
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        out.append(re.split(r"\s{2,}", line.strip()))
    return lines[start], out


def test_the_system_summary_lists_what_the_model_is_made_of(rigid_crank_slider):
    system, crank, coupler, slider = rigid_crank_slider
    system.add_gravity((0.0, -9.81))
    system.add_spring(crank.port("B"), None, stiffness=10.0, at=(0.3, 0.1), name="spring")
    text = str(system)
    assert text.splitlines()[0] == "System: 3 bodies, 5 joints, 1 force element, 3 loads"
    head, bodies = rows_of(text, "bodies")
    assert head == "bodies (3):"
    assert bodies == [["crank", "PlanarRigidBody", "q 3", "e 3", "ports A, B, P"],
                      ["coupler", "PlanarRigidBody", "q 3", "e 3", "ports A, B, P"],
                      ["slider", "PointMass", "q 2", "e 2", "ports P"]]
    _, joints = rows_of(text, "joints")
    assert [r[:3] for r in joints] == [[j.name, type(j).__name__, f"rows {j.n_rows}"] for j in system.joints]
    assert joints[0][3] == "crank.A - ground" and joints[2][3] == "crank.B - coupler.A"
    _, forces = rows_of(text, "force elements")
    assert forces == [["spring", "SpringDamper", "crank.B - ground"]]
    _, loads = rows_of(text, "loads")
    assert [r[:3] for r in loads] == [[f"gravity({b})", "Gravity", b] for b in ("crank", "coupler", "slider")]
    assert "unknowns: 24 = 8 positions q + 8 efforts e + 8 multipliers lambda" in text
    assert "redundant rows: found at assembly (system.assemble())" in text
    # assembled: the DAE's own counts and its redundant rows, also in print(system)
    dae = system.assemble()
    assert f"unknowns: {dae.n} = {dae.nq} positions q + {dae.ne} efforts e + {dae.nl} multipliers lambda" in str(dae)
    assert str(dae).splitlines()[0].startswith("DescriptorDAE: 3 bodies, 5 joints")
    assert str(dae).endswith("redundant rows: none") and str(system).endswith("redundant rows: none")


def test_the_summary_names_the_redundant_rows():
    system, _ = bricard()
    assert "redundant rows: found at assembly" in str(system)
    dae = system.assemble()
    assert dae.redundant_rows == [("J6", 4)]
    assert str(dae).splitlines()[-1] == "redundant rows (1, multipliers set to zero): J6[4]"
    assert str(system).splitlines()[-1] == "redundant rows (1, multipliers set to zero): J6[4]"


def test_an_empty_system():
    from phmech import System
    text = str(System())
    assert text.splitlines()[:3] == ["System: 0 bodies, 0 joints, 0 force elements, 0 loads", "bodies (0):", "  (none)"]
    assert "unknowns: 0 = 0 positions q + 0 efforts e + 0 multipliers lambda" in text


@pytest.mark.parametrize("obj", ["system", "dae"])
def test_repr_stays_short(obj, rigid_crank_slider):
    """``repr`` (lists, the debugger) is not the summary."""
    system = rigid_crank_slider[0]
    target = system if obj == "system" else system.assemble()
    assert "\n" not in repr(target)


def test_the_flexible_crank_slider(crank_slider4):
    """A beam is one body among the others: its kind and its effort unknowns."""
    text = str(crank_slider4.dae)
    _, bodies = rows_of(text, "bodies")
    coupler = crank_slider4.bodies["coupler"]
    assert bodies[1] == ["coupler", "FloatingEulerBernoulliBeam", "q 3", f"e {coupler.ne}", "ports A, B"]
    dae = crank_slider4.dae
    assert f"unknowns: {dae.n} = {dae.nq} positions q + {dae.ne} efforts e + {dae.nl} multipliers lambda" in text

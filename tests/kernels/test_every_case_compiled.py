"""Every validation case's assembled model runs the compiled residual: no Python leftovers.

Each case of :mod:`phmech.validation` is built here with its own model builder at its
smallest settings (nothing is integrated) and its
:meth:`~phmech.assembly.dae.DescriptorDAE.compiled_residual` is asked which path it takes.
Cases whose model is not an assembled :class:`~phmech.assembly.dae.DescriptorDAE` (the
classic index-2 problems, the plates and the beam assembled as linear matrices) are listed
with the reason; the first test checks that every case of the registry is accounted for.
"""
import warnings

import pytest

from phmech.kernels.jit import numba
from phmech.validation.registry import cases

pytestmark = pytest.mark.skipif(numba is None, reason="numba is not installed")


def _system(module, *args, **kw):
    import importlib
    return lambda: importlib.import_module(f"phmech.validation.{module}").build(*args, **kw)[0].assemble()


def _contact(module, fun, *args, **kw):
    import importlib
    return lambda: getattr(importlib.import_module(f"phmech.validation.{module}"), fun)(*args, **kw)[0].dae


def _pendulum():
    from phmech.validation._contact_pendulum import Pendulum
    return Pendulum()


def _network_chain():
    from phmech import System
    from phmech.massspring.body import network_body
    from phmech.validation._mass_spring_cases import hanging_chain
    body, loads = network_body(hanging_chain(n=3))
    s = System([body])
    for ld in loads:
        s.add_load(ld)
    return s.assemble()


#: the assembled models: label -> (case of the registry, builder of the DescriptorDAE)
MODELS = {
    "bricard": ("bricard", _system("bricard")),
    "bricard box links": ("bricard", _system("bricard", "box")),
    "crank_slider linear coupler": ("crank_slider", _system("crank_slider", 2)),
    "crank_slider consistent coupler": ("crank_slider", _system("crank_slider", 2, True)),
    "four_bar": ("four_bar", _system("four_bar", 2)),
    "hinged_beam linear": ("hinged_beam", _system("hinged_beam", 2)),
    "hinged_beam consistent": ("hinged_beam", _system("hinged_beam", 2, geometric_stiffness=True)),
    "rotating_beam consistent": ("rotating_beam", _system("rotating_beam", "consistent", 2, 10.0)),
    "rotating_beam linear": ("rotating_beam", _system("rotating_beam", "linear", 2, 10.0)),
    "rotating_beam exact": ("rotating_beam", _system("rotating_beam", "exact", 2, 10.0)),
    "spatial_pendulum box": ("spatial_pendulum", _system("spatial_pendulum", "box")),
    "spatial_pendulum equivalent": ("spatial_pendulum", _system("spatial_pendulum", "equivalent")),
    "spatial_pendulum flexible": ("spatial_pendulum", _system("spatial_pendulum", "flexible", EI=1e3, n_elem=2)),
    "spin_up linear": ("spin_up", _system("spin_up", "linear", 2)),
    "spin_up consistent": ("spin_up", _system("spin_up", "consistent", 2)),
    "spin_up stiffened": ("spin_up", _system("spin_up", "stiffened", 2)),
    "spin_up exact": ("spin_up", _system("spin_up", "exact", 2)),
    "elastica loaded cantilever": ("elastica", _system("elastica", 2, (0.0, -1.0), 0.5)),
    "contact_cases block": ("contact_cases", _contact("_contact_simple", "block_model")),
    "contact_cases cradle": ("contact_cases", _contact("_contact_simple", "cradle_model")),
    "contact_cases pendulum": ("contact_cases", lambda: _pendulum().model()[0].dae),
    "bouncing_ball": ("bouncing_ball", _contact("bouncing_ball", "model", 1)),
    "tippe_top": ("tippe_top", _contact("tippe_top", "model")),
    "mass_spring chain as a body": ("mass_spring", _network_chain),
    "actuated_plate level 0": ("actuated_plate", lambda: __import__(
        "phmech.validation.actuated_plate", fromlist=["ActuatedPlate"]).ActuatedPlate(0.28, 2, 0).dae),
    "hub_plate driven hub, 2 x 2": ("hub_plate", _system("hub_plate", 2)),
    "solid_crank_slider coarsest, degree 1": ("solid_crank_slider", _system("solid_crank_slider", 0, 1)),
    "reduced_bodies crank_slider reduced coupler": ("reduced_bodies", lambda: __import__(
        "phmech.validation.reduced_bodies", fromlist=["reduced_crank_slider"]).reduced_crank_slider(2, 2)[0]
        .assemble()),
}

#: models whose leftovers belong to families compiled elsewhere: label -> the family
XFAIL = {}

#: cases of the registry without an assembled DescriptorDAE: case -> what they build instead
NOT_ASSEMBLED = {
    "andrews": "the classic index-2 problem, compiled by validation._classic_compiled",
    "simeon_crank": "the classic index-2 problem, compiled by validation._classic_compiled",
    "plate_rigid": "linear matrices of a plate with a rigid rod, a linear DAEProblem",
    "plate_modes": "eigenvalue problems of plates",
    "beam_convergence": "the matrix exponential of one linear beam",
}


def test_every_registered_case_is_accounted_for():
    """Every case of the registry is either built below or listed with what it builds instead."""
    covered = {case for case, _ in MODELS.values()} | set(NOT_ASSEMBLED)
    assert covered == set(cases()), sorted(set(cases()) ^ covered)


def _params():
    out = []
    for label in MODELS:
        marks = []
        if label in XFAIL:
            marks.append(pytest.mark.xfail(strict=True, reason=f"not compiled yet: {XFAIL[label]}"))
        out.append(pytest.param(label, marks=marks, id=label))
    return out


@pytest.mark.parametrize("label", _params())
def test_the_case_runs_the_compiled_residual(label):
    """The case's model has no Python leftovers: its residual and dense Jacobian are the kernel's
    alone, and one compiled version serves it."""
    dae = MODELS[label][1]()
    with warnings.catch_warnings():
        warnings.simplefilter("error")             # a fallback warns: the test names what is left
        try:
            c = dae.compiled_residual()
        except Warning as w:
            pytest.fail(str(w))
    assert c.leftovers == [] and c.path == "compiled"
    # the kernel families' data typed as those of a lone point mass (every family empty): one
    # compiled version for all
    numba = pytest.importorskip("numba")
    from phmech import PointMass, System
    lone = System([PointMass("m", 1.0)]).assemble().compiled_residual()
    assert numba.typeof(c.families) == numba.typeof(lone.families)
    assert c.has_jacobian

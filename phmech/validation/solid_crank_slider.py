"""Rotating crank-slider with the coupler as a floating 3D elastic solid (thesis validation case).

The mechanism of :mod:`phmech.validation.crank_slider` (rigid crank 0.15 m at
150 rad/s, steel coupler 0.3 m of 6 mm diameter, slider 0.033 kg, started
undeformed at crank angle 0) built of spatial bodies: the coupler is a linear
elastic solid in velocity-stress pH form (:class:`phmech.fem.ElasticSolid`,
degree 2, Poisson's ratio 0.3) on the gmsh mesh ``meshes/coupler_l<level>.msh``,
in a floating frame attached by a 3-2-1 support (the centre of the end face A,
the transverse velocity of a node of the end face B: the chord frame, as the
beam case's simply supported frame); its ends are rigid-interface face ports.
The crank turns in a driven revolute joint about z, the coupler is pinned to it
(revolute about z at the face A), the face B is joined to the slider by a
spherical joint, the slider runs on a prismatic guide along x.

The result is the coupler's midspan deflection: the mean displacement of the
section x = L/2 (the mesh's interior face ``midspan``) against the chord of the
two end faces, in the frame's components (first order in the deformation, as
the linear floating frame), over L; compared with the floating Euler-Bernoulli
beam of the crank-slider case with the solid's section (the area and second
moment of the meshed octagon, computed from the mesh), on several meshes
(``--levels``): its peak on each mesh, the observed order and the beam's peak
against the finest mesh, with the change between the two finest meshes (plus
the beam's shear and rotary-inertia correction, which Euler-Bernoulli leaves
out) as the bound.  With ``--modes`` the finest mesh runs again with its coupler
reduced (:func:`phmech.reduce.craig_bampton`, interface: both end faces, that many
fixed-interface modes): the peak, the energy balance and the time per step against
the full solid's (``reduced`` in the summary, ``reduced.csv``).

Outputs (in ``--outdir``): ``solid_crank_slider.csv`` (time histories of the
finest mesh and the beam's deflection), ``convergence.csv`` (peak per mesh),
the figure ``wM_solid`` (PNG, PDF), ``summary.json`` and the ParaView
collection ``solid_crank_slider.pvd`` of the deforming solid (finest mesh).

    python -m phmech.validation.solid_crank_slider --tfinal 0.1 --levels 0 1 2
"""
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from .._checks import overridden
from ..mechanisms.crank_slider import DATA as BEAM_DATA
from . import _common
from ._spatial_common import output_times

#: the thesis data (:data:`phmech.mechanisms.crank_slider.DATA`) and the solid's Poisson's ratio
DATA = {**BEAM_DATA, "nu": 0.3}
#: the gmsh meshes of the coupler (``scripts/make_meshes.py``; ``meshes/README.md``)
MESH_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "meshes")
#: physical tags of the coupler meshes: the end faces, the mantle, the midspan section
END_A, END_B, MANTLE, MIDSPAN = 1, 2, 3, 4
LEVELS = (0, 1, 2)
#: the coupler's body frame: the mesh turned so that its axis is z, the mechanism's plane x-z
#: (components of the frame: ``TRANSVERSE`` in the plane, ``AXIAL`` along the coupler)
TRANSVERSE, AXIAL = 0, 2
#: the frame's rotation at crank angle 0: body x -> inertial y, y -> z, z -> x
FRAME_ROTATION = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def mesh_file(level):
    """Path of the coupler mesh of refinement ``level`` (10 * 2^level layers along the axis)."""
    path = os.path.join(MESH_DIR, f"coupler_l{int(level)}.msh")
    if not os.path.exists(path):
        raise FileNotFoundError(f"solid_crank_slider: no mesh {path!r} (levels 0, 1, 2 ship in the source "
                                "checkout's meshes/; make them with scripts/make_meshes.py)")
    return path


def coupler_mesh(level):
    """The coupler mesh of ``level`` with its axis turned to z (``(x, y, z) -> (y, z, x)``, a
    rotation): the frame's point reference (a 3-2-1 support, the centre of the face A and the
    transverse velocity of a node of the face B; the body's components in the order x, y, z) then
    is the chord frame of the beam case, simply supported at both pins."""
    import firedrake as fd
    mesh = fd.Mesh(mesh_file(level))
    X = np.array(mesh.coordinates.dat.data_ro)
    mesh.coordinates.dat.data[:] = X[:, [1, 2, 0]]
    return mesh


def build(level=0, degree=2, coupler=None, **overrides):
    """The crank-slider with the solid coupler: ``(system, bodies)``, bodies crank, coupler, slider.

    The crank is a rigid bar (the thesis' mass, a rod's inertia: its axial inertia, which the
    driven joint holds, that of a 6 mm rod); the slider a rigid body of the thesis' mass whose
    rotation the guide holds (its inertia that of a 1 cm cube, no part of the motion).
    ``coupler``: a body with the ports ``A`` and ``B`` in place of the solid (its reduction)."""
    from ..bodies import SpatialRigidBody
    from ..fem import ElasticSolid
    from ..joints import Prismatic, Revolute3, Spherical
    from ..math.rotations import quat_from_matrix
    from ..system import System

    p = overridden(DATA, overrides, "solid_crank_slider")
    Lc, mc, ms = p["L_crank"], p["m_crank"], p["m_slider"]
    crank = SpatialRigidBody("crank", mc, np.diag([mc * p["d"] ** 2 / 8, mc * Lc**2 / 12, mc * Lc**2 / 12]),
                             center=(Lc / 2, 0.0, 0.0), ports={"A": (0.0, 0.0, 0.0), "B": (Lc, 0.0, 0.0)})
    if coupler is None:
        coupler = ElasticSolid("coupler", coupler_mesh(level), p["rho"], p["E"], p["nu"], degree=degree,
                               floating=True, reference=("point", (0.0, 0.0, 0.0)), position=(Lc, 0.0, 0.0),
                               orientation=quat_from_matrix(FRAME_ROTATION))
        coupler.add_face_port("A", END_A)
        coupler.add_face_port("B", END_B, rotation=False)
    slider = SpatialRigidBody("slider", ms, np.full(3, ms * 0.01**2 / 6), position=(Lc + p["L"], 0.0, 0.0))
    system = System([crank, coupler, slider])
    z = (0.0, 0.0, 1.0)
    # the driver prescribes the ground's rate relative to the crank: -omega about z
    system.add_joint(Revolute3(crank.port("A"), None, axis=z, rate=-p["omega"], name="crank bearing and motor"))
    system.add_joint(Revolute3(crank.port("B"), coupler.port("A"), axis=z, name="crank pin"))
    system.add_joint(Spherical(coupler.port("B"), slider.port("P"), name="slider pin"))
    system.add_joint(Prismatic(slider.port("P"), None, axis=(1.0, 0.0, 0.0), name="guide"))
    return system, {"crank": crank, "coupler": coupler, "slider": slider}


def rigid_start(**overrides):
    """The bodies' initial motion at crank angle 0, inertial components: the crank turning at
    ``omega``, the coupler's frame moving with the crank pin (``omega L_crank`` along y) and turning
    at ``-omega L_crank / L``, the slider at rest (the dead centre) -- the rigid kinematics, so that
    the solid starts undeformed at rest in its frame (the joints are redundant for the frames alone:
    a projection of these velocities would spread over the elastic field)."""
    p = overridden(DATA, overrides, "solid_crank_slider")
    w, Lc = p["omega"], p["L_crank"]
    return {"crank": {"velocity": (0.0, 0.0, 0.0), "angular_velocity": (0.0, 0.0, w)},
            "coupler": {"velocity": (0.0, w * Lc, 0.0), "angular_velocity": (0.0, 0.0, -w * Lc / p["L"])},
            "slider": {"velocity": (0.0, 0.0, 0.0), "angular_velocity": (0.0, 0.0, 0.0)}}


def section(coupler):
    """Area and second moment for bending in the mechanism's plane of the coupler's end face A
    (the meshed section)."""
    import firedrake as fd
    ds = fd.ds(END_A, domain=coupler.mesh)
    x = fd.SpatialCoordinate(coupler.mesh)
    return float(fd.assemble(fd.Constant(1.0) * ds)), float(fd.assemble(x[TRANSVERSE] ** 2 * ds))


def section_rows(coupler):
    """Rows ``{"A", "mid", "B"}`` (3 x ne each) on the displacement vector
    (:meth:`~phmech.fem.form_body.FormBody.displacement`) of the mean displacement (frame
    components: :data:`TRANSVERSE`, :data:`AXIAL`) of the end face A, the midspan section and the
    end face B."""
    import firedrake as fd
    mesh = coupler.mesh
    out = {}
    for key, measure in (("A", fd.ds(END_A, domain=mesh)), ("mid", fd.dS(MIDSPAN, domain=mesh)),
                         ("B", fd.ds(END_B, domain=mesh))):
        side = (lambda f: f("+")) if key == "mid" else (lambda f: f)
        area = float(fd.assemble(fd.Constant(1.0) * measure))
        out[key] = np.array([coupler.row(lambda de, k=k: side(de[0])[k] * measure, f"the section {key}")
                             for k in range(3)]) / area
    return out


def deflections(u, L):
    """The midspan deflection over ``L`` against the chord of the end faces' centroids, first order
    in the deformation (``u``: the section means of :func:`section_rows`):
    axial ``(u_a(L/2) - u_a(A)) / L`` and transverse ``(u_t(L/2) - (u_t(A) + u_t(B)) / 2) / L``."""
    a, t = AXIAL, TRANSVERSE
    return ((u["mid"][..., a] - u["A"][..., a]) / L,
            (u["mid"][..., t] - 0.5 * (u["A"][..., t] + u["B"][..., t])) / L)


def _face_points(coupler, port, result, u_face):
    """Inertial positions of the deformed centroid of a face of the coupler at each output time:
    the frame's placement of the port's point moved by the face's mean displacement."""
    c = coupler.port(port).position
    Q = result.q(coupler)
    return np.array([q[:3] + coupler.rotation(q) @ (c + u) for q, u in zip(Q, u_face)])


def crank_pin_points(bodies, result, u_A):
    """``(crank's B, the coupler's face A)`` positions over the run."""
    crank = bodies["crank"]
    xc = np.array([crank.port_position(q, crank.port("B")) for q in result.q(crank)])
    return xc, _face_points(bodies["coupler"], "A", result, u_A)


def slider_pin_points(bodies, result, u_B):
    """``(the coupler's face B, the slider's point)`` positions over the run."""
    slider = bodies["slider"]
    xs = np.array([slider.port_position(q, slider.port("P")) for q in result.q(slider)])
    return _face_points(bodies["coupler"], "B", result, u_B), xs


def pin_gap(points):
    """Distance of the two points of a pin at each output time [m]: its position-level residual
    with the deformation (the joint's own residual places a face port by its frame only)."""
    a, b = points
    return np.linalg.norm(a - b, axis=1)


@dataclass
class SolidRun:
    """Histories of one run of the solid crank-slider (one mesh)."""

    level: int
    result: object
    ux_mid: np.ndarray        # axial midspan displacement / L, coupler frame
    uy_mid: np.ndarray        # transverse midspan deflection against the chord / L
    histories: dict           # hamiltonian, energy balance, constraint residual, pin gaps
    summary: dict


def simulate(level=0, t_end=0.1, dt=1e-4, dt_out=2e-4, degree=2, progress=False, solver_options=None,
             modes=None, **overrides):
    """Run the solid crank-slider on the mesh ``level`` with the midpoint rule: a :class:`SolidRun`;
    ``modes``: with the coupler reduced to that many fixed-interface modes (interface: its ports
    ``A`` and ``B``; the reduction's time in the summary)."""
    tic = time.perf_counter()
    system, bodies = build(level, degree, **overrides)
    solid = coupler = bodies["coupler"]
    L = DATA["L"] if "L" not in overrides else overrides["L"]
    rows = section_rows(solid)
    area, second = section(solid)
    t_reduce = None
    if modes is not None:
        from ..reduce import craig_bampton
        tic_r = time.perf_counter()
        coupler = craig_bampton(solid, ["A", "B"], modes)
        t_reduce = time.perf_counter() - tic_r
        system, bodies = build(level, degree, coupler=coupler, **overrides)
        rows = {k: r[:, solid.velocity_dofs] for k, r in rows.items()}    # on the recovered displacement
    dae = system.assemble()
    y0 = dae.initial_state(velocities=rigid_start(**overrides))
    t_build = time.perf_counter() - tic
    t_eval = output_times(t_end, dt_out)
    res = system.simulate(t_end, solver="midpoint", y0=y0, dt=dt, t_eval=t_eval, progress=progress,
                          **(solver_options or {}))
    u = coupler.displacement(res.e(coupler))
    us = {k: u @ r.T for k, r in rows.items()}
    ux, uy = deflections(us, L)
    crank_pin = pin_gap(crank_pin_points(bodies, res, us["A"]))
    slider_pin = pin_gap(slider_pin_points(bodies, res, us["B"]))
    H, bal, cres = res.hamiltonian(), res.energy_balance(), res.constraint_residual()
    k = int(np.argmax(np.abs(uy)))
    s = {"level": int(level), "degree": int(degree), "cells": int(solid.mesh.num_cells()),
         "coupler_unknowns": int(coupler.ne), "modes": modes, "reduction_time_s": t_reduce,
         "time_per_step_s": res.stats["wall_time"] / max(res.stats["nsteps"], 1), "n_variables": int(dae.n), "section_area_m2": area,
         "section_second_moment_m4": second, "coupler_mass_kg": float(coupler.mass), "build_time_s": t_build,
         "stats": res.stats, "uy_mid_max_abs_over_L": float(abs(uy[k])), "uy_mid_peak_over_L": float(uy[k]),
         "t_of_uy_mid_max": float(res.t[k]), "uy_mid_end_over_L": float(uy[-1]),
         "ux_mid_max_abs_over_L": float(np.max(np.abs(ux))),
         "energy_balance_max_abs_J": float(np.max(np.abs(bal))), "hamiltonian_max_J": float(np.max(H)),
         "constraint_residual_max": float(np.max(cres)),
         "crank_pin_gap_max_m": float(np.max(crank_pin)), "slider_pin_gap_max_m": float(np.max(slider_pin)),
         "u_end_max_abs_m": float(max(np.max(np.abs(us["A"])), np.max(np.abs(us["B"]))))}
    hist = {"hamiltonian": H, "energy_balance": bal, "constraint_residual": cres, "crank_pin_gap": crank_pin,
            "slider_pin_gap": slider_pin}
    return SolidRun(int(level), res, ux, uy, hist, s)


def beam_reference(area, second, t_end=0.1, dt=1e-4, dt_out=2e-4, n_elem=16, **overrides):
    """The crank-slider case's floating Euler-Bernoulli coupler with the section ``area``,
    ``second`` (moment) of the solid: the :class:`~phmech.validation.crank_slider.CrankSliderResult`."""
    from ..fem import FloatingEulerBernoulliBeam
    from . import crank_slider
    p = overridden(DATA, overrides, "solid_crank_slider")
    beam = FloatingEulerBernoulliBeam("coupler", p["L"], n_elem, p["rho"], area, p["E"], second,
                                      frame="simply_supported", position=(p["L_crank"], 0.0))
    beam_overrides = {k: v for k, v in overrides.items() if k in BEAM_DATA}
    return crank_slider.run(t_end, n_elem, dt=dt, dt_out=dt_out, plot=False, coupler=beam, **beam_overrides)


def timoshenko_correction(area, second, L, nu, kappa=None):
    """Relative flexibility that shear and rotary inertia add to the Euler-Bernoulli beam in its
    first pinned-pinned mode, ``(pi r / L)^2 (1 + 2 (1 + nu) / kappa)`` (``r^2 = I / A``; the
    shear coefficient of a round section ``kappa = 6 (1 + nu) / (7 + 6 nu)`` by default): the
    order of the difference between the 3D solid and the beam."""
    kappa = 6 * (1 + nu) / (7 + 6 * nu) if kappa is None else kappa
    return float((np.pi / L) ** 2 * second / area * (1 + 2 * (1 + nu) / kappa))


@dataclass
class SolidCrankSliderResult(_common.CaseResult):
    """The runs on each mesh, the beam reference and their comparison (``result``: the finest
    mesh's solver result)."""

    result: object
    runs: list
    beam: object
    t: np.ndarray
    uy_mid: np.ndarray        # of the finest mesh
    uy_beam: np.ndarray


def reduced_comparison(full, modes, t_end, dt, dt_out, degree=2, progress=False, **overrides):
    """The finest mesh's run ``full`` (a :class:`SolidRun`) against its coupler reduced to each number
    of ``modes``: ``(runs, table)``, the table one dict per reduction (peak and its difference to the
    full peak, the largest difference of the histories over the full peak, the energy balance,
    the time per step and the full run's over it)."""
    runs, table = [], []
    f = full.summary
    for k in modes:
        r = simulate(full.level, t_end, dt, dt_out, degree, progress=progress, modes=int(k), **overrides)
        s = r.summary
        runs.append(r)
        table.append({"modes": int(k), "coupler_unknowns": s["coupler_unknowns"],
                      "reduction_time_s": s["reduction_time_s"],
                      "uy_mid_max_abs_over_L": s["uy_mid_max_abs_over_L"],
                      "peak_rel_difference": s["uy_mid_max_abs_over_L"] / f["uy_mid_max_abs_over_L"] - 1,
                      "history_difference_over_peak": float(np.max(np.abs(r.uy_mid - full.uy_mid))
                                                            / f["uy_mid_max_abs_over_L"]),
                      "energy_balance_max_abs_J": s["energy_balance_max_abs_J"],
                      "time_per_step_s": s["time_per_step_s"],
                      "speedup_per_step": f["time_per_step_s"] / s["time_per_step_s"]})
    return runs, table


def run(t_end=0.1, levels=LEVELS, dt=1e-4, dt_out=2e-4, degree=2, n_elem=16, outdir=None, plot=True, vtk=True,
        vtk_frames=100, progress=False, modes=(), **overrides):
    """Simulate the solid crank-slider on the meshes ``levels`` and the beam with the solid's
    section; write CSV, figure, ParaView files and summary.json when ``outdir`` is given.

    Returns a :class:`SolidCrankSliderResult`: its summary holds each mesh's run
    (``meshes``), the beam's peak (``beam``) and the comparison (``comparison``):
    ``peak_finest``, ``peak_beam``, ``difference_rel`` (finest against the beam, relative to the
    beam), ``mesh_change_rel`` (the change of the peak between the two finest meshes), the
    observed orders of the peak's changes (three meshes or more), ``beam_model_bound_rel``
    (:func:`timoshenko_correction`: what Euler-Bernoulli leaves out) and
    ``within_mesh_convergence``: the difference to the beam no larger than the change between
    the two finest meshes plus that bound; with ``modes``, ``reduced``: the finest mesh against its
    reductions (:func:`reduced_comparison`).
    """
    levels = sorted(int(v) for v in levels)
    if not levels:
        raise ValueError("solid_crank_slider: give at least one mesh level")
    runs = [simulate(lv, t_end, dt, dt_out, degree, progress=progress, **overrides) for lv in levels]
    finest = runs[-1]
    s0 = finest.summary
    beam = beam_reference(s0["section_area_m2"], s0["section_second_moment_m4"], t_end, dt, dt_out, n_elem,
                          **overrides)
    peak_beam = float(beam.summary["uy_mid_max_abs_over_L"])
    uy_beam = np.interp(finest.result.t, beam.t, beam.uy_mid)      # the same output times, by construction
    peaks = np.array([r.summary["uy_mid_max_abs_over_L"] for r in runs])
    p = overridden(DATA, overrides, "solid_crank_slider")
    bound = timoshenko_correction(s0["section_area_m2"], s0["section_second_moment_m4"], p["L"], p["nu"])
    cmp = {"peak_finest": float(peaks[-1]), "peak_beam": peak_beam,
           "difference_rel": float((peaks[-1] - peak_beam) / peak_beam),
           "mesh_change_rel": float(abs(peaks[-1] - peaks[-2]) / peak_beam) if len(peaks) > 1 else None,
           "beam_model_bound_rel": bound,
           "history_difference_rel": float(np.max(np.abs(finest.uy_mid - uy_beam)) / peak_beam)}
    if len(peaks) > 2:
        d = np.abs(np.diff(peaks))
        cmp["observed_orders"] = [float(v) for v in np.log2(d[:-1] / d[1:])] if np.all(d > 0) else None
    if cmp["mesh_change_rel"] is not None:
        cmp["within_mesh_convergence"] = bool(abs(cmp["difference_rel"]) <= cmp["mesh_change_rel"] + bound)
    summary = {"parameters": {**p, "t_end": t_end, "levels": levels, "degree": degree, "beam_n_elem": n_elem},
               "model": "floating 3D linear elastic solid (velocity-stress pH form), chord frame (3-2-1 support)",
               "reference": "floating Euler-Bernoulli beam (simply supported frame) with the meshed section",
               "solver": "midpoint", "dt": dt,
               "meshes": [r.summary for r in runs],
               "beam": {"uy_mid_max_abs_over_L": peak_beam, "t_of_uy_mid_max": beam.summary["t_of_uy_mid_max"],
                        "energy_balance_max_abs_J": beam.summary["energy_balance_max_abs_J"]},
               "comparison": cmp}
    if modes:
        summary["reduced"] = reduced_comparison(finest, modes, t_end, dt, dt_out, degree, progress, **overrides)[1]
    out = SolidCrankSliderResult(runs=runs, beam=beam, t=finest.result.t, uy_mid=finest.uy_mid, uy_beam=uy_beam,
                                 result=finest.result, summary=summary)
    if outdir is not None:
        out.files += write(out, outdir, plot, vtk, vtk_frames)
    return out


def write(out, outdir, plot=True, vtk=True, vtk_frames=100):
    """Write the CSV files, the figure, the ParaView series and summary.json; returns the paths."""
    s = out.summary
    finest = out.runs[-1]
    notes = [f"model: {s['model']}; reference: {s['reference']}; parameters: {_common.notes_of(s['parameters'])}"]
    files = [_common.result_csv(finest.result, os.path.join(outdir, "solid_crank_slider.csv"), {
        "crank_angle": _crank_angle(finest), "slider_x": finest.result.q("slider")[:, 0],
        "ux_mid_over_L": finest.ux_mid, "uy_mid_over_L": finest.uy_mid, "uy_mid_beam_over_L": out.uy_beam,
        **finest.histories},
        case="solid_crank_slider", notes=notes + [f"solid histories of the mesh level {finest.level}"])]
    if s.get("reduced"):
        keys = list(s["reduced"][0])
        files.append(_common.write_csv(os.path.join(outdir, "reduced.csv"),
                                       {k: [row[k] for row in s["reduced"]] for k in keys}, case="solid_crank_slider",
                                       notes=notes + [f"the coupler of mesh level {finest.level} reduced "
                                                      "(Craig-Bampton, interface: both end faces)"]))
    files.append(_common.write_csv(os.path.join(outdir, "convergence.csv"), {
        "level": [r.level for r in out.runs], "cells": [r.summary["cells"] for r in out.runs],
        "coupler_unknowns": [r.summary["coupler_unknowns"] for r in out.runs],
        "uy_mid_max_abs_over_L": [r.summary["uy_mid_max_abs_over_L"] for r in out.runs],
        "energy_balance_max_abs_J": [r.summary["energy_balance_max_abs_J"] for r in out.runs]},
        case="solid_crank_slider",
        notes=notes + [f"beam peak uy_mid_max_abs_over_L = {s['beam']['uy_mid_max_abs_over_L']:.8g}"]))
    if plot:
        plt = _common.figure_style()
        fig = figure(out)
        files += _common.savefig(fig, outdir, "wM_solid")
        plt.close(fig)
    if vtk:
        every = max(1, len(finest.result.t) // max(1, vtk_frames))
        files += finest.result.to_pvd(os.path.join(outdir, "solid_crank_slider.pvd"), every=every)
    files.append(_common.write_summary(outdir, "solid_crank_slider", s))
    return files


def _crank_angle(run_):
    q = run_.result.q("crank")
    return np.unwrap(2.0 * np.arctan2(q[:, 6], q[:, 3]))


def figure(out):
    """The midspan deflection of every mesh and of the beam over time."""
    plt = _common.figure_style()
    fig, ax = plt.subplots()
    for r in out.runs:
        ax.plot(r.result.t, r.uy_mid, lw=1.0, label=f"solid, mesh {r.level} ({r.summary['cells']} tetrahedra)")
    ax.plot(out.t, out.uy_beam, "k--", lw=1.0, label=f"beam, {out.summary['parameters']['beam_n_elem']} elements")
    ax.legend(fontsize="small")
    ax.set_xlabel("time [s]")
    ax.set_ylabel(r"$u_f^y(L/2)/L$ [-]")
    ax.set_title(f"coupler midspan, transverse: 3D solid and beam\nmidpoint, dt = {out.summary['dt']:g} s",
                 fontsize="small")
    return fig


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0], tfinal=0.1, dt=1e-4)
    p.add_argument("--levels", type=_common.non_negative_int, nargs="+", default=list(LEVELS),
                   help="coupler mesh levels (meshes/coupler_l<level>.msh)")
    p.add_argument("--degree", type=int, choices=(1, 2), default=2, help="velocity degree of the solid")
    p.add_argument("--n-elem", type=_common.positive_int, default=16, help="elements of the beam reference")
    p.add_argument("--dt-out", type=_common.positive_float, default=2e-4, help="output spacing [s]")
    p.add_argument("--no-vtk", action="store_true", help="do not write ParaView files")
    p.add_argument("--modes", type=_common.positive_int, nargs="*", default=[],
                   help="also run the finest mesh with its coupler reduced to these numbers of modes")
    args = p.parse_args(argv)
    if args.solver != "midpoint":
        p.error("solid_crank_slider runs the midpoint rule only (--solver midpoint)")
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []  # keep PETSc from reading our options
    out = run(args.tfinal, args.levels, args.dt, args.dt_out, args.degree, args.n_elem, outdir=args.outdir,
              plot=not args.no_plot, vtk=not args.no_vtk, progress=sys.stderr.isatty(), modes=args.modes)
    s, c = out.summary, out.summary["comparison"]
    print(f"solid crank-slider: t_end = {args.tfinal} s, midpoint, dt = {args.dt} s")
    for m in s["meshes"]:
        print(f"  mesh {m['level']}: {m['cells']} tetrahedra, {m['coupler_unknowns']} unknowns, "
              f"max |u_y(L/2)|/L = {m['uy_mid_max_abs_over_L']:.6f} at t = {m['t_of_uy_mid_max']:.5f} s, "
              f"energy balance {m['energy_balance_max_abs_J']:.2e} J, wall time {m['stats']['wall_time']:.1f} s")
    print(f"  beam ({args.n_elem} elements, the solid's section): max |u_y(L/2)|/L = {c['peak_beam']:.6f}; "
          f"finest mesh against it {c['difference_rel']:+.2%}"
          + (f", change between the two finest meshes {c['mesh_change_rel']:.2%}" if c["mesh_change_rel"] is not None
             else ""))
    for r in s.get("reduced", []):
        print(f"  reduced to {r['modes']} modes ({r['coupler_unknowns']} unknowns, reduced in "
              f"{r['reduction_time_s']:.1f} s): max |u_y(L/2)|/L = {r['uy_mid_max_abs_over_L']:.6f} "
              f"(relative to the full solid's {r['peak_rel_difference']:+.1e}), histories within "
              f"{r['history_difference_over_peak']:.1e} of the peak, energy balance "
              f"{r['energy_balance_max_abs_J']:.2e} J, {r['speedup_per_step']:.0f}x faster per step")
    print(f"  wrote {len(out.files)} files to {args.outdir}")


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

"""Large deflections of a cantilever: the geometrically exact beam against the elastica.

A cantilever of length ``L = 1`` and bending stiffness ``EI = 1`` (axial
stiffness ``EA = 1e4``, shear stiffness ``k G A = 3.2e3``), clamped at
``X = 0``, is loaded at its tip by

* a dead vertical force ``P = alpha EI / L^2`` for ``alpha = 1, 2, 5, 10``
  (the benchmark of Bisshopp & Drucker 1945 and Mattiasson 1981), and
* an end moment ``2 pi EI / L``, which rolls it into a full circle (the tip
  returns to the root, exactly, for any axial and shear stiffness);
* in space (:class:`~phmech.fem.beam_exact3d.GeometricallyExactBeam3D`, a
  circular section with ``G = E / 2`` so that ``G J_t = EI``), a follower end
  moment ``EI kappa`` fixed in the tip section's axes, ``kappa L = 1.4 pi
  (0.6, 0, 0.8)``: bending and torsion coupled, the beam rolls into the helix of
  constant material curvature ``kappa``, whose tip position and rotation are the
  exponential of a 4 x 4 matrix (exact).

The beam is :class:`~phmech.fem.beam_exact.GeometricallyExactBeam`; the static
solutions come from :func:`~phmech.solvers.static.equilibrium` with load
stepping.  The reference is the solution of Reissner's beam equations with
the same stiffnesses by shooting (:mod:`phmech.validation._elastica`); the
inextensible, shear-rigid elastica (the same solver with infinite ``EA`` and
``GA``) and Mattiasson's published tip deflections are listed beside it.  The
observed order is the log2 of the ratios of successive errors of the tip
(position and angle, the largest component).

Outputs (in ``--outdir``): ``elastica.csv`` (every load and mesh),
``roll_up.csv``, ``helix.csv``, the figures ``elastica_shapes`` and ``elastica_convergence``
and ``summary.json``.

    python -m phmech.validation.elastica --outdir out/elastica
"""
import math
import os
import sys

import numpy as np
import scipy.linalg as sla

from . import _common
from ._elastica import cantilever

#: the section (unit length, EI = 1) and the loads of the table
DATA = dict(L=1.0, rho=1.0, A=1.0, E=1e4, I=1e-4)
LOADS = (1.0, 2.0, 5.0, 10.0)
#: Mattiasson (1981), Table 1: tip deflection w / L of the inextensible elastica at alpha = 1, 2, 5, 10
MATTIASSON_W = {1.0: 0.30172, 2.0: 0.49346, 5.0: 0.71379, 10.0: 0.81061}
#: the helix's material curvature times L
HELIX = 1.4 * math.pi * np.array([0.6, 0.0, 0.8])


def helix_tip(kappa, L=1.0):
    """Tip position and rotation of the helix ``R' = R [kappa]_x``, ``r' = R e_1`` from the origin
    with ``R = I``: the exponential of the 4 x 4 matrix ``[[kappa_x, e_1], [0, 0]] L``."""
    A = np.zeros((4, 4))
    A[:3, :3] = [[0.0, -kappa[2], kappa[1]], [kappa[2], 0.0, -kappa[0]], [-kappa[1], kappa[0], 0.0]]
    A[0, 3] = 1.0
    X = sla.expm(A * L)
    return X[:3, 3], X[:3, :3]


def helix(n_elem, degree=2, load_steps=8):
    """The spatial cantilever under the follower end moment ``EI kappa``; returns ``(tip position,
    tip rotation, error against the helix)``."""
    from .. import System
    from ..fem.beam_exact3d import GeometricallyExactBeam3D
    from ..solvers.static import equilibrium

    p = DATA
    beam = GeometricallyExactBeam3D("beam", p["L"], n_elem, p["rho"], p["A"], p["E"], p["I"], G=p["E"] / 2,
                                    degree=degree)
    s = System([beam])
    s.clamp(beam.port("A"), name="clamp")
    s.apply_moment(beam.port("B"), beam.stiffness[4] * HELIX / p["L"], frame="body", name="tip moment")
    dae = s.assemble()
    q = equilibrium(dae, load_steps=load_steps)[dae.sq]
    tip = beam.port("B")
    r, R = beam.port_position(q, tip), beam.port_rotation(q, tip)
    r_ex, R_ex = helix_tip(HELIX / p["L"], p["L"])
    return r, R, float(max(np.abs(r - r_ex).max() / p["L"], np.abs(R - R_ex).max()))


def build(n_elem, force=(0.0, 0.0), moment=0.0, degree=2, **overrides):
    """The beam of ``n_elem`` elements clamped at ``X = 0``, a dead force and moment at its tip;
    returns ``(system, beam)``."""
    from .. import System
    from ..fem.beam_exact import GeometricallyExactBeam

    p = {**DATA, **overrides}
    beam = GeometricallyExactBeam("beam", p["L"], n_elem, p["rho"], p["A"], p["E"], p["I"], degree=degree)
    s = System([beam])
    s.clamp(beam.port("A"), name="clamp")
    if any(force):
        s.apply_force(beam.port("B"), force, name="tip force")
    if moment:
        s.apply_moment(beam.port("B"), moment, name="tip moment")
    return s, beam


def solve(n_elem, force=(0.0, 0.0), moment=0.0, degree=2, load_steps=8, **overrides):
    """The static equilibrium of :func:`build` by load stepping; returns ``(beam, tip (x, y, angle),
    nodes (nn, 2))``."""
    from ..solvers.static import equilibrium

    s, beam = build(n_elem, force, moment, degree, **overrides)
    dae = s.assemble()
    q = equilibrium(dae, load_steps=load_steps)[dae.sq]
    tip = beam.port("B")
    return beam, np.r_[beam.port_position(q, tip), beam.port_angle(q, tip)], beam.nodes(q)[0]


def _rates(errs):
    e = np.asarray(errs, float)
    return (np.log2(e[:-1] / e[1:])).tolist()


def check_meshes(meshes):
    """The meshes as a tuple: at least three, each twice the previous (an observed order compares
    halved element sizes)."""
    meshes = tuple(int(n) for n in meshes)
    if len(meshes) < 3 or any(b != 2 * a for a, b in zip(meshes, meshes[1:])):
        raise ValueError(f"elastica: meshes {list(meshes)}: give at least three numbers of elements, "
                         "each twice the previous")
    return meshes


def run(loads=LOADS, meshes=(4, 8, 16, 32), degree=2, outdir=None, plot=True):
    """The table and the roll-up; CSV, figures and summary.json when ``outdir`` is given.

    Returns a :class:`~phmech.validation._common.CaseResult` whose ``summary`` holds, per load, the
    references, the tip of each mesh, its error and the observed orders, and the roll-up's errors;
    ``data`` the nodes of the second mesh and the sampled reference curves."""
    meshes = check_meshes(meshes)
    p = DATA
    EI = p["E"] * p["I"]
    rows, shapes, table = [], {}, {}
    for alpha in loads:
        P = (0.0, -alpha * EI / p["L"] ** 2)
        tips, shown = [], None
        for n in meshes:
            beam, tip, nodes = solve(n, force=P, degree=degree)
            tips.append(tip)
            if n == meshes[1]:          # drawn: few enough nodes to see the reference between them
                shown = nodes
        ref = cantilever(L=p["L"], EI=EI, P=P, EA=beam.EA, GA=beam.GA, n_points=101)
        rigid = cantilever(L=p["L"], EI=EI, P=P).tip
        errs = [float(np.abs(t - ref.tip).max()) for t in tips]
        key = f"{alpha:g}"
        table[key] = {
            "reference": {"u_over_L": 1.0 - ref.tip[0] / p["L"], "w_over_L": -ref.tip[1] / p["L"],
                          "theta": -ref.tip[2]},
            "elastica": {"u_over_L": 1.0 - rigid[0] / p["L"], "w_over_L": -rigid[1] / p["L"], "theta": -rigid[2],
                         "mattiasson_w_over_L": MATTIASSON_W.get(float(alpha))},
            "meshes": {str(n): {"u_over_L": 1.0 - t[0] / p["L"], "w_over_L": -t[1] / p["L"], "theta": -t[2],
                                "error": e} for n, t, e in zip(meshes, tips, errs)},
            "rates": _rates(errs), "error_finest": errs[-1]}
        for n, t, e, r in zip(meshes, tips, errs, [None] + _rates(errs)):
            rows.append([alpha, n, 1.0 - t[0] / p["L"], -t[1] / p["L"], -t[2], e, r])
        shapes[key] = (shown, np.column_stack([ref.x, ref.y]))
    roll = []
    for n in meshes:
        _, tip, nodes = solve(n, moment=2.0 * math.pi * EI / p["L"], degree=degree)
        roll.append((n, float(math.hypot(tip[0], tip[1])), float(tip[2]), nodes))
    roll_errs = [r[1] for r in roll]
    hel = [helix(n, degree) for n in meshes]
    hel_errs = [h[2] for h in hel]
    summary = {"parameters": {**DATA, "EI": EI, "EA": beam.EA, "GA": beam.GA}, "degree": degree,
               "meshes": list(meshes), "loads": [float(a) for a in loads], "cantilever": table,
               "finest_max_error": max(t["error_finest"] for t in table.values()),
               "min_rate": min(min(t["rates"]) for t in table.values()),
               "roll_up": {"tip_distance": {str(n): e for n, e, _, _ in roll}, "rates": _rates(roll_errs),
                           "tip_distance_finest": roll_errs[-1]},
               "helix": {"kappa_L": HELIX.tolist(), "exact_tip": helix_tip(HELIX / p["L"], p["L"])[0].tolist(),
                         "tip": {str(n): h[0].tolist() for n, h in zip(meshes, hel)},
                         "error": {str(n): e for n, e in zip(meshes, hel_errs)}, "rates": _rates(hel_errs),
                         "error_finest": hel_errs[-1]}}
    out = _common.CaseResult(summary=summary, data={"shapes": shapes, "roll_up": roll, "rows": rows})
    if outdir is not None:
        out.files = write(out, outdir, plot)
    return out


def write(out, outdir, plot=True):
    """``elastica.csv``, ``roll_up.csv``, the figures and summary.json."""
    os.makedirs(outdir, exist_ok=True)
    s = out["summary"]
    notes = ["tip under a dead vertical force alpha EI / L^2; u: shortening, w: deflection, theta: "
             "clockwise tip rotation; error: largest tip difference (position and angle) against the "
             "shooting solution of Reissner's equations with the same stiffnesses",
             f"parameters: {_common.notes_of(s['parameters'])}, degree {s['degree']}"]
    files = [os.path.join(outdir, "elastica.csv"), os.path.join(outdir, "roll_up.csv"),
             os.path.join(outdir, "helix.csv")]
    _common.write_table(files[0], ["alpha", "n_elem", "u_over_L", "w_over_L", "theta_rad", "error", "rate"],
                        [[float(v) if v is not None else "" for v in r] for r in out["rows"]],
                        case="elastica", solver="static equilibrium, load stepping", notes=notes)
    roll = s["roll_up"]
    _common.write_table(files[1], ["n_elem", "tip_distance_to_root", "rate"],
                        [[int(n), e, r if r is not None else ""] for (n, e), r in
                         zip(roll["tip_distance"].items(), [None] + roll["rates"])],
                        case="elastica", solver="static equilibrium, load stepping",
                        notes=["end moment 2 pi EI / L: the exact tip position is the root"])
    hel = s["helix"]
    _common.write_table(files[2], ["n_elem", "tip_x", "tip_y", "tip_z", "error", "rate"],
                        [[int(n), *hel["tip"][n], e, r if r is not None else ""] for (n, e), r in
                         zip(hel["error"].items(), [None] + hel["rates"])],
                        case="elastica", solver="static equilibrium, load stepping",
                        notes=["spatial beam, follower end moment EI kappa, kappa L = "
                               f"{np.array2string(np.array(hel['kappa_L']), precision=6)}; exact tip "
                               f"{np.array2string(np.array(hel['exact_tip']), precision=10)}; error: largest "
                               "difference of the tip position / L and rotation matrix"])
    if plot:
        plt = _common.figure_style()
        fig, ax = plt.subplots()
        for i, (key, (nodes, ref)) in enumerate(out["shapes"].items()):
            ax.plot(ref[:, 0], ref[:, 1], "k--", lw=0.8, label="Reissner (shooting)" if i == 0 else None)
            ax.plot(nodes[:, 0], nodes[:, 1], "o", ms=3, color=f"C{i}", label=f"alpha = {key}")
        nodes = out["roll_up"][1][3]
        ax.plot(nodes[:, 0], nodes[:, 1], "o-", ms=2, lw=0.8, color="C5", label="end moment 2 pi EI / L")
        ax.set_aspect("equal")
        ax.set_xlabel("x / L")
        ax.set_ylabel("y / L")
        ax.set_title(f"nodes of {s['meshes'][1]} elements of degree {s['degree']}", fontsize="small")
        _common.legend_below(ax)
        files += _common.savefig(fig, outdir, "elastica_shapes")
        plt.close(fig)
        fig, ax = plt.subplots()
        h = 1.0 / np.array(s["meshes"], float)
        for i, (key, t) in enumerate(s["cantilever"].items()):
            e = np.array([m["error"] for m in t["meshes"].values()])
            ax.loglog(h, e, "o-", color=f"C{i}", label=f"alpha = {key}, rate {t['rates'][-1]:.2f}")
        e = np.array(list(roll["tip_distance"].values()))
        ax.loglog(h, e, "s--", color="C5", label=f"roll-up, rate {roll['rates'][-1]:.2f}")
        e = np.array(list(s["helix"]["error"].values()))
        ax.loglog(h, e, "^:", color="C6", label=f"spatial helix, rate {s['helix']['rates'][-1]:.2f}")
        ax.set_xlabel("element size h / L")
        ax.set_ylabel("tip error / L")
        _common.legend_below(ax)
        files += _common.savefig(fig, outdir, "elastica_convergence")
        plt.close(fig)
    files.append(_common.write_summary(outdir, "elastica", s))
    return files


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--meshes", type=_common.positive_int, nargs="+", default=[4, 8, 16, 32],
                   help="numbers of elements (at least three, each twice the previous)")
    p.add_argument("--loads", type=_common.positive_float, nargs="+", default=list(LOADS),
                   help="tip loads alpha = P L^2 / EI")
    p.add_argument("--degree", type=int, choices=(1, 2, 3, 4), default=2, help="polynomial degree of the elements")
    args = p.parse_args(argv)
    try:
        check_meshes(args.meshes)
    except ValueError as err:
        p.error(f"argument --meshes: {err}")
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []
    out = run(tuple(args.loads), tuple(args.meshes), args.degree, args.outdir, not args.no_plot)
    s = out["summary"]
    print(f"cantilever under a dead tip load, {s['degree']}-degree elements "
          f"(EI = 1, EA = {s['parameters']['EA']:g}, k G A = {s['parameters']['GA']:g})")
    print(f"{'alpha':>6} {'n_elem':>6} {'u/L':>10} {'w/L':>10} {'theta':>10} {'error':>10} {'rate':>5}")
    for key, t in s["cantilever"].items():
        rates = [None] + t["rates"]
        for (n, m), r in zip(t["meshes"].items(), rates):
            rate = f"{r:5.2f}" if r is not None else "    -"
            print(f"{key:>6} {n:>6} {m['u_over_L']:10.6f} {m['w_over_L']:10.6f} {m['theta']:10.6f} "
                  f"{m['error']:10.3e} {rate}")
        ref, el = t["reference"], t["elastica"]
        print(f"{key:>6} {'Reiss.':>6} {ref['u_over_L']:10.6f} {ref['w_over_L']:10.6f} {ref['theta']:10.6f}")
        print(f"{key:>6} {'elast.':>6} {el['u_over_L']:10.6f} {el['w_over_L']:10.6f} {el['theta']:10.6f}"
              + (f"   (Mattiasson w/L {el['mattiasson_w_over_L']:.5f})" if el["mattiasson_w_over_L"] else ""))
    roll = s["roll_up"]
    print("roll-up by 2 pi EI / L, tip distance to the root:")
    for (n, e), r in zip(roll["tip_distance"].items(), [None] + roll["rates"]):
        print(f"  {n:>4} elements: {e:.3e}" + (f"  rate {r:.2f}" if r is not None else ""))
    hel = s["helix"]
    print("spatial beam rolled into a helix by a follower end moment, error of the tip:")
    for (n, e), r in zip(hel["error"].items(), [None] + hel["rates"]):
        print(f"  {n:>4} elements: {e:.3e}" + (f"  rate {r:.2f}" if r is not None else ""))
    if args.outdir:
        print(f"  wrote {len(out['files'])} files to {args.outdir}")


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

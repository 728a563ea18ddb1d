"""A uniform cantilever on a hub spinning at a constant rate: first flapwise and chordwise frequencies.

The blade (length ``L``, slenderness ``L / r = 70`` with ``r^2 = I / A``, equal
bending stiffnesses, no hub offset) is clamped to a hub turning about ``e3``
at the constant rate ``Omega``.  The first flapwise (out of the plane of
rotation, ``z``) and chordwise (in the plane, ``y``) frequencies are given in
the dimensionless form ``omega T`` with ``T = sqrt(rho A L^4 / EI)`` against
the dimensionless speed ``mu = Omega T`` for ``mu = 0, 2, 4, 6, 8, 10, 50``
(the units: ``L = rho A = EI = 1``, ``EA = 70^2``, so ``T = 1``).

Models
------
* ``consistent``: the geometrically consistent spatial beam
  (:class:`~phmech.fem.beam3d_nonlinear.NonlinearSpatialBeam`: exact
  rotating-frame inertia, Green-Lagrange axial strain).  The hub is a driven
  :func:`~phmech.joints.spatial.Revolute3` about ``e3`` at port ``A``: it holds
  the root point, the spin axis and the rate of the root section about it,
  ``Omega_3 = sigma omega_3`` with the beam's frame gauge
  ``sigma = 1 / (1 + u_x'(0))`` (the port's gauged rotation rows), so the
  clamp is exact also where the root stretches (1 % at ``mu = 10``, 22 % at
  ``mu = 50``).
* ``linear``: the linear floating-frame beam
  (:class:`~phmech.fem.beam3d.FloatingSpatialBeam`) with the same clamp (its
  frame rate is ``omega``).  Its inertia is that of the undeformed blade and
  its strain linear: no geometric stiffening, and no centrifugal force on the
  displacement either.  Its flapwise frequency stays the one at rest, its
  chordwise one changes only through the Coriolis coupling with the axial
  motion (it falls slowly), while the real blade stiffens with the speed.
* ``exact``: the geometrically exact spatial beam
  (:class:`~phmech.fem.beam_exact3d.GeometricallyExactBeam3D`, in its shear-rigid
  limit ``G = 1e5 E``) on the same driven revolute joint at its root node's section.
  It has no floating frame: the steady motion is a relative equilibrium
  (:func:`~phmech.solvers.static.relative_equilibrium`, continuation in steps of
  ``mu = 2.5``) and its modes are :func:`~phmech.solvers.static.relative_modes`.  Its
  continuum is not the consistent beam's: the axial strain is the stretch ``|r'| - 1``
  (not Green's), the curvatures the sections' exact ones, and the sections carry their
  rotary inertia, so its reference is the Ritz model of that continuum
  (``continuum="exact"``); the two continua differ by the rotary inertia at rest
  (-4.7e-4 of the frequency) and by terms of the order of the strain at speed (the
  steady root strain is 0.32 at ``mu = 50`` against the consistent 0.25).

The floating-frame models through :func:`~phmech.solvers.steady.steady_states` (continuation in the
speed) and :func:`~phmech.solvers.steady.steady_modes`; a mode is flapwise
when most of its kinetic energy is in the ``z`` velocities, chordwise when it
is in the plane (the lowest in-plane mode is the first chordwise one; the
axial one is far above).  The reference is the independent Ritz model of
:mod:`phmech.validation._rotating_ritz` (numpy and scipy only, global
polynomials); the observed convergence in the number of elements (log2 of the
ratios of successive errors against it) goes to ``summary.json``.

    python -m phmech.validation.rotating_beam --outdir out/rotating_beam
"""
import os
import sys
import time

import numpy as np

from .. import System
from . import _common

#: the dimensionless speeds of the table
SPEEDS = (0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 50.0)
#: slenderness L / r of the blade
SLENDERNESS = 70.0
MODELS = ("consistent", "linear", "exact")
#: G / E of the exact beam: its shear-rigid limit (shear changes the frequencies by about
#: EI / (kGA L^2) ~ 2e-9; with 1e3 it was the floor of the 32-element errors, 5e-7)
SHEAR_RIGID = 1e5
#: the step in mu of the exact beam's continuation of relative equilibria
EXACT_STEP = 2.5
#: intermediate speeds of the continuation (the steady stretch at mu = 50 is about 25 %)
_PATH = (15.0, 20.0, 30.0, 40.0)
#: velocity fields of the beams: in the plane of rotation, out of it
_FIELDS = {"consistent": (("ax", "ay"), ("az",)), "linear": (("vx", "vy"), ("vz",))}


def build(model="consistent", n_elem=8, mu=0.0, slenderness=SLENDERNESS):
    """The blade clamped to the hub spinning at ``mu`` (module docstring); returns ``(system, beam)``."""
    from ..joints import Revolute3
    if model not in MODELS:
        raise ValueError(f"rotating_beam: model must be one of {list(MODELS)}, got {model!r}")
    I = 1.0 / float(slenderness) ** 2            # L = rho A = E I = 1, E A = slenderness^2
    args = ("blade", 1.0, n_elem, 1.0, 1.0, float(slenderness) ** 2, I, I)
    if model == "consistent":
        from ..fem.beam3d_nonlinear import NonlinearSpatialBeam
        beam = NonlinearSpatialBeam(*args)
    elif model == "exact":
        from ..fem import GeometricallyExactBeam
        beam = GeometricallyExactBeam(*args, G=SHEAR_RIGID * float(slenderness) ** 2, dim=3)
    else:
        from ..fem.beam3d import FloatingSpatialBeam
        beam = FloatingSpatialBeam(*args)
    s = System([beam])
    # the rate of B (the ground) relative to A (the root) about e3: -mu
    s.add_joint(Revolute3(beam.port("A"), None, axis=(0.0, 0.0, 1.0), rate=-float(mu), name="hub"))
    return s, beam


def _plane_fraction(dae, beam, model, v):
    """Share of the in-plane velocities in the kinetic energy of the velocity fields of mode ``v``
    (the efforts of ``v``: a state of the model, or for the exact beam the efforts of a relative
    mode, after its frame motions)."""
    sl = dae.e_slices[beam.name]
    if model == "exact":
        e = v[sl].reshape(-1)[beam.velocity_dofs].reshape(beam.n_nodes, 6)
        Mv = beam.fe.Mv
        energy = [sum(float(np.real(np.conj(e[:, c]) @ (Mv @ e[:, c]))) for c in cs) for cs in ((0, 1), (2,))]
        return energy[0] / max(energy[0] + energy[1], 1e-300)
    M = beam.M.tocsr()
    e = v[dae.se][sl]
    energy = [sum(float(np.real(np.conj(e[beam.fields[f]]) @ (M[beam.fields[f]][:, beam.fields[f]]
                                                            @ e[beam.fields[f]]))) for f in fields)
              for fields in _FIELDS[model]]
    return energy[0] / max(energy[0] + energy[1], 1e-300)


def frequencies(model="consistent", n_elem=8, speeds=SPEEDS, slenderness=SLENDERNESS, k=8):
    """First flapwise and chordwise ``omega T`` at ``speeds`` (continuation through ``_PATH``).

    Returns a dict of arrays ``flapwise``, ``chordwise``, ``growth`` (the largest ``|Re lambda| T``
    of the two modes: zero for a conservative, stable motion), ``root_strain`` (``u_x'(0)``,
    consistent model; 0 for the linear one) and the wall time.
    """
    from ..solvers.steady import steady_states
    speeds = [float(m) for m in speeds]
    t0 = time.perf_counter()
    beam = build(model, n_elem, 0.0, slenderness)[1]
    if model == "exact":
        path = sorted(set(speeds) | set(np.arange(0.0, max(speeds), EXACT_STEP).tolist()))
        states = _relative_states(n_elem, path, slenderness)
    else:
        path = sorted(set(speeds) | {p for p in _PATH if p < max(speeds)})
        states = dict(zip(path, steady_states(lambda m: build(model, n_elem, m, slenderness)[0].assemble(), path)))
    out = {key: np.zeros(len(speeds)) for key in ("flapwise", "chordwise", "growth", "root_strain")}
    for i, mu in enumerate(speeds):
        dae, y = states[mu]
        m = _modes(model, dae, y, mu, k)
        plane = [_plane_fraction(dae, beam, model, m.vectors[:, j]) for j in range(m.omega.size)]
        flap = [j for j, f in enumerate(plane) if f < 0.5]
        chord = [j for j, f in enumerate(plane) if f > 0.5]
        if not flap or not chord:
            raise RuntimeError(f"rotating_beam: no flapwise or chordwise mode among the {k} lowest at mu = {mu}")
        out["flapwise"][i], out["chordwise"][i] = m.omega[flap[0]], m.omega[chord[0]]
        out["growth"][i] = max(abs(m.growth[flap[0]]), abs(m.growth[chord[0]]))
        if model == "consistent":
            out["root_strain"][i] = float(beam.frame_rate_gauge(2) @ y[dae.q_slices[beam.name]])
        elif model == "exact":
            out["root_strain"][i] = _root_stretch(beam, y[dae.q_slices[beam.name]]) - 1.0
    out["wall_time_s"] = time.perf_counter() - t0
    return out


def _relative_states(n_elem, path, slenderness):
    """``{mu: (dae, y)}``: the exact blade's relative equilibria along ``path`` (each Newton
    iteration from the last configuration)."""
    from ..solvers.static import relative_equilibrium
    states, q = {}, None
    for mu in path:
        dae = build("exact", n_elem, mu, slenderness)[0].assemble()
        y = relative_equilibrium(dae, (0.0, 0.0, 1.0), mu, q0=q)
        q = y[dae.sq]
        states[mu] = (dae, y)
    return states


def _modes(model, dae, y, mu, k):
    """The modes about the steady motion, their ``vectors`` rows the model's efforts (a state of
    the floating-frame models; the efforts of the exact beam's relative modes)."""
    if model != "exact":
        from ..solvers.steady import steady_modes
        return steady_modes(dae, y, k=k)
    from ..solvers.static import relative_modes
    m = relative_modes(dae, y, (0.0, 0.0, 1.0), mu, k=k)
    nf = sum(label.startswith("motion of") for label in m.labels)
    m.vectors = m.vectors[nf:nf + dae.ne]
    return m


def _root_stretch(beam, q):
    """``|r'(0)|`` of the exact beam: the derivative of its first element's interpolant at the root."""
    p = beam.degree
    X = beam.fe.X[:p + 1]
    r = beam.nodes(q)[0][:p + 1]
    c = np.linalg.solve(np.vander(X - X[0], p + 1, increasing=True), r)
    return float(np.linalg.norm(c[1]))


def _rates(err):
    """log2 of the ratios of successive errors (rows: refinements)."""
    err = np.asarray(err, float)
    return np.log2(err[:-1] / np.maximum(err[1:], 1e-300))


def _convergence(by_n, ritz, n_elems, speeds):
    """Errors against ``ritz`` (per speed, over the refinements), their rates and the finest
    relative error, for both directions."""
    conv = {}
    for d in ("flapwise", "chordwise"):
        err = np.array([np.abs(by_n[n][d] - ritz[d]) for n in n_elems])       # (refinements, speeds)
        conv[d] = {"errors": {f"{mu:g}": err[:, i].tolist() for i, mu in enumerate(speeds)},
                   "rates": {f"{mu:g}": _rates(err[:, i]).tolist() for i, mu in enumerate(speeds)}
                   if len(n_elems) > 1 else {},
                   "finest_max_rel_error": float(np.max(err[-1] / ritz[d]))}
    return conv


def _ritz(slenderness, speeds, ritz_n, continuum):
    """The Ritz table of ``continuum`` and its largest relative change from ``ritz_n - 4`` polynomials."""
    from ._rotating_ritz import dimensionless_table
    tab = dimensionless_table(slenderness, speeds, n=ritz_n, continuum=continuum)
    coarse = dimensionless_table(slenderness, speeds, n=ritz_n - 4, continuum=continuum)
    ritz = {d: np.array([r[d] for r in tab]) for d in ("flapwise", "chordwise", "root_strain")}
    change = {d: float(np.max(np.abs(ritz[d] - [r[d] for r in coarse]) / ritz[d]))
              for d in ("flapwise", "chordwise")}
    return ritz, change


def run(n_elems=(4, 8, 16, 32), speeds=SPEEDS, slenderness=SLENDERNESS, ritz_n=24, linear=True, exact=True,
        outdir=None, plot=True):
    """The table of the case: the consistent and the exact beam at every number of elements, the
    linear beam at the finest, the Ritz models of both continua with ``ritz_n`` polynomials (and
    ``ritz_n - 4`` for their own accuracy).

    Returns a :class:`~phmech.validation._common.CaseResult` with ``summary``, ``files`` and
    ``data = {"speeds", "ritz": {flapwise, chordwise}, "consistent": {n: frequencies(...)},
    "linear": frequencies(...) or None, "exact": {n: frequencies(...)} or None, "ritz_exact"}``.
    """
    n_elems = sorted(int(n) for n in n_elems)
    speeds = [float(m) for m in speeds]
    ritz, ritz_change = _ritz(slenderness, speeds, ritz_n, "consistent")
    cons = {n: frequencies("consistent", n, speeds, slenderness) for n in n_elems}
    lin = frequencies("linear", n_elems[-1], speeds, slenderness) if linear else None
    fin = cons[n_elems[-1]]
    summary = {"slenderness": slenderness, "speeds_mu": speeds, "n_elems": n_elems,
               "clamp": "Revolute3 about e3 at port A driven at mu (the root section's rate, exact at a "
                        "stretched root through the port's frame gauge)",
               "reference": {"model": "Ritz (phmech.validation._rotating_ritz)", "n_polynomials": ritz_n,
                             "max_rel_change_from_n_minus_4": ritz_change},
               "ritz": {d: ritz[d].tolist() for d in ("flapwise", "chordwise")},
               "consistent": {d: fin[d].tolist() for d in ("flapwise", "chordwise", "root_strain")},
               "consistent_by_n": {str(n): {d: cons[n][d].tolist() for d in ("flapwise", "chordwise")}
                                   for n in n_elems},
               "consistent_growth_max": float(max(np.max(cons[n]["growth"]) for n in n_elems)),
               "convergence": _convergence(cons, ritz, n_elems, speeds),
               "wall_time_s": {str(n): cons[n]["wall_time_s"] for n in n_elems}}
    if lin is not None:
        summary["linear"] = {d: lin[d].tolist() for d in ("flapwise", "chordwise")}
    ex = ritz_ex = None
    if exact:
        ritz_ex, change_ex = _ritz(slenderness, speeds, ritz_n, "exact")
        ex = {n: frequencies("exact", n, speeds, slenderness) for n in n_elems}
        summary["exact"] = {
            "model": f"GeometricallyExactBeam(dim=3), G = {SHEAR_RIGID:g} E (shear-rigid), relative "
                     f"equilibria in steps of mu = {EXACT_STEP:g}, relative_modes",
            "reference": {"model": "Ritz of the exact continuum (continuum='exact')", "n_polynomials": ritz_n,
                          "max_rel_change_from_n_minus_4": change_ex,
                          **{d: ritz_ex[d].tolist() for d in ("flapwise", "chordwise", "root_strain")}},
            **{d: ex[n_elems[-1]][d].tolist() for d in ("flapwise", "chordwise", "root_strain")},
            "by_n": {str(n): {d: ex[n][d].tolist() for d in ("flapwise", "chordwise")} for n in n_elems},
            "growth_max": float(max(np.max(ex[n]["growth"]) for n in n_elems)),
            "convergence": _convergence(ex, ritz_ex, n_elems, speeds),
            "wall_time_s": {str(n): ex[n]["wall_time_s"] for n in n_elems}}
    out = _common.CaseResult(summary=summary, data={"speeds": np.array(speeds), "ritz": ritz,
                                                    "consistent": cons, "linear": lin, "exact": ex,
                                                    "ritz_exact": ritz_ex})
    if outdir is not None:
        out.files = write(out, outdir, plot)
    return out


def write(out, outdir, plot=True):
    """The table ``rotating_beam.csv``, the figure ``rotating_beam`` and summary.json."""
    s, speeds, ritz, cons, lin = out.summary, out["speeds"], out["ritz"], out["consistent"], out["linear"]
    header = ["mu", "ritz_flapwise", "ritz_chordwise"]
    for n in s["n_elems"]:
        header += [f"consistent_flapwise_n{n}", f"consistent_chordwise_n{n}"]
    header += ["root_strain"]
    if lin is not None:
        header += ["linear_flapwise", "linear_chordwise"]
    ex, rx = out["exact"], out["ritz_exact"]
    if ex is not None:
        header += ["ritz_exact_flapwise", "ritz_exact_chordwise"]
        for n in s["n_elems"]:
            header += [f"exact_flapwise_n{n}", f"exact_chordwise_n{n}"]
        header += ["exact_root_strain"]
    rows = []
    nf = s["n_elems"][-1]
    for i, mu in enumerate(speeds):
        row = [float(mu), float(ritz["flapwise"][i]), float(ritz["chordwise"][i])]
        for n in s["n_elems"]:
            row += [float(cons[n]["flapwise"][i]), float(cons[n]["chordwise"][i])]
        row += [float(cons[nf]["root_strain"][i])]
        if lin is not None:
            row += [float(lin["flapwise"][i]), float(lin["chordwise"][i])]
        if ex is not None:
            row += [float(rx["flapwise"][i]), float(rx["chordwise"][i])]
            for n in s["n_elems"]:
                row += [float(ex[n]["flapwise"][i]), float(ex[n]["chordwise"][i])]
            row += [float(ex[nf]["root_strain"][i])]
        rows.append(row)
    files = [_common.write_table(os.path.join(outdir, "rotating_beam.csv"), header, rows, case="rotating_beam",
                                 solver="steady_states + steady_modes (dense QZ); exact: relative_equilibrium "
                                        "+ relative_modes",
                                 options={"slenderness": s["slenderness"], "ritz_n": s["reference"]["n_polynomials"]},
                                 notes=["omega T and mu = Omega T with T = sqrt(rho A L^4 / EI)",
                                        "linear: the linear floating-frame beam at the finest number of elements",
                                        "exact: the geometrically exact beam (shear-rigid) against the Ritz model "
                                        "of its continuum (stretch strain, exact curvature, rotary inertia)"])]
    if plot:
        plt = _common.figure_style()
        fig, ax = plt.subplots()
        for d, c in (("flapwise", "C0"), ("chordwise", "C3")):
            ax.plot(speeds, ritz[d], "k--", lw=1, label="Ritz" if d == "flapwise" else None)
            ax.plot(speeds, cons[nf][d], "o-", color=c, ms=4, label=f"consistent, {d} ({nf} el.)")
            if lin is not None:
                ax.plot(speeds, lin[d], "x:", color=c, label=f"linear floating frame, {d}")
            if ex is not None:
                ax.plot(speeds, rx[d], "k:", lw=1, label="Ritz, exact continuum" if d == "flapwise" else None)
                ax.plot(speeds, ex[nf][d], "s", mfc="none", color=c, ms=6, label=f"exact, {d} ({nf} el.)")
        ax.set_xscale("symlog", linthresh=10.0)
        ax.set_yscale("log")
        ax.set_xlabel(r"$\mu = \Omega T$")
        ax.set_ylabel(r"$\omega T$")
        _common.legend_below(ax, ncol=2)
        files += _common.savefig(fig, outdir, "rotating_beam")
        plt.close(fig)
    files.append(_common.write_summary(outdir, "rotating_beam", s))
    return files


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--n-elem", type=_common.positive_int, nargs="+", default=[4, 8, 16, 32],
                   help="numbers of elements of the consistent beam (the convergence study)")
    p.add_argument("--speeds", type=float, nargs="+", default=list(SPEEDS), help="dimensionless speeds mu")
    p.add_argument("--ritz-n", type=_common.positive_int, default=24, help="polynomials of the Ritz reference")
    p.add_argument("--no-linear", action="store_true", help="skip the linear floating-frame beam")
    p.add_argument("--no-exact", action="store_true", help="skip the geometrically exact beam")
    args = p.parse_args(argv)
    if any(m < 0 or not np.isfinite(m) for m in args.speeds):
        p.error(f"--speeds must be finite and non-negative, got {args.speeds}")
    if args.ritz_n < 6:
        p.error(f"--ritz-n must be at least 6, got {args.ritz_n}")
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []
    out = run(args.n_elem, args.speeds, ritz_n=args.ritz_n, linear=not args.no_linear, exact=not args.no_exact,
              outdir=args.outdir, plot=not args.no_plot)
    s = out.summary
    nf = s["n_elems"][-1]
    print(f"{'mu':>5} {'flap Ritz':>10} {'flap ' + str(nf):>10} {'chord Ritz':>11} {'chord ' + str(nf):>10}"
          + ("  flap lin  chord lin" if out["linear"] is not None else ""))
    for i, mu in enumerate(s["speeds_mu"]):
        line = (f"{mu:5g} {s['ritz']['flapwise'][i]:10.5f} {s['consistent']['flapwise'][i]:10.5f} "
                f"{s['ritz']['chordwise'][i]:11.5f} {s['consistent']['chordwise'][i]:10.5f}")
        if out["linear"] is not None:
            lin = s["linear"]
            line += f"  {lin['flapwise'][i]:8.5f}  {lin['chordwise'][i]:9.5f}"
        print(line)
    for d in ("flapwise", "chordwise"):
        print(f"  {d}: rates " + ", ".join(f"mu {k}: {np.round(v, 2).tolist()}"
                                          for k, v in s["convergence"][d]["rates"].items()))
    if "exact" in s:
        ex = s["exact"]
        print(f"exact beam ({nf} el.) against the Ritz model of its continuum:")
        print(f"{'mu':>5} {'flap Ritz':>10} {'flap ' + str(nf):>10} {'chord Ritz':>11} {'chord ' + str(nf):>10}")
        for i, mu in enumerate(s["speeds_mu"]):
            print(f"{mu:5g} {ex['reference']['flapwise'][i]:10.5f} {ex['flapwise'][i]:10.5f} "
                  f"{ex['reference']['chordwise'][i]:11.5f} {ex['chordwise'][i]:10.5f}")
        for d in ("flapwise", "chordwise"):
            print(f"  {d}: rates " + ", ".join(f"mu {k}: {np.round(v, 2).tolist()}"
                                              for k, v in ex["convergence"][d]["rates"].items()))
    print(f"  wrote {len(out.files)} files to {args.outdir}")


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

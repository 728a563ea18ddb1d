"""Convergence of the mixed pH Euler-Bernoulli element on a simply supported beam.

Vertical vibrations of a simply supported beam (pinned at x = 0, roller at
x = L) in its first mode,

    w(x, t) = W sin(pi x / L) sin(omega_1 t),   omega_1 = (pi/L)^2 sqrt(EI / rho A),

so ``v_y = dw/dt`` and ``m = EI d2w/dx2``.  The initial velocity is the L2
(mass) projection of ``v_y(x, 0)``; the semi-discrete system ``M e' = J e``
is integrated exactly in time (matrix exponential), so the errors are the
spatial discretization errors alone.  The L2 errors of ``v_y`` and ``m`` at
``t_end`` and the error of the first eigenfrequency are computed on a
sequence of meshes, and the observed rates are the log2 ratios of
successive errors.

    python -m phmech.validation.beam_convergence --meshes 4 8 16 32 64
"""
import os
import sys

import numpy as np
import scipy.linalg as sla

from . import _common

#: beam data: the coupler of the crank-slider (steel, 6 mm circular section)
DATA = dict(L=0.3, rho=7870.0, E=2.0e11, d=6e-3)


def _section(p):
    return np.pi * p["d"] ** 2 / 4, np.pi * p["d"] ** 4 / 64


def omega_exact(k=1, **overrides):
    """Analytic angular eigenfrequency of mode ``k`` of the simply supported beam."""
    p = {**DATA, **overrides}
    A, I = _section(p)
    return (k * np.pi / p["L"]) ** 2 * np.sqrt(p["E"] * I / (p["rho"] * A))


def errors(n_elem, t_end_periods=0.37, amplitude=1e-3, **overrides):
    """Errors of one mesh: dict with ``v``, ``m`` (L2 at t_end) and ``omega1`` (relative)."""
    import firedrake as fd
    from ..fem.beam import SimplySupportedBeam

    p = {**DATA, **overrides}
    A, I = _section(p)
    beam = SimplySupportedBeam("beam", p["L"], n_elem, p["rho"], A, p["E"], I)
    fe = beam.fe
    L, EI = p["L"], p["E"] * I
    w1 = omega_exact(1, **overrides)
    T = t_end_periods * 2 * np.pi / w1
    x = fe.x
    shape = fd.sin(np.pi * x / L)
    # L2 projection of the initial velocity onto the (reduced) Hermite space
    dvy = fd.TestFunction(fe.Vy)
    b = fd.assemble(fe.rhoA * amplitude * w1 * shape * dvy * fd.dx).dat.data_ro
    iy = beam.fields["vy"]
    full_y = np.asarray(beam._keep)[iy] - fe.offsets["vy"].start
    Myy = beam.M[iy][:, iy].toarray()
    e0 = np.zeros(beam.ne)
    e0[iy] = np.linalg.solve(Myy, np.asarray(b)[full_y])
    M = beam.M.toarray()
    J = beam.J0.toarray()
    eT = sla.expm(T * np.linalg.solve(M, J)) @ e0
    # errors
    vy_h = fd.Function(fe.Vy)
    vy_h.dat.data[:] = 0.0
    vy_h.dat.data[full_y] = eT[iy]
    m_h = fd.Function(fe.Vm)
    m_h.dat.data[:] = eT[beam.fields["m"]]
    v_ex = amplitude * w1 * shape * np.cos(w1 * T)
    m_ex = -EI * amplitude * (np.pi / L) ** 2 * shape * np.sin(w1 * T)
    dxq = fd.dx(metadata={"quadrature_degree": 12})
    err_v = np.sqrt(fd.assemble((vy_h - v_ex) ** 2 * dxq))
    err_m = np.sqrt(fd.assemble((m_h - m_ex) ** 2 * dxq))
    norm_v = np.sqrt(fd.assemble(v_ex**2 * dxq)) or 1.0
    norm_m = np.sqrt(fd.assemble(m_ex**2 * dxq)) or 1.0
    # first bending eigenfrequency: E Phi = J Phi Lambda, Lambda = j omega
    lam = sla.eigvals(J, M)
    om = np.sort(np.abs(lam.imag[lam.imag > 1e-6 * w1]))
    return {"n_elem": n_elem, "h": L / n_elem, "v": err_v / norm_v, "m": err_m / norm_m,
            "omega1": abs(om[0] - w1) / w1, "omega1_h": om[0]}


def rates(errs, key):
    """Observed convergence rates ``log2(e_k / e_{k+1})`` for halved mesh sizes."""
    e = np.array([r[key] for r in errs])
    h = np.array([r["h"] for r in errs])
    return np.log(e[:-1] / e[1:]) / np.log(h[:-1] / h[1:])


def check_meshes(meshes):
    """Refuse a mesh given twice (a rate needs two element sizes: it would read 0) or fewer
    than two meshes; returns the meshes as a tuple."""
    meshes = tuple(meshes)
    twice = sorted({n for n in meshes if meshes.count(n) > 1})
    if twice:
        raise ValueError(f"beam_convergence: meshes {list(meshes)} give {', '.join(map(str, twice))} elements "
                         "more than once; each rate compares two different element sizes")
    if len(meshes) < 2:
        raise ValueError(f"beam_convergence: meshes {list(meshes)}: a rate needs at least two meshes")
    return meshes


def run(meshes=(4, 8, 16, 32, 64), outdir=None, plot=True, **overrides):
    """Errors and rates over ``meshes``; writes CSV, a figure and summary.json to ``outdir``."""
    meshes = check_meshes(meshes)
    errs = [errors(n, **overrides) for n in meshes]
    out = _common.CaseResult(summary={"meshes": list(meshes), "errors": errs,
                                      "rates": {k: rates(errs, k).tolist() for k in ("v", "m", "omega1")},
                                      "omega1_exact": omega_exact(1, **overrides)})
    if outdir is not None:
        os.makedirs(outdir, exist_ok=True)
        out.files.append(os.path.join(outdir, "beam_convergence.csv"))
        _common.write_table(out.files[-1],
                            ["n_elem", "h", "err_v_L2_rel", "err_m_L2_rel", "err_omega1_rel"],
                            [[r["n_elem"], float(r["h"]), float(r["v"]), float(r["m"]), float(r["omega1"])]
                             for r in errs], case="beam_convergence", solver="static and eigen (dense)",
                            notes=["relative L2 errors against the closed-form solutions"])
        if plot:
            plt = _common.figure_style()
            fig, ax = plt.subplots()
            h = np.array([r["h"] for r in errs])
            for i, (key, lab) in enumerate((("v", r"$\|v_y - v_y^h\|$"), ("m", r"$\|m - m^h\|$"),
                                            ("omega1", r"$|\omega_1 - \omega_1^h|$"))):
                e = np.array([r[key] for r in errs], float)
                rate = out.summary["rates"][key][-1]
                ax.loglog(h, e, "o-", color=f"C{i}", label=f"{lab}, observed rate {rate:.2f}")
                if np.all(e[-2:] > 0) and np.isfinite(rate):
                    _common.slope_triangle(ax, h, e, rate, color=f"C{i}", side="above" if key == "v" else "below")
            ax.set_xticks(h)
            ax.set_xticklabels([f"{x:.3g}" for x in h])
            ax.minorticks_off()
            ax.set_xlabel("element size h [m]")
            ax.set_ylabel("relative error [-]")
            ax.set_title("simply supported beam: errors against the closed-form solutions", fontsize="small")
            _common.legend_below(ax)
            out.files += _common.savefig(fig, outdir, "beam_convergence")
            plt.close(fig)
        out.files.append(_common.write_summary(outdir, "beam_convergence", out.summary))
    return out


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--meshes", type=_common.positive_int, nargs="+", default=[4, 8, 16, 32, 64],
                   help="numbers of elements (each twice the previous)")
    args = p.parse_args(argv)
    try:
        check_meshes(args.meshes)
    except ValueError as err:
        p.error(f"argument --meshes: {err}")
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []  # keep PETSc from reading our options
    out = run(tuple(args.meshes), outdir=args.outdir, plot=not args.no_plot)
    print(f"{'n_elem':>6} {'err v':>11} {'rate':>5} {'err m':>11} {'rate':>5} {'err omega1':>11} {'rate':>5}")
    rv, rm, rw = (out["rates"][k] for k in ("v", "m", "omega1"))
    for i, r in enumerate(out["errors"]):
        fmt = (lambda a: f"{a[i - 1]:5.2f}" if i else "    -")
        print(f"{r['n_elem']:6d} {r['v']:11.3e} {fmt(rv)} {r['m']:11.3e} {fmt(rm)} {r['omega1']:11.3e} {fmt(rw)}")


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

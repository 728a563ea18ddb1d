"""Natural frequencies of square and circular plates: convergence of the Kirchhoff and Mindlin elements.

Nondimensional frequencies ``lam = omega a^2 sqrt(rho h / D)``,
``D = E h^3 / (12 (1 - nu^2))``, against

* the simply supported Kirchhoff square, ``lam_mn = pi^2 (m^2 + n^2)``;
* the simply supported Mindlin square (hard support), closed form
  :func:`mindlin_ss_exact`, h/a = 0.01, 0.1, 0.2, ``kappa = 5/6``;
* the cantilever Kirchhoff square (x = 0 clamped, three edges free,
  ``nu = 0.3``) against a reference extrapolated from our own refinements
  (Richardson with the observed order of the finest degree);
* the clamped circular Kirchhoff plate (radius ``a``), ``lam = beta^2`` with
  ``beta`` the first root of ``J0(b) I1(b) + I0(b) J1(b) = 0``
  (10.2158...; Leissa, Vibration of Plates, NASA SP-160 (1969), eq. 2.7),
  on a disc mesh with boundary nodes of degree ``k`` snapped to the circle.

    python -m phmech.validation.plate_modes --outdir out/plate_modes
"""
import os
import sys
import time
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.optimize as so
import scipy.special as ss

from . import _common

NU = 0.3
KAPPA = 5.0 / 6.0
SS_ALL = {1: "simply_supported", 2: "simply_supported", 3: "simply_supported", 4: "simply_supported"}
CANTILEVER = {1: "clamped"}


def kirchhoff_ss_exact(n_modes=6):
    """Lowest ``lam_mn = pi^2 (m^2 + n^2)`` of the simply supported square, with repetitions."""
    vals = sorted(np.pi ** 2 * (m * m + n * n) for m in range(1, 8) for n in range(1, 8))
    return np.array(vals[:n_modes])


def mindlin_ss_exact(h_a, n_modes=6, nu=NU, kappa=KAPPA):
    """Closed-form frequencies ``lam`` of the hard simply supported Mindlin square.

    Derivation.  With ``a = 1``, ``I = h^3/12``, ``s = kappa G h``,
    ``G = E / (2 (1 + nu))``, the Mindlin equations in displacements are

    ``rho h w_tt = s (lap w - div theta)``,
    ``rho I theta_tt = D ((1 - nu)/2 lap theta + (1 + nu)/2 grad div theta) + s (grad w - theta)``.

    (i) Flexural and thickness-shear family.  Take
    ``phi = sin(m pi x) sin(n pi y)``, ``alpha^2 = pi^2 (m^2 + n^2)``, and
    ``w = W phi``, ``theta = Psi grad phi``.  These satisfy ``w = 0``,
    ``theta_t = 0`` and ``M_nn = 0`` on every edge.  Since ``lap phi =
    -alpha^2 phi`` and, for a gradient field, the bending operator is
    ``D grad lap phi = -D alpha^2 grad phi``, the equations become, with
    ``w_tt = -omega^2 w``,

    ``omega^2 rho h W = s alpha^2 (W - Psi)``,
    ``omega^2 rho I Psi = D alpha^2 Psi - s (W - Psi)``,

    the 2 x 2 symmetric pencil (second row times ``alpha^2``)
    ``[[s a2, -s a2], [-s a2, a2 (D a2 + s)]] x = omega^2 diag(rho h, a2 rho I) x``
    with ``a2 = alpha^2``; its lower root is the flexural mode, which tends
    to the Kirchhoff ``omega^2 = D alpha^4 / (rho h)`` as ``h -> 0``.

    (ii) Twisting family: ``w = 0``, ``theta = curl psi`` with
    ``psi = cos(m pi x) cos(n pi y)`` (m, n >= 0, not both 0) meets the same
    boundary conditions; ``div theta = 0`` and
    ``omega^2 rho I = D (1 - nu)/2 alpha^2 + s``.

    Both families are merged and sorted; ``lam = omega sqrt(rho h / D)``.
    """
    h = float(h_a)
    E, rho = 1.0, 1.0
    D = E * h ** 3 / (12 * (1 - nu ** 2))
    s = kappa * E / (2 * (1 + nu)) * h
    rI = rho * h ** 3 / 12
    out = []
    for m in range(0, 9):
        for n in range(0, 9):
            a2 = np.pi ** 2 * (m * m + n * n)
            if m >= 1 and n >= 1:
                K = np.array([[s * a2, -s * a2], [-s * a2, a2 * (D * a2 + s)]])
                w2 = sla.eigh(K, np.diag([rho * h, a2 * rI]), eigvals_only=True)
                out += list(np.sqrt(w2))
            if m + n > 0:
                out.append(np.sqrt((D * (1 - nu) / 2 * a2 + s) / rI))
    return np.sort(out)[:n_modes] * np.sqrt(rho * h / D)


def circular_clamped_exact():
    """``lam = beta^2`` of the first axisymmetric mode of the clamped disc."""
    beta = so.brentq(lambda b: ss.j0(b) * ss.i1(b) + ss.i0(b) * ss.j1(b), 2.5, 4.0, xtol=1e-15)
    return beta ** 2


def disk_mesh(refinement, degree):
    """Unit disc with coordinates of ``degree`` whose boundary nodes lie on the circle."""
    import firedrake as fd

    mesh = fd.UnitDiskMesh(refinement)
    if degree == 1:
        return mesh
    V = fd.VectorFunctionSpace(mesh, "CG", degree)
    X = fd.Function(V).interpolate(fd.SpatialCoordinate(mesh))
    nodes = fd.DirichletBC(V, fd.Constant((0.0, 0.0)), "on_boundary").nodes
    d = X.dat.data
    d[nodes] /= np.linalg.norm(d[nodes], axis=1)[:, None]
    return fd.Mesh(X)


def plate_lam(model, mesh, degree, boundary, h_a=0.01, n_modes=6):
    """``lam`` of the lowest ``n_modes`` modes of a unit-size plate (``a = 1``)."""
    from ..fem.plate import KirchhoffPlate
    from ..fem.plate_mindlin import MindlinPlate

    cls = KirchhoffPlate if model == "kirchhoff" else MindlinPlate
    # units with D = 1 and rho h = 1 (lam = omega): the matrices are then well scaled, which keeps
    # the round-off of the eigenvalues near 1e-13 instead of 1e-8 (E = rho = 1 and h = 0.01 give
    # D ~ 1e-7 and a compliance block 1e9 times the mass block)
    h = h_a if model == "mindlin" else 1.0
    plate = cls("plate", mesh, h, 1.0 / h, 12 * (1 - NU ** 2) / h ** 3, NU, degree=degree, boundary=boundary)
    omega, _ = plate.natural_frequencies(n_modes)
    return plate.lam(omega, 1.0), plate.ne


def observed_orders(errors):
    """``log2(e_i / e_{i+1})`` along the refinements (mesh size halved each time)."""
    e = np.abs(np.asarray(errors, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log2(e[:-1] / e[1:])


def richardson(values, order):
    """Extrapolate the last two of a sequence of halvings with the given order."""
    v = np.asarray(values, float)
    return v[-1] + (v[-1] - v[-2]) / (2.0 ** order - 1.0)


@dataclass
class Table:
    """Convergence of one case: ``lam[i]`` on mesh ``meshes[i]`` (one degree)."""

    case: str
    degree: int
    meshes: list
    ne: list
    lam: np.ndarray          # (n_meshes, n_modes)
    reference: np.ndarray    # (n_modes,)

    @property
    def errors(self):
        return self.lam / self.reference - 1.0

    @property
    def orders(self):
        """Observed orders of the first mode."""
        return observed_orders(self.errors[:, 0])


def square(N):
    """The unit square of ``N x N`` squares cut in two, built on first use (FE cache key)."""
    from ..fem.mesh_recipe import MeshRecipe
    return MeshRecipe("firedrake:UnitSquareMesh", int(N), int(N))


def disk(refinement, degree):
    """:func:`disk_mesh` built on first use (FE cache key)."""
    from ..fem.mesh_recipe import MeshRecipe
    return MeshRecipe("phmech.validation.plate_modes:disk_mesh", int(refinement), int(degree))


def case_table(case, degree, meshes, n_modes=6, reference=None):
    """Frequencies of ``case`` on the meshes (``N`` for squares, refinement level for the disc)."""
    h_a = 0.01
    if case == "kirchhoff_ss":
        model, bc, ref, mk = "kirchhoff", SS_ALL, kirchhoff_ss_exact(n_modes), square
    elif case.startswith("mindlin_ss"):
        h_a = float(case.split("_")[-1])
        model, bc, ref, mk = "mindlin", SS_ALL, mindlin_ss_exact(h_a, n_modes), square
    elif case == "kirchhoff_cantilever":
        model, bc, ref, mk = "kirchhoff", CANTILEVER, reference, square
    elif case == "kirchhoff_circular":
        model, bc, mk = "kirchhoff", {1: "clamped"}, (lambda r: disk(r, degree))
        ref = np.r_[circular_clamped_exact(), np.full(n_modes - 1, np.nan)]
    else:
        raise ValueError(f"plate_modes: unknown case {case!r}")
    lam, ne = [], []
    for N in meshes:
        lm, n = plate_lam(model, mk(N), degree, bc, h_a, n_modes)
        lam.append(lm)
        ne.append(n)
    lam = np.array(lam)
    if ref is None:
        ref = np.full(n_modes, np.nan)
    return Table(case, degree, list(meshes), ne, lam, np.asarray(ref, float))


def cantilever_reference(meshes=(8, 16, 32), degree=3, n_modes=6):
    """Reference ``lam`` of the cantilever: Richardson on the degree-3 sequence.

    The order used is the observed one of the first mode over the last three
    meshes; returns ``(reference, table, order)``.
    """
    t = case_table("kirchhoff_cantilever", degree, meshes, n_modes)
    d = np.diff(t.lam[:, 0])
    order = float(np.log2(abs(d[-2] / d[-1])))
    ref = np.array([richardson(t.lam[:, j], order) for j in range(n_modes)])
    return ref, t, order


#: meshes of each degree (squares: N x N; disc: refinement levels)
DEFAULT_MESHES = {1: (8, 16, 32, 64), 2: (4, 8, 16, 32), 3: (4, 8, 16, 32)}
DISC_MESHES = {1: (2, 3, 4, 5), 2: (1, 2, 3, 4), 3: (1, 2, 3, 4)}
#: the coarse set of ``--coarse`` (a quick check of the command)
COARSE_MESHES = {1: (4, 8, 16), 2: (2, 4, 8), 3: (2, 4, 8)}
COARSE_DISC_MESHES = {1: (1, 2, 3), 2: (1, 2, 3), 3: (1, 2)}


def mindlin_thin_limit(degree=2, meshes=(4, 8, 16), thickness=(0.1, 0.01, 0.001)):
    """Relative error of the first Mindlin frequency (simply supported square) for thin plates.

    Returns ``{h/a: errors on the meshes}``.  An element that locks has an
    error that grows like ``(a/h)^2`` as the plate thins; here the errors
    stay of the same size and shrink at the same rate on every thickness.
    """
    return {h_a: case_table(f"mindlin_ss_{h_a:g}", degree, meshes, n_modes=1).errors[:, 0]
            for h_a in thickness}


@dataclass
class PlateModesResult(_common.CaseResult):
    tables: list
    cantilever_order: float


def run(degrees=(1, 2, 3), mindlin_h=(0.01, 0.1, 0.2), meshes=None, disc_meshes=None,
        reference_meshes=(8, 16, 32), n_modes=6, outdir=None, plot=True):
    """All tables; writes CSV, figures and summary.json into ``outdir``."""
    meshes = meshes or DEFAULT_MESHES
    disc_meshes = disc_meshes or DISC_MESHES
    tic = time.perf_counter()
    ref_cant, _, order_cant = cantilever_reference(reference_meshes, 3, n_modes)
    tables = []
    for k in degrees:
        tables.append(case_table("kirchhoff_ss", k, meshes[k], n_modes))
        tables.append(case_table("kirchhoff_cantilever", k, meshes[k], n_modes, reference=ref_cant))
        tables.append(case_table("kirchhoff_circular", k, disc_meshes[k], n_modes))
        if k >= 2:
            for h_a in mindlin_h:
                tables.append(case_table(f"mindlin_ss_{h_a:g}", k, meshes[k], n_modes))
    thin = mindlin_thin_limit(2, meshes[2][:3]) if 2 in degrees and mindlin_h else {}
    out = PlateModesResult(tables, order_cant)
    out.thin_limit = thin
    out.summary = {
        "nu": NU, "kappa": KAPPA, "wall_time_s": time.perf_counter() - tic,
        "cantilever_reference_lam": ref_cant.tolist(), "cantilever_reference_order": order_cant,
        "cantilever_reference_meshes": list(reference_meshes),
        "mindlin_thin_limit_k2": {f"{h:g}": e.tolist() for h, e in thin.items()},
        "circular_exact_lam": circular_clamped_exact(),
        "tables": [{"case": t.case, "degree": t.degree, "meshes": t.meshes, "ne": t.ne,
                    "lam_first": t.lam[:, 0].tolist(), "error_first": t.errors[:, 0].tolist(),
                    "observed_orders": t.orders.tolist(), "lam_finest": t.lam[-1].tolist()}
                   for t in tables],
    }
    if outdir is not None:
        out.files += write(out, outdir, plot)
    return out


def write(out, outdir, plot=True):
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, "plate_modes.csv")
    with open(path, "w") as fh:
        fh.write("case,degree,mesh,ne,mode,lam,reference,rel_error\n")
        for t in out.tables:
            for i, N in enumerate(t.meshes):
                for j in range(t.lam.shape[1]):
                    if not np.isfinite(t.reference[j]):
                        continue
                    fh.write(f"{t.case},{t.degree},{N},{t.ne[i]},{j + 1},{t.lam[i, j]:.12g},"
                             f"{t.reference[j]:.12g},{t.errors[i, j]:.6e}\n")
    files = [path]
    if plot:
        plt = _common.figure_style()
        cases = sorted({t.case for t in out.tables})
        for case in cases:
            fig, ax = plt.subplots()
            for t in out.tables:
                if t.case == case and np.all(np.abs(t.errors[:, 0]) > 0):
                    ax.loglog(t.ne, np.abs(t.errors[:, 0]), "o-", label=f"k = {t.degree}")
            ax.set_xlabel("unknowns")
            ax.set_ylabel(r"$|\lambda_1 / \lambda_1^{ref} - 1|$")
            ax.set_title(case.replace("_", " "))
            ax.legend()
            files += _common.savefig(fig, outdir, f"PlateModes_{case}")
            plt.close(fig)
    files.append(_common.write_summary(outdir, "plate_modes", out.summary))
    return files


def format_tables(out):
    """Text of every convergence table (first mode) with observed orders."""
    lines = []
    for t in out.tables:
        lines.append(f"{t.case}, k = {t.degree}: reference lam_1 = {t.reference[0]:.8f}")
        orders = np.r_[np.nan, t.orders]
        for i, N in enumerate(t.meshes):
            lines.append(f"  mesh {N:3d}  ne {t.ne[i]:7d}  lam_1 {t.lam[i, 0]:.8f}  "
                         f"err {t.errors[i, 0]:+.3e}  order {orders[i]:5.2f}")
    return "\n".join(lines)


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--degrees", type=_common.positive_int, nargs="+", default=[1, 2, 3], choices=[1, 2, 3])
    p.add_argument("--coarse", action="store_true", help="coarse meshes only (a quick check)")
    args = p.parse_args(argv)
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []
    if args.coarse:
        out = run(tuple(args.degrees), meshes=COARSE_MESHES, disc_meshes=COARSE_DISC_MESHES,
                  reference_meshes=(4, 8, 16), outdir=args.outdir, plot=not args.no_plot)
    else:
        out = run(tuple(args.degrees), outdir=args.outdir, plot=not args.no_plot)
    print(f"cantilever reference (Richardson, k = 3, order {out.cantilever_order:.2f}): "
          + ", ".join(f"{x:.6f}" for x in out.summary["cantilever_reference_lam"]))
    print(format_tables(out))
    for h_a, e in out.thin_limit.items():
        print(f"Mindlin k = 2, h/a = {h_a:g}: errors " + ", ".join(f"{x:+.2e}" for x in e))


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

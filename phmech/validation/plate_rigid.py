"""Kirchhoff plate with a rigid rod along its edge: boundary interconnection with a rigid element.

Square plate 1 m x 1 m x 0.05 m, E = 70 GPa, rho = 2700 kg/m^3, nu = 0.35,
clamped at x = 0, free at y = 0 and y = 1; a rigid rod of 50 kg and 1 m
lies along the edge x = 1.  Two interconnections:

* ``"transformer"``: the rod's heave velocity ``v_r`` and its rate of
  rotation ``w_r`` about the x axis give the edge's vertical velocity,
  ``v(1, y) = v_r + w_r (y - 1/2)`` at every velocity node of the edge
  (Lagrange multipliers: the nodal shear forces, which the rod carries as
  their resultant and their moment about its centre); the edge is free in
  rotation (``M_nn = 0``);
* ``"welded"``: in addition the edge slope follows the rod's rotation about
  its own axis, ``d_n v(1, y) = b_r``.  The edge is ``"guided"``
  (:mod:`phmech.fem.plate`) and the edge moments couple to ``b_r`` through a
  skew block of ``J`` (no multiplier).  The rod's inertia about its axis is
  that of a solid round rod of radius ``rod_radius`` (the thesis does not
  give the section; default 2 cm).

Both, and the plate alone (``"no_rod"``, edge x = 1 free) for comparison: the first six natural frequencies (constrained pencil, condensed
shift-invert :func:`phmech.fem.condensed.condensed_modes`), and 10 ms with the
midpoint rule under the pressure ``1e5 (y + 10 (y - 1/2)^2)`` Pa during the
first 2 ms: Hamiltonian of plate and rod, deflection snapshots and the
discrete power balance.

    python -m phmech.validation.plate_rigid --outdir out/plate_rigid
"""
import os
import sys
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from . import _common

L, THICK, E_MOD, RHO, NU = 1.0, 0.05, 70e9, 2700.0, 0.35
M_ROD = 50.0
VARIANTS = ("transformer", "welded")
#: every model of the study: the two interconnections and the plate alone (edge x = 1 free)
MODELS = VARIANTS + ("no_rod",)


class PlateRod:
    """The coupled plate-rod model: ``M e' = J e + G^T lam + b u(t)``, ``0 = -G e``.

    ``e = (plate efforts, v_r, w_r[, b_r])``.
    """

    def __init__(self, variant="transformer", n=8, degree=2, rod_radius=0.02, rod_mass=M_ROD):
        from ..fem.mesh_recipe import MeshRecipe
        from ..fem.plate import KirchhoffPlate

        if variant not in MODELS:
            raise ValueError(f"plate_rigid: variant must be one of {MODELS}, got {variant!r}")
        self.variant = variant
        edge = "guided" if variant == "welded" else "free"
        mesh = MeshRecipe("firedrake:RectangleMesh", int(n), int(n), L, L)      # built on first use
        self.plate = p = KirchhoffPlate("plate", mesh, THICK, RHO, E_MOD, NU, degree=degree,
                                        boundary={1: "clamped", 2: edge, 3: "free", 4: "free"})
        rod_inertia = [] if variant == "no_rod" else [rod_mass, rod_mass * L ** 2 / 12]
        if variant == "welded":
            rod_inertia.append(0.5 * rod_mass * rod_radius ** 2)
        self.np, self.nr = p.ne, len(rod_inertia)
        ne = self.np + self.nr
        self.M = sp.block_diag([p.M] + ([sp.diags(rod_inertia)] if rod_inertia else []), format="csr")
        J = sp.lil_matrix((ne, ne))
        J[:self.np, :self.np] = p.J0
        if variant == "welded":
            r = p.edge_moment_rows(2, [lambda x: 1.0])[0]
            nz = np.flatnonzero(r)
            ib = self.np + 2
            for i in nz:
                J[i, ib] = r[i]
                J[ib, i] = -r[i]
        self.J = sp.csr_matrix(J)
        idx, X = p.edge_nodes(2) if rod_inertia else (np.zeros(0, int), np.zeros((0, 2)))
        rows = np.arange(len(idx))
        G = sp.lil_matrix((len(idx), ne))
        if len(idx):
            G[rows, idx] = 1.0
            G[rows, self.np] = -1.0
            G[rows, self.np + 1] = -(X[:, 1] - 0.5 * L)
        self.G = sp.csr_matrix(G)
        self.vel = np.r_[p.velocity_dofs, self.np + np.arange(self.nr)]
        self.stress = p.stress_dofs
        self.b = np.r_[p.load_vector(lambda x: 1e5 * (x[1] + 10 * (x[1] - 0.5) ** 2)), np.zeros(self.nr)]

    @property
    def ne(self):
        return self.M.shape[0]

    def frequencies(self, k=6):
        """Lowest ``k`` natural frequencies [Hz] of the constrained system."""
        from ..fem.condensed import condensed_modes

        v, s = self.vel, self.stress
        omega, _ = condensed_modes(self.M[v][:, v].tocsc(), self.M[s][:, s].tocsc(), self.J[s][:, v].tocsc(),
                                   k, 0.0, self.G[:, v] if self.G.shape[0] else None)
        return omega / (2 * np.pi)

    def problem(self, t_load=2e-3):
        """The descriptor system as a :class:`~phmech.solvers.problem.DAEProblem` (load on for ``t < t_load``)."""
        from ..solvers.problem import DAEProblem

        ne, nl = self.ne, self.G.shape[0]
        E = sp.block_diag([self.M, sp.csr_matrix((nl, nl))], format="csr")
        A = sp.bmat([[self.J, self.G.T], [-self.G, None]], format="csr")
        b = np.r_[self.b, np.zeros(nl)]

        def u(t):
            return 1.0 if t < t_load else 0.0

        return DAEProblem(E, lambda t, y: A @ y + b * u(t), jac=lambda t, y: A, n_alg=nl,
                          power=lambda t, y: float(self.b @ y[:ne]) * u(t))


@dataclass
class PlateRigidResult(_common.CaseResult):
    freq_hz: dict
    t: dict
    H_plate: dict
    H_rod: dict
    balance: dict
    snapshots: dict


def simulate(model, t_end=1e-2, dt=2e-5, t_load=2e-3):
    """Midpoint rule from rest; returns ``(t, e, work)``."""
    from ..solvers import solve

    prob = model.problem(t_load)
    res = solve(prob, (0.0, t_end), np.zeros(prob.n), method="midpoint", dt=dt, tstops=[t_load])
    return res.t, res.y[:, :model.ne], res.work


def run(n=8, degree=2, t_end=1e-2, dt=2e-5, rod_radius=0.02, outdir=None, plot=True, snapshot_times=(2e-3, 5e-3, 1e-2)):
    """Frequencies and the 10 ms simulation of both variants."""
    out = PlateRigidResult({}, {}, {}, {}, {}, {})
    summary = {"n": n, "degree": degree, "dt": dt, "t_end": t_end, "rod_radius": rod_radius}
    for variant in MODELS:
        tic = time.perf_counter()
        model = PlateRod(variant, n, degree, rod_radius)
        out.freq_hz[variant] = model.frequencies(6)
        t, e, work = simulate(model, t_end, dt)
        ep, er = e[:, :model.np], e[:, model.np:]
        Hp = 0.5 * np.einsum("ij,ij->i", ep, (model.plate.M @ ep.T).T)
        Hr = 0.5 * np.einsum("ij,ij->i", er, (model.M[model.np:, model.np:] @ er.T).T)
        H = Hp + Hr
        bal = H - H[0] - work
        out.t[variant], out.H_plate[variant], out.H_rod[variant], out.balance[variant] = t, Hp, Hr, bal
        # displacement: the trapezoidal integral of the velocity (the midpoint rule's own)
        v = e[:, model.plate.fields["v"]]
        disp = np.concatenate([np.zeros((1, v.shape[1])),
                               np.cumsum(0.5 * (v[1:] + v[:-1]) * np.diff(t)[:, None], axis=0)])
        out.snapshots[variant] = {ts: disp[int(np.argmin(np.abs(t - ts)))] for ts in snapshot_times}
        summary[variant] = {"freq_hz": out.freq_hz[variant].tolist(), "ne": model.ne, "nl": model.G.shape[0],
                            "H_max_J": float(np.max(H)), "H_end_J": float(H[-1]),
                            "power_balance_max_abs_J": float(np.max(np.abs(bal))),
                            "power_balance_rel": float(np.max(np.abs(bal)) / np.max(H)),
                            "wall_time_s": time.perf_counter() - tic}
        out.model = getattr(out, "model", {})
        out.model[variant] = model
    out.summary = summary
    if outdir is not None:
        out.files += write(out, outdir, plot)
    return out


def write(out, outdir, plot=True):
    os.makedirs(outdir, exist_ok=True)
    files = []
    path = os.path.join(outdir, "plate_rigid_frequencies.csv")
    with open(path, "w") as fh:
        fh.write("mode," + ",".join(f"{v}_hz" for v in MODELS) + "\n")
        for i in range(6):
            fh.write(f"{i + 1}," + ",".join(f"{out.freq_hz[v][i]:.8g}" for v in MODELS) + "\n")
    files.append(path)
    for v in MODELS:
        path = os.path.join(outdir, f"plate_rigid_{v}.csv")
        with open(path, "w") as fh:
            fh.write("t_s,H_plate_J,H_rod_J,H_J,balance_J\n")
            for row in zip(out.t[v], out.H_plate[v], out.H_rod[v], out.balance[v]):
                t, hp, hr, b = row
                fh.write(f"{t:.8e},{hp:.10e},{hr:.10e},{hp + hr:.10e},{b:.4e}\n")
        files.append(path)
    if plot:
        import firedrake as fd
        plt = _common.figure_style()
        fig, ax = plt.subplots()
        for i, v in enumerate(MODELS):
            ax.plot(1e3 * out.t[v], out.H_plate[v] + out.H_rod[v], color=f"C{i}", label=f"{v}: H")
            if v != "no_rod":
                ax.plot(1e3 * out.t[v], out.H_plate[v], "--", color=f"C{i}", label=f"{v}: H plate")
        ax.set_xlabel("t [ms]")
        ax.set_ylabel("energy [J]")
        ax.legend(fontsize=8)
        files += _common.savefig(fig, outdir, "PlateRod_Hamiltonian")
        plt.close(fig)
        for v in MODELS:
            model = out.model[v]
            snaps = out.snapshots[v]
            fig, axs = plt.subplots(1, len(snaps), figsize=(4 * len(snaps), 3.4))
            V1 = fd.FunctionSpace(model.plate.mesh, "CG", 1)
            xy = model.plate.mesh.coordinates.dat.data_ro
            tri = model.plate.mesh.coordinates.function_space().cell_node_list
            for ax, (ts, d) in zip(np.atleast_1d(axs), snaps.items()):
                ev = np.zeros(model.plate.ne)
                ev[model.plate.fields["v"]] = d
                w1 = fd.Function(V1).interpolate(model.plate.deflection_function(ev))
                c = ax.tripcolor(xy[:, 0], xy[:, 1], tri, 1e3 * w1.dat.data_ro, shading="gouraud")
                fig.colorbar(c, ax=ax, label="w [mm]")
                ax.set_title(f"t = {1e3 * ts:g} ms")
                ax.set_aspect("equal")
            files += _common.savefig(fig, outdir, f"PlateRod_deflection_{v}")
            plt.close(fig)
    files.append(_common.write_summary(outdir, "plate_rigid", out.summary))
    return files


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--n", type=_common.positive_int, default=8, help="elements per side")
    p.add_argument("--degree", type=_common.positive_int, default=2, help="velocity degree k")
    p.add_argument("--dt", type=_common.positive_float, default=2e-5, help="midpoint step [s]")
    p.add_argument("--tfinal", type=_common.positive_float, default=1e-2, help="final time [s]")
    args = p.parse_args(argv)
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []
    out = run(args.n, args.degree, t_end=args.tfinal, dt=args.dt, outdir=args.outdir, plot=not args.no_plot,
              snapshot_times=tuple(args.tfinal * np.array([0.2, 0.5, 1.0])))
    for v in MODELS:
        s = out.summary[v]
        print(f"{v}: f = " + ", ".join(f"{x:.3f}" for x in s["freq_hz"]) + " Hz; "
              f"power balance {s['power_balance_max_abs_J']:.2e} J (rel {s['power_balance_rel']:.1e})")


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

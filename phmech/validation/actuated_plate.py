"""Cantilever Kirchhoff plate with two proof-mass actuators and a mirror.

Aluminium plate ``rho = 2692 kg/m^3``, ``E = 69 GPa``, ``nu = 0.33``,
4 cm x 28 cm x 3 mm (``--length 0.30``: the 30 cm plate of the original
study), clamped at the short edge ``y = 0``, the other edges free.
Attached through patch ports (:meth:`phmech.fem.plate.PlateBase.add_patch_port`,
a cosine-bump mean of radius ``patch_radius`` independent of the mesh,
carrying the vertical velocity and both rotation rates):

* two proof-mass actuators at (1, 25) cm and (3, 10.5) cm: a casing of
  182.7 g with ``J_xx = J_yy = 0.3 g m^2`` rigidly attached, and a moving
  mass of 23.6 g on a spring of 1026 N/m above it; the actuator force ``F``
  acts between casing and moving mass (``+F`` on the moving mass, ``-F``
  on the casing);
* a mirror at (2, 28) cm: 23.4 g, static moment ``s = -0.338 g m`` coupling
  its vertical velocity and roll rate, ``J_xx = 0.008 g m^2``,
  ``J_yy = 0.058 g m^2``.  The data are read as the mass matrix at the
  attachment point in (heave, roll rate, pitch rate),
  ``[[m, s, 0], [s, J_xx, 0], [0, 0, J_yy]]``; the positions are kept for
  both lengths.

The actuators are :class:`phmech.forces.actuators.ProofMassActuator` (casing,
proof mass ``m v_m' = -f_s + F``, spring ``f_s' / k = v_m - v_casing``), the
mirror an :class:`phmech.forces.actuators.AttachedBody`; each is welded to its patch
port (a Lagrange multiplier: force and moment), and the whole is one
:class:`phmech.System`.  The model, about the static equilibrium (gravity
drops out of the linear vibrations), is

.. math::

    M e' = J e + G^T \\lambda + b F(t), \\qquad 0 = -G e .

Delivered: the first six frequencies with labels (actuator / bending /
torsion from the modal kinetic energy: share of the moving masses, and the
symmetric / antisymmetric share of the plate's velocity about the centre
line ``x = 2 cm``), mode shapes, the frequency response from each actuator
force to the mirror rotation angles (modal sum with static residual, checked
against a direct solve at every 20th frequency), a midpoint
simulation with the discrete power balance, and the mesh convergence of the
frequencies on the nested gmsh meshes of ``meshes/`` (the actuator and
mirror stations are vertices; default level 1, cells of about 5 mm).  The thesis section (seed text) gives no numbers for this case.

    python -m phmech.validation.actuated_plate --outdir out/actuated_plate [--length 0.30]
"""
import os
import sys
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from . import _common

RHO, E_MOD, NU, THICK, WIDTH = 2692.0, 69e9, 0.33, 3e-3, 0.04
LENGTHS = (0.28, 0.30)
#: proof-mass actuators: casing mass [kg], casing inertia J_xx = J_yy [kg m^2], moving mass [kg], spring [N/m]
CASING_MASS, CASING_J, MOVING_MASS, SPRING = 0.1827, 0.3e-3, 0.0236, 1026.0
ACTUATORS = {"act1": (0.01, 0.25), "act2": (0.03, 0.105)}
MIRROR_POS = (0.02, 0.28)
MIRROR_MASS, MIRROR_S, MIRROR_JXX, MIRROR_JYY = 0.0234, -0.338e-3, 0.008e-3, 0.058e-3
#: boundary tags of the rectangle meshes (Firedrake's RectangleMesh numbering; the gmsh files use the same)
TAG_X0, TAG_XB, TAG_CLAMPED, TAG_TIP = 1, 2, 3, 4
MESH_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "meshes")


def casing_matrix():
    """3 x 3 mass matrix of an actuator casing in (heave, roll rate, pitch rate)."""
    return np.diag([CASING_MASS, CASING_J, CASING_J])


def mirror_matrix():
    """3 x 3 mass matrix of the mirror at its attachment point."""
    return np.array([[MIRROR_MASS, MIRROR_S, 0.0], [MIRROR_S, MIRROR_JXX, 0.0], [0.0, 0.0, MIRROR_JYY]])


def mesh_file(length, level):
    """Path of the gmsh rectangle of ``length`` [m] at refinement ``level`` (``meshes/``)."""
    return os.path.join(MESH_DIR, f"plate_4x{round(100 * length)}_l{level}.msh")


def plate_mesh(length=0.28, level=1, source="auto", refine=0):
    """The 4 cm x ``length`` rectangle: cells of about ``1 cm / 2^level``.

    ``source``: ``"gmsh"`` (the committed file of :func:`mesh_file`; the
    actuator and mirror points are mesh vertices), ``"structured"``
    (Firedrake's RectangleMesh, ``4 * 2^level x 28 * 2^level`` squares cut
    in two) or ``"auto"`` (gmsh when the file exists).  ``refine`` further
    uniform refinements (a Firedrake mesh hierarchy).
    """
    import firedrake as fd

    path = mesh_file(length, level)
    if source == "gmsh" or (source == "auto" and os.path.exists(path)):
        if not os.path.exists(path):
            raise ValueError(f"actuated_plate: no mesh file {path!r} (run scripts/make_meshes.py)")
        mesh = fd.Mesh(path)
    elif source in ("structured", "auto"):
        n = 2 ** level
        mesh = fd.RectangleMesh(4 * n, round(100 * length) * n, WIDTH, length)
    else:
        raise ValueError(f"actuated_plate: mesh source must be 'gmsh', 'structured' or 'auto', got {source!r}")
    if refine:
        mesh = fd.MeshHierarchy(mesh, refine)[-1]
    return mesh


def plate_mesh_recipe(length=0.28, level=1, source="auto", refine=0):
    """:func:`plate_mesh` as a :class:`~phmech.fem.mesh_recipe.MeshRecipe`: built on first use, keyed
    by its arguments and the content of the gmsh file it may read (FE cache)."""
    from ..fem.mesh_recipe import MeshRecipe
    if source not in ("gmsh", "structured", "auto"):
        raise ValueError(f"actuated_plate: mesh source must be 'gmsh', 'structured' or 'auto', got {source!r}")
    path = mesh_file(length, level)
    if source == "gmsh" and not os.path.exists(path):
        raise ValueError(f"actuated_plate: no mesh file {path!r} (run scripts/make_meshes.py)")
    return MeshRecipe("phmech.validation.actuated_plate:plate_mesh", float(length), int(level), source, int(refine),
                      files=(path,) if source != "structured" else ())


class ActuatedPlate:
    """The plate, the actuators and the mirror as a :class:`~phmech.System`.

    The plate (:class:`~phmech.fem.plate.KirchhoffPlate`), two
    :class:`~phmech.forces.actuators.ProofMassActuator` (``"act1"``, ``"act2"``) and
    the mirror (:class:`~phmech.forces.actuators.AttachedBody`), each welded to a
    patch port of the plate.  The assembled ``M e' = J e + G^T lam + B_u F``,
    ``0 = -G e`` is :attr:`dae`; ``M``, ``J``, ``G`` and ``Bu`` are its
    matrices (``Bu``: the input columns of the actuator forces).

    Parameters
    ----------
    length : float
        Plate length [m] (0.28 or 0.30 in the study).
    degree : int
        Velocity degree ``k`` of the HHJ plate.
    level : int
        Mesh level of :func:`plate_mesh` (cells of about 1 cm / 2^level).
    mesh : firedrake mesh or MeshRecipe, optional
        Default :func:`plate_mesh_recipe` ``(length, level, mesh_source)``.
    patch_radius : float
        Radius [m] of the patch ports (the thesis gives no footprint).
    E : float
        Young's modulus (a large value gives the rigid-plate limit).
    attachments : bool
        False: the bare cantilever.
    """

    def __init__(self, length=0.28, degree=2, level=1, mesh=None, patch_radius=0.01, E=E_MOD,
                 attachments=True, mesh_source="auto"):
        from ..forces.actuators import AttachedBody, ProofMassActuator
        from ..fem.plate import KirchhoffPlate

        problems = [f"{k}={v!r}" for k, v in (("length", length), ("patch_radius", patch_radius), ("E", E))
                    if not (isinstance(v, (int, float)) and np.isfinite(v) and v > 0)]
        if not problems and length < max(y for _, y in ACTUATORS.values()) + 1e-9:
            problems.append(f"length={length!r} (must exceed the actuator station y = 0.25 m)")
        if not problems and length < MIRROR_POS[1]:
            problems.append(f"length={length!r} (the mirror sits at y = {MIRROR_POS[1]} m)")
        if problems:
            raise ValueError("actuated_plate: bad parameters: " + "; ".join(problems))
        self.length, self.patch_radius = float(length), float(patch_radius)
        mesh = plate_mesh_recipe(length, level, mesh_source) if mesh is None else mesh
        self.plate = p = KirchhoffPlate("plate", mesh, THICK, RHO, E, NU, degree=degree,
                                        boundary={TAG_CLAMPED: "clamped"})
        self.actuators = [ProofMassActuator(name, casing_matrix(), MOVING_MASS, SPRING, position=pos)
                          for name, pos in ACTUATORS.items()] if attachments else []
        self.bodies = self.actuators + ([AttachedBody("mirror", mirror_matrix(), MIRROR_POS)] if attachments else [])
        self.ports = {b.name: p.add_patch_port(b.name, b.ports["P"].position[:2], patch_radius) for b in self.bodies}
        self.system = self.build_system()
        self.dae = d = self.system.assemble()
        self.M = d.M
        self.J = sp.csr_matrix(d.J0 - d.R)
        G = d.G(d.q0)
        self.G = sp.csr_matrix(G[d.active]) if d.nl else sp.csr_matrix((0, d.ne))
        off = {b.name: d.e_slices[b.name].start for b in [p] + self.bodies}
        self.body_index = {b.name: off[b.name] for b in self.bodies}
        self.i_vm = np.array([off[a.name] + a.I_VM for a in self.actuators], int)
        self.i_fs = np.array([off[a.name] + a.I_FS for a in self.actuators], int)
        self.vel = np.concatenate([off[b.name] + b.velocity_dofs for b in [p] + self.bodies])
        self.stress = np.concatenate([off[b.name] + b.stress_dofs for b in [p] + self.bodies])
        self.Bu = np.zeros((d.ne, len(self.actuators)))
        for i, a in enumerate(self.actuators):
            self.Bu[d.e_slices[a.name], i] = a.port("drive").Y[2]
        self.labels = [f"{b.name}.{c}" if b is not p else "plate" for b in [p] + self.bodies
                       for c in (b.e_labels if b is not p else range(p.ne))]

    def build_system(self, force=None):
        """A :class:`~phmech.System` of the plate and the attached bodies; ``force(t) -> (n_actuators,)``
        adds the actuator forces."""
        from .. import System

        s = System([self.plate] + self.bodies)
        for b in self.bodies:
            s.connect(self.ports[b.name], b.port("P"), "weld", name=f"{b.name} on plate")
        if force is not None:
            for i, a in enumerate(self.actuators):
                s.add_load(a.force(lambda t, i=i: force(t)[i]))
        return s

    def mirror_rates(self, e):
        """Mirror roll and pitch rates ``(N, 2)`` [rad/s] of efforts ``e`` ``(N, ne)`` (its port's ``W`` rows)."""
        sl = self.dae.e_slices["mirror"]
        return np.asarray(e)[:, sl] @ self.bodies[-1].port("P").W[:2].T

    @property
    def ne(self):
        return self.M.shape[0]

    @property
    def nl(self):
        return self.G.shape[0]

    def blocks(self):
        """``(Mv, C, B, Gv)``: velocity mass, compliance, ``B = J[stress, vel]``, constraints on velocities."""
        v, s = self.vel, self.stress
        Gv = self.G[:, v] if self.nl else None
        return (self.M[v][:, v].tocsc(), self.M[s][:, s].tocsc(), self.J[s][:, v].tocsc(), Gv)

    def modes(self, k=6):
        """Lowest ``k`` modes: ``(f [Hz], V)``, ``V`` over ``self.vel`` with ``V^T Mv V = I``."""
        from ..fem.condensed import condensed_modes

        Mv, C, B, Gv = self.blocks()
        omega, V = condensed_modes(Mv, C, B, k, 0.0, Gv)
        return omega / (2 * np.pi), V

    def output_rows(self):
        """Rows over ``self.vel`` of the mirror's roll and pitch (rates, or angles in the frequency domain)."""
        W = np.zeros((2, self.ne))
        W[:, self.dae.e_slices["mirror"]] = self.bodies[-1].port("P").W[:2]
        return W[:, self.vel]

    def input_columns(self):
        """Columns over ``self.vel`` of the actuator forces."""
        return self.Bu[self.vel]

    def saddle(self, sigma):
        """``[[-sigma Mv, B^T, Gv^T], [B, -C, 0], [Gv, 0, 0]]`` (``sigma = omega^2``)."""
        Mv, C, B, Gv = self.blocks()
        return sp.bmat([[-sigma * Mv, B.T, Gv.T], [B, -C, None], [Gv, None, None]], format="csc")

    def frf_direct(self, freqs):
        """Receptance from the actuator forces to the mirror angles by a sparse solve per frequency.

        ``u = (K - omega^2 Mv)^-1 b`` on ``ker G`` with ``K = B^T C^-1 B``;
        returns ``H`` of shape ``(len(freqs), 2 outputs, n_inputs)`` [rad/N].
        """
        nv = len(self.vel)
        b, Cout = self.input_columns(), self.output_rows()
        rhs = np.zeros((self.saddle(0.0).shape[0], b.shape[1]))
        rhs[:nv] = b
        H = np.empty((len(freqs), 2, b.shape[1]))
        for i, f in enumerate(freqs):
            u = spla.splu(self.saddle((2 * np.pi * f) ** 2)).solve(rhs)[:nv]
            H[i] = Cout @ u
        return H

    def frf_modal(self, freqs, n_modes=20):
        """The same receptance from ``n_modes`` modes plus the static residual of the others.

        ``H(omega) = sum_i c phi_i phi_i^T b / (omega_i^2 - omega^2) + c (K^-1 - sum_i phi_i phi_i^T / omega_i^2) b``.
        """
        nv = len(self.vel)
        f, V = self.modes(n_modes)
        w2 = (2 * np.pi * f) ** 2
        b, Cout = self.input_columns(), self.output_rows()
        rhs = np.zeros((self.saddle(0.0).shape[0], b.shape[1]))
        rhs[:nv] = b
        u0 = spla.splu(self.saddle(0.0)).solve(rhs)[:nv]
        cV, Vb = Cout @ V, V.T @ b
        resid = Cout @ u0 - cV @ (Vb / w2[:, None])
        W2 = (2 * np.pi * np.asarray(freqs)) ** 2
        return np.einsum("om,fm,mi->foi", cV, 1.0 / (w2[None, :] - W2[:, None]), Vb) + resid[None]

    def energy_fractions(self, V, n_grid=(9, 57)):
        """Modal kinetic-energy shares: ``(moving masses, plate symmetric, plate antisymmetric, bodies)``.

        The plate's share is split by the symmetric and antisymmetric parts
        of its velocity about ``x = b/2`` (sampled on a grid), the moving
        masses' share is ``m v_m^2``; each row sums to 1.
        """
        p = self.plate
        Mv = self.M[self.vel][:, self.vel]
        pos = {int(i): j for j, i in enumerate(self.vel)}
        ip = np.array([pos[int(i)] for i in p.velocity_dofs])
        ivm = np.array([pos[int(i)] for i in self.i_vm], int)
        xs = np.linspace(0.0, WIDTH, n_grid[0])
        ys = np.linspace(0.0, self.length, n_grid[1])
        import firedrake as fd

        pts = np.array([(x, y) for x in xs for y in ys])
        mir = np.c_[WIDTH - pts[:, 0], pts[:, 1]]
        ev_pts, ev_mir = (fd.PointEvaluator(p.mesh, q, tolerance=1e-10) for q in (pts, mir))
        out = []
        for j in range(V.shape[1]):
            phi = V[:, j]
            ke = phi * (Mv @ phi)
            total = ke.sum()
            e_m = ke[ivm].sum() / total if len(ivm) else 0.0
            e_p = ke[ip].sum() / total
            ev = np.zeros(p.ne)
            ev[p.velocity_dofs] = phi[ip]
            w = p.deflection_function(ev)
            a, b = np.asarray(ev_pts.evaluate(w)), np.asarray(ev_mir.evaluate(w))
            s2, a2 = np.sum((a + b) ** 2), np.sum((a - b) ** 2)
            frac_s = s2 / (s2 + a2)
            out.append((e_m, e_p * frac_s, e_p * (1 - frac_s), 1.0 - e_m - e_p))
        return np.array(out)


def classify(fractions):
    """Labels from :meth:`ActuatedPlate.energy_fractions`: actuator / bending / torsion, numbered."""
    labels, count = [], {}
    for e_m, e_s, e_a, e_b in fractions:
        kind = "actuator" if e_m > 0.5 else ("bending" if e_s >= e_a else "torsion")
        count[kind] = count.get(kind, 0) + 1
        labels.append(f"{kind} {count[kind]}")
    return labels


def burst(amplitude, f0, cycles):
    """Hann-windowed sine burst ``F(t)`` of ``cycles`` periods at ``f0`` [Hz] on actuator 1."""
    T = cycles / f0

    def force(t):
        if t >= T:
            return np.zeros(2)
        return np.array([amplitude * np.sin(np.pi * t / T) ** 2 * np.sin(2 * np.pi * f0 * t), 0.0])
    force.duration = T
    return force


def simulate(model, force, t_end, dt):
    """Midpoint rule from rest under the actuator forces ``force(t)``: ``(t, e, work)``."""
    s = model.build_system(force)
    tstops = [force.duration] if getattr(force, "duration", t_end) < t_end else None
    res = s.simulate(t_end, solver="midpoint", dt=dt, tstops=tstops)
    return res.t, res.y[:, s.assemble().se], res.work


def convergence(length=0.28, degree=2, levels=(0, 1, 2), refine_last=0, k=6, **kw):
    """Frequencies on the meshes ``levels`` (and ``refine_last`` uniform refinements of the last).

    Returns ``(f (n_meshes, k), observed orders (n_meshes - 2, k))`` with the
    orders ``log2(|f_i - f_{i-1}| / |f_{i+1} - f_i|)`` of consecutive halvings.
    """
    meshes = [plate_mesh_recipe(length, lv) for lv in levels]
    meshes += [plate_mesh_recipe(length, levels[-1], refine=r) for r in range(1, refine_last + 1)]
    f = np.array([ActuatedPlate(length, degree, mesh=m, **kw).modes(k)[0] for m in meshes])
    d = np.abs(np.diff(f, axis=0))
    return f, np.log2(d[:-1] / d[1:])


def beam_check(length, n_modes=6):
    """The independent beam model (:mod:`._actuated_beam`) with and without attachments [Hz]."""
    from ._actuated_beam import beam_frequencies

    att = [(x, y, casing_matrix()) for x, y in ACTUATORS.values()] + [(*MIRROR_POS, mirror_matrix())]
    act = [(x, y, MOVING_MASS, SPRING) for x, y in ACTUATORS.values()]
    full = beam_frequencies(length, WIDTH, THICK, RHO, E_MOD, NU, att, act, k=n_modes)
    bare = beam_frequencies(length, WIDTH, THICK, RHO, E_MOD, NU, k=n_modes)
    return full, bare


@dataclass
class ActuatedPlateResult(_common.CaseResult):
    freq_hz: np.ndarray
    labels: list
    fractions: np.ndarray
    frf_freqs: np.ndarray
    frf: np.ndarray
    frf_check_freqs: np.ndarray
    frf_direct: np.ndarray
    t: np.ndarray
    H: np.ndarray
    work: np.ndarray
    balance: np.ndarray
    mirror_angles: np.ndarray
    force: np.ndarray


def run(length=0.28, degree=2, level=1, patch_radius=0.01, n_frf=600, frf_check_every=20, frf_modes=20,
        t_end=1.0, dt=2e-4, amplitude=1.0, cycles=5, conv_levels=(0, 1, 2), mesh_source="auto",
        outdir=None, plot=True):
    """Frequencies, labels, frequency response, simulation and convergence of the actuated plate."""
    tic = time.perf_counter()
    model = ActuatedPlate(length, degree, level, patch_radius=patch_radius, mesh_source=mesh_source)
    f, V = model.modes(6)
    fractions = model.energy_fractions(V)
    labels = classify(fractions)
    frf_freqs = np.logspace(0.0, np.log10(200.0), n_frf)
    frf = model.frf_modal(frf_freqs, frf_modes)
    check = frf_freqs[frf_check_every // 2::frf_check_every]
    direct = model.frf_direct(check)
    idx = np.searchsorted(frf_freqs, check)
    frf_err = float(np.max(np.abs(direct - frf[idx])) / np.max(np.abs(direct)))
    force = burst(amplitude, f[0], cycles)
    t, e, work = simulate(model, force, t_end, dt)
    H = 0.5 * np.einsum("ij,ij->i", e, (model.M @ e.T).T)
    bal = H - H[0] - work
    rates = model.mirror_rates(e)
    angles = np.concatenate([np.zeros((1, 2)), np.cumsum(0.5 * (rates[1:] + rates[:-1]) * np.diff(t)[:, None], 0)])
    F = np.array([force(ti)[0] for ti in t])
    out = ActuatedPlateResult(f, labels, fractions, frf_freqs, frf, check, direct, t, H, work, bal, angles, F)
    out.model, out.V = model, V
    beam_full, beam_bare = beam_check(length)
    bare = ActuatedPlate(length, degree, mesh=model.plate.mesh_source, patch_radius=patch_radius,
                         attachments=False).modes(6)[0]
    summary = {"length_m": length, "degree": degree, "mesh_level": level, "mesh_source": mesh_source,
               "patch_radius_m": patch_radius, "ne": model.ne, "nl": model.nl,
               "freq_hz": f.tolist(), "labels": labels,
               "energy_fractions": {"columns": ["moving_masses", "plate_symmetric", "plate_antisymmetric",
                                                "attached_bodies"], "rows": fractions.tolist()},
               "beam_model_freq_hz": beam_full.tolist(),
               "plate_vs_beam_rel": (f / beam_full - 1).tolist(),
               "bare_plate_freq_hz": bare.tolist(), "bare_beam_freq_hz": beam_bare.tolist(),
               "proof_mass_alone_hz": float(np.sqrt(SPRING / MOVING_MASS) / (2 * np.pi)),
               "frf_modes": frf_modes, "frf_modal_vs_direct_max_rel": frf_err,
               "sim": {"dt": dt, "t_end": t_end, "burst_hz": float(f[0]), "burst_cycles": cycles,
                       "amplitude_N": amplitude, "H_max_J": float(H.max()), "H_end_J": float(H[-1]),
                       "work_end_J": float(work[-1]), "power_balance_max_abs_J": float(np.max(np.abs(bal))),
                       "power_balance_rel": float(np.max(np.abs(bal)) / H.max()),
                       "mirror_roll_max_rad": float(np.max(np.abs(angles[:, 0])))},
               "thesis_reference": "the seed text's 'Actuated plate' section has no numbers to compare with"}
    if conv_levels:
        fc, orders = convergence(length, degree, conv_levels, patch_radius=patch_radius)
        out.conv = (list(conv_levels), fc, orders)
        summary["convergence"] = {"levels": list(conv_levels), "freq_hz": fc.tolist(),
                                  "observed_orders": orders.tolist()}
    summary["wall_time_s"] = time.perf_counter() - tic
    out.summary = summary
    if outdir is not None:
        out.files += write(out, outdir, plot)
    return out


def _plot_modes(out, outdir, plt):
    import firedrake as fd

    p = out.model.plate
    xy = p.mesh.coordinates.dat.data_ro
    tri = p.mesh.coordinates.function_space().cell_node_list
    V1 = fd.FunctionSpace(p.mesh, "CG", 1)
    pos = {int(i): j for j, i in enumerate(out.model.vel)}
    ip = np.array([pos[int(i)] for i in p.velocity_dofs])
    fig, axs = plt.subplots(1, 6, figsize=(12, 5.2))
    for j, ax in enumerate(axs):
        ev = np.zeros(p.ne)
        ev[p.velocity_dofs] = out.V[ip, j]
        w = fd.Function(V1).interpolate(p.deflection_function(ev)).dat.data_ro
        w = w / np.max(np.abs(w))
        ax.tripcolor(100 * xy[:, 0], 100 * xy[:, 1], tri, w, shading="gouraud", cmap="RdBu_r", vmin=-1, vmax=1)
        for name, port in out.model.ports.items():
            ax.plot(100 * port.position[0], 100 * port.position[1], "ks" if name.startswith("act") else "k^", ms=5)
        ax.set_title(f"{out.freq_hz[j]:.2f} Hz\n{out.labels[j]}", fontsize=9)
        ax.set_aspect("equal")
        ax.set_xlabel("x [cm]")
        ax.grid(False)
    axs[0].set_ylabel("y [cm]")
    files = _common.savefig(fig, outdir, "ActuatedPlate_modes")
    plt.close(fig)
    return files


def write(out, outdir, plot=True):
    os.makedirs(outdir, exist_ok=True)
    files = []
    s = out.summary
    path = os.path.join(outdir, "actuated_plate_frequencies.csv")
    with open(path, "w") as fh:
        fh.write("mode,f_hz,label,ke_moving_masses,ke_plate_sym,ke_plate_antisym,ke_bodies,beam_f_hz\n")
        for i in range(6):
            fh.write(f"{i + 1},{out.freq_hz[i]:.8g},{out.labels[i]},"
                     + ",".join(f"{x:.6f}" for x in out.fractions[i]) + f",{s['beam_model_freq_hz'][i]:.8g}\n")
    files.append(path)
    path = os.path.join(outdir, "actuated_plate_frf.csv")
    with open(path, "w") as fh:
        fh.write("f_hz,act1_to_roll_rad_per_N,act1_to_pitch,act2_to_roll,act2_to_pitch\n")
        for fq, Hf in zip(out.frf_freqs, out.frf):
            fh.write(f"{fq:.8g},{Hf[0, 0]:.8e},{Hf[1, 0]:.8e},{Hf[0, 1]:.8e},{Hf[1, 1]:.8e}\n")
    files.append(path)
    path = os.path.join(outdir, "actuated_plate_time.csv")
    with open(path, "w") as fh:
        fh.write("t_s,F_N,H_J,work_J,balance_J,mirror_roll_rad,mirror_pitch_rad\n")
        for row in zip(out.t, out.force, out.H, out.work, out.balance, out.mirror_angles[:, 0], out.mirror_angles[:, 1]):
            fh.write(",".join(f"{x:.10e}" for x in row) + "\n")
    files.append(path)
    if hasattr(out, "conv"):
        levels, fc, orders = out.conv
        path = os.path.join(outdir, "actuated_plate_convergence.csv")
        with open(path, "w") as fh:
            fh.write("level," + ",".join(f"f{i + 1}_hz" for i in range(fc.shape[1])) + "\n")
            for lv, row in zip(levels, fc):
                fh.write(f"{lv}," + ",".join(f"{x:.10g}" for x in row) + "\n")
        files.append(path)
    if plot:
        plt = _common.figure_style()
        files += _plot_modes(out, outdir, plt)
        fig, axs = plt.subplots(2, 1, sharex=True, figsize=(6, 5.5))
        for a, ax in enumerate(axs):
            for o, name in enumerate(("roll", "pitch")):
                ax.loglog(out.frf_freqs, np.abs(out.frf[:, o, a]), color=f"C{o}", label=f"mirror {name} (modal)")
                ax.loglog(out.frf_check_freqs, np.abs(out.frf_direct[:, o, a]), "o", color=f"C{o}", ms=3,
                          mfc="none", label=f"mirror {name} (direct)")
            ax.set_ylabel(f"|angle / F{a + 1}| [rad/N]")
            ax.legend(fontsize=7)
        axs[-1].set_xlabel("f [Hz]")
        files += _common.savefig(fig, outdir, "ActuatedPlate_frf")
        plt.close(fig)
        fig, axs = plt.subplots(3, 1, sharex=True, figsize=(6, 6.5))
        axs[0].plot(out.t, out.force, label="F1")
        axs[0].set_ylabel("F [N]")
        axs[1].plot(out.t, out.H, label="H")
        axs[1].plot(out.t, out.work, "--", label="supplied work")
        axs[1].set_ylabel("energy [J]")
        axs[1].legend(fontsize=8)
        axs[2].plot(out.t, out.balance)
        axs[2].set_ylabel(r"$H - H_0 - W$ [J]")
        axs[2].set_xlabel("t [s]")
        files += _common.savefig(fig, outdir, "ActuatedPlate_energy")
        plt.close(fig)
        fig, ax = plt.subplots()
        ax.plot(out.t, 1e3 * out.mirror_angles[:, 0], label="roll")
        ax.plot(out.t, 1e3 * out.mirror_angles[:, 1], label="pitch")
        ax.set_xlabel("t [s]")
        ax.set_ylabel("mirror angle [mrad]")
        ax.legend()
        files += _common.savefig(fig, outdir, "ActuatedPlate_mirror")
        plt.close(fig)
    files.append(_common.write_summary(outdir, "actuated_plate", s))
    return files


def main(argv=None):
    p = _common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--length", type=_common.positive_float, default=0.28, help="plate length [m] (0.28 or 0.30)")
    p.add_argument("--degree", type=_common.positive_int, default=2, help="velocity degree k")
    p.add_argument("--level", type=int, default=1, choices=[0, 1, 2], help="mesh level (cells ~ 1 cm / 2^level)")
    p.add_argument("--patch-radius", type=_common.positive_float, default=0.01, help="radius of the patch ports [m]")
    p.add_argument("--dt", type=_common.positive_float, default=2e-4, help="midpoint step [s]")
    p.add_argument("--tfinal", type=_common.positive_float, default=1.0, help="final time [s]")
    p.add_argument("--conv-levels", type=int, nargs="*", default=[0, 1, 2],
                   help="mesh levels of the convergence study (none: skip)")
    args = p.parse_args(argv)
    _common.prepare_outdir(args.outdir, p)
    sys.argv[1:] = []
    try:
        out = run(args.length, args.degree, args.level, args.patch_radius, t_end=args.tfinal, dt=args.dt,
                  conv_levels=tuple(args.conv_levels), outdir=args.outdir, plot=not args.no_plot)
    except ValueError as err:
        p.error(str(err))
    s = out.summary
    for i in range(6):
        print(f"mode {i + 1}: {out.freq_hz[i]:9.4f} Hz  {out.labels[i]:11s} (beam model "
              f"{s['beam_model_freq_hz'][i]:9.4f} Hz, {100 * s['plate_vs_beam_rel'][i]:+.2f} %)")
    if "convergence" in s:
        print("observed orders (levels " + ",".join(map(str, s["convergence"]["levels"])) + "): "
              + "; ".join(", ".join(f"{x:.2f}" for x in row) for row in s["convergence"]["observed_orders"]))
    print(f"FRF modal ({s['frf_modes']} modes + static residual) vs direct: max rel diff "
          f"{s['frf_modal_vs_direct_max_rel']:.2e}")
    print(f"power balance: max |H - H0 - W| = {s['sim']['power_balance_max_abs_J']:.2e} J "
          f"(rel {s['sim']['power_balance_rel']:.1e})")


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

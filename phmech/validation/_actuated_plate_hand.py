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

Each attached rigid body is a :class:`PlateAttachment` with efforts
``(v, omega_x, omega_y)`` (heave and the rotation rates about x and y,
the plate's ``rot_x = dw/dy`` and ``rot_y = -dw/dx``); the interconnection
``port rows . e_plate = e_body`` is a Lagrange multiplier (force and two
moments).  A moving mass is the pH pair ``m v_m' = -f_s + F``,
``f_s' / k = v_m - v_casing``.  The model, about the static equilibrium
(gravity drops out of the linear vibrations), is

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
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..bodies.base import FixedBody
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


class PlateAttachment(FixedBody):
    """A rigid body moving with a plate point: efforts ``(v, omega_x, omega_y)``.

    Heave and the rotation rates about x and y (small motions of a body
    attached to a plate in z = 0; its in-plane motion and spin are those of
    the plate point, zero).  ``M3`` is its 3 x 3 mass matrix at the
    attachment point (symmetric positive definite; a centre of mass off the
    point gives off-diagonal static moments).  Port ``"P"``: ``Y = (0, 0, v)``,
    ``W = (omega_x, omega_y, 0)``, as a plate's patch port.
    """

    dim = 3

    def __init__(self, name, M3, position=(0.0, 0.0)):
        super().__init__(name)
        M3 = np.asarray(M3, float)
        bad = M3.shape != (3, 3) or not np.all(np.isfinite(M3)) or not np.allclose(M3, M3.T)
        if bad or np.linalg.eigvalsh(M3).min() <= 0:
            raise ValueError(f"body '{name}': mass matrix must be a symmetric positive definite 3x3 "
                             f"array, got {M3.tolist()!r}")
        self.M = sp.csr_matrix(M3)
        self.J0 = sp.csr_matrix((3, 3))
        self.e_labels = ["v", "omega_x", "omega_y"]
        Y = np.zeros((3, 3))
        Y[2, 0] = 1.0
        W = np.zeros((3, 3))
        W[0, 1] = W[1, 2] = 1.0
        self.add_port("P", Y, W, np.r_[np.asarray(position, float), 0.0])

    @property
    def translation_dofs(self):
        return np.arange(0)


def port_rows(port):
    """The three rows ``(v, omega_x, omega_y)`` of a plate or attachment port."""
    return np.vstack([port.Y[2], port.W[0], port.W[1]])


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
    """The coupled model ``M e' = J e + G^T lam + B_u F``, ``0 = -G e``.

    ``e = (plate efforts, casing 1, casing 2, mirror (3 each), v_m1, v_m2, f_s1, f_s2)``.

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
        self.bodies = []
        if attachments:
            for name, pos in ACTUATORS.items():
                self.bodies.append(PlateAttachment(f"casing_{name}", casing_matrix(), pos))
            self.bodies.append(PlateAttachment("mirror", mirror_matrix(), MIRROR_POS))
        na = len(ACTUATORS) if attachments else 0
        self.np = p.ne
        self.body_index = {b.name: p.ne + 3 * i for i, b in enumerate(self.bodies)}
        nb = 3 * len(self.bodies)
        self.i_vm = p.ne + nb + np.arange(na)
        self.i_fs = p.ne + nb + na + np.arange(na)
        ne = p.ne + nb + 2 * na
        self.M = sp.block_diag([p.M] + [b.M for b in self.bodies]
                               + ([sp.diags(np.r_[np.full(na, MOVING_MASS), np.full(na, 1.0 / SPRING)])]
                                  if na else []), format="csr")
        rows, cols, vals = [], [], []
        Bu = np.zeros((ne, na))
        for i, name in enumerate(list(ACTUATORS)[:na]):
            ivm, ifs, ic = self.i_vm[i], self.i_fs[i], self.body_index[f"casing_{name}"]
            # m v_m' = -f_s + F,  f_s' / k = v_m - v_casing,  casing heave: +f_s - F
            rows += [ivm, ifs, ic, ifs]
            cols += [ifs, ivm, ifs, ic]
            vals += [-1.0, 1.0, 1.0, -1.0]
            Bu[ivm, i], Bu[ic, i] = 1.0, -1.0
        P0 = sp.coo_matrix(p.J0)
        self.J = sp.csr_matrix((np.r_[P0.data, vals], (np.r_[P0.row, rows], np.r_[P0.col, cols])), shape=(ne, ne))
        self.Bu = Bu
        rows = []
        self.ports = {}
        for b in self.bodies:
            port = p.add_patch_port(b.name, b.ports["P"].position[:2], patch_radius)
            self.ports[b.name] = port
            G = np.zeros((3, ne))
            G[:, :p.ne] = port_rows(port)
            G[:, self.body_index[b.name]:self.body_index[b.name] + 3] -= port_rows(b.ports["P"])
            rows.append(G)
        self.G = sp.csr_matrix(np.vstack(rows)) if rows else sp.csr_matrix((0, ne))
        self.vel = np.r_[p.velocity_dofs, p.ne + np.arange(nb), self.i_vm]
        self.stress = np.r_[p.stress_dofs, self.i_fs]
        self.labels = ["plate"] * p.ne + [f"{b.name}.{c}" for b in self.bodies for c in b.e_labels] \
            + [f"v_m_{a}" for a in list(ACTUATORS)[:na]] + [f"f_s_{a}" for a in list(ACTUATORS)[:na]]

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
        from ..fem.plate import condensed_modes

        Mv, C, B, Gv = self.blocks()
        omega, V = condensed_modes(Mv, C, B, k, 0.0, Gv)
        return omega / (2 * np.pi), V

    def output_rows(self):
        """Rows over ``self.vel`` of the mirror's roll and pitch (rates, or angles in the frequency domain)."""
        pos = {int(i): j for j, i in enumerate(self.vel)}
        im = self.body_index["mirror"]
        C = np.zeros((2, len(self.vel)))
        C[0, pos[im + 1]] = C[1, pos[im + 2]] = 1.0
        return C

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

    def problem(self, force):
        """The descriptor system under the actuator forces ``force(t) -> (n_inputs,)`` (DAEProblem)."""
        from ..problem import DAEProblem

        ne, nl = self.ne, self.nl
        E = sp.block_diag([self.M, sp.csr_matrix((nl, nl))], format="csr")
        A = sp.bmat([[self.J, self.G.T], [-self.G, None]], format="csr")
        Bu = np.r_[self.Bu, np.zeros((nl, self.Bu.shape[1]))]
        return DAEProblem(E, lambda t, y: A @ y + Bu @ force(t), jac=lambda t, y: A, n_alg=nl,
                          power=lambda t, y: float(force(t) @ (self.Bu.T @ y[:ne])))


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
    """Midpoint rule from rest: ``(t, e, work)``."""
    from ..solvers import solve

    prob = model.problem(force)
    tstops = [force.duration] if getattr(force, "duration", t_end) < t_end else None
    res = solve(prob, (0.0, t_end), np.zeros(prob.n), method="midpoint", dt=dt, tstops=tstops)
    return res.t, res.y[:, :model.ne], res.work


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
class ActuatedPlateResult:
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
    summary: dict = field(default_factory=dict)
    files: list = field(default_factory=list)


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
    im = model.body_index["mirror"]
    rates = e[:, [im + 1, im + 2]]
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
            ax.plot(100 * port.position[0], 100 * port.position[1], "ks" if "casing" in name else "k^", ms=5)
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
    main()

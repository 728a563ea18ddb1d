"""The tippe top (Leine & Glocker, Eur. J. Mech. A 22 (2003) 193--216; the benchmark of
Capobianco, Harsch, Eugster & Leine, IJNME 122 (2021) 6497--6526, Sect. 10.6, and of the
collection ``nonsmooth_mech_benchmarks``, ``benchmarks/tippetop``).

A top made of a spherical body (radius ``r1``, centre ``a1`` above the
centre of mass on the symmetry axis) and a stem ending in a small sphere
(radius ``r2``, centre ``a2`` above the centre of mass), on a horizontal
table with Coulomb--Contensou friction (``mu = 0.3``; circular contact
areas of radius ``R = 5e-4`` m, Contensou radius ``r_c = 3 pi / 16 R``) at
either contact and completely inelastic impacts.  Data:
``m = 6e-3`` kg, ``I1 = I2 = 8e-7``, ``I3 = 7e-7`` kg m^2, ``a1 = 3e-3``,
``a2 = 1.6e-2``, ``r1 = 1.5e-2``, ``r2 = 5e-3`` m; started on the big
sphere (centre of mass at ``1.2015e-2`` m, about ``r1 - a1 cos 0.1``) with the
axis tilted by 0.1 rad and spinning at 180 rad/s about it, to 8 s.

Where each number comes from (``scenario``: the collection's
``tippetop_scenario1.py``, which takes them from Leine & Glocker 2003;
``system``: its ``tippetop_system.py``, class ``Tippetop_quaternion``):

==============  ==========================  ==================================================
parameter       value                       source
==============  ==========================  ==================================================
m               6e-3 kg                     scenario
I1 = I2, I3     8e-7, 7e-7 kg m^2           scenario
g               9.81 m/s^2                  scenario
a1, a2          3e-3, 1.6e-2 m              scenario; sphere centres at ``(0, 0, a_i)`` in the
                                            body frame: system, ``K_r_SC1``, ``K_r_SC2``
r1, r2          1.5e-2, 5e-3 m              scenario
mu              0.3 (both contacts)         scenario
e_N, e_F        0, 0                        scenario
R               5e-4 m (both contacts)      scenario
r_c             3 pi / 16 R = 2.945e-4 m    system, ``Ri_bar = 3 * pi / 16 * R`` scales the
                                            drilling velocity and moment (``Ai``)
z0              1.2015e-2 m                 scenario
tilt            0.1 rad about e_x           scenario (``theta0``; quaternion from axis-angle)
spin            180 rad/s about e_3 (body)  scenario (``psi_dot0``, body angular velocity)
t_end           8 s                         scenario (``t1``)
dt (Moreau)     1e-4 s                      scenario
==============  ==========================  ==================================================

Conventions: ``a1``, ``a2`` are the distances from the centre of mass to
the centres of the two spheres, both towards the stem (``+e_3``), so the
centre of mass lies below the centre of the big sphere when the top stands
on it (``a1 / r1 = 0.2``; ``1 - a1/r1 < I3/I1 = 0.875 < 1 + a1/r1``: the
upright spinning state is unstable under sliding friction and the top can
turn over).  On the stem the centre of mass lies ``a2`` above the centre of
the small sphere: standing on the stem the top is a sleeping top, stable
while ``I3^2 Omega_3^2 > 4 I1 m g a2`` (:func:`critical_spin`, 78 rad/s).
The seed's ``z0 = 1.2015e-2`` m leaves the big sphere 1.25e-8 m above the
table (``r1 - a1 cos 0.1 = 1.20149875e-2``): the first step is a tiny
inelastic impact.

What the model does (Moreau, ``h = 1e-4``, ``r_c = 3 pi / 16 R``): the
Coulomb--Contensou coupling keeps the contact point sliding (the drilling
velocity ``r_c Omega_n`` takes part of the friction budget, so the
tangential friction acts like a viscous one for slow sliding); the sliding
friction raises the centre of mass, the tilt passes pi/2 at 0.98 s and the
stem touches at 1.37 s.  On the stem the drilling moment ``mu N r_c``
slows the spin by about ``mu m g r_c / I3 = 7.4 rad/s^2`` (101 -> 90 rad/s from
1.6 to 3.0 s); at the stability limit the top falls back onto the big sphere
(4.53 s, spin 80 rad/s), spins down resting on both spheres (tilt 2.46 rad)
until 5.47 s and then rolls on the big sphere (8 s: tilt 1.68 rad, spin 12 rad/s,
energy 12.05 -> 1.04 mJ: 8.03 mJ dissipated at the sphere, 2.97 mJ at the stem;
energy account closed to 1.2e-15 J).  With Coulomb friction alone
(``--contensou-radius 0``) the contact point soon rolls, almost nothing is
dissipated (12.05 -> 11.96 mJ in 8 s) and the top does not turn over; then
Jellett's quantity ``L . (a1 e_3 - r1 e_z)`` (:func:`axis_quantities`) is
constant (to 1.5e-8 relative), which the tests use as an independent check
of the contact kinematics.

Reported: the tilt angle ``theta = arccos(e_3 . e_z)``, the spin, the
inversion time (the stem touches the table), the end of the first stem
phase and the spin then, the energy, the dissipation per contact and the
energy account.

    python -m phmech.validation.tippe_top --outdir out/tippe_top [--dt 1e-4]
"""
import os
import sys

import numpy as np

from .. import System
from ..contact import NonsmoothProblem, PointPlane, simulate
from ..contact.bodies import Top
from ..math.rotations import quat_from_axis_angle, rot3
from ._common import (CaseResult, figure_style, parser, positive_float, prepare_outdir, run_main, savefig,
                      value_lines, write_summary)

#: radius ``R`` of the circular contact areas [m] (the collection's ``R``)
CONTACT_RADIUS = 5e-4
DATA = dict(m=6e-3, I1=8e-7, I3=7e-7, a1=3e-3, a2=1.6e-2, r1=1.5e-2, r2=5e-3, mu=0.3,
            r_c=3.0 * np.pi / 16.0 * CONTACT_RADIUS, z0=1.2015e-2, tilt=0.1, spin=180.0, g=9.81)


def model(**changes):
    """``(problem, y0)`` of the tippe top (``changes`` override entries of :data:`DATA`)."""
    d = {**DATA, **changes}
    p0 = quat_from_axis_angle((1.0, 0.0, 0.0), d["tilt"])
    top = Top("top", d["m"], (d["I1"], d["I1"], d["I3"]), position=(0.0, 0.0, d["z0"]), orientation=p0,
              ports={"sphere": (0.0, 0.0, d["a1"]), "stem": (0.0, 0.0, d["a2"])})
    s = System([top])
    s.add_gravity((0.0, 0.0, -d["g"]))
    law = dict(mu=d["mu"], contensou_radius=d["r_c"], e_N=0.0, e_F=0.0)
    contacts = [PointPlane(top.port("sphere"), (0.0, 0.0, 1.0), radius=d["r1"], name="sphere", **law),
                PointPlane(top.port("stem"), (0.0, 0.0, 1.0), radius=d["r2"], name="stem", **law)]
    p = NonsmoothProblem(s, contacts)
    y0 = np.zeros(p.n)
    y0[p.sq] = top.q0
    y0[p.se] = [0.0, 0.0, 0.0, 0.0, 0.0, d["spin"]]
    return p, y0


def tilt(res):
    """Angle between the symmetry axis and the vertical [rad] at the output times."""
    q = res.y[:, res.dae.sq]
    return np.array([np.arccos(np.clip(rot3(qq[3:7])[2, 2], -1, 1)) for qq in q])


def axis_quantities(res, **changes):
    """``(spin, J_sphere, J_stem)`` at the output times: the spin ``Omega_3`` about the symmetry axis
    and Jellett's quantities ``J_i = L·(a_i e_3 - r_i e_z)`` (``L`` the angular momentum about the
    centre of mass, ``a_i e_3 - r_i e_z`` the vector from the centre of mass to the contact point of
    sphere ``i``).  While only sphere ``i`` touches and the friction is Coulomb's (Contensou radius
    0), ``J_i`` is constant: the contact force passes through the contact point and
    ``L·(e_3)' = 0`` for an axisymmetric body (Leine & Glocker 2003, Sect. 6; Jellett 1872)."""
    d = {**DATA, **changes}
    q, e = res.y[:, res.dae.sq], res.y[:, res.dae.se]
    Th = np.diag([d["I1"], d["I1"], d["I3"]])
    spin, J1, J2 = [], [], []
    ez = np.array([0.0, 0.0, 1.0])
    for qq, ee in zip(q, e):
        R = rot3(qq[3:7])
        L = R @ (Th @ ee[3:6])
        e3 = R[:, 2]
        spin.append(ee[5])
        J1.append(L @ (d["a1"] * e3 - d["r1"] * ez))
        J2.append(L @ (d["a2"] * e3 - d["r2"] * ez))
    return np.array(spin), np.array(J1), np.array(J2)


def run(t_end=8.0, dt=1e-4, solver="moreau", dt_out=1e-3, model_changes=None, **options):
    """The tippe top; the result has ``tilt``, ``spin``, ``jellett`` (sphere, stem), ``t_invert``
    (first stem contact, or None), ``t_half`` (tilt passes pi / 2), ``t_fall`` and ``spin_fall``
    (the big sphere touches again after the top has spun on its stem) and ``critical_spin``.  ``model_changes`` override
    entries of :data:`DATA`."""
    p, y0 = model(**(model_changes or {}))
    res = simulate(p, (0.0, t_end), y0, method=solver, dt=dt, dt_out=dt_out, **options)
    res.tilt = tilt(res)
    spin, J1, J2 = axis_quantities(res, **(model_changes or {}))
    res.spin, res.jellett = spin, np.column_stack([J1, J2])
    PN = res.steps["P_N"]
    stem = np.flatnonzero(PN[:, 1] > 0)
    res.t_invert = float(res.steps["t"][stem[0]]) if len(stem) else None
    up = np.flatnonzero(res.tilt > np.pi / 2)
    res.t_half = float(res.t[up[0]]) if len(up) else None
    #: the top falls back: the first contact of the big sphere after the start of the first stem
    #: phase (stem percussions without a break longer than 10 ms, lasting at least 0.1 s), and the
    #: spin then; None without such a phase or fall
    res.t_fall = res.spin_fall = None
    if len(stem):
        ts = res.steps["t"][stem]
        breaks = np.flatnonzero(np.diff(ts) > max(0.01, 1.5 * (dt_out or 0.0)))    # rows: output intervals
        starts, ends = np.r_[0, breaks + 1], np.r_[breaks, len(ts) - 1]
        long = [a for a, b in zip(starts, ends) if ts[b] - ts[a] >= 0.1]
        if long:
            back = np.flatnonzero((PN[:, 0] > 0) & (res.steps["t"] > ts[long[0]]))
            if len(back):
                res.t_fall = float(res.steps["t"][back[0]])
                res.spin_fall = float(np.interp(res.t_fall, res.t, res.spin))
    res.critical_spin = critical_spin(**(model_changes or {}))
    return CaseResult(results={"run": res})


def critical_spin(**changes):
    """Spin below which the top standing on its stem is no longer gyroscopically stable:
    ``I3^2 Omega^2 > 4 I1 m g a2`` (the sleeping top on a frictionless table, the centre of mass at
    ``a2`` above the centre of curvature of the stem's sphere; Magnus, Kreisel (1971), Ch. 5)."""
    d = {**DATA, **changes}
    return 2.0 * np.sqrt(d["I1"] * d["m"] * d["g"] * d["a2"]) / d["I3"]


def main(argv=None):
    p = parser("The tippe top of Leine & Glocker (2003): inversion, tilt angle and energy")
    p.add_argument("--tfinal", type=positive_float, default=8.0, help="final time [s]")
    p.add_argument("--dt", type=positive_float, default=1e-4, help="step size [s]")
    p.add_argument("--solver", default="moreau", choices=["moreau", "moreau_shifted", "nsgenalpha"])
    p.add_argument("--contensou-radius", type=float, default=DATA["r_c"],
                   help="Contensou radius r_c [m] (default 3 pi / 16 R, R = 5e-4 m the radius of the contact "
                        "areas; 0: Coulomb friction, Jellett's quantity conserved)")
    args = p.parse_args(argv)
    out = prepare_outdir(args.outdir, p)
    changes = {"r_c": args.contensou_radius}
    res = run(args.tfinal, args.dt, args.solver, progress=sys.stderr.isatty(), model_changes=changes)
    H = res.hamiltonian()
    res.to_csv(os.path.join(out, "tippe_top.csv"),
               {"tilt": res.tilt, "z": res.y[:, res.dae.sq][:, 2], "energy": H,
                "dissipated_sphere": res.dissipated[:, 0], "dissipated_stem": res.dissipated[:, 1],
                "energy_balance": res.energy_balance(), "spin": res.spin,
                "jellett_sphere": res.jellett[:, 0], "jellett_stem": res.jellett[:, 1]})
    summary = {"solver": args.solver, "dt": args.dt, "t_end": args.tfinal, "contensou_radius": args.contensou_radius,
               "t_invert": res.t_invert, "final_spin": float(res.spin[-1]),
               "t_fall_back": res.t_fall, "spin_fall_back": res.spin_fall,
               "critical_spin_on_stem": res.critical_spin,
               "t_tilt_half_pi": res.t_half, "final_tilt": float(res.tilt[-1]),
               "energy_initial": float(H[0]), "energy_final": float(H[-1]),
               "dissipated": res.dissipated[-1].tolist(),
               "energy_balance_max": float(np.max(np.abs(res.energy_balance()))),
               "stats": {k: v for k, v in res.stats.items()}}
    write_summary(out, "tippe_top", summary)
    print(f"tippe top ({args.solver}, dt = {args.dt:g} s, t_end = {args.tfinal:g} s):")
    print("\n".join(value_lines([
        ("inversion (first stem contact)", summary["t_invert"], "s"),
        ("tilt passes pi/2", summary["t_tilt_half_pi"], "s"),
        ("falls back onto the sphere", summary["t_fall_back"], "s"),
        ("spin when falling back", summary["spin_fall_back"], "rad/s"),
        ("stability limit of the spin on the stem", summary["critical_spin_on_stem"], "rad/s"),
        ("final tilt", summary["final_tilt"], "rad"),
        ("energy, initial", summary["energy_initial"], "J"),
        ("energy, final", summary["energy_final"], "J"),
        ("energy balance error, max", summary["energy_balance_max"], "J")])))
    if not args.no_plot:
        plt = figure_style()
        fig, ax = plt.subplots(3, 1, figsize=(6, 8), sharex=True)
        ax[0].plot(res.t, res.tilt)
        ax[0].axhline(np.pi, color="k", lw=0.8, ls="--")
        ax[0].set_ylabel("tilt angle [rad]")
        ax[1].plot(res.t, np.abs(res.spin), label="|Omega_3|")
        ax[1].axhline(res.critical_spin, color="k", lw=0.8, ls="--", label="stability limit on the stem")
        ax[1].set_ylabel("spin [rad/s]")
        ax[1].legend(fontsize=8)
        ax[2].plot(res.t, H * 1e3, label="energy H + V")
        ax[2].plot(res.t, (H[0] - res.dissipated.sum(axis=1)) * 1e3, "--", label="H(0) - dissipated")
        ax[2].set_ylabel("energy [mJ]")
        ax[2].set_xlabel("t [s]")
        ax[2].legend(fontsize=8)
        fig.suptitle(f"tippe top (Leine & Glocker 2003), rigid body with sphere and stem contact; "
                     f"{args.solver}, dt = {args.dt:g} s", fontsize="small")
        savefig(fig, out, "tippe_top")
        plt.close(fig)
    return summary


if __name__ == "__main__":
    sys.exit(run_main(main))

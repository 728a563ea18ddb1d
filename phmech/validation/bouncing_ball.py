"""The rotating bouncing ball (Capobianco, Harsch, Eugster & Leine, IJNME 122 (2021) 6497--6526,
Sect. 10.1; the collection ``nonsmooth_mech_benchmarks``, ``benchmarks/bouncing_ball``).

A ball (``m = 1`` kg, radius ``r = 0.1`` m, ``Theta = 2/5 m r^2``) under gravity
``g = 9.81`` falls on the ground ``y = 0``; its centre starts at height 1 m.
Its coordinates are ``(x, y, phi)``, the slip is ``gamma = v_x + r omega``.

====  =====  =====  ==========================  ========
case  e_N    mu     initial state               t_end
====  =====  =====  ==========================  ========
1     0.5    0.2    at rest                     1.5 s
2     0      0.2    spin 50 rad/s               1.1 s
3     0      0.2    spin 10 rad/s               1.1 s
4     0.5    0.2    x = -0.5, v_x = 1, spin 50  1.5 s
====  =====  =====  ==========================  ========

Where each number comes from (``system``: the collection's
``bouncing_ball_system.py``, class ``Bouncing_ball``; ``scenario``: its
``bouncing_ball_scenario1.py``, which names cases 1--3 as the paper's
Figure 1 and Figure 2 left/right and adds case 4 "for benchmarking purposes"):

======================  ====================  ===========================
parameter               value                 source
======================  ====================  ===========================
m                       1 kg                  scenario (``mass = 1``)
r                       0.1 m                 scenario (``radius = 0.1``)
Theta                   2/5 m r^2 (a ball)    system, ``__init__``
g                       9.81 m/s^2            system, ``__init__``
e_N, e_F, mu            table above, e_F = 0  scenario, cases 1--4
q0 = (x, y, phi)        table above           scenario, cases 1--4
u0 = (v_x, v_y, omega)  table above           scenario, cases 1--4
t_end                   table above           scenario, ``t1``
dt (default)            2e-3 s                scenario, ``dt``
======================  ====================  ===========================

Exact solution (derived here; :class:`Exact`).  In flight the centre moves
on a parabola and the spin is constant.  At an impact with pre-impact
normal velocity ``v_y^- < 0`` and slip ``gamma^-`` Newton's law gives the
normal percussion ``P_N = (1 + e_N) m |v_y^-|``; a tangential percussion
``P_F`` at the contact point changes ``v_x`` by ``P_F / m`` and ``omega`` by
``r P_F / Theta``, so the slip by ``P_F / m_t`` with
``m_t = (1/m + r^2/Theta)^{-1} = 2 m / 7``.  The percussion that stops the
slip is ``m_t |gamma^-|`` (``e_F = 0``); if it is at most ``mu P_N`` the ball
sticks (``gamma^+ = 0``), else it slides through the impact with
``P_F = -mu P_N sign(gamma^-)``.  For ``e_N < 1`` the flight times
``2 e_N |v_y^+| / g`` form a geometric series: the impacts accumulate at
``t_inf = t_k + 2 e_N |v_y,k| / (g (1 - e_N))`` (Zeno point), after which
the ball stays on the ground.  In persistent sliding contact
``v_x' = -mu g s``, ``omega' = -mu m g r s / Theta = -5 mu g s / (2 r)``
(``s = sign gamma``): the slip falls at ``mu g (1 + m r^2/Theta) = 7/2 mu g``;
the ball sticks when it reaches zero and rolls on at constant speed.

The rolling speed follows without the impact law: the percussions and the
contact forces act at the contact point, gravity is balanced there, so
``L = Theta omega - m r v_x`` (angular momentum about the contact point,
flight included: ``v_x`` and ``omega`` are then constant) keeps its initial
value; rolling (``v_x = -r omega``) gives
``omega = (Theta omega_0 - m r v_x0) / (Theta + m r^2) = (2 omega_0 - 5 v_x0 / r) / 7``:
case 2 ``omega = 100/7``, ``v_x = -10/7`` m/s; case 3 ``20/7``, ``-2/7``;
case 4 ``50/7``, ``-5/7``.
"""
import os
import sys

import numpy as np

from .. import System
from ..contact import NonsmoothProblem, PointPlane, simulate
from ..contact.bodies import Disc
from ._common import CaseResult, figure_style, parser, prepare_outdir, run_main, savefig, write_summary

M_BALL, R_BALL, G = 1.0, 0.1, 9.81
I_BALL = 0.4 * M_BALL * R_BALL**2          # a ball: Theta = 2/5 m r^2
#: case -> (e_N, mu, (x0, y0), (vx0, vy0), omega0, t_end)
CASES = {1: (0.5, 0.2, (0.0, 1.0), (0.0, 0.0), 0.0, 1.5),
         2: (0.0, 0.2, (0.0, 1.0), (0.0, 0.0), 50.0, 1.1),
         3: (0.0, 0.2, (0.0, 1.0), (0.0, 0.0), 10.0, 1.1),
         4: (0.5, 0.2, (-0.5, 1.0), (1.0, 0.0), 50.0, 1.5)}
SOLVERS = ("moreau", "moreau_shifted", "nsgenalpha")


def model(case):
    """``(problem, y0, t_end)`` of a case."""
    e_N, mu, x0, v0, om, t_end = CASES[case]
    # the ball moves in the plane: a planar rigid body with the ball's moment of inertia
    ball = Disc("ball", M_BALL, I_BALL, position=x0)
    system = System([ball])
    system.add_gravity((0.0, -G))
    ground = PointPlane(ball.port("C"), (0.0, 1.0), radius=R_BALL, e_N=e_N, mu=mu, name="ground")
    problem = NonsmoothProblem(system, [ground])
    y0 = np.zeros(problem.n)
    y0[problem.sq] = [x0[0], x0[1], 0.0]
    y0[problem.se] = [v0[0], v0[1], om]
    return problem, y0, t_end


# -- the exact solution --------------------------------------------------------------
class Exact:
    """Piecewise analytic solution: ``phases`` of ``(t_start, kind, state)`` with
    ``state = (x, y, theta, vx, vy, omega)`` and ``kind`` in ``flight, slide, roll``;
    ``impacts`` (times), ``post`` (post-impact states), ``t_zeno``, ``t_stick``."""

    def __init__(self, case, max_impacts=400):
        e_N, mu, x0, v0, om, self.t_end = CASES[case]
        self.mu = mu
        m, r, Ic = M_BALL, R_BALL, I_BALL
        mt = 1.0 / (1.0 / m + r * r / Ic)
        s = np.array([x0[0], x0[1], 0.0, v0[0], v0[1], om])
        t = 0.0
        self.phases, self.impacts, self.post = [], [], []
        self.t_zeno = self.t_stick = None
        for _ in range(max_impacts):
            self.phases.append((t, "flight", s.copy()))
            # time to y = r: y + vy tau - g tau^2/2 = r
            a, b, c = -0.5 * G, s[4], s[1] - R_BALL
            tau = (-b - np.sqrt(b * b - 4 * a * c)) / (2 * a)
            s = self._advance(s, "flight", tau)
            t += tau
            vn = -s[4]
            PN = (1 + e_N) * m * vn
            gam = s[3] + s[5] * r
            sticks = mt * abs(gam) <= mu * PN
            if sticks:
                PF = -mt * gam
            else:
                PF = -mu * PN * np.sign(gam)
            s[4] = e_N * vn
            s[3] += PF / m
            s[5] += r * PF / Ic
            s[1] = R_BALL
            self.impacts.append(t)
            self.post.append(s.copy())
            if sticks and abs(gam) > 0 and self.t_stick is None:      # a slip stopped by the impact
                self.t_stick = t
            if e_N == 0 or s[4] < 1e-12:
                break
        if e_N > 0:
            # the flights left are shorter than 1e-13 s: their sum is the geometric tail
            self.t_zeno = t + 2 * s[4] / (G * (1 - e_N))
            s[0] += s[3] * (self.t_zeno - t)
            s[2] += s[5] * (self.t_zeno - t)
            t = self.t_zeno
        s[1], s[4] = R_BALL, 0.0
        gam = s[3] + s[5] * r
        if abs(gam) > 1e-14 and mu > 0:
            self.phases.append((t, "slide", s.copy()))
            tau = abs(gam) / (mu * G * (1.0 + M_BALL * R_BALL**2 / I_BALL))
            s = self._advance(s, "slide", tau)
            t += tau
            self.t_stick = t
        t_contact = t
        self.phases.append((t_contact, "roll", s.copy()))

    def _advance(self, s, kind, tau):
        s = s.copy()
        if kind == "flight":
            s[0] += s[3] * tau
            s[1] += s[4] * tau - 0.5 * G * tau**2
            s[2] += s[5] * tau
            s[4] -= G * tau
        elif kind == "slide":
            sg = np.sign(s[3] + s[5] * R_BALL)
            a, al = -self.mu * G * sg, -self.mu * M_BALL * G * R_BALL * sg / I_BALL
            s[0] += s[3] * tau + 0.5 * a * tau**2
            s[2] += s[5] * tau + 0.5 * al * tau**2
            s[3] += a * tau
            s[5] += al * tau
        else:
            s[0] += s[3] * tau
            s[2] += s[5] * tau
        return s

    def __call__(self, t):
        """States ``(x, y, theta, vx, vy, omega)`` at the times ``t`` (rows)."""
        t = np.atleast_1d(np.asarray(t, float))
        starts = np.array([p[0] for p in self.phases])
        out = np.empty((len(t), 6))
        for k, tk in enumerate(t):
            i = max(int(np.searchsorted(starts, tk, side="right")) - 1, 0)
            t0, kind, s = self.phases[i]
            out[k] = self._advance(s, kind, tk - t0)
        return out


# -- runs and their comparison ---------------------------------------------------------
def events_of(res):
    """Numerical events from the per-step percussions: impact times (first contact step after
    a flight), the time after which the contact stays closed, and the stick time (slip < 1e-9)."""
    t, PN = res.steps["t"], res.steps["P_N"][:, 0]
    on = PN > 0
    starts = [t[k] for k in range(1, len(t)) if on[k] and not on[k - 1]]
    t_rest = None
    if on[-1]:
        k = len(on) - 1
        while k > 0 and on[k - 1]:
            k -= 1
        t_rest = t[k]
    slip = res.y[:, res.dae.se][:, 0] + R_BALL * res.y[:, res.dae.se][:, 2]
    moving = np.abs(slip) > 1e-9
    t_stick = None
    if moving.any() and not moving[-1]:
        t_stick = res.t[int(np.flatnonzero(moving)[-1]) + 1]
    return starts, t_rest, t_stick


def run(case=1, dt=2e-3, solver="moreau", t_end=None, **options):
    """Simulate one case; returns the :class:`~phmech.result.Result` with ``exact`` (an
    :class:`Exact`), ``errors`` (dict) and the contact history of :func:`phmech.contact.simulate`."""
    problem, y0, t_case = model(case)
    t_end = t_case if t_end is None else t_end
    res = simulate(problem, (0.0, t_end), y0, method=solver, dt=dt, **options)
    ex = Exact(case)
    res.exact = ex
    ye = ex(res.t)
    q, u = res.y[:, problem.sq], res.y[:, problem.se]
    imp, t_rest, t_stick = events_of(res)
    n = min(len(imp), len(ex.impacts))
    k_first = np.searchsorted(res.t, ex.impacts[0] + 2 * dt) if ex.impacts else 0
    H = res.hamiltonian()
    res.errors = {
        "impact_times": np.array(imp[:n]) - np.array(ex.impacts[:n]),
        "n_impacts": len(imp),
        "t_rest": None if t_rest is None or ex.t_zeno is None else t_rest - ex.t_zeno,
        "t_stick": None if t_stick is None or ex.t_stick is None else t_stick - ex.t_stick,
        "position": float(np.max(np.abs(q[:, :2] - ye[:, :2]))),
        "angle": float(np.max(np.abs(q[:, 2] - ye[:, 2]))),
        "velocity_final": float(np.max(np.abs(u[-1] - ye[-1, 3:]))),
        "velocity_after_first_impact": float(np.max(np.abs(u[k_first:, [0, 2]] - ye[k_first:, [3, 5]])))
        if case in (2, 3) else None,
        "penetration": float(max(0.0, -np.min(q[:, 1] - R_BALL))),
        "energy_balance": float(np.max(np.abs(res.energy_balance()))),
        "dissipated": float(res.dissipated[-1, 0]),
        "energy_loss": float(H[0] - H[-1]),
    }
    return CaseResult(results={"run": res})


def study(cases=(1, 2, 3, 4), solvers=SOLVERS, dts=(2e-3, 1e-3, 5e-4)):
    """Errors per case, solver and step: ``{case: {solver: [(dt, errors, stats)]}}``."""
    out = {}
    for c in cases:
        out[c] = {}
        for s in solvers:
            out[c][s] = []
            for h in dts:
                res = run(c, h, s)
                out[c][s].append((h, res.errors, {k: res.stats[k] for k in
                                                  ("nsteps", "newton_iterations", "max_newton_iterations",
                                                   "gs_fallbacks", "contact_solves")}))
    return out


def _fmt(v):
    if v is None:
        return "-"
    if isinstance(v, np.ndarray):
        return f"{np.max(np.abs(v)):.2e}" if v.size else "-"
    return f"{v:.2e}" if isinstance(v, float) else str(v)


def table(st):
    """Text table of a :func:`study`: event-time errors (first impact, largest of the first three,
    rest after the Zeno point, stick), largest position error, final velocity error,
    penetration, energy account and the largest number of semismooth-Newton iterations."""
    lines = [f"{'case':>4} {'solver':>15} {'dt':>8} {'impacts':>7} {'dt_imp1':>9} {'|dt_1-3|':>9} {'t_rest':>9} "
             f"{'t_stick':>9} {'pos':>9} {'vel_end':>9} {'pen':>9} {'energy':>9} {'newton':>6}"]
    for c, per in st.items():
        for s, rows in per.items():
            for h, e, stt in rows:
                it = e["impact_times"]
                lines.append(f"{c:>4} {s:>15} {h:>8.1e} {e['n_impacts']:>7} {_fmt(it[:1]):>9} {_fmt(it[:3]):>9} "
                             f"{_fmt(e['t_rest']):>9} {_fmt(e['t_stick']):>9} {e['position']:>9.2e} "
                             f"{e['velocity_final']:>9.2e} {e['penetration']:>9.2e} {e['energy_balance']:>9.2e} "
                             f"{stt['max_newton_iterations']:>6}")
            p = impact_order(rows)
            if p is not None:
                lines.append(f"{c:>4} {s:>15}   order of the first five impact times (fit over dt): {p:.2f}; "
                             f"largest error in steps: "
                             + ", ".join(f"{np.max(np.abs(e['impact_times'][:5])) / h:.2f}" for h, e, _ in rows))
    return "\n".join(lines)


def impact_order(rows):
    """Fitted order ``p`` of ``max_k<=5 |t_k - t_k^exact|`` against the step over the rows of a
    :func:`study` (time-stepping locates an impact at the end of the step that crosses the ground,
    and each impact starts the next flight from there: the error of the k-th impact is bounded
    by about ``k h``, first order); None with fewer than two rows with impacts."""
    pts = [(h, np.max(np.abs(e["impact_times"][:5]))) for h, e, _ in rows if len(e["impact_times"])]
    pts = [(h, v) for h, v in pts if v > 0]
    if len(pts) < 2:
        return None
    h, v = np.array(pts).T
    return float(np.polyfit(np.log(h), np.log(v), 1)[0])


def main(argv=None):
    p = parser("The rotating bouncing ball (four cases) against the exact solution")
    p.add_argument("--dt", type=float, default=2e-3, help="step size [s]")
    p.add_argument("--solvers", nargs="+", default=list(SOLVERS), choices=list(SOLVERS))
    p.add_argument("--study", action="store_true", help="step-size study (dt, dt/2, dt/4)")
    args = p.parse_args(argv)
    out = prepare_outdir(args.outdir, p)
    summary = {"dt": args.dt, "cases": {}}
    runs = {}
    for c in CASES:
        for s in args.solvers:
            res = run(c, args.dt, s)
            runs[c, s] = res
            q, u = res.y[:, res.dae.sq], res.y[:, res.dae.se]
            res.to_csv(os.path.join(out, f"case{c}_{s}.csv"),
                       {"x": q[:, 0], "y": q[:, 1], "theta": q[:, 2], "vx": u[:, 0], "vy": u[:, 1],
                        "omega": u[:, 2], "energy": res.hamiltonian(), "dissipated": res.dissipated[:, 0]})
            summary["cases"].setdefault(str(c), {})[s] = {
                k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in res.errors.items()}
            summary["cases"][str(c)][s]["exact"] = {"impacts": res.exact.impacts, "t_zeno": res.exact.t_zeno,
                                                    "t_stick": res.exact.t_stick}
            summary["cases"][str(c)][s]["stats"] = {k: v for k, v in res.stats.items() if k != "wall_time"}
    if args.study:
        st = study(solvers=args.solvers, dts=(args.dt, args.dt / 2, args.dt / 4))
        txt = table(st)
        print(txt)
        with open(os.path.join(out, "study.txt"), "w") as fh:
            fh.write(txt + "\n")
        summary["study"] = {str(c): {s: [{"dt": h, **{k: (v.tolist() if isinstance(v, np.ndarray) else v)
                                                    for k, v in e.items()}, **stt} for h, e, stt in rows]
                                     for s, rows in per.items()} for c, per in st.items()}
    write_summary(out, "bouncing_ball", summary)
    if not args.no_plot:
        plt = figure_style()
        for c in CASES:
            fig, ax = plt.subplots(3, 1, figsize=(6, 7), sharex=True)
            ex = runs[c, args.solvers[0]].exact
            tt = np.linspace(0, CASES[c][5], 3000)
            ye = ex(tt)
            for k, (lab, col) in enumerate((("y [m]", 1), ("x [m]", 0), ("omega [rad/s]", 5))):
                ax[k].plot(tt, ye[:, col], "k-", lw=2.5, alpha=0.4, label="exact")
                for s in args.solvers:
                    res = runs[c, s]
                    yy = res.y[:, res.dae.sq][:, col] if col < 3 else res.y[:, res.dae.se][:, col - 3]
                    ax[k].plot(res.t, yy, label=s)
                ax[k].set_ylabel(lab)
            ax[0].legend(fontsize=8)
            ax[-1].set_xlabel("t [s]")
            fig.suptitle(f"bouncing ball, case {c}, dt = {args.dt:g} s")
            savefig(fig, out, f"case{c}")
            plt.close(fig)
    print(f"written to {out}")
    return summary


if __name__ == "__main__":
    sys.exit(run_main(main))

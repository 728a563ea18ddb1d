"""Andrews' squeezing mechanism (IVP test set problem "andrews") with every solver.

Seven rigid bodies, six closure constraints, motor torque 0.033 N m and a
spring (4530 N/m), t_end = 0.03 s from the test set's consistent initial
values (Hairer & Wanner II, sec. VII.7).  The index-2 form (27 variables,
velocity constraints) is integrated with
phmech's radau, IDA and Radau5DAE; the ODE form (14 variables) with
phmech's radau and scipy's Radau, BDF and DOP853.  The end states are
compared with the test set's published reference solution (27
components, test set order; the reference is of the index-3 form, whose
exact solution is the same); a work-precision diagram and time histories
(angles, point F) are drawn.  The MBS benchmark A03 energy balance
``T + V - (T + V)(0) - mom (beta - beta0)`` is checked over 0.05 s.

    python -m phmech.validation.andrews --outdir out/andrews
"""
import os
import sys

import numpy as np

from . import _classic_run as cr
from . import _common
from ._classic_models import AndrewsSqueezer

#: absolute tolerance = ATOL_FACTOR * rtol
ATOL_FACTOR = 1.0
TOLERANCES = (1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9)
#: duration of the A03 energy-balance check [s]
T_ENERGY = 0.05


#: result type of :func:`run`
AndrewsResult = cr.ClassicResult


def run(t_end=AndrewsSqueezer.T_END, solvers=cr.ALL_SOLVERS, rtol=1e-6, tolerances=TOLERANCES,
        history_solver="scipy-DOP853", n_out=501, t_energy=T_ENERGY, outdir=None, plot=True, log=None):
    """Integrate Andrews' squeezer with each solver and compare with the reference.

    Parameters
    ----------
    t_end : float
        Final time [s]; the reference comparison needs the test set's 0.03 s.
    solvers : sequence of str
        Solver names of :data:`~phmech.validation._classic_run.ALL_SOLVERS`.
    rtol : float
        Relative tolerance of the end-state comparison runs (``atol =
        ATOL_FACTOR * rtol``).
    tolerances : sequence of float
        Relative tolerances of the work-precision sweep (empty: no sweep).
    history_solver : str
        Solver of the dense time-history run (at ``rtol / 100``).
    n_out : int
        Number of output times of the time histories.
    t_energy : float
        Duration of the A03 energy-balance run (``history_solver`` at
        ``rtol / 100``; 0 skips it).
    outdir : str, optional
        Where CSV files, figures and summary.json go.
    plot : bool
        Draw the figures.
    log : callable, optional
        Receives progress lines.

    Returns
    -------
    AndrewsResult
    """
    model = AndrewsSqueezer()
    out = cr.compare(model, "IVP test set 'andrews' (Hairer & Wanner II, VII.7), index-2 form",
                     solvers, rtol, ATOL_FACTOR, t_end, tolerances, history_solver, n_out, log)
    if t_energy > 0:
        er = cr.integrate(model, history_solver, rtol / 100, ATOL_FACTOR * rtol / 100, t_energy,
                          t_eval=np.linspace(0.0, t_energy, n_out))
        out.energy_t, out.energy_balance = er.t, model.energy_balance(er.t, er.y)
        work = model.par["mom"] * np.max(np.abs(er.y[:, 0] - er.y[0, 0]))
    if out.energy_balance is not None:
        out.summary["energy_balance_A03"] = {"t_end": t_energy, "max_abs_J": float(np.max(np.abs(out.energy_balance))),
                                             "motor_work_max_J": float(work),
                                             "relative": float(np.max(np.abs(out.energy_balance)) / work)}
    if outdir is not None:
        out.files += write(out, outdir, plot)
    return out


def write(out, outdir, plot=True):
    """CSV files (time histories, one per work-precision curve), figures, summary.json."""
    h = out.history
    model = AndrewsSqueezer()
    F = np.array([model.point_F(y[:7]) for y in h.y])
    files = [cr.write_columns(os.path.join(outdir, "andrews_history.csv"),
                              ["t"] + list(model.labels_p) + ["xF", "yF"],
                              np.column_stack([h.t, h.y[:, :7], F]), "andrews",
                              solver=out.summary.get("history_solver"))]
    if out.work_precision:
        files += cr.write_work_precision(out.work_precision, outdir, "andrews", plot,
                                         "Andrews' squeezer, t = 0.03 s")
    if out.energy_balance is not None:
        files.append(cr.write_columns(os.path.join(outdir, "andrews_energy_balance.csv"),
                                      ["t", "energy_balance_J"],
                                      np.column_stack([out.energy_t, out.energy_balance]), "andrews"))
    if plot:
        plt = _common.figure_style()
        fig, axs = plt.subplots(2, 1, figsize=(5.5, 6), sharex=True)
        for k, lab in enumerate(model.labels_p):
            axs[0].plot(h.t, np.mod(h.y[:, k] + np.pi, 2 * np.pi) - np.pi, color=f"C{k}", label=lab)
        axs[0].set_ylabel("angles (mod $2\\pi$) [rad]")
        axs[0].legend(fontsize=7, ncol=4)
        axs[1].plot(h.t, F[:, 0], color="C0", label="$x_F$")
        axs[1].plot(h.t, F[:, 1], color="C1", label="$y_F$")
        axs[1].set_ylabel("point F [m]")
        axs[1].set_xlabel("time [s]")
        axs[1].legend(fontsize=8)
        files += _common.savefig(fig, outdir, "andrews_history")
        plt.close(fig)
    files.append(_common.write_summary(outdir, "andrews", out.summary))
    return files


def _report(s):
    if "energy_balance_A03" in s:
        e = s["energy_balance_A03"]
        print(f"  A03 energy balance over {e['t_end']} s: max |T + V - E0 - W| = {e['max_abs_J']:.3e} J "
              f"({e['relative']:.1e} of the motor work)")


def main(argv=None):
    return cr.main(__doc__, AndrewsSqueezer.T_END, TOLERANCES, run, argv, _report)


if __name__ == "__main__":
    sys.exit(_common.run_main(main))

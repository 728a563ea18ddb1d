"""Helpers shared by the spatial validation cases (Bricard's mechanism, the spatial pendulum)."""
import os

import numpy as np


def position_drift(dae, result):
    """Largest joint position-level residual at every output time of ``result``.

    Parameters
    ----------
    dae : DescriptorDAE
        The assembled system of the run.
    result : Result
        The trajectory.

    Returns
    -------
    ndarray, shape (N,)
        ``max_j max|r_j(t, q)|`` over the joints that have a position-level
        residual (metres for point coincidence, dimensionless for axes).
    """
    out = np.zeros(len(result.t))
    for k, (t, y) in enumerate(zip(result.t, result.y)):
        res = dae.position_residuals(t, y[dae.sq])
        out[k] = max((float(np.max(np.abs(v))) for v in res.values()), default=0.0)
    return out


def energy_drift(energy):
    """``max |E(t) - E(0)|`` of an energy history."""
    energy = np.asarray(energy, float)
    return float(np.max(np.abs(energy - energy[0])))


def zero_crossings(t, s):
    """Times where the signed history ``s`` changes sign (after ``t[0]``).

    Each root is located on a cubic fitted through the four samples around
    the sign change (two at the ends of the history), so that a history
    sampled at spacing ``h`` gives the crossing to about ``h^4``.

    Parameters
    ----------
    t, s : ndarray, shape (N,)
        Sample times and values.

    Returns
    -------
    ndarray
        The crossing times in increasing order.
    """
    t, s = np.asarray(t, float), np.asarray(s, float)
    out = []
    for k in range(1, len(t) - 1):
        if s[k] == 0.0:
            if s[k - 1] * s[k + 1] < 0:
                out.append(t[k])
            continue
        if s[k] * s[k + 1] >= 0:
            continue
        lo = min(max(k - 1, 0), len(t) - 4)
        tt, ss = t[lo:lo + 4], s[lo:lo + 4]
        tc = 0.5 * (t[k] + t[k + 1])
        roots = np.roots(np.polyfit(tt - tc, ss, 3))
        real = [r.real + tc for r in roots if abs(r.imag) < 1e-12 and t[k] <= r.real + tc <= t[k + 1]]
        if real:
            out.append(min(real, key=lambda r: abs(r - tc)))
        else:   # no cubic root inside: secant
            out.append(t[k] - s[k] * (t[k + 1] - t[k]) / (s[k + 1] - s[k]))
    return np.array(out)


def observed_orders(steps, errors):
    """Observed orders ``log(e_i / e_{i+1}) / log(h_i / h_{i+1})`` of consecutive step sizes."""
    h, e = np.asarray(steps, float), np.asarray(errors, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.log(e[:-1] / e[1:]) / np.log(h[:-1] / h[1:])
    return [float(v) if np.isfinite(v) else None for v in p]


def write_table(path, header, rows, **meta):
    """Write a small table (a header and rows of numbers) as CSV with the provenance lines
    (:func:`phmech.validation._common.write_table`, keywords ``meta`` as there); refuses
    non-finite numbers."""
    from ._common import write_table as write
    return write(path, header, rows, **meta)


def semilogy_positive(ax, t, values, *args, **kwargs):
    """``ax.semilogy`` of the positive values only (zeros, e.g. at t = 0, are left out of the
    line rather than stretching the axis)."""
    v = np.asarray(values, float)
    return ax.semilogy(t, np.where(v > 0, v, np.nan), *args, **kwargs)


def solver_options(solver, dt, rtol, atol):
    """The step options of a solver: ``dt`` for the midpoint rule, tolerances otherwise."""
    return dict(dt=dt) if solver == "midpoint" else dict(rtol=rtol, atol=atol)


def output_times(t_end, dt_out):
    """Equally spaced output times ``0, dt_out, ..., t_end`` (``t_end`` always included)."""
    n = max(1, int(round(t_end / dt_out)))
    return np.linspace(0.0, t_end, n + 1)

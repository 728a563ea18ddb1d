"""Hinged spatial beam, 50 s: phmech's integrators against scipy's Radau on the same model.

The scipy run integrates the same assembled model as an ODE: the hinge
constraint ``v_P = 0`` is eliminated (its multiplier does no work), leaving
``q' = T(q) e`` and ``M_r e_r' = (J(e) e + B u)_r`` for the remaining
efforts, with ``solve_ivp(method="Radau")`` at its default tolerances (the
thesis' set-up, 21.1 s there).  Accuracy: the angular velocity about the
vertical axis against a reference run (midpoint, dt = 1.25e-3), as the
maximum error relative to its peak.  Target: phmech at least 5x faster at
equal accuracy.

    python benchmarks/hinged_beam.py [--n-elem 6] [--tfinal 50]
"""
import argparse
import sys
import time

import numpy as np


def scipy_radau(n_elem, t_end, t_eval, **tol):
    from scipy.integrate import solve_ivp
    from scipy.linalg import cho_factor, cho_solve
    from phmech.math.rotations import rot3
    from phmech.validation import hinged_beam as hb
    s, beam = hb.build(n_elem)
    dae = s.assemble()
    y0 = dae.initial_state()
    nq = dae.nq
    keep = np.arange(3, dae.ne)
    Mr = cho_factor(dae.M.toarray()[np.ix_(keep, keep)])
    y_full = np.zeros(dae.n)           # (q, e, lam = 0): the joint's rows are the ones left out

    def rhs(t, z):
        y_full[:nq] = z[:nq]
        y_full[nq + keep] = z[nq:]
        f = dae.f(t, y_full)                # q' = T(q) e and J(e) e + loads
        return np.r_[f[:nq], cho_solve(Mr, f[nq:nq + dae.ne][keep])]

    z0 = np.r_[y0[dae.sq], y0[dae.se][keep]]
    tic = time.perf_counter()
    sol = solve_ivp(rhs, (0.0, t_end), z0, method="Radau", t_eval=t_eval, **tol)
    wall = time.perf_counter() - tic
    if not sol.success:
        raise RuntimeError(sol.message)
    q, e = sol.y[:nq].T, sol.y[nq:].T
    omega_z = np.array([(rot3(qq[3:7]) @ ee[:3])[2] for qq, ee in zip(q, e)])
    return omega_z, wall, sol.nfev


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n-elem", type=int, default=6)
    p.add_argument("--tfinal", type=float, default=50.0)
    args = p.parse_args(argv)
    sys.argv[1:] = []
    from phmech.validation import hinged_beam as hb
    te = args.tfinal
    ref = hb.run(te, args.n_elem, dt=1.25e-3, plot=False, vtk=False)
    peak = np.max(np.abs(ref.omega_z))
    rows = []
    w, wall, nfev = scipy_radau(args.n_elem, te, ref.t)
    rows.append(("scipy solve_ivp Radau (default tolerances)", wall, nfev, w))
    for dt in (0.02, 0.01, 0.005, 0.0025):
        o = hb.run(te, args.n_elem, dt=dt, plot=False, vtk=False)
        rows.append((f"phmech midpoint dt={dt}", o.summary["stats"]["wall_time"], o.summary["stats"]["nfev"], o.omega_z))
    o = hb.run(te, args.n_elem, solver="radau", rtol=1e-3, atol=1e-6, plot=False, vtk=False)
    rows.append(("phmech radau rtol=1e-3 atol=1e-6", o.summary["stats"]["wall_time"], o.summary["stats"]["nfev"], o.omega_z))
    base = rows[0][1]
    print(f"hinged beam, {args.n_elem} elements, t_end = {te} s; error = max|omega_z - ref| / max|ref|")
    print(f"{'run':45s} {'time [s]':>9s} {'nfev':>8s} {'error':>9s} {'speed-up':>9s}")
    for lab, wall, nfev, w in rows:
        err = np.max(np.abs(w - ref.omega_z)) / peak
        print(f"{lab:45s} {wall:9.2f} {nfev:8d} {err:9.1e} {base / wall:9.1f}")


if __name__ == "__main__":
    main()

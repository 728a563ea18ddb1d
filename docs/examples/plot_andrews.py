"""
Andrews' squeezing mechanism against the IVP test set reference
===============================================================

The seven-body mechanism of the Test Set for IVP Solvers (problem "andrews";
Hairer & Wanner, *Solving ODEs II*, sec. VII.7) integrated to t = 0.03 s with
Radau IIA; the end state is compared with the published reference solution,
read from ``validation/ivp_testset/andrews.json``: the positions agree to
about 7 correct digits at the case's tolerances.
"""
import numpy as np

from phmech.validation import andrews
from phmech.validation._common import reference


def run(quick=True):
    """``digits``: correct digits of the end positions against the reference; the history."""
    out = andrews.run(solvers=["radau"], tolerances=[], t_energy=0.0, n_out=101 if quick else 301,
                      history_solver="radau")
    return {"digits": float(out.summary["errors"]["radau"]["positions"]["digits"]), "history": out.history}


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    ref = reference("ivp_testset/andrews.json")
    out = run(quick=False)
    print(f"positions at t = {ref['t_end']} s: {out['digits']:.1f} correct digits against the reference "
          f"({ref['reference_code']})")
    h = out["history"]
    fig, ax = plt.subplots()
    for k, name in enumerate(ref["labels_p"]):
        ax.plot(h.t * 1e3, np.mod(h.y[:, k] + np.pi, 2 * np.pi) - np.pi, label=name)
    ax.plot([ref["t_end"] * 1e3] * 7, np.mod(np.array(ref["reference_at_t_end"][:7]) + np.pi, 2 * np.pi) - np.pi,
            "k+", ms=10, label="reference")
    ax.set_xlabel("t [ms]")
    ax.set_ylabel("angle [rad] (wrapped)")
    ax.legend(ncol=2, fontsize="small", loc="lower left")

"""The validation cases and their settings in one place: read by ``phmech`` (:mod:`phmech.cli`)
and by the parameter studies (:mod:`phmech.study`).

A case is a module of :mod:`phmech.validation` without a leading underscore
that defines ``main(argv)`` (:func:`cases` finds them without importing
any).  Each case declares here

* its *presets*: named argument lists of its command line; ``quick`` is the
  shortened run of ``phmech figures --quick`` (every case has one, the
  whole quick run takes minutes on two cores);
* its *key figures*: the entries of its ``summary.json`` shown in the table
  of ``phmech figures`` (dotted paths, integers index lists);
* for ``phmech study``: the numbers drawn in the study figure, the function
  called at each grid point when it is not the module's ``run`` (as
  ``"module:function"``), the units of its parameters and numbers, and the
  model and solver named in the figure when the summary does not name them.
"""
import ast
import os
import pkgutil
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Case:
    """The declared settings of one validation case.

    Attributes
    ----------
    name : str
        The module name in :mod:`phmech.validation`.
    presets : dict
        Preset name -> command-line arguments of the case (``"quick"``: the
        run of ``phmech figures --quick``).
    key_figures : tuple of str
        Dotted paths into ``summary.json`` shown by ``phmech figures``.
    study_metrics : tuple of str
        The numbers drawn in the figure of ``phmech study``.
    study_function : str or None
        ``"module:function"`` called at each grid point; ``None``: the case's ``run``.
    units : dict
        Parameter or number name -> unit (``"1"`` for ratios, ``""`` for counts).
    model, solver : str
        Named in the study figure when the summary of a point does not name them.
    firedrake : bool or str
        Whether the case needs Firedrake (:mod:`phmech.fem`): ``True`` for every run,
        ``False`` for none, or the part that needs it (``"--flexible"``: only with that
        option); shown by ``phmech list``.
    """

    name: str
    presets: dict = field(default_factory=dict)
    key_figures: tuple = ()
    study_metrics: tuple = ()
    study_function: str = None
    units: dict = field(default_factory=dict)
    model: str = ""
    solver: str = ""
    firedrake: object = False

    @property
    def firedrake_column(self):
        """The "needs Firedrake" entry of ``phmech list``: ``yes``, ``no`` or the part that needs it."""
        if isinstance(self.firedrake, str):
            return self.firedrake
        return "yes" if self.firedrake else "no"

    @property
    def quick(self):
        """Arguments of the shortened run (``phmech figures --quick``)."""
        return list(self.presets.get("quick", ()))


_CRANK_UNITS = {"omega": "rad/s", "E": "Pa", "L": "m", "L_crank": "m", "d": "m", "rho": "kg/m^3",
                "m_slider": "kg", "m_crank": "kg", "t_end": "s", "dt": "s", "dt_out": "s", "max_step": "s",
                "n_elem": "", "rtol": "1", "atol": "1", "uy_mid_max_abs_over_L": "1", "ux_mid_max_abs_over_L": "1",
                "uy_mid_end_over_L": "1", "t_of_uy_mid_max": "s", "slider_x_end": "m",
                "energy_balance_max_abs_J": "J", "hamiltonian_max_J": "J", "constraint_residual_max": "m/s"}
_FOUR_BAR_UNITS = {"theta1_deg": "deg", "n_elem": "", "k": "",
                   **{f"omega{i}_rad_s": "rad/s" for i in range(1, 7)}, **{f"f{i}_hz": "Hz" for i in range(1, 7)}}

CASES = {c.name: c for c in (
    Case("actuated_plate", firedrake=True,
         presets={"quick": ("--level", "0", "--degree", "1", "--conv-levels", "--tfinal", "0.1", "--dt", "1e-3")},
         key_figures=("freq_hz", "frf_modal_vs_direct_max_rel", "sim.power_balance_rel")),
    Case("andrews", presets={"quick": ("--rtol", "1e-5", "--tols", "1e-5", "--solvers", "radau")},
         key_figures=("errors.radau.positions.digits", "energy_balance_A03.relative")),
    Case("beam_convergence", firedrake=True, presets={"quick": ("--meshes", "4", "8", "16")},
         key_figures=("rates.v", "rates.m", "rates.omega1")),
    Case("bouncing_ball", presets={"quick": ("--solvers", "moreau")},      # nsgenalpha only in the full run
         key_figures=("cases.1.moreau.energy_balance", "cases.1.moreau.position")),
    Case("bricard", presets={"quick": ("--tfinal", "1", "--no-convergence", "--compare", "none")},
         key_figures=("energy_drift_J", "position_residual_max")),
    Case("contact_cases", firedrake="with --cases beam",   # the flexible beam (dt / 20) only in the full run
         presets={"quick": ("--dt", "4e-3", "--cases", "block", "cradle_gaps", "pendulum", "--solvers", "moreau")},
         key_figures=("rows.0.position", "rows.0.energy_balance")),
    Case("crank_slider", firedrake=True, presets={"quick": ("--tfinal", "0.01", "--n-elem", "4")},
         key_figures=("uy_mid_max_abs_over_L", "energy_balance_max_abs_J"),
         study_metrics=("uy_mid_max_abs_over_L",), units=_CRANK_UNITS,
         model="crank-slider, flexible coupler", solver="midpoint"),
    Case("elastica", firedrake=True, presets={"quick": ("--meshes", "4", "8", "16")},
         key_figures=("finest_max_error", "min_rate", "roll_up.tip_distance_finest", "helix.error_finest"),
         model="cantilever, geometrically exact beam", solver="static equilibrium"),
    Case("four_bar", firedrake=True, presets={"quick": ("--n-angles", "24", "--n-elem", "3")},
         key_figures=("omega_at_deg_rad_s.90",),
         study_metrics=("omega1_rad_s", "omega2_rad_s", "omega3_rad_s"),
         study_function="phmech.validation.four_bar:study_point", units=_FOUR_BAR_UNITS,
         model="four-bar, floating Euler-Bernoulli links, linearized at the crank angle",
         solver="eigen (dense)"),
    Case("hinged_beam", firedrake=True, presets={"quick": ("--tfinal", "1", "--n-elem", "2")},
         key_figures=("omega_z_max", "energy_balance_max_abs")),
    Case("hub_plate", firedrake=True,
         presets={"quick": ("--meshes", "4", "--fixed-meshes", "4", "8", "16", "--n-spin", "8", "--n-elem", "8",
                            "--tfinal", "0.3", "--dt", "2e-3")},
         key_figures=("frequencies.floating.4.max_rel_vs_fixed", "spin_up.tip_peak_difference_rel",
                      "spin_up.energy_balance_max_abs_J")),
    Case("mass_spring",            # the bridge's Radau reference (rtol 1e-11) only in the full run
         presets={"quick": ("--cases", "pendulum", "chain", "kreisel", "stability", "--refinements", "1",
                            "--tfinal", "1", "--stability-tfinal", "5")},
         key_figures=("chain.springs.simulated_relative_error", "kreisel.steady.radius_deviation")),
    Case("plate_modes", firedrake=True, presets={"quick": ("--degrees", "1", "--coarse")},
         key_figures=("cantilever_reference_order",)),
    Case("plate_rigid", firedrake=True, presets={"quick": ("--n", "4", "--tfinal", "2e-3")},
         key_figures=("transformer.freq_hz", "transformer.power_balance_rel")),
    Case("reduced_bodies", firedrake=True,
         presets={"quick": ("--n-rod", "32", "--n-plate", "4", "--modes", "2", "4", "8", "--tfinal", "0.02",
                            "--n-rod-run", "256", "--m-solid", "1", "--n-coupler", "4", "--crank-modes", "2", "4",
                            "--crank-tfinal", "0.01")},
         key_figures=("rod.first_error_finest", "plate.first_error_finest", "rod.static_tip_rel_error",
                      "crank_slider.4.peak_rel_difference")),
    Case("rotating_beam", firedrake=True, presets={"quick": ("--n-elem", "2", "4", "8")},
         key_figures=("convergence.flapwise.finest_max_rel_error", "convergence.chordwise.finest_max_rel_error",
                      "exact.convergence.chordwise.finest_max_rel_error")),
    Case("simeon_crank", presets={"quick": ("--rtol", "1e-5", "--tols", "1e-5", "--solvers", "radau")},
         key_figures=("errors.radau.positions.digits", "constraint_residual_max.position")),
    Case("solid_crank_slider", firedrake=True,       # the first swing on two meshes; three over 0.1 s in full
         presets={"quick": ("--tfinal", "0.008", "--dt", "2e-4", "--levels", "0", "1", "--no-vtk")},
         key_figures=("comparison.peak_finest", "comparison.peak_beam", "comparison.difference_rel",
                      "comparison.mesh_change_rel")),
    Case("spatial_pendulum", firedrake="with --flexible", presets={"quick": ("--tfinal", "0.25")},
         key_figures=("box_vs_equivalent_max_tip_difference_m", "rigid.energy_error_J")),
    Case("spin_up", firedrake=True, presets={"quick": ("--tfinal", "1", "--n-elem", "4", "--no-reference")},
         key_figures=("models.linear.tip_max_abs_m", "models.stiffened.tip_max_abs_m")),
    Case("tippe_top", presets={"quick": ("--tfinal", "0.25", "--dt", "2.5e-4")},
         key_figures=("final_tilt", "energy_balance_max")),
)}


def cases():
    """``{name: description}`` of the validation cases (:func:`description`; read from the sources,
    nothing imported)."""
    here = os.path.dirname(os.path.abspath(__file__))
    out = {}
    for info in pkgutil.iter_modules([here]):
        if info.name.startswith("_") or info.ispkg:
            continue
        try:
            with open(os.path.join(here, info.name + ".py")) as fh:
                tree = ast.parse(fh.read())
        except (OSError, SyntaxError):
            continue
        if any(isinstance(n, ast.FunctionDef) and n.name == "main" for n in tree.body):
            out[info.name] = description(ast.get_docstring(tree))
    return dict(sorted(out.items()))


def description(doc):
    """A case's description: the first paragraph of its module docstring, as one line
    (whole sentences; empty without a docstring)."""
    return " ".join((doc or "").strip().split("\n\n")[0].split())


def case(name):
    """The declared settings of case ``name`` (an empty declaration for a case not listed)."""
    return CASES.get(name) or Case(name)


def unit(name, case_name=None, declared=None):
    """The unit of a parameter or number: from the case's declaration, then ``declared`` (a
    summary's ``units`` dictionary), then from a name ending in ``_<unit>``; ``None`` if unknown."""
    for table in (case(case_name).units if case_name else {}, declared or {}):
        if isinstance(table, dict) and name in table:
            return table[name]
    suffixes = {"_rad_s": "rad/s", "_hz": "Hz", "_deg": "deg", "_m": "m", "_s": "s", "_J": "J", "_kg": "kg",
                "_N": "N", "_Pa": "Pa", "_rad": "rad", "_over_L": "1", "_rel": "1"}
    for suffix, u in suffixes.items():
        if name.endswith(suffix):
            return u
    return None


def label(name, case_name=None, declared=None):
    """``name [unit]`` for an axis (``[-]`` for a ratio or count, ``[unit not declared]`` if unknown)."""
    u = unit(name, case_name, declared)
    if u is None:
        return f"{name} [unit not declared]"
    return f"{name} [{u if u not in ('', '1') else '-'}]"

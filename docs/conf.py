"""Sphinx configuration of the phmech documentation.

Build::

    python -m sphinx -b html docs docs/_build/html        # or: make -C docs html

The example gallery (``docs/examples/plot_*.py``) is executed by
sphinx-gallery; ``-D plot_gallery=0`` builds the pages without running the
scripts.  The notebooks of ``docs/notebooks/`` are stored executed and shown
with their outputs by myst-nb (not run again); after an edit, run one with
``jupyter execute --inplace docs/notebooks/NAME.ipynb``.

Without Firedrake the gallery leaves out the examples that need it (those whose
source has the line ``NEEDS_FIREDRAKE = True``) and its index says so.
"""
import glob
import importlib.util
import os
import re
import sys

sys.argv[1:] = []                  # Firedrake, imported by autodoc, hands sys.argv to PETSc
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.abspath(".."))

import phmech  # noqa: E402

project = "phmech"
author = "the phmech authors"
copyright = "the phmech authors, LGPL-3.0-or-later"
release = version = phmech.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

templates_path = ["_templates"]
# auto_examples/*.ipynb: the gallery's downloadable notebooks, not pages
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "examples", "auto_examples/*.ipynb", "api_sections.rst",
                    "jupyter_execute", "**/.ipynb_checkpoints"]

# -- executed notebooks (docs/notebooks/*.ipynb, shown with their stored outputs) ------------
try:
    import myst_nb  # noqa: F401
    extensions.append("myst_nb")
    nb_execution_mode = "off"
    source_suffix = {".rst": "restructuredtext", ".ipynb": "myst-nb", ".md": "myst-nb"}   # the user guide
except ImportError:                # without myst-nb the notebooks and the guide's pages are left out
    exclude_patterns += ["notebooks", "guide"]

# -- API reference: every module of the package, from the docstrings -------------------------
#: the API page's sections: (title, the parts of the package); the internals come last
API_SECTIONS = (
    ("Building a model", ("system", "bodies", "joints", "forces", "fem", "massspring", "contact", "mechanisms")),
    ("Reduced bodies", ("reduce",)),
    ("Solving and analysing", ("assembly", "solvers", "math", "parallel")),
    ("Results, output and studies", ("result", "io", "study", "cli")),
    ("Validation cases", ("validation",)),
)


def internal_module(name):
    """Whether a module of the package is an internal one (a private name, compiled kernels, the
    kernel infrastructure, the warm-up, a ``__main__``)."""
    parts = name.split(".")[1:]
    return (any(p.startswith("_") for p in parts) or parts[-1].endswith("kernels") or parts[:1] == ["kernels"]
            or parts[:1] == ["warm"])


def api_modules():
    """``{section title: [module names]}`` of every module of the package (``pkgutil``) but the
    private ones, by :data:`API_SECTIONS`, the internals under "Internals"."""
    import pkgutil
    names = sorted(m.name for m in pkgutil.walk_packages(phmech.__path__, "phmech."))
    out = {title: [] for title, _ in API_SECTIONS}
    out["Internals"] = []
    for name in names:
        if any(p.startswith("_") for p in name.split(".")[1:]):
            continue                              # private modules have no page (autosummary's rule)
        if internal_module(name):
            out["Internals"].append(name)
            continue
        top = name.split(".")[1]
        title = next((t for t, parts in API_SECTIONS if top in parts), "Internals")
        out[title].append(name)
    return out


def write_api_lists(path):
    """The sections of the API page (``api.rst`` includes the file), written at every build."""
    lines = []
    for title, names in api_modules().items():
        if not names:
            continue
        lines += [title, "-" * len(title), ""]
        if title == "Internals":
            lines += ["Compiled kernels, the kernel cache and its loading, the warm-up: read them to extend",
                      "the package, not to use it.", ""]
        lines += [".. autosummary::", "   :toctree: generated", ""] + [f"   {n}" for n in names] + [""]
    text = "\n".join(lines)
    if not os.path.exists(path) or open(path).read() != text:
        with open(path, "w") as f:
            f.write(text)


write_api_lists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "api_sections.rst"))

# the pages to scan for autosummary directives: the API page's sections are an included file, which
# autosummary does not follow from api.rst (Sphinx 9), so it is named here
autosummary_generate = ["api.rst", "api_sections.rst"]
autosummary_imported_members = False
autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# -- example gallery ---------------------------------------------------------------------------
EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "examples")


def have_firedrake():
    """Whether Firedrake can be imported (without importing it)."""
    try:
        return importlib.util.find_spec("firedrake") is not None
    except (ImportError, ValueError):          # a module set to None in sys.modules, a broken package
        return False


def needs_firedrake(path):
    """Whether the gallery script ``path`` needs Firedrake (its line ``NEEDS_FIREDRAKE = True``)."""
    with open(path, encoding="utf-8") as f:
        return re.search(r"^NEEDS_FIREDRAKE = True\b", f.read(), re.M) is not None


def gallery_selection(firedrake=None):
    """``(kept, skipped)``: the names of the gallery scripts built and those left out (they need
    Firedrake and ``firedrake`` is false; default: whether it is installed)."""
    firedrake = have_firedrake() if firedrake is None else firedrake
    names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(EXAMPLES, "plot_*.py")))
    skipped = [] if firedrake else [n for n in names if needs_firedrake(os.path.join(EXAMPLES, n))]
    return [n for n in names if n not in skipped], skipped


_kept, SKIPPED_EXAMPLES = gallery_selection()
# pages of those scripts left in auto_examples/ by an earlier build with Firedrake: not part of this one
exclude_patterns += [f"auto_examples/{n[:-3]}.rst" for n in SKIPPED_EXAMPLES]
if SKIPPED_EXAMPLES:                           # the note in the gallery's index (examples/README.rst)
    if "tags" in globals():
        tags.add("no_firedrake")               # noqa: F821 (Sphinx's tags, given to conf.py)
    rst_prolog = ".. |skipped_examples| replace:: " + ", ".join(
        f"``{n[:-3]}``" for n in SKIPPED_EXAMPLES) + "\n"
else:
    rst_prolog = ".. |skipped_examples| replace:: (none)\n"

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    # the scripts that need Firedrake, left out of a build without it (sphinx-gallery matches the
    # pattern against the file's name, older versions against its path)
    "ignore_pattern": (r"(^|[\\/])(" + "|".join(re.escape(n) for n in SKIPPED_EXAMPLES) + r")$"
                       if SKIPPED_EXAMPLES else r"__init__\.py"),
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": True,
}

# -- HTML ----------------------------------------------------------------------------------------
try:
    import pydata_sphinx_theme  # noqa: F401
    html_theme = "pydata_sphinx_theme"
    html_theme_options = {"show_toc_level": 2, "navigation_with_keys": False}
except ImportError:
    html_theme = "alabaster"
html_title = f"phmech {release}"
html_static_path = ["_static"]
# formulas readable offline: MathJax 3.2.2 (Apache-2.0) vendored from the npm registry by
# scripts/vendor_mathjax.sh into _static/mathjax (the TeX input, CHTML output and its fonts)
mathjax_path = "mathjax/tex-chtml.js"

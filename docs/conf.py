"""Sphinx configuration of the phmech documentation.

Build::

    python -m sphinx -b html docs docs/_build/html        # or: make -C docs html

The example gallery (``docs/examples/plot_*.py``) is executed by
sphinx-gallery; ``-D plot_gallery=0`` builds the pages without running the
scripts.  The notebooks of ``docs/notebooks/`` are stored executed and shown
with their outputs by myst-nb (not run again); after an edit, run one with
``jupyter execute --inplace docs/notebooks/NAME.ipynb``.
"""
import os
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
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "examples", "auto_examples/*.ipynb",
                    "jupyter_execute", "**/.ipynb_checkpoints"]

# -- executed notebooks (docs/notebooks/*.ipynb, shown with their stored outputs) ------------
try:
    import myst_nb  # noqa: F401
    extensions.append("myst_nb")
    nb_execution_mode = "off"
    source_suffix = {".rst": "restructuredtext", ".ipynb": "myst-nb"}
except ImportError:                # without myst-nb the notebooks are left out (index globs them)
    exclude_patterns.append("notebooks")

# -- API reference: every module of the package, from the docstrings -------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# -- example gallery ---------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
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
html_static_path = []

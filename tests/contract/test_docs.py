"""The documentation builds: every module of the package imports for the API reference, and
the example gallery's pages are made (without running the scripts, to stay quick)."""
import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("numpydoc")
pytest.importorskip("sphinx_gallery")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = os.path.join(ROOT, "docs")


@pytest.mark.slow          # about 20 s of CPU, 45 s of wall time on a shared machine
def test_docs_build_without_import_failures(tmp_path):
    warnings = tmp_path / "warnings.txt"
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-D", "plot_gallery=0",
           "-d", str(tmp_path / "doctrees"), "-w", str(warnings), DOCS, str(tmp_path / "html")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = warnings.read_text()
    missing = [line for line in text.splitlines()
               if re.search(r"failed to import|No module named|autodoc: failed|autosummary: failed|"
                            r"import of module|toctree contains reference to nonexisting", line)]
    assert not missing, "\n".join(missing)
    assert not text.strip(), text[:3000]                    # warning-free (docstrings, tables, titles)
    html = tmp_path / "html"
    api = (html / "generated" / "phmech.result.html").read_text()
    assert "Result.animate" in api or "animate" in api
    for module in ("phmech.study", "phmech.io.animation", "phmech.io.paraview", "phmech.io.checkpoint",
                   "phmech.validation.crank_slider", "phmech.fem.beam"):
        assert (html / "generated" / f"{module}.html").is_file(), module
    guide = [p for p in sorted(os.listdir(os.path.join(DOCS, "guide"))) if p.endswith(".md")]
    for page in guide:                                # the user guide's pages (myst-nb, a docs extra)
        assert (html / "guide" / page.replace(".md", ".html")).is_file(), page
    # the API page: public modules first, the internals in their own last section
    api_page = (html / "api.html").read_text()
    api_page = api_page[api_page.index("Generated from the docstrings"):]       # the page, not the sidebar
    assert api_page.index("Building a model") < api_page.index("Internals")
    assert api_page.index("phmech.system") < api_page.index("Internals") < api_page.index("phmech.kernels.jit")
    # formulas offline: the vendored MathJax, no CDN
    page = (html / "generated" / "phmech.fem.plate.html").read_text()
    assert "_static/mathjax/tex-chtml.js" in page and "cdn.jsdelivr" not in page
    assert (html / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2" / "MathJax_Main-Regular.woff").is_file()
    gallery = (html / "auto_examples" / "index.html").read_text()
    for example in ("plot_rigid_crank_slider", "plot_four_bar_study", "plot_crank_slider_study", "plot_andrews"):
        assert example in gallery and (html / "auto_examples" / f"{example}.html").is_file()

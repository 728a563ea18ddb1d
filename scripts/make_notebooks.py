"""Build and execute the notebooks of docs/notebooks/ from their percent-format sources.

Each ``docs/notebooks/<name>.py`` (cells separated by ``# %%``, markdown cells by
``# %% [markdown]`` with ``# `` comment lines) becomes ``<name>.ipynb``, executed in a
Jupyter kernel (nbclient) so that it is stored with its outputs::

    python scripts/make_notebooks.py [name ...]
"""
import argparse
import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

FOLDER = Path(__file__).resolve().parents[1] / "docs" / "notebooks"


def cells(source):
    """The notebook cells of a percent-format source."""
    out, kind, lines = [], None, []

    def close():
        text = "\n".join(lines).strip("\n")
        if kind == "markdown":
            text = "\n".join(line[2:] if line.startswith("# ") else line.lstrip("#") for line in text.splitlines())
            out.append(nbformat.v4.new_markdown_cell(text))
        elif kind == "code" and text:
            out.append(nbformat.v4.new_code_cell(text))
    for line in source.splitlines():
        if line.startswith("# %%"):
            close()
            kind, lines = ("markdown" if "[markdown]" in line else "code"), []
        else:
            lines.append(line)
    close()
    return out


def build(name, workdir):
    nb = nbformat.v4.new_notebook(cells=cells((FOLDER / f"{name}.py").read_text()))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    os.environ.pop("MPLBACKEND", None)
    NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(workdir)}}).execute()
    nbformat.write(nb, str(FOLDER / f"{name}.ipynb"))
    return FOLDER / f"{name}.ipynb"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", help="notebooks to build (default: every source)")
    p.add_argument("--workdir", default=None, help="folder the notebooks run in (default: a temporary one)")
    args = p.parse_args(argv)
    import tempfile
    names = args.names or sorted(f.stem for f in FOLDER.glob("*.py"))
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            print("executed", build(name, args.workdir or tmp))


if __name__ == "__main__":
    main()

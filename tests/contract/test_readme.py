"""Every Python snippet of README.md and of the user guide (``docs/guide/*.md``) runs.

The snippets are the fenced blocks marked ``python`` (or unmarked) and the
indented code blocks that compile as Python; shell blocks (``bash``,
``sh``, ``console``, command lines, formulas) are left out because they do
not compile.  They run in the order of the README in one namespace (a
later snippet may use the names of an earlier one), in a temporary working
directory: the README's first, then the guide's pages in the order of the
README's list of them (a page may use the names of an earlier one).  Snippets
that use ``phmech.fem`` or Firedrake, or that stop at a flexible body with
:class:`phmech._stack.FiredrakeMissingError`, are skipped without Firedrake.
``python tests/contract/test_readme.py`` lists the snippets.
"""
import os
import re
from pathlib import Path

import pytest

from conftest import HAVE_FIREDRAKE

from phmech._stack import FiredrakeMissingError, missing_stack

README = Path(__file__).resolve().parents[2] / "README.md"
#: first words of shell command lines (some, like ``source a/b.sh``, compile as Python)
SHELL_WORDS = r"(source|\.|bash|sh|python3?|pip3?|cd|export|git|docker|make|apt-get|sudo|mpiexec|pytest)"


def _is_python(src):
    """True when ``src`` compiles as Python and is no shell command (formulas do not compile)."""
    if re.search(r"^\s*\$ ", src, re.M) or re.search(rf"^\s*{SHELL_WORDS}\s+[^\s=(.,]", src, re.M):
        return False
    try:
        compile(src, "<README>", "exec")
    except SyntaxError:
        return False
    return bool(src.strip())


def snippets(text):
    """``(first line number, source)`` of the Python snippets of a Markdown text, in order."""
    out = []
    lines = text.splitlines()
    i, prev_blank = 0, True
    while i < len(lines):
        line = lines[i]
        fence = re.match(r"^(\s*)(```+|~~~+)\s*([\w+-]*)", line)
        if fence:
            indent, marker, lang = fence.groups()
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(marker):
                j += 1
            body = "\n".join(ln[len(indent):] if ln.startswith(indent) else ln for ln in lines[i + 1:j])
            if lang.lower() in ("python", "py", "python3", "pycon") or (not lang and _is_python(body)):
                out.append((i + 2, body))
            i, prev_blank = j + 1, False
            continue
        if prev_blank and line.startswith("    ") and line.strip():
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                j += 1
            while j > i and not lines[j - 1].strip():
                j -= 1
            body = "\n".join(ln[4:] for ln in lines[i:j])
            if _is_python(body):
                out.append((i + 1, body))
            i, prev_blank = j, False
            continue
        prev_blank = not line.strip()
        i += 1
    return out


def guide_pages():
    """The user guide's pages in the order of the README's links to them (``docs/guide/*.md``)."""
    if not README.exists():
        return []
    names = re.findall(r"\]\((docs/guide/[\w-]+\.md)\)", README.read_text())
    return [README.parent / n for n in dict.fromkeys(names)]


#: ``(file, line, source)`` of every snippet, in the order they run
SNIPPETS = [(path.relative_to(README.parent).as_posix(), line, src)
            for path in ([README] if README.exists() else []) + guide_pages()
            for line, src in snippets(path.read_text())]


def _needs_firedrake(src):
    return "phmech.fem" in src or "firedrake" in src


@pytest.fixture(scope="module")
def namespace(tmp_path_factory):
    """One namespace for all snippets, executed in a temporary working directory."""
    cwd = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("readme"))
    try:
        yield {"__name__": "__readme__"}
    finally:
        os.chdir(cwd)


def test_snippet_extraction():
    text = "\n".join([
        "Intro", "", "    bash scripts/install.sh", "", "Then", "", "    source /opt/env.sh", "",
        "where", "", "    M e' = J(e) e,   y = B^T e", "", "and", "", "    x = 1", "", "    y = x + 1", "",
        "```python", "z = y * 2", "```", "```bash", "ls -l", "```", "```", "w = z", "```",
        "```", "python -m pytest -q", "```"])
    assert snippets(text) == [(15, "x = 1\n\ny = x + 1"), (20, "z = y * 2"), (26, "w = z")]


def test_readme_has_python_snippets():
    assert README.exists(), README
    assert any(f == "README.md" for f, _, _ in SNIPPETS), "README.md has no Python snippet"


def test_every_guide_page_is_listed_in_the_readme():
    """The README links every page of ``docs/guide/`` (the order the snippets run in) and no
    page that is not there."""
    listed = {p.name for p in guide_pages()}
    pages = {p.name for p in (README.parent / "docs" / "guide").glob("*.md")}
    assert listed == pages and all(p.exists() for p in guide_pages()), (sorted(listed), sorted(pages))


@pytest.mark.parametrize("path, line, src", SNIPPETS, ids=[f"{f} line {ln}" for f, ln, _ in SNIPPETS])
def test_snippet_runs(path, line, src, namespace):
    if _needs_firedrake(src) and not HAVE_FIREDRAKE:
        pytest.skip("the snippet needs Firedrake")
    code = compile(src, f"{path}, snippet at line {line}", "exec")
    try:
        exec(code, namespace)
    except Exception as err:                 # a model with flexible bodies (phmech.mechanisms, a study, ...)
        if HAVE_FIREDRAKE or not (missing_stack(err) or FiredrakeMissingError.__name__ in str(err)):
            raise
        pytest.skip("the snippet builds a flexible body, which needs Firedrake")


if __name__ == "__main__":
    for f, ln, src in SNIPPETS:
        first = src.strip().splitlines()[0]
        print(f"{f} line {ln:4d}: {len(src.splitlines()):3d} lines, firedrake={_needs_firedrake(src)}: {first}")

"""The package metadata is the one list of dependencies, and the install paths use it.

* every third-party module that ``phmech/`` imports (found with :mod:`ast`) is
  declared in ``setup.cfg``: in ``install_requires`` or in an extra, or it belongs
  to the PETSc stack that ``scripts/install.sh`` builds;
* ``[all]`` names every extra;
* ``scripts/install.sh`` and the ``Dockerfile`` install ``.[all]`` and, by name,
  only the packages they must build against PETSc or the parallel HDF5 first;
* the Docker base image is the Firedrake version the script installs; neither
  sets a matplotlib backend; both compile the kernels with ``phmech.warm``;
* the licence files are the texts the metadata names.
"""
import ast
import configparser
import functools
import re
import shlex
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "phmech"
INSTALL_SH = ROOT / "scripts" / "install.sh"
DOCKERFILE = ROOT / "Dockerfile"

#: import name -> distribution name, where the two differ or the distribution is a fork
DISTRIBUTION = {"yaml": "pyyaml", "vtk": "vtk", "assimulo": "assimulo-testing",
                "PIL": "pillow", "skimage": "scikit-image", "sklearn": "scikit-learn"}

#: built by scripts/install.sh against its PETSc (and preinstalled in the Firedrake image);
#: none of them is pip-installable without a PETSc build
BUILT_BY_THE_INSTALL_SCRIPT = {"firedrake", "finat", "FIAT", "ufl", "pyop2", "tsfc", "loopy",
                               "petsc4py", "petsctools", "slepc", "slepc4py"}

#: what the script and the Dockerfile may install by name, before ``.[all]``: the build tools
#: of the virtual environment and the packages compiled against PETSc or the parallel HDF5
BUILT_FIRST = {"install.sh": {"pip", "mpi4py", "numpy", "cython", "pkgconfig", "setuptools",
                              "wheel", "h5py", "firedrake", "slepc", "slepc4py"},
               "Dockerfile": {"slepc", "slepc4py"}}


def _norm(name):
    """A distribution name in its normalized form (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(req):
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
    return _norm(m.group(1)) if m else None


def _setup_cfg():
    cfg = configparser.ConfigParser(interpolation=None)
    cfg.read(ROOT / "setup.cfg")
    return cfg


def _lines(value):
    return [ln.strip() for ln in value.splitlines() if ln.strip() and not ln.strip().startswith("#")]


def _extras():
    """``{extra: [requirement, ...]}`` of setup.cfg."""
    cfg = _setup_cfg()
    return {k: _lines(v) for k, v in cfg["options.extras_require"].items()}


@functools.lru_cache(maxsize=1)
def _third_party_imports():
    """``{top-level module: [file:line, ...]}`` of the absolute imports in phmech/ outside the
    standard library and phmech itself."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top == "phmech":
                    continue
                found.setdefault(top, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def _pip_installs(path):
    """The package arguments of every ``pip install`` command of a shell script or
    Dockerfile (continuation lines joined), as written."""
    text = re.sub(r"\\\n", " ", path.read_text())
    takes_value = {"--no-binary", "--only-binary", "-c", "--constraint", "-r", "--requirement",
                   "-t", "--target", "--prefix", "--root", "-i", "--index-url", "-f", "--find-links"}
    out = []
    for cmd in re.findall(r"(?i)\bpip\s+install\s+([^;&|\n]*)", text):
        words = shlex.split(cmd.replace("$(", "(").replace("}", ""), posix=True)
        skip = False
        for w in words:
            if skip:
                skip = False
            elif w in takes_value:
                skip = True
            elif not w.startswith("-"):
                out.append(w)
    return out


def test_every_third_party_import_is_declared():
    cfg = _setup_cfg()
    declared = {_requirement_name(r) for r in _lines(cfg["options"]["install_requires"])}
    for reqs in _extras().values():
        declared |= {_requirement_name(r) for r in reqs}
    imports = _third_party_imports()
    assert "numpy" in imports and "firedrake" in imports      # the walk sees the package
    missing = {top: where for top, where in imports.items()
               if top not in BUILT_BY_THE_INSTALL_SCRIPT
               and _norm(DISTRIBUTION.get(top, top)) not in declared}
    assert not missing, ("imported by phmech but declared neither in install_requires nor in an "
                         f"extra of setup.cfg: {missing}")
    # the PETSc stack is not pip-installable without a PETSc build: it is no extra
    stack = {_norm(DISTRIBUTION.get(m, m)) for m in BUILT_BY_THE_INSTALL_SCRIPT}
    assert not declared & stack, sorted(declared & stack)


def test_run_time_imports_of_the_core_are_install_requires():
    """numpy, scipy and matplotlib are imported by the core at module level: required."""
    cfg = _setup_cfg()
    required = {_requirement_name(r) for r in _lines(cfg["options"]["install_requires"])}
    assert {"numpy", "scipy", "matplotlib"} <= required


def test_all_names_every_extra():
    extras = _extras()
    (all_req,) = extras["all"]
    m = re.fullmatch(r"phmech\[([^\]]*)\]", all_req.replace(" ", ""))
    assert m, all_req
    assert set(m.group(1).split(",")) == set(extras) - {"all"}
    expected = {"io": {"h5py", "vtk", "imageio"}, "fast": {"numba"}, "progress": {"tqdm"},
                "mesh": {"gmsh"}, "dae": {"assimulo-testing"}, "test": {"pytest"}}
    for extra, names in expected.items():
        assert names <= {_requirement_name(r) for r in extras[extra]}, extra


def test_progress_bars_use_tqdm_auto():
    """tqdm is imported as ``tqdm.auto`` (widgets in a notebook, text elsewhere)."""
    uses = [where for where in _third_party_imports().get("tqdm", [])]
    for where in uses:
        path, line = where.rsplit(":", 1)
        src = (ROOT / path).read_text().splitlines()[int(line) - 1]
        assert "tqdm.auto" in src, f"{where}: {src.strip()}"


@pytest.mark.parametrize("path", [INSTALL_SH, DOCKERFILE], ids=lambda p: p.name)
def test_install_paths_install_all_and_nothing_else_by_name(path):
    args = _pip_installs(path)
    repo = [a for a in args if a.endswith("[all]")]
    assert repo, f"{path.name} does not install .[all]"
    others = {_requirement_name(a) for a in args if a not in repo}
    assert others <= BUILT_FIRST[path.name], (
        f"{path.name} installs by name {sorted(others - BUILT_FIRST[path.name])}: "
        "declare them in setup.cfg instead")
    text = path.read_text()
    assert "MPLBACKEND" not in text                       # matplotlib chooses, or the user does
    assert re.search(r"python\"?\s+-m\s+phmech\.warm\b", text), "no kernel warm-up"


def test_install_script_builds_before_installing_all():
    """h5py, Firedrake (petsc4py) and slepc4py are built before ``.[all]``, which finds them."""
    text = INSTALL_SH.read_text()
    at = {name: text.find(marker) for name, marker in (
        ("h5py", "--no-binary h5py"), ("firedrake", '"firedrake[check]'),
        ("slepc4py", "--no-binary slepc4py"), ("all", '[all]"'), ("warm", "phmech.warm"))}
    assert all(v >= 0 for v in at.values()), at
    assert at["h5py"] < at["firedrake"] < at["slepc4py"] < at["all"] < at["warm"]
    # the step of .[all] is keyed on setup.cfg: a change of an extra reinstalls
    step = text[text.rfind("key=", 0, at["all"]):at["all"]]
    assert "setup.cfg" in step and 'STAMPS/phmech' in step


def test_docker_base_image_is_the_firedrake_of_the_install_script():
    version = re.search(r"^FIREDRAKE_VERSION=([\w.]+)", INSTALL_SH.read_text(), re.M).group(1)
    base = re.search(r"^FROM\s+(\S+)", DOCKERFILE.read_text(), re.M).group(1)
    image, _, tag = base.partition(":")
    assert image.startswith("firedrakeproject/firedrake"), base
    assert tag == version, f"Dockerfile FROM {base}; scripts/install.sh installs Firedrake {version}"


def test_the_stated_install_time_is_the_sum_of_the_install_steps():
    """The README and the install script state one time for a full install, and it is the sum of the
    estimates the script prints for its long steps (PETSc, h5py, Firedrake, SLEPc), to 5 minutes."""
    script = INSTALL_SH.read_text()
    steps = [int(n) for n in re.findall(r'^\s*log ".*\(about (\d+) minutes\)"', script, re.M)]
    assert len(steps) >= 4, steps
    stated = re.search(r"^# A full install on a bare 2-core machine takes about (\d+) minutes", script, re.M)
    readme = re.search(r"takes\s+about (\d+) minutes", (ROOT / "README.md").read_text())
    assert stated and readme, "the install time is not stated in scripts/install.sh or README.md"
    assert int(readme.group(1)) == int(stated.group(1))
    assert abs(int(stated.group(1)) - sum(steps)) <= 5, (stated.group(1), steps)


def test_licence_files():
    cfg = _setup_cfg()
    assert cfg["metadata"]["license"] == "LGPL-3.0-or-later"
    files = _lines(cfg["metadata"]["license_files"])
    assert set(files) == {"LICENSE", "COPYING"}
    lgpl = (ROOT / "LICENSE").read_text()
    gpl = (ROOT / "COPYING").read_text()
    assert lgpl.split("\n", 2)[:2] == ["                   GNU LESSER GENERAL PUBLIC LICENSE",
                                       "                       Version 3, 29 June 2007"]
    assert "6. Revised Versions of the GNU Lesser General Public License." in lgpl
    assert gpl.split("\n", 2)[:2] == ["                    GNU GENERAL PUBLIC LICENSE",
                                      "                       Version 3, 29 June 2007"]
    assert "END OF TERMS AND CONDITIONS" in gpl and "How to Apply These Terms" in gpl

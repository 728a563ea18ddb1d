"""The package's layering, read from its source (every ``import`` statement, parsed with ast).

* The model layer (``phmech/assembly``) does not import the solvers: the solvers ask a
  model for its residual and Jacobian (compiled or not), never the reverse.
* No import cycle at import time between the package's modules.
* No cycle between its subpackages and top-level modules, counting the imports inside
  functions as well (a deferred import hides a cycle from the interpreter, not from the
  design).  The package's front module (``phmech/__init__.py``, which re-exports
  everything) is left out of this graph.
"""
import ast
import os
from collections import defaultdict

import phmech

PACKAGE = os.path.dirname(os.path.abspath(phmech.__file__))


def _modules():
    """``{dotted name: path}`` of every module of the package."""
    found = {}
    root = os.path.dirname(PACKAGE)
    for folder, dirs, files in os.walk(PACKAGE):
        dirs[:] = [d for d in dirs if not d.startswith((".", "__"))]
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                name = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
                found[name[:-len(".__init__")] if name.endswith(".__init__") else name] = path
    return found


MODULES = _modules()


def _targets(module, node, is_package):
    """The package's modules an import statement of ``module`` loads (the deepest that exist)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = module.split(".")[:len(module.split(".")) - node.level + (1 if is_package else 0)]
            stem = ".".join(base + ([node.module] if node.module else []))
        else:
            stem = node.module or ""
        names = [f"{stem}.{a.name}" if f"{stem}.{a.name}" in MODULES else stem for a in node.names]
    out = set()
    for name in names:
        while name not in MODULES and "." in name:
            name = name.rsplit(".", 1)[0]
        if name in MODULES and name != module and name.startswith("phmech"):
            out.add(name)
    return out


def _import_time(tree):
    """The import statements run when the module is imported (module level, also inside
    ``if``/``try`` blocks there), not those inside functions and classes."""
    todo, found = list(tree.body), []
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, (ast.If, ast.Try)):
            todo.extend(ast.iter_child_nodes(node))
        elif isinstance(node, (ast.ExceptHandler,)):
            todo.extend(node.body)
    return found


def _graphs():
    """``(import-time edges, all edges)``: ``{module: {(imported module, line)}}``."""
    now, every = defaultdict(set), defaultdict(set)
    for module, path in MODULES.items():
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), path)
        is_package = path.endswith("__init__.py")
        eager = {id(n) for n in _import_time(tree)}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(module, node, is_package):
                    every[module].add((target, node.lineno))
                    if id(node) in eager:
                        now[module].add((target, node.lineno))
    return now, every


NOW, EVERY = _graphs()


def _cycles(edges):
    """The strongly connected components with more than one node (Tarjan), sorted."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(tuple(sorted(comp)))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(comps)


def _unit(module):
    """The subpackage or top-level module ``module`` belongs to (``phmech.solvers``, ``phmech.result``)."""
    return ".".join(module.split(".")[:2])


def _unit_edges():
    """Edges between the units with every import (also inside functions), the front module left out;
    ``{(unit, unit): [(module, imported module, line)]}``."""
    why = defaultdict(list)
    for module, targets in EVERY.items():
        for target, line in targets:
            a, b = _unit(module), _unit(target)
            if a != b and "phmech" not in (a, b):
                why[a, b].append((module, target, line))
    return why


def _assembly_to_solvers():
    return sorted((m, t, line) for m, targets in EVERY.items() if _unit(m) == "phmech.assembly"
                  for t, line in targets if _unit(t) == "phmech.solvers")


def test_the_graph_is_read():
    """The parser finds the imports that are known to be there (a check of the test itself)."""
    assert "phmech.solvers.radau_kernels" in MODULES and "phmech.assembly.compiled" in MODULES
    assert "phmech.assembly.compiled" in {t for t, _ in NOW["phmech.solvers.radau_kernels"]}
    assert "phmech.solvers._newton" in {t for t, _ in NOW["phmech.solvers.radau"]} | {
        t for t, _ in NOW["phmech.solvers.radau_kernels"]}
    # an import inside a function counts in the full graph only
    deferred = {t for t, _ in EVERY["phmech.fem.beam"]} - {t for t, _ in NOW["phmech.fem.beam"]}
    assert "phmech.fem.beam_nonlinear" in deferred


def test_no_import_cycle_at_import_time():
    assert _cycles({m: {t for t, _ in targets} for m, targets in NOW.items()}) == []


def test_solver_iterations_live_in_solvers():
    """The compiled iterations are beside their solvers; the model offers no integrator."""
    assembly = {m for m in MODULES if _unit(m) == "phmech.assembly"}
    assert not {"phmech.assembly.compiled_midpoint", "phmech.assembly.compiled_radau",
                "phmech.assembly.compiled_genalpha", "phmech.assembly.warm"} & assembly
    from phmech.assembly.dae import DescriptorDAE
    assert not hasattr(DescriptorDAE, "compiled_stages")


def test_assembly_does_not_import_solvers():
    """No import of the solvers from assembly/, also inside functions (the linearization at
    rest is the solvers' :func:`phmech.solvers.eigen.linearize`, offered by the system as
    :meth:`phmech.system.System.linearize`)."""
    assert _assembly_to_solvers() == []


def test_no_cycle_between_subpackages():
    """The units form no cycle, counting every import (a cycle fails here, naming its imports)."""
    why = _unit_edges()
    edges = defaultdict(set)
    for a, b in why:
        edges[a].add(b)
    found = [{"units": comp, "imports": sorted(x for a in comp for b in comp for x in why.get((a, b), []))}
             for comp in _cycles(edges)]
    assert found == []


#: the parts from the bottom up: a part imports only parts on lower floors (every import,
#: also inside functions); a new part or top-level module is placed here
FLOORS = (("kernels",), ("_checks", "_stack", "_moved"), ("math",), ("bodies",), ("joints",), ("forces",),
          ("fem",), ("assembly",), ("io",), ("result",), ("solvers",), ("contact", "massspring", "reduce"),
          ("system",), ("mechanisms",), ("validation",), ("parallel", "study"), ("warm",), ("cli",), ("__main__",))


def test_every_part_has_a_floor():
    floor = {u for f in FLOORS for u in f}
    units = {_unit(m).split(".")[1] for m in MODULES if m != "phmech"}
    assert sorted(units - floor) == []


def test_no_arrow_runs_back_up():
    """Every import goes from a part to a part on a lower floor (the DESIGN layers)."""
    level = {f"phmech.{u}": k for k, f in enumerate(FLOORS) for u in f}
    up = sorted((a, b, x) for (a, b), why in _unit_edges().items()
                if a in level and b in level and level[b] >= level[a] for x in why)
    assert up == []


def test_no_circle_inside_a_folder():
    """The modules of one folder form no cycle, counting every import (also inside functions)."""
    edges = defaultdict(set)
    for m, targets in EVERY.items():
        for t, _ in targets:
            if m.rsplit(".", 1)[0] == t.rsplit(".", 1)[0] and m != t:
                edges[m].add(t)
    assert _cycles(edges) == []


def test_the_drawing_knows_no_body_type():
    """io/ draws through the bodies' picture protocol: it imports no body family (fem, massspring,
    contact) and reads no attribute to guess a body's kind."""
    io_imports = sorted((m, t) for m, targets in EVERY.items() if _unit(m) == "phmech.io"
                        for t, _ in targets if _unit(t) in ("phmech.fem", "phmech.massspring", "phmech.contact"))
    assert io_imports == []
    with open(os.path.join(PACKAGE, "io", "pictures.py"), encoding="utf-8") as fh:
        text = fh.read()
    assert "hasattr(body" not in text and "isinstance(body" not in text

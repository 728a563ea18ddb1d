"""The import paths of version 0.2 that moved to the layout of the parts, kept for one release.

``import phmech.loads`` (and every other old path of :data:`MOVED`) still works: it gives
the module at its new place, with a :class:`DeprecationWarning` naming that place.  The
README lists the same table.
"""
import importlib
import importlib.abc
import importlib.util
import sys
import warnings

#: old dotted path -> new dotted path
MOVED = {
    "phmech._jit": "phmech.kernels.jit",
    "phmech._kernel_loading": "phmech.kernels.loading",
    "phmech.kernel_families": "phmech.kernels.families",
    "phmech._sizes": "phmech.math.sizes",
    "phmech.problem": "phmech.solvers.problem",
    "phmech.checkpoint": "phmech.io.checkpoint",
    "phmech.provenance": "phmech.io.provenance",
    "phmech.vtk_output": "phmech.io.paraview",
    "phmech.html_viewer": "phmech.io.html_viewer",
    "phmech.animate": "phmech.io.animation",
    "phmech.pictures": "phmech.io.pictures",
    "phmech.forces_group": "phmech.forces.group",
    "phmech.forces_kernels": "phmech.forces.elements_kernels",
    "phmech.loads": "phmech.forces.loads",
    "phmech.loads_kernels": "phmech.forces.loads_kernels",
    "phmech.network_kernels": "phmech.massspring.kernels",
    "phmech.actuators": "phmech.forces.actuators",
}


class _Redirect(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path of :data:`MOVED` and loads the module of its new path in its place."""

    def find_spec(self, name, path=None, target=None):
        return importlib.util.spec_from_loader(name, self) if name in MOVED else None

    def create_module(self, spec):
        return None                      # a placeholder module; exec_module puts the real one in its place

    def exec_module(self, module):
        new = MOVED[module.__name__]
        warnings.warn(f"{module.__name__} moved to {new}; the old path is kept for one release",
                      DeprecationWarning, stacklevel=2)
        sys.modules[module.__name__] = importlib.import_module(new)


def install():
    """Put the redirect on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Redirect) for f in sys.meta_path):
        sys.meta_path.append(_Redirect())

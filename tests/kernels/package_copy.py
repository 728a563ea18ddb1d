"""A copy of the package's sources in another directory, with a module of test kernels added,
for the tests of the kernel cache in fresh processes."""
import os
import shutil
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def copy_package(where, name, source):
    """The package copied to ``where`` (sources only) with the module ``phmech.kernels.<name>``
    of text ``source``; returns ``where`` (the directory to put on ``PYTHONPATH``)."""
    shutil.copytree(os.path.join(ROOT, "phmech"), os.path.join(where, "phmech"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    with open(os.path.join(where, "phmech", "kernels", name + ".py"), "w") as fh:
        fh.write(textwrap.dedent(source))
    return where

"""The import paths of 0.2 that moved to the parts' layout still import, for one release."""
import importlib
import os
import sys
import warnings

import pytest

import phmech
from phmech._moved import MOVED

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(phmech.__file__))), "README.md")


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_gives_the_new_module_with_a_warning(old):
    new = MOVED[old]
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert module.__name__ == new and module.__spec__.name == new      # the real module, untouched


def test_from_import_of_an_old_path():
    sys.modules.pop("phmech.loads", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from phmech.loads import Gravity
    from phmech.forces.loads import Gravity as G
    assert Gravity is G


def test_no_old_path_is_a_file_and_the_readme_lists_every_one():
    root = os.path.dirname(phmech.__file__)
    with open(README, encoding="utf-8") as fh:
        text = fh.read()
    for old, new in MOVED.items():
        assert not os.path.exists(os.path.join(os.path.dirname(root), old.replace(".", os.sep) + ".py")), old
        assert importlib.util.find_spec(new) is not None, new
        assert f"| `{old}` | `{new}` |" in text, old

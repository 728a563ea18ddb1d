import importlib.util
import os

import sys

import pytest

# Firedrake hands sys.argv to PETSc on import; pytest's own options are not PETSc's.
sys.argv[1:] = []

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("OMP_NUM_THREADS", "1")

HAVE_FIREDRAKE = importlib.util.find_spec("firedrake") is not None
HAVE_ASSIMULO = importlib.util.find_spec("assimulo") is not None

needs_firedrake = pytest.mark.skipif(not HAVE_FIREDRAKE, reason="Firedrake is not installed")
needs_assimulo = pytest.mark.skipif(not HAVE_ASSIMULO, reason="assimulo is not installed")

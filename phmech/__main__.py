"""``python -m phmech``: the ``phmech`` command (:mod:`phmech.cli`)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())

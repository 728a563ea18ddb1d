"""Validation cases: each module has ``run(...) -> result`` and a command line.

Run one with ``python -m phmech.validation.<case> --help``.
"""

"""Peer measurements: phmech's benchmark mechanisms built in other multibody codes (optional dependencies)."""

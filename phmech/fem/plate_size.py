"""Size guard of the plates: their unknowns counted from the mesh before anything is assembled.

A plate's matrices grow with the number of unknowns of its mixed space,
which follows from the mesh's vertex, edge and cell counts and the
degree; on a fine mesh (a 1500 x 1500 square has 36 million unknowns at
degree 2) the assembly would take more memory than the machine has long
before it fails.  :func:`check` refuses a plate above a limit, with the
estimated size and memory, before the function spaces are built.  The
limit is the plate's ``max_dofs`` argument, else
``$PHMECH_PLATE_MAX_DOFS`` (a positive integer, ``inf`` for none), else
:data:`DEFAULT_MAX_DOFS`.

The counts of a :class:`~phmech.fem.mesh_recipe.MeshRecipe` of the
structured Firedrake squares and rectangles are known before the mesh
is built; other meshes are counted once built (still before any space
or matrix).  Quadrilateral cells are counted as two triangles each (an
upper bound).
"""
import os

import numpy as np

#: unknowns accepted by default (about 2 GB at :data:`BYTES_PER_DOF`)
DEFAULT_MAX_DOFS = 1_000_000
#: peak memory of a plate's assembly per unknown (Firedrake's matrices, their scipy copies and
#: the kept submatrices), measured with ``ru_maxrss`` on unit squares at degree 2: Kirchhoff
#: 1790, 1840, 1850 B for 17k, 66k, 263k unknowns; Mindlin 2100 B for 144k
BYTES_PER_DOF = 2000
ENV = "PHMECH_PLATE_MAX_DOFS"

_STRUCTURED = {"firedrake:RectangleMesh", "firedrake:SquareMesh", "firedrake:UnitSquareMesh",
               "firedrake:UnitRectangleMesh"}


def square_counts(nx, ny, diagonal="left", quadrilateral=False):
    """``(vertices, edges, triangles)`` of Firedrake's structured ``nx x ny`` rectangle mesh."""
    nx, ny = int(nx), int(ny)
    vertices = (nx + 1) * (ny + 1)
    if quadrilateral:
        triangles = 2 * nx * ny
    elif diagonal == "crossed":
        vertices += nx * ny
        triangles = 4 * nx * ny
    else:
        triangles = 2 * nx * ny
    return vertices, vertices + triangles - 1, triangles       # Euler: V - E + T = 1


def mesh_counts(mesh):
    """``(vertices, edges, triangles)`` of a built Firedrake mesh or of a recipe of a structured
    square; None where they are not known without building the mesh."""
    from .mesh_recipe import MeshRecipe

    if isinstance(mesh, MeshRecipe):
        if mesh.builder not in _STRUCTURED:
            return None
        args, kw = list(mesh.args), mesh.kwargs
        nx = args[0] if args else kw.get("nx")
        ny = args[1] if len(args) > 1 else kw.get("ny")
        if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1 for v in (nx, ny)):
            return None
        return square_counts(nx, ny, kw.get("diagonal", "left"), bool(kw.get("quadrilateral", False)))
    try:
        cells, vertices = mesh.num_cells(), mesh.num_vertices()
        edges = mesh.num_edges()
        name = mesh.ufl_cell().cellname
        quads = (name() if callable(name) else name) == "quadrilateral"
    except AttributeError:
        return None
    if quads:                                                 # each quadrilateral as two triangles
        return vertices, edges + cells, 2 * cells
    return vertices, edges, cells


def unknowns(kind, counts, degree, reduction=None):
    """Number of unknowns of the plate's mixed space (before boundary conditions remove some).

    Kirchhoff: CG_k and HHJ_{k-1}; Mindlin: CG_k, CG_k^2 rotations (with the
    cubic bubble for ``k = 2`` and the interpolated shear), DG moments and
    NED1_k shear (:func:`phmech.fem.plate_mindlin.mindlin_forms`).
    """
    V, E, T = counts
    k = int(degree)
    cg = V + (k - 1) * E + (k - 1) * (k - 2) // 2 * T
    if kind == "KirchhoffPlate":
        return cg + k * E + 3 * k * (k - 1) // 2 * T
    bubble = k == 2 and reduction in (None, "interpolation")
    m = 2 if bubble else k - 1
    rotations = 2 * (cg + (T if bubble else 0))
    moments = 3 * (m + 1) * (m + 2) // 2 * T
    shear = k * E + k * (k - 1) * T
    return cg + rotations + moments + shear


def limit(owner, max_dofs=None):
    """The limit of unknowns: ``max_dofs``, else ``$PHMECH_PLATE_MAX_DOFS``, else the default
    (``inf``: no limit)."""
    source = "max_dofs"
    if max_dofs is None:
        text = os.environ.get(ENV)
        if not text:
            return DEFAULT_MAX_DOFS
        source = f"${ENV}"
        try:
            max_dofs = float(text) if text.strip().lower() in ("inf", "infinity") else int(text)
        except ValueError:
            raise ValueError(f"plate '{owner}': {ENV} must be a positive integer or 'inf', got {text!r}") from None
    if max_dofs == float("inf"):
        return max_dofs
    if isinstance(max_dofs, (bool, np.bool_)) or not isinstance(max_dofs, (int, np.integer)) or max_dofs < 1:
        raise ValueError(f"plate '{owner}': {source} must be a positive integer (or inf), got {max_dofs!r}")
    return int(max_dofs)


def check(owner, kind, counts, degree, max_dofs, reduction=None, processes=1, scope="the mesh"):
    """Refuse a plate whose unknowns (per process, shared evenly by ``processes``) exceed
    ``max_dofs``: one error naming the plate, the mesh size (``scope``: which mesh or part of
    it), the unknowns, the estimated memory and how to raise the limit; returns the unknowns."""
    n = unknowns(kind, counts, degree, reduction)
    per = -(-n // max(int(processes), 1))
    if per <= max_dofs:
        return n
    where = f" ({per:,} per process on {processes})" if processes > 1 else ""
    raise ValueError(
        f"plate '{owner}': too large -- {scope} of {counts[2]:,} triangles and {counts[0]:,} vertices gives "
        f"{n:,} unknowns at degree {degree}{where}, above the limit of {max_dofs:,} (assembling it would take "
        f"about {per * BYTES_PER_DOF / 1e9:.1f} GB of memory); use a coarser mesh or a lower degree, or raise "
        f"the limit with max_dofs= or ${ENV}")

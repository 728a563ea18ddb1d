"""Write the gmsh meshes of the plate and solid cases into ``meshes/`` (see meshes/README.md).

* ``disc_l{0..3}.msh``: the unit disc, cells of about 0.4 / 2^level
  (level 0 by the frontal-Delaunay mesher, each further level by uniform
  splitting, the new boundary nodes placed on the circle);
  boundary tag 1 (``clamped``: the whole circle), surface tag 10.
* ``plate_4x28_l{0,1,2}.msh`` and ``plate_4x30_l{0,1,2}.msh``: the actuated
  cantilever, 0.04 m x 0.28 m (0.30 m), cells of about 1 cm / 2^level (the
  same splitting); boundary tags as Firedrake's RectangleMesh:
  1 ``x = 0`` (free), 2 ``x = 0.04`` (free), 3 ``y = 0`` (clamped),
  4 ``y = L`` (free tip); surface tag 10; the actuator stations
  (0.01, 0.25) and (0.03, 0.105) and the mirror (0.02, 0.28) are mesh
  vertices, physical points 101, 102 and 103.
* ``coupler_l{0,1,2}.msh``: the crank-slider's coupler as a solid, the round bar of
  diameter 6 mm and length 0.3 m along x (its axis the x axis), tetrahedra: the disc section
  (eight sectors, one triangle each) extruded in 10 * 2^level layers, each prism cut
  into three tetrahedra (structured, so the levels refine along the axis only); face tags
  1 ``x = 0`` (end A), 2 ``x = L`` (end B), 3 the mantle, 4 the interior section
  ``x = L / 2`` (midspan), volume tag 10.

Lengths in metres.  Run from the repository root::

    python scripts/make_meshes.py [--outdir meshes]
"""
import argparse
import math
import os

import gmsh

DISC_H0, DISC_LEVELS = 0.4, 4
PLATE_H0, PLATE_LEVELS, WIDTH = 0.01, 3, 0.04
LENGTHS = (0.28, 0.30)
COUPLER_RADIUS, COUPLER_LENGTH, COUPLER_LAYERS, COUPLER_LEVELS = 3e-3, 0.3, 10, 3
STATIONS = {101: ("actuator1", (0.01, 0.25)), 102: ("actuator2", (0.03, 0.105)), 103: ("mirror", (0.02, 0.28))}


def _write_levels(stem, levels, outdir):
    """Mesh (2D), then save level 0 and each uniform splitting; returns the paths."""
    gmsh.option.setNumber("Mesh.Algorithm", 6)
    gmsh.option.setNumber("Mesh.MshFileVersion", 4.1)
    gmsh.option.setNumber("Mesh.Binary", 0)
    gmsh.model.mesh.generate(2)
    paths = []
    for lv in range(levels):
        if lv:
            gmsh.model.mesh.refine()
        path = os.path.join(outdir, f"{stem}_l{lv}.msh")
        gmsh.write(path)
        paths.append(path)
    return paths


def disc(outdir, h0=DISC_H0, levels=DISC_LEVELS):
    """The unit disc, clamped boundary tag 1, surface tag 10."""
    gmsh.model.add("disc")
    geo = gmsh.model.geo
    c = geo.addPoint(0.0, 0.0, 0.0, h0)
    pts = [geo.addPoint(x, y, 0.0, h0) for x, y in ((1, 0), (0, 1), (-1, 0), (0, -1))]
    arcs = [geo.addCircleArc(pts[i], c, pts[(i + 1) % 4]) for i in range(4)]
    surf = geo.addPlaneSurface([geo.addCurveLoop(arcs)])
    geo.synchronize()
    gmsh.model.addPhysicalGroup(1, arcs, 1, name="clamped")
    gmsh.model.addPhysicalGroup(2, [surf], 10, name="plate")
    paths = _write_levels("disc", levels, outdir)
    gmsh.model.remove()
    return paths


def plate(outdir, length, h0=PLATE_H0, levels=PLATE_LEVELS, width=WIDTH):
    """The cantilever rectangle with the actuator and mirror stations as vertices."""
    gmsh.model.add(f"plate_{length}")
    geo = gmsh.model.geo
    corners = [geo.addPoint(x, y, 0.0, h0) for x, y in ((0, 0), (width, 0), (width, length), (0, length))]
    stations = {tag: geo.addPoint(x, y, 0.0, h0) for tag, (_, (x, y)) in STATIONS.items()}
    on_tip = [tag for tag, (_, (x, y)) in STATIONS.items() if abs(y - length) < 1e-12]
    bottom = geo.addLine(corners[0], corners[1])
    right = geo.addLine(corners[1], corners[2])
    if on_tip:                      # the mirror on the tip edge splits it
        m = stations[on_tip[0]]
        top = [geo.addLine(corners[2], m), geo.addLine(m, corners[3])]
    else:
        top = [geo.addLine(corners[2], corners[3])]
    left = geo.addLine(corners[3], corners[0])
    surf = geo.addPlaneSurface([geo.addCurveLoop([bottom, right, *top, left])])
    geo.synchronize()
    inner = [p for tag, p in stations.items() if tag not in on_tip]
    gmsh.model.mesh.embed(0, inner, 2, surf)
    gmsh.model.addPhysicalGroup(1, [left], 1, name="x0_free")
    gmsh.model.addPhysicalGroup(1, [right], 2, name="xb_free")
    gmsh.model.addPhysicalGroup(1, [bottom], 3, name="clamped")
    gmsh.model.addPhysicalGroup(1, top, 4, name="tip_free")
    gmsh.model.addPhysicalGroup(2, [surf], 10, name="plate")
    for tag, (name, _) in STATIONS.items():
        gmsh.model.addPhysicalGroup(0, [stations[tag]], tag, name=name)
    paths = _write_levels(f"plate_4x{round(100 * length)}", levels, outdir)
    gmsh.model.remove()
    return paths


def coupler(outdir, radius=COUPLER_RADIUS, length=COUPLER_LENGTH, layers=COUPLER_LAYERS,
            levels=COUPLER_LEVELS):
    """The round coupler bar, one file per level of ``layers * 2^level`` layers (module docstring).

    The section is eight sectors of the disc, each one triangle (its two radii and its arc of one
    segment each), extruded along x in two halves so that the midspan section is a surface."""
    paths = []
    for lv in range(levels):
        n = layers * 2 ** lv
        gmsh.model.add(f"coupler_{lv}")
        geo = gmsh.model.geo
        c = geo.addPoint(0.0, 0.0, 0.0, radius)
        angles = [k * 2 * math.pi / 8 for k in range(8)]
        rim = [geo.addPoint(0.0, radius * math.cos(a), radius * math.sin(a), radius) for a in angles]
        spokes = [geo.addLine(c, p) for p in rim]
        arcs = [geo.addCircleArc(rim[k], c, rim[(k + 1) % 8]) for k in range(8)]
        for curve in spokes + arcs:
            geo.mesh.setTransfiniteCurve(curve, 2)
        sectors = [geo.addPlaneSurface([geo.addCurveLoop([spokes[k], arcs[k], -spokes[(k + 1) % 8]])])
                   for k in range(8)]
        first = geo.extrude([(2, s) for s in sectors], length / 2, 0.0, 0.0, numElements=[n // 2], recombine=False)
        middle = [first[5 * k][1] for k in range(8)]
        second = geo.extrude([(2, s) for s in middle], length / 2, 0.0, 0.0, numElements=[n // 2], recombine=False)
        geo.synchronize()
        ends = [second[5 * k][1] for k in range(8)]
        volumes = [first[5 * k + 1][1] for k in range(8)] + [second[5 * k + 1][1] for k in range(8)]
        lateral = [t for out in (first, second) for k in range(8) for d, t in out[5 * k + 2:5 * k + 5]]
        mantle = []
        for t in sorted(set(lateral)):                   # the faces that do not reach the axis
            _, y0, z0, _, y1, z1 = gmsh.model.getBoundingBox(2, t)
            if not (y0 <= 1e-12 * radius and y1 >= -1e-12 * radius and z0 <= 1e-12 * radius
                    and z1 >= -1e-12 * radius):
                mantle.append(t)
        gmsh.model.addPhysicalGroup(2, sectors, 1, name="end_A")
        gmsh.model.addPhysicalGroup(2, ends, 2, name="end_B")
        gmsh.model.addPhysicalGroup(2, mantle, 3, name="mantle")
        gmsh.model.addPhysicalGroup(2, middle, 4, name="midspan")
        gmsh.model.addPhysicalGroup(3, volumes, 10, name="coupler")
        gmsh.option.setNumber("Mesh.MshFileVersion", 4.1)
        gmsh.option.setNumber("Mesh.Binary", 0)
        gmsh.model.mesh.generate(3)
        path = os.path.join(outdir, f"coupler_l{lv}.msh")
        gmsh.write(path)
        paths.append(path)
        gmsh.model.remove()
    return paths


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--outdir", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                    "meshes"))
    args = p.parse_args(argv)
    os.makedirs(args.outdir, exist_ok=True)
    gmsh.initialize(["gmsh", "-v", "2"])
    try:
        paths = disc(args.outdir)
        for L in LENGTHS:
            paths += plate(args.outdir, L)
        paths += coupler(args.outdir)
    finally:
        gmsh.finalize()
    for path in paths:
        print(f"{path}: {os.path.getsize(path) / 1024:.0f} kB")


if __name__ == "__main__":
    main()

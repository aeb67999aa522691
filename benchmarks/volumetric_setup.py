#!/usr/bin/env python3
"""What the volumetric wall's setup costs on the vehicle bodies: the geometry and the kernels'
tables (solver/volumetric_wall.py) for the Ahmed body (25 degrees) and the parametric car at
given cells per body length, in a box 3 cells larger than the body on every side.

    python benchmarks/volumetric_setup.py [--cells 64 128] [--bodies ahmed car] [--projected]

Prints, per body and resolution: the wall time and peak memory of build_volumetric_wall, the
elements (cut cells), the cells that do not pull plainly, the gather and scatter entries, the
solid volume against the mesh's (exact to rounding for a closed mesh), and the volume of the
prisms that fell in cells without fluid (where the surface is concave: the Ahmed body's stilts
under its floor). --projected adds what the projected wall's tables cost
(solver/volumetric_projected.py: the surfels' solid moments per cut cell and their turned
pieces, summed per slot, link and source), or why it refuses the surface. Ends with one JSON
line.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shapes.ahmed import AhmedBody  # noqa: E402
from shapes.car import CarParameters, car_mesh  # noqa: E402
from shapes.mesh import TriangleMesh  # noqa: E402
from solver.errors import ConfigError  # noqa: E402
from solver.volumetric_projected import build_projected_wall  # noqa: E402
from solver.volumetric_wall import build_volumetric_wall  # noqa: E402

MARGIN_CELLS = 3


def body_mesh(name: str) -> TriangleMesh:
    return AhmedBody().mesh() if name == "ahmed" else car_mesh(CarParameters())


def measure_projected(triangles: np.ndarray, shape_zyx: tuple[int, int, int]) -> dict:
    """The projected wall's tables (solver/volumetric_projected.py): their time, the slots and
    the turned rows summed per (slot, link, source); or why the wall refuses the surface."""
    t0 = time.perf_counter()
    try:
        wall = build_projected_wall(triangles, shape_zyx, np.zeros(3, bool))
    except ConfigError as exc:
        return {"projected_refused": str(exc)}
    return {
        "projected_s": round(time.perf_counter() - t0, 1),
        "projected_slots": len(wall.slot_cell),
        "turned_rows": len(wall.turn_source),
        "stray_volume": wall.stray_volume,
        "peak_rss_gb_after_projected": round(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 2
        ),
    }


def measure(name: str, cells: int, projected: bool = False) -> dict:
    mesh = body_mesh(name)
    lo, hi = mesh.vertices_m.min(axis=0), mesh.vertices_m.max(axis=0)
    dx = (hi[0] - lo[0]) / cells
    origin = lo - MARGIN_CELLS * dx
    shape_zyx = tuple(int(v) for v in np.ceil((hi - origin) / dx + MARGIN_CELLS)[::-1])
    triangles = ((mesh.vertices_m - origin) / dx)[mesh.faces]
    t0 = time.perf_counter()
    wall = build_volumetric_wall(triangles, shape_zyx, np.zeros(3, bool))
    seconds = time.perf_counter() - t0
    a, b, c = triangles[:, 0], triangles[:, 1], triangles[:, 2]
    mesh_volume = np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6
    solid = wall.volume.size - wall.volume.sum()
    peak_gb = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 2)
    extra = measure_projected(triangles, shape_zyx) if projected else {}
    return extra | {
        "body": name,
        "cells_per_length": cells,
        "box": list(shape_zyx[::-1]),
        "seconds": round(seconds, 1),
        "peak_rss_gb": peak_gb,
        "elements": len(wall.element_cell),
        "slots": len(wall.slot_cell),
        "gather_entries": len(wall.gather_q),
        "scatter_entries": len(wall.scatter_q),
        "solid_over_mesh_volume": float(solid / mesh_volume),
        "solid_parcel_volume": wall.solid_parcel_volume,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cells", nargs="+", type=int, default=[64, 128])
    ap.add_argument("--bodies", nargs="+", default=["ahmed", "car"])
    ap.add_argument("--projected", action="store_true", help="also the projected wall's geometry")
    args = ap.parse_args()
    bad = [b for b in args.bodies if b not in ("ahmed", "car")]
    if bad or min(args.cells) < 8:
        print("volumetric_setup: --bodies takes ahmed and car, --cells at least 8", file=sys.stderr)
        raise SystemExit(2)
    print(f"{platform.processor() or platform.machine()}")
    rows = []
    for name in args.bodies:
        for cells in args.cells:
            r = measure(name, cells, args.projected)
            rows.append(r)
            print(
                f"{name} at {cells} cells per length (box {r['box']}): {r['seconds']} s, peak"
                f" {r['peak_rss_gb']} GB; {r['elements']} elements, {r['slots']} slots,"
                f" {r['gather_entries']} gather and {r['scatter_entries']} scatter entries;"
                f" solid / mesh volume {r['solid_over_mesh_volume']:.12f}; prisms in solid"
                f" cells {r['solid_parcel_volume']:.3g} cells^3"
            )
            if args.projected and "projected_refused" in r:
                print(f"  projected: refused, {r['projected_refused']}")
            elif args.projected:
                print(
                    f"  projected: {r['projected_s']} s, {r['projected_slots']} slots,"
                    f" {r['turned_rows']} turned rows, stray {r['stray_volume']:.3g} cells^3,"
                    f" peak {r['peak_rss_gb_after_projected']} GB"
                )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()

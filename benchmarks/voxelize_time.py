#!/usr/bin/env python3
"""Time to put a 50,000-triangle car on a 256 x 128 x 128 grid: inside/outside for every cell,
the body's neighbour cells, and the wall fraction of every link into the body.

    python benchmarks/voxelize_time.py [--backend auto|cpu|cuda] [--stations 250]

The mesh is the baseline parametric car (shapes/car.py) with 250 sections of 100 points
(50,000 triangles), 150 cells long (dx = 3 cm). Prints each stage's seconds beside the 10 s
budget and ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shapes.car import CarParameters, car_mesh  # noqa: E402
from solver.backends import select_backend  # noqa: E402
from solver.grid import body_neighbour_index  # noqa: E402
from solver.lattice import BODY, SOLID  # noqa: E402
from solver.voxelize import CellCentres, inside_mask, link_fractions  # noqa: E402

BUDGET_S = 10.0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", default="auto", choices=("auto", "cpu", "cuda"))
    p.add_argument("--stations", type=int, default=250, help="car sections (200 triangles each)")
    args = p.parse_args()
    backend = select_backend(args.backend)
    dx = 0.03
    car = car_mesh(CarParameters(), stations=args.stations, n_arc=14, n_side=11)
    mesh = car.transformed(offset_m=np.array([1.5, 128 * dx / 2, 0.0]))
    grid = CellCentres((128, 128, 256), (0.5 * dx, 0.5 * dx, 0.5 * dx), dx)
    timings = {}
    t0 = time.perf_counter()
    inside = inside_mask(backend, mesh.vertices_m, mesh.faces, grid).astype(bool)
    backend.synchronize()
    timings["inside"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    flags = np.where(inside, SOLID | BODY, 0).astype(np.uint8)
    slot = body_neighbour_index(flags)
    timings["neighbours"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    q, missing = link_fractions(backend, mesh.vertices_m, mesh.faces, grid, slot, inside)
    backend.synchronize()
    timings["wall_fractions"] = time.perf_counter() - t0
    total = sum(timings.values())
    print(f"device: {backend.describe()}")
    print(
        f"mesh: {len(mesh.faces)} triangles; grid 256 x 128 x 128 = {256 * 128 * 128:,} cells; "
        f"{int(inside.sum()):,} inside, {int(slot.max()) + 1:,} neighbour cells, "
        f"{int((q > 0).sum()):,} links into the body ({missing} without a crossing)"
    )
    for stage, seconds in timings.items():
        print(f"  {stage:15s} {seconds:7.3f} s")
    print(
        f"  {'total':15s} {total:7.3f} s   (budget {BUDGET_S:.0f} s: "
        f"{'met' if total < BUDGET_S else 'MISSED'})"
    )
    print(
        json.dumps(
            {
                "backend": backend.describe(),
                "triangles": len(mesh.faces),
                "cells": 256 * 128 * 128,
                "seconds": timings,
                "total_s": total,
                "budget_s": BUDGET_S,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Which fluid cells of a case take the boundary cells' general pull, and what they lie next to:

    python benchmarks/boundary_cells.py cases/car.yaml resolution.cells_per_length=64

Prints the grid, its fluid cells, the fluid cells that take the general pull now (those that are
not bulk cells: next to the body or within two links of it, whose slots report forces), those
that took it before the walls were filled before the step (solver/wall_fill.py: these and the
cells next to a free-slip, moving or no-slip wall), and how many of those lie next to the body,
the moving road, a free-slip wall, a no-slip wall that is not the body (a cell may touch several).
Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shapes.case_geometry import CASE_SCHEMA, case_mesh  # noqa: E402
from solver import lattice  # noqa: E402
from solver.backends import select_backend  # noqa: E402
from solver.config import load_case  # noqa: E402
from solver.simulation import Simulation  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("case", help="case YAML")
    p.add_argument("overrides", nargs="*", help="key=value overrides")
    args = p.parse_args()
    case = load_case(args.case, args.overrides, schema=CASE_SCHEMA)
    sim = Simulation(case, select_backend("cpu"), case_mesh(case))
    flags = sim.flags_host
    types = flags & lattice.TYPE_MASK
    fluid = types == lattice.FLUID
    kinds = {
        "body": (flags & lattice.BODY) != 0,
        "moving road": types == lattice.MOVING,
        "free-slip wall": types == lattice.FREESLIP,
        "other no-slip wall": (types == lattice.SOLID) & ((flags & lattice.BODY) == 0),
    }
    touches = {name: np.zeros_like(fluid) for name in kinds}
    for cx, cy, cz in lattice.C[1:]:
        for name, mask in kinds.items():
            touches[name] |= np.roll(mask, shift=(int(cz), int(cy), int(cx)), axis=(0, 1, 2))
    pull_now = fluid & ((flags & lattice.BULK) == 0)
    filled = touches["free-slip wall"] | touches["moving road"] | touches["other no-slip wall"]
    pull_before = pull_now | (fluid & filled)
    counts = {
        "cells": int(flags.size),
        "fluid": int(fluid.sum()),
        "general_pull_now": int(pull_now.sum()),
        "general_pull_before_the_fills": int(pull_before.sum()),
        "of_those_next_to": {name: int((pull_before & m).sum()) for name, m in touches.items()},
    }
    nz, ny, nx = flags.shape
    print(f"grid {nx} x {ny} x {nz}: {counts['cells']} cells, {counts['fluid']} fluid")
    before = counts["general_pull_before_the_fills"]
    print(f"fluid cells taking the general pull now: {counts['general_pull_now']}")
    print(f"before the walls were filled: {before} ({before / counts['cells']:.2%} of the cells)")
    for name, n in counts["of_those_next_to"].items():
        print(f"  of those next to {name}: {n} ({n / max(before, 1):.0%})")
    print(json.dumps({"benchmark": "boundary_cells", "case": args.case, **counts}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

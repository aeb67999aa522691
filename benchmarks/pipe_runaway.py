#!/usr/bin/env python3
"""Where a pipe run runs away: cases/pipe.yaml stepped in blocks, printing after each the bulk
velocity and the fastest fluid cell (lattice units), its radius over R, its angle round the bore
and its slot; stops when that speed passes 0.5 or the steps run out. Ends with one JSON line.

    python benchmarks/pipe_runaway.py [--block 250] [--steps 5000] [key=value ...]

e.g. `resolution.cells_per_length=30` (15 cells per radius, where the surface rule runs away by
step 5,000; docs/validation.md, "Turbulent pipe through a mesh wall").
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
from solver.backends import select_backend  # noqa: E402
from solver.config import load_case  # noqa: E402
from solver.errors import SlipstreamError  # noqa: E402
from solver.simulation import Simulation  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--block", type=int, default=250, help="steps between reports")
    p.add_argument("--steps", type=int, default=5000, help="steps at most")
    args, overrides = p.parse_known_args()
    try:
        case = load_case(ROOT / "cases" / "pipe.yaml", overrides, schema=CASE_SCHEMA)
        sim = Simulation(case, select_backend("cpu"), case_mesh(case))
    except SlipstreamError as exc:
        print(f"pipe_runaway: {exc}", file=sys.stderr)
        return 2
    fluid = sim.fluid_mask
    slot = sim.slot_host.reshape(fluid.shape)
    pipe, dx = case.geometry.pipe, sim.units.dx_m
    radius = pipe.radius_m / dx
    z, y = np.meshgrid(sim.grid.centers(2) / dx, sim.grid.centers(1) / dx, indexing="ij")
    dy, dz = y - pipe.center_y_m / dx, z - pipe.center_z_m / dx
    rows = []
    for step in range(args.block, args.steps + 1, args.block):
        sim.advance(args.block)
        u = sim.fields().velocity
        speed = np.where(fluid, np.sqrt((u**2).sum(axis=0)), 0.0)
        k = np.unravel_index(np.argmax(speed), speed.shape)
        row = {
            "step": step,
            "u_bulk": float(u[0][fluid].mean()),
            "max_speed": float(speed[k]),
            "cell_zyx": [int(i) for i in k],
            "r_over_R": float(np.hypot(dy, dz)[k[:2]] / radius),
            "angle_deg": float(np.degrees(np.arctan2(dz, dy)[k[:2]])),
            "slot": int(slot[k]),
        }
        rows.append(row)
        print(
            f"step {step}: U_b {row['u_bulk']:.4f}, fastest {row['max_speed']:.3f} at z, y, x "
            f"{tuple(row['cell_zyx'])}, r/R {row['r_over_R']:.3f}, {row['angle_deg']:.0f} deg, "
            f"slot {row['slot']}",
            flush=True,
        )
        if not np.isfinite(row["max_speed"]) or row["max_speed"] > 0.5:
            break
    print(json.dumps({"benchmark": "pipe_runaway", "overrides": overrides, "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""An experiment, not part of the solver: watch the projected wall's slopes for growth.

Runs a mesh case (default the Ahmed body without stilts) under `body.bounce_back=projected` on
the CPU on one grid, and every --every steps prints the largest slope magnitude over the slots
(1/cell, populations shifted by w_q), the fluid volume and speed of the slot that holds it, the
median over the slots and the largest speed anywhere. A slope mode that grows shows as the
largest slope rising step after step at one slot; docs/solver.md, "The projected volumetric
wall", reads it for the slopes' relaxation rules.

    python docs/experiments/projected_slopes_watch.py [--steps 4000] [--every 100]
        [--case cases/ahmed_faces.yaml] [key=value ...]

Stops early where the largest slope passes 10 or the speed 0.3 (lattice units). Ends with one
JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from shapes.case_geometry import CASE_SCHEMA, case_mesh  # noqa: E402
from solver.backends import select_backend  # noqa: E402
from solver.config import load_case  # noqa: E402
from solver.errors import SlipstreamError  # noqa: E402
from solver.simulation import Simulation  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", default=str(ROOT / "cases" / "ahmed_faces.yaml"))
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--every", type=int, default=100)
    ap.add_argument("overrides", nargs="*")
    args = ap.parse_args()
    if args.every <= 0 or args.steps < args.every:
        print(
            "projected_slopes_watch: --every must be positive and at most --steps", file=sys.stderr
        )
        raise SystemExit(2)
    overrides = ["geometry.ahmed.stilts=false", "refinement.levels=[]", *args.overrides]
    try:
        case = load_case(args.case, [*overrides, "body.bounce_back=projected"], schema=CASE_SCHEMA)
        sim = Simulation(case, select_backend("cpu"), case_mesh(case))
    except SlipstreamError as exc:
        print(f"projected_slopes_watch: {exc}", file=sys.stderr)
        raise SystemExit(2) from exc
    slots = sim.projected_wall.slot_cell
    volume = sim.volumetric_wall.volume.ravel()
    rows = []
    for step in range(args.every, args.steps + 1, args.every):
        sim.advance(args.every)
        slope = np.abs(sim.wall_slopes().reshape(-1, 19, 3)).max(axis=(1, 2))
        speed = np.sqrt((sim.fields().velocity ** 2).sum(axis=0)).ravel()
        at = int(slope.argmax())
        row = {
            "step": step,
            "largest_slope": float(slope[at]),
            "its_volume": float(volume[slots[at]]),
            "its_speed": float(speed[slots[at]]),
            "median_slope": float(np.median(slope)),
            "largest_speed": float(speed.max()),
        }
        rows.append(row)
        print(
            f"step {step}: largest slope {row['largest_slope']:.3g} (a slot of fluid "
            f"{row['its_volume']:.3f}, speed {row['its_speed']:.3f}), median "
            f"{row['median_slope']:.3g}, largest speed {row['largest_speed']:.3f}",
            flush=True,
        )
        if not np.isfinite(slope[at]) or slope[at] > 10 or speed.max() > 0.3:
            break
    print(json.dumps(rows))


if __name__ == "__main__":
    main()

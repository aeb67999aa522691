#!/usr/bin/env python3
"""Where a run runs away: the fastest fluid cell every `--every` steps, with its slot's wall record.

    python docs/experiments/fastest_cells.py CASE.yaml STEPS [--every 100] [key=value ...]

Steps the case (one grid; refinement levels are refused) on the CPU and prints, every `--every`
steps, the fastest fluid cell's speed over the free stream U, its cell (z, y, x), its slot and
the slot's wall record (solver/wall_geometry.py: normal, distance, area, edge; none for a cell
with no slot), and how many fluid cells run faster than 2 U. docs/validation.md, "The links'
exchange pinned to the law", reads it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from shapes.case_geometry import CASE_SCHEMA  # noqa: E402
from slipstream.model import simulation  # noqa: E402
from solver.config import load_case  # noqa: E402
from solver.errors import ConfigError  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("case", help="case YAML")
    p.add_argument("steps", type=int, help="steps to run")
    p.add_argument("overrides", nargs="*", help="key=value overrides")
    p.add_argument("--every", type=int, default=100, help="steps between reports")
    args = p.parse_args()
    try:
        case = load_case(args.case, args.overrides, schema=CASE_SCHEMA)
        if case.refinement.levels:
            raise ConfigError("refinement.levels: this probe steps one grid; give no levels")
        sim = simulation(case, "cpu")
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    u_free = sim.units.u_lattice
    wall = np.asarray(sim.params["slot_wall"])
    done = 0
    while done < args.steps:
        n = min(args.every, args.steps - done)
        sim.advance(n)
        done += n
        speed = np.linalg.norm(np.asarray(sim.fields().velocity), axis=0)
        speed = np.where(sim.fluid_mask, speed, 0.0)
        cell = np.unravel_index(int(np.argmax(speed)), speed.shape)
        slot = int(sim.slot_host[cell])
        record = np.array2string(wall[slot], precision=3) if slot >= 0 else "none"
        print(
            f"step {done}: fastest {speed[cell] / u_free:.2f} U at (z, y, x) "
            f"{tuple(int(i) for i in cell)}, slot {slot}, wall {record}; "
            f"{int((speed > 2 * u_free).sum())} cells over 2 U",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

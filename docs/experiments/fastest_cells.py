#!/usr/bin/env python3
"""Where a run runs away: the fastest fluid cell every `--every` steps, with its slot's wall record.

    python docs/experiments/fastest_cells.py CASE.yaml STEPS [--every 100] [key=value ...]

Steps the case on the CPU and prints, every `--every` finest-level steps and for each grid
(the tunnel and each refinement level, coarsest first), the fastest fluid cell's speed over the
free stream U, its cell (z, y, x) in that grid's array, its slot and the slot's wall record
(solver/wall_geometry.py: normal, distance, area, edge; none for a cell with no slot), and how
many fluid cells run faster than 2 U. `--every` is rounded up to a whole coarse step of a
refined case. docs/validation.md, "The links' exchange pinned to the law", reads it.
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
from solver.refined_simulation import RefinedSimulation  # noqa: E402
from solver.simulation import Simulation  # noqa: E402


def fastest_cell(level: Simulation, u_free: float) -> str:
    """The fastest fluid cell of one grid, its slot's wall record and the count over 2 U."""
    speed = np.linalg.norm(np.asarray(level.fields().velocity), axis=0)
    speed = np.where(level.fluid_mask, speed, 0.0)
    cell = np.unravel_index(int(np.argmax(speed)), speed.shape)
    slot = int(level.slot_host[cell])
    wall = np.asarray(level.params["slot_wall"])
    record = np.array2string(wall[slot], precision=3) if slot >= 0 else "none"
    return (
        f"fastest {speed[cell] / u_free:.2f} U at (z, y, x) {tuple(int(i) for i in cell)}, "
        f"slot {slot}, wall {record}; {int((speed > 2 * u_free).sum())} cells over 2 U"
    )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("case", help="case YAML")
    p.add_argument("steps", type=int, help="steps to run")
    p.add_argument("overrides", nargs="*", help="key=value overrides")
    p.add_argument("--every", type=int, default=100, help="steps between reports")
    args = p.parse_intermixed_args()
    try:
        case = load_case(args.case, args.overrides, schema=CASE_SCHEMA)
        if args.steps < 1 or args.every < 1:
            raise ConfigError("steps and --every: give positive step counts")
        sim = simulation(case, "cpu")
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    levels = sim.levels if isinstance(sim, RefinedSimulation) else [sim]
    per = sim.steps_per_coarse_step if isinstance(sim, RefinedSimulation) else 1
    every = -(-args.every // per) * per
    u_free = sim.units.u_lattice
    done = 0
    while done < args.steps:
        n = min(every, -(-(args.steps - done) // per) * per)
        sim.advance(n)
        done += n
        for k, level in enumerate(levels):
            print(f"step {done} level {k}: {fastest_cell(level, u_free)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""What the surface rule's pooling (walls.pool_cells > 0, cuda/lbm_wall_pool.cuh) moves between
the wall cells: per slot, what its own links did to the cell in a step beyond the modelled stress
(the tangential momentum they took, the mass they brought: the residuals the kernel writes to
pool_residual) and what the pool then did to it (sum_j W_ij r_j, solver/wall_pool.py: that
momentum given to the cell, that mass taken from it), averaged over a window of steps, with the
cell's mean velocity over the same steps. Both as changes to the fluid cell.

    python benchmarks/pool_balance.py CASE.yaml [--steps 4000] [--window 300] [key=value ...]

For a case this prints the column of wall cells nearest the inlet on the body's centre plane (y
through the middle of the slots; on the Ahmed body the cells in front of its flat front face),
bottom to top: height, the mass its links and the pool add to the cell per step, and the same for
the momentum along x (over U); ends with one JSON line.
benchmarks/staircase_slip.py --pool-balance uses the same sums by distance from its walls.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shapes.case_geometry import CASE_SCHEMA, case_mesh  # noqa: E402
from solver.backends import select_backend  # noqa: E402
from solver.cli_logging import configure_logging  # noqa: E402
from solver.config import load_case  # noqa: E402
from solver.errors import ConfigError  # noqa: E402
from solver.simulation import Simulation  # noqa: E402


@dataclass(frozen=True)
class PoolBalance:
    """Means over a window of steps, per slot, as changes to the slot's fluid cell per step
    (lattice units): links [n, 4], the momentum x, y, z its body links took from it beyond the
    modelled stress (negated: -r_j) and the mass they brought; pool [n, 4], the momentum the pool
    gave it and the mass it took (sum_j W_ij r_j, negated for the mass); velocity [n, 3] of the
    cell."""

    links: np.ndarray
    pool: np.ndarray
    velocity: np.ndarray


def pool_balance(sim: Simulation, steps: int, accumulate_slot_forces: bool = False) -> PoolBalance:
    """Advance sim by steps one at a time (summing the slots' forces if asked, as
    Simulation.advance) and average what the links and the pool did to each slot's cell."""
    values = sim.params.values
    if not values["n_pool_slots"]:
        raise ConfigError("key 'walls.pool_cells': the pool balance needs pooling (> 0) on")
    to_host = sim.backend.to_host
    start = to_host(values["pool_start"]).astype(np.int64)
    source = to_host(values["pool_slot"]).astype(np.int64)
    weight = to_host(values["pool_weight"]).astype(np.float64)
    cell = to_host(values["slot_cell"])
    row = np.repeat(np.arange(len(start) - 1), np.diff(start))
    to_cell = np.array([-1.0, -1.0, -1.0, 1.0])  # the body's gain of momentum, the cell's of mass
    links = np.zeros((len(cell), 4))
    pool = np.zeros_like(links)
    velocity = np.zeros((len(cell), 3))
    for _ in range(steps):
        sim.advance(1, accumulate_slot_forces=accumulate_slot_forces)
        r = to_host(values["pool_residual"]).reshape(-1, 4).astype(np.float64)
        links += r * to_cell
        pool -= to_cell * np.stack(
            [np.bincount(row, weight * r[source, k], len(cell)) for k in range(4)], axis=1
        )
        velocity += sim.fields().velocity.reshape(3, -1)[:, cell].T
    return PoolBalance(links / steps, pool / steps, velocity / steps)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("case", help="a case YAML")
    p.add_argument("--steps", type=int, default=4000, help="steps in all")
    p.add_argument("--window", type=int, default=300, help="the last steps, averaged")
    args, overrides = p.parse_known_args()
    configure_logging()
    try:
        case = load_case(Path(args.case), overrides, schema=CASE_SCHEMA)
        if not 0 < args.window <= args.steps:
            raise ConfigError(f"--window {args.window}: give 0 < window <= --steps {args.steps}")
        sim = Simulation(case, select_backend("cpu"), case_mesh(case))
        sim.advance(args.steps - args.window)
        balance = pool_balance(sim, args.window)
    except ConfigError as exc:
        print(f"pool_balance: {exc}", file=sys.stderr)
        return 2
    to_host = sim.backend.to_host
    cell = to_host(sim.params.values["slot_cell"])
    linked = np.nonzero(to_host(sim.params.values["slot_wall"])[:, 4] > 0)[0]
    z, y, x = np.unravel_index(cell, sim.grid.shape_zyx)
    mid_y = int(np.median(y[linked]))
    on_plane = linked[y[linked] == mid_y]
    front_x = int(x[on_plane].min())
    column = on_plane[x[on_plane] == front_x]
    column = column[np.argsort(z[column])]
    u_ref = sim.units.u_lattice
    print(
        f"{args.case} {' '.join(overrides)}: steps {args.steps - args.window}-{args.steps}, "
        f"the wall cells in front of the body on the plane y = {mid_y} (x = {front_x}); "
        "changes to each cell per step, momentum over U"
    )
    print("   z [m]   u_x/U   mass: links      pool   x momentum: links      pool")
    rows = []
    heights = sim.grid.centers(2)
    for k in column:
        row = {
            "z_m": float(heights[z[k]]),
            "u_x": float(balance.velocity[k, 0] / u_ref),
            "mass_links": float(balance.links[k, 3]),
            "mass_pool": float(balance.pool[k, 3]),
            "momentum_x_links": float(balance.links[k, 0] / u_ref),
            "momentum_x_pool": float(balance.pool[k, 0] / u_ref),
        }
        rows.append(row)
        print(
            f"{row['z_m']:8.3f}  {row['u_x']:6.3f}  {row['mass_links']:+11.2e} "
            f"{row['mass_pool']:+9.2e}  {row['momentum_x_links']:+17.2e} "
            f"{row['momentum_x_pool']:+9.2e}"
        )
    print(
        json.dumps(
            {
                "benchmark": "pool_balance",
                "case": args.case,
                "overrides": overrides,
                "steps": args.steps,
                "window": args.window,
                "column": rows,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

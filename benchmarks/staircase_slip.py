#!/usr/bin/env python3
"""Does a uniform flow stay uniform along a staircased plane wall? The walls of
benchmarks/turned_channel.py (a periodic family of slabs, normal (0, A, B) / |(A, B)|), a short
periodic box in x, a flow at U started uniform and parallel to the walls, either along the steps
(x) or across them (along the walls in the y-z plane, (0, -B, A) / |(A, B)|), no driving force
and a viscosity so small (Re_h 2e10 with the defaults) that the modelled wall stress, u_tau^2
about 2e-4 U^2, slows the gap by under 1e-3 U over the run: the flow the first cells of a nose
or a roof see at a car's Reynolds number, without the curvature or the pressure gradient.

    python benchmarks/staircase_slip.py --turn A:B --across [--steps 2000] [--pool-balance]
                                        [key=value ...]

An aligned wall (0:1) is the reference: its first cells slow by the law of the wall alone. Turned,
a rule about the true surface should give the same layers, along the steps and across them.
Prints by cells from the nearer wall (along the mesh's normal) the mean velocity along the flow,
across it along the wall and along the normal (over U), the spread of the speed from cell to cell,
and the total pressure Cp_t = (p - p_0) / (rho U^2 / 2) + |u|^2 / U^2 (1 at the start); with
--pool-balance (walls.pool_cells > 0) also, by half cells from the wall, the wall cells' mean
speed along the flow and the momentum along it that their links and the pool give them a step,
over the last quarter of the steps (benchmarks/pool_balance.py); ends with one JSON line. Seconds
on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pool_balance import pool_balance  # noqa: E402

from shapes.turned_slabs import (  # noqa: E402
    CELLS_PER_H,
    OFFSET_S,
    box_cells,
    period_cells,
    staircase_case,
    wall_distance_cells,
    wall_slabs,
)
from solver.backends import select_backend  # noqa: E402
from solver.cli_logging import configure_logging  # noqa: E402
from solver.simulation import FORCE_FRICTION, FORCE_TOTAL, Simulation  # noqa: E402

LENGTH_CELLS = 4  # along x: the flow is uniform along the slabs' x
LAYERS = ((0, 1), (1, 2), (2, 3), (3, 4), (4, 6), (6, 10), (14, 18))  # cells from the nearer wall
WALL_BANDS = ((0.0, 0.5), (0.5, 1.0), (1.0, 1.5), (1.5, 2.0))  # the wall cells' distances [cells]


def uniform_start(sim: Simulation, direction: np.ndarray) -> None:
    """Every fluid cell at the equilibrium of density 1 and velocity U direction."""
    m = np.zeros((4, *sim.grid.shape_zyx), dtype=np.float32)
    m[0] = 1.0
    for k in range(3):
        m[1 + k] = sim.units.u_lattice * direction[k]
    sim.start_from(m)


def layers(sim: Simulation, a: int, b: int, axes: np.ndarray) -> list[dict]:
    """Per band of distance from the nearer wall: mean velocity / U along the three axes (flow,
    across it along the wall, normal into the gap as seen from the nearer wall), the speed's spread
    from cell to cell / U and the mean total pressure."""
    fields = sim.fields()
    u_ref = sim.units.u_lattice
    in_gap, dist = wall_distance_cells(a, b)
    _, ny, nz = box_cells(a, b)
    section_u = fields.velocity.mean(axis=3)  # [3, z, y]
    section_rho = fields.rho.mean(axis=2)
    norm = math.hypot(a, b)
    z, y = np.meshgrid(np.arange(nz) + 0.5, np.arange(ny) + 0.5, indexing="ij")
    from_lower = ((a * y + b * z - OFFSET_S) % period_cells(a, b)) / norm  # the gap's lower wall
    lower_side = from_lower < CELLS_PER_H
    rows = []
    for lo, hi in LAYERS:
        cells = in_gap & (dist >= lo) & (dist < hi)
        u = section_u[:, cells]  # [3, n]
        sign = np.where(lower_side[cells], 1.0, -1.0)
        along = axes[0] @ u / u_ref
        cross = axes[1] @ u / u_ref
        normal = sign * (axes[2] @ u) / u_ref
        cp = (section_rho[cells] - 1.0) / 3.0 / (0.5 * u_ref**2)
        cp_t = cp + np.sum(u**2, axis=0) / u_ref**2
        rows.append(
            {
                "cells": f"{lo}-{hi}",
                "n": int(cells.sum()),
                "along": float(along.mean()),
                "across": float(cross.mean()),
                "normal": float(normal.mean()),
                "speed_spread": float(np.sqrt(np.sum(u**2, axis=0)).std() / u_ref),
                "cp_t": float(cp_t.mean()),
                "cp_t_least": float(cp_t.min()),
            }
        )
    return rows


def wall_bands(sim: Simulation, a: int, b: int, flow: np.ndarray, steps: int) -> list[dict]:
    """Advance steps steps, summing the slots' forces; per band of the wall cells' distance from
    the nearer wall: how many, their mean speed along the flow / U, and the momentum along it their
    links and the pool gave them per step (1e-4 U, per unit density)."""
    balance = pool_balance(sim, steps, accumulate_slot_forces=True)
    cell = sim.backend.to_host(sim.params.values["slot_cell"])
    linked = sim.backend.to_host(sim.params.values["slot_wall"])[:, 4] > 0
    z, y, _ = np.unravel_index(cell, sim.grid.shape_zyx)
    _, dist = wall_distance_cells(a, b)
    distance = dist[z, y]
    u_ref = sim.units.u_lattice
    rows = []
    for lo, hi in WALL_BANDS:
        band = linked & (distance >= lo) & (distance < hi)
        rows.append(
            {
                "cells": f"{lo}-{hi}",
                "n": int(band.sum()),
                "along": float((balance.velocity[band] @ flow).mean() / u_ref)
                if band.any()
                else 0.0,
                "links_1e4": float((balance.links[band, :3] @ flow).mean() / u_ref * 1e4)
                if band.any()
                else 0.0,
                "pool_1e4": float((balance.pool[band, :3] @ flow).mean() / u_ref * 1e4)
                if band.any()
                else 0.0,
            }
        )
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--turn", default="1:2", help="A:B, the walls' normal (0, A, B)")
    p.add_argument("--across", action="store_true", help="the flow across the steps (else along x)")
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument(
        "--pool-balance",
        action="store_true",
        help="the wall cells' momentum from their links and from the pool (walls.pool_cells > 0)",
    )
    args, overrides = p.parse_known_args()
    configure_logging()
    a_text, _, b_text = args.turn.partition(":")
    if not (a_text.isdigit() and b_text.isdigit()) or int(b_text) == 0:
        print(
            f"staircase_slip: --turn {args.turn}: give A:B, integers, B > 0 (e.g. 1:2)",
            file=sys.stderr,
        )
        return 2
    a, b = int(a_text), int(b_text)
    case = staircase_case(a, b, LENGTH_CELLS, [f"run.max_steps={args.steps}", *overrides])
    backend = select_backend("cpu")
    sim = Simulation(case, backend, wall_slabs(a, b))
    norm = math.hypot(a, b)
    span = np.array([0.0, -b / norm, a / norm])
    normal = np.array([0.0, a / norm, b / norm])
    flow = span if args.across else np.array([1.0, 0.0, 0.0])
    other = np.array([1.0, 0.0, 0.0]) if args.across else span
    axes = np.array([flow, other, normal])
    uniform_start(sim, flow)
    t0 = time.perf_counter()
    window = args.steps // 4
    sim.advance(args.steps - window)
    if args.pool_balance:
        if not sim.params.values["n_pool_slots"]:
            print("staircase_slip: --pool-balance needs walls.pool_cells > 0", file=sys.stderr)
            return 2
        bands = wall_bands(sim, a, b, flow, window)
    else:
        sim.advance(window, accumulate_slot_forces=True)
    wall_s = time.perf_counter() - t0
    if not np.all(np.isfinite(sim.fields().velocity)):
        print(f"staircase_slip: the run diverged by step {args.steps} (NaN velocities)")
        return 1
    rows = layers(sim, a, b, axes)
    per_slot = sim.slot_force_sum()  # [slot, kind, axis], summed over the window
    exchange = float(per_slot[:, FORCE_TOTAL, :].sum(axis=0) @ flow)
    modelled = float(per_slot[:, FORCE_FRICTION, :].sum(axis=0) @ flow)
    direction = "across the steps" if args.across else "along the steps"
    print(
        f"walls turned {a}:{b} ({math.degrees(math.atan2(a, b)):.1f} deg), flow {direction}, "
        f"grid {sim.grid.nx} x {sim.grid.ny} x {sim.grid.nz}, {args.steps} steps, {wall_s:.1f} s"
    )
    ratio = f"ratio {exchange / modelled:.2f}" if modelled else "no modelled stress"
    print(
        f"the walls' take of the flow's momentum over the last {window} steps: links' exchange "
        f"{exchange:.4g}, the modelled stress {modelled:.4g} ({ratio})"
    )
    print(" cells      n   along  across  normal  spread   Cp_t  (least)")
    for r in rows:
        print(
            f"{r['cells']:>6s} {r['n']:6d}  {r['along']:6.3f}  {r['across']:+6.3f}  "
            f"{r['normal']:+6.3f}  {r['speed_spread']:6.3f}  {r['cp_t']:5.2f}  "
            f"({r['cp_t_least']:5.2f})"
        )
    if args.pool_balance:
        print(
            "wall cells by distance from the wall: speed along the flow, and the momentum along it"
        )
        print("that their links and the pool give them a step (1e-4 U)")
        print(" cells      n   along    links     pool")
        for r in bands:
            print(
                f"{r['cells']:>8s} {r['n']:5d}  {r['along']:6.3f}  {r['links_1e4']:+7.2f}  "
                f"{r['pool_1e4']:+7.2f}"
            )
    report = {
        "benchmark": "staircase_slip",
        "turn": [a, b],
        "across": args.across,
        "overrides": overrides,
        "steps": args.steps,
        "window_steps": window,
        "exchange_along_flow": exchange,
        "modelled_along_flow": modelled,
        "layers": rows,
        "wall_bands": bands if args.pool_balance else None,
        "wall_seconds": wall_s,
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())

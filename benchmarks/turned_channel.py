#!/usr/bin/env python3
"""The turbulent channel of cases/channel.yaml with its walls as a mesh body, turned about the
flow axis: does the wall model give the same skin friction whatever the walls' angle to the grid?

    python benchmarks/turned_channel.py --turn A:B [--out DIR] [--resume] [key=value ...]
    python benchmarks/turned_channel.py --turn A:B --watch 250 [key=value ...]

The walls' normal is (0, A, B) / |(A, B)| in the y-z plane: 0:1 lies along the grid, 1:6 is turned
by atan(1/6) = 9.5 degrees, 1:2 by atan(1/2) = 26.6, 1:1 by 45. Rational tangents keep the walls
periodic in y and z: the box is one period of a family of parallel slabs, each gap 2h of fluid
between slabs at least h/2 thick (the period along s = A y + B z, in cells, a multiple of A and
B), so the box is period / A by period / B cells across (0:1: pi h wide, like channel.yaml) and
2 pi h long (101 cells), 16 cells per half-height h = 1 m; the walls lie 0.3183 in s off the cell
centres. The case is channel.yaml's (Re_tau 1,000, C_s 0.16, the entropic collision, the wall
model reading the fourth cell) with the walls a mesh (interpolated bounce-back; walls.body_rule
surface, cases/pipe.yaml's, unless overridden), driven by the same gradient g = u_tau^2 / h, all
six faces periodic; 20 h/u_tau of transient and 20 averaged (128,000 steps), checkpointed every
16,000 in --out (--resume continues; on a finished run it reports again without stepping).

Cf = 2 (u_tau / U_b)^2 with u_tau = sqrt(g h) from the force balance (each gap's two walls carry
the body force on its fluid) and U_b the time-averaged flow rate over the true gaps' area, 2h / the
period of the section (the interpolated walls sit at the mesh, not at the voxels' faces; the fluid
cells' share of that area, voxel_over_true_area, 1 along the grid and 0.994 at 45 degrees, bounds
what the choice moves). Lee & Moser (2015) give 5.00e-3 at Re_tau 1,000 (U_b / u_tau 19.99).
Prints the mean velocity u+ by cells from the nearer wall beside the log law (the wall model's
input lies 3 cells out), and how much of the driving force the walls' links take and how much of
that the model imposes, over the cells within a quarter cell of the surface and the rest, and
the first cells' mean velocity across the flow at each wall of the gaps. Ends
with one JSON line. --watch N steps in blocks of N instead and prints the fastest cell after
each, until it passes 3 U (where a run runs away).
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

from shapes.case_geometry import CASE_SCHEMA  # noqa: E402
from shapes.turned_slabs import (  # noqa: E402
    CELLS_PER_H,
    DX_M,
    OFFSET_S,
    box_cells,
    period_cells,
    wall_distance_cells,
    wall_slabs,
)
from solver import lattice  # noqa: E402
from solver.backends import select_backend  # noqa: E402
from solver.cli_logging import configure_logging  # noqa: E402
from solver.config import CaseConfig, load_case  # noqa: E402
from solver.errors import CheckpointError  # noqa: E402
from solver.law_of_the_wall import KAPPA, B  # noqa: E402
from solver.run import Runner  # noqa: E402
from solver.simulation import FORCE_FRICTION, FORCE_TOTAL, Simulation  # noqa: E402

LEE_MOSER_CF = 5.00e-3
STEPS_PER_H_OVER_U_TAU = 3200  # dt = u_lattice dx / U = 0.1 (1/16 m) / 20 m/s


def channel_case(a: int, b: int, overrides: list[str]) -> CaseConfig:
    """channel.yaml's flow between the turned walls A:B (the module docstring), with overrides."""
    nx, ny, nz = box_cells(a, b)
    return load_case(
        ROOT / "cases" / "channel.yaml",
        [
            "flow.reynolds_tau=null",
            "flow.body_accel_m_s2=[1.0,0.0,0.0]",  # u_tau^2 / h, u_tau = 1 m/s
            f"domain.size_m=[{nx * DX_M},{ny * DX_M},{nz * DX_M}]",
            "domain.boundaries={x_min: periodic, x_max: periodic, y_min: periodic, "
            "y_max: periodic, z_min: periodic, z_max: periodic}",
            "body.shape=mesh",
            "walls.body_rule=surface",
            f"run.max_steps={40 * STEPS_PER_H_OVER_U_TAU}",
            f"run.average_from_step={20 * STEPS_PER_H_OVER_U_TAU}",
            f"run.average_steps={20 * STEPS_PER_H_OVER_U_TAU}",
            f"run.checkpoint_every={5 * STEPS_PER_H_OVER_U_TAU}",
            *overrides,
        ],
        schema=CASE_SCHEMA,
    )


def profile(a: int, b: int, u_x: np.ndarray, u_tau: float, nu: float) -> list[dict]:
    """The mean velocity u+ of the cells 0-1, 1-2, ... 7-8 cells from the nearer wall (u_x: the
    time-averaged x velocity [z, y, x], lattice units), beside the log law at their mean y+."""
    in_gap, dist = wall_distance_cells(a, b)
    u_section = u_x.mean(axis=2)
    rows = []
    for lo in range(8):
        cells = in_gap & (dist >= lo) & (dist < lo + 1)
        y_plus = float(dist[cells].mean()) * u_tau / nu
        rows.append(
            {
                "cells": f"{lo}-{lo + 1}",
                "y_plus": y_plus,
                "u_plus": float(u_section[cells].mean()) / u_tau,
                "log_law": math.log(y_plus) / KAPPA + B,
            }
        )
    return rows


def exchange_split(sim: Simulation, a: int, b: int, velocity: np.ndarray) -> dict:
    """Where the walls take the flow's x momentum, averaged over the window, as shares of the
    driving force on the fluid, over all the cells with links into the walls and over those
    whose centre lies within a quarter cell of the surface and the rest: the links' whole
    exchange (momentum exchange), the part the wall model imposes (its modelled tangential
    exchange, the reported friction), and the x part of the equilibrium exchange at the cells'
    time-averaged velocity (velocity [3, z, y, x], lattice units), sum over the body links of
    2 w_q (9/2 (c_q.u)^2 - 3/2 u^2) c_qx (the part of the no-slip exchange the surface rule leaves
    alone, docs/solver.md); and those cells' mean velocity / U along x, along the walls across
    the flow (0, -B, A) / |(A, B)|, and along the normal."""
    per_step = sim.slot_force_sum() / sim.slot_force_steps  # [slot, kind, axis], lattice units
    drive = sim.body_accel_lattice[0] * float(sim.fluid_mask.sum())
    fractions = np.asarray(sim.backend.to_host(sim.params["link_q"]))
    _, dist = wall_distance_cells(a, b)
    cells = np.argwhere(sim.slot_host >= 0)  # (z, y, x) in slot order
    u = velocity[:, cells[:, 0], cells[:, 1], cells[:, 2]].T  # [slot, 3]
    into, c, w = fractions > 0, lattice.C[1:].astype(float), lattice.W[1:]
    c_u = u @ c.T
    equilibrium_x = np.sum(
        into * 2 * w * (4.5 * c_u**2 - 1.5 * np.sum(u**2, 1)[:, None]) * c[:, 0], 1
    )
    norm = math.hypot(a, b)
    axes = np.array([[1.0, 0.0, 0.0], [0.0, -b / norm, a / norm], [0.0, a / norm, b / norm]])
    links, near = np.any(into, axis=1), dist[cells[:, 0], cells[:, 1]] < 0.25
    split = {}
    for name, chosen in (("all", links), ("near", links & near), ("rest", links & ~near)):
        split[name] = {
            "slots": int(chosen.sum()),
            "exchange": float(per_step[chosen, FORCE_TOTAL, 0].sum()) / drive,
            "modelled": float(per_step[chosen, FORCE_FRICTION, 0].sum()) / drive,
            "mean_flow_equilibrium": -float(equilibrium_x[chosen].sum()) / drive,
            "velocity_x_span_normal": (
                (axes @ u[chosen].mean(axis=0) / sim.units.u_lattice).tolist()
                if chosen.any()
                else None
            ),
        }
    return split


def drift_by_wall(a: int, b: int, velocity: np.ndarray, u_ref: float) -> dict:
    """The time-averaged velocity across the flow along the walls, (0, -B, A) / |(A, B)| . u / U,
    of the cells within 1.25 cells of each wall of the gaps (velocity [3, z, y, x])."""
    _, ny, nz = box_cells(a, b)
    norm = math.hypot(a, b)
    z, y = np.meshgrid(np.arange(nz) + 0.5, np.arange(ny) + 0.5, indexing="ij")
    across = ((a * y + b * z - OFFSET_S) % period_cells(a, b)) / norm
    section = velocity.mean(axis=3)
    span = (-b * section[1] + a * section[2]) / norm / u_ref
    gap = 2.0 * CELLS_PER_H
    lower, upper = across < 1.25, (across > gap - 1.25) & (across < gap)
    return {"lower": float(span[lower].mean()), "upper": float(span[upper].mean())}


def watch(sim: Simulation, a: int, b: int, block: int, steps: int) -> int:
    """Step sim in blocks, printing after each its bulk velocity and its fastest cell (speed / U,
    its distance from the surface, and, where it is next to a wall, its slot's normal, distance
    and body links with their wall fractions); stop when that speed passes 3 U."""
    _, dist = wall_distance_cells(a, b)
    wall = np.asarray(sim.backend.to_host(sim.params["slot_wall"]))
    fractions = np.asarray(sim.backend.to_host(sim.params["link_q"]))
    u_ref = sim.units.u_lattice
    while sim.step_count < steps:
        sim.advance(block)
        fields = sim.fields()
        speed = np.sqrt(np.sum(fields.velocity**2, axis=0))
        z, y, x = np.unravel_index(int(np.argmax(speed)), speed.shape)
        slot = int(sim.slot_host[z, y, x])
        where = "no slot"
        if slot >= 0 and wall[slot, 4] > 0:
            links = np.nonzero(fractions[slot])[0]
            where = (
                f"slot normal ({wall[slot, 1]:.2f}, {wall[slot, 2]:.2f}) in y-z, d "
                f"{wall[slot, 3]:.2f}, links {(links + 1).tolist()} at "
                f"{[round(float(v), 2) for v in fractions[slot, links]]}"
            )
        bulk = float(fields.velocity[0][sim.fluid_mask].mean()) / u_ref
        print(
            f"step {sim.step_count}: bulk {bulk:.3f} U, fastest {speed[z, y, x] / u_ref:.2f} U at "
            f"(x, y, z) = ({x}, {y}, {z}), {dist[z, y]:.2f} cells from the surface; {where}",
            flush=True,
        )
        if speed[z, y, x] > 3.0 * u_ref:
            break
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--turn", default="1:2", help="A:B, the walls' normal (0, A, B)")
    p.add_argument("--out", type=Path, default=None, help="checkpoints (default results/...)")
    p.add_argument("--resume", action="store_true", help="continue from the checkpoint in --out")
    p.add_argument(
        "--watch",
        type=int,
        default=0,
        metavar="N",
        help="no statistics: step in blocks of N, printing the fastest cell (a runaway)",
    )
    args, overrides = p.parse_known_args()
    configure_logging()
    a_text, _, b_text = args.turn.partition(":")
    if not (a_text.isdigit() and b_text.isdigit()):
        print(f"turned_channel: --turn {args.turn}: give A:B, integers (e.g. 1:2)", file=sys.stderr)
        return 2
    a, b = int(a_text), int(b_text)
    if b == 0:
        print(f"turned_channel: --turn {args.turn}: B must be positive (e.g. 1:2)", file=sys.stderr)
        return 2
    out = args.out or ROOT / "results" / f"bench_turned_channel_{a}_{b}"
    case = channel_case(a, b, overrides)
    backend = select_backend("cpu")
    sim = Simulation(case, backend, wall_slabs(a, b))
    if args.watch:
        return watch(sim, a, b, args.watch, case.run.max_steps)
    out.mkdir(parents=True, exist_ok=True)
    runner = Runner(sim, checkpoint_dir=out)
    if args.resume:
        try:
            runner.resume()
        except CheckpointError as exc:
            print(f"turned_channel: {exc}", file=sys.stderr)
            return 2
    t0 = time.perf_counter()
    result = runner.run()
    wall_s = time.perf_counter() - t0
    h_cells = float(CELLS_PER_H)
    u_tau = math.sqrt(sim.body_accel_lattice[0] * h_cells)
    gap_share = 2.0 * math.hypot(a, b) * CELLS_PER_H / period_cells(a, b)
    # a volumetric wall's cut cells hold their fluid volume (body.bounce_back=volumetric)
    volume = sim.volumetric_wall.volume if sim.volumetric_wall is not None else 1.0
    flow_rate = float((result.best_fields.velocity[0] * volume)[sim.fluid_mask].sum()) / sim.grid.nx
    u_bulk = flow_rate / (sim.grid.ny * sim.grid.nz * gap_share)
    voxel_area = (
        float(np.broadcast_to(volume, sim.fluid_mask.shape)[sim.fluid_mask].sum()) / sim.grid.nx
    )
    cf = 2.0 * (u_tau / u_bulk) ** 2
    nu = sim.units.nu_lattice
    rows = profile(a, b, result.best_fields.velocity[0], u_tau, nu)
    split = exchange_split(sim, a, b, result.best_fields.velocity)
    drift = drift_by_wall(a, b, result.best_fields.velocity, sim.units.u_lattice)
    report = {
        "benchmark": "turned_channel",
        "turn": [a, b],
        "angle_deg": math.degrees(math.atan2(a, b)),
        "overrides": overrides,
        "grid_xyz": [sim.grid.nx, sim.grid.ny, sim.grid.nz],
        "re_tau": u_tau * h_cells / nu,
        "u_bulk_over_u_tau": u_bulk / u_tau,
        "voxel_over_true_area": voxel_area / (sim.grid.ny * sim.grid.nz * gap_share),
        "cf": cf,
        "cf_lee_moser": LEE_MOSER_CF,
        "error": cf / LEE_MOSER_CF - 1,
        "profile": rows,
        "exchange_over_drive": split,
        "span_velocity_by_wall": drift,
        "steps": result.steps,
        "averaged_steps": result.averaged_steps,
        "wall_seconds": wall_s,
        "mlups": result.mlups,
        "backend": backend.describe(),
    }
    print(
        f"channel turned {a}:{b} ({report['angle_deg']:.1f} deg), "
        f"grid {sim.grid.nx} x {sim.grid.ny} x {sim.grid.nz}, "
        f"Re_tau {report['re_tau']:.0f}: U_b / u_tau {report['u_bulk_over_u_tau']:.2f}, "
        f"Cf {cf:.4e} against Lee & Moser's {LEE_MOSER_CF:.2e} ({100 * report['error']:+.1f}%); "
        f"{result.steps} steps, {result.averaged_steps} averaged, {wall_s:.0f} s"
    )
    print("cells from the wall   y+     u+   log law")
    for r in rows:
        print(f"{r['cells']:>8s} {r['y_plus']:12.0f}  {r['u_plus']:5.2f}  {r['log_law']:5.2f}")
    print(
        "x momentum the walls take / the driving force: exchange (modelled stress) [the mean "
        "flow's equilibrium part]; the cells' mean velocity / U along x, span, normal"
    )
    for name, v in split.items():
        velocity = v["velocity_x_span_normal"]
        print(
            f"  {name:5s} {v['slots']:6d} cells  {v['exchange']:6.3f} ({v['modelled']:6.3f}) "
            f"[{v['mean_flow_equilibrium']:6.3f}]  "
            + (" ".join(f"{x:6.3f}" for x in velocity) if velocity else "")
        )
    print(
        f"velocity across the flow along the walls / U, cells within 1.25 of each wall: lower "
        f"{drift['lower']:+.3f}, upper {drift['upper']:+.3f}"
    )
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""How much total pressure the cells next to a curved wall lose: a circular cylinder at
Re 10^6 (cases/cylinder_2d1.yaml's slab turned into a free stream: uniform inflow at 1 m/s,
free-slip side walls 8 diameters apart, the LES treatment of the vehicle cases), 3,000 steps with
the last 1,000 averaged, for each body rule of the wall model (walls.body_rule).

    python benchmarks/curved_wall_layers.py [--cells 40] [--rules faces surface] [--out DIR]
        [--first-layer] [key=value ...]

Over the front of the cylinder the flow is attached and, at this Reynolds number, the boundary
layer is far thinner than a cell (about 0.1 mm at 45 degrees against 2.5 mm cells at 40 per
diameter), so every fluid cell there should keep the free stream's total pressure,
Cp_t = Cp + |u|^2 / U^2 = 1. The table gives the mean Cp_t of the time-averaged fields by distance
from the surface (in cells) and by angle from the front stagnation point, and ends with one JSON
line. With --first-layer it also takes the first layer's cells between 20 and 60 degrees (both
halves) one by one: by distance from the surface and by how many of the cell's four face
neighbours in the slab's plane are body (two: a concave corner of the staircase), their speed
over that of the cell nearest the point 2.5 cells further out along the same radius, divided by
the same ratio in the potential flow round the cylinder, U (1 + R^2/r^2) |sin(theta)| (1 where
the cell keeps the outer flow's speed), and their Cp_t. docs/validation.md, "Why the forebody
drags: the flow leaves the roof behind the nose", reads it.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyvista as pv

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import run_case  # noqa: E402

CASE = str(ROOT / "cases" / "cylinder_2d1.yaml")
DIAMETER_M, CENTRE_M = 0.1, (0.4, 0.4)
ANGLES_DEG = range(0, 90, 15)
LAYERS_CELLS = (0, 1, 2, 3, 5)


def overrides(cells: int, rule: str) -> list[str]:
    """The high-Reynolds cylinder in a slab one cell thick at `cells` per diameter."""
    dz = DIAMETER_M / cells
    return [
        "flow.speed_m_s=1.0",
        "flow.nu_m2_s=1.0e-7",
        "flow.inlet_profile=uniform",
        f"domain.size_m=[1.6,0.8,{dz}]",
        "domain.boundaries.y_min=freeslip",
        "domain.boundaries.y_max=freeslip",
        "domain.sponge.length_m=0.3",
        "domain.sponge.tau_outlet=1.0",
        f"body.center_m=[{CENTRE_M[0]},{CENTRE_M[1]},{dz / 2}]",
        f"resolution.cells_per_length={cells}",
        "resolution.u_lattice=0.1",
        "resolution.smagorinsky_cs=0.16",
        f"walls.body_rule={rule}",
        "run.max_steps=3000",
        "run.average_from_step=2000",
        "run.average_steps=1000",
        "output.images=false",
    ]


@dataclass(frozen=True)
class SlabFields:
    """The slab's time-averaged fields in its plane [y, x]: velocity over U, Cp_t, the solid
    cells, each cell's distance from the surface (cells), radius (m) and angle from the front
    (degrees), and the cell centres (m)."""

    velocity: np.ndarray
    cp_total: np.ndarray
    solid: np.ndarray
    cells_out: np.ndarray
    radius: np.ndarray
    angle_deg: np.ndarray
    x: np.ndarray
    y: np.ndarray
    origin: tuple[float, float]
    dx: float


def slab_fields(out: Path) -> SlabFields:
    """Read a run's fields.vti (the free stream is 1 m/s, so velocity in m/s is over U)."""
    grid = pv.read(out / "fields.vti")
    nx, ny, nz = grid.dimensions
    data = grid.point_data
    velocity = np.asarray(data["velocity_mean"]).reshape(nz, ny, nx, 3)[0]
    cp_total = np.asarray(data["Cp_mean"]).reshape(nz, ny, nx)[0] + np.sum(velocity**2, axis=-1)
    (ox, oy, _), dx = grid.origin, grid.spacing[0]
    x, y = np.meshgrid(ox + np.arange(nx) * dx, oy + np.arange(ny) * dx)
    radius = np.hypot(x - CENTRE_M[0], y - CENTRE_M[1])
    return SlabFields(
        velocity=velocity,
        cp_total=cp_total,
        solid=np.asarray(data["solid"]).reshape(nz, ny, nx)[0] > 0.5,
        cells_out=(radius - DIAMETER_M / 2) / dx,
        radius=radius,
        angle_deg=np.degrees(np.arctan2(np.abs(y - CENTRE_M[1]), CENTRE_M[0] - x)),
        x=x,
        y=y,
        origin=(ox, oy),
        dx=dx,
    )


def layer_table(out: Path) -> tuple[dict, float]:
    """Mean Cp_t of the fluid cells by (cells from the surface, angle bin), and the run's Cd."""
    f = slab_fields(out)
    table = {}
    for layer in LAYERS_CELLS:
        for lo in ANGLES_DEG:
            cells = (
                ~f.solid
                & (f.angle_deg >= lo)
                & (f.angle_deg < lo + 15)
                & (f.cells_out >= layer)
                & (f.cells_out < layer + 1)
            )
            table[(layer, lo)] = float(f.cp_total[cells].mean()) if cells.any() else float("nan")
    cd = json.loads((out / "summary.json").read_text())["cd"]
    return table, cd


def first_layer_cells(out: Path) -> list[dict]:
    """The first layer's fluid cells between 20 and 60 degrees from the front, both halves: each
    cell's distance from the surface (cells), its body face neighbours in the slab's plane, its
    speed over that of the cell nearest the point 2.5 cells further out along its radius, divided
    by the same ratio in the potential flow round the cylinder, and its Cp_t."""
    f = slab_fields(out)
    speed = np.linalg.norm(f.velocity, axis=-1)
    solid, radius, x, y, dx = f.solid, f.radius, f.x, f.y, f.dx
    ox, oy = f.origin

    def body_neighbours(offsets):
        return sum(np.roll(solid, (a, b), axis=(0, 1)).astype(int) for a, b in offsets)

    faces = body_neighbours(((1, 0), (-1, 0), (0, 1), (0, -1)))
    # the potential flow's speed over U: (1 + R^2 / r^2) |sin(theta)| on the surface's normals
    potential = (1.0 + (DIAMETER_M / 2) ** 2 / radius**2) * np.abs(y - CENTRE_M[1]) / radius
    chosen = (~solid) & (f.cells_out >= 0) & (f.cells_out < 1)
    chosen &= (f.angle_deg >= 20) & (f.angle_deg < 60)
    rows = []
    for j, i in zip(*np.nonzero(chosen), strict=True):
        theta = np.arctan2(y[j, i] - CENTRE_M[1], x[j, i] - CENTRE_M[0])
        r_ref = radius[j, i] + 2.5 * dx
        i_ref = int(round((CENTRE_M[0] + r_ref * np.cos(theta) - ox) / dx))
        j_ref = int(round((CENTRE_M[1] + r_ref * np.sin(theta) - oy) / dx))
        rows.append(
            {
                "angle_deg": round(float(f.angle_deg[j, i]), 1),
                "cells_out": round(float(f.cells_out[j, i]), 2),
                "body_faces": int(faces[j, i]),
                "speed_ratio": round(
                    float(
                        speed[j, i]
                        / speed[j_ref, i_ref]
                        / (potential[j, i] / potential[j_ref, i_ref])
                    ),
                    3,
                ),
                "cp_total": round(float(f.cp_total[j, i]), 3),
            }
        )
    return sorted(rows, key=lambda r: r["angle_deg"])


def print_first_layer(rows: list[dict]) -> None:
    """Means of the first layer's cells by distance band and by body face neighbours."""
    print("first layer, 20-60 deg: cells by distance from the surface and by body faces")
    print("group                n   speed / 2.5 cells out (over potential flow's)   Cp_t")
    groups = [
        (f"{lo:.2f}-{hi:.2f} cells out", lambda r, lo=lo, hi=hi: lo <= r["cells_out"] < hi)
        for lo, hi in ((0.0, 0.33), (0.33, 0.66), (0.66, 1.0))
    ] + [(f"{k} body faces", lambda r, k=k: r["body_faces"] == k) for k in (0, 1, 2)]
    for name, test in groups:
        members = [r for r in rows if test(r)]
        if members:
            speed = np.mean([r["speed_ratio"] for r in members])
            cp_total = np.mean([r["cp_total"] for r in members])
            print(f"{name:18s} {len(members):3d}   {speed:.3f}{' ' * 36}{cp_total:5.2f}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cells", type=int, default=40, help="cells per diameter")
    p.add_argument(
        "--rules", nargs="+", default=["faces", "surface"], help="walls.body_rule values"
    )
    p.add_argument("--out", type=Path, default=ROOT / "results" / "bench_curved_wall_layers")
    p.add_argument(
        "--first-layer", action="store_true", help="the first layer's cells one by one (20-60 deg)"
    )
    args, extra = p.parse_known_args()
    result = {"cells_per_diameter": args.cells, "rules": {}}
    for rule in args.rules:
        out = args.out / f"{rule}_{args.cells}"
        if run_case.main([CASE, *overrides(args.cells, rule), *extra, "--out", str(out)]) != 0:
            print(f"curved_wall_layers: run_case.py failed for {out}", file=sys.stderr)
            return 2
        table, cd = layer_table(out)
        print(
            f"walls.body_rule={rule}, {args.cells} cells per diameter, Cd {cd:.3f}: mean Cp_t by "
            "cells from the surface (rows) and angle from the front [deg] (columns)"
        )
        print("cells   " + " ".join(f"{lo:2d}-{lo + 15:2d}" for lo in ANGLES_DEG))
        for layer in LAYERS_CELLS:
            print(
                f"{layer}-{layer + 1}     "
                + " ".join(f"{table[(layer, lo)]:5.2f}" for lo in ANGLES_DEG)
            )
        rows = first_layer_cells(out) if args.first_layer else []
        if rows:
            print_first_layer(rows)
        result["rules"][rule] = {
            **({"first_layer_cells": rows} if rows else {}),
            "cd": round(cd, 4),
            "first_layer_cp_total": {
                f"{lo}-{lo + 15}": round(table[(0, lo)], 3) for lo in ANGLES_DEG
            },
            "second_layer_cp_total": {
                f"{lo}-{lo + 15}": round(table[(1, lo)], 3) for lo in ANGLES_DEG
            },
        }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

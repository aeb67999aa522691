#!/usr/bin/env python3
"""Whether the flow over a body's roof is attached: the time-averaged u_x / U in the first cells
above the roof along a line at fixed y, from a finished run's fields (`output.fields=true` and an
averaging window). Prints a table (rows: height above the roof in cells, columns: x from the nose
in metres) and ends with one JSON line: the length of roof, from the nose's end, over which the
first fluid cell's mean u_x is negative (reversed flow), the mean u_x / U of the first three
cells over the front half of the roof, and the total pressure that the fluid cells next to the
nose keep: Cp_t = Cp + |u|^2 / U^2 of the time-averaged fields (1 in the free stream, and 1 along
an attached, inviscid flow round the nose), its mean and least value over the line's cells that
touch the body within --nose-m of the nose.

    python benchmarks/roof_profile.py RESULTS_DIR [--y-m 1.0] [--rows 4] [--every 3] [--nose-m 0.1]

The roof is the body's top (surface.vtp's largest z); the fields are the finest level's
(`fields_levelN.vti` of `fields.vtm`) or `fields.vti` on one grid. docs/validation.md, "Why the
forebody drags", uses it on the Ahmed body.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pyvista as pv
import yaml


def finest_fields(results: Path) -> pv.ImageData:
    """The finest level's fields of a run (the last of fields.vtm), or fields.vti on one grid."""
    levels = sorted(
        results.glob("fields_level*.vti"), key=lambda p: int(p.stem.removeprefix("fields_level"))
    )
    path = levels[-1] if levels else results / "fields.vti"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no fields; run the case with output.fields=true")
    return pv.read(path)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", type=Path, help="a run's results folder")
    p.add_argument(
        "--y-m",
        type=float,
        default=1.0,
        help="the line's y [m] (the Ahmed body's centre plane: 1.0)",
    )
    p.add_argument("--rows", type=int, default=4, help="cells above the roof to print")
    p.add_argument("--every", type=int, default=3, help="print every n-th column")
    p.add_argument(
        "--nose-m",
        type=float,
        default=0.1,
        help="the nose's length [m] (the Ahmed body's rounding: 0.1)",
    )
    args = p.parse_args()
    try:
        grid = finest_fields(args.results)
        surface = pv.read(args.results / "surface.vtp")
        config = yaml.safe_load((args.results / "config.yaml").read_text())
    except (FileNotFoundError, OSError) as exc:
        print(f"roof_profile: {exc}", file=sys.stderr)
        return 2
    speed = float(config["flow"]["speed_m_s"])
    nx, ny, nz = grid.dimensions
    data = grid.point_data
    if "velocity_mean" not in data:
        print(
            "roof_profile: the fields hold no time average (velocity_mean); "
            "run with an averaging window",
            file=sys.stderr,
        )
        return 2
    velocity = np.asarray(data["velocity_mean"]).reshape(nz, ny, nx, 3) / speed
    ux = velocity[..., 0]
    cp_total = np.asarray(data["Cp_mean"]).reshape(nz, ny, nx) + np.sum(velocity**2, axis=-1)
    solid = np.asarray(data["solid"]).reshape(nz, ny, nx) > 0.5
    (ox, oy, _), dx = grid.origin, grid.spacing[0]
    x_nose, x_tail = surface.points[:, 0].min(), surface.points[:, 0].max()
    j = int(round((args.y_m - oy) / dx))
    if not 0 <= j < ny:
        print(
            f"roof_profile: --y-m {args.y_m} lies outside the finest level's fields",
            file=sys.stderr,
        )
        return 2
    columns = [i for i in range(nx) if x_nose <= ox + i * dx <= x_tail]
    # the first fluid cell above the body in each column of the line
    first = {}
    for i in columns:
        body = np.nonzero(solid[:, j, i])[0]
        if body.size:
            first[i] = body.max() + 1
    if not first:
        print(f"roof_profile: the line y = {args.y_m} m meets no body cell", file=sys.stderr)
        return 2
    roof_k = np.bincount(list(first.values())).argmax()  # the roof's first fluid row
    roof = [i for i in columns if first.get(i) == roof_k]
    print(
        f"u_x / U above the roof at y = {oy + j * dx:.3f} m, dx {dx * 1000:.1f} mm, roof from x = "
        f"{ox + roof[0] * dx - x_nose:.3f} to {ox + roof[-1] * dx - x_nose:.3f} m after the nose"
    )
    print(
        "cells \\ x-x_nose [m] "
        + " ".join(f"{ox + i * dx - x_nose:6.3f}" for i in roof[:: args.every])
    )
    for r in range(args.rows - 1, -1, -1):
        print(
            f"{r + 1:20d} " + " ".join(f"{ux[roof_k + r, j, i]:6.2f}" for i in roof[:: args.every])
        )
    reversed_m = float(np.sum(ux[roof_k, j, roof] < 0.0) * dx)
    front = roof[: len(roof) // 2]
    front_mean = float(np.mean(ux[roof_k : roof_k + 3, j, front]))
    print(
        f"reversed flow in the first cell over {reversed_m:.3f} m of the roof; first three cells "
        f"over its front half: mean u_x / U {front_mean:.2f}"
    )
    # the line's fluid cells with a body cell above, below, ahead or behind them, at the nose
    line_solid = solid[:, j, :]
    touching = np.zeros_like(line_solid)
    touching[1:, :] |= line_solid[:-1, :]
    touching[:-1, :] |= line_solid[1:, :]
    touching[:, 1:] |= line_solid[:, :-1]
    touching[:, :-1] |= line_solid[:, 1:]
    x_cells = ox + np.arange(nx) * dx
    at_nose = touching & ~line_solid & (x_cells[None, :] <= x_nose + args.nose_m)
    nose_cpt = cp_total[:, j, :][at_nose]
    print(
        f"total pressure Cp_t of the {nose_cpt.size} fluid cells next to the nose (x - x_nose <= "
        f"{args.nose_m} m): mean {nose_cpt.mean():.2f}, least {nose_cpt.min():.2f} "
        "(1 for a flow that loses none)"
    )
    print(
        json.dumps(
            {
                "results": str(args.results),
                "y_m": args.y_m,
                "dx_m": dx,
                "roof_reversed_m": round(reversed_m, 4),
                "front_half_three_cells_ux": round(front_mean, 3),
                "nose_cells_cp_total_mean": round(float(nose_cpt.mean()), 3),
                "nose_cells_cp_total_min": round(float(nose_cpt.min()), 3),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

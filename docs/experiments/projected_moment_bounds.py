#!/usr/bin/env python3
"""An experiment, not part of the solver: which of the projected wall's maps carry slopes that
no piece of fluid could carry.

Builds a mesh case's tables under `body.bounce_back=projected` (on the level that holds the body)
and holds every keep map and turned row to the bounds Cauchy-Schwarz puts on a piece R of volume
a lying in its source's fluid and its destination's (S_s, S_x their second moments about their
centroids; the maps' layout in solver/volumetric_projected.py):

    slope to slope   || S_x^(1/2) B S_s^(-1/2) ||_2 <= 1        B = map[1:, 1:]
    slope to mean    f . S_s^-1 f <= a                          f = V_x map[0, 1:]

Exact pieces keep both to rounding; a map past them turns a slope into a larger one, or into a
mean, every step. Prints how many maps pass each bound by more than 1e-4, the quantiles, and the
--worst slots (centre [m], fluid volume V [cells^3], link, ratio). docs/solver.md, "The car
with wheels under the projected wall", reads it for the car with and without wheels.

    python docs/experiments/projected_moment_bounds.py [--case cases/car.yaml] [--worst 6]
        [key=value ...]

Ends with one JSON line.
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
from slipstream.model import simulation  # noqa: E402
from solver.config import load_case  # noqa: E402
from solver.lattice import C, Q  # noqa: E402
from solver.surfels import cut_into_cells  # noqa: E402
from solver.volumetric_geometry import mesh_on_grid  # noqa: E402
from solver.volumetric_moments import fluid_moments  # noqa: E402

ROUNDING = 1e-4


def roots(second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """S^(1/2) and the pseudo-inverse of S^(1/2) of symmetric matrices [n, 3, 3]."""
    value, vector = np.linalg.eigh(second)
    value = np.maximum(value, 0.0)
    inverse = np.divide(1.0, np.sqrt(value), out=np.zeros_like(value), where=value > 0)
    half = np.einsum("nij,nj,nkj->nik", vector, np.sqrt(value), vector)
    return half, np.einsum("nij,nj,nkj->nik", vector, inverse, vector)


def ratios(maps, volume_x, second_x, second_s) -> tuple[np.ndarray, np.ndarray]:
    """The slope-to-slope norm and the slope-to-mean ratio f . S_s^-1 f / a of maps [n, 4, 4]."""
    half_x, _ = roots(second_x)
    _, inverse_half_s = roots(second_s)
    block = np.einsum("nab,nbc,ncd->nad", half_x, maps[:, 1:, 1:], inverse_half_s)
    norm = np.linalg.norm(block, 2, axis=(1, 2))
    f = np.einsum("nab,nb->na", inverse_half_s, maps[:, 0, 1:] * volume_x[:, None])
    a = maps[:, 0, 0] * volume_x
    mass = np.divide(
        np.einsum("na,na->n", f, f), a, out=np.zeros_like(a), where=a > 1e-12 * volume_x
    )
    return norm, mass


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", default=str(ROOT / "cases" / "car.yaml"))
    ap.add_argument("--worst", type=int, default=6)
    args, overrides = ap.parse_known_args()
    case = load_case(args.case, [*overrides, "body.bounce_back=projected"], schema=CASE_SCHEMA)
    sim = simulation(case, "cpu").finest
    wall, grid = sim.projected_wall, sim.grid
    volume = wall.wall.volume.ravel()
    nz, ny, nx = grid.shape_zyx
    mesh = case_mesh(case)
    triangles, _ = mesh_on_grid(mesh.vertices_m, mesh.faces, grid)
    moments = fluid_moments(cut_into_cells(triangles, (nx, ny, nz)), grid.shape_zyx, volume)
    slot = wall.slot_cell
    z, y, x = np.unravel_index(slot, grid.shape_zyx)
    # keep maps: the source x - c_q, inside the grid (a wall's map carries no slope)
    source = np.stack(
        [
            np.clip(x - C[q, 0], 0, nx - 1)
            + nx * (np.clip(y - C[q, 1], 0, ny - 1) + ny * np.clip(z - C[q, 2], 0, nz - 1))
            for q in range(Q)
        ],
        axis=1,
    ).ravel()
    keep_norm, keep_mass = ratios(
        wall.keep_map.reshape(-1, 4, 4),
        np.repeat(volume[slot], Q),
        np.repeat(moments.second_of(slot), Q, axis=0),
        moments.second_of(source),
    )
    owner = np.repeat(np.arange(len(slot) * Q), np.diff(wall.turn_start))
    at = owner // Q
    turn_norm, turn_mass = ratios(
        wall.turn_map,
        volume[slot[at]],
        moments.second_of(slot[at]),
        moments.second_of(wall.turn_source),
    )
    out = {"overrides": overrides, "slots": len(slot), "turned_rows": len(wall.turn_map)}
    for name, values, where in (
        ("keep slope to slope", keep_norm, np.arange(len(keep_norm)) // Q),
        ("keep slope to mean", keep_mass, np.arange(len(keep_mass)) // Q),
        ("turned slope to slope", turn_norm, at),
        ("turned slope to mean", turn_mass, at),
    ):
        over = values > 1.0 + ROUNDING
        quantiles = np.quantile(values, [0.5, 0.999, 1.0]) if len(values) else np.zeros(3)
        print(
            f"{name}: {int(over.sum())} of {len(values)} over the bound; median "
            f"{quantiles[0]:.3g}, 99.9% {quantiles[1]:.3g}, largest {quantiles[2]:.3g}"
        )
        worst = []
        for i in np.argsort(values)[::-1][: args.worst if over.any() else 0]:
            cell = int(slot[where[i]])
            zyx = np.unravel_index(cell, grid.shape_zyx)
            centre = [round(float(grid.centers(a)[zyx[2 - a]]), 3) for a in range(3)]
            link = int(owner[i] % Q) if name.startswith("turned") else int(i % Q)
            worst.append(
                {
                    "centre_m": centre,
                    "volume": float(volume[cell]),
                    "link": link,
                    "ratio": float(values[i]),
                }
            )
            print(f"  at {centre} m: V {volume[cell]:.3g}, link {link}, ratio {values[i]:.3g}")
        out[name.replace(" ", "_")] = {
            "over": int(over.sum()),
            "largest": float(quantiles[2]),
            "worst": worst,
        }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""An experiment, not part of the solver: where the projected wall's tables change a fluid at rest.

Builds a mesh case's tables under `body.bounce_back=projected` with the rest guard lifted for this
run only (solver/volumetric_projected.py, `_rest_error`), on the level that holds the body, and
prints the overlap summary and the --worst slots whose moving links change most in one step of a
fluid at rest: each slot's centre [m], its fluid volume V [cells^3], the link, the share of the
link's source its keep map takes, and the volume that arrives, kept and turned, over V (exact
streaming: 1). A slot of tiny V that receives turned pieces shows as a large arrival there;
docs/solver.md, "The projected volumetric wall", reads it for the car at 128 cells.

    python docs/experiments/projected_rest_map.py [--case cases/car.yaml] [--worst 8]
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

import solver.volumetric_projected as projected  # noqa: E402
from shapes.case_geometry import CASE_SCHEMA  # noqa: E402
from slipstream.model import simulation  # noqa: E402
from solver.config import load_case  # noqa: E402
from solver.lattice import Q  # noqa: E402


def arriving_volume(wall: projected.ProjectedWall) -> np.ndarray:
    """[S, Q] the volume that arrives at each slot and link in a step of a fluid at rest, kept
    and turned, over the slot's fluid volume."""
    arriving = wall.keep_map[:, :, 0, 0].copy()
    owner = np.repeat(np.arange(len(wall.turn_start) - 1), np.diff(wall.turn_start))
    np.add.at(arriving, (owner // Q, owner % Q), wall.turn_map[:, 0, 0])
    return arriving


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", default=str(ROOT / "cases" / "car.yaml"))
    ap.add_argument("--worst", type=int, default=8)
    args, overrides = ap.parse_known_args()
    # this run only: the guard measures nothing, so the tables it would refuse are built
    projected._rest_error = lambda *_: (0.0, -1)
    case = load_case(args.case, [*overrides, "body.bounce_back=projected"], schema=CASE_SCHEMA)
    sim = simulation(case, "cpu").finest
    wall, grid = sim.projected_wall, sim.grid
    volume = wall.wall.volume.ravel()
    arriving = arriving_volume(wall)
    change = np.abs(arriving[:, 1:] - 1.0)
    worst = np.argsort(change.max(axis=1))[::-1][: args.worst]
    print(
        f"{len(wall.slot_cell)} slots; overlapping (cell, link) pairs {wall.overlap.links}, "
        f"volume taken off {wall.overlap.dropped_volume:.3g} cells^3, moved by the balance "
        f"{wall.overlap.balanced_volume:.3g} cells^3, stray {wall.stray_volume:.3g} cells^3, "
        f"largest change at rest {change.max(initial=0.0):.3g}"
    )
    rows = []
    for s in worst:
        cell = int(wall.slot_cell[s])
        zyx = np.unravel_index(cell, grid.shape_zyx)
        centre = [round(float(grid.centers(a)[zyx[2 - a]]), 3) for a in range(3)]
        q = int(np.argmax(change[s])) + 1
        row = {
            "centre_m": centre,
            "volume": float(volume[cell]),
            "link": q,
            "keep": float(wall.keep_map[s, q, 0, 0]),
            "arriving": float(arriving[s, q]),
        }
        rows.append(row)
        print(
            f"  slot at {centre} m: V {row['volume']:.3g}, link {q}, keep {row['keep']:.3f}, "
            f"arriving / V {row['arriving']:.4g}"
        )
    summary = {"overrides": overrides, "slots": len(wall.slot_cell)}
    summary |= {"balanced_volume": wall.overlap.balanced_volume, "worst": rows}
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())

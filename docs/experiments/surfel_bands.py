#!/usr/bin/env python3
"""An experiment's reading, not part of the solver: one part's pressure drag split into height
bands, from the surfels a run saved (`docs/experiments/volumetric_ahmed.py --surfels PATH`).

    python docs/experiments/surfel_bands.py RUN.npz [RUN.npz ...] [--part nose]
        [--edges-m 0.097 0.290]

Heights are measured from the body's lowest surfel (the car's underbody), the edges in metres;
each band's pressure Cd is given with its pushing (positive) and pulling (negative) sums and,
where the run saved areas, the mean pressure coefficient over the band's surfels that face
upstream (weighted by their frontal area), then the part's whole pressure and friction Cd and
the base's pressure Cd. The default edges are the
car's nose tip (shapes/car.py, `profile`): under 0.097 m the lower quarter ellipse (semi-axes
0.54 m along x and 0.097 m, so a 17 mm radius of curvature at the tip), to 0.290 m the flat
tip face, above it the upper quarter ellipse (0.54 and 0.354 m, 0.23 m at the tip). Ends with
one JSON line per file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np


def bands(path: Path, part: str, edges_m: list[float]) -> dict:
    """The part's pressure Cd by height band above the body's lowest surfel, as the module
    docstring says."""
    run = np.load(path)
    names = [str(n) for n in run["names"]]
    if part not in names:
        raise ValueError(f"{path} has no part {part!r} (parts: {', '.join(names)})")
    pick = run["part"] == names.index(part)
    height = run["centroid_m"][:, 2] - run["centroid_m"][:, 2].min()
    pressure = run["pressure_cd"]
    facing = run["area_m2"][:, 0] < 0 if "area_m2" in run else None
    limits = [-np.inf, *edges_m, np.inf]
    rows = []
    for lo, hi in zip(limits[:-1], limits[1:], strict=True):
        band = pick & (height >= lo) & (height < hi)
        row = {
            "from_m": None if np.isinf(lo) else lo,
            "to_m": None if np.isinf(hi) else hi,
            "pressure": round(float(pressure[band].sum()), 4),
            "pushing": round(float(pressure[band & (pressure > 0)].sum()), 4),
            "pulling": round(float(pressure[band & (pressure < 0)].sum()), 4),
        }
        if facing is not None:
            front = band & facing
            frontal_m2 = float(-run["area_m2"][front, 0].sum())
            row["frontal_m2"] = round(frontal_m2, 4)
            row["cp_facing"] = round(
                float(pressure[front].sum() * run["reference_area_m2"] / max(frontal_m2, 1e-12)), 3
            )
        rows.append(row)
    base = run["part"] == names.index("base") if "base" in names else np.zeros_like(pick)
    return {
        "file": path.name,
        "part": part,
        "pressure": round(float(pressure[pick].sum()), 4),
        "friction": round(float(run["friction_cd"][pick].sum()), 4),
        "bands": rows,
        "base_pressure": round(float(pressure[base].sum()), 4),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, nargs="+")
    parser.add_argument("--part", default="nose")
    parser.add_argument("--edges-m", type=float, nargs="*", default=[0.097, 0.290])
    args = parser.parse_args()
    for path in args.runs:
        try:
            record = bands(path, args.part, sorted(args.edges_m))
        except (OSError, KeyError, ValueError) as exc:
            print(
                f"error: {exc}; give an .npz that docs/experiments/volumetric_ahmed.py --surfels "
                "wrote",
                file=sys.stderr,
            )
            return 2
        print(
            f"{record['file']}: {args.part} pressure {record['pressure']:+.4f}, friction "
            f"{record['friction']:+.4f}; base pressure {record['base_pressure']:+.4f}"
        )
        for row in record["bands"]:
            lo = "" if row["from_m"] is None else f"{row['from_m']:.3f}"
            hi = "" if row["to_m"] is None else f"{row['to_m']:.3f}"
            facing = (
                f"; facing upstream {row['frontal_m2']:.3f} m^2 at mean Cp {row['cp_facing']:+.3f}"
                if "cp_facing" in row
                else ""
            )
            print(
                f"  {lo:>6s} - {hi:<6s} m: {row['pressure']:+.4f} "
                f"(pushing {row['pushing']:+.4f}, pulling {row['pulling']:+.4f}){facing}"
            )
        print(json.dumps(record))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

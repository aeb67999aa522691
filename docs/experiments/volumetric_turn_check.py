#!/usr/bin/env python3
"""A check, not part of the test suite (its polyhedral reference takes minutes): the solver's
geometry of the projected volumetric wall (`solver/volumetric_turn.py`, from the surfels by exact
quadrature) against the three-dimensional experiment's (`volumetric_routing_3d.py`, the same
pieces by clipping polyhedra), on the sphere of its Stokes array.

    python docs/experiments/volumetric_turn_check.py [--box 10]

Each (incoming link, source cell, destination cell) is summed over the surface's pieces on both
sides; prints how many appear on one side only and the largest difference of the volume, the
first and second moments about the source's centroid and the linear map's P and Q. Ends with one
JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

import volumetric_routing_3d as vr3  # noqa: E402
import volumetric_wall_3d as vw3  # noqa: E402

from solver.surfels import cut_into_cells  # noqa: E402
from solver.volumetric_turn import turned_pieces  # noqa: E402

FIELDS = (("volume", 1), ("first", 3), ("second", 9), ("P", 3), ("Q", 9))


def summed(q: np.ndarray, src: np.ndarray, dst: np.ndarray, values: np.ndarray, box: int) -> dict:
    key = np.concatenate([q[:, None], src % box, dst % box], axis=1)
    keys, where = np.unique(key, axis=0, return_inverse=True)
    out = np.zeros((len(keys), values.shape[1]))
    np.add.at(out, where.ravel(), values)
    return {tuple(k): v for k, v in zip(keys, out, strict=True)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--box", type=int, default=10)
    args = ap.parse_args()
    if args.box < 8:
        print("volumetric_turn_check: --box must be at least 8 cells", file=sys.stderr)
        raise SystemExit(2)
    box = args.box
    radius = box * (3 * 0.064 / (4 * np.pi)) ** (1 / 3)
    centre = np.array([box / 2 + 0.3, box / 2 + 0.1, box / 2 - 0.2])
    body = vw3.SphereBody((box, box, box), centre, radius)
    t0 = time.time()
    ref = vr3.Projected(body, tau=0.6)
    t_ref = time.time() - t0
    p_ref = np.einsum("pab,pb->pa", ref.r_flip, ref.r_first) + ref.r_area[:, None] * ref.r_shift
    q_ref = np.einsum("pab,pbc->pac", ref.r_flip, ref.r_second)
    q_ref += ref.r_shift[:, :, None] * ref.r_first[:, None, :]
    want = summed(
        ref.r_q,
        np.stack(ref.r_src, axis=1),
        np.stack(ref.r_dst, axis=1),
        np.concatenate(
            [
                ref.r_area[:, None],
                ref.r_first,
                ref.r_second.reshape(-1, 9),
                p_ref,
                q_ref.reshape(-1, 9),
            ],
            axis=1,
        ),
        box,
    )

    def offset(cells: np.ndarray) -> np.ndarray:
        return ref.offset[:, cells[:, 0] % box, cells[:, 1] % box, cells[:, 2] % box].T

    t0 = time.time()
    got_pieces = turned_pieces(cut_into_cells(body.triangles, (box, box, box)), offset)
    t_got = time.time() - t0
    g = got_pieces
    got = summed(
        g.q,
        g.source,
        g.destination,
        np.concatenate(
            [g.volume[:, None], g.first, g.second.reshape(-1, 9), g.p, g.q_map.reshape(-1, 9)],
            axis=1,
        ),
        box,
    )
    common = sorted(set(want) & set(got))
    diff = np.array([np.abs(want[k] - got[k]) for k in common])
    result = {
        "entries": len(common),
        "only_polyhedra": len(set(want) - set(got)),
        "only_surfels": len(set(got) - set(want)),
        "seconds_polyhedra": round(t_ref, 1),
        "seconds_surfels": round(t_got, 2),
    }
    start = 0
    for name, width in FIELDS:
        result[f"max_diff_{name}"] = float(diff[:, start : start + width].max())
        start += width
    for key, value in result.items():
        print(f"{key}: {value}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Float32 against the 16-bit population storages (resolution.storage), alternated: MLUPs of the
periodic box (BGK and the entropic LES operator of the vehicle cases) in fp32, fp16s and fp16c,
back to back, several rounds, each round with the copy bandwidth measured just before it, so the
machine's drifting bandwidth (a shared 2-vCPU machine moved 52-80 GB/s within an hour) falls on
both storages of a round alike.

    python benchmarks/storage_speed.py [--size 192] [--rounds 3] [--seconds 3]

Prints each round: bandwidth, the roofline of each storage (153 and 77 B per cell update), MLUPs
and each 16-bit storage's ratio to fp32 per operator; ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from lbm_mlups import (  # noqa: E402
    BYTES_PER_CELL,
    box_case,
    cpu_copy_bandwidth,
    les_box_case,
    time_simulation,
)

from solver.backends import select_backend  # noqa: E402

STORAGES = ("fp32", "fp16s", "fp16c")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=192, help="periodic box size [cells]")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=3.0, help="timed seconds per case")
    args = p.parse_args()
    backend = select_backend("cpu")
    print(f"device: {backend.describe()}; periodic box {args.size}^3")
    rounds = []
    for k in range(args.rounds):
        bandwidth = cpu_copy_bandwidth(1.0, backend)
        row: dict = {"bandwidth_gb_s": bandwidth / 1e9}
        for operator, make in (("bgk", box_case), ("entropic_les", les_box_case)):
            for storage in STORAGES if k % 2 == 0 else STORAGES[::-1]:
                mlups, _ = time_simulation(make(args.size), backend, args.seconds, storage=storage)
                row[f"{operator}_{storage}"] = mlups
            for storage in STORAGES[1:]:
                row[f"{operator}_{storage}_over_fp32"] = (
                    row[f"{operator}_{storage}"] / row[f"{operator}_fp32"]
                )
        rounds.append(row)
        roofline = {s: bandwidth / BYTES_PER_CELL[s] / 1e6 for s in ("fp32", "fp16s")}
        print(
            f"round {k + 1}: {bandwidth / 1e9:.1f} GB/s (roofline {roofline['fp32']:.0f} MLUPs at "
            f"153 B, {roofline['fp16s']:.0f} at 77 B)"
        )
        for op in ("bgk", "entropic_les"):
            print(
                f"  {op:13s} "
                + ", ".join(
                    f"{s} {row[f'{op}_{s}']:.1f}"
                    + ("" if s == "fp32" else f" (x{row[f'{op}_{s}_over_fp32']:.2f})")
                    for s in STORAGES
                )
                + " MLUPs"
            )
    print(json.dumps({"benchmark": "storage_speed", "size": args.size, "rounds": rounds}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

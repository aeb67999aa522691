#!/usr/bin/env python3
"""The collision's arithmetic alone: ns per cell update of a periodic 64 x 8 x 8 box (4,096 cells,
622 KB of populations: it stays in L2, so memory bandwidth does not enter), BGK and the entropic
LES operator of the vehicle cases, one thread; and the LES operator in a fluid nearly at rest
(velocities of 1e-6 of the box's speed), whose products of round-off-sized numbers fall into the
denormal range, where x86 arithmetic is slow unless the step flushes them
(cuda/host/lbm_host_shell.h).

    OMP_NUM_THREADS=1 python benchmarks/collision_cost.py [--repeats 3] [--seconds 1.5]
                                                          [--storage fp32|fp16s|fp16c]

Prints each repeat and the ratio of the best times; ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from lbm_mlups import box_case, les_box_case  # noqa: E402

from solver.backends import select_backend  # noqa: E402
from solver.config import merge_case  # noqa: E402
from solver.simulation import Simulation  # noqa: E402

N = 64


def ns_per_cell(case: dict, backend, seconds: float, storage: str = "fp32") -> float:
    case["domain"]["size_m"] = [1.0, 8 / N, 8 / N]
    sim = Simulation(merge_case(case, [f"resolution.storage={storage}"]), backend)
    sim.advance(20)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        sim.advance(50)
        steps += 50
    return (time.perf_counter() - t0) / (steps * sim.grid.n_cells) * 1e9


def at_rest_case(n: int) -> dict:
    """The LES box at rest, stirred by random velocities of 1e-6 of its speed."""
    case = les_box_case(n)
    case["flow"].update({"initial": "rest", "initial_perturbation": 1e-6})
    return case


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seconds", type=float, default=1.5)
    p.add_argument("--storage", default="fp32", choices=("fp32", "fp16s", "fp16c"))
    args = p.parse_args()
    backend = select_backend("cpu")
    cases = {"bgk": box_case, "entropic_les": les_box_case, "entropic_les_at_rest": at_rest_case}
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.repeats):
        for name, make in cases.items():
            times[name].append(ns_per_cell(make(N), backend, args.seconds, args.storage))
    threads = os.environ.get("OMP_NUM_THREADS", "all")
    print(
        f"device: {backend.describe()}; OMP_NUM_THREADS={threads}; "
        f"64 x 8 x 8 periodic box in cache; storage {args.storage}"
    )
    for name, values in times.items():
        print(f"{name:20s} ns per cell update: {' '.join(f'{v:.1f}' for v in values)}")
    ratio = min(times["entropic_les"]) / min(times["bgk"])
    print(f"entropic LES / BGK time (best of each): {ratio:.2f}")
    print(
        json.dumps(
            {
                "benchmark": "collision_cost",
                "threads": threads,
                "storage": args.storage,
                "ns_per_cell": times,
                "les_over_bgk_time": ratio,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

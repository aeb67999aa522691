#!/usr/bin/env python3
"""What the subgrid models cost: MLUPs of the wall-modelled channel (cases/channel.yaml) and the
car (cases/car.yaml at --car-cells per length) under each resolution.subgrid, in alternated
rounds of one sitting, on the CPU backend.

    python benchmarks/subgrid_cost.py [--rounds 3] [--seconds 3] [--car-cells 32]

Each round times every case under smagorinsky, wale and vreman, the models' order rotated from
round to round, so a drift of the machine falls on all three. Prints the machine's copy
bandwidth (the step's roofline, lbm_mlups.py), each timing, each model's ratio to Smagorinsky's
per round, and ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import lbm_mlups  # noqa: E402

from shapes.case_geometry import CASE_SCHEMA, case_mesh  # noqa: E402
from solver.backends import select_backend  # noqa: E402
from solver.config import load_case, merge_case  # noqa: E402

MODELS = ("smagorinsky", "wale", "vreman")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--car-cells", type=int, default=32)
    args = parser.parse_args()
    backend = select_backend("cpu")
    bandwidth = lbm_mlups.cpu_copy_bandwidth(2.0, backend)
    print(
        f"{platform.processor() or platform.machine()}: copy bandwidth {bandwidth / 1e9:.1f} GB/s"
    )
    channel = lbm_mlups.channel_case("loglaw")
    cars = {
        model: load_case(
            ROOT / "cases" / "car.yaml",
            [
                f"resolution.cells_per_length={args.car_cells}",
                "resolution.min_gap_cells=0",
                f"resolution.subgrid={model}",
            ],
            schema=CASE_SCHEMA,
        )
        for model in MODELS
    }
    mesh = case_mesh(cars["smagorinsky"])
    cases = {
        "channel": lambda model: (merge_case(channel, [f"resolution.subgrid={model}"]), None),
        f"car-{args.car_cells}": lambda model: (cars[model], mesh),
    }
    mlups: dict[str, dict[str, list[float]]] = {c: {m: [] for m in MODELS} for c in cases}
    for r in range(args.rounds):
        order = MODELS[r % 3 :] + MODELS[: r % 3]
        for name, make in cases.items():
            for model in order:
                case, body_mesh = make(model)
                value, _ = lbm_mlups.time_simulation(case, backend, args.seconds, body_mesh)
                mlups[name][model].append(value)
    for name, by_model in mlups.items():
        base = by_model["smagorinsky"]
        print(f"{name}: smagorinsky {', '.join(f'{v:.1f}' for v in base)} MLUPs")
        for model in MODELS[1:]:
            ratios = [v / b for v, b in zip(by_model[model], base, strict=True)]
            print(
                f"{name}: {model} {', '.join(f'{v:.1f}' for v in by_model[model])} MLUPs, "
                f"/ smagorinsky {min(ratios):.2f}-{max(ratios):.2f}"
            )
    print(
        json.dumps(
            {
                "benchmark": "subgrid_cost",
                "copy_bandwidth_gb_s": bandwidth / 1e9,
                "mlups": mlups,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Samples per hour of a dataset sweep on this machine, for several executor layouts, and where
the time went.

    python benchmarks/sweep_throughput.py [--sweep cases/sweep_demo.yaml] [--samples 8]
                                          [--layouts 2x1,1x2]

A layout WxT runs W samples at once with T OpenMP threads each (executor.workers,
executor.threads_per_worker). Each layout computes the sweep's first N samples into a fresh
folder. Beside each rate it prints the bound it is measured against: the rate if meshing,
voxelization, post-processing and writing took no time (W samples in parallel, each taking its
mean simulation time). Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_layout(sweep: Path, samples: int, workers: int, threads: int, folder: Path) -> dict:
    cmd = [
        sys.executable,
        str(ROOT / "generate_dataset.py"),
        str(sweep),
        f"sampler.n_samples={samples}",
        f"executor.workers={workers}",
        f"executor.threads_per_worker={threads}",
        "executor.backend=cpu",
        "--out",
        str(folder),
    ]
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    summary = json.loads((folder / "sweep_summary.json").read_text())
    stages = summary["stage_seconds"]
    total = sum(stages.values())
    simulate_each = stages["simulate"] / summary["computed_this_run"]
    return {
        "layout": f"{workers}x{threads}",
        "samples": summary["computed_this_run"],
        "failed": summary["failed"],
        "wall_s": summary["wall_s"],
        "samples_per_hour": summary["samples_per_hour"],
        "simulation_only_bound_per_hour": 3600.0 * workers / simulate_each,
        "stage_share": {k: v / total for k, v in stages.items()},
        "stage_seconds": stages,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sweep", default=str(ROOT / "cases" / "sweep_demo.yaml"))
    p.add_argument("--samples", type=int, default=8)
    p.add_argument("--layouts", default="2x1,1x2", help="comma-separated WORKERSxTHREADS")
    args = p.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for layout in args.layouts.split(","):
            workers, threads = (int(v) for v in layout.split("x"))
            results.append(
                run_layout(Path(args.sweep), args.samples, workers, threads, Path(tmp) / layout)
            )
    print(
        f"{'layout':>8} {'samples':>8} {'wall s':>8} {'samples/h':>10} {'bound/h':>9}  stage shares"
    )
    for r in results:
        shares = " ".join(f"{k} {100 * v:.1f}%" for k, v in r["stage_share"].items())
        print(
            f"{r['layout']:>8} {r['samples']:>8} {r['wall_s']:>8.1f} "
            f"{r['samples_per_hour']:>10.0f} "
            f"{r['simulation_only_bound_per_hour']:>9.0f}  {shares}"
        )
    print(
        json.dumps(
            {"benchmark": "sweep_throughput", "sweep": Path(args.sweep).name, "results": results}
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

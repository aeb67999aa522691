#!/usr/bin/env python3
"""The sphere on two refinement levels against one grid of the same finest resolution and
Schiller & Naumann's correlation, Cd = 24/Re (1 + 0.15 Re^0.687), at Re 100 and 300
(cases/sphere_refined.yaml: a tunnel 10 diameters wide, 20 cells per diameter at the sphere).

    python benchmarks/sphere_refined.py [--reynolds 100 300] [--out results/bench_sphere_refined]

Each run is run_case.py into OUT/re<Re>_<grid>, checkpointed every 1,000 steps: run the script
again after an interruption and it resumes each unfinished run (a finished one is read back).
Re 100 averages 2,000 steps once Cd has converged; Re 300, which sheds, averages the fixed window
of steps 6,000-12,000, and its two halves give the spread. On 2 CPU cores the one-grid runs take
about 10 (Re 100) and 20 (Re 300) minutes, the refined ones a tenth. Prints a table and ends with
one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import run_case  # noqa: E402

CASE = str(ROOT / "cases" / "sphere_refined.yaml")
#: Re 300 sheds: a fixed window, whose two halves give the spread of the mean
SHEDDING = ["run.average_from_step=6000", "run.average_steps=6000", "run.max_steps=12000"]
GRIDS = {"refined": [], "uniform": ["refinement.levels=[]"]}


def schiller_naumann(re: float) -> float:
    """Cd of a sphere (Schiller & Naumann 1933), within about 5% for Re < 800."""
    return 24.0 / re * (1.0 + 0.15 * re**0.687)


def run(out: Path, overrides: list[str]) -> dict:
    """run_case.py into out (resumed from its checkpoint, or read back when finished)."""
    summary = out / "summary.json"
    if summary.is_file() and (out / "checkpoint" / "done").is_file():
        return json.loads(summary.read_text())
    args = [CASE, *overrides, "run.checkpoint_every=1000", "output.images=false"]
    resume = ["--resume"] if (out / "checkpoint" / "state.npz").is_file() else []
    if run_case.main([*args, "--out", str(out), *resume]) != 0:
        raise SystemExit(f"run_case.py failed for {out}")
    (out / "checkpoint" / "done").write_text("finished\n")
    return json.loads(summary.read_text())


def window_spread(out: Path, info: dict) -> float | None:
    """|Cd of the averaging window's first half - its second half's| (None without a window)."""
    if not info["averaged_steps"]:
        return None
    cd = np.genfromtxt(out / "forces.csv", delimiter=",", skip_header=1, usecols=4)
    window = cd[-info["averaged_steps"] :]
    half = len(window) // 2
    return float(abs(window[:half].mean() - window[half:].mean()))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reynolds", type=float, nargs="+", default=[100.0, 300.0])
    p.add_argument("--out", type=Path, default=ROOT / "results" / "bench_sphere_refined")
    args = p.parse_args()
    rows = []
    for re in args.reynolds:
        for grid, keys in GRIDS.items():
            out = args.out / f"re{re:g}_{grid}"
            overrides = [f"flow.reynolds={re:g}", *keys, *(SHEDDING if re > 200 else [])]
            info = run(out, overrides)
            refinement = info["refinement"]
            rows.append(
                {
                    "reynolds": re,
                    "grid": grid,
                    "cd": info["cd"],
                    "cd_window_spread": window_spread(out, info),
                    "cd_schiller_naumann": schiller_naumann(re),
                    "steps": info["steps"],
                    "converged_step": info["converged_step"],
                    # every cell of every level, as MLUPs count them: the tunnel's once and
                    # the box's twice per coarse step; one grid of the finest dx twice
                    "cell_updates_per_coarse_step": refinement["levels"][0]["cells"]
                    + 2 * refinement["levels"][1]["cells"]
                    if refinement
                    else 2 * info["cells"],
                    "wall_seconds": info["wall_seconds"],
                    "backend": info["backend"],
                }
            )
    print(
        f"{'Re':>5} {'grid':8} {'Cd':>7} {'spread':>7} {'S-N':>7} {'vs S-N':>7} "
        f"{'vs uniform':>10} {'updates':>9} {'wall s':>7}"
    )
    for row in rows:
        uniform = next(
            r for r in rows if r["reynolds"] == row["reynolds"] and r["grid"] == "uniform"
        )
        row["cd_vs_uniform"] = row["cd"] / uniform["cd"] - 1
        row["updates_vs_uniform"] = (
            row["cell_updates_per_coarse_step"] / uniform["cell_updates_per_coarse_step"]
        )
        spread = row["cd_window_spread"]
        print(
            f"{row['reynolds']:5.0f} {row['grid']:8} {row['cd']:7.4f} "
            f"{spread if spread is not None else float('nan'):7.4f} "
            f"{row['cd_schiller_naumann']:7.4f} "
            f"{row['cd'] / row['cd_schiller_naumann'] - 1:+7.2%} {row['cd_vs_uniform']:+10.2%} "
            f"{row['updates_vs_uniform']:9.3f} {row['wall_seconds']:7.0f}"
        )
    print(json.dumps({"benchmark": "sphere_refined", "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

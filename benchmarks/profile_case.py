#!/usr/bin/env python3
"""Step one of benchmarks/lbm_mlups.py's cases with the CPU library built with `-g`, for a
sampling profiler to attribute the time by function and source line:

    OMP_NUM_THREADS=1 perf record -e cpu-clock -F 4000 -o prof.data \\
        python benchmarks/profile_case.py channel-loglaw --steps 300
    perf report -i prof.data --stdio --sort symbol      # or --sort srcline

Cases: channel-loglaw, channel-none (cases/channel.yaml with walls.model), car-N (cases/car.yaml
at N cells per length, with --car-set key=value overrides), les-N (the periodic LES box of N^3).
Prints the MLUPs of the profiled steps (a `-g` build runs the same code as the plain one).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import lbm_mlups  # noqa: E402
from ab_timing import named_case  # noqa: E402

from solver.backends import host_build, select_backend  # noqa: E402
from solver.simulation import Simulation  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("case", help="channel-loglaw, channel-none, car-N or les-N")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument(
        "--car-set", nargs="*", default=[], metavar="KEY=VALUE", help="overrides of the car"
    )
    args = p.parse_args()
    plain_flags = host_build.cxx_flags
    host_build.cxx_flags = lambda: (*plain_flags(), "-g")
    named = named_case(args.case, args.car_set, lbm_mlups)
    if named is None:
        print(
            f"profile_case: unknown case '{args.case}': use channel-loglaw, channel-none, car-N "
            "or les-N",
            file=sys.stderr,
        )
        return 2
    sim = Simulation(named[0], select_backend("cpu"), named[1])
    sim.advance(10)
    t0 = time.perf_counter()
    sim.advance(args.steps)
    seconds = time.perf_counter() - t0
    mlups = args.steps * sim.grid.n_cells / seconds / 1e6
    print(f"{args.case}: {args.steps} steps, {mlups:.1f} MLUPs")
    return 0


if __name__ == "__main__":
    sys.exit(main())

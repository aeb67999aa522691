#!/usr/bin/env python3
"""Before and after, alternated: the MLUPs of two versions of the solver on the same cases, in one
sitting, each timing in a fresh process.

    python benchmarks/ab_timing.py BEFORE [--after COMMIT] [--cases channel-loglaw car-64 ...]
        [--rounds 3] [--seconds 4] [--threads N] [--car-set KEY=VALUE ...]

BEFORE and --after are git commits (the after side defaults to this working tree); each is checked
out into a temporary worktree, removed at the end. A round times every case in both trees, the
order of the trees swapped from round to round, so a drift of the machine (the 2-vCPU machines'
copy bandwidth swings between about 50 and 110 GB/s within minutes) falls on both. Each side
builds its own CPU library (the cache keys it by source), once, before its first timing.

Cases, as benchmarks/profile_case.py names them: channel-loglaw, channel-none
(cases/channel.yaml with walls.model), les-N (the periodic LES box of N^3), car-N
(cases/car.yaml at N cells per length, with --car-set overrides for both sides; e.g.
cases/sweep_demo.yaml's case section), pipe-projected (cases/pipe.yaml under the projected wall
in a section 2 R long, PIPE_PROJECTED). A timing advances 20 steps, then steps for --seconds.

Prints each case's MLUPs per round, the after / before ratio of each round, and ends with one
JSON line. Both trees must have benchmarks/lbm_mlups.py's channel_case, les_box_case and
car_cases (every commit since 2026-12-05).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


#: cases/pipe.yaml under the projected wall in a section 2 R long: 11,520 cells, 2,880 of them
#: slots (the wall is most of the step, docs/performance.md).
PIPE_PROJECTED = [
    "body.bounce_back=projected",
    "domain.size_m=[1.0,1.2,1.2]",
    "geometry.pipe.x_max_m=2.0",
]


def named_case(name: str, car_set: list[str], cases) -> tuple | None:
    """(case, mesh or None) of a case name (channel-loglaw, channel-none, les-N, car-N,
    pipe-projected), built by the functions of `cases` (a tree's benchmarks/lbm_mlups module) or
    from the tree's cases/pipe.yaml; None for an unknown name."""
    from solver.config import merge_case

    kind, _, arg = name.partition("-")
    if kind == "channel" and arg in ("loglaw", "none"):
        return merge_case(cases.channel_case(arg), []), None
    if kind == "les" and arg.isdigit():
        return merge_case(cases.les_box_case(int(arg)), []), None
    if kind == "car" and arg.isdigit():
        case, _, mesh = cases.car_cases(int(arg), car_set)
        return case, mesh
    if name == "pipe-projected":
        from shapes.case_geometry import CASE_SCHEMA, case_mesh
        from solver.config import load_case

        case = load_case(cases.ROOT / "cases" / "pipe.yaml", PIPE_PROJECTED, schema=CASE_SCHEMA)
        return case, case_mesh(case)
    return None


def time_cases(root: Path, cases: list[str], seconds: float, car_set: list[str]) -> dict:
    """MLUPs of each case with the solver of the tree at root (run in its own process)."""
    sys.path[:0] = [str(root), str(root / "benchmarks")]
    import lbm_mlups

    from solver.backends import select_backend
    from solver.simulation import Simulation

    result = {}
    for name in cases:
        named = named_case(name, car_set, lbm_mlups)
        if named is None:
            raise SystemExit(
                f"ab_timing: unknown case '{name}': use channel-loglaw, channel-none, car-N, "
                "les-N, pipe-projected"
            )
        sim = Simulation(named[0], select_backend("cpu"), named[1])
        sim.advance(20)
        steps, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            sim.advance(20)
            steps += 20
        result[name] = steps * sim.grid.n_cells / (time.perf_counter() - t0) / 1e6
    return result


def run_side(root: Path, args: argparse.Namespace) -> dict:
    env = dict(os.environ)
    if args.threads:
        env["OMP_NUM_THREADS"] = str(args.threads)
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--time-in",
        str(root),
        "--seconds",
        str(args.seconds),
        "--cases",
        *args.cases,
        "--car-set",
        *args.car_set,
    ]
    out = subprocess.run(
        command, env=env, capture_output=True, text=True, cwd=tempfile.gettempdir()
    )
    if out.returncode != 0:
        raise SystemExit(f"ab_timing: the timing in {root} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def worktree(commit: str, parent: Path) -> Path:
    """A checkout of commit under parent (git worktree); one line and exit 2 if git has no such
    commit."""
    path = parent / commit.replace("/", "_")
    out = subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(path), commit],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        print(
            f"ab_timing: git cannot check out '{commit}': give a commit of this repository",
            file=sys.stderr,
        )
        sys.exit(2)
    return path


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("before", nargs="?", help="git commit of the before side")
    p.add_argument("--after", help="git commit of the after side (default: this working tree)")
    p.add_argument("--cases", nargs="+", default=["channel-loglaw", "car-64"])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=4.0, help="timed seconds per case")
    p.add_argument("--threads", type=int, help="OMP_NUM_THREADS of the timings (default: all)")
    p.add_argument("--car-set", nargs="*", default=[], metavar="KEY=VALUE")
    p.add_argument("--time-in", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.time_in:
        print(json.dumps(time_cases(args.time_in, args.cases, args.seconds, args.car_set)))
        return 0
    if not args.before:
        p.error("give the before commit")
    with tempfile.TemporaryDirectory(prefix="ab_timing_") as tmp:
        trees = {"after": ROOT}
        runs: dict[str, list[dict]] = {"before": [], "after": []}
        try:
            trees["before"] = worktree(args.before, Path(tmp))
            if args.after:
                trees["after"] = worktree(args.after, Path(tmp))
            for r in range(args.rounds):
                for side in ("before", "after") if r % 2 == 0 else ("after", "before"):
                    runs[side].append(run_side(trees[side], args))
        finally:
            for path in trees.values():
                if path != ROOT:
                    subprocess.run(
                        ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)],
                        capture_output=True,
                    )
    threads = args.threads or "all"
    print(
        f"before {args.before}, after {args.after or 'the working tree'}, {threads} threads, MLUPs"
    )
    summary = {}
    for case in args.cases:
        before = [run[case] for run in runs["before"]]
        after = [run[case] for run in runs["after"]]
        ratios = [a / b for a, b in zip(after, before, strict=True)]
        print(
            f"{case:16s} before {', '.join(f'{v:.1f}' for v in before)}  after "
            f"{', '.join(f'{v:.1f}' for v in after)}  ratio {min(ratios):.2f}-{max(ratios):.2f}"
        )
        summary[case] = {"before": before, "after": after, "ratios": ratios}
    print(
        json.dumps(
            {
                "benchmark": "ab_timing",
                "before": args.before,
                "after": args.after or "working tree",
                "threads": threads,
                "cases": summary,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Search a shape family for lower drag through the surrogate; confirm the best with the LBM.

    python optimize_shape.py OPT.yaml [key=value ...] [--out DIR]

Writes DIR (default results/optimize/<name>): report.md (the verification table and pictures),
history.png, best.stl, result.json, candidates.csv, and one run_case folder per verified design
(baseline, candidate_1, ...) with its ParaView files. docs/optimization.md describes the method.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from optimize.opt_config import default_output, load_optimize_config
from optimize.run import run_optimization
from solver.cli_logging import configure_logging
from solver.errors import SlipstreamError
from solver.results import check_output_folder
from viz.numbers import coefficient

log = logging.getLogger("optimize_shape")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("config", help="optimization YAML (e.g. cases/optimize_demo.yaml)")
    p.add_argument("overrides", nargs="*", help="key=value overrides, e.g. method=gradient")
    p.add_argument("--out", help="output folder (default results/optimize/<name>)")
    return p.parse_intermixed_args(argv)


def main(argv: list[str] | None = None) -> int:
    configure_logging()
    args = parse_args(argv)
    try:
        config = load_optimize_config(args.config, args.overrides)
        out = Path(args.out) if args.out else default_output(config)
        check_output_folder(out)
        result = run_optimization(config, out)
    except SlipstreamError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for d in result["designs"]:
        log.info(
            "%-12s surrogate Cd %s +- %s   LBM Cd %s",
            d["label"],
            coefficient(d["cd_surrogate"]),
            coefficient(d["cd_std"]),
            coefficient(d["cd_lbm"]),
        )
    log.info("best by the LBM: %s -> %s", result["best"], out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The whole mission: a dataset sweep, a surrogate, an optimization verified by the LBM, and a
report of it all.

    python run_pipeline.py PIPELINE.yaml [key=value ...] [--out DIR] [--overwrite]

Writes DIR (default results/<name>): dataset/, surrogate/, optimize/, report.md and
report.html. A re-run reuses every stage whose inputs have not changed (docs/pipeline.md).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from optimize.pipeline import run_pipeline
from optimize.pipeline_config import default_output, load_pipeline
from optimize.pipeline_report import write_report
from solver.cli_logging import configure_logging
from solver.errors import SlipstreamError
from solver.results import check_output_folder

log = logging.getLogger("run_pipeline")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("config", help="pipeline YAML (e.g. cases/pipeline_demo.yaml)")
    p.add_argument("overrides", nargs="*", help="key=value overrides, e.g. name=trial")
    p.add_argument("--out", help="output folder (default results/<name>)")
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="let a changed sweep config delete the dataset in the folder and start again",
    )
    return p.parse_intermixed_args(argv)


def main(argv: list[str] | None = None) -> int:
    configure_logging()
    args = parse_args(argv)
    t0 = time.perf_counter()
    try:
        config = load_pipeline(args.config, args.overrides)
        out = Path(args.out) if args.out else default_output(config)
        check_output_folder(out)
        records = run_pipeline(config, Path(args.config), out, args.overwrite)
        write_report(out, records)
    except SlipstreamError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for stage, r in records.items():
        log.info("%-9s %s", stage, r.summary())
    log.info("report: %s (%.0f s in all)", out / "report.html", time.perf_counter() - t0)
    return 0


if __name__ == "__main__":
    sys.exit(main())

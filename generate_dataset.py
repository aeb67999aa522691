#!/usr/bin/env python3
"""Simulate a design-of-experiments sweep of shapes into a dataset folder.

    python generate_dataset.py SWEEP.yaml [key=value ...] [--out DIR] [--overwrite] [--retry-failed]

Each sample: parameters -> mesh -> voxelize -> LBM to convergence -> one HDF5 file. Running the
same command again, after a crash or kill, computes only what is missing. The folder's layout
and the file schema: docs/dataset.md; the sweep keys: cases/README.md.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from solver.cli_logging import configure_logging
from solver.errors import SlipstreamError
from surrogate.make_dataset import make_dataset
from surrogate.sweep_config import default_output, load_sweep

log = logging.getLogger("generate_dataset")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sweep", help="sweep YAML (e.g. cases/sweep_demo.yaml)")
    p.add_argument("overrides", nargs="*", help="key=value overrides, e.g. sampler.n_samples=64")
    p.add_argument(
        "--out", help="dataset folder (default: the sweep's output, else results/datasets/<name>)"
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="delete a dataset of another config in the folder and start again",
    )
    p.add_argument("--retry-failed", action="store_true", help="compute failed samples again")
    return p.parse_intermixed_args(argv)


def main(argv: list[str] | None = None) -> int:
    configure_logging()
    args = parse_args(argv)
    try:
        sweep_path = Path(args.sweep)
        config = load_sweep(sweep_path, args.overrides)
        folder = Path(args.out) if args.out else default_output(config)
        report = make_dataset(config, sweep_path, folder, args.overwrite, args.retry_failed)
    except SlipstreamError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "interrupted: the finished samples are kept; run the same command to go on",
            file=sys.stderr,
        )
        return 130
    log.info("dataset %s\n%s", folder, report.text())
    return 0


if __name__ == "__main__":
    sys.exit(main())

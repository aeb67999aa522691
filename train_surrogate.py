#!/usr/bin/env python3
"""Train a surrogate on a dataset, measure it on held-out shapes, export it for serving.

    python train_surrogate.py TRAIN.yaml [key=value ...] [--out DIR] [--resume]
    python -m paddle.distributed.launch --gpus 0,1 train_surrogate.py TRAIN.yaml   # data parallel

Writes DIR (default results/models/<name>): metrics.csv (one row per epoch), metrics.json (the
test split's figures), test_predictions.csv, checkpoint/, and model/, the exported folder that
surrogate.Predictor serves. docs/surrogate.md describes the models and the figures.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from solver.cli_logging import configure_logging
from solver.errors import SlipstreamError
from solver.results import check_output_folder
from surrogate.train_config import default_output, load_train_config
from surrogate.train_run import train_and_export

log = logging.getLogger("train_surrogate")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("config", help="training YAML (e.g. cases/train_paramnet.yaml)")
    p.add_argument("overrides", nargs="*", help="key=value overrides, e.g. optim.epochs=500")
    p.add_argument("--out", help="output folder (default results/models/<name>)")
    p.add_argument("--resume", action="store_true", help="continue from DIR/checkpoint")
    return p.parse_intermixed_args(argv)


def main(argv: list[str] | None = None) -> int:
    configure_logging()
    args = parse_args(argv)
    try:
        config = load_train_config(args.config, args.overrides)
        out = Path(args.out) if args.out else default_output(config)
        check_output_folder(out)
        metrics = train_and_export(config, out, args.resume)
    except SlipstreamError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if metrics:
        shown = {k: round(v, 4) for k, v in metrics.items() if isinstance(v, float)}
        log.info("test metrics: %s -> %s", json.dumps(shown), out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

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
import csv
import io
import json
import logging
import sys
from pathlib import Path

import numpy as np

from solver.atomic import write_text
from solver.errors import SlipstreamError
from solver.results import check_output_folder
from surrogate.dataset import Dataset
from surrogate.train_config import TrainConfig, default_output, load_train_config

log = logging.getLogger("train_surrogate")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("config", help="training YAML (e.g. cases/train_paramnet.yaml)")
    p.add_argument("overrides", nargs="*", help="key=value overrides, e.g. optim.epochs=500")
    p.add_argument("--out", help="output folder (default results/models/<name>)")
    p.add_argument("--resume", action="store_true", help="continue from DIR/checkpoint")
    return p.parse_intermixed_args(argv)


def train(config: TrainConfig, out: Path, resume: bool) -> dict:
    """Train, test and export; returns the test metrics."""
    import paddle

    from surrogate.export import export_model
    from surrogate.metrics import coefficient_metrics, cp_relative_l2
    from surrogate.tasks import GeoTask, ParamTask
    from surrogate.training import Trainer, init_parallel, split_shapes

    gpu = paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0
    if config.device == "gpu" and not gpu:
        raise SlipstreamError("device gpu: this Paddle has no CUDA or sees no GPU: install paddlepaddle-gpu or "
                              "set device=cpu")
    paddle.set_device("gpu" if gpu and config.device != "cpu" else "cpu")
    parallel = init_parallel()
    ds = Dataset(config.dataset)
    try:
        train_rows, val_rows, test_rows = split_shapes(len(ds), config.split.validation, config.split.test,
                                                       config.split.seed)
    except ValueError as exc:
        raise SlipstreamError(f"dataset '{config.dataset}': {exc}") from exc
    log.info("%s on %d shapes of %s: %d train, %d validation, %d test", config.model, len(ds), config.dataset,
             len(train_rows), len(val_rows), len(test_rows))
    paddle.seed(config.optim.seed)
    task = (ParamTask if config.model == "paramnet" else GeoTask)(ds, train_rows, val_rows, config)
    trainer = Trainer(task.model, task.loss_layer, len(train_rows), task.loss, task.validation_loss,
                      config.optim, out, parallel)
    if resume:
        trainer.resume()
    trainer.fit()
    if not parallel.leader:
        return {}

    metrics: dict = {"model": config.model, "dataset": str(config.dataset), "dataset_hash": ds.config_hash,
                     "shapes": {"train": len(train_rows), "validation": len(val_rows), "test": len(test_rows)},
                     "epochs": trainer.epoch, "best_epoch": trainer.best_epoch}
    rows = io.StringIO()
    writer = csv.writer(rows, lineterminator="\n")
    if config.model == "paramnet":
        mean, std = task.predict(test_rows)
        metrics.update(coefficient_metrics("cd", ds.cd[test_rows], mean[:, 0], std[:, 0]))
        metrics.update(coefficient_metrics("cl", ds.cl[test_rows], mean[:, 1], std[:, 1]))
        writer.writerow(["sample_id", "cd_lbm", "cd_predicted", "cd_std", "cl_lbm", "cl_predicted", "cl_std"])
        for k, r in enumerate(test_rows):
            writer.writerow([ds.ids[r], ds.cd[r], mean[k, 0], std[k, 0], ds.cl[r], mean[k, 1], std[k, 1]])
        extra = {"parameters": [{"name": n, "unit": u, "low": float(lo), "high": float(hi)}
                                for n, u, lo, hi in zip(ds.parameter_names, ds.parameter_units, ds.low, ds.high)]}
    else:
        cp, cd = task.predict(test_rows)
        metrics.update(coefficient_metrics("cd", ds.cd[test_rows], cd))
        metrics["cp_relative_l2"] = float(np.mean([cp_relative_l2(task.cp[r], cp[k]) for k, r in enumerate(test_rows)]))
        writer.writerow(["sample_id", "cd_lbm", "cd_predicted", "cp_relative_l2"])
        for k, r in enumerate(test_rows):
            writer.writerow([ds.ids[r], ds.cd[r], cd[k], cp_relative_l2(task.cp[r], cp[k])])
        xyz = task.points[train_rows, :, :3].reshape(-1, 3)
        extra = {"trained_extent_m": [xyz.min(0).tolist(), xyz.max(0).tolist()],
                 "family": ds.family}
    write_text(out / "test_predictions.csv", rows.getvalue())
    write_text(out / "metrics.json", json.dumps(metrics, indent=2) + "\n")
    export_model(task.model, config.model, out / "model",
                 {**extra, "dataset": {"folder": str(config.dataset), "config_hash": ds.config_hash,
                                       "family": ds.family, "shapes": len(ds)},
                  "split": {"validation": config.split.validation, "test": config.split.test,
                            "seed": config.split.seed}, "metrics": metrics})
    return metrics


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = parse_args(argv)
    try:
        config = load_train_config(args.config, args.overrides)
        out = Path(args.out) if args.out else default_output(config)
        check_output_folder(out)
        metrics = train(config, out, args.resume)
    except SlipstreamError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if metrics:
        shown = {k: round(v, 4) for k, v in metrics.items() if isinstance(v, float)}
        log.info("test metrics: %s -> %s", json.dumps(shown), out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""One training run end to end: split, train, test, export (what train_surrogate.py runs, and
what the optimizer's active learning runs again on a grown dataset)."""

from __future__ import annotations

import csv
import io
import json
import logging
from dataclasses import asdict
from pathlib import Path

import numpy as np

from solver.atomic import write_text
from solver.errors import SlipstreamError
from surrogate.dataset import Dataset
from surrogate.train_config import TrainConfig

log = logging.getLogger(__name__)


def train_and_export(config: TrainConfig, out: Path, resume: bool = False) -> dict:
    """Train, test and export into out (model/ is the exported folder); returns the test
    metrics (empty on the non-leading ranks of a data-parallel run)."""
    import paddle

    from surrogate.export import export_model
    from surrogate.metrics import coefficient_metrics, cp_relative_l2
    from surrogate.tasks import GeoTask, ParamTask
    from surrogate.training import Trainer, init_parallel, split_shapes

    gpu = paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0
    if config.device == "gpu" and not gpu:
        raise SlipstreamError(
            "device gpu: this Paddle has no CUDA or sees no GPU: install paddlepaddle-gpu or "
            "set device=cpu"
        )
    paddle.set_device("gpu" if gpu and config.device != "cpu" else "cpu")
    parallel = init_parallel()
    ds = Dataset(config.dataset)
    try:
        train_rows, val_rows, test_rows = split_shapes(
            len(ds), config.split.validation, config.split.test, config.split.seed
        )
    except ValueError as exc:
        raise SlipstreamError(f"dataset '{config.dataset}': {exc}") from exc
    log.info(
        "%s on %d shapes of %s: %d train, %d validation, %d test",
        config.model,
        len(ds),
        config.dataset,
        len(train_rows),
        len(val_rows),
        len(test_rows),
    )
    paddle.seed(config.optim.seed)
    task = (ParamTask if config.model == "paramnet" else GeoTask)(ds, train_rows, val_rows, config)
    if config.init_from:
        warm_start(task.model, Path(config.init_from))
    trainer = Trainer(
        task.model,
        task.loss_layer,
        len(train_rows),
        task.loss,
        task.validation_loss,
        config.optim,
        out,
        parallel,
    )
    if resume:
        trainer.resume()
    trainer.fit()
    if not parallel.leader:
        return {}

    metrics: dict = {
        "model": config.model,
        "dataset": str(config.dataset),
        "dataset_hash": ds.config_hash,
        "shapes": {"train": len(train_rows), "validation": len(val_rows), "test": len(test_rows)},
        "epochs": trainer.epoch,
        "best_epoch": trainer.best_epoch,
    }
    rows = io.StringIO()
    writer = csv.writer(rows, lineterminator="\n")
    if config.model == "paramnet":
        mean, std = task.predict(test_rows)
        metrics.update(coefficient_metrics("cd", ds.cd[test_rows], mean[:, 0], std[:, 0]))
        metrics.update(coefficient_metrics("cl", ds.cl[test_rows], mean[:, 1], std[:, 1]))
        writer.writerow(
            ["sample_id", "cd_lbm", "cd_predicted", "cd_std", "cl_lbm", "cl_predicted", "cl_std"]
        )
        for k, r in enumerate(test_rows):
            writer.writerow(
                [ds.ids[r], ds.cd[r], mean[k, 0], std[k, 0], ds.cl[r], mean[k, 1], std[k, 1]]
            )
        extra = {
            "parameters": [
                {"name": n, "unit": u, "low": float(lo), "high": float(hi)}
                for n, u, lo, hi in zip(
                    ds.parameter_names, ds.parameter_units, ds.low, ds.high, strict=False
                )
            ]
        }
    else:
        cp, cd = task.predict(test_rows)
        metrics.update(coefficient_metrics("cd", ds.cd[test_rows], cd))
        metrics["cp_relative_l2"] = float(
            np.mean([cp_relative_l2(task.cp[r], cp[k]) for k, r in enumerate(test_rows)])
        )
        writer.writerow(["sample_id", "cd_lbm", "cd_predicted", "cp_relative_l2"])
        for k, r in enumerate(test_rows):
            writer.writerow([ds.ids[r], ds.cd[r], cd[k], cp_relative_l2(task.cp[r], cp[k])])
        xyz = task.points[train_rows, :, :3].reshape(-1, 3)
        extra = {
            "trained_extent_m": [xyz.min(0).tolist(), xyz.max(0).tolist()],
            "family": ds.family,
        }
    write_text(out / "test_predictions.csv", rows.getvalue())
    write_text(out / "metrics.json", json.dumps(metrics, indent=2) + "\n")
    if config.model == "paramnet":
        architecture = {
            "n_params": len(ds.parameter_names),
            "n_targets": 2,
            "members": config.paramnet.members,
            "hidden": list(config.paramnet.hidden),
        }
    else:
        architecture = {"width": config.geonet.width}
    export_model(
        task.model,
        config.model,
        out / "model",
        architecture,
        {
            **extra,
            "dataset": {
                "folder": str(config.dataset),
                "config_hash": ds.config_hash,
                "family": ds.family,
                "shapes": len(ds),
            },
            "split": {
                "validation": config.split.validation,
                "test": config.split.test,
                "seed": config.split.seed,
            },
            "metrics": metrics,
            "training": asdict(config),
        },
    )
    return metrics


def warm_start(model, folder: Path) -> None:
    """Start from an exported model's weights and normalization (same architecture)."""
    import paddle

    weights = folder / "weights.pdparams"
    if not weights.is_file():
        raise SlipstreamError(
            f"init_from '{folder}' has no weights.pdparams: give a folder exported by "
            "train_surrogate.py"
        )
    state = paddle.load(str(weights))
    own = model.state_dict()
    if set(state) != set(own) or any(tuple(state[k].shape) != tuple(own[k].shape) for k in own):
        raise SlipstreamError(
            f"init_from '{folder}' holds another architecture: train from scratch or match "
            "paramnet.members and paramnet.hidden"
        )
    model.set_state_dict(state)
    log.info("warm start from %s", folder)

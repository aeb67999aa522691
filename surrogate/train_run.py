"""One training run end to end: split, train, test, export (what train_surrogate.py runs, and
what the optimizer's active learning runs again on a grown dataset)."""

from __future__ import annotations

import csv
import io
import json
import logging
from dataclasses import asdict
from pathlib import Path

from solver.atomic import write_text
from solver.errors import SlipstreamError
from surrogate.dataset import Dataset
from surrogate.kinds import KINDS
from surrogate.train_config import TrainConfig

log = logging.getLogger(__name__)


def train_and_export(config: TrainConfig, out: Path, resume: bool = False) -> dict:
    """Train, test and export into out (model/ is the exported folder); returns the test
    metrics (empty on the non-leading ranks of a data-parallel run)."""
    import paddle

    from surrogate.export import export_model
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
    kind = KINDS[config.model]
    task = kind.task(ds, train_rows, val_rows, config)
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
    report = kind.test_report(task, ds, test_rows)
    metrics.update(report.metrics)
    rows = io.StringIO()
    writer = csv.writer(rows, lineterminator="\n")
    writer.writerow(report.header)
    writer.writerows(report.rows)
    write_text(out / "test_predictions.csv", rows.getvalue())
    write_text(out / "metrics.json", json.dumps(metrics, indent=2) + "\n")
    export_model(
        task.model,
        kind,
        out / "model",
        kind.architecture(config, ds),
        {
            **report.metadata,
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

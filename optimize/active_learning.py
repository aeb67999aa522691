"""Active learning: the verified designs join the dataset as samples, and the surrogate is
retrained from its last weights on the grown dataset.

Added samples get ids from ADDED_ID_START upwards (the sweep's own plan never reaches them) and
carry the dataset's config hash, so `Dataset` reads them with the rest; they are simulated with
the dataset's own case and record settings (dataset.json), by the sweep's sample job.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import numpy as np

from shapes.geometry_config import FAMILIES
from solver.config import merge_config
from solver.errors import SlipstreamError
from surrogate.dataset import DatasetMeta
from surrogate.meta import SurrogateMeta
from surrogate.sample_job import SampleJob, run_sample
from surrogate.sweep_config import RecordConfig
from surrogate.train_config import TrainConfig
from surrogate.train_run import train_and_export

log = logging.getLogger(__name__)

ADDED_ID_START = 100_000


def add_to_dataset(
    dataset: Path, family: str, names: list[str], designs: list[np.ndarray], backend: str
) -> int:
    """Simulate designs into the dataset as new samples; returns how many succeeded."""
    meta = DatasetMeta.read(dataset)
    definition = meta.definition
    samples = dataset / "samples"
    ids = [int(m[1]) for p in samples.glob("sample_*") if (m := re.match(r"sample_(\d+)", p.name))]
    next_id = max([ADDED_ID_START - 1, *ids]) + 1
    units = {p.name: p.unit for p in FAMILIES[family]}
    added = 0
    for offset, params in enumerate(designs):
        job = SampleJob(
            sample_id=next_id + offset,
            family=family,
            parameters=dict(zip(names, map(float, params), strict=False)),
            units=units,
            base_case=definition["case"],
            record=RecordConfig(**definition["record"]),
            config_hash=meta.config_hash,
            samples_dir=str(samples),
            backend=backend,
            seed=next_id + offset,
        )
        outcome = run_sample(job)
        if outcome.status == "ok":
            added += 1
        else:
            log.warning(
                "sample %d not added: %s (%s)", job.sample_id, outcome.reason, outcome.message
            )
    return added


def retrain(model_folder: Path, out: Path) -> Path:
    """Train again, from model_folder's weights, with its training settings, on its dataset as
    it is now; returns the new exported folder."""
    meta = SurrogateMeta.read(model_folder)
    if not meta.training:
        raise SlipstreamError(
            f"'{model_folder}' does not record its training settings: export it again with "
            "train_surrogate.py to use rounds > 1"
        )
    settings = dict(meta.training)
    settings.update(init_from=str(model_folder), output=str(out))
    config: TrainConfig = merge_config(
        TrainConfig,
        settings,
        [],  # type: ignore[assignment]
        source=f"{model_folder / 'surrogate.json'} training",
    )
    train_and_export(config, out)
    return out / "model"

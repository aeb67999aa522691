"""The whole mission in one run: sweep -> train -> optimize -> report.

    results/<name>/dataset/    the sweep's dataset (generate_dataset.py)
    results/<name>/surrogate/  the training's folder, model/ inside (train_surrogate.py)
    results/<name>/optimize/   the optimization's folder (optimize_shape.py)
    results/<name>/report.md, report.html, images/

Each stage's output is reused when its inputs have not changed: the sweep computes only missing
samples (it is resumable by itself); training and optimization keep a stage.json with a hash of
their resolved config and their input's content, and are skipped when it matches. A re-run
after a crash or a changed optimizer setting so redoes only what it must. Every stage's
stage.json also keeps the time the stage took, which a re-run that reuses it reports.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from omegaconf import OmegaConf

from optimize.opt_config import load_optimize_config
from optimize.pipeline_config import PipelineConfig
from optimize.run import run_optimization
from solver.atomic import write_text
from surrogate.executors import make_executor
from surrogate.meta import FORMAT_VERSION
from surrogate.sweep import dataset_lock, plan_sweep, prepare_folder, run_sweep
from surrogate.sweep_config import SweepConfig, load_sweep
from surrogate.train_config import load_train_config
from surrogate.train_run import train_and_export

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PipelineFolders:
    """Where the pipeline writes into its output folder out (the layout above)."""

    out: Path

    @property
    def dataset(self) -> Path:
        return self.out / "dataset"

    @property
    def surrogate(self) -> Path:
        return self.out / "surrogate"

    @property
    def model(self) -> Path:
        return self.surrogate / "model"

    @property
    def optimize(self) -> Path:
        return self.out / "optimize"


@dataclass
class StageRecord:
    name: str
    seconds: float  # wall time when it ran (reused: when it last ran)
    reused: bool

    def summary(self) -> str:
        """'ran in 12.3 s', or 'reused (took 12.3 s when it ran)'."""
        if self.reused:
            return f"reused (took {self.seconds:.1f} s when it ran)"
        return f"ran in {self.seconds:.1f} s"


def _digest(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def folder_fingerprint(folder: Path, pattern: str) -> str:
    """Names, sizes and modification times of the files matching pattern: changes when any is
    added, removed or rewritten."""
    entries = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.glob(pattern))
    return _digest(json.dumps(entries))


def _read_stage(out: Path) -> dict:
    """out/stage.json ({"key", "seconds"}), or {} when there is none readable."""
    try:
        return json.loads((out / "stage.json").read_text())
    except (OSError, ValueError):
        return {}


def _write_stage(out: Path, key: str, seconds: float) -> None:
    write_text(out / "stage.json", json.dumps({"key": key, "seconds": seconds}) + "\n")


def _stage(
    what: str, out: Path, key: str, done_file: str, run: Callable[[], object]
) -> StageRecord:
    """Run a stage into out unless out/stage.json holds key and done_file exists (then reuse
    it); stage.json records the key and the time the stage took."""
    stage = _read_stage(out)
    if stage.get("key") == key and (out / done_file).is_file():
        log.info("%s reused: %s is current", what, out)
        return StageRecord(out.name, float(stage["seconds"]), True)
    t0 = time.perf_counter()
    run()
    seconds = time.perf_counter() - t0
    _write_stage(out, key, seconds)
    return StageRecord(out.name, seconds, False)


def _sweep_stage(
    sweep: SweepConfig, sweep_path: Path, dataset: Path, overwrite: bool
) -> StageRecord:
    """Run the sweep into dataset. It is resumable by itself, so it always runs and computes only
    what is missing; when that is nothing the dataset counts as reused, with the time
    dataset/stage.json recorded for its config (a dataset made outside the pipeline: its samples'
    own time, summed over the workers)."""
    plan = plan_sweep(sweep, sweep_path, dataset)
    t0 = time.perf_counter()
    with dataset_lock(dataset):
        prepare_folder(plan, OmegaConf.to_yaml(OmegaConf.structured(sweep)), overwrite)
        report = run_sweep(plan, make_executor(sweep.executor, sweep.ray), sweep.executor.backend)
    seconds = time.perf_counter() - t0
    log.info(
        "sweep: %d ok, %d failed (%d computed now)",
        report.ok,
        report.failed,
        report.computed_this_run,
    )
    reused = report.computed_this_run == 0
    if reused:
        stage = _read_stage(dataset)
        if stage.get("key") == plan.config_hash:
            return StageRecord(dataset.name, float(stage["seconds"]), True)
        seconds = sum(report.stage_seconds.values())
    _write_stage(dataset, plan.config_hash, seconds)
    return StageRecord(dataset.name, seconds, reused)


def run_pipeline(
    config: PipelineConfig, pipeline_path: Path, out: Path, overwrite: bool = False
) -> dict[str, StageRecord]:
    """Run the stages into out, reusing what is current; returns each stage's record. overwrite:
    a changed sweep config deletes the old dataset instead of being refused."""
    base = pipeline_path.parent
    folders = PipelineFolders(out)
    records: dict[str, StageRecord] = {}

    # 1. the sweep: resumable by itself, so it always runs and computes only what is missing
    sweep_path = base / config.sweep.config
    sweep = load_sweep(sweep_path, config.sweep.overrides)
    records["sweep"] = _sweep_stage(sweep, sweep_path, folders.dataset, overwrite)

    # 2. training, skipped when its config, the dataset's samples and the export format are as
    # last time
    train = load_train_config(
        base / config.train.config, [*config.train.overrides, f"dataset={folders.dataset}"]
    )
    key = _digest(
        OmegaConf.to_yaml(OmegaConf.structured(train)),
        folder_fingerprint(folders.dataset / "samples", "*.h5"),
        f"export format {FORMAT_VERSION}",
    )
    records["train"] = _stage(
        "training",
        folders.surrogate,
        key,
        "model/surrogate.json",
        lambda: train_and_export(train, folders.surrogate),
    )

    # 3. optimization and verification, skipped when its config and the model are as last time
    opt = load_optimize_config(
        base / config.optimize.config, [*config.optimize.overrides, f"model={folders.model}"]
    )
    weights = hashlib.sha256((folders.model / "weights.pdparams").read_bytes()).hexdigest()
    key = _digest(OmegaConf.to_yaml(OmegaConf.structured(opt)), weights)
    records["optimize"] = _stage(
        "optimization",
        folders.optimize,
        key,
        "result.json",
        lambda: run_optimization(opt, folders.optimize),
    )
    return records

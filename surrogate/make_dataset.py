"""A sweep into a dataset folder, as one call: plan the samples, take the folder's lock, set the
folder up (or check it holds this sweep), and compute what it does not hold yet.
generate_dataset.py is its command line; examples/sweep_train_predict.py calls it from Python."""

from __future__ import annotations

from pathlib import Path

from omegaconf import OmegaConf

from solver.results import check_output_folder
from surrogate.executors import make_executor
from surrogate.sweep import SweepReport, dataset_lock, plan_sweep, prepare_folder, run_sweep
from surrogate.sweep_config import SweepConfig


def make_dataset(
    config: SweepConfig,
    sweep_path: Path,
    folder: Path,
    overwrite: bool = False,
    retry_failed: bool = False,
) -> SweepReport:
    """Compute the sweep's missing samples into folder (a checked config: load_sweep; its
    base_case is found beside sweep_path). overwrite: replace a dataset of another config in
    the folder; retry_failed: compute failed samples again."""
    check_output_folder(folder)
    plan = plan_sweep(config, sweep_path, folder)
    executor = make_executor(config.executor, config.ray)
    with dataset_lock(folder):
        prepare_folder(plan, OmegaConf.to_yaml(OmegaConf.structured(config)), overwrite)
        return run_sweep(plan, executor, config.executor.backend, retry_failed)

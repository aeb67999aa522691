"""The pipeline config of `run_pipeline.py PIPELINE.yaml`: one file that names the sweep, the
training and the optimization, each a config file of its own with overrides."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from solver.config import merge_config, read_yaml
from solver.errors import ConfigError


@dataclass
class StageConfig:
    config: str = ""  # the stage's YAML, relative to the pipeline file's folder
    overrides: list[str] = field(default_factory=list)  # key=value applied to it


@dataclass
class PipelineConfig:
    name: str = "demo"
    sweep: StageConfig = field(default_factory=StageConfig)  # a sweep YAML (generate_dataset.py)
    train: StageConfig = field(default_factory=StageConfig)  # a training YAML (train_surrogate.py)
    optimize: StageConfig = field(
        default_factory=StageConfig
    )  # an optimization YAML (optimize_shape.py)
    output: str | None = None  # default results/<name>


def load_pipeline(path: str | Path, overrides: list[str] | None = None) -> PipelineConfig:
    c: PipelineConfig = merge_config(
        PipelineConfig,
        read_yaml(path, "pipeline"),
        overrides or [],  # type: ignore[assignment]
        source=str(path),
    )
    if not c.name or "/" in c.name:
        raise ConfigError("key 'name' must be a non-empty name without '/'")
    for stage in ("sweep", "train", "optimize"):
        target = Path(path).parent / getattr(c, stage).config
        if not getattr(c, stage).config or not target.is_file():
            raise ConfigError(
                f"key '{stage}.config': '{target}' is not a file: name the stage's YAML, relative "
                "to the pipeline file"
            )
    return c


def default_output(c: PipelineConfig) -> Path:
    return Path(c.output) if c.output else Path("results") / c.name

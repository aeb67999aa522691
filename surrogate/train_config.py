"""The training config of `train_surrogate.py TRAIN.yaml`: data, split, model, optimizer.

Every key with its default and unit is in cases/README.md (section *Training*).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from solver.config import merge_config, read_yaml
from solver.errors import ConfigError
from surrogate.kinds import KINDS

MODELS = tuple(KINDS)  # the registered surrogate kinds (surrogate/kinds.py)
DEVICES = ("auto", "cpu", "gpu")


@dataclass
class SplitConfig:
    validation: float = 0.15  # share of the shapes held out for early stopping [-]
    test: float = 0.2  # share held out for the final metrics [-]
    seed: int = 0  # seed of the split [-]


@dataclass
class OptimConfig:
    epochs: int = 3000  # upper limit [epochs]
    learning_rate: float = (
        3e-3  # AdamW's initial rate, decayed by a cosine to min_lr_frac of it [-]
    )
    min_lr_frac: float = 0.01
    weight_decay: float = 1e-4  # AdamW's decoupled weight decay [-]
    batch_size: int = 64  # shapes per step [-]
    patience: int = 300  # stop when the validation loss has not improved for this many epochs
    checkpoint_every: int = 100  # [epochs]
    seed: int = 0  # seed of the initial weights and the batches [-]


@dataclass
class ParamNetConfig:
    members: int = 5  # ensemble members [-]
    hidden: list[int] = field(default_factory=lambda: [64, 64])  # hidden layer widths [-]


@dataclass
class GeoNetConfig:
    width: int = 128  # feature width [-]
    points: int = 1024  # surface points drawn per shape per step [-]
    cd_weight: float = 1.0  # weight of the (normalized) Cd loss beside Cp's [-]


@dataclass
class TrainConfig:
    name: str = "surrogate"
    dataset: str = "results/datasets/sweep_demo"  # a folder made by generate_dataset.py
    model: str = "paramnet"  # paramnet | geonet
    split: SplitConfig = field(default_factory=SplitConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    paramnet: ParamNetConfig = field(default_factory=ParamNetConfig)
    geonet: GeoNetConfig = field(default_factory=GeoNetConfig)
    device: str = "auto"  # auto | cpu | gpu (gpu needs paddlepaddle-gpu)
    init_from: str | None = (
        None  # an exported model folder whose weights (and normalization) start the training
    )
    output: str | None = None  # default results/models/<name>


def _require(ok: bool, key: str, what: str) -> None:
    if not ok:
        raise ConfigError(f"key '{key}' {what}")


def load_train_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig:
    """Read and validate a training YAML with key=value overrides. Raises ConfigError."""
    c: TrainConfig = merge_config(
        TrainConfig,
        read_yaml(path, "training"),
        overrides or [],  # type: ignore[assignment]
        source=str(path),
    )
    validate_train_config(c)
    return c


def validate_train_config(c: TrainConfig) -> None:
    """The ranges and choices a training config must respect; ConfigError names the key."""
    _require(bool(c.name) and "/" not in c.name, "name", "must be a non-empty name without '/'")
    _require(c.model in MODELS, "model", f"must be one of {MODELS}")
    _require(c.device in DEVICES, "device", f"must be one of {DEVICES}")
    s, o = c.split, c.optim
    _require(
        0 < s.validation < 1 and 0 < s.test < 1 and s.validation + s.test < 0.9,
        "split.validation",
        "and split.test must be shares in (0, 1) leaving at least 10% to train",
    )
    _require(o.epochs >= 1, "optim.epochs", "must be >= 1")
    _require(o.learning_rate > 0, "optim.learning_rate", "must be positive")
    _require(0 < o.min_lr_frac <= 1, "optim.min_lr_frac", "must be in (0, 1]")
    _require(o.weight_decay >= 0, "optim.weight_decay", "must be >= 0")
    _require(o.batch_size >= 1, "optim.batch_size", "must be >= 1")
    _require(o.patience >= 1, "optim.patience", "must be >= 1")
    _require(o.checkpoint_every >= 1, "optim.checkpoint_every", "must be >= 1")
    _require(c.paramnet.members >= 1, "paramnet.members", "must be >= 1")
    _require(
        len(c.paramnet.hidden) >= 1 and min(c.paramnet.hidden) >= 1,
        "paramnet.hidden",
        "must list widths >= 1",
    )
    _require(c.geonet.width >= 8, "geonet.width", "must be >= 8")
    _require(c.geonet.points >= 16, "geonet.points", "must be >= 16")


def default_output(c: TrainConfig) -> Path:
    return Path(c.output) if c.output else Path("results") / "models" / c.name

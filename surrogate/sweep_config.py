"""The sweep config of `generate_dataset.py SWEEP.yaml`: which shapes, how many, how each is
simulated and recorded, where the dataset goes and who computes it.

Every key is listed with its default and unit in cases/README.md; the dataset's files in
docs/dataset.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shapes.geometry_config import FAMILIES
from solver.config import merge_config, read_yaml
from solver.errors import ConfigError

SAMPLERS = ("sobol", "lhs")
EXECUTORS = ("local", "ray")
BACKENDS = ("auto", "cpu", "cuda")


@dataclass
class SamplerConfig:
    method: str = "sobol"  # sobol | lhs: scrambled Sobol or Latin hypercube (scipy.stats.qmc)
    n_samples: int = 32  # shapes in the dataset [-]
    seed: int = 0  # seed of the sampler and of each sample's surface points [-]


@dataclass
class RecordConfig:
    surface_points: int = (
        4096  # points sampled on the surface, area-weighted, with normal and Cp [-]
    )
    sdf_shape: list[int] = field(
        default_factory=lambda: [64, 32, 24]
    )  # signed-distance grid points along x, y, z [-]
    # the SDF box: the body's bounding box grown by this share of its length on each side [-]
    sdf_margin: float = 0.1
    field_stride: int = 2  # time-averaged velocity and pressure kept on every stride-th cell [-]


@dataclass
class ExecutorConfig:
    kind: str = "local"  # local | ray
    workers: int | None = (
        None  # local: samples at once; default one per GPU, else cores / threads_per_worker
    )
    threads_per_worker: int | None = (
        None  # OpenMP threads of a CPU sample; default 1 (several samples beat one wide one)
    )
    backend: str = "auto"  # auto | cpu | cuda: where each sample's LBM runs


@dataclass
class RayConfig:
    address: str | None = (
        None  # join this cluster ("auto", "ray://head:10001"); None: start a local Ray
    )
    num_cpus_per_sample: float = 1.0  # CPUs a sample task reserves [-]
    num_gpus_per_sample: float | None = (
        None  # GPUs a sample task reserves; default 1 where the cluster has GPUs, else 0
    )


@dataclass
class SweepConfig:
    name: str = "sweep"
    family: str = "car"  # car | ahmed: the parametric shape family (shapes/)
    base_case: str = (
        "car.yaml"  # the case every sample starts from, relative to the sweep file's folder
    )
    case: dict[str, Any] = field(
        default_factory=dict
    )  # keys merged over the base case: resolution, run, flow ...
    parameters: dict[str, list[float]] = field(
        default_factory=dict
    )  # name: [low, high] narrows, [value] fixes; others span their documented bounds
    sampler: SamplerConfig = field(default_factory=SamplerConfig)
    record: RecordConfig = field(default_factory=RecordConfig)
    executor: ExecutorConfig = field(default_factory=ExecutorConfig)
    ray: RayConfig = field(default_factory=RayConfig)
    output: str | None = None  # the dataset folder; default results/datasets/<name>


@dataclass(frozen=True)
class Range:
    """One design parameter's range in a sweep (low == high: held fixed)."""

    name: str
    unit: str
    low: float
    high: float


def load_sweep(path: str | Path, overrides: list[str] | None = None) -> SweepConfig:
    """Read and validate a sweep YAML with key=value overrides. Raises ConfigError."""
    sweep: SweepConfig = merge_config(
        SweepConfig,
        read_yaml(path, "sweep"),
        overrides or [],  # type: ignore[assignment]
        source=str(path),
    )
    validate_sweep(sweep)
    return sweep


def _require(ok: bool, key: str, what: str) -> None:
    if not ok:
        raise ConfigError(f"key '{key}' {what}")


def validate_sweep(s: SweepConfig) -> None:
    _require(bool(s.name) and "/" not in s.name, "name", "must be a non-empty name without '/'")
    _require(s.family in FAMILIES, "family", f"must be one of {tuple(FAMILIES)}")
    parameter_ranges(s)
    _require(s.sampler.method in SAMPLERS, "sampler.method", f"must be one of {SAMPLERS}")
    _require(s.sampler.n_samples >= 1, "sampler.n_samples", "must be >= 1")
    _require(s.sampler.seed >= 0, "sampler.seed", "must be >= 0")
    r = s.record
    _require(r.surface_points >= 1, "record.surface_points", "must be >= 1")
    _require(
        len(r.sdf_shape) == 3 and min(r.sdf_shape) >= 2,
        "record.sdf_shape",
        "must be three counts >= 2 (x, y, z)",
    )
    _require(r.sdf_margin >= 0, "record.sdf_margin", "must be >= 0")
    _require(r.field_stride >= 1, "record.field_stride", "must be >= 1")
    e = s.executor
    _require(e.kind in EXECUTORS, "executor.kind", f"must be one of {EXECUTORS}")
    _require(e.workers is None or e.workers >= 1, "executor.workers", "must be >= 1")
    _require(
        e.threads_per_worker is None or e.threads_per_worker >= 1,
        "executor.threads_per_worker",
        "must be >= 1",
    )
    _require(e.backend in BACKENDS, "executor.backend", f"must be one of {BACKENDS}")
    _require(s.ray.num_cpus_per_sample > 0, "ray.num_cpus_per_sample", "must be positive")
    _require(
        s.ray.num_gpus_per_sample is None or s.ray.num_gpus_per_sample >= 0,
        "ray.num_gpus_per_sample",
        "must be >= 0",
    )


def parameter_ranges(s: SweepConfig) -> list[Range]:
    """Every parameter of the family in its documented order, with the sweep's range."""
    documented = {p.name: p for p in FAMILIES[s.family]}
    for name, values in s.parameters.items():
        key = f"parameters.{name}"
        _require(
            name in documented, key, f"is not a {s.family} parameter: use one of {list(documented)}"
        )
        p = documented[name]
        _require(len(values) in (1, 2), key, "must be [low, high] or [value]")
        low, high = float(values[0]), float(values[-1])
        _require(
            p.low <= low <= high <= p.high,
            key,
            f"must lie within the documented bounds [{p.low}, {p.high}] {p.unit}, low <= high",
        )
    ranges = []
    for p in FAMILIES[s.family]:
        values = s.parameters.get(p.name, [p.low, p.high])
        ranges.append(Range(p.name, p.unit, float(values[0]), float(values[-1])))
    _require(
        any(r.high > r.low for r in ranges),
        "parameters",
        "fixes every parameter: leave at least one open",
    )
    return ranges


def default_output(s: SweepConfig) -> Path:
    return Path(s.output) if s.output else Path("results") / "datasets" / s.name

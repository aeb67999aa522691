"""The optimization config of `optimize_shape.py OPT.yaml`: what may change, what must hold,
what to minimize, how to search, how to verify.

Every key with its unit is in cases/README.md (section *Optimization*).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from solver.config import merge_config, read_yaml
from solver.errors import ConfigError
from surrogate.predictor import RUNTIMES

OBJECTIVES = ("cd", "drag_area")
METHODS = ("cmaes", "gradient")
#: Quantities a constraint may bound besides the design parameters (computed from the mesh).
DERIVED = ("volume_m3", "frontal_area_m2")


@dataclass
class ConstraintConfig:
    quantity: str = ""  # a design parameter's name, volume_m3 [m^3] or frontal_area_m2 [m^2]
    min: float | None = None  # lower limit, in the quantity's unit
    max: float | None = None  # upper limit


@dataclass
class UncertaintyConfig:
    kappa: float = 1.0  # the search minimizes mean + kappa * sigma of the objective [-]
    max_sigma_counts: float | None = (
        # trust region: candidates with sigma(Cd) above this many drag counts are refused
        # [counts]
        None
    )


@dataclass
class CmaesConfig:
    max_evaluations: int = 2000  # surrogate calls [-]
    population: int | None = None  # default: CMA-ES's 4 + 3 ln(n)
    sigma0: float = 0.25  # initial step, share of each free parameter's range [-]


@dataclass
class GradientConfig:
    starts: int = 8  # multi-start: the baseline and starts - 1 seeded random points [-]
    steps: int = 300  # Adam steps per start [-]
    learning_rate: float = 0.02  # in shares of each free parameter's range per step [-]


@dataclass
class PredictorConfig:
    runtime: str = (
        "paddle"  # paddle (Paddle Inference) | onnxruntime (the model.onnx Triton serves)
    )


@dataclass
class VerifyConfig:
    top_k: int = 3  # best distinct candidates simulated with the LBM, besides the baseline [-]
    backend: str = "auto"  # auto | cpu | cuda


@dataclass
class OptimizeConfig:
    name: str = "optimize"
    model: str = "results/models/paramnet/model"  # an exported ParamNet folder
    predictor: PredictorConfig = field(default_factory=PredictorConfig)
    objective: str = "cd"  # cd | drag_area (Cd x frontal area [m^2])
    baseline: dict[str, float] = field(
        default_factory=dict
    )  # the design to improve; default: the family's baseline
    fixed: list[str] = field(default_factory=list)  # parameters held at the baseline's values
    bounds: dict[str, list[float]] = field(
        default_factory=dict
    )  # narrower [low, high] per parameter
    constraints: list[ConstraintConfig] = field(default_factory=list)
    uncertainty: UncertaintyConfig = field(default_factory=UncertaintyConfig)
    method: str = (
        "cmaes"  # cmaes (through the exported Predictor) | gradient (through the Paddle model)
    )
    seed: int = 0
    cmaes: CmaesConfig = field(default_factory=CmaesConfig)
    gradient: GradientConfig = field(default_factory=GradientConfig)
    verify: VerifyConfig = field(default_factory=VerifyConfig)
    # active learning: rounds > 1 add the verified designs to the dataset, retrain from the
    # last weights and search again, until the LBM-confirmed improvement stops growing
    rounds: int = 1
    output: str | None = None  # default results/optimize/<name>


def _require(ok: bool, key: str, what: str) -> None:
    if not ok:
        raise ConfigError(f"key '{key}' {what}")


def load_optimize_config(path: str | Path, overrides: list[str] | None = None) -> OptimizeConfig:
    """Read and validate an optimization YAML with key=value overrides. Raises ConfigError."""
    c: OptimizeConfig = merge_config(
        OptimizeConfig,
        read_yaml(path, "optimization"),  # type: ignore[assignment]
        overrides or [],
        source=str(path),
    )
    _require(bool(c.name) and "/" not in c.name, "name", "must be a non-empty name without '/'")
    _require(c.objective in OBJECTIVES, "objective", f"must be one of {OBJECTIVES}")
    _require(c.method in METHODS, "method", f"must be one of {METHODS}")
    _require(c.predictor.runtime in RUNTIMES, "predictor.runtime", f"must be one of {RUNTIMES}")
    _require(
        c.method != "gradient" or c.predictor.runtime == "paddle",
        "predictor.runtime",
        "must be paddle with method gradient, which differentiates the Paddle model itself: use "
        "method "
        "cmaes to search through onnxruntime",
    )
    for i, k in enumerate(c.constraints):
        _require(
            k.min is not None or k.max is not None, f"constraints[{i}]", "needs a min or a max"
        )
        _require(
            k.min is None or k.max is None or k.min <= k.max, f"constraints[{i}]", "has min > max"
        )
    _require(c.uncertainty.kappa >= 0, "uncertainty.kappa", "must be >= 0")
    _require(
        c.uncertainty.max_sigma_counts is None or c.uncertainty.max_sigma_counts > 0,
        "uncertainty.max_sigma_counts",
        "must be > 0 (drag counts), or null for no trust region",
    )
    _require(c.cmaes.max_evaluations >= 10, "cmaes.max_evaluations", "must be >= 10")
    _require(0 < c.cmaes.sigma0 <= 1, "cmaes.sigma0", "must be in (0, 1]")
    _require(
        c.gradient.starts >= 1 and c.gradient.steps >= 1,
        "gradient.starts",
        "and gradient.steps must be >= 1",
    )
    _require(c.verify.top_k >= 1, "verify.top_k", "must be >= 1")
    _require(c.rounds >= 1, "rounds", "must be >= 1")
    return c


def default_output(c: OptimizeConfig) -> Path:
    return Path(c.output) if c.output else Path("results") / "optimize" / c.name

"""Serve an exported surrogate, the path a production service uses, through either runtime:

    p = Predictor("results/demo/surrogate/model")     # the ParamNet `make demo` trained
    p = Predictor("results/demo/surrogate/model", runtime="onnxruntime")  # its model.onnx
    p.predict_parameters({"backlight_angle_deg": 25.0, ...})  # Cd, Cl and their standard deviations
    p.predict_surface(points_m, normals)  # GeoNet: Cp at each point and Cd

runtime "paddle" runs the Paddle program with Paddle Inference (surrogate/runtime_paddle.py:
oneDNN on the CPU, PIR-TensorRT or the plain GPU on a GPU build of Paddle); runtime
"onnxruntime" runs model.onnx with ONNX Runtime (surrogate/runtime_onnx.py: TensorRT, CUDA or
the CPU), the artifact Triton serves. Both take the same inputs through the same checks (the
folder's format version, the input's shape, finite values, the trained bounds) and answer the
same figures; one log line says which runtime runs where.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.errors import PredictorError
from surrogate.kinds import KINDS, SurrogateKind
from surrogate.meta import SurrogateMeta
from surrogate.sweep_config import Range

log = logging.getLogger(__name__)

RUNTIMES = ("paddle", "onnxruntime")
DEVICES = ("auto", "cpu", "gpu")
PRECISIONS = ("fp32", "fp16")
#: What predict_parameters takes: an array [B, d] or [d] in the model's parameter order, a mapping
#: of parameter names to values, or a sequence of such mappings.
Params = (
    np.ndarray
    | Sequence[float]
    | Sequence[Sequence[float]]
    | Mapping[str, float]
    | Sequence[Mapping[str, float]]
)


def _mapping_row(values: Mapping[str, Any], parameters: list[Range]) -> list[float]:
    """One design's values in the order of parameters (the metadata's list). A parameter the model
    was trained at a single value (low == high) may be left out and takes that value."""
    if not isinstance(values, Mapping):
        raise PredictorError(
            "params mixes mappings and other values: give one mapping per design, or an array"
        )
    names = [p.name for p in parameters]
    unknown = [str(k) for k in values if k not in names]
    missing = [p.name for p in parameters if p.name not in values and p.high > p.low]
    problems = [f"unknown parameter(s) {', '.join(unknown)}"] if unknown else []
    if missing:
        problems.append(f"missing parameter(s) {', '.join(missing)}")
    if problems:
        raise PredictorError(
            f"params: {'; '.join(problems)}. This model takes {', '.join(names)} (those "
            "trained at one value may be left out)"
        )
    try:
        return [float(values.get(p.name, p.low)) for p in parameters]
    except (TypeError, ValueError) as exc:
        raise PredictorError(f"params: every value must be a number ({exc})") from exc


def parameter_matrix(params: Params, parameters: list[Range]) -> np.ndarray:
    """params as a float array [B, d] in the order of parameters (the metadata's list): an array
    passes through as given (its shape is checked by the caller); a mapping of names to values is
    one design, a sequence of mappings one design each (see _mapping_row)."""
    if isinstance(params, Mapping):
        return np.array([_mapping_row(params, parameters)])
    if isinstance(params, Sequence) and params and isinstance(params[0], Mapping):
        return np.array([_mapping_row(v, parameters) for v in params])
    try:
        return np.atleast_2d(np.asarray(params, dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise PredictorError(
            f"params is not an array of numbers ({exc}): give [batch, parameters], "
            "a mapping of parameter names to values, or a list of such mappings"
        ) from exc


@dataclass(frozen=True)
class ParamPrediction:
    cd: np.ndarray  # [B] mean
    cd_std: np.ndarray  # [B] standard deviation
    cl: np.ndarray
    cl_std: np.ndarray
    out_of_bounds: np.ndarray  # [B] True where a parameter lies outside the trained range


@dataclass(frozen=True)
class SurfacePrediction:
    cp: np.ndarray  # [N] Cp at each point
    cd: float


class Predictor:
    def __init__(
        self,
        folder: str | Path,
        runtime: str = "paddle",
        device: str = "auto",
        precision: str = "fp32",
        threads: int | None = None,
    ) -> None:
        """runtime: paddle | onnxruntime; device: auto | cpu | gpu; precision: fp32 | fp16
        (TensorRT only); threads: CPU threads (default: all cores)."""
        for key, value, allowed in (
            ("runtime", runtime, RUNTIMES),
            ("device", device, DEVICES),
            ("precision", precision, PRECISIONS),
        ):
            if value not in allowed:
                raise PredictorError(f"{key} '{value}' is unknown: use one of {', '.join(allowed)}")
        if runtime == "paddle":
            from surrogate.runtime_paddle import FILES
            from surrogate.runtime_paddle import PaddleRuntime as Runtime
        else:
            from surrogate.runtime_onnx import FILES
            from surrogate.runtime_onnx import OnnxRuntime as Runtime
        self.folder = Path(folder)
        self.meta = SurrogateMeta.read(self.folder, FILES)
        self.runtime = runtime
        self.kind: str = self.meta.kind
        self.spec: SurrogateKind = KINDS[self.kind]
        self._engine = Runtime(self.folder, self.meta, device, precision, threads)
        self.path: str = self._engine.path
        log.info("surrogate %s (%s) served by %s", self.folder, self.kind, self.path)

    # ---- ParamNet -------------------------------------------------------------------------
    @property
    def parameter_names(self) -> list[str]:
        return [p.name for p in self.meta.parameters or []]

    def predict_parameters(self, params: Params) -> ParamPrediction:
        """params in the units of the metadata's parameters: a mapping of their names to values
        (one design; a parameter trained at one value may be left out), a list of such mappings,
        or an array [B, d] or [d] in their order (parameter_names). A value outside the trained
        range is flagged in out_of_bounds and logged as a warning."""
        if self.spec.takes != "parameters":
            raise PredictorError(f"'{self.folder}' holds a {self.kind}: use predict_surface")
        x = parameter_matrix(params, self.meta.parameters or [])
        names = self.parameter_names
        if x.ndim != 2 or x.shape[1] != len(names):
            raise PredictorError(
                f"params has shape {np.shape(params)}; this model takes [batch, {len(names)}]: "
                f"{', '.join(names)}"
            )
        if not np.all(np.isfinite(x)):
            raise PredictorError("params holds NaN or infinite values")
        low = np.array([p.low for p in self.meta.parameters or []])
        high = np.array([p.high for p in self.meta.parameters or []])
        span = np.maximum(high - low, 1e-12)
        outside = (x < low - 1e-9 * span) | (x > high + 1e-9 * span)
        if outside.any():
            j = int(np.argmax(outside.any(axis=0)))
            log.warning(
                "%d of %d inputs lie outside the trained range (e.g. %s = %g, trained %g-%g): the "
                "surrogate extrapolates there",
                int(outside.any(axis=1).sum()),
                len(x),
                names[j],
                x[outside[:, j].argmax(), j],
                low[j],
                high[j],
            )
        mean, std = self._engine.run(x.astype(np.float32))
        return ParamPrediction(
            cd=mean[:, 0],
            cd_std=std[:, 0],
            cl=mean[:, 1],
            cl_std=std[:, 1],
            out_of_bounds=outside.any(axis=1),
        )

    # ---- GeoNet ---------------------------------------------------------------------------
    def predict_surface(self, points_m: np.ndarray, normals: np.ndarray) -> SurfacePrediction:
        """points_m [N, 3] on a closed surface in the solver's frame (metres, x downstream, z up,
        the ground at z = 0), normals [N, 3] outward unit normals."""
        if self.spec.takes != "surface":
            raise PredictorError(f"'{self.folder}' holds a {self.kind}: use predict_parameters")
        points_m, normals = np.asarray(points_m, float), np.asarray(normals, float)
        if points_m.ndim != 2 or points_m.shape[1] != 3 or normals.shape != points_m.shape:
            raise PredictorError(
                f"points {points_m.shape} and normals {normals.shape} must both be [N, 3]"
            )
        if len(points_m) < 16:
            raise PredictorError(
                f"{len(points_m)} points are too few to describe a surface: give at least 16"
            )
        lo, hi = (
            np.array(self.meta.trained_extent_m[0]),
            np.array(self.meta.trained_extent_m[1]),
        )
        size, trained = points_m.max(0) - points_m.min(0), hi - lo
        if np.any(size > 1.5 * trained) or np.any(size < trained / 1.5):
            log.warning(
                "the surface's extent %s m differs from the trained shapes' %s m by more than "
                "1.5x: "
                "the surrogate extrapolates",
                np.round(size, 2).tolist(),
                np.round(trained, 2).tolist(),
            )
        cp, cd = self._engine.run(np.concatenate([points_m, normals], axis=1)[None])
        return SurfacePrediction(cp=cp[0], cd=float(cd[0]))

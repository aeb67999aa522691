"""Serve an exported surrogate through Paddle Inference, the path a production service uses.

    p = Predictor("results/demo/surrogate/model")     # the ParamNet `make demo` trained
    p.predict_parameters({"backlight_angle_deg": 25.0, ...})  # Cd, Cl and their standard deviations
    p.predict_surface(points_m, normals)  # GeoNet: Cp at each point and Cd

Where it runs (one log line says which):
- a GPU build of Paddle with TensorRT and a GPU: the program converted by Paddle 3's PIR-TensorRT
  (`paddle.tensorrt.convert`, the documented path for PIR `.json` programs; `Config.
  enable_tensorrt_engine` serves only the older `.pdmodel` format), FP16 or FP32, with dynamic
  shapes for the batch and the point count; the converted program is cached in the folder;
- a GPU build without TensorRT: plain GPU;
- otherwise the CPU with oneDNN and `threads` threads.
The GPU and TensorRT paths have not run yet (docs/surrogate.md); the CPU path is tested against
the dygraph model.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence, Union

import numpy as np

from solver.errors import SlipstreamError
from surrogate.export import FORMAT_VERSION

log = logging.getLogger(__name__)

PRECISIONS = ("fp32", "fp16")
#: What predict_parameters takes: an array [B, d] or [d] in the model's parameter order, a mapping
#: of parameter names to values, or a sequence of such mappings.
Params = Union[np.ndarray, Sequence[float], Sequence[Sequence[float]], Mapping[str, float],
               Sequence[Mapping[str, float]]]
#: TensorRT's dynamic-shape profile: (min, optimum, max) of the batch and of the point count.
TRT_BATCH = (1, 64, 4096)
TRT_POINTS = (64, 4096, 65536)


class PredictorError(SlipstreamError):
    """A model folder that cannot be served, or inputs it cannot take."""


def _mapping_row(values: Mapping[str, Any], parameters: list[dict[str, Any]]) -> list[float]:
    """One design's values in the order of parameters (the metadata's list). A parameter the model
    was trained at a single value (low == high) may be left out and takes that value."""
    if not isinstance(values, Mapping):
        raise PredictorError("params mixes mappings and other values: give one mapping per design, or an array")
    names = [p["name"] for p in parameters]
    unknown = [str(k) for k in values if k not in names]
    missing = [p["name"] for p in parameters if p["name"] not in values and p["high"] > p["low"]]
    problems = [f"unknown parameter(s) {', '.join(unknown)}"] if unknown else []
    if missing:
        problems.append(f"missing parameter(s) {', '.join(missing)}")
    if problems:
        raise PredictorError(f"params: {'; '.join(problems)}. This model takes {', '.join(names)} (those "
                             "trained at one value may be left out)")
    try:
        return [float(values.get(p["name"], p["low"])) for p in parameters]
    except (TypeError, ValueError) as exc:
        raise PredictorError(f"params: every value must be a number ({exc})") from exc


def parameter_matrix(params: Params, parameters: list[dict[str, Any]]) -> np.ndarray:
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
        raise PredictorError(f"params is not an array of numbers ({exc}): give [batch, parameters], "
                             "a mapping of parameter names to values, or a list of such mappings") from exc


@dataclass(frozen=True)
class ParamPrediction:
    cd: np.ndarray             # [B] mean
    cd_std: np.ndarray         # [B] standard deviation
    cl: np.ndarray
    cl_std: np.ndarray
    out_of_bounds: np.ndarray  # [B] True where a parameter lies outside the trained range


@dataclass(frozen=True)
class SurfacePrediction:
    cp: np.ndarray             # [N] Cp at each point
    cd: float


def _paddle_gpu() -> tuple[bool, bool]:
    """(a usable GPU build of Paddle, with TensorRT)."""
    import paddle

    if not paddle.is_compiled_with_cuda() or paddle.device.cuda.device_count() == 0:
        return False, False
    try:
        import paddle.tensorrt  # noqa: F401  (only GPU builds ship it)
    except ImportError:
        return True, False
    return True, tuple(paddle.inference.get_trt_compile_version()) != (0, 0, 0)


class Predictor:
    def __init__(self, folder: str | Path, device: str = "auto", precision: str = "fp32",
                 threads: int | None = None) -> None:
        """device: auto | cpu | gpu; precision: fp32 | fp16 (TensorRT only); threads: CPU
        threads (default: all cores)."""
        from paddle import inference

        self.folder = Path(folder)
        meta_path = self.folder / "surrogate.json"
        try:
            self.meta = json.loads(meta_path.read_text())
        except (OSError, ValueError) as exc:
            raise PredictorError(f"'{self.folder}' is not an exported surrogate (no readable surrogate.json): "
                                 "give a folder written by train_surrogate.py") from exc
        version = self.meta.get("format_version")
        if version != FORMAT_VERSION:
            raise PredictorError(f"'{self.folder}' was exported in format {version}; this version serves format "
                                 f"{FORMAT_VERSION}: export it again with train_surrogate.py")
        for name in ("model.json", "model.pdiparams"):
            if not (self.folder / name).is_file():
                raise PredictorError(f"'{self.folder}' lacks {name}: export it again with train_surrogate.py")
        if precision not in PRECISIONS:
            raise PredictorError(f"precision '{precision}' is unknown: use one of {PRECISIONS}")
        self.kind: str = self.meta["kind"]
        self.input_name: str = self.meta["input"]["name"]
        gpu, tensorrt = _paddle_gpu() if device in ("auto", "gpu") else (False, False)
        if device == "gpu" and not gpu:
            raise PredictorError("device gpu: this Paddle has no CUDA or sees no GPU: install paddlepaddle-gpu "
                                 "(README, Going to a GPU) or use device cpu")
        model_prefix = self.folder / "model"
        if tensorrt:
            try:
                model_prefix = self._tensorrt_program(precision)
                self.path = f"GPU with TensorRT ({precision.upper()}, dynamic shapes)"
            except Exception as exc:  # conversion depends on the TensorRT install; fall back, say so
                log.warning("TensorRT conversion failed (%s); serving on the plain GPU", str(exc).splitlines()[0])
                tensorrt = False
        config = inference.Config(f"{model_prefix}.json", f"{model_prefix}.pdiparams")
        config.disable_glog_info()
        if gpu:
            config.enable_use_gpu(256, 0)
            if not tensorrt:
                self.path = "GPU (no TensorRT in this Paddle)"
        else:
            self.threads = threads or len(os.sched_getaffinity(0))
            config.disable_gpu()
            config.enable_onednn()
            config.set_cpu_math_library_num_threads(self.threads)
            self.path = f"CPU with oneDNN, {self.threads} threads"
        self._predictor = inference.create_predictor(config)
        log.info("surrogate %s (%s) served on %s", self.folder, self.kind, self.path)

    def _tensorrt_program(self, precision: str) -> Path:
        """Convert the program with paddle.tensorrt once; the result is cached in the folder."""
        import paddle.tensorrt
        from paddle.tensorrt.export import Input, PrecisionMode, TensorRTConfig

        prefix = self.folder / f"tensorrt_{precision}" / "model"
        if Path(f"{prefix}.json").is_file():
            return prefix
        if self.kind == "paramnet":
            d = len(self.meta["parameters"])
            shapes = [(b, d) for b in TRT_BATCH]
        else:
            shapes = [(1, n, 6) for n in TRT_POINTS]
        spec = Input(min_input_shape=shapes[0], optim_input_shape=shapes[1], max_input_shape=shapes[2],
                     name=self.input_name)
        trt = TensorRTConfig(inputs=[spec], precision_mode=PrecisionMode.FP16 if precision == "fp16"
                             else PrecisionMode.FP32)
        trt.save_model_dir = str(prefix)
        paddle.tensorrt.convert(str(self.folder / "model"), trt)
        return prefix

    def _run(self, array: np.ndarray) -> list[np.ndarray]:
        handle = self._predictor.get_input_handle(self._predictor.get_input_names()[0])
        handle.reshape(list(array.shape))
        handle.copy_from_cpu(np.ascontiguousarray(array, dtype=np.float32))
        self._predictor.run()
        return [self._predictor.get_output_handle(n).copy_to_cpu() for n in self._predictor.get_output_names()]

    # ---- ParamNet -------------------------------------------------------------------------
    @property
    def parameter_names(self) -> list[str]:
        return [p["name"] for p in self.meta.get("parameters", [])]

    def predict_parameters(self, params: Params) -> ParamPrediction:
        """params in the units of the metadata's parameters: a mapping of their names to values
        (one design; a parameter trained at one value may be left out), a list of such mappings,
        or an array [B, d] or [d] in their order (parameter_names). A value outside the trained
        range is flagged in out_of_bounds and logged as a warning."""
        if self.kind != "paramnet":
            raise PredictorError(f"'{self.folder}' holds a {self.kind}: use predict_surface")
        x = parameter_matrix(params, self.meta["parameters"])
        names = self.parameter_names
        if x.ndim != 2 or x.shape[1] != len(names):
            raise PredictorError(f"params has shape {np.shape(params)}; this model takes [batch, {len(names)}]: "
                                 f"{', '.join(names)}")
        if not np.all(np.isfinite(x)):
            raise PredictorError("params holds NaN or infinite values")
        low = np.array([p["low"] for p in self.meta["parameters"]])
        high = np.array([p["high"] for p in self.meta["parameters"]])
        span = np.maximum(high - low, 1e-12)
        outside = (x < low - 1e-9 * span) | (x > high + 1e-9 * span)
        if outside.any():
            j = int(np.argmax(outside.any(axis=0)))
            log.warning("%d of %d inputs lie outside the trained range (e.g. %s = %g, trained %g-%g): the "
                        "surrogate extrapolates there", int(outside.any(axis=1).sum()), len(x), names[j],
                        x[outside[:, j].argmax(), j], low[j], high[j])
        mean, std = self._run(x.astype(np.float32))
        return ParamPrediction(cd=mean[:, 0], cd_std=std[:, 0], cl=mean[:, 1], cl_std=std[:, 1],
                               out_of_bounds=outside.any(axis=1))

    # ---- GeoNet ---------------------------------------------------------------------------
    def predict_surface(self, points_m: np.ndarray, normals: np.ndarray) -> SurfacePrediction:
        """points_m [N, 3] on a closed surface in the solver's frame (metres, x downstream, z up,
        the ground at z = 0), normals [N, 3] outward unit normals."""
        if self.kind != "geonet":
            raise PredictorError(f"'{self.folder}' holds a {self.kind}: use predict_parameters")
        points_m, normals = np.asarray(points_m, float), np.asarray(normals, float)
        if points_m.ndim != 2 or points_m.shape[1] != 3 or normals.shape != points_m.shape:
            raise PredictorError(f"points {points_m.shape} and normals {normals.shape} must both be [N, 3]")
        if len(points_m) < 16:
            raise PredictorError(f"{len(points_m)} points are too few to describe a surface: give at least 16")
        lo, hi = np.array(self.meta["trained_extent_m"][0]), np.array(self.meta["trained_extent_m"][1])
        size, trained = points_m.max(0) - points_m.min(0), hi - lo
        if np.any(size > 1.5 * trained) or np.any(size < trained / 1.5):
            log.warning("the surface's extent %s m differs from the trained shapes' %s m by more than 1.5x: "
                        "the surrogate extrapolates", np.round(size, 2).tolist(), np.round(trained, 2).tolist())
        cp, cd = self._run(np.concatenate([points_m, normals], axis=1)[None])
        return SurfacePrediction(cp=cp[0], cd=float(cd[0]))

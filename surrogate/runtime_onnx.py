"""Run an exported surrogate's model.onnx with ONNX Runtime: the Predictor's runtime
"onnxruntime", the engine Triton's ONNX Runtime backend runs (docs/deployment.md).

Where it runs:
- with onnxruntime-gpu (the `gpu` extra) and a GPU: the TensorRT execution provider, FP32 or
  FP16, with the dynamic-shape profile of surrogate/profile.py and its engines cached in the
  folder; where TensorRT cannot start, the CUDA provider; nodes neither takes fall to the CPU;
- otherwise the CPU provider with `threads` threads.
The providers are asked for in that order and the first that ONNX Runtime started is the path.
The GPU providers have not run yet (docs/surrogate.md); the CPU path is tested against the
dygraph model.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from surrogate.errors import PredictorError
from surrogate.meta import SurrogateMeta
from surrogate.profile import profile_strings

#: The file this runtime serves.
FILES = ("model.onnx",)
GPU_PROVIDERS = ("TensorrtExecutionProvider", "CUDAExecutionProvider")
PATHS = {
    "TensorrtExecutionProvider": "the GPU with TensorRT ({precision}, dynamic shapes)",
    "CUDAExecutionProvider": "the GPU with CUDA",
    "CPUExecutionProvider": "the CPU, {threads} threads",
}


def _tensorrt_options(folder: Path, meta: SurrogateMeta, precision: str) -> dict[str, Any]:
    """The TensorRT provider's options: precision, the engine cache in the folder, the profile."""
    low, optimum, high = profile_strings(meta)
    return {
        "trt_fp16_enable": precision == "fp16",
        "trt_engine_cache_enable": True,
        "trt_engine_cache_path": str(folder / f"tensorrt_onnx_{precision}"),
        "trt_profile_min_shapes": low,
        "trt_profile_opt_shapes": optimum,
        "trt_profile_max_shapes": high,
    }


class OnnxRuntime:
    """folder/model.onnx on ONNX Runtime; path says where it runs."""

    def __init__(
        self, folder: Path, meta: SurrogateMeta, device: str, precision: str, threads: int | None
    ) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise PredictorError(
                "runtime onnxruntime: the onnxruntime package is not installed: pip install "
                "onnxruntime (or onnxruntime-gpu, README, Going to a GPU), or use runtime paddle"
            ) from exc
        available = ort.get_available_providers()
        gpu = [p for p in GPU_PROVIDERS if p in available] if device in ("auto", "gpu") else []
        if device == "gpu" and not gpu:
            raise PredictorError(
                "device gpu: this onnxruntime has no TensorRT or CUDA provider: install "
                "onnxruntime-gpu (README, Going to a GPU) or use device cpu"
            )
        providers: list[Any] = [
            (p, _tensorrt_options(folder, meta, precision) if p == GPU_PROVIDERS[0] else {})
            for p in gpu
        ]
        providers.append("CPUExecutionProvider")
        options = ort.SessionOptions()
        options.log_severity_level = 3  # errors only: a GPU provider that cannot start says why
        threads = threads or len(os.sched_getaffinity(0))
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(
            str(folder / "model.onnx"), options, providers=providers
        )
        running = self._session.get_providers()[0]
        if device == "gpu" and running not in GPU_PROVIDERS:
            raise PredictorError(
                f"device gpu: onnxruntime could not start {' or '.join(gpu)} (its log above says "
                "why): check the CUDA and TensorRT libraries, or use device cpu"
            )
        self.path = "ONNX Runtime on " + PATHS[running].format(
            precision=precision.upper(), threads=threads
        )
        self._outputs = [spec.name for spec in meta.outputs]
        self._input = meta.input.name

    def run(self, array: np.ndarray) -> list[np.ndarray]:
        """The model's outputs, in the metadata's order, for one float32 input array."""
        return self._session.run(
            self._outputs, {self._input: np.ascontiguousarray(array, dtype=np.float32)}
        )

"""Run an exported surrogate's Paddle program (model.json + model.pdiparams) with Paddle
Inference: the Predictor's runtime "paddle".

Where it runs:
- a GPU build of Paddle with TensorRT and a GPU: the program converted by Paddle 3's PIR-TensorRT
  (`paddle.tensorrt.convert`, the documented path for PIR `.json` programs; `Config.
  enable_tensorrt_engine` serves only the older `.pdmodel` format), FP16 or FP32, with the
  dynamic-shape profile of surrogate/profile.py; the converted program is cached in the folder;
- a GPU build without TensorRT: plain GPU;
- otherwise the CPU with oneDNN and `threads` threads.
The GPU and TensorRT paths have not run yet (docs/surrogate.md); the CPU path is tested against
the dygraph model.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np

from surrogate.errors import PredictorError
from surrogate.meta import SurrogateMeta
from surrogate.profile import profile_shapes

log = logging.getLogger(__name__)

#: The files this runtime serves.
FILES = ("model.json", "model.pdiparams")


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


class PaddleRuntime:
    """The program of folder on Paddle Inference; path says where it runs."""

    def __init__(
        self, folder: Path, meta: SurrogateMeta, device: str, precision: str, threads: int | None
    ) -> None:
        from paddle import inference

        self.folder, self.meta = folder, meta
        gpu, tensorrt = _paddle_gpu() if device in ("auto", "gpu") else (False, False)
        if device == "gpu" and not gpu:
            raise PredictorError(
                "device gpu: this Paddle has no CUDA or sees no GPU: install paddlepaddle-gpu "
                "(README, Going to a GPU) or use device cpu"
            )
        model_prefix = folder / "model"
        if tensorrt:
            try:
                model_prefix = self._tensorrt_program(precision)
                self.path = (
                    f"Paddle Inference on the GPU with TensorRT ({precision.upper()}, "
                    "dynamic shapes)"
                )
            # conversion depends on the TensorRT install; fall back, say so
            except Exception as exc:
                log.warning(
                    "TensorRT conversion failed (%s); serving on the plain GPU",
                    str(exc).splitlines()[0],
                )
                tensorrt = False
        config = inference.Config(f"{model_prefix}.json", f"{model_prefix}.pdiparams")
        config.disable_glog_info()
        if gpu:
            config.enable_use_gpu(256, 0)
            if not tensorrt:
                self.path = "Paddle Inference on the GPU (no TensorRT in this Paddle)"
        else:
            threads = threads or len(os.sched_getaffinity(0))
            config.disable_gpu()
            config.enable_onednn()
            config.set_cpu_math_library_num_threads(threads)
            self.path = f"Paddle Inference on the CPU with oneDNN, {threads} threads"
        self._predictor = inference.create_predictor(config)

    def _tensorrt_program(self, precision: str) -> Path:
        """Convert the program with paddle.tensorrt once; the result is cached in the folder."""
        import paddle.tensorrt
        from paddle.tensorrt.export import Input, PrecisionMode, TensorRTConfig

        prefix = self.folder / f"tensorrt_{precision}" / "model"
        if Path(f"{prefix}.json").is_file():
            return prefix
        low, optimum, high = (tuple(s) for s in profile_shapes(self.meta))
        spec = Input(
            min_input_shape=low,
            optim_input_shape=optimum,
            max_input_shape=high,
            name=self.meta.input.name,
        )
        trt = TensorRTConfig(
            inputs=[spec],
            precision_mode=PrecisionMode.FP16 if precision == "fp16" else PrecisionMode.FP32,
        )
        trt.save_model_dir = str(prefix)
        paddle.tensorrt.convert(str(self.folder / "model"), trt)
        return prefix

    def run(self, array: np.ndarray) -> list[np.ndarray]:
        """The program's outputs, in order, for one float32 input array."""
        handle = self._predictor.get_input_handle(self._predictor.get_input_names()[0])
        handle.reshape(list(array.shape))
        handle.copy_from_cpu(np.ascontiguousarray(array, dtype=np.float32))
        self._predictor.run()
        return [
            self._predictor.get_output_handle(n).copy_to_cpu()
            for n in self._predictor.get_output_names()
        ]

"""A Triton Inference Server model repository entry for an exported surrogate:

    OUT/<name>/config.pbtxt     ONNX Runtime backend, dynamic batching, the input and outputs
                                with names, dtypes and dims from the metadata, and TensorRT as
                                the GPU execution accelerator (FP32 or FP16, the dynamic-shape
                                profile of surrogate/profile.py, engines cached)
    OUT/<name>/1/model.onnx     the exported model.onnx (version 1)

docs/deployment.md starts Triton on it and queries it. The text is written by hand (no Triton
package is needed to write it); a test parses it with Triton's own protobuf (tritonclient's
model_config_pb2) and checks every field against the model.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from solver.atomic import atomic_folder
from surrogate.errors import PredictorError
from surrogate.kinds import KINDS
from surrogate.meta import SurrogateMeta, TensorSpec
from surrogate.predictor import PRECISIONS
from surrogate.profile import profile_strings

#: Triton's name of the metadata's dtypes.
DATA_TYPES = {"float32": "TYPE_FP32"}
#: How long Triton's dynamic batcher waits to fill a batch [µs].
MAX_QUEUE_DELAY_US = 100
#: TensorRT's scratch memory [bytes].
TENSORRT_WORKSPACE_BYTES = 1 << 30
NAME = re.compile(r"[A-Za-z0-9_.-]+")


def triton_dims(shape: list[int]) -> tuple[list[int], bool]:
    """A metadata shape [batch, ...] (-1: dynamic) as Triton's dims (the batch axis left out),
    and whether the tensor has the batch axis only: Triton then takes dims [1] and a reshape to
    [] (its documented form for a [batch] tensor)."""
    dims = list(shape[1:])
    return (dims, False) if dims else ([1], True)


def _tensor(spec: TensorSpec) -> str:
    dims, batch_only = triton_dims(spec.shape)
    reshape = "\n    reshape: { shape: [ ] }" if batch_only else ""
    return (
        f'  {{\n    name: "{spec.name}"\n    data_type: {DATA_TYPES[spec.dtype]}\n'
        f"    dims: [ {', '.join(map(str, dims))} ]{reshape}\n  }}"
    )


def model_config(meta: SurrogateMeta, name: str, precision: str) -> str:
    """config.pbtxt of the model whose metadata is meta, served as name; precision (fp32 | fp16)
    is TensorRT's."""
    low, optimum, high = profile_strings(meta)
    accelerator = {
        "precision_mode": precision.upper(),
        "max_workspace_size_bytes": str(TENSORRT_WORKSPACE_BYTES),
        "trt_engine_cache_enable": "1",
        "trt_engine_cache_path": f"/tmp/tensorrt_cache/{name}",
        "trt_profile_min_shapes": low,
        "trt_profile_opt_shapes": optimum,
        "trt_profile_max_shapes": high,
    }
    parameters = "\n".join(
        f'        parameters {{ key: "{k}" value: "{v}" }}' for k, v in accelerator.items()
    )
    outputs = ",\n".join(_tensor(spec) for spec in meta.outputs)
    return f"""# Slipstream {meta.kind}, written by `python -m surrogate.serve triton`
# (docs/deployment.md)
name: "{name}"
backend: "onnxruntime"
max_batch_size: {KINDS[meta.kind].batch_profile[2]}
input [
{_tensor(meta.input)}
]
output [
{outputs}
]
dynamic_batching {{
  max_queue_delay_microseconds: {MAX_QUEUE_DELAY_US}
}}
optimization {{
  execution_accelerators {{
    gpu_execution_accelerator: [
      {{
        name: "tensorrt"
{parameters}
      }}
    ]
  }}
}}
"""


def default_name(meta: SurrogateMeta) -> str:
    """The training config's name (e.g. paramnet), else the model's kind."""
    return str(meta.training.get("name") or meta.kind)


def write_repository(
    folder: Path, out: Path, name: str | None = None, precision: str = "fp32"
) -> Path:
    """Write the exported folder's model into the Triton model repository out as name (default:
    default_name), replacing an entry of that name; returns out/name."""
    meta = SurrogateMeta.read(folder, ("model.onnx",))
    name = name or default_name(meta)
    if not NAME.fullmatch(name):
        raise PredictorError(
            f"model name '{name}' is not a folder name: use letters, digits, '_', '-' and '.'"
        )
    if precision not in PRECISIONS:
        raise PredictorError(
            f"precision '{precision}' is unknown: use one of {', '.join(PRECISIONS)}"
        )
    with atomic_folder(out / name) as tmp:
        (tmp / "config.pbtxt").write_text(model_config(meta, name, precision))
        (tmp / "1").mkdir()
        shutil.copyfile(folder / "model.onnx", tmp / "1" / "model.onnx")
    return out / name

"""The exported Paddle program as ONNX (model.onnx), the artifact Triton's ONNX Runtime backend
and the Predictor's onnxruntime runtime serve.

paddle2onnx 2.1 converts Paddle 3's PIR program (model.json + model.pdiparams), in a child
process because it aborts its process on an operator it cannot convert. The graph's outputs are
then renamed after the metadata's outputs (mean, std or cp, cd), the dynamic axes named (batch,
points), and the folder's metadata embedded as the model's metadata property "surrogate.json",
so a model.onnx copied on its own (into a Triton repository) still says what it is.
"""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

from solver.errors import SlipstreamError
from surrogate.meta import SurrogateMeta

log = logging.getLogger(__name__)

#: The ONNX operator set written: ONNX Runtime serves it from 1.13, TensorRT 8.6 and 10 parse it.
OPSET = 17
#: Names of the dynamic axes, by position.
AXIS_NAMES = ("batch", "points")
#: The metadata property that holds surrogate.json.
METADATA_KEY = "surrogate.json"
#: Terminal colour codes (paddle2onnx colours its errors).
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class OnnxExportError(SlipstreamError):
    """paddle2onnx could not convert the program."""


def _paddle2onnx(folder: Path) -> bytes:
    """folder/model.json and model.pdiparams as serialized ONNX. paddle2onnx 2.1 aborts its
    process (SIGABRT) on an operator it cannot convert, and prints its progress from C++: it runs
    in a child process (this module's main), whose output is logged at debug level; a failure
    becomes an OnnxExportError with paddle2onnx's own reason."""
    raw = folder.resolve() / ".paddle2onnx.onnx"
    try:
        proc = subprocess.run(
            [sys.executable, "-m", __name__, str(folder.resolve()), str(raw)],
            capture_output=True,
            text=True,
            errors="replace",
            cwd=Path(__file__).resolve().parent.parent,
        )
        log.debug("paddle2onnx said:\n%s%s", proc.stdout, proc.stderr)
        if proc.returncode != 0:
            lines = [
                ANSI.sub("", line).strip() for line in (proc.stdout + proc.stderr).splitlines()
            ]
            reasons = [line for line in lines if "ERROR" in line or "not supported" in line] or [
                line for line in lines if line
            ][-1:]
            raise OnnxExportError(
                f"paddle2onnx {version('paddle2onnx')} could not convert {folder / 'model.json'} "
                f"to ONNX opset {OPSET} (exit code {proc.returncode}): {'; '.join(reasons)}"
            )
        return raw.read_bytes()
    finally:
        raw.unlink(missing_ok=True)


def _set_shape(value: Any, shape: list[int]) -> None:
    """Write shape into an ONNX graph input or output, dynamic axes (-1) named by position."""
    dims = value.type.tensor_type.shape.dim
    del dims[:]
    for axis, size in enumerate(shape):
        dim = dims.add()
        if size < 0:
            dim.dim_param = AXIS_NAMES[axis]
        else:
            dim.dim_value = size


def write_onnx(folder: Path, meta: SurrogateMeta) -> None:
    """Convert folder's Paddle program into folder/model.onnx with the names, axes and metadata
    of meta (the folder's surrogate.json)."""
    import onnx

    model = onnx.load_from_string(_paddle2onnx(folder))
    graph, outputs = model.graph, meta.outputs
    if len(graph.input) != 1 or len(graph.output) != len(outputs):
        raise OnnxExportError(
            f"the ONNX graph has {len(graph.input)} input(s) and {len(graph.output)} output(s); "
            f"the metadata names 1 and {len(outputs)}"
        )
    renames = {value.name: spec.name for value, spec in zip(graph.output, outputs, strict=False)}
    for node in graph.node:
        node.input[:] = [renames.get(n, n) for n in node.input]
        node.output[:] = [renames.get(n, n) for n in node.output]
    for value, spec in zip(graph.output, outputs, strict=False):
        value.name = spec.name
        _set_shape(value, spec.shape)
    graph.input[0].name = meta.input.name
    _set_shape(graph.input[0], meta.input.shape)
    # paddle2onnx's intermediate shapes hold the traced sizes; ONNX Runtime infers its own.
    del graph.value_info[:]
    entry = model.metadata_props.add()
    entry.key, entry.value = METADATA_KEY, json.dumps(meta.to_dict())
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, str(folder / "model.onnx"))


def main(argv: list[str]) -> None:
    """The child process of _paddle2onnx: convert the program of folder argv[0] into the file
    argv[1], unchanged."""
    import paddle2onnx

    folder, target = Path(argv[0]), Path(argv[1])
    target.write_bytes(
        paddle2onnx.export(
            str(folder / "model.json"),
            str(folder / "model.pdiparams"),
            None,
            opset_version=OPSET,
            auto_upgrade_opset=False,
            enable_onnx_checker=True,
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])

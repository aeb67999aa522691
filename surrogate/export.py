"""Export a trained surrogate into a self-contained folder that surrogate.Predictor serves:

    model.json, model.pdiparams   the program (Paddle 3's PIR) and weights, from paddle.jit.save;
                                  the normalization constants are inside the program
    model.onnx                    the same program as ONNX (surrogate/onnx_export.py), with the
                                  metadata embedded: what Triton and the onnxruntime runtime serve
    weights.pdparams              the same weights for the dygraph model (load_dygraph): the
                                  optimizer differentiates through it, retraining starts from it
    surrogate.json                metadata: format version, kind, input and output spec, the
                                  parameter names, units and trained bounds, the normalization,
                                  the dataset's hash, the test metrics, the versions

The folder is written beside its final place and renamed into it (solver.atomic.atomic_folder),
so a reader never sees half of one.
"""

from __future__ import annotations

import platform
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import paddle
import paddle2onnx
from paddle.static import InputSpec

from solver import __version__
from solver.atomic import atomic_folder
from surrogate.kinds import KINDS, SurrogateKind
from surrogate.meta import FILENAME, FORMAT_VERSION, SurrogateMeta
from surrogate.onnx_export import OPSET, write_onnx


def export_model(
    model: paddle.nn.Layer,
    kind: SurrogateKind,
    folder: Path,
    architecture: dict[str, Any],
    metadata: dict[str, Any],
) -> None:
    """Save model (in eval mode), a network of the given kind, as a Paddle program and as ONNX,
    its architecture (the constructor's sizes) and its metadata into folder, replacing what was
    there."""
    name = kind.input_name
    shape = kind.input_shape(metadata)
    model.eval()
    with atomic_folder(folder) as tmp:
        paddle.jit.save(
            model, str(tmp / "model"), input_spec=[InputSpec(list(shape), "float32", name=name)]
        )
        paddle.save(model.state_dict(), str(tmp / "weights.pdparams"))
        normalization = {
            k: np.asarray(v.numpy()).tolist()
            for k, v in model.state_dict().items()
            if k in ("x_mean", "x_scale", "y_mean", "y_scale", "xyz_mean", "xyz_scale", "targets")
        }
        meta = SurrogateMeta.from_dict(
            {
                "format_version": FORMAT_VERSION,
                "kind": kind.name,
                "input": {"name": name, "shape": shape, "dtype": "float32"},
                "outputs": kind.outputs,
                "architecture": architecture,
                "normalization": normalization,
                **metadata,
                "onnx_opset": OPSET,
                "versions": {
                    "slipstream": __version__,
                    "paddle": paddle.__version__,
                    "paddle2onnx": paddle2onnx.__version__,
                    "python": platform.python_version(),
                },
                "created_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            },
            "the exported model",
        )
        write_onnx(tmp, meta)
        (tmp / FILENAME).write_text(meta.to_json())


def load_dygraph(folder: Path) -> paddle.nn.Layer:
    """The exported model as a dygraph layer in eval mode (gradients flow to its inputs, which a
    program loaded by paddle.jit.load does not give)."""
    meta = SurrogateMeta.read(folder)
    model = KINDS[meta.kind].network(meta.architecture, meta.normalization)
    model.set_state_dict(paddle.load(str(folder / "weights.pdparams")))
    model.eval()
    return model

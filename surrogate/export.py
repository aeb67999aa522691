"""Export a trained surrogate into a self-contained folder that surrogate.Predictor serves:

    model.json, model.pdiparams   the program (Paddle 3's PIR) and weights, from paddle.jit.save;
                                  the normalization constants are inside the program
    weights.pdparams              the same weights for the dygraph model (load_dygraph): the
                                  optimizer differentiates through it, retraining starts from it
    surrogate.json                metadata: format version, kind, input and output spec, the
                                  parameter names, units and trained bounds, the normalization,
                                  the dataset's hash, the test metrics, the versions

The folder is written beside its final place and renamed into it, so a reader never sees half
of one.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import paddle
from paddle.static import InputSpec

from solver import __version__
from surrogate.models import GeoNet, ParamEnsemble

#: Bumped when the folder's layout or the program's inputs or outputs change; the Predictor
#: refuses other versions.
FORMAT_VERSION = 1

#: The program's input name per kind; its shape is [batch, parameters] or [batch, points, 6].
INPUT_NAMES = {"paramnet": "params", "geonet": "points"}
OUTPUTS = {"paramnet": ["mean [B, 2]: Cd, Cl", "std [B, 2]: their standard deviations"],
           "geonet": ["cp [B, N]: Cp at each point", "cd [B]"]}


def export_model(model: ParamEnsemble | GeoNet, kind: str, folder: Path, architecture: dict[str, Any],
                 metadata: dict[str, Any]) -> None:
    """Save model (in eval mode), its architecture (the constructor's sizes) and its metadata
    into folder, replacing what was there."""
    name = INPUT_NAMES[kind]
    shape = [None, len(metadata["parameters"])] if kind == "paramnet" else [None, None, 6]
    model.eval()
    tmp = folder.parent / f".{folder.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    paddle.jit.save(model, str(tmp / "model"), input_spec=[InputSpec(shape, "float32", name=name)])
    paddle.save(model.state_dict(), str(tmp / "weights.pdparams"))
    normalization = {k: np.asarray(v.numpy()).tolist() for k, v in model.state_dict().items()
                     if k in ("x_mean", "x_scale", "y_mean", "y_scale", "xyz_mean", "xyz_scale", "targets")}
    meta = {"format_version": FORMAT_VERSION, "kind": kind,
            "input": {"name": name, "shape": shape, "dtype": "float32"}, "outputs": OUTPUTS[kind],
            "architecture": architecture,
            "normalization": normalization, **metadata,
            "versions": {"slipstream": __version__, "paddle": paddle.__version__, "python": platform.python_version()},
            "created_utc": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    (tmp / "surrogate.json").write_text(json.dumps(meta, indent=2) + "\n")
    old = folder.parent / f".{folder.name}.old-{os.getpid()}"
    if folder.exists():
        os.replace(folder, old)
    os.replace(tmp, folder)
    shutil.rmtree(old, ignore_errors=True)


def load_dygraph(folder: Path) -> ParamEnsemble | GeoNet:
    """The exported model as a dygraph layer in eval mode (gradients flow to its inputs, which a
    program loaded by paddle.jit.load does not give)."""
    meta = json.loads((folder / "surrogate.json").read_text())
    a, n = meta["architecture"], meta["normalization"]
    if meta["kind"] == "paramnet":
        model: ParamEnsemble | GeoNet = ParamEnsemble(
            a["n_params"], a["n_targets"], a["members"], a["hidden"], np.array(n["x_mean"]), np.array(n["x_scale"]),
            np.array(n["y_mean"]), np.array(n["y_scale"]))
    else:
        t = n["targets"]
        model = GeoNet(a["width"], np.array(n["xyz_mean"]), float(n["xyz_scale"][0]), *t)
    model.set_state_dict(paddle.load(str(folder / "weights.pdparams")))
    model.eval()
    return model

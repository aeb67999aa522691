"""Export a trained surrogate into a self-contained folder that surrogate.Predictor serves:

    model.json, model.pdiparams   the program (Paddle 3's PIR) and weights, from paddle.jit.save;
                                  the normalization constants are inside the program
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

INPUTS = {"paramnet": ("params", [None, None]), "geonet": ("points", [None, None, 6])}
OUTPUTS = {"paramnet": ["mean [B, 2]: Cd, Cl", "std [B, 2]: their standard deviations"],
           "geonet": ["cp [B, N]: Cp at each point", "cd [B]"]}


def export_model(model: ParamEnsemble | GeoNet, kind: str, folder: Path, metadata: dict[str, Any]) -> None:
    """Save model (in eval mode) and its metadata into folder, replacing what was there."""
    name, shape = INPUTS[kind]
    if kind == "paramnet":
        shape = [None, len(metadata["parameters"])]
    model.eval()
    tmp = folder.parent / f".{folder.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    paddle.jit.save(model, str(tmp / "model"), input_spec=[InputSpec(shape, "float32", name=name)])
    normalization = {k: np.asarray(v.numpy()).tolist() for k, v in model.state_dict().items()
                     if k in ("x_mean", "x_scale", "y_mean", "y_scale", "xyz_mean", "xyz_scale", "targets")}
    meta = {"format_version": FORMAT_VERSION, "kind": kind,
            "input": {"name": name, "shape": shape, "dtype": "float32"}, "outputs": OUTPUTS[kind],
            "normalization": normalization, **metadata,
            "versions": {"slipstream": __version__, "paddle": paddle.__version__, "python": platform.python_version()},
            "created_utc": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    (tmp / "surrogate.json").write_text(json.dumps(meta, indent=2) + "\n")
    old = folder.parent / f".{folder.name}.old-{os.getpid()}"
    if folder.exists():
        os.replace(folder, old)
    os.replace(tmp, folder)
    shutil.rmtree(old, ignore_errors=True)

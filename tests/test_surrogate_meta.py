"""surrogate.json through one typed dataclass (surrogate/meta.py): a round trip keeps every key,
a damaged file is one line naming the key, and the serving side reads it without Paddle."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT

from surrogate.errors import PredictorError
from surrogate.meta import FORMAT_VERSION, SurrogateMeta
from surrogate.sweep_config import Range

PARAMNET = {
    "format_version": FORMAT_VERSION,
    "kind": "paramnet",
    "input": {"name": "params", "shape": [-1, 2], "dtype": "float32"},
    "outputs": [
        {"name": "mean", "shape": [-1, 2], "dtype": "float32", "meaning": "Cd, Cl"},
        {"name": "std", "shape": [-1, 2], "dtype": "float32", "meaning": "sigma"},
    ],
    "architecture": {"n_inputs": 2, "n_targets": 2, "members": 3, "hidden": [8]},
    "normalization": {"x_mean": [0.0, 0.0], "x_scale": [1.0, 1.0]},
    "onnx_opset": 17,
    "versions": {"slipstream": "0.2.0", "python": "3.11.7"},
    "created_utc": "2026-12-04T19:00:00+00:00",
    "dataset": {"folder": "results/datasets/d", "config_hash": "abc", "family": "car", "shapes": 8},
    "split": {"validation": 0.2, "test": 0.2, "seed": 0},
    "metrics": {"cd_r2": 0.9},
    "training": {"name": "paramnet", "model": "paramnet"},
    "parameters": [
        {"name": "backlight_angle_deg", "unit": "deg", "low": 15.0, "high": 45.0},
        {"name": "boat_tail_deg", "unit": "deg", "low": 0.0, "high": 12.0},
    ],
}


def test_a_round_trip_keeps_every_key_and_types_the_parts():
    meta = SurrogateMeta.from_dict(PARAMNET, "test")
    assert meta.input.name == "params" and [o.name for o in meta.outputs] == ["mean", "std"]
    assert meta.dataset is not None and meta.dataset.family == "car"
    assert meta.parameters == [
        Range("backlight_angle_deg", "deg", 15.0, 45.0),
        Range("boat_tail_deg", "deg", 0.0, 12.0),
    ]
    assert json.loads(meta.to_json()) == PARAMNET  # a GeoNet's keys are left out, not null


@pytest.mark.parametrize(
    "change, words",
    [
        ({"format_version": 1}, "exported in format 1"),
        ({"kind": "pointnet"}, "unknown kind 'pointnet'"),
        ({"input": {"name": "params"}}, "lacks or mistypes"),
    ],
)
def test_a_damaged_file_is_one_line(tmp_path, change, words):
    (tmp_path / "surrogate.json").write_text(json.dumps({**PARAMNET, **change}))
    with pytest.raises(PredictorError, match=words) as caught:
        SurrogateMeta.read(tmp_path)
    assert "\n" not in str(caught.value)


def test_the_serving_side_reads_it_without_paddle():
    """The Predictor (ONNX Runtime path), the Triton export and the pipeline import no Paddle:
    with Paddle made unimportable they still load."""
    code = (
        "import sys; sys.modules['paddle'] = None\n"
        "import surrogate.predictor, surrogate.triton, optimize.pipeline\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr

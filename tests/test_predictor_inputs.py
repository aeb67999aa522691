"""The Predictor's ParamNet inputs through both runtimes (Paddle Inference and ONNX Runtime): a
mapping of parameter names to values, a list of such mappings, and one clear error for an
unknown or a missing name, a wrong shape, a folder without model.onnx or a missing onnxruntime.
The model is an untrained ensemble exported as train_surrogate.py exports one (no dataset
needed)."""

from __future__ import annotations

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")

#: Three parameters; the last was held at one value in the (imagined) training data.
PARAMETERS = [
    {"name": "hood_angle_deg", "unit": "deg", "low": 0.0, "high": 12.0},
    {"name": "backlight_angle_deg", "unit": "deg", "low": 15.0, "high": 45.0},
    {"name": "length_m", "unit": "m", "low": 4.5, "high": 4.5},
]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The exported folder of an untrained three-parameter ensemble."""
    from surrogate.export import export_model
    from surrogate.kinds import KINDS
    from surrogate.models import ParamEnsemble

    paddle.seed(0)
    architecture = {"n_params": 3, "n_targets": 2, "members": 2, "hidden": [8]}
    model = ParamEnsemble(
        3,
        2,
        2,
        [8],
        np.array([6.0, 30.0, 4.5]),
        np.array([3.0, 9.0, 1.0]),
        np.array([0.4, 0.0]),
        np.array([0.05, 0.1]),
    )
    folder = tmp_path_factory.mktemp("paramnet") / "model"
    export_model(model, KINDS["paramnet"], folder, architecture, {"parameters": PARAMETERS})
    return folder


@pytest.fixture(scope="module", params=["paddle", "onnxruntime"])
def predictor(request, exported):
    from surrogate.predictor import Predictor

    return Predictor(exported, runtime=request.param, device="cpu", threads=1)


def test_a_mapping_by_name_equals_the_array_in_the_models_order(predictor):
    by_array = predictor.predict_parameters(np.array([6.0, 25.0, 4.5]))
    by_name = predictor.predict_parameters(
        {"backlight_angle_deg": 25.0, "hood_angle_deg": 6.0, "length_m": 4.5}
    )
    np.testing.assert_array_equal(by_name.cd, by_array.cd)
    np.testing.assert_array_equal(by_name.cl_std, by_array.cl_std)
    fixed_left_out = predictor.predict_parameters(
        {"backlight_angle_deg": 25.0, "hood_angle_deg": 6.0}
    )
    np.testing.assert_array_equal(fixed_left_out.cd, by_array.cd)


def test_a_list_of_mappings_is_a_batch(predictor):
    designs = [
        {"hood_angle_deg": 0.0, "backlight_angle_deg": 20.0},
        {"hood_angle_deg": 12.0, "backlight_angle_deg": 40.0, "length_m": 4.5},
    ]
    got = predictor.predict_parameters(designs)
    want = predictor.predict_parameters(np.array([[0.0, 20.0, 4.5], [12.0, 40.0, 4.5]]))
    assert got.cd.shape == (2,)
    np.testing.assert_array_equal(got.cd, want.cd)
    np.testing.assert_array_equal(got.out_of_bounds, [False, False])


def test_unknown_missing_non_numeric_names_and_wrong_shapes_get_one_clear_error(predictor):
    from surrogate.predictor import PredictorError

    with pytest.raises(
        PredictorError,
        match="unknown parameter\\(s\\) backlight_deg.*This model takes "
        "hood_angle_deg, backlight_angle_deg, length_m",
    ):
        predictor.predict_parameters({"hood_angle_deg": 6.0, "backlight_deg": 25.0})
    with pytest.raises(PredictorError, match="missing parameter\\(s\\) hood_angle_deg\\."):
        predictor.predict_parameters(
            [{"backlight_angle_deg": 25.0, "hood_angle_deg": 1.0}, {"backlight_angle_deg": 25.0}]
        )
    with pytest.raises(PredictorError, match="must be a number"):
        predictor.predict_parameters({"hood_angle_deg": "six", "backlight_angle_deg": 25.0})
    with pytest.raises(PredictorError, match="mixes mappings"):
        predictor.predict_parameters(
            [{"hood_angle_deg": 6.0, "backlight_angle_deg": 25.0}, [6.0, 25.0, 4.5]]
        )
    with pytest.raises(PredictorError, match="not an array of numbers"):
        predictor.predict_parameters([[6.0, 25.0], [6.0]])
    with pytest.raises(
        PredictorError, match=r"params has shape \(2, 5\); this model takes \[batch, 3\]"
    ):
        predictor.predict_parameters(np.zeros((2, 5)))
    with pytest.raises(PredictorError, match="holds a paramnet: use predict_parameters"):
        predictor.predict_surface(np.zeros((20, 3)), np.zeros((20, 3)))


def test_both_runtimes_answer_the_same_figures(exported):
    from surrogate.predictor import Predictor

    designs = np.random.default_rng(0).uniform([0.0, 15.0, 4.5], [12.0, 45.0, 4.5], (257, 3))
    paddle_result = Predictor(exported, runtime="paddle", device="cpu").predict_parameters(designs)
    onnx_result = Predictor(exported, runtime="onnxruntime", device="cpu").predict_parameters(
        designs
    )
    for field in ("cd", "cd_std", "cl", "cl_std"):
        np.testing.assert_allclose(
            getattr(onnx_result, field), getattr(paddle_result, field), rtol=1e-5, atol=1e-6
        )


def test_a_folder_without_model_onnx_a_missing_onnxruntime_and_unknown_options_are_one_line(
    exported, tmp_path, monkeypatch
):
    import shutil
    import sys

    from surrogate.predictor import Predictor, PredictorError

    folder = tmp_path / "model"
    shutil.copytree(exported, folder)
    (folder / "model.onnx").unlink()
    with pytest.raises(PredictorError, match="lacks model.onnx: export it again") as err:
        Predictor(folder, runtime="onnxruntime")
    assert "\n" not in str(err.value)
    Predictor(folder, runtime="paddle", device="cpu")  # the Paddle runtime does not need it
    with pytest.raises(
        PredictorError, match="runtime 'tensorrt' is unknown: use one of paddle, onnxruntime"
    ):
        Predictor(exported, runtime="tensorrt")
    with pytest.raises(PredictorError, match="device 'tpu' is unknown"):
        Predictor(exported, device="tpu")
    monkeypatch.setitem(
        sys.modules, "onnxruntime", None
    )  # import onnxruntime now raises ImportError
    with pytest.raises(
        PredictorError, match="the onnxruntime package is not installed: pip install onnxruntime"
    ) as err:
        Predictor(exported, runtime="onnxruntime")
    assert "\n" not in str(err.value)


def test_a_folder_of_an_unknown_kind_is_refused_in_one_line(exported, tmp_path):
    import json
    import shutil

    from surrogate.predictor import Predictor, PredictorError

    folder = tmp_path / "model"
    shutil.copytree(exported, folder)
    meta = json.loads((folder / "surrogate.json").read_text())
    (folder / "surrogate.json").write_text(json.dumps({**meta, "kind": "pointnet"}))
    with pytest.raises(
        PredictorError, match="unknown kind 'pointnet'; this version serves paramnet, geonet"
    ) as err:
        Predictor(folder, runtime="paddle", device="cpu")
    assert "\n" not in str(err.value)

"""The Predictor's ParamNet inputs: a mapping of parameter names to values, a list of such
mappings, and one clear error for an unknown or a missing name. The model is an untrained
ensemble exported as train_surrogate.py exports one (no dataset needed)."""

from __future__ import annotations

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")

#: Three parameters; the last was held at one value in the (imagined) training data.
PARAMETERS = [{"name": "hood_angle_deg", "unit": "deg", "low": 0.0, "high": 12.0},
              {"name": "backlight_angle_deg", "unit": "deg", "low": 15.0, "high": 45.0},
              {"name": "length_m", "unit": "m", "low": 4.5, "high": 4.5}]


@pytest.fixture(scope="module")
def predictor(tmp_path_factory):
    from surrogate.export import export_model
    from surrogate.models import ParamEnsemble
    from surrogate.predictor import Predictor

    paddle.seed(0)
    architecture = {"n_params": 3, "n_targets": 2, "members": 2, "hidden": [8]}
    model = ParamEnsemble(3, 2, 2, [8], np.array([6.0, 30.0, 4.5]), np.array([3.0, 9.0, 1.0]),
                          np.array([0.4, 0.0]), np.array([0.05, 0.1]))
    folder = tmp_path_factory.mktemp("paramnet") / "model"
    export_model(model, "paramnet", folder, architecture, {"parameters": PARAMETERS})
    return Predictor(folder, device="cpu", threads=1)


def test_a_mapping_by_name_equals_the_array_in_the_models_order(predictor):
    by_array = predictor.predict_parameters(np.array([6.0, 25.0, 4.5]))
    by_name = predictor.predict_parameters({"backlight_angle_deg": 25.0, "hood_angle_deg": 6.0, "length_m": 4.5})
    np.testing.assert_array_equal(by_name.cd, by_array.cd)
    np.testing.assert_array_equal(by_name.cl_std, by_array.cl_std)
    fixed_left_out = predictor.predict_parameters({"backlight_angle_deg": 25.0, "hood_angle_deg": 6.0})
    np.testing.assert_array_equal(fixed_left_out.cd, by_array.cd)


def test_a_list_of_mappings_is_a_batch(predictor):
    designs = [{"hood_angle_deg": 0.0, "backlight_angle_deg": 20.0},
               {"hood_angle_deg": 12.0, "backlight_angle_deg": 40.0, "length_m": 4.5}]
    got = predictor.predict_parameters(designs)
    want = predictor.predict_parameters(np.array([[0.0, 20.0, 4.5], [12.0, 40.0, 4.5]]))
    assert got.cd.shape == (2,)
    np.testing.assert_array_equal(got.cd, want.cd)
    np.testing.assert_array_equal(got.out_of_bounds, [False, False])


def test_unknown_missing_and_non_numeric_names_get_one_clear_error(predictor):
    from surrogate.predictor import PredictorError

    with pytest.raises(PredictorError, match="unknown parameter\\(s\\) backlight_deg.*This model takes "
                                             "hood_angle_deg, backlight_angle_deg, length_m"):
        predictor.predict_parameters({"hood_angle_deg": 6.0, "backlight_deg": 25.0})
    with pytest.raises(PredictorError, match="missing parameter\\(s\\) hood_angle_deg\\."):
        predictor.predict_parameters([{"backlight_angle_deg": 25.0, "hood_angle_deg": 1.0},
                                      {"backlight_angle_deg": 25.0}])
    with pytest.raises(PredictorError, match="must be a number"):
        predictor.predict_parameters({"hood_angle_deg": "six", "backlight_angle_deg": 25.0})
    with pytest.raises(PredictorError, match="mixes mappings"):
        predictor.predict_parameters([{"hood_angle_deg": 6.0, "backlight_angle_deg": 25.0}, [6.0, 25.0, 4.5]])
    with pytest.raises(PredictorError, match="not an array of numbers"):
        predictor.predict_parameters([[6.0, 25.0], [6.0]])

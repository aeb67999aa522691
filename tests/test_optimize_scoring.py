"""The optimizer's one scoring rule: CMA-ES's path (numpy, through Problem.evaluate) and the
gradient path (Paddle tensors, through gradient_score) give the same number for the same design,
a limit of 0 scores finitely, and the frontal area refuses a dataset without a reference length."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from optimize.design_space import make_design_space
from optimize.opt_config import ConstraintConfig, OptimizeConfig, UncertaintyConfig
from optimize.problem import LIMIT_FLOOR, PENALTY, Problem
from shapes.car import PARAMETERS
from solver.errors import ConfigError
from surrogate.sweep_config import Range

paddle = pytest.importorskip("paddle")

CAR = Path(__file__).resolve().parents[1] / "cases" / "car.yaml"
TRAINED = [Range(p.name, p.unit, p.low, p.high) for p in PARAMETERS]
NAMES = [p.name for p in PARAMETERS]
#: A made-up surrogate, linear in the parameters: Cd and sigma(Cd) [-].
CD_WEIGHTS = np.linspace(-0.01, 0.01, len(PARAMETERS))
STD_WEIGHTS = np.linspace(0.0, 0.002, len(PARAMETERS))


def predict(params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return 0.3 + params @ CD_WEIGHTS, 0.001 + params @ STD_WEIGHTS


def model(params):
    """predict as a Paddle function, the way load_dygraph's ensemble answers: [n, 1] each."""
    cd_w = paddle.to_tensor(CD_WEIGHTS[:, None].astype(np.float32))
    std_w = paddle.to_tensor(STD_WEIGHTS[:, None].astype(np.float32))
    return 0.3 + paddle.matmul(params, cd_w), 0.001 + paddle.matmul(params, std_w)


def both_scores(config: OptimizeConfig, unit: np.ndarray) -> tuple[Problem, float, float]:
    """The problem, and the score of one unit-cube point by CMA-ES's path and by the gradient
    path."""
    from optimize.run import gradient_score

    space = make_design_space(config, "car", TRAINED)
    problem = Problem(space, config, predict)
    numpy_score = float(problem.evaluate(space.to_params(unit)).score[0])
    paddle_score = float(
        gradient_score(problem, model)(paddle.to_tensor(unit[None].astype(np.float32)))[0]
    )
    return problem, numpy_score, paddle_score


def test_both_methods_score_a_design_the_same():
    """Two violated constraints (their violations summed, then squared), kappa and a trust region
    the design lies outside: every term of the rule counts, in both paths, the same."""
    config = OptimizeConfig(
        fixed=[
            n for n in NAMES if n not in ("backlight_angle_deg", "boat_tail_deg", "hood_angle_deg")
        ],
        constraints=[
            ConstraintConfig(quantity="backlight_angle_deg", max=30.0),
            ConstraintConfig(quantity="boat_tail_deg", min=8.0, max=10.0),
        ],
        uncertainty=UncertaintyConfig(kappa=2.0, max_sigma_counts=20.0),
    )
    unit = np.array([0.5, 0.9, 0.25])  # hood 6 deg, backlight 42 deg, boat tail 3 deg
    problem, numpy_score, paddle_score = both_scores(config, unit)
    params = problem.space.to_params(unit)[0]
    assert params[NAMES.index("backlight_angle_deg")] == pytest.approx(42.0)
    cd, std = predict(params[None])
    violation = (42.0 - 30.0) / 30.0 + (8.0 - 3.0) / 8.0  # each over its own limit
    trust = (std[0] / 1e-3 - 20.0) / 20.0
    assert trust > 0
    expected = cd[0] + 2.0 * std[0] + PENALTY * (violation**2 + trust**2)
    assert numpy_score == pytest.approx(expected, rel=1e-12)
    assert paddle_score == pytest.approx(numpy_score, rel=1e-6)  # float32 arithmetic in Paddle


def test_a_limit_of_zero_gives_a_finite_score_in_both_paths():
    """diffuser_angle_deg max 0 (documented range 0-12 deg): 4 deg beyond it is a violation of
    4 / (LIMIT_FLOOR * 12); the descent's gradient there is finite too."""
    from optimize.run import gradient_score

    fixed = [n for n in NAMES if n != "diffuser_angle_deg"]
    on_zero = ConstraintConfig(quantity="diffuser_angle_deg", max=0.0)
    config = OptimizeConfig(
        fixed=fixed, constraints=[on_zero, ConstraintConfig(quantity="volume_m3", min=0.0)]
    )
    space = make_design_space(config, "car", TRAINED)
    e = Problem(space, config, predict).evaluate(space.baseline)
    assert e.violation[0] == pytest.approx(4.0 / (LIMIT_FLOOR * 12.0))
    assert np.isfinite(e.score[0]) and e.score[0] > PENALTY
    unit = paddle.to_tensor(space.to_unit(space.baseline).astype(np.float32), stop_gradient=False)
    parameters_only = OptimizeConfig(
        fixed=fixed, constraints=[on_zero]
    )  # what the gradient path takes
    descent = gradient_score(Problem(space, parameters_only, predict), model)(unit)
    (grad,) = paddle.grad(descent.sum(), unit)
    assert float(descent[0]) == pytest.approx(float(e.score[0]), rel=1e-6)
    assert np.all(np.isfinite(grad.numpy())) and float(grad.numpy()[0, 0]) > 0


def test_frontal_area_needs_the_datasets_reference_length(tmp_path):
    """A mesh case may leave body.reference_length_m to the mesh: read through the solver's
    loader it gives no dx, which objective cd does not need and drag_area refuses in one line."""
    from omegaconf import OmegaConf

    from optimize.run import dataset_dx_m
    from shapes.case_geometry import CASE_SCHEMA
    from solver.config import load_case

    case = OmegaConf.to_container(OmegaConf.structured(load_case(CAR, schema=CASE_SCHEMA)))
    case["body"]["reference_length_m"] = None
    path = tmp_path / "case.yaml"
    path.write_text(OmegaConf.to_yaml(case))
    assert dataset_dx_m(path) is None
    assert dataset_dx_m(CAR) == pytest.approx(4.5 / 64)  # cases/car.yaml sets it
    space = make_design_space(OptimizeConfig(), "car", TRAINED)
    Problem(space, OptimizeConfig(objective="cd"), predict, area_spacing_m=None)
    with pytest.raises(ConfigError, match="body.reference_length_m unset") as caught:
        Problem(space, OptimizeConfig(objective="drag_area"), predict, area_spacing_m=None)
    assert len(str(caught.value).splitlines()) == 1

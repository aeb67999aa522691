"""Shape optimization: both optimizers on analytic objectives, constraints at the result, the
candidates' selection, the errors a user can cause, and the whole command at toy size."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import yaml

from viz.numbers import coefficient

paddle = pytest.importorskip("paddle")


def optimize(args: list) -> int:
    from optimize_shape import main

    return main([str(a) for a in args])


# ---- the searches ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "target, expected",
    [
        ([0.3, 0.8, 0.55], [0.3, 0.8, 0.55]),  # inside the cube
        (
            [1.3, 0.2, -0.4],
            [1.0, 0.2, 0.0],
        ),  # two coordinates beyond the bounds: the optimum lies on them
    ],
)
def test_both_optimizers_find_the_optimum_of_a_quadratic(target, expected):
    from optimize.search import cmaes, projected_adam

    c = np.array(target)
    weights = np.array([1.0, 3.0, 0.5])
    result = cmaes(
        lambda u: np.sum(weights * (u - c) ** 2, axis=1), np.full(3, 0.5), 0.3, 3000, seed=0
    )
    np.testing.assert_allclose(result.best, expected, atol=2e-3)
    assert np.all((result.points >= 0) & (result.points <= 1))
    c_t, w_t = paddle.to_tensor(c.astype(np.float32)), paddle.to_tensor(weights.astype(np.float32))
    starts = np.random.default_rng(0).random((4, 3))
    descent = projected_adam(
        lambda u: ((u - c_t) ** 2 * w_t).sum(axis=1), starts, steps=400, learning_rate=0.02
    )
    np.testing.assert_allclose(descent.best, expected, atol=2e-3)
    again = cmaes(
        lambda u: np.sum(weights * (u - c) ** 2, axis=1), np.full(3, 0.5), 0.3, 3000, seed=0
    )
    np.testing.assert_array_equal(result.points, again.points)  # seeded: repeatable


def test_one_free_parameter_searches_too():
    from optimize.search import cmaes

    result = cmaes(lambda u: (u[:, 0] - 0.37) ** 2, np.array([0.9]), 0.3, 500, seed=1)
    assert result.points.shape[1] == 1 and abs(result.best[0] - 0.37) < 1e-3


def test_a_constraint_holds_at_the_result():
    """A made-up Cd that falls with the backlight angle, the angle capped at 30 deg: the search
    ends on the cap, not beyond it."""
    from optimize.design_space import make_design_space
    from optimize.opt_config import ConstraintConfig, OptimizeConfig
    from optimize.problem import Problem
    from optimize.search import cmaes
    from shapes.car import PARAMETERS
    from surrogate.sweep_config import Range

    trained = [Range(p.name, p.unit, p.low, p.high) for p in PARAMETERS]
    config = OptimizeConfig(
        fixed=[
            p.name for p in PARAMETERS if p.name not in ("backlight_angle_deg", "boat_tail_deg")
        ],
        constraints=[ConstraintConfig(quantity="backlight_angle_deg", max=30.0)],
    )
    space = make_design_space(config, "car", trained)
    b, t = space.names.index("backlight_angle_deg"), space.names.index("boat_tail_deg")

    def predict(params):
        cd = 0.40 - 0.002 * params[:, b] + 0.001 * (params[:, t] - 7.0) ** 2
        return cd, np.full(len(params), 0.005)

    problem = Problem(space, config, predict)
    result = cmaes(
        lambda u: problem.evaluate(space.to_params(u)).score,
        space.to_unit(space.baseline)[0],
        0.3,
        2000,
        0,
    )
    best = space.to_params(result.best)[0]
    assert best[b] <= 30.0 + 1e-3 and best[b] > 29.9 and abs(best[t] - 7.0) < 0.05
    assert problem.evaluate(best).violation[0] < 1e-4


def test_distinct_best_skips_near_duplicates_and_infeasible_points():
    from optimize.search import SearchResult, distinct_best

    points = np.array([[0.1, 0.1], [0.1, 0.11], [0.9, 0.9], [0.5, 0.5], [0.0, 0.0]])
    result = SearchResult(points, np.array([1.0, 1.1, 3.0, 2.0, 0.5]))
    feasible = np.array([True, True, True, True, False])
    assert distinct_best(result, feasible, 3) == [0, 3, 2]


# ---- the command -----------------------------------------------------------------------------
def opt_yaml(tmp_path, model, **keys) -> str:
    config = {
        "name": "toy",
        "model": str(model),
        "objective": "cd",
        "method": "cmaes",
        "seed": 0,
        "cmaes": {"max_evaluations": 40},
        "verify": {"top_k": 1, "backend": "cpu"},
        **keys,
    }
    path = tmp_path / "opt.yaml"
    path.write_text(yaml.safe_dump(config))
    return str(path)


def test_missing_model_and_impossible_constraints_are_one_line_exit_2(
    tmp_path, tiny_paramnet, capsys
):
    assert optimize([opt_yaml(tmp_path, tmp_path / "no_model"), "--out", tmp_path / "o"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not an exported surrogate" in err
    impossible = [{"quantity": "backlight_angle_deg", "min": 60.0}]
    assert (
        optimize(
            [opt_yaml(tmp_path, tiny_paramnet, constraints=impossible), "--out", tmp_path / "o"]
        )
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "holds for none" in err and "backlight_angle_deg" in err
    assert (
        optimize(
            [opt_yaml(tmp_path, tiny_paramnet), "bounds.length_m=[1,9]", "--out", tmp_path / "o"]
        )
        == 2
    )
    assert "bounds.length_m" in capsys.readouterr().err
    assert not (tmp_path / "o" / "report.md").exists()


def test_the_predictor_runtime_key_is_checked_in_one_line(tmp_path, capsys):
    for keys, expected in (
        (
            {"method": "gradient", "predictor": {"runtime": "onnxruntime"}},
            "key 'predictor.runtime' must be paddle with method gradient",
        ),
        ({"predictor": {"runtime": "tensorrt"}}, "key 'predictor.runtime' must be one of"),
    ):
        assert (
            optimize([opt_yaml(tmp_path, tmp_path / "no_model", **keys), "--out", tmp_path / "o"])
            == 2
        )
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and expected in err, err


def test_both_runtimes_find_the_same_best_design(tmp_path, tiny_paramnet):
    """The search of optimize_shape.py (CMA-ES, same seed, a constraint) through Paddle Inference
    and through ONNX Runtime: the same best design within 1e-3 of each parameter's range, at the
    same surrogate Cd. (The LBM verification that follows simulates that design: the same design
    gives the same LBM Cd, so the search is what this test runs.)"""
    from optimize.design_space import make_design_space
    from optimize.opt_config import load_optimize_config
    from optimize.problem import Problem
    from optimize.run import search
    from surrogate.predictor import Predictor

    config = load_optimize_config(
        opt_yaml(
            tmp_path,
            tiny_paramnet,
            cmaes={"max_evaluations": 600},
            constraints=[{"quantity": "backlight_angle_deg", "max": 35.0}],
        )
    )
    best = {}
    for runtime in ("paddle", "onnxruntime"):
        predictor = Predictor(tiny_paramnet, runtime=runtime, device="cpu")
        space = make_design_space(config, predictor.meta.dataset.family, predictor.meta.parameters)

        def predict(params, predictor=predictor):
            r = predictor.predict_parameters(params)
            return r.cd, r.cd_std

        _, final, chosen = search(config, space, Problem(space, config, predict), tiny_paramnet)
        best[runtime] = final.params[chosen[0]], final.cd[chosen[0]]
    span = np.where(space.high > space.low, space.high - space.low, 1.0)
    assert np.all(np.abs(best["paddle"][0] - best["onnxruntime"][0]) <= 1e-3 * span)
    assert best["paddle"][1] == pytest.approx(best["onnxruntime"][1], rel=1e-5)


@pytest.mark.parametrize("method", ["cmaes", "gradient"])
def test_the_command_searches_verifies_and_reports(tmp_path, tiny_paramnet, method):
    out = tmp_path / "opt"
    args = [
        opt_yaml(
            tmp_path,
            tiny_paramnet,
            method=method,
            gradient={"starts": 2, "steps": 20},
            constraints=[{"quantity": "backlight_angle_deg", "max": 35.0}],
        ),
        "--out",
        out,
    ]
    assert optimize(args) == 0
    for name in (
        "report.md",
        "history.png",
        "best.stl",
        "result.json",
        "candidates.csv",
        "baseline/case.vtm",
        "candidate_1/case.vtm",
        "candidate_1/surface.vtp",
    ):
        assert (out / name).is_file(), name
    result = json.loads((out / "result.json").read_text())
    rows = list(csv.DictReader(open(out / "candidates.csv")))
    assert (
        [d["label"] for d in result["designs"]]
        == [r["label"] for r in rows]
        == ["baseline", "candidate_1"]
    )
    for d, r in zip(result["designs"], rows, strict=False):
        summary = json.loads((out / d["label"] / "summary.json").read_text())
        assert d["cd_lbm"] == pytest.approx(summary["cd"]) == pytest.approx(float(r["cd_lbm"]))
        assert d["parameters"]["backlight_angle_deg"] <= 35.0 + 1e-6 or d["label"] == "baseline"
    report = (out / "report.md").read_text()
    assert coefficient(result["designs"][1]["cd_lbm"]) in report and "history.png" in report
    from shapes.mesh import check_mesh, read_mesh

    check_mesh(read_mesh(out / "best.stl"))


def test_active_learning_adds_the_verified_designs_and_retrains(tmp_path, tiny_dataset):
    """rounds: 2 on a copy of the tiny dataset: round 1's verified design joins the dataset as a
    sample, the surrogate is retrained from its weights, round 2 searches with it."""
    import shutil

    from conftest import train, train_yaml

    from surrogate.dataset import Dataset

    data = tmp_path / "data"
    shutil.copytree(tiny_dataset, data)
    assert (
        train(
            [train_yaml(tmp_path, data, "paramnet", optim={"epochs": 60}), "--out", tmp_path / "pn"]
        )
        == 0
    )
    out = tmp_path / "opt"
    assert optimize([opt_yaml(tmp_path, tmp_path / "pn" / "model", rounds=2), "--out", out]) == 0
    result = json.loads((out / "result.json").read_text())
    assert [r["round"] for r in result["rounds"]] == [1, 2]
    assert result["rounds"][1]["model"] == str(out / "round_2" / "model")
    assert [d["label"] for d in result["designs"]] == [
        "baseline",
        "round1_candidate_1",
        "round2_candidate_1",
    ]
    ds = Dataset(data)
    assert len(ds) == 9 and 100000 in ds.ids.tolist()
    added = ds.sample(list(ds.ids).index(100000))
    np.testing.assert_allclose(added.parameters, list(result["designs"][1]["parameters"].values()))
    assert added.scalars["cd"] == pytest.approx(result["designs"][1]["cd_lbm"], rel=1e-6)
    assert json.loads((out / "round_2" / "model" / "surrogate.json").read_text())["training"][
        "init_from"
    ] == str(tmp_path / "pn" / "model")

"""The surrogate: split and metrics, training on a tiny real dataset (the loss falls), resume,
export -> Predictor round trip through both runtimes (Paddle Inference, ONNX Runtime) against the
dygraph model, GeoNet on a mesh read from an STL, and the errors a user can cause."""

from __future__ import annotations

import json
import logging
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT, train, train_yaml

paddle = pytest.importorskip("paddle")


# ---- pieces ----------------------------------------------------------------------------------
def test_split_is_disjoint_complete_and_seeded():
    from surrogate.training import split_shapes

    train_rows, val, test = split_shapes(20, 0.15, 0.2, seed=3)
    assert (len(train_rows), len(val), len(test)) == (13, 3, 4)
    assert sorted(np.concatenate([train_rows, val, test]).tolist()) == list(range(20))
    again = split_shapes(20, 0.15, 0.2, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip((train_rows, val, test), again, strict=False))
    assert not np.array_equal(test, split_shapes(20, 0.15, 0.2, seed=4)[2])


def test_metrics_on_known_values():
    from surrogate.metrics import coefficient_metrics, cp_relative_l2, r2

    y = np.array([0.30, 0.32, 0.35, 0.31])
    assert r2(y, y) == 1.0 and r2(y, np.full(4, y.mean())) == 0.0
    m = coefficient_metrics(
        "cd", y, y + np.array([0.001, -0.002, 0.0, 0.004]), sigma=np.full(4, 0.0015)
    )
    assert m["cd_mae_counts"] == pytest.approx(1.75) and m["cd_max_error_counts"] == pytest.approx(
        4.0
    )
    assert m["cd_within_2sigma"] == 0.75 and m["cd_spearman"] == pytest.approx(1.0)
    assert cp_relative_l2(
        np.array([1.0, np.nan, -1.0]), np.array([1.0, 5.0, -0.9])
    ) == pytest.approx(0.1 / np.sqrt(2))


# ---- ParamNet --------------------------------------------------------------------------------
def test_paramnet_trains_exports_and_the_predictor_matches_dygraph(tmp_path, tiny_dataset):
    out = tmp_path / "pn"
    assert train([train_yaml(tmp_path, tiny_dataset, "paramnet"), "--out", out]) == 0
    log = np.genfromtxt(out / "metrics.csv", delimiter=",", names=True)
    assert len(log) == 150 and log["train_loss"][-10:].mean() < log["train_loss"][:10].mean() - 0.5
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["shapes"] == {"train": 4, "validation": 2, "test": 2}
    for key in ("cd_r2", "cd_mae_counts", "cd_max_error_counts", "cd_spearman", "cd_within_2sigma"):
        assert key in metrics
    meta = json.loads((out / "model" / "surrogate.json").read_text())
    assert (
        meta["kind"] == "paramnet" and len(meta["parameters"]) == 12 and meta["versions"]["paddle"]
    )
    assert (
        meta["dataset"]["config_hash"]
        == json.loads((tiny_dataset / "dataset.json").read_text())["config_hash"]
    )

    from surrogate.dataset import Dataset
    from surrogate.predictor import Predictor

    ds = Dataset(tiny_dataset)
    predictor = Predictor(out / "model", device="cpu", threads=1)
    assert predictor.path.startswith("Paddle Inference on the CPU with oneDNN")
    got = predictor.predict_parameters(ds.parameters)
    model = paddle.jit.load(str(out / "model" / "model"))
    mean, std = (t.numpy() for t in model(paddle.to_tensor(ds.parameters.astype(np.float32))))
    np.testing.assert_allclose(got.cd, mean[:, 0], rtol=1e-5)
    np.testing.assert_allclose(got.cl_std, std[:, 1], rtol=1e-5)
    assert not got.out_of_bounds.any()
    from surrogate.export import load_dygraph

    rebuilt, rebuilt_std = load_dygraph(out / "model")(
        paddle.to_tensor(ds.parameters.astype(np.float32))
    )
    np.testing.assert_allclose(rebuilt.numpy()[:, 0], mean[:, 0], rtol=1e-6)
    ort_predictor = Predictor(out / "model", runtime="onnxruntime", device="cpu", threads=1)
    assert ort_predictor.path == "ONNX Runtime on the CPU, 1 threads"
    by_onnx = ort_predictor.predict_parameters(ds.parameters)
    for answer, want in (
        (by_onnx.cd, rebuilt[:, 0]),
        (by_onnx.cl, rebuilt[:, 1]),
        (by_onnx.cd_std, rebuilt_std[:, 0]),
        (by_onnx.cl_std, rebuilt_std[:, 1]),
    ):
        np.testing.assert_allclose(answer, want.numpy(), rtol=1e-5, atol=1e-6)
    test_rows = np.genfromtxt(out / "test_predictions.csv", delimiter=",", names=True)
    k = [list(ds.ids).index(int(i)) for i in np.atleast_1d(test_rows["sample_id"])]
    np.testing.assert_allclose(got.cd[k], np.atleast_1d(test_rows["cd_predicted"]), rtol=1e-5)


def test_predictor_refuses_wrong_inputs_and_warns_outside_the_bounds(
    tmp_path, tiny_dataset, caplog
):
    from surrogate.predictor import Predictor, PredictorError

    out = tmp_path / "pn"
    assert (
        train([train_yaml(tmp_path, tiny_dataset, "paramnet", optim={"epochs": 5}), "--out", out])
        == 0
    )
    predictor = Predictor(out / "model", device="cpu")
    with pytest.raises(PredictorError, match=r"\[batch, 12\]"):
        predictor.predict_parameters(np.zeros((2, 5)))
    with pytest.raises(PredictorError, match="NaN"):
        predictor.predict_parameters(np.full(12, np.nan))
    with pytest.raises(PredictorError, match="predict_parameters"):
        predictor.predict_surface(np.zeros((20, 3)), np.zeros((20, 3)))
    meta = json.loads((out / "model" / "surrogate.json").read_text())
    inside = np.array([(p["low"] + p["high"]) / 2 for p in meta["parameters"]])
    outside = inside.copy()
    outside[8] = 60.0  # backlight angle, trained 15-45 deg
    with caplog.at_level(logging.WARNING):
        result = predictor.predict_parameters(np.stack([inside, outside]))
    assert (
        result.out_of_bounds.tolist() == [False, True] and "backlight_angle_deg = 60" in caplog.text
    )
    meta["format_version"] = 0
    (out / "model" / "surrogate.json").write_text(json.dumps(meta))
    with pytest.raises(PredictorError, match="format 0"):
        Predictor(out / "model", device="cpu")
    with pytest.raises(PredictorError, match="not an exported surrogate"):
        Predictor(tmp_path / "absent")


def test_killed_training_resumes_to_the_same_result(tmp_path, tiny_dataset):
    """Kill -9 a training once its first checkpoint exists, --resume it in a fresh process: the
    epoch log equals a straight run's, bit for bit."""
    import os
    import signal
    import time

    config = train_yaml(
        tmp_path,
        tiny_dataset,
        "paramnet",
        paramnet={"members": 2, "hidden": [8]},
        optim={"epochs": 1500, "checkpoint_every": 20},
    )
    command = [sys.executable, str(ROOT / "train_surrogate.py"), str(config)]
    quiet = {"cwd": ROOT, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    subprocess.run([*command, "--out", str(tmp_path / "straight")], check=True, **quiet)
    proc = subprocess.Popen(
        [*command, "--out", str(tmp_path / "killed")], start_new_session=True, **quiet
    )
    checkpoint = tmp_path / "killed" / "checkpoint" / "trainer.pdckpt"
    deadline = time.monotonic() + 120
    while not checkpoint.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (tmp_path / "killed" / "metrics.json").exists(), "the kill came before the end"
    subprocess.run([*command, "--resume", "--out", str(tmp_path / "killed")], check=True, **quiet)
    straight = np.genfromtxt(tmp_path / "straight" / "metrics.csv", delimiter=",", names=True)
    resumed = np.genfromtxt(tmp_path / "killed" / "metrics.csv", delimiter=",", names=True)
    assert len(resumed) == len(straight)
    np.testing.assert_array_equal(straight["train_loss"], resumed["train_loss"])
    np.testing.assert_array_equal(straight["validation_loss"], resumed["validation_loss"])
    assert (
        json.loads((tmp_path / "straight" / "metrics.json").read_text())["cd_r2"]
        == json.loads((tmp_path / "killed" / "metrics.json").read_text())["cd_r2"]
    )


# ---- GeoNet ----------------------------------------------------------------------------------
def test_geonet_trains_and_predicts_on_a_mesh_read_from_stl(tmp_path, tiny_dataset):
    out = tmp_path / "geo"
    assert (
        train([train_yaml(tmp_path, tiny_dataset, "geonet", optim={"epochs": 40}), "--out", out])
        == 0
    )
    log = np.genfromtxt(out / "metrics.csv", delimiter=",", names=True)
    assert log["train_loss"][-5:].mean() < log["train_loss"][:5].mean()
    metrics = json.loads((out / "metrics.json").read_text())
    assert np.isfinite(metrics["cp_relative_l2"]) and "cd_mae_counts" in metrics

    from shapes.car import CarParameters, car_mesh
    from shapes.mesh import read_mesh, write_mesh
    from surrogate.predictor import Predictor, PredictorError
    from surrogate.shape_features import sample_surface

    stl = tmp_path / "user_car.stl"
    write_mesh(
        car_mesh(CarParameters(backlight_angle_deg=33.0)).transformed(np.array([4.0, 3.0, 0.0])),
        stl,
    )
    mesh = read_mesh(stl)
    points = sample_surface(mesh, 3000, seed=1)
    predictor = Predictor(out / "model", device="cpu")
    result = predictor.predict_surface(points.points_m, points.normals)
    assert result.cp.shape == (3000,) and np.all(np.isfinite(result.cp)) and np.isfinite(result.cd)
    model = paddle.jit.load(str(out / "model" / "model"))
    x = np.concatenate([points.points_m, points.normals], axis=1)[None].astype(np.float32)
    cp, cd = (t.numpy() for t in model(paddle.to_tensor(x)))
    np.testing.assert_allclose(result.cp, cp[0], rtol=1e-5, atol=1e-5 * np.abs(cp).max())
    with pytest.raises(PredictorError, match=r"\[N, 3\]"):
        predictor.predict_surface(points.points_m, points.normals[:10])
    # model.onnx through ONNX Runtime on the same mesh (3000 points; trained on 64 per shape)
    from surrogate.export import load_dygraph

    assert (
        json.loads((out / "model" / "surrogate.json").read_text())["training"]["geonet"]["points"]
        == 64
    )
    dygraph_cp, dygraph_cd = (t.numpy() for t in load_dygraph(out / "model")(paddle.to_tensor(x)))
    ort_predictor = Predictor(out / "model", runtime="onnxruntime", device="cpu")
    by_onnx = ort_predictor.predict_surface(points.points_m, points.normals)
    np.testing.assert_allclose(by_onnx.cp, dygraph_cp[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(by_onnx.cd, dygraph_cd[0], rtol=1e-5, atol=1e-6)
    with pytest.raises(PredictorError, match=r"\[N, 3\]"):
        ort_predictor.predict_surface(points.points_m, points.normals[:10])


def test_bad_training_input_is_one_line_exit_2(tmp_path, tiny_dataset, capsys):
    config = train_yaml(tmp_path, tiny_dataset, "paramnet")
    for args, key in (
        ([config, "model=transformer"], "model"),
        ([config, "split.test=0.95"], "split"),
        ([config, f"dataset={tmp_path / 'nothing'}"], "not a dataset"),
    ):
        assert train([*args, "--out", tmp_path / "o"]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and key in err
    assert train([config, "--resume", "--out", tmp_path / "fresh"]) == 2
    assert "no checkpoint" in capsys.readouterr().err

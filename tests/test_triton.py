"""`python -m surrogate.serve triton MODEL OUT`: the Triton model repository entry parses with
Triton's own protobuf definition (tritonclient's model_config_pb2) and every field matches the
exported model; bad input ends in one line and exit code 2."""

from __future__ import annotations

import json

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
model_config_pb2 = pytest.importorskip("tritonclient.grpc.model_config_pb2")

PARAMETERS = [{"name": f"p{i}", "unit": "-", "low": 0.0, "high": 1.0} for i in range(5)]


def serve(args: list) -> int:
    from surrogate.serve import main

    return main([str(a) for a in args])


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """{kind: exported folder} of an untrained ParamNet (5 parameters) and GeoNet."""
    from surrogate.export import export_model
    from surrogate.kinds import KINDS
    from surrogate.models import GeoNet, ParamEnsemble

    tmp = tmp_path_factory.mktemp("triton_models")
    export_model(
        ParamEnsemble(5, 2, 2, [8], np.zeros(5), np.ones(5), np.zeros(2), np.ones(2)),
        KINDS["paramnet"],
        tmp / "paramnet",
        {},
        {"parameters": PARAMETERS, "training": {"name": "pn_demo"}},
    )
    export_model(
        GeoNet(16, np.zeros(3), 1.0, 0.0, 1.0, 0.3, 0.1),
        KINDS["geonet"],
        tmp / "geonet",
        {},
        {"parameters": []},
    )
    return {"paramnet": tmp / "paramnet", "geonet": tmp / "geonet"}


def parse(path):
    from google.protobuf import text_format

    return text_format.Parse(path.read_text(), model_config_pb2.ModelConfig())


@pytest.mark.parametrize(
    "kind, name, precision", [("paramnet", "pn_demo", "fp16"), ("geonet", "geonet", "fp32")]
)
def test_the_config_parses_with_tritons_protobuf_and_matches_the_model(
    tmp_path, exported, kind, name, precision
):
    from surrogate.kinds import KINDS
    from surrogate.profile import POINTS

    folder = exported[kind]
    repository = tmp_path / "repository"
    args = ["triton", folder, repository] + (["--precision", "fp16"] if precision == "fp16" else [])
    assert serve(args) == 0  # the name comes from the training config, else the kind
    assert sorted(p.relative_to(repository).as_posix() for p in repository.rglob("*")) == [
        name,
        f"{name}/1",
        f"{name}/1/model.onnx",
        f"{name}/config.pbtxt",
    ]
    assert (repository / name / "1" / "model.onnx").read_bytes() == (
        folder / "model.onnx"
    ).read_bytes()
    meta = json.loads((folder / "surrogate.json").read_text())
    c = parse(repository / name / "config.pbtxt")
    fp32 = model_config_pb2.DataType.Value("TYPE_FP32")
    assert c.name == name and c.backend == "onnxruntime" and c.platform == ""
    assert c.max_batch_size == KINDS[kind].batch_profile[2]
    assert c.dynamic_batching.max_queue_delay_microseconds == 100

    (tensor,) = c.input
    assert tensor.name == meta["input"]["name"] and tensor.data_type == fp32
    assert list(tensor.dims) == ([len(PARAMETERS)] if kind == "paramnet" else [-1, 6])
    assert [o.name for o in c.output] == [o["name"] for o in meta["outputs"]]
    assert all(o.data_type == fp32 for o in c.output)
    if kind == "paramnet":
        assert [list(o.dims) for o in c.output] == [[2], [2]]
        assert not any(o.HasField("reshape") for o in c.output)
    else:
        cp, cd = c.output
        assert list(cp.dims) == [-1] and not cp.HasField("reshape")
        assert (
            list(cd.dims) == [1] and cd.HasField("reshape") and list(cd.reshape.shape) == []
        )  # Cd is [batch]

    (accelerator,) = c.optimization.execution_accelerators.gpu_execution_accelerator
    assert not c.optimization.execution_accelerators.cpu_execution_accelerator
    assert accelerator.name == "tensorrt"
    d = len(PARAMETERS)
    profile = (
        [f"params:{b}x{d}" for b in KINDS["paramnet"].batch_profile]
        if kind == "paramnet"
        else [
            f"points:{b}x{n}x6" for b, n in zip(KINDS["geonet"].batch_profile, POINTS, strict=False)
        ]
    )
    assert dict(accelerator.parameters) == {
        "precision_mode": precision.upper(),
        "max_workspace_size_bytes": str(1 << 30),
        "trt_engine_cache_enable": "1",
        "trt_engine_cache_path": f"/tmp/tensorrt_cache/{name}",
        "trt_profile_min_shapes": profile[0],
        "trt_profile_opt_shapes": profile[1],
        "trt_profile_max_shapes": profile[2],
    }
    # the profile's largest batch is the largest Triton may form
    assert int(profile[2].split(":")[1].split("x")[0]) == c.max_batch_size


def test_the_entry_serves_what_onnxruntime_serves_with_tritons_shapes(tmp_path, exported):
    """Triton gives the ONNX model the dims of the config with the batch axis in front: the
    model in the repository takes them and answers the Predictor's figures."""
    import onnxruntime as ort

    from surrogate.predictor import Predictor

    assert serve(["triton", exported["paramnet"], tmp_path, "--name", "drag"]) == 0
    c = parse(tmp_path / "drag" / "config.pbtxt")
    x = np.random.default_rng(0).random((3, *c.input[0].dims)).astype(np.float32)
    session = ort.InferenceSession(
        str(tmp_path / "drag" / "1" / "model.onnx"), providers=["CPUExecutionProvider"]
    )
    mean, std = session.run([o.name for o in c.output], {c.input[0].name: x})
    want = Predictor(exported["paramnet"], runtime="onnxruntime", device="cpu").predict_parameters(
        x
    )
    np.testing.assert_array_equal(mean[:, 0], want.cd)
    np.testing.assert_array_equal(std[:, 1], want.cl_std)


def test_bad_input_is_one_line_exit_2(tmp_path, exported, capsys):
    import shutil

    no_onnx = tmp_path / "no_onnx"
    shutil.copytree(exported["paramnet"], no_onnx)
    (no_onnx / "model.onnx").unlink()
    (tmp_path / "file").write_text("")
    for args, expected in (
        ([tmp_path / "absent", tmp_path / "r"], "not an exported surrogate"),
        ([no_onnx, tmp_path / "r"], "lacks model.onnx"),
        ([exported["geonet"], tmp_path / "r", "--name", "a/b"], "is not a folder name"),
        ([exported["geonet"], tmp_path / "file"], "is a file"),
    ):
        assert serve(["triton", *args]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and expected in err, err
    assert not (tmp_path / "r").exists()
    assert serve(["triton", exported["geonet"], tmp_path / "r", "--name", "geo"]) == 0
    assert (
        serve(["triton", exported["paramnet"], tmp_path / "r", "--name", "geo"]) == 0
    )  # replaces the entry
    assert parse(tmp_path / "r" / "geo" / "config.pbtxt").input[0].name == "params"

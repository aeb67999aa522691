"""The ONNX export (model.onnx beside the Paddle program): onnxruntime answers the dygraph
model's figures for both kinds at batch and point counts the export never traced, the graph
carries the metadata's names, axes and the metadata itself, and a conversion that fails ends in
one line and leaves no folder. Untrained models (no dataset needed); the trained ones are
checked in test_surrogate.py."""

from __future__ import annotations

import json

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
ort = pytest.importorskip("onnxruntime")

PARAMETERS = [{"name": f"p{i}", "unit": "-", "low": 0.0, "high": 1.0} for i in range(4)]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """{kind: (dygraph model, exported folder)} for an untrained ParamNet and GeoNet."""
    from surrogate.export import export_model
    from surrogate.kinds import KINDS
    from surrogate.models import GeoNet, ParamEnsemble

    paddle.seed(1)
    tmp = tmp_path_factory.mktemp("onnx")
    paramnet = ParamEnsemble(
        4,
        2,
        3,
        [16, 16],
        np.full(4, 0.5),
        np.full(4, 0.3),
        np.array([0.4, 0.1]),
        np.array([0.05, 0.1]),
    )
    export_model(paramnet, KINDS["paramnet"], tmp / "paramnet", {}, {"parameters": PARAMETERS})
    geonet = GeoNet(32, np.array([2.0, 0.0, 0.7]), 1.5, -0.3, 0.5, 0.35, 0.04)
    export_model(geonet, KINDS["geonet"], tmp / "geonet", {}, {"parameters": []})
    return {"paramnet": (paramnet, tmp / "paramnet"), "geonet": (geonet, tmp / "geonet")}


def session(folder):
    return ort.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])


@pytest.mark.parametrize(
    "kind, shapes",
    [
        ("paramnet", [(1, 4), (7, 4), (1024, 4)]),
        ("geonet", [(1, 64, 6), (1, 1537, 6), (3, 200, 6)]),
    ],
)
def test_onnxruntime_answers_the_dygraph_models_figures(exported, kind, shapes):
    model, folder = exported[kind]
    meta = json.loads((folder / "surrogate.json").read_text())
    names = [o["name"] for o in meta["outputs"]]
    rng = np.random.default_rng(0)
    for shape in shapes:
        x = rng.random(shape).astype(np.float32)
        got = session(folder).run(names, {meta["input"]["name"]: x})
        want = [t.numpy() for t in model(paddle.to_tensor(x))]
        for g, w in zip(got, want, strict=False):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_the_graph_carries_the_metadatas_names_axes_and_the_metadata(exported):
    import onnx

    from surrogate.onnx_export import METADATA_KEY, OPSET

    for kind, (_, folder) in exported.items():
        meta = json.loads((folder / "surrogate.json").read_text())
        model = onnx.load(str(folder / "model.onnx"))
        assert (
            [o.version for o in model.opset_import if o.domain == ""]
            == [OPSET]
            == [meta["onnx_opset"]]
        )
        assert json.loads({p.key: p.value for p in model.metadata_props}[METADATA_KEY]) == meta

        def dims(value):
            return [d.dim_param or d.dim_value for d in value.type.tensor_type.shape.dim]

        (graph_input,) = model.graph.input
        assert graph_input.name == meta["input"]["name"]
        expected_input = ["batch", 4] if kind == "paramnet" else ["batch", "points", 6]
        assert dims(graph_input) == expected_input
        assert [o.name for o in model.graph.output] == [o["name"] for o in meta["outputs"]]
        expected = (
            [["batch", 2], ["batch", 2]] if kind == "paramnet" else [["batch", "points"], ["batch"]]
        )
        assert [dims(o) for o in model.graph.output] == expected


@pytest.mark.filterwarnings("ignore:no variable in your model")
def test_a_failed_conversion_is_one_line_and_leaves_no_folder(tmp_path, monkeypatch):
    """paddle2onnx 2.1 aborts its process on an operator it cannot convert (here eigvalsh): the
    export survives it and says so in one line; export_model then leaves nothing behind."""
    from paddle.static import InputSpec

    import surrogate.export
    from surrogate.export import export_model
    from surrogate.kinds import KINDS
    from surrogate.models import ParamEnsemble
    from surrogate.onnx_export import OnnxExportError, write_onnx

    class Eigenvalues(paddle.nn.Layer):
        def forward(self, x):
            return paddle.linalg.eigvalsh(x @ x.transpose([0, 2, 1]))

    paddle.jit.save(
        Eigenvalues(),
        str(tmp_path / "eig" / "model"),
        input_spec=[InputSpec([-1, 3, 3], "float32", "x")],
    )
    meta = {
        "input": {"name": "x", "shape": [-1, 3, 3]},
        "outputs": [{"name": "eigenvalues", "shape": [-1, 3]}],
    }
    with pytest.raises(
        OnnxExportError, match=r"could not convert .* \(exit code -6\): .*unsupported operators"
    ) as err:
        write_onnx(tmp_path / "eig", meta)
    assert "\n" not in str(err.value)
    assert not (tmp_path / "eig" / "model.onnx").exists()

    def fail(folder, meta):
        (folder / "model.onnx").write_bytes(b"half")
        raise OnnxExportError("paddle2onnx could not convert")

    monkeypatch.setattr(surrogate.export, "write_onnx", fail)
    model = ParamEnsemble(4, 2, 1, [4], np.zeros(4), np.ones(4), np.zeros(2), np.ones(2))
    with pytest.raises(OnnxExportError):
        export_model(
            model, KINDS["paramnet"], tmp_path / "out" / "model", {}, {"parameters": PARAMETERS}
        )
    assert list((tmp_path / "out").iterdir()) == []

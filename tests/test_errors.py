"""One error hierarchy: every error a user can cause is a SlipstreamError, and every command ends
on one with one line on stderr and exit code 2."""

from __future__ import annotations

import importlib
import json
import shutil

import pytest
import yaml

from shapes.errors import MeshError
from solver.errors import SlipstreamError

#: Each command script and the function it reads its config with.
COMMANDS = [
    ("run_case", "load_case"),
    ("generate_dataset", "load_sweep"),
    ("train_surrogate", "load_train_config"),
    ("optimize_shape", "load_optimize_config"),
    ("run_pipeline", "load_pipeline"),
]


def test_a_mesh_error_is_a_slipstream_error():
    assert issubclass(MeshError, SlipstreamError)


@pytest.mark.parametrize("command, loader", COMMANDS)
def test_every_command_ends_a_mesh_error_in_one_line_and_exit_2(
    command, loader, tmp_path, monkeypatch, capsys
):
    pytest.importorskip("paddle")
    module = importlib.import_module(command)

    def bad_mesh(*args, **kwargs):
        raise MeshError("mesh file 'car.stl' does not exist: check geometry.path")

    monkeypatch.setattr(module, loader, bad_mesh)
    assert module.main([str(tmp_path / "config.yaml"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: mesh file 'car.stl' does not exist: check geometry.path"]


def test_drag_area_on_a_dataset_without_a_reference_length_is_one_line_exit_2(
    tmp_path, tiny_paramnet, capsys
):
    """The dataset's case leaves body.reference_length_m to each car's mesh: the optimizer reads
    it through the solver's loader and refuses the drag-area objective, which needs the dataset's
    dx, in one line instead of a TypeError."""
    from optimize_shape import main

    model, data = tmp_path / "model", tmp_path / "data"
    shutil.copytree(tiny_paramnet, model)
    meta = json.loads((model / "surrogate.json").read_text())
    shutil.copytree(meta["dataset"]["folder"], data)
    meta["dataset"]["folder"] = str(data)
    (model / "surrogate.json").write_text(json.dumps(meta))
    case = yaml.safe_load((data / "case.yaml").read_text())
    case["body"]["reference_length_m"] = None
    (data / "case.yaml").write_text(yaml.safe_dump(case))
    config = tmp_path / "opt.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "name": "toy",
                "model": str(model),
                "objective": "drag_area",
                "verify": {"top_k": 1, "backend": "cpu"},
            }
        )
    )
    assert main([str(config), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "body.reference_length_m unset" in err[0]
    assert not (tmp_path / "o" / "report.md").exists()

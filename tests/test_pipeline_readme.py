"""The README's commands after `make demo`: the training and optimization cases, with the
overrides the README passes, read the dataset and the model the demo pipeline writes, and the
Predictor snippet serves that model with parameters the demo data varies."""

from __future__ import annotations

import ast
import re
import shlex
from pathlib import Path

import pytest
from conftest import ROOT

pytest.importorskip("paddle")

README = (ROOT / "README.md").read_text()


def readme_commands(script: str) -> list[list[str]]:
    """The arguments after `python script` on each of the README's lines that run it."""
    lines = [
        line.split("#")[0] for line in README.splitlines() if line.startswith(f"python {script} ")
    ]
    return [shlex.split(line)[2:] for line in lines]


@pytest.fixture(scope="module")
def demo():
    """The demo pipeline's config and the folders it writes."""
    from optimize.pipeline import PipelineFolders
    from optimize.pipeline_config import default_output, load_pipeline

    config = load_pipeline(ROOT / "cases" / "pipeline_demo.yaml")
    return config, PipelineFolders(default_output(config))


def test_the_readmes_training_and_optimization_read_what_make_demo_writes(demo):
    from optimize.opt_config import load_optimize_config
    from surrogate.train_config import load_train_config

    _, folders = demo
    trainings = readme_commands("train_surrogate.py")
    assert [case for case, *_ in trainings] == [
        "cases/train_paramnet.yaml",
        "cases/train_geonet.yaml",
    ]
    for case, *overrides in trainings:
        assert Path(load_train_config(ROOT / case, overrides).dataset) == folders.dataset, case
    [(case, *overrides)] = readme_commands("optimize_shape.py")
    assert Path(load_optimize_config(ROOT / case, overrides).model) == folders.model


def test_the_readmes_predictor_snippet_serves_the_demo_model_by_name(demo):
    from surrogate.predictor import parameter_matrix
    from surrogate.sweep_config import load_sweep, parameter_ranges

    config, folders = demo
    [block] = [b for b in re.findall(r"```python\n(.*?)```", README, re.S) if "Predictor(" in b]
    snippet = ast.parse(block)
    first_argument = {
        getattr(node.func, "attr", getattr(node.func, "id", "")): node.args[0]
        for node in ast.walk(snippet)
        if isinstance(node, ast.Call)
    }
    assert Path(ast.literal_eval(first_argument["Predictor"])) == folders.model
    values = ast.literal_eval(first_argument["predict_parameters"])
    sweep = load_sweep(ROOT / "cases" / config.sweep.config, config.sweep.overrides)
    parameters = parameter_ranges(sweep)
    x = parameter_matrix(values, parameters)  # no missing or unknown name
    assert all(p.low <= v <= p.high for p, v in zip(parameters, x[0], strict=False))

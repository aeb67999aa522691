"""The whole pipeline at toy size: sweep, train, optimize with LBM verification, report; every
artifact exists, the report's numbers are the files' numbers, its HTML has no Markdown left and
links only to files that exist, and a re-run reuses every stage and reports the time each took."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml
from conftest import tiny_sweep, train_yaml

from viz.numbers import coefficient

pytest.importorskip("paddle")


def run(args: list) -> int:
    from run_pipeline import main

    return main([str(a) for a in args])


def check_html_links(page: Path) -> None:
    """No literal backticks in the page; every link and picture is a relative path to a file or
    folder that exists, and the stage folders are linked."""
    text = page.read_text()
    assert "`" not in text
    targets = re.findall(r'(?:href|src)="([^"]+)"', text)
    for target in targets:
        assert "://" not in target and not target.startswith("/"), target
        assert (page.parent / unquote(target)).exists(), target
    assert {"dataset/", "surrogate/", "optimize/", "optimize/best.stl", "images/cars.png"} <= set(
        targets
    )


def test_pipeline_runs_end_to_end_and_reuses_what_is_current(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    tiny_sweep(tmp_path, name="sweep", n=8)
    train_yaml(tmp_path, tmp_path / "unused", "paramnet", optim={"epochs": 60})
    (tmp_path / "opt.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "toy",
                "objective": "cd",
                "method": "cmaes",
                "cmaes": {"max_evaluations": 40},
                "verify": {"top_k": 1, "backend": "cpu"},
            }
        )
    )
    (tmp_path / "pipeline.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "toy",
                "sweep": {"config": "sweep.yaml"},
                "train": {"config": "train_paramnet.yaml"},
                "optimize": {"config": "opt.yaml"},
            }
        )
    )
    out = tmp_path / "results"
    assert run([tmp_path / "pipeline.yaml", "--out", out]) == 0
    for name in (
        "report.md",
        "report.html",
        "images/cars.png",
        "images/scatter.png",
        "dataset/index.csv",
        "surrogate/metrics.json",
        "surrogate/model/surrogate.json",
        "optimize/result.json",
        "optimize/best.stl",
        "optimize/history.png",
        "optimize/baseline/case.vtm",
        "optimize/baseline/images/body_cp.png",
    ):
        assert (out / name).is_file(), name
    report = (out / "report.md").read_text()
    metrics = json.loads((out / "surrogate" / "metrics.json").read_text())
    result = json.loads((out / "optimize" / "result.json").read_text())
    assert f"| Cd R² | {metrics['cd_r2']:.3f} |" in report
    for design in result["designs"]:
        summary = json.loads((out / "optimize" / design["label"] / "summary.json").read_text())
        assert (
            f"| {design['label']} | {coefficient(design['cd_surrogate'])} ± "
            f"{coefficient(design['cd_std'])} | "
            f"{coefficient(summary['cd'])} |"
        ) in report
    assert "8 car shapes simulated (0 failed)" in report and "Where the time went" in report
    assert "<table>" in (out / "report.html").read_text()
    check_html_links(out / "report.html")
    sweep_seconds = json.loads((out / "dataset" / "stage.json").read_text())["seconds"]
    stamps = {
        p: (out / p).stat().st_mtime_ns
        for p in ("surrogate/model/weights.pdparams", "optimize/result.json")
    }
    caplog.clear()
    assert run([tmp_path / "pipeline.yaml", "--out", out]) == 0
    assert "training reused" in caplog.text and "optimization reused" in caplog.text
    assert f"sweep     reused (took {sweep_seconds:.1f} s when it ran)" in caplog.text
    assert all((out / p).stat().st_mtime_ns == t for p, t in stamps.items())
    caplog.clear()
    assert (
        run(
            [
                tmp_path / "pipeline.yaml",
                "optimize.overrides=[cmaes.max_evaluations=60]",
                "--out",
                out,
            ]
        )
        == 0
    )
    assert "training reused" in caplog.text and "optimization reused" not in caplog.text

"""Pictures, the .pvd time series and the .vtm multiblock of a run, and python -m viz."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import ROOT

import run_case
from viz.__main__ import main as viz_main

PICTURES = (
    "cd_history.png",
    "velocity_slice.png",
    "body_cp.png",
    "streamlines.png",
    "drag_breakdown.png",
)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("viz") / "box"
    args = [
        str(ROOT / "cases" / "windtunnel_box.yaml"),
        "resolution.cells_per_length=8",
        "resolution.min_gap_cells=0",
        "run.max_steps=300",
        "run.check_every=50",
        "run.average_from_step=200",
        "run.average_steps=100",
        "run.sample_every=25",
        "output.snapshot_every=100",
        "--backend",
        "cpu",
        "--out",
        str(out),
    ]
    assert run_case.main(args) == 0
    return out


def _assert_picture(path):
    import matplotlib.pyplot as plt

    pixels = plt.imread(path)
    assert pixels.shape[:2] == (800, 1200), path.name
    assert pixels[..., :3].std() > 0.05, f"{path.name} looks blank"


def test_run_draws_every_picture(results):
    for name in PICTURES:
        _assert_picture(results / "images" / name)


def test_python_m_viz_redraws_them(results):
    for name in PICTURES:
        (results / "images" / name).unlink()
    assert viz_main([str(results)]) == 0
    for name in PICTURES:
        _assert_picture(results / "images" / name)


def test_python_m_viz_refuses_a_folder_without_results(tmp_path, capsys):
    assert viz_main([str(tmp_path)]) == 2
    assert "summary.json" in capsys.readouterr().err


def test_pvd_lists_the_snapshots_in_time(results):
    import pyvista as pv

    reader = pv.get_reader(str(results / "fields.pvd"))
    times = np.array(reader.time_values)
    summary = json.loads((results / "summary.json").read_text())
    steps = np.arange(100, summary["steps"] + 1, 100)
    assert len(steps) >= 2 and np.allclose(times, steps * summary["dt_s"])
    reader.set_active_time_value(times[-1])
    snapshot = reader.read()[0]
    assert {"velocity", "pressure", "Cp", "vorticity", "solid"} <= set(snapshot.point_data.keys())


def test_vtm_opens_fields_and_body_together(results):
    import vtk

    reader = vtk.vtkXMLMultiBlockDataReader()
    reader.SetFileName(str(results / "case.vtm"))
    reader.Update()
    blocks = reader.GetOutput()
    assert blocks.GetNumberOfBlocks() == 2
    assert blocks.GetBlock(0).IsA("vtkImageData") and blocks.GetBlock(1).IsA("vtkPolyData")
    assert blocks.GetBlock(1).GetPointData().GetArray("Cp") is not None


def test_a_fresh_run_leaves_no_collection_of_an_earlier_one(tmp_path):
    out = tmp_path / "reuse"
    base = [
        str(ROOT / "cases" / "windtunnel_box.yaml"),
        "resolution.cells_per_length=8",
        "resolution.min_gap_cells=0",
        "run.max_steps=100",
        "run.check_every=50",
        "output.images=false",
        "--backend",
        "cpu",
        "--out",
        str(out),
    ]
    assert run_case.main([*base, "output.snapshot_every=50"]) == 0
    assert (out / "fields.pvd").is_file() and len(list((out / "snapshots").iterdir())) == 2
    assert run_case.main([*base, "output.fields=false"]) == 0
    assert not (out / "fields.pvd").exists() and not (out / "snapshots").exists()
    assert not (out / "fields.vti").exists()
    assert "fields.vti" not in (out / "case.vtm").read_text()

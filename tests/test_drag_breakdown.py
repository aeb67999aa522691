"""The drag breakdown (solver/drag_breakdown.py): drag by named part and Cd(x) along the body."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, read_vtk_xml

import run_case


def test_ahmed_breakdown_adds_up_and_flat_parts_take_no_pressure_drag(tmp_path):
    """ahmed.yaml at 20 cells per length, 400 steps, the last 200 averaged (a toy run: the
    figures are not converged, the bookkeeping is what is checked): the parts' pressure and
    friction sum to the run's cd_pressure and cd_friction (the kernel's reduction of every step,
    a different path from the per-slot window sums), Cd(x) ends at their sum and runs from the
    nose to the tail, and the roof and the sides, parallel to the flow, take no pressure drag.
    surface.vtp carries the parts for ParaView (cell array part, names in the field data)."""
    out = tmp_path / "ahmed"
    args = [str(ROOT / "cases" / "ahmed.yaml"), "resolution.cells_per_length=20", "resolution.min_gap_cells=0.5",
            "run.max_steps=400", "run.average_from_step=200", "run.average_steps=200",
            "output.fields=false", "output.images=false", "--backend", "cpu", "--out", str(out)]
    assert run_case.main(args) == 0
    info = json.loads((out / "summary.json").read_text())
    parts = info["cd_parts"]
    assert list(parts) == ["forebody", "roof", "sides", "underbody", "slant", "base", "stilts"]
    assert sum(p["pressure"] for p in parts.values()) == pytest.approx(info["cd_pressure"], rel=1e-6)
    assert sum(p["friction"] for p in parts.values()) == pytest.approx(info["cd_friction"], rel=1e-6)
    assert abs(parts["roof"]["pressure"]) < 1e-9 and abs(parts["sides"]["pressure"]) < 1e-9
    assert parts["forebody"]["pressure"] > 0.0 and parts["base"]["pressure"] > 0.0
    cumulative = info["cd_cumulative"]
    total = info["cd_pressure"] + info["cd_friction"]
    assert cumulative["cd"][-1] == pytest.approx(total, rel=1e-6)
    dx = info["dx_m"]
    assert -dx <= cumulative["x_m"][0] <= dx  # the first column's downstream face
    assert 1.044 - dx <= cumulative["x_m"][-1] <= 1.044 + dx
    assert len(cumulative["x_m"]) == len(cumulative["cd"])
    surface = read_vtk_xml(out / "surface.vtp")
    labels = surface.GetCellData().GetArray("part")
    assert labels is not None and labels.GetNumberOfTuples() == surface.GetNumberOfCells()
    names = surface.GetFieldData().GetAbstractArray("part_names")
    assert [names.GetValue(i) for i in range(names.GetNumberOfValues())] == list(parts)

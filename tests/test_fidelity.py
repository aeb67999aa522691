"""Fidelity figures of a set-up: the narrowest body-wall gap, blockage, inlet and outflow
distances; gaps under resolution.min_gap_cells are refused with one line."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, make_case

import run_case
from shapes.case_geometry import CASE_SCHEMA, case_mesh
from solver.config import load_case
from solver.errors import ConfigError
from solver.simulation import Simulation

TUNNEL = {
    "x_min": "inlet",
    "x_max": "outflow",
    "y_min": "freeslip",
    "y_max": "freeslip",
    "z_min": "noslip",
    "z_max": "freeslip",
}


def box_case(bottom_m: float, **resolution):
    """A 1.0 x 0.6 x 0.4 m box whose bottom is bottom_m above a fixed floor, in a 6 x 3 x 2 m
    tunnel at 10 cells per metre (dx 0.1 m)."""
    return make_case(
        flow={"speed_m_s": 10.0, "nu_m2_s": 1.5e-5},
        domain={"size_m": [6.0, 3.0, 2.0], "boundaries": TUNNEL},
        body={"shape": "box", "center_m": [2.0, 1.5, bottom_m + 0.2], "size_m": [1.0, 0.6, 0.4]},
        resolution={
            "cells_per_length": 10,
            "u_lattice": 0.05,
            "smagorinsky_cs": 0.16,
            **resolution,
        },
    )


def test_gap_blockage_and_distances_of_a_box(cpu):
    """Bottom 0.33 m above the floor at dx 0.1 m: the gap is 3.3 cells (interpolated bounce-back
    places the surface exactly), blockage 0.24 / 6 = 4%, the box spans x 1.5-2.5 m of a 6 m
    tunnel (1.5 and 3.5 box lengths)."""
    sim = Simulation(box_case(0.33), cpu)
    f = sim.fidelity
    assert f.gap_face == "z_min" and f.gap_cells == pytest.approx(3.3, abs=1e-3)
    assert f.gap_m == pytest.approx(0.33, abs=1e-4) and f.contact_faces == ()
    assert f.blockage == pytest.approx(0.6 * 0.4 / 6.0)
    assert f.inlet_lengths == pytest.approx(1.5) and f.outflow_lengths == pytest.approx(3.5)


def test_a_body_standing_on_the_floor_is_contact_not_a_gap(cpu):
    """A box resting on the fixed floor: no gap to that wall, contact noted; the nearest wall
    gap is then a side wall, 1.2 m away."""
    f = Simulation(box_case(0.0), cpu).fidelity
    assert f.contact_faces == ("z_min",)
    assert f.gap_face == "y_min" and f.gap_cells == pytest.approx(12.0, abs=1e-3)


def test_a_gap_under_min_gap_cells_is_refused_naming_the_fix(cpu):
    """1.6 cells under the box against the default minimum of 2: refused, naming the key to
    raise (to 13 = 10 x 2 / 1.6, rounded up) and the clearance; a case that lowers the key runs."""
    with pytest.raises(ConfigError) as err:
        Simulation(box_case(0.16), cpu)
    message = str(err.value)
    assert (
        "1.60 cells" in message and "resolution.cells_per_length" in message and "z_min" in message
    )
    assert "at least 13" in message
    assert Simulation(box_case(0.16, min_gap_cells=1.0), cpu).fidelity.gap_cells == pytest.approx(
        1.6, abs=1e-3
    )


def test_summary_states_the_fidelity(tmp_path, caplog):
    out = tmp_path / "box"
    args = [
        str(ROOT / "cases" / "windtunnel_box.yaml"),
        "resolution.cells_per_length=8",
        "resolution.min_gap_cells=0",
        "run.max_steps=20",
        "output.images=false",
        "output.fields=false",
        "--backend",
        "cpu",
        "--out",
        str(out),
    ]
    with caplog.at_level("INFO"):
        assert run_case.main(args) == 0
    summary = json.loads((out / "summary.json").read_text())
    for key in (
        "gap_cells",
        "gap_face",
        "blockage",
        "inlet_distance_lengths",
        "outflow_distance_lengths",
        "converged",
        "collision",
        "min_gap_cells",
    ):
        assert key in summary
    assert summary["storage"] == "fp32" and summary["subgrid"] == "smagorinsky"
    text = caplog.text
    assert "fidelity: narrowest gap" in text and "min_gap_cells = 0 is below the default" in text


def test_a_flow_without_an_inlet_has_no_blockage(cpu):
    """The periodic pipe's tube covers half its section, but nothing flows in to be blocked:
    no blockage figure and no blockage warning."""
    case = load_case(ROOT / "cases" / "pipe_laminar.yaml", ["run.max_steps=1"], schema=CASE_SCHEMA)
    assert Simulation(case, cpu, case_mesh(case)).fidelity.blockage is None

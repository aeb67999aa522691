"""The drag breakdown (solver/drag_breakdown.py): drag by named part and Cd(x) along the body."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, read_vtk_xml

import run_case


@pytest.mark.parametrize(
    "walls", [[], ["walls.body_rule=surface", "walls.pool_cells=3"]], ids=["faces", "pooled"]
)
def test_ahmed_breakdown_adds_up_and_flat_parts_take_no_pressure_drag(tmp_path, walls):
    """ahmed_faces.yaml at 20 cells per length, 400 steps, the last 200 averaged (a toy run: the
    figures are not converged, the bookkeeping is what is checked): the parts' pressure and
    friction sum to the run's cd_pressure and cd_friction (the kernel's reduction of every step,
    a different path from the per-slot window sums), Cd(x) ends at their sum (its exchange curve
    at the run's Cd, under the face rule and the pooled surface rule, whose pass moves exchange
    between slots) and runs from the nose to the tail, and the roof and the sides, parallel to
    the flow, take no pressure drag.
    surface.vtp carries the parts for ParaView (cell array part, names in the field data)."""
    out = tmp_path / "ahmed"
    args = [
        str(ROOT / "cases" / "ahmed_faces.yaml"),
        "resolution.cells_per_length=20",
        "resolution.min_gap_cells=0.5",
        "run.max_steps=400",
        "run.average_from_step=200",
        "run.average_steps=200",
        "output.fields=false",
        "output.images=false",
        *walls,
        "--backend",
        "cpu",
        "--out",
        str(out),
    ]
    assert run_case.main(args) == 0
    info = json.loads((out / "summary.json").read_text())
    parts = info["cd_parts"]
    assert list(parts) == ["forebody", "roof", "sides", "underbody", "slant", "base", "stilts"]
    assert sum(p["pressure"] for p in parts.values()) == pytest.approx(
        info["cd_pressure"], rel=1e-6
    )
    assert sum(p["friction"] for p in parts.values()) == pytest.approx(
        info["cd_friction"], rel=1e-6
    )
    assert abs(parts["roof"]["pressure"]) < 1e-9 and abs(parts["sides"]["pressure"]) < 1e-9
    assert parts["forebody"]["pressure"] > 0.0 and parts["base"]["pressure"] > 0.0
    cumulative = info["cd_cumulative"]
    total = info["cd_pressure"] + info["cd_friction"]
    assert cumulative["cd"][-1] == pytest.approx(total, rel=1e-6)
    assert cumulative["cd_exchange"][-1] == pytest.approx(info["cd"], rel=1e-6)
    dx = info["dx_m"]
    assert -dx <= cumulative["x_m"][0] <= dx  # the first column's downstream face
    assert 1.044 - dx <= cumulative["x_m"][-1] <= 1.044 + dx
    assert len(cumulative["x_m"]) == len(cumulative["cd"])
    surface = read_vtk_xml(out / "surface.vtp")
    labels = surface.GetCellData().GetArray("part")
    assert labels is not None and labels.GetNumberOfTuples() == surface.GetNumberOfCells()
    names = surface.GetFieldData().GetAbstractArray("part_names")
    assert [names.GetValue(i) for i in range(names.GetNumberOfValues())] == list(parts)


@pytest.mark.parametrize("rule", ["faces", "surface"])
def test_slots_report_the_pressure_of_their_mean_density(cpu, rule):
    """ahmed_faces.yaml at 20 cells, 400 steps, the last 200 averaged with the fields sampled every
    step: each slot's pressure force over the window, -p a_k, gives back p = (rho - 1) / 3 of its
    cell's mean density (two paths: the kernel's per-step report summed on the device, and the
    fields' running mean), under both walls.body_rule."""
    import numpy as np

    from shapes.case_geometry import CASE_SCHEMA, case_mesh
    from solver.config import load_case
    from solver.run import Runner
    from solver.simulation import FORCE_PRESSURE, Simulation

    case = load_case(
        ROOT / "cases" / "ahmed_faces.yaml",
        [
            "resolution.cells_per_length=20",
            "resolution.min_gap_cells=0.5",
            f"walls.body_rule={rule}",
            "run.max_steps=400",
            "run.average_from_step=200",
            "run.average_steps=200",
            "run.sample_every=1",
        ],
        schema=CASE_SCHEMA,
    )
    mesh = case_mesh(case)
    sim = Simulation(case, cpu, mesh)
    sim.attach_surface(mesh.vertices_m, mesh.faces, *mesh.parts())
    result = Runner(sim).run()
    area = sim.surface.area.astype(np.float64)
    norm2 = np.einsum("sa,sa->s", area, area)
    used = norm2 > 0.05
    reported = (
        -np.einsum("sa,sa->s", result.slot_force_mean_lattice[:, FORCE_PRESSURE], area)[used]
        / norm2[used]
    )
    cells = np.argwhere(sim.slot_host >= 0)
    rho = np.empty(len(cells))
    rho[sim.slot_host[tuple(cells.T)]] = result.mean_fields.rho[tuple(cells.T)]
    from_density = (rho[used] - 1.0) / 3.0
    scale = np.abs(from_density).max()
    assert used.sum() > 300 and scale > 1e-4
    np.testing.assert_allclose(reported, from_density, atol=1e-5 * scale)


def test_exchange_that_is_pressure_and_friction_splits_as_they_do(cpu):
    """drag_by_entry on the Ahmed body at 20 cells with made-up slot forces: each slot with area
    a pressure -p_k a_k and a friction tangential to a_k (random p_k and directions), and an
    exchange equal to their sum. Then the exchange's x-force of every surface entry equals that
    entry's pressure + friction (its part along a_k split as the pressure, the rest as the
    friction): the exchange curve of Cd(x) lies on the integrals' wherever the two agree."""
    import numpy as np

    from shapes.case_geometry import CASE_SCHEMA, case_mesh
    from solver.config import load_case
    from solver.drag_breakdown import drag_by_entry
    from solver.simulation import FORCE_FRICTION, FORCE_PRESSURE, FORCE_TOTAL, Simulation

    case = load_case(
        ROOT / "cases" / "ahmed_faces.yaml",
        ["resolution.cells_per_length=20", "resolution.min_gap_cells=0.5"],
        schema=CASE_SCHEMA,
    )
    mesh = case_mesh(case)
    sim = Simulation(case, cpu, mesh)
    sim.attach_surface(mesh.vertices_m, mesh.faces, *mesh.parts())
    area = sim.surface.area.astype(np.float64)
    has_area = np.einsum("sa,sa->s", area, area) > 0.0
    rng = np.random.default_rng(7)
    forces = np.zeros((len(area), 3, 3))
    pressure = rng.normal(size=len(area))
    forces[:, FORCE_PRESSURE] = -pressure[:, None] * area
    along = rng.normal(size=(len(area), 3))
    unit = area / np.where(has_area, np.linalg.norm(area, axis=1), 1.0)[:, None]
    forces[:, FORCE_FRICTION] = along - np.einsum("sa,sa->s", along, unit)[:, None] * unit
    forces[~has_area] = 0.0
    forces[:, FORCE_TOTAL] = forces[:, FORCE_PRESSURE] + forces[:, FORCE_FRICTION]
    assert has_area.sum() > 300
    pressure_x, friction_x, exchange_x = drag_by_entry(sim, forces, p_inf=0.01)
    np.testing.assert_allclose(exchange_x, pressure_x + friction_x, atol=1e-12)
    assert np.abs(friction_x).max() > 1e-3  # the friction part is not empty

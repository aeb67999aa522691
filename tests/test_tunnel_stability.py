"""The empty wind tunnel at a car's Reynolds number (tau0 - 1/2 ~ 1e-6): the rolling road, the
inlet, the outflow and the collision add nothing to a uniform stream in 20,000 steps, started
from rest or from the inflow with noise; the fixed floor grows a boundary layer without
reversed flow or a grid-scale pattern. ../shared/diagnostics/empty_road_tunnel.py showed 1.3 U
before the entropic collision, the pair rule on the road and the inlet of docs/solver.md."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT

from shapes.case_geometry import CASE_SCHEMA
from solver import lattice
from solver.backends.cpu import CpuBackend
from solver.config import load_case
from solver.simulation import Simulation

PERIODIC = [f"domain.boundaries.{a}_{s}=periodic" for a in "xyz" for s in ("min", "max")] + [
    "domain.sponge.length_m=0"
]


def empty_tunnel(overrides: list[str], start: str) -> Simulation:
    """car.yaml's flow and tunnel without the car, 10 cells per 4.5 m (49 x 16 x 10 cells)."""
    case = load_case(
        ROOT / "cases" / "car.yaml",
        [
            "body.shape=none",
            "geometry.source=none",
            "body.reference_length_m=4.5",
            "resolution.cells_per_length=10",
            f"flow.initial={'rest' if start == 'rest' else 'inflow'}",
            *overrides,
        ],
        schema=CASE_SCHEMA,
    )
    sim = Simulation(case, CpuBackend())
    if start == "noise":
        f = sim.populations()
        f += (1e-6 * np.random.default_rng(0).standard_normal(f.shape)).astype(np.float32)
        sim.load_populations(f, 0)
    return sim


@pytest.mark.parametrize(
    "overrides, start",
    [
        pytest.param(
            ["resolution.u_lattice=0.05"], "rest", marks=pytest.mark.slow, id="road-u0.05-rest"
        ),
        pytest.param(
            ["resolution.u_lattice=0.05"], "noise", marks=pytest.mark.slow, id="road-u0.05-noise"
        ),
        pytest.param(
            ["resolution.u_lattice=0.1"], "rest", marks=pytest.mark.slow, id="road-u0.1-rest"
        ),
        pytest.param(["resolution.u_lattice=0.1"], "noise", id="road-u0.1-noise"),
        pytest.param(
            ["resolution.u_lattice=0.05", "domain.boundaries.z_min=freeslip"],
            "rest",
            marks=pytest.mark.slow,
            id="freeslip-rest",
        ),
        pytest.param(["resolution.u_lattice=0.1", *PERIODIC], "noise", id="periodic-noise"),
    ],
)
def test_empty_tunnel_holds_the_free_stream_for_20000_steps(overrides, start):
    """make test runs the rolling road at the higher lattice speed from a noisy start (the
    hardest of the set) and the periodic box; make test-slow the rest."""
    sim = empty_tunnel(overrides, start)
    assert sim.units.tau - 0.5 < 1e-5 and sim.case.resolution.smagorinsky_cs > 0
    sim.advance(20000)
    v = sim.fields().velocity
    U = sim.units.u_lattice
    deviation = np.sqrt((v[0] - U) ** 2 + v[1] ** 2 + v[2] ** 2) / U
    fluid = (sim.flags_host & lattice.TYPE_MASK) == lattice.FLUID
    worst = float(deviation[fluid].max())
    print(
        f"measured: {' '.join(overrides)} from {start}: max |u - U| / U = {worst:.1e} after 20000 "
        "steps"
    )
    assert worst < 1e-3


@pytest.mark.parametrize("cells", [14, pytest.param(20, marks=pytest.mark.slow)])
def test_fixed_floor_grows_a_boundary_layer_without_reversed_flow(cells):
    """ahmed_faces.yaml's tunnel without the body at 14 (make test) and 20 cells per body length
    (make test-slow; Re 4.3e6, 72 x 29 x 19 and 106 x 34 x 22 cells), 8000 steps at 20 cells
    from the inflow (the same flow time at 14), velocity averaged over the last eighth: along the
    floor the first cell's velocity falls monotonically from the inlet (no period-2 pattern, no
    reversed flow; BGK showed -0.54 U) and the 99% thickness never shrinks."""
    case = load_case(
        ROOT / "cases" / "ahmed_faces.yaml",
        [
            "body.shape=none",
            "geometry.source=none",
            "body.reference_length_m=1.044",
            f"resolution.cells_per_length={cells}",
        ],
        schema=CASE_SCHEMA,
    )
    sim = Simulation(case, CpuBackend())
    block = 5 * cells  # 100 steps at 20 cells
    sim.advance(70 * block)
    mean = 0.0
    for _ in range(10):
        sim.advance(block)
        mean = mean + sim.fields().velocity[0] / 10
    inner = sim.grid.interior()
    ux = (mean / sim.units.u_lattice)[inner].mean(axis=1)  # [z, x], spanwise mean
    sponge_start = int((case.domain.size_m[0] - case.domain.sponge.length_m) / sim.units.dx_m)
    floor_row = ux[0, :sponge_start]
    thickness = np.argmax(ux[:, :sponge_start] >= 0.99, axis=0)
    print(
        f"measured: floor row u/U {floor_row[0]:.2f} at the inlet to {floor_row[-1]:.2f}, min "
        f"{ux[0].min():.3f}; 99% thickness {thickness[0]} to {thickness[-1]} cells"
    )
    assert ux[0].min() > 0
    assert np.all(np.diff(floor_row) <= 1e-3)
    assert np.all(np.diff(thickness) >= 0)

"""Wheels that roll on the road (solver/rolling.py): the car with wheels builds on the rolling
road under the volumetric wall, its wheels' elements move as a wheel rolling without slip, the
body's stand still, a fluid at rest round wheels cut by the floor stays at rest, and cases in
which the wheels cannot roll are refused in one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shapes.case_geometry import CASE_SCHEMA, case_mesh
from shapes.wheels import CONTACT_SINK_M, WHEEL_RADIUS_M, WHEELS_PART
from solver.backends.cpu import CpuBackend
from solver.config import load_case
from solver.errors import ConfigError
from solver.simulation import FORCE_FRICTION, Simulation, initial_moments

ROOT = Path(__file__).resolve().parents[1]
#: The car with wheels at 32 cells per length (dx 0.14 m, a wheel 2.2 cells in radius).
COARSE_CAR = [
    "geometry.car.wheels=true",
    "resolution.cells_per_length=32",
    "resolution.min_gap_cells=0",
    "body.bounce_back=volumetric",
]


def car_case(*overrides: str):
    return load_case(
        ROOT / "cases" / "car.yaml", overrides=[*COARSE_CAR, *overrides], schema=CASE_SCHEMA
    )


def test_wheel_elements_roll_with_the_road_and_the_body_stands():
    """Every element with only wheel surfels moves at most r / h times the road's speed (the
    tread's top, r the radius and h the centre's height); those below the centre move forward,
    the lowest (within a cell of the road) within 1.1 cells / h of the road's speed; elements
    with no wheel surfel stand still."""
    case = car_case()
    sim = Simulation(case, CpuBackend(), case_mesh(case))
    wall, u = sim.volumetric_wall, sim.element_velocity
    road = sim.units.u_lattice
    face_part, names = sim.volumetric_parts
    on_wheel = face_part[wall.surfel_triangle] == names.index(WHEELS_PART)
    n_elements = len(wall.area_vector)
    wheel_share = np.bincount(wall.surfel_element, on_wheel, n_elements) / np.bincount(
        wall.surfel_element, minlength=n_elements
    )
    only = wheel_share == 1.0
    assert only.sum() > 20
    assert np.all(u[wheel_share == 0.0] == 0.0)
    height_cells = (WHEEL_RADIUS_M - CONTACT_SINK_M) / sim.grid.dx_m
    speed = np.linalg.norm(u[only], axis=1)
    assert speed.max() <= road * WHEEL_RADIUS_M / (WHEEL_RADIUS_M - CONTACT_SINK_M) * (1 + 1e-6)
    z_cells = wall.centroid[only, 2] - sim.grid.ghost_lo[2]
    below = z_cells < height_cells
    assert np.all(u[only][below, 0] > 0)
    lowest = z_cells < 1.0
    assert lowest.any() and np.all(u[only][lowest, 0] > road * (1 - 1.1 / height_cells))


@pytest.mark.parametrize(
    "overrides, key",
    [
        (["walls.model=none"], "walls.model=loglaw"),
        (["body.bounce_back=interpolated"], "body.bounce_back=projected"),
        (["body.bounce_back=interpolated", "walls.model=loglaw"], "body.bounce_back=projected"),
    ],
    ids=["no wall model", "not the volumetric wall", "interpolated with the law"],
)
def test_wheels_that_cannot_roll_on_the_road_are_refused(overrides, key):
    """On the moving road the wheels roll only through the law of the wall on the volumetric
    wall's elements: without the law, or with another body wall, one line names the keys."""
    case = car_case(*overrides)
    with pytest.raises(ConfigError, match=key):
        Simulation(case, CpuBackend(), case_mesh(case))


def test_wheels_stand_on_a_fixed_floor():
    """On a fixed floor the wheels stand still, under any wall, and the contact is no gap."""
    case = car_case("domain.boundaries.z_min=noslip", "walls.model=none")
    sim = Simulation(case, CpuBackend(), case_mesh(case))
    assert sim.element_velocity is None
    assert "z_min" in sim.fidelity.contact_faces


def test_a_fluid_at_rest_stays_at_rest_round_wheels_cut_by_the_floor():
    """The wheels reach below the floor, which cuts their elements' prisms: with the law on the
    elements (walls.model=loglaw) a fluid at rest stays at rest in a step (the free slip hands
    back the tangential momentum less a fluid at rest's, lbm_volumetric_gather; before, the
    cells by the contact lost up to 10% of their mass in a step at 48 cells per length). Fixed
    floor, so nothing moves but what the inlet starts, far from the car."""
    case = car_case("domain.boundaries.z_min=noslip", "walls.model=loglaw")
    sim = Simulation(case, CpuBackend(), case_mesh(case))
    volume = sim.volumetric_wall.volume
    assert ((volume > 0) & (volume < 1))[1].any()  # cut cells in the first layer over the floor
    moments = initial_moments(case, sim.grid, sim.units)
    moments[1:] = 0.0
    sim.start_from(moments)
    sim.advance(2)
    fields = sim.fields()
    slots = sim.volumetric_wall.slot_cell  # every cell the wall's tables touch
    assert np.abs(fields.rho.ravel()[slots] - 1.0).max() < 1e-6
    assert np.abs(fields.velocity.reshape(3, -1)[:, slots]).max() < 1e-6


def test_a_fluid_at_rest_pushes_the_wheels_along_nothing():
    """A fluid at rest at density 1.01 (a pressure above the gauge's) round the wheels cut by
    the floor: the elements' exchange along their surfaces, the friction, is zero to float32
    rounding. The cut prisms exchange 2 (rho - 1) sum_q (c_q . t) w_q A_in[q] along the surface
    at rest, momentum the floor takes back; reported, it gave the wheels a friction Cd of 0.05 at
    48 cells per length, most of it in the cells by the contact patches."""
    case = car_case("domain.boundaries.z_min=noslip", "walls.model=loglaw")
    sim = Simulation(case, CpuBackend(), case_mesh(case))
    moments = initial_moments(case, sim.grid, sim.units)
    moments[0] = 1.01
    moments[1:] = 0.0
    sim.start_from(moments)
    force = sim.advance(1)[0]
    cd = sim.coefficients(force[FORCE_FRICTION])[0]
    assert abs(cd) < 1e-5

"""Wheels that roll on the road: the velocity of the volumetric wall's elements on them.

A wheel standing on the rolling road (the moving wall z_min) turns without slip: about its axle
through its centre c at the angular velocity omega = (V x e_z) / h, V the road's velocity and h
the centre's height above the road plane, so that the point of the wheel at the road plane moves
with the road. A point r of its surface moves at omega x (r - c). Without a moving wall z_min the
wheels stand still. Each element of the volumetric wall (one per cut cell,
solver/volumetric_wall.py) takes the area-weighted mean of its surfels' velocities, those of
other parts counting as at rest, and the law of the wall reads the flow relative to it
(solver/volumetric_law.py). Lengths in cells, velocities in lattice units, unless a name says
otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.boundary_conditions import MovingWall, boundary_conditions
from solver.config import VOLUMETRIC, CaseConfig, wall_model
from solver.errors import ConfigError
from solver.grid import Grid
from solver.units import LatticeUnits
from solver.volumetric_wall import VolumetricWall


@dataclass(frozen=True)
class RollingWheels:
    """The faces of part `part` belong to wheels; each face turns with the nearest of the
    wheels centred at centres_m [k, 3] (metres), about the axle across the road's motion."""

    part: str
    centres_m: np.ndarray

    def shifted(self, offset_m: np.ndarray) -> RollingWheels:
        """The wheels moved with their mesh by offset_m [m]."""
        return RollingWheels(self.part, np.asarray(self.centres_m, float) + offset_m)


def element_wall_velocity(
    wall: VolumetricWall,
    wheels: RollingWheels,
    face_part: np.ndarray,
    part_names: tuple[str, ...],
    case: CaseConfig,
    grid: Grid,
    units: LatticeUnits,
) -> np.ndarray:
    """Each element's wall velocity [E, 3] (lattice units): the wheels rolling on the road
    z_min, or at rest without one. ConfigError where the part is missing or a wheel's centre
    is not above the road."""
    if wheels.part not in part_names:
        raise ConfigError(
            f"the mesh's rolling wheels name part '{wheels.part}', which it does not have "
            f"(its parts: {', '.join(part_names)})"
        )
    velocity = np.zeros((len(wall.area_vector), 3))
    road = boundary_conditions(case).face("z", "min")
    if not isinstance(road, MovingWall):
        return velocity
    lo_cell_m = grid.origin_m - np.asarray(grid.ghost_lo) * grid.dx_m
    centres = (np.asarray(wheels.centres_m, float) - lo_cell_m) / grid.dx_m  # cells
    height = centres[:, 2] - grid.ghost_lo[2]  # above the road plane, the first fluid layer's floor
    if np.any(height <= 0):
        raise ConfigError(
            "a rolling wheel's centre lies at or below the road (domain.boundaries.z_min "
            "moving): place the car above z = 0"
        )
    road_u = np.asarray(road.velocity_m_s, float) / units.speed_m_s * units.u_lattice
    omega = np.cross(road_u, [0.0, 0.0, 1.0])[None, :] / height[:, None]  # [k, 3] per step
    on_wheel = np.asarray(face_part)[wall.surfel_triangle] == part_names.index(wheels.part)
    position = wall.surfel_centroid[on_wheel]
    wheel = np.argmin(np.linalg.norm(position[:, None, :] - centres[None, :, :], axis=2), axis=1)
    surfel_u = np.cross(omega[wheel], position - centres[wheel])
    area = np.linalg.norm(wall.surfel_area_vector, axis=1)
    total = np.bincount(wall.surfel_element, weights=area, minlength=len(velocity))
    for d in range(3):
        velocity[:, d] = np.bincount(
            wall.surfel_element[on_wheel],
            weights=area[on_wheel] * surfel_u[:, d],
            minlength=len(velocity),
        )
    return velocity / np.maximum(total, 1e-300)[:, None]


def rolls_on_road(case: CaseConfig) -> bool:
    """Whether wheels roll in this case (the road z_min moves); ConfigError where they would
    have to but cannot: they turn through the law of the wall on the volumetric wall's
    elements, so both must be on."""
    if not isinstance(boundary_conditions(case).face("z", "min"), MovingWall):
        return False
    if case.body.bounce_back not in VOLUMETRIC or wall_model(case) != "loglaw":
        raise ConfigError(
            "the body's wheels roll on the moving road through the law of the wall on the "
            "volumetric wall: set body.bounce_back=projected (or volumetric) and "
            "walls.model=loglaw, or make the road fixed (domain.boundaries.z_min=noslip)"
        )
    return True


def contact_cells(wheels: RollingWheels, grid: Grid) -> np.ndarray:
    """bool [y, x] of the first fluid layer over the road z_min: the cells whose centres lie
    within a wheel's centre height of where it stands, which a rolling wheel may fill (it moves
    with the road there)."""
    centres = np.asarray(wheels.centres_m, float)
    y, x = np.meshgrid(grid.centers(1), grid.centers(0), indexing="ij")
    height = centres[:, 2] - grid.origin_m[2]
    near = (x[None] - centres[:, 0, None, None]) ** 2 + (y[None] - centres[:, 1, None, None]) ** 2
    return np.any(near <= height[:, None, None] ** 2, axis=0)

"""The boundary conditions of a case as objects (XLB's boundary-condition classes, Oceananigans'
FieldBoundaryConditions): one per face of the tunnel and one for the body, each holding its own
parameters, parsed from the case's keys (domain.boundaries, flow.inlet_profile, domain.sponge,
walls, body.bounce_back). The grid, the cell flags, the inlet and the kernels' wall velocity
read them here instead of each reading the keys.

Units: velocities in m/s, lengths in metres.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from solver.config import CaseConfig, wall_model

#: The six faces of the tunnel, as the case keys name them.
FACES = ("x_min", "x_max", "y_min", "y_max", "z_min", "z_max")


@dataclass(frozen=True)
class Periodic:
    """The flow leaves through this face and enters through the opposite one."""

    kind: ClassVar[str] = "periodic"


@dataclass(frozen=True)
class NoSlip:
    """A resting wall: halfway bounce-back, or the law of the wall's stress (wall_model)."""

    wall_model: str
    kind: ClassVar[str] = "noslip"


@dataclass(frozen=True)
class FreeSlip:
    """A wall without friction: specular reflection."""

    kind: ClassVar[str] = "freeslip"


@dataclass(frozen=True)
class MovingWall:
    """A wall moving in its own plane at velocity_m_s (the rolling road: the free stream's speed
    along x), with the wall model's stress relative to it."""

    velocity_m_s: tuple[float, float, float]
    wall_model: str
    kind: ClassVar[str] = "moving"


@dataclass(frozen=True)
class Inlet:
    """Velocity inflow at speed_m_s: uniform, or parabolic across y with that mean."""

    speed_m_s: float
    profile: str
    kind: ClassVar[str] = "inlet"


@dataclass(frozen=True)
class Outflow:
    """Zero-gradient outflow, behind a sponge of sponge_length_m whose relaxation time rises to
    tau_outlet (lattice units) at the face."""

    sponge_length_m: float
    tau_outlet: float
    kind: ClassVar[str] = "outflow"


FaceCondition = Periodic | NoSlip | FreeSlip | MovingWall | Inlet | Outflow

#: The conditions that are walls: no fluid lives in their layer of cells.
WALLS = (NoSlip, FreeSlip, MovingWall)
WALL_KINDS = tuple(c.kind for c in WALLS)


@dataclass(frozen=True)
class BodyWall:
    """The body's wall: interpolated (Bouzidi et al. 2001) or halfway bounce-back, and the wall
    model with its rule for the body (walls.body_rule) and input height (walls.sample_cells)."""

    bounce_back: str
    wall_model: str
    rule: str
    sample_cells: int


@dataclass(frozen=True)
class BoundaryConditions:
    """Every face's condition (by FACES name) and the body's."""

    faces: dict[str, FaceCondition]
    body: BodyWall

    def face(self, axis: str, side: str) -> FaceCondition:
        """The condition on the axis's (x, y, z) min or max face."""
        return self.faces[f"{axis}_{side}"]

    def periodic_axes(self) -> np.ndarray:
        """bool [3] (x, y, z): which axes the grid wraps."""
        return np.array([isinstance(self.face(axis, "min"), Periodic) for axis in "xyz"])

    def wall_velocity_m_s(self) -> tuple[float, float, float]:
        """The moving walls' velocity (the kernels hold one for all of them; the case checks
        allow no other); zero without a moving wall."""
        moving = {c.velocity_m_s for c in self.faces.values() if isinstance(c, MovingWall)}
        assert len(moving) <= 1, "the moving walls of a case share one velocity"
        return moving.pop() if moving else (0.0, 0.0, 0.0)


def boundary_conditions(case: CaseConfig) -> BoundaryConditions:
    """The conditions a checked case's keys describe."""
    model = wall_model(case)
    speed = case.flow.speed_m_s
    sponge = case.domain.sponge
    make = {
        "periodic": Periodic,
        "noslip": lambda: NoSlip(model),
        "freeslip": FreeSlip,
        "moving": lambda: MovingWall((speed, 0.0, 0.0), model),  # the road moves with the air
        "inlet": lambda: Inlet(speed, case.flow.inlet_profile),
        "outflow": lambda: Outflow(sponge.length_m, sponge.tau_outlet),
    }
    faces = {name: make[getattr(case.domain.boundaries, name)]() for name in FACES}
    w = case.walls
    return BoundaryConditions(
        faces, BodyWall(case.body.bounce_back, model, w.body_rule, w.sample_cells)
    )

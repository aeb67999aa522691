"""What a result is worth, read off the grid before the run: the narrowest gap between the body
and a wall in cells, the tunnel's blockage, and how far the body sits from the inlet and the
outflow. Every run states these in its log and summary.json (docs/solver.md, "Fidelity").

A gap is measured along each wall's normal, column by column: the fluid cells between the wall
(which lies on the box's face) and the body, with the body's surface placed by the wall fraction
of the link into it (interpolated bounce-back) or on the cell face (halfway). Columns where the
body stands on the wall (no fluid cell between them, like the Ahmed body's stilts on its fixed
floor) are contact, not a gap, and do not count.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numpy as np

from solver import lattice
from solver.boundary_conditions import WALLS, Inlet, Outflow, boundary_conditions
from solver.config import AXES, CaseConfig
from solver.errors import ConfigError
from solver.grid import Grid

log = logging.getLogger(__name__)

#: Blockage above this share of the tunnel section raises Cd noticeably (../VALIDATION.md).
BLOCKAGE_WARN = 0.05
#: The default of resolution.min_gap_cells; a case below it is flagged in the log.
MIN_GAP_CELLS_DEFAULT = 2.0
#: A body that leaves less than this share of a tunnel section open is refused: the flow through
#: the rest would run at over ten times the free stream, far past the lattice's stable speeds.
MIN_OPEN_SECTION = 0.1
#: The keys that size each kind of body, named when one is too large for its tunnel.
SIZE_KEYS = {
    "sphere": "body.radius_m",
    "cylinder": "body.radius_m",
    "box": "body.size_m",
    "mesh": "the mesh's size",
}


@dataclass(frozen=True)
class Fidelity:
    gap_cells: float | None  # narrowest body-wall gap / dx (contact excluded)
    gap_m: float | None
    gap_face: str | None  # the wall of that gap, e.g. "z_min"
    contact_faces: tuple[str, ...]  # walls the body stands on
    blockage: float | None  # body frontal area / tunnel section (y-z); None without an inlet
    inlet_lengths: float | None  # inlet plane to the body's front, in reference lengths
    outflow_lengths: float | None  # body's rear to the outflow plane, in reference lengths

    def as_dict(self) -> dict:
        return {
            "gap_cells": self.gap_cells,
            "gap_m": self.gap_m,
            "gap_face": self.gap_face,
            "contact_faces": list(self.contact_faces),
            "blockage": self.blockage,
            "inlet_distance_lengths": self.inlet_lengths,
            "outflow_distance_lengths": self.outflow_lengths,
        }

    def describe(self) -> str:
        """One log line."""
        parts = []
        if self.gap_cells is not None:
            parts.append(
                f"narrowest gap {self.gap_cells:.2f} cells ({self.gap_m:.3g} m, {self.gap_face})"
            )
        if self.contact_faces:
            parts.append(f"stands on {', '.join(self.contact_faces)}")
        if self.blockage is not None:
            parts.append(f"blockage {100 * self.blockage:.1f}%")
        if self.inlet_lengths is not None:
            parts.append(f"inlet {self.inlet_lengths:.2f} L upstream")
        if self.outflow_lengths is not None:
            parts.append(f"outflow {self.outflow_lengths:.2f} L downstream")
        return "fidelity: " + ", ".join(parts) if parts else "fidelity: no body"


def _face_gaps(
    body: np.ndarray,
    axis: int,
    side: str,
    slot: np.ndarray,
    link_q: np.ndarray | None,
    standing: np.ndarray | None = None,
) -> tuple[float | None, bool]:
    """Narrowest gap in cells between the wall on face (axis, side) and the body, and whether the
    body touches it. Arrays [z, y, x], the wall the first (min) or last (max) layer on the axis."""
    array_axis = 2 - axis
    column = np.moveaxis(body, array_axis, 0)
    slots = np.moveaxis(slot, array_axis, 0)
    if side == "max":
        column, slots = column[::-1], slots[::-1]
    has_body = column.any(axis=0)
    if not has_body.any():
        return None, False
    first_body = np.argmax(column, axis=0)  # index of the first body cell from the wall
    fluid_between = first_body - 1  # the wall layer is index 0
    contact = has_body & (fluid_between <= 0)
    # standing: the columns round a wheel's contact patch, whose wedge is contact, not gap
    gap_columns = has_body & (fluid_between > 0) & (True if standing is None else ~standing)
    if not gap_columns.any():
        return None, bool(contact.any())
    fluid = fluid_between[gap_columns]
    fraction = np.full(fluid.shape, 0.5)
    if link_q is not None:
        # The link from the last fluid cell into the body points away from the wall: its source
        # is x - c with c = -(unit normal into the domain) on a min face, +normal on a max face.
        c = np.zeros(3, int)
        c[axis] = -1 if side == "min" else 1
        q = int(np.flatnonzero(np.all(lattice.C == c, axis=1))[0])
        last_fluid = np.take_along_axis(slots, (first_body - 1)[None], axis=0)[0][gap_columns]
        known = last_fluid >= 0
        link_fraction = link_q[last_fluid[known], q - 1]
        fraction[known] = np.where(link_fraction > 0, link_fraction, 0.5)
    gaps = fluid - 0.5 + fraction
    return float(gaps.min()), bool(contact.any())


def check_through_flow(case: CaseConfig, grid: Grid, flags: np.ndarray) -> None:
    """Refuse a body that leaves the tunnel no through-flow: no fluid cell at all, or a y-z
    section whose open (fluid) cells are fewer than MIN_OPEN_SECTION of the widest section's.
    One line naming the body's size key and domain.size_m; flags [z, y, x]."""
    fluid = (flags & lattice.TYPE_MASK) == lattice.FLUID
    resize = (
        f"shrink the body ({SIZE_KEYS.get(case.body.shape, 'its size')}) or widen domain.size_m"
    )
    if not fluid.any():
        raise ConfigError(
            f"the body fills the whole tunnel ({grid.nx} x {grid.ny} x {grid.nz} cells, "
            f"no fluid cell): {resize}"
        )
    open_cells = fluid.sum(axis=(0, 1))
    body_planes = np.flatnonzero(((flags & lattice.BODY) != 0).any(axis=(0, 1)))
    if body_planes.size == 0:
        return
    share = open_cells[body_planes] / open_cells.max()
    worst = int(np.argmin(share))
    if share[worst] < MIN_OPEN_SECTION:
        x_m = grid.centers(0)[body_planes[worst]]
        raise ConfigError(
            f"the body blocks {100 * (1 - share[worst]):.0f}% of the tunnel section at "
            f"x = {x_m:.3g} m, leaving the flow no way through: {resize}"
        )


def assess(
    case: CaseConfig,
    grid: Grid,
    flags: np.ndarray,
    slot: np.ndarray,
    link_q: np.ndarray | None,
    frontal_area_m2: float | None,
    length_m: float,
    standing_on_floor: np.ndarray | None = None,
) -> Fidelity:
    """The fidelity figures of a case on its grid. slot: the body's neighbour index; link_q: the
    wall fractions of interpolated bounce-back (None for halfway); standing_on_floor: bool
    [y, x], z_min's columns round the wheels' contact patches (solver/rolling.py): contact."""
    body = (flags & lattice.BODY) != 0
    if not body.any():
        return Fidelity(None, None, None, (), None, None, None)
    conditions = boundary_conditions(case)
    best: tuple[float | None, str | None] = (None, None)
    contact = []
    for axis, name in enumerate(AXES):
        for side in ("min", "max"):
            face = f"{name}_{side}"
            if not isinstance(conditions.faces[face], WALLS):
                continue
            standing = standing_on_floor if face == "z_min" else None
            gap, touches = _face_gaps(body, axis, side, slot, link_q, standing)
            if touches:
                contact.append(face)
            if gap is not None and (best[0] is None or gap < best[0]):
                best = (gap, face)
    blockage, inlet, outflow = tunnel_figures(case, grid, body, frontal_area_m2, length_m)
    gap_cells, gap_face = best
    return Fidelity(
        gap_cells=gap_cells,
        gap_m=None if gap_cells is None else gap_cells * grid.dx_m,
        gap_face=gap_face,
        contact_faces=tuple(contact),
        blockage=blockage,
        inlet_lengths=inlet,
        outflow_lengths=outflow,
    )


def tunnel_figures(
    case: CaseConfig,
    grid: Grid,
    body: np.ndarray,
    frontal_area_m2: float | None,
    length_m: float,
) -> tuple[float | None, float | None, float | None]:
    """The body in the tunnel of `case`: its blockage (frontal area / the y-z section) and the
    inlet's and outflow's distances from it in reference lengths, None where the case has no
    inlet or outflow. body: bool [z, y, x] of grid, which may be a refinement level's."""
    faces = boundary_conditions(case).faces
    size = case.domain.size_m
    # A tunnel's figure: a flow without an inlet (a periodic pipe or channel) has no free
    # stream to block.
    blockage = (
        frontal_area_m2 / (size[1] * size[2])
        if frontal_area_m2 and isinstance(faces["x_min"], Inlet)
        else None
    )
    x_cells = np.flatnonzero(body.any(axis=(0, 1)))
    front = grid.centers(0)[x_cells[0]] - 0.5 * grid.dx_m
    rear = grid.centers(0)[x_cells[-1]] + 0.5 * grid.dx_m
    x0 = case.domain.origin_m[0]
    inlet = (front - x0) / length_m if isinstance(faces["x_min"], Inlet) else None
    outflow = (x0 + size[0] - rear) / length_m if isinstance(faces["x_max"], Outflow) else None
    return blockage, inlet, outflow


def check_fidelity(case: CaseConfig, fidelity: Fidelity) -> None:
    """Refuse a gap under resolution.min_gap_cells (one line naming the key to raise and the
    clearance); log a case that lowered the key, and blockage over 5%."""
    r = case.resolution
    gap = fidelity.gap_cells
    if gap is not None and gap < r.min_gap_cells:
        needed = math.ceil(r.cells_per_length * r.min_gap_cells / gap)
        raise ConfigError(
            f"the body comes within {gap:.2f} cells ({fidelity.gap_m:.3g} m) of the wall "
            f"{fidelity.gap_face}, "
            f"under resolution.min_gap_cells = {r.min_gap_cells:g}: raise "
            "resolution.cells_per_length "
            f"to at least {needed} (now {r.cells_per_length}) or the body's clearance from "
            f"{fidelity.gap_face}"
        )
    if r.min_gap_cells < MIN_GAP_CELLS_DEFAULT:
        log.warning(
            "resolution.min_gap_cells = %g is below the default %g: gaps of fewer cells are "
            "not resolved and their flow, and the forces from it, are screening figures",
            r.min_gap_cells,
            MIN_GAP_CELLS_DEFAULT,
        )
    if fidelity.blockage is not None and fidelity.blockage > BLOCKAGE_WARN:
        log.warning(
            "the body blocks %.1f%% of the tunnel section (over %.0f%%): Cd is raised by the "
            "walls; widen domain.size_m",
            100 * fidelity.blockage,
            100 * BLOCKAGE_WARN,
        )

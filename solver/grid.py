"""The lattice grid of a case: its size, where its cells sit in metres, and the cell flags.

Cells are cubes of edge dx. Along a periodic axis the grid holds round(length / dx) cells. Every
other face gets one extra layer of boundary cells just outside the physical box, so that a
halfway bounce-back wall, a free-slip wall or the moving ground lies exactly on the box's face,
and inlet and outflow cells sit half a cell outside it. Cell (i, j, k) has its centre at
origin + ((i - g_x + 1/2) dx, ...), with g the number of boundary layers on the min face.

Where two faces meet, the face applied later wins: x faces first, then y, then z (so the
ground's moving wall runs under the inlet and outflow planes to the domain's edges).

Arrays are indexed [z, y, x] so that the flat index is n = x + nx (y + ny z), as in the kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver import lattice
from solver.boundary_conditions import Periodic, boundary_conditions
from solver.config import CaseConfig
from solver.lattice import BODY, FLUID, FREESLIP, INLET, MOVING, OUTFLOW, SOLID, TYPE_MASK
from solver.units import LatticeUnits
from solver.wall_fill import mark_bulk

FACE_FLAG = {
    "noslip": SOLID,
    "freeslip": FREESLIP,
    "moving": MOVING,
    "inlet": INLET,
    "outflow": OUTFLOW,
}


@dataclass(frozen=True)
class Grid:
    shape_zyx: tuple[int, int, int]
    dx_m: float
    origin_m: np.ndarray  # physical min corner of the box [m]
    ghost_lo: tuple[int, int, int]  # boundary layers on the min faces, (x, y, z)
    ghost_hi: tuple[int, int, int]

    @property
    def nx(self) -> int:
        return self.shape_zyx[2]

    @property
    def ny(self) -> int:
        return self.shape_zyx[1]

    @property
    def nz(self) -> int:
        return self.shape_zyx[0]

    @property
    def n_cells(self) -> int:
        return self.nx * self.ny * self.nz

    def centers(self, axis: int) -> np.ndarray:
        """Cell-centre coordinates along axis 0=x, 1=y, 2=z [m]."""
        n = (self.nx, self.ny, self.nz)[axis]
        return self.origin_m[axis] + (np.arange(n) - self.ghost_lo[axis] + 0.5) * self.dx_m

    def interior(self) -> tuple[slice, slice, slice]:
        """[z, y, x] slices of the cells inside the physical box (no boundary layers)."""
        return tuple(
            slice(self.ghost_lo[a], (self.nx, self.ny, self.nz)[a] - self.ghost_hi[a])
            for a in (2, 1, 0)
        )  # type: ignore[return-value]


def make_grid(case: CaseConfig, units: LatticeUnits) -> Grid:
    conditions = boundary_conditions(case)
    counts, lo, hi = [], [], []
    for a, axis in enumerate("xyz"):
        n = max(1, int(round(case.domain.size_m[a] / units.dx_m)))
        g_lo = 0 if isinstance(conditions.face(axis, "min"), Periodic) else 1
        g_hi = 0 if isinstance(conditions.face(axis, "max"), Periodic) else 1
        counts.append(n + g_lo + g_hi)
        lo.append(g_lo)
        hi.append(g_hi)
    return Grid(
        (counts[2], counts[1], counts[0]),
        units.dx_m,
        np.asarray(case.domain.origin_m, float),
        tuple(lo),
        tuple(hi),
    )  # type: ignore[arg-type]


def make_flags(case: CaseConfig, grid: Grid, body_cells: np.ndarray | None) -> np.ndarray:
    """Cell flags [z, y, x]: boundary layers by face, the body's cells (body_cells, bool
    [z, y, x]; only those inside the physical box count), and the bulk marks."""
    flags = np.full(grid.shape_zyx, FLUID, dtype=np.uint8)
    conditions = boundary_conditions(case)
    for a, axis in enumerate("xyz"):
        view = np.moveaxis(flags, 2 - a, 0)
        for side, index in (("min", 0), ("max", -1)):
            condition = conditions.face(axis, side)
            if not isinstance(condition, Periodic):
                view[index] = FACE_FLAG[condition.kind]
    if body_cells is not None:
        inner = grid.interior()
        flags[inner][body_cells[inner]] = SOLID | BODY  # basic slices: flags[inner] is a view
    mark_bulk(flags)
    return flags


def body_neighbour_index(flags: np.ndarray, layers: int = 2) -> np.ndarray:
    """int32 [z, y, x]: for each fluid cell within `layers` links of a body cell (the first layer
    has a link into the body, the second a link into the first), its slot k = 0, 1, ... in
    flat-index order; -1 elsewhere. The kernels write each such cell's share of the body force
    and its pressure and viscous force on the surface it stands for to slot k; two layers let
    the surface integrals extrapolate to the wall (solver/surface_elements.py)."""
    types = flags & TYPE_MASK
    fluid = types == FLUID
    near = (flags & BODY) != 0
    for _ in range(layers):
        reach = near.copy()
        for cx, cy, cz in lattice.C[1:]:
            reach |= np.roll(near, shift=(int(cz), int(cy), int(cx)), axis=(0, 1, 2))
        near = reach
    near &= fluid
    index = np.full(flags.shape, -1, dtype=np.int32)
    index[near] = np.arange(int(near.sum()), dtype=np.int32)
    return index


def links_into_body(slot: np.ndarray, body: np.ndarray) -> np.ndarray:
    """bool [n_slots, 18]: link q = 1..18 of each slot's cell (slot order) has its source cell
    x - c_q in the body (body: bool [z, y, x]); with periodic wrap, as the kernels stream."""
    cells = np.argwhere(slot >= 0)  # slot order is flat-index order
    shape = np.array(slot.shape)
    out = np.zeros((len(cells), 18), dtype=bool)
    for q in range(1, 19):
        source = (cells - lattice.C[q][::-1]) % shape
        out[:, q - 1] = body[source[:, 0], source[:, 1], source[:, 2]]
    return out


def wall_mask(flags: np.ndarray) -> np.ndarray:
    """Cells that are walls of any kind (no-slip, free-slip, moving): no fluid lives there."""
    types = flags & TYPE_MASK
    return (types == SOLID) | (types == FREESLIP) | (types == MOVING)


def inlet_profile(case: CaseConfig, grid: Grid, u_lattice: float) -> np.ndarray:
    """Inlet x-velocity per (z, y) in lattice units: uniform U, or a parabola across y with mean U
    and zero on the y faces (plane Poiseuille, peak 1.5 U)."""
    profile = np.full((grid.nz, grid.ny), u_lattice, dtype=np.float32)
    if case.flow.inlet_profile == "parabolic_y":
        height = case.domain.size_m[1]
        y = grid.centers(1) - grid.origin_m[1]
        shape = np.clip(6.0 * y * (height - y) / height**2, 0.0, None)
        profile = (u_lattice * shape[None, :] * np.ones((grid.nz, 1))).astype(np.float32)
    return profile


def relaxation_times(case: CaseConfig, grid: Grid, tau: float) -> np.ndarray:
    """Molecular relaxation time per x column. In the sponge before the outflow it rises
    smoothly, tau(x) = tau + (tau_outlet - tau) s^2 with s = (x - x_start) / length in [0, 1]:
    the added viscosity damps vortices before they reach the outflow plane, where they would
    reflect. A lattice value, because at high Re any multiple of the molecular viscosity is
    still too small to damp anything."""
    tau_x = np.full(grid.nx, tau, dtype=np.float64)
    sponge = case.domain.sponge
    if sponge.length_m > 0:
        x_end = grid.origin_m[0] + case.domain.size_m[0]
        s = np.clip((grid.centers(0) - (x_end - sponge.length_m)) / sponge.length_m, 0.0, 1.0)
        tau_x = tau + (max(sponge.tau_outlet, tau) - tau) * s**2
    return tau_x.astype(np.float32)

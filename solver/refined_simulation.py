"""A case on two refinement levels (case key refinement.levels): the tunnel at half the case's
resolution, and a box round the body at the case's own (docs/solver.md, "Grid refinement"). Each
level is an ordinary Simulation, its coupling cells flagged FLAG_GHOST; solver/refinement.py
couples them.

Open boundaries and walls on the coarse level, the body (its forces by momentum exchange and
over its surface) on the fine one; the subgrid model and the wall model on both. The fine level
spans the box plus one coarse cell on each side that the box does not span whole; it is periodic
in its own grid, which its ghost ring hides from every cell it steps.

A RefinedSimulation is a model for the run loop (solver/run.py) as a Simulation is: its steps
are the fine level's (two to each coarse step), its forces, units and surface the fine level's,
and its fields one Fields per level, coarse first.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import numpy as np

from solver import lattice
from solver.backends.base import Backend
from solver.bodies import Body, MeshArrays, make_body
from solver.config import CaseConfig, LevelConfig
from solver.errors import ConfigError
from solver.fidelity import Fidelity, tunnel_figures
from solver.grid import Grid, make_grid
from solver.memory import check_memory
from solver.refinement import (
    COUPLED,
    NONE,
    LevelCoupling,
    LevelLayout,
    RefinedBox,
    check_box,
)
from solver.simulation import Fields, Simulation
from solver.surface import free_stream_density
from solver.units import LatticeUnits, derive_units

WALL_FACES = ("noslip", "freeslip", "moving")

#: Fluid cells of the fine level the body must keep between itself and a coupled side of the
#: box, beyond the fine ghost ring: the interpolated bounce-back and the surface's pressure
#: samples read two cells out, and the explosion's gradients one more. The checks of
#: docs/solver.md keep 16-20.
MIN_BODY_MARGIN_FINE_CELLS = 4


def level_box_m(level: LevelConfig, body: Body | None) -> tuple[np.ndarray, np.ndarray]:
    """A level's box [m]: its box_lo_m and box_hi_m, or the body's bounds grown by margin_m on
    every side and by wake_m more downstream."""
    if level.margin_m is None:
        return np.asarray(level.box_lo_m, float), np.asarray(level.box_hi_m, float)
    assert body is not None, "config validation guarantees a body for margin_m"
    lo, hi = body.bounds_m()
    grow = np.full(3, level.margin_m)
    return lo - grow, hi + grow + np.array([level.wake_m, 0.0, 0.0])


def _box_cells(
    case_coarse: Any, g: Grid, lo_m: np.ndarray, hi_m: np.ndarray
) -> tuple[RefinedBox, tuple[bool, ...], tuple[bool, ...]]:
    """The coarse array cells the box [lo_m, hi_m) covers, its faces snapped to the nearest cell
    faces, and which of its sides lie on a wall face of the domain (a box reaching a face is cut
    there). An axis whose box spans a periodic axis is whole. A box reaching the inlet, the
    outflow or the sponge is refused (ConfigError)."""
    lo, hi, walls_lo, walls_hi = [], [], [], []
    for a, axis in enumerate("xyz"):
        origin, size = g.origin_m[a], case_coarse.domain.size_m[a]
        faces = [getattr(case_coarse.domain.boundaries, f"{axis}_{s}") for s in ("min", "max")]
        n = (g.nx, g.ny, g.nz)[a]
        reach = (lo_m[a] <= origin + 0.5 * g.dx_m, hi_m[a] >= origin + size - 0.5 * g.dx_m)
        if faces[0] == "periodic" and all(reach):
            lo.append(0)
            hi.append(n)
            walls_lo.append(False)
            walls_hi.append(False)
            continue
        for side, face, reached in zip(("min", "max"), faces, reach, strict=True):
            if reached and face not in WALL_FACES:
                raise ConfigError(
                    f"key 'refinement.levels[0]': the box reaches the domain's {axis}_{side} "
                    f"face ({face}): only a wall face ({', '.join(WALL_FACES)}) may bound a "
                    "refinement level; shrink the box"
                )
        sponge_start = origin + size - case_coarse.domain.sponge.length_m
        if a == 0 and case_coarse.domain.sponge.length_m > 0 and hi_m[a] > sponge_start:
            raise ConfigError(
                f"key 'refinement.levels[0]': the box reaches x = {hi_m[a]:.4g} m, into the "
                f"sponge (from x = {sponge_start:.4g} m): end it before the sponge"
            )
        lo_m_a = max(lo_m[a], origin)
        hi_m_a = min(hi_m[a], origin + size)
        lo.append(int(round((lo_m_a - origin) / g.dx_m)) + g.ghost_lo[a])
        hi.append(int(round((hi_m_a - origin) / g.dx_m)) + g.ghost_lo[a])
        walls_lo.append(reach[0])
        walls_hi.append(reach[1])
    return RefinedBox(tuple(lo), tuple(hi)), tuple(walls_lo), tuple(walls_hi)  # type: ignore[arg-type]


def check_body_margin(
    case: CaseConfig,
    body: Body | None,
    layout: LevelLayout,
    box_lo_m: np.ndarray,
    box_hi_m: np.ndarray,
    dx_fine_m: float,
) -> None:
    """Refuse a box whose coupled sides lie within MIN_BODY_MARGIN_FINE_CELLS fine cells of the
    body's bounds, or cut it (ConfigError naming the side and the margin there)."""
    if body is None:
        return
    body_lo, body_hi = body.bounds_m()
    need = MIN_BODY_MARGIN_FINE_CELLS * dx_fine_m
    for a, axis in enumerate("xyz"):
        for side, layer, margin in (
            ("min", layout.layer_lo[a], body_lo[a] - box_lo_m[a]),
            ("max", layout.layer_hi[a], box_hi_m[a] - body_hi[a]),
        ):
            if layer == COUPLED and margin < need:
                raise ConfigError(
                    f"key 'refinement.levels[0]': the box's {axis}_{side} side lies "
                    f"{margin / dx_fine_m:.1f} fine cells from the body (at least "
                    f"{MIN_BODY_MARGIN_FINE_CELLS} needed, {need:.4g} m): move it away from "
                    "the body or raise margin_m"
                )


def tunnel_level_case(case: CaseConfig, u_lattice: float, length_m: float) -> CaseConfig:
    """The case of the coarse level: the whole tunnel at half the resolution, without the body,
    at the finest level's lattice speed (acoustic scaling)."""
    coarse = copy.deepcopy(case)
    coarse.resolution.cells_per_length = case.resolution.cells_per_length // 2
    coarse.resolution.u_lattice = u_lattice
    coarse.body.shape = "none"
    coarse.body.reference_length_m = length_m
    coarse.refinement.levels = []
    return coarse


def box_level_case(
    case: CaseConfig,
    u_lattice: float,
    layout: LevelLayout,
    box_lo_m: np.ndarray,
    dx_coarse_m: float,
) -> CaseConfig:
    """The case of the fine level: the box of layout (its min corner box_lo_m, on the coarse
    cells of dx_coarse_m) plus one coarse cell on each side coupled to the coarse level, those
    sides periodic in the fine level's own grid (its ghost ring hides the wrap); a side on a wall
    keeps the wall's face, an axis the box spans whole stays as it is. No sponge: the box never
    reaches one."""
    fine = copy.deepcopy(case)
    fine.resolution.u_lattice = u_lattice
    fine.domain.sponge.length_m = 0.0
    fine.refinement.levels = []
    box = layout.box
    for a, axis in enumerate("xyz"):
        layers = (layout.layer_lo[a], layout.layer_hi[a])
        if layers == (NONE, NONE):
            continue
        dx_c = dx_coarse_m
        extra = [1 if layer == COUPLED else 0 for layer in layers]
        fine.domain.origin_m[a] = float(box_lo_m[a] - extra[0] * dx_c)
        fine.domain.size_m[a] = float((box.hi[a] - box.lo[a] + sum(extra)) * dx_c)
        for side, layer in zip(("min", "max"), layers, strict=True):
            if layer == COUPLED:
                setattr(fine.domain.boundaries, f"{axis}_{side}", "periodic")
    return fine


class RefinedSimulation:
    """`case` on two levels: the box of case.refinement.levels[0] at the case's resolution and
    the rest of the tunnel at half of it; the body must lie inside the box. A side of the box that
    reaches a wall face of the domain (the floor, the rolling road) ends there, the fine level
    taking that face's rule; the inlet, the outflow and the sponge it may not reach. The box's
    faces snap to the nearest coarse cell faces; the lattice speed is the same on both levels.
    Bad boxes raise ConfigError naming the key."""

    def __init__(self, case: CaseConfig, backend: Backend, mesh: MeshArrays | None = None) -> None:
        assert len(case.refinement.levels) == 1, "config validation allows one refined box"
        self.case = case
        self.backend = backend
        body = make_body(case, backend, mesh)
        length = case.body.reference_length_m or (body.reference_length_m() if body else None)
        assert length is not None, "config validation guarantees a reference length"
        u_lattice = derive_units(case, length).u_lattice

        coarse_case = tunnel_level_case(case, u_lattice, length)
        grid = make_grid(coarse_case, derive_units(coarse_case, length))
        lo_m, hi_m = level_box_m(case.refinement.levels[0], body)
        box, walls_lo, walls_hi = _box_cells(coarse_case, grid, lo_m, hi_m)
        coarse_xyz = (grid.nx, grid.ny, grid.nz)
        try:
            check_box(coarse_xyz, box, walls_lo, walls_hi)
        except ValueError as exc:
            raise ConfigError(
                f"key 'refinement.levels[0]': the box [{_metres(lo_m)}] - [{_metres(hi_m)}] "
                f"does not fit the tunnel's grid: {exc}"
            ) from exc
        self.layout = LevelLayout.of(coarse_xyz, box, walls_lo, walls_hi)
        dx_c = grid.dx_m
        origin = np.asarray(grid.origin_m, float)
        box_lo_m = origin + (np.asarray(box.lo) - np.asarray(grid.ghost_lo)) * dx_c
        box_hi_m = origin + (np.asarray(box.hi) - np.asarray(grid.ghost_lo)) * dx_c
        check_body_margin(case, body, self.layout, box_lo_m, box_hi_m, dx_c / 2)
        # both levels together, before either is allocated (each checks its own grid too)
        check_memory(
            grid.n_cells + int(np.prod(self.layout.fine_xyz)),
            case.resolution.cells_per_length,
            backend.free_device_bytes(),
        )
        self.coarse = Simulation(coarse_case, backend, ghost_cells=self.layout.coarse_ghost_cells())

        fine_case = box_level_case(case, u_lattice, self.layout, box_lo_m, dx_c)
        self.fine = Simulation(fine_case, backend, mesh, ghost_cells=self.layout.fine_ghost_cells())
        fine_xyz = (self.fine.grid.nx, self.fine.grid.ny, self.fine.grid.nz)
        assert fine_xyz == self.layout.fine_xyz, (fine_xyz, self.layout.fine_xyz)
        self.box_lo_m, self.box_hi_m = box_lo_m, box_hi_m
        self.fidelity: Fidelity = self._tunnel_fidelity()
        self.coupling = LevelCoupling(
            backend,
            self.layout,
            self.coarse.units.tau,
            self.coarse.collision,
            float(case.resolution.smagorinsky_cs) ** 2,
            self._coarse_readable(),
        )
        self._start_fine_from_coarse()
        self.coupling.coalesce(self.fine, self.coarse)

    def _tunnel_fidelity(self) -> Fidelity:
        """The fine level's fidelity figures (the body's gaps in fine cells), with the blockage
        and the inlet and outflow distances of the whole tunnel, which the fine level does not
        span."""
        fine = self.fine
        body = (fine.flags_host & lattice.BODY) != 0
        if not body.any():
            return fine.fidelity
        lo = np.asarray(self.case.domain.origin_m, float)
        hi = lo + np.asarray(self.case.domain.size_m, float)
        frontal = fine.body.frontal_area_m2(lo, hi, fine.units.dx_m) if fine.body else None
        blockage, inlet, outflow = tunnel_figures(
            self.case, fine.grid, body, frontal, fine.units.length_m
        )
        return dataclasses.replace(
            fine.fidelity, blockage=blockage, inlet_lengths=inlet, outflow_lengths=outflow
        )

    def _coarse_readable(self) -> np.ndarray:
        """bool [z, y, x]: the coarse cells whose state is current when the fine level's ring is
        filled: the stepped cells, the inlet and outflow, and the coalesced layer (not walls)."""
        types = self.coarse.flags_host & lattice.TYPE_MASK
        readable = (types == lattice.FLUID) | (types == lattice.INLET) | (types == lattice.OUTFLOW)
        readable.reshape(-1)[self.layout.coalescence_cells()[:, 0]] = True
        return readable

    def _start_fine_from_coarse(self) -> None:
        """The fine level's initial state: the equilibrium of the coarse cell each fine cell lies
        in (the coarse level starts as its case says)."""
        g = self.coarse.grid
        n = g.n_cells
        moments = self.backend.zeros((4 * n,), np.float32)
        self.backend.fields(
            self.coarse.population_buffers()[0],
            moments,
            n,
            self.coarse.plane_stride,
            self.coarse.collision,
        )
        coarse = self.backend.to_host(moments).reshape(4, *g.shape_zyx)
        parents = [
            np.clip(np.floor(c).astype(int), 0, m - 1)
            for c, m in zip(self.layout.fine_centres(), (g.nx, g.ny, g.nz), strict=True)
        ]
        fine = coarse[
            :, parents[2][:, None, None], parents[1][None, :, None], parents[0][None, None, :]
        ]
        device = self.backend.asarray(np.ascontiguousarray(fine, np.float32).reshape(-1))
        for buffer in self.fine.population_buffers():
            self.backend.init_equilibrium(
                buffer, device, self.fine.grid.n_cells, self.fine.plane_stride, self.fine.collision
            )

    # ---- what the run loop reads: the fine level's, where the body is ------------------------
    @property
    def levels(self) -> tuple[Simulation, Simulation]:
        """The levels, coarse first."""
        return self.coarse, self.fine

    @property
    def finest(self) -> Simulation:
        """The level that holds the body: its units, surface and forces are the run's."""
        return self.fine

    @property
    def units(self) -> LatticeUnits:
        return self.fine.units

    @property
    def reference_area_m2(self) -> float | None:
        return self.fine.reference_area_m2

    @property
    def has_surface(self) -> bool:
        return self.fine.has_surface

    @property
    def fluid_mask(self) -> np.ndarray:
        return self.fine.fluid_mask

    @property
    def step_count(self) -> int:
        """Fine steps taken."""
        return self.fine.step_count

    @property
    def slot_force_steps(self) -> int:
        return self.fine.slot_force_steps

    def attach_surface(self, *args: Any) -> None:
        """The body's surface, on the fine level (Simulation.attach_surface)."""
        self.fine.attach_surface(*args)

    def slot_force_sum(self) -> np.ndarray | None:
        return self.fine.slot_force_sum()

    def load_slot_force_sum(self, total: np.ndarray | None, steps: int) -> None:
        self.fine.load_slot_force_sum(total, steps)

    def coefficients(self, force_lattice: np.ndarray) -> np.ndarray:
        """Force coefficients of fine-level lattice forces (Simulation.coefficients)."""
        return self.fine.coefficients(force_lattice)

    # ---- state ------------------------------------------------------------------------------
    @property
    def n_populations(self) -> int:
        """Length of the populations of both levels, coarse first."""
        return self.coarse.n_populations + self.fine.n_populations

    def populations(self) -> np.ndarray:
        """Both levels' current populations on the host, coarse first (a checkpoint's)."""
        return np.concatenate([self.coarse.populations(), self.fine.populations()])

    def load_populations(self, f_host: np.ndarray, step_count: int) -> None:
        """Restore a state saved by populations() after step_count fine steps (an even number:
        checkpoints fall between coarse steps)."""
        assert step_count % 2 == 0, step_count
        split = self.coarse.n_populations
        self.coarse.load_populations(f_host[:split], step_count // 2)
        self.fine.load_populations(f_host[split:], step_count)

    # ---- time stepping ----------------------------------------------------------------------
    def advance(self, n_steps: int, accumulate_slot_forces: bool = False) -> np.ndarray:
        """Take n_steps fine steps (an even number: n_steps / 2 coarse steps); returns the
        body's forces of each in the fine level's lattice units, [n_steps, 3 kinds, 3 axes]
        (Simulation.advance)."""
        assert n_steps % 2 == 0, f"a refined grid steps in pairs of fine steps, not {n_steps}"
        return self.coupling.advance(self.coarse, self.fine, n_steps // 2, accumulate_slot_forces)

    @property
    def cell_updates_per_step(self) -> float:
        """Cell updates (every cell of both grids) per fine step: the fine grid's and half the
        coarse grid's."""
        return self.fine.grid.n_cells + 0.5 * self.coarse.grid.n_cells

    def cell_updates_per_coarse_step(self) -> int:
        """The coarse level's stepped cells plus twice the fine level's."""
        stepped = [
            int(((s.flags_host & lattice.TYPE_MASK) == lattice.FLUID).sum())
            for s in (self.coarse, self.fine)
        ]
        return stepped[0] + 2 * stepped[1]

    # ---- fields -----------------------------------------------------------------------------
    def level_fields(self) -> tuple[Fields, Fields]:
        """The current fields of each level, coarse first (Simulation.fields)."""
        return self.with_free_stream((self.coarse.fields(), self.fine.fields()))

    def with_free_stream(self, levels: tuple[Fields, ...]) -> tuple[Fields, Fields]:
        """The levels' fields with the fine level's free-stream density taken from the coarse
        level's inlet (the fine level has none of its own): its pressure and Cp are then
        against the tunnel's free stream."""
        coarse, fine = levels
        rho_inf = free_stream_density(self.coarse, coarse)
        return coarse, dataclasses.replace(fine, rho_free_stream=rho_inf)

    def refined_mask(self, stride: int = 1) -> np.ndarray:
        """uint8 [z, y, x] on the coarse level's physical cells (every stride-th): 1 where the
        fine level covers the cell (its state there is the mean of its fine cells)."""
        box = self.layout.box
        mask = np.zeros(self.coarse.grid.shape_zyx, np.uint8)
        mask[box.lo[2] : box.hi[2], box.lo[1] : box.hi[1], box.lo[0] : box.hi[0]] = 1
        return mask[self.coarse.grid.interior()][::stride, ::stride, ::stride]

    def refinement_summary(self) -> dict:
        """summary.json's figures of the levels: dx, grid and origin of each (coarse first), the
        box as snapped to the coarse cells, and the cell updates per coarse step."""
        return {
            "levels": [
                {
                    "dx_m": s.units.dx_m,
                    "grid_xyz": [s.grid.nx, s.grid.ny, s.grid.nz],
                    "cells": s.grid.n_cells,
                }
                for s in self.levels
            ],
            "box_lo_m": [float(v) for v in self.box_lo_m],
            "box_hi_m": [float(v) for v in self.box_hi_m],
            "cell_updates_per_coarse_step": self.cell_updates_per_coarse_step(),
            "finest_cells_per_length": self.case.resolution.cells_per_length,
        }


def _metres(values: np.ndarray) -> str:
    return ", ".join(f"{v:.4g}" for v in values)


def make_simulation(
    case: CaseConfig, backend: Backend, mesh: MeshArrays | None = None
) -> Simulation | RefinedSimulation:
    """The model a case asks for: one grid, or refinement levels (refinement.levels)."""
    if case.refinement.levels:
        return RefinedSimulation(case, backend, mesh)
    return Simulation(case, backend, mesh)

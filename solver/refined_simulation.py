"""A case on nested refinement levels (case key refinement.levels): the tunnel at the case's
resolution halved once per box, and each box at twice the resolution of the level round it, the
last one round the body at the case's own (docs/solver.md, "Grid refinement"). Each level is an
ordinary Simulation, its coupling cells flagged FLAG_GHOST; solver/refinement.py couples each
pair of neighbouring levels.

Open boundaries and walls on the tunnel level, the body (its forces by momentum exchange and
over its surface) on the finest one; the subgrid model and the wall model on every level. A
refined level spans its box plus one cell of the level round it on each side that the box does
not span whole; it is periodic in its own grid, which its ghost ring hides from every cell it
steps.

A RefinedSimulation is a model for the run loop (solver/run.py) as a Simulation is: its steps
are the finest level's (2^(L - 1) to each step of the tunnel level), its forces, units and surface
the finest level's, and its fields one Fields per level, coarsest first.

Over 250 lines: the levels' boxes, set-up and nested time stepping are one model's.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import numpy as np

from solver import lattice
from solver.backends.base import Backend
from solver.bodies import Body, MeshArrays, make_body
from solver.boundary_conditions import WALL_KINDS, WALLS, Periodic, boundary_conditions
from solver.config import MAX_REFINED_BOXES, CaseConfig, LevelConfig
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
    advance_nested,
    check_box,
    check_relaxation,
)
from solver.simulation import Fields, Simulation
from solver.surface import free_stream_density
from solver.units import LatticeUnits, derive_units

#: Fluid cells of the fine level the body must keep between itself and a coupled side of the
#: box, beyond the fine ghost ring: the interpolated bounce-back and the surface's pressure
#: samples read two cells out, and the explosion's gradients one more. The checks of
#: docs/solver.md keep 16-20.
MIN_BODY_MARGIN_FINE_CELLS = 4

#: Stepped cells of a refined level that must lie between its ghost ring and the box of the level
#: it holds, on each coupled side: the coalescence into the level above reads the level's first
#: two cells inside its box, and the explosion into the level below reads up to two cells outside
#: that level's box; neither may reach the other's cells.
MIN_NESTING_CELLS = 4


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
    case_coarse: Any, g: Grid, lo_m: np.ndarray, hi_m: np.ndarray, key: str
) -> tuple[RefinedBox, tuple[bool, ...], tuple[bool, ...]]:
    """The coarse array cells the box [lo_m, hi_m) covers, its faces snapped to the nearest cell
    faces, and which of its sides lie on a wall face of the domain (a box reaching a face is cut
    there). An axis whose box spans a periodic axis is whole. A box reaching the inlet, the
    outflow or the sponge is refused (ConfigError)."""
    lo, hi, walls_lo, walls_hi = [], [], [], []
    conditions = boundary_conditions(case_coarse)
    for a, axis in enumerate("xyz"):
        origin, size = g.origin_m[a], case_coarse.domain.size_m[a]
        faces = [conditions.face(axis, s) for s in ("min", "max")]
        n = (g.nx, g.ny, g.nz)[a]
        reach = (lo_m[a] <= origin + 0.5 * g.dx_m, hi_m[a] >= origin + size - 0.5 * g.dx_m)
        if isinstance(faces[0], Periodic) and all(reach):
            lo.append(0)
            hi.append(n)
            walls_lo.append(False)
            walls_hi.append(False)
            continue
        for side, face, reached in zip(("min", "max"), faces, reach, strict=True):
            if reached and not isinstance(face, WALLS):
                raise ConfigError(
                    f"key '{key}': the box reaches the domain's {axis}_{side} "
                    f"face ({face.kind}): only a wall face ({', '.join(WALL_KINDS)}) may bound a "
                    "refinement level; shrink the box"
                )
        sponge_start = origin + size - case_coarse.domain.sponge.length_m
        if a == 0 and case_coarse.domain.sponge.length_m > 0 and hi_m[a] > sponge_start:
            raise ConfigError(
                f"key '{key}': the box reaches x = {hi_m[a]:.4g} m, into the "
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
    key: str,
    body: Body | None,
    layout: LevelLayout,
    box_lo_m: np.ndarray,
    box_hi_m: np.ndarray,
    dx_fine_m: float,
) -> None:
    """Refuse a box whose coupled sides lie within MIN_BODY_MARGIN_FINE_CELLS fine cells of the
    body's bounds, or cut it (ConfigError naming the key, the side and the margin there)."""
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
                    f"key '{key}': the box's {axis}_{side} side lies "
                    f"{margin / dx_fine_m:.1f} fine cells from the body (at least "
                    f"{MIN_BODY_MARGIN_FINE_CELLS} needed, {need:.4g} m): move it away from "
                    "the body or raise margin_m"
                )


def check_nesting(
    key: str,
    parent: LevelLayout,
    parent_lo_m: np.ndarray,
    parent_hi_m: np.ndarray,
    lo_m: np.ndarray,
    hi_m: np.ndarray,
    dx_parent_m: float,
) -> None:
    """Refuse a box that does not lie inside the box of the level above (parent_lo_m,
    parent_hi_m, whose sides `parent` couples or puts on walls) with MIN_NESTING_CELLS cells of
    that level to spare on each of its coupled sides (ConfigError naming the key); on a side on a
    wall of the domain the box may reach the wall."""
    need = MIN_NESTING_CELLS * dx_parent_m
    for a, axis in enumerate("xyz"):
        for side, layer, spare in (
            ("min", parent.layer_lo[a], lo_m[a] - parent_lo_m[a]),
            ("max", parent.layer_hi[a], parent_hi_m[a] - hi_m[a]),
        ):
            if layer == COUPLED and spare < need - 0.5 * dx_parent_m:
                raise ConfigError(
                    f"key '{key}': the box's {axis}_{side} side lies {spare / dx_parent_m:.1f} "
                    f"cells of the level above inside that level's box (at least "
                    f"{MIN_NESTING_CELLS} needed, {need:.4g} m): nest it inside the box before "
                    "it in refinement.levels"
                )


def tunnel_level_case(
    case: CaseConfig, n_levels: int, u_lattice: float, length_m: float
) -> CaseConfig:
    """The case of the tunnel level: the whole tunnel at the case's resolution halved once per
    box (n_levels levels in all), without the body, at the finest level's lattice speed
    (acoustic scaling)."""
    coarse = copy.deepcopy(case)
    coarse.resolution.cells_per_length = case.resolution.cells_per_length // 2 ** (n_levels - 1)
    coarse.resolution.u_lattice = u_lattice
    coarse.body.shape = "none"
    coarse.body.reference_length_m = length_m
    coarse.refinement.levels = []
    return coarse


def box_level_case(
    base: CaseConfig, layout: LevelLayout, box_lo_m: np.ndarray, dx_coarse_m: float
) -> CaseConfig:
    """The case of a refined level from `base`, the case of the level above with this level's
    resolution and body: the box of layout (its min corner box_lo_m, on the cells of dx_coarse_m
    of the level above) plus one cell of that level on each side coupled to it, those sides
    periodic in the level's own grid (its ghost ring hides the wrap); a side on a wall keeps the
    wall's face, an axis the box spans whole stays as it is. No sponge: a box never reaches one."""
    fine = copy.deepcopy(base)
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


@dataclasses.dataclass(frozen=True)
class _LevelPlan:
    """A refined level before allocation: its case, grid, its layout in the level above and its
    box in metres (snapped to the cells of the level above)."""

    case: CaseConfig
    grid: Grid
    layout: LevelLayout
    box_lo_m: np.ndarray
    box_hi_m: np.ndarray


class RefinedSimulation:
    """`case` on nested levels: the box of case.refinement.levels[k] at 2^(k + 1) times the tunnel
    level's resolution, each box inside the one before, the last at the case's resolution with
    the body inside it. A side of a box that reaches a wall face of the domain (the floor, the
    rolling road) ends there, the level taking that face's rule; the inlet, the outflow and the
    sponge it may not reach. Each box's faces snap to the nearest cell faces of the level above;
    the lattice speed is the same on every level. Bad boxes raise ConfigError naming the key."""

    def __init__(self, case: CaseConfig, backend: Backend, mesh: MeshArrays | None = None) -> None:
        n_levels = len(case.refinement.levels) + 1
        assert 2 <= n_levels <= MAX_REFINED_BOXES + 1, "config validation bounds the box count"
        self.case = case
        self.backend = backend
        body = make_body(case, backend, mesh)
        length = case.body.reference_length_m or (body.reference_length_m() if body else None)
        assert length is not None, "config validation guarantees a reference length"
        u_lattice = derive_units(case, length).u_lattice

        tunnel_case = tunnel_level_case(case, n_levels, u_lattice, length)
        tunnel_grid = make_grid(tunnel_case, derive_units(tunnel_case, length))
        plans: list[_LevelPlan] = []
        parent_case, parent_grid = tunnel_case, tunnel_grid
        for k, level in enumerate(case.refinement.levels):
            key = f"refinement.levels[{k}]"
            finest = k == n_levels - 2
            lo_m, hi_m = level_box_m(level, body)
            if plans:
                above = plans[-1]
                check_nesting(
                    key, above.layout, above.box_lo_m, above.box_hi_m, lo_m, hi_m, parent_grid.dx_m
                )
            plan = self._plan_level(
                key, case, parent_case, parent_grid, lo_m, hi_m, finest, n_levels - 2 - k, length
            )
            if finest:
                check_body_margin(
                    key, body, plan.layout, plan.box_lo_m, plan.box_hi_m, plan.grid.dx_m
                )
            plans.append(plan)
            parent_case, parent_grid = plan.case, plan.grid
        for k, level_case in enumerate([tunnel_case, *(p.case for p in plans[:-1])]):
            try:
                check_relaxation(derive_units(level_case, length).tau)
            except ValueError as exc:
                raise ConfigError(
                    f"key 'resolution.u_lattice': between levels {k} and {k + 1}, {exc}"
                ) from exc
        # every level together, before any is allocated (each checks its own grid too)
        check_memory(
            tunnel_grid.n_cells + sum(p.grid.n_cells for p in plans),
            case.resolution.cells_per_length,
            backend.free_device_bytes(),
            case.resolution.storage,
        )
        self.layouts = tuple(p.layout for p in plans)
        self.boxes_m = tuple((p.box_lo_m, p.box_hi_m) for p in plans)
        levels = [
            Simulation(tunnel_case, backend, ghost_cells=self.layouts[0].coarse_ghost_cells())
        ]
        for k, plan in enumerate(plans):
            ghost = plan.layout.fine_ghost_cells()
            if k + 1 < len(plans):
                ghost = ghost | self.layouts[k + 1].coarse_ghost_cells()
            finest = k == len(plans) - 1
            levels.append(
                Simulation(plan.case, backend, mesh if finest else None, ghost_cells=ghost)
            )
        self.levels: tuple[Simulation, ...] = tuple(levels)
        self.fidelity: Fidelity = self._tunnel_fidelity()
        cs2_smag = float(case.resolution.smagorinsky_cs) ** 2
        self.couplings = tuple(
            LevelCoupling(
                backend,
                layout,
                parent.units.tau,
                parent.collision,
                cs2_smag,
                self._readable(parent, layout),
            )
            for parent, layout in zip(self.levels[:-1], self.layouts, strict=True)
        )
        for k in range(1, n_levels):
            self._start_from_parent(k)
        for k in reversed(range(n_levels - 1)):
            self.couplings[k].coalesce(self.levels[k + 1], self.levels[k])

    @staticmethod
    def _plan_level(
        key: str,
        case: CaseConfig,
        parent_case: CaseConfig,
        parent_grid: Grid,
        lo_m: np.ndarray,
        hi_m: np.ndarray,
        finest: bool,
        halvings: int,
        length: float,
    ) -> _LevelPlan:
        """The refined level of box [lo_m, hi_m) inside the level of parent_case and
        parent_grid, at the case's resolution halved `halvings` times, with the case's body if it
        is the finest."""
        box, walls_lo, walls_hi = _box_cells(parent_case, parent_grid, lo_m, hi_m, key)
        parent_xyz = (parent_grid.nx, parent_grid.ny, parent_grid.nz)
        try:
            check_box(parent_xyz, box, walls_lo, walls_hi)
        except ValueError as exc:
            raise ConfigError(
                f"key '{key}': the box [{_metres(lo_m)}] - [{_metres(hi_m)}] "
                f"does not fit the grid of the level above: {exc}"
            ) from exc
        layout = LevelLayout.of(parent_xyz, box, walls_lo, walls_hi)
        dx_p = parent_grid.dx_m
        origin, ghost_lo = np.asarray(parent_grid.origin_m, float), np.asarray(parent_grid.ghost_lo)
        box_lo_m = origin + (np.asarray(box.lo) - ghost_lo) * dx_p
        box_hi_m = origin + (np.asarray(box.hi) - ghost_lo) * dx_p
        base = copy.deepcopy(parent_case)
        base.resolution.cells_per_length = case.resolution.cells_per_length // 2**halvings
        if finest:
            base.body = copy.deepcopy(case.body)
        level_case = box_level_case(base, layout, box_lo_m, dx_p)
        grid = make_grid(level_case, derive_units(level_case, length))
        for a, axis in enumerate("xyz"):
            if (grid.nx, grid.ny, grid.nz)[a] != layout.fine_xyz[a]:
                raise ConfigError(
                    f"key 'domain.size_m': the domain's {axis} length "
                    f"{case.domain.size_m[a]:.4g} m is not a whole number of the cells of the "
                    f"level round {key} ({dx_p:.4g} m), which spans it whole: make it a multiple "
                    "of them"
                )
        return _LevelPlan(level_case, grid, layout, box_lo_m, box_hi_m)

    def _tunnel_fidelity(self) -> Fidelity:
        """The finest level's fidelity figures (the body's gaps in its cells), with the blockage
        and the inlet and outflow distances of the whole tunnel, which the finest level does not
        span."""
        fine = self.finest
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

    @staticmethod
    def _readable(parent: Simulation, layout: LevelLayout) -> np.ndarray:
        """bool [z, y, x] of the parent level: the cells whose state is current when the ghost
        ring of the level inside `layout` is filled: the stepped cells, the inlet and outflow,
        and the coalesced layer (not walls, not the parent's own ghost ring)."""
        types = parent.flags_host & lattice.TYPE_MASK
        readable = (types == lattice.FLUID) | (types == lattice.INLET) | (types == lattice.OUTFLOW)
        readable.reshape(-1)[layout.coalescence_cells()[:, 0]] = True
        return readable

    def _start_from_parent(self, k: int) -> None:
        """Level k's initial state: the equilibrium of the cell of level k - 1 each of its cells
        lies in (the tunnel level starts as its case says)."""
        parent, level, layout = self.levels[k - 1], self.levels[k], self.layouts[k - 1]
        g = parent.grid
        n = g.n_cells
        moments = self.backend.zeros((4 * n,), np.float32)
        self.backend.fields(
            parent.population_buffers()[0], moments, n, parent.plane_stride, parent.collision
        )
        coarse = self.backend.to_host(moments).reshape(4, *g.shape_zyx)
        parents = [
            np.clip(np.floor(c).astype(int), 0, m - 1)
            for c, m in zip(layout.fine_centres(), (g.nx, g.ny, g.nz), strict=True)
        ]
        fine = coarse[
            :, parents[2][:, None, None], parents[1][None, :, None], parents[0][None, None, :]
        ]
        device = self.backend.asarray(np.ascontiguousarray(fine, np.float32).reshape(-1))
        for buffer in level.population_buffers():
            self.backend.init_equilibrium(
                buffer, device, level.grid.n_cells, level.plane_stride, level.collision
            )

    # ---- what the run loop reads: the finest level's, where the body is ---------------------
    @property
    def finest(self) -> Simulation:
        """The level that holds the body: its units, surface and forces are the run's."""
        return self.levels[-1]

    @property
    def steps_per_coarse_step(self) -> int:
        """Steps of the finest level per step of the tunnel level, 2^(L - 1)."""
        return 2 ** (len(self.levels) - 1)

    @property
    def units(self) -> LatticeUnits:
        return self.finest.units

    @property
    def reference_area_m2(self) -> float | None:
        return self.finest.reference_area_m2

    @property
    def has_surface(self) -> bool:
        return self.finest.has_surface

    @property
    def fluid_mask(self) -> np.ndarray:
        return self.finest.fluid_mask

    @property
    def step_count(self) -> int:
        """Steps of the finest level taken."""
        return self.finest.step_count

    @property
    def slot_force_steps(self) -> int:
        return self.finest.slot_force_steps

    def attach_surface(self, *args: Any) -> None:
        """The body's surface, on the finest level (Simulation.attach_surface)."""
        self.finest.attach_surface(*args)

    def slot_force_sum(self) -> np.ndarray | None:
        return self.finest.slot_force_sum()

    def load_slot_force_sum(self, total: np.ndarray | None, steps: int) -> None:
        self.finest.load_slot_force_sum(total, steps)

    def element_force_sum(self) -> np.ndarray | None:
        return self.finest.element_force_sum()

    def load_element_force_sum(self, total: np.ndarray | None) -> None:
        self.finest.load_element_force_sum(total)

    def wall_slopes(self) -> np.ndarray | None:
        return self.finest.wall_slopes()

    def load_wall_slopes(self, slopes: np.ndarray | None) -> None:
        self.finest.load_wall_slopes(slopes)

    def coefficients(self, force_lattice: np.ndarray) -> np.ndarray:
        """Force coefficients of finest-level lattice forces (Simulation.coefficients)."""
        return self.finest.coefficients(force_lattice)

    # ---- state ------------------------------------------------------------------------------
    @property
    def n_populations(self) -> int:
        """Length of the populations of every level, coarsest first."""
        return sum(level.n_populations for level in self.levels)

    def populations(self) -> np.ndarray:
        """Every level's current populations on the host, coarsest first (a checkpoint's)."""
        return np.concatenate([level.populations() for level in self.levels])

    def inlet_state(self) -> np.ndarray:
        """The tunnel level's inlet cells' density - 1 [z, y] (Simulation.inlet_state)."""
        return self.levels[0].inlet_state()

    def load_populations(
        self, f_host: np.ndarray, step_count: int, inlet_drho: np.ndarray | None = None
    ) -> None:
        """Restore a state saved by populations() and inlet_state() after step_count finest steps
        (a multiple of steps_per_coarse_step: checkpoints fall between coarse steps)."""
        assert step_count % self.steps_per_coarse_step == 0, step_count
        start = 0
        for k, level in enumerate(self.levels):
            end = start + level.n_populations
            level.load_populations(
                f_host[start:end],
                step_count // 2 ** (len(self.levels) - 1 - k),
                inlet_drho if k == 0 else None,
            )
            start = end

    # ---- time stepping ----------------------------------------------------------------------
    def advance(self, n_steps: int, accumulate_slot_forces: bool = False) -> np.ndarray:
        """Take n_steps steps of the finest level (a multiple of steps_per_coarse_step); returns
        the body's forces of each in the finest level's lattice units, [n_steps, 3 kinds,
        3 axes] (Simulation.advance)."""
        per = self.steps_per_coarse_step
        assert n_steps % per == 0, f"{len(self.levels)} levels step in {per}s, not {n_steps}"
        return advance_nested(self.levels, self.couplings, n_steps // per, accumulate_slot_forces)

    @property
    def cell_updates_per_step(self) -> float:
        """Cell updates (every cell of every grid) per finest step: level k's cells once per
        2^(L - 1 - k) finest steps."""
        n = len(self.levels)
        return sum(level.grid.n_cells / 2 ** (n - 1 - k) for k, level in enumerate(self.levels))

    def cell_updates_per_coarse_step(self) -> int:
        """The stepped cells of level k 2^k times, summed over the levels."""
        return sum(
            2**k * int(((level.flags_host & lattice.TYPE_MASK) == lattice.FLUID).sum())
            for k, level in enumerate(self.levels)
        )

    # ---- fields -----------------------------------------------------------------------------
    def level_fields(self) -> tuple[Fields, ...]:
        """The current fields of each level, coarsest first (Simulation.fields)."""
        return self.with_free_stream(tuple(level.fields() for level in self.levels))

    def with_free_stream(self, levels: tuple[Fields, ...]) -> tuple[Fields, ...]:
        """The levels' fields with the refined levels' free-stream density taken from the
        tunnel level's inlet (they have none of their own): their pressure and Cp are then
        against the tunnel's free stream."""
        rho_inf = free_stream_density(self.levels[0], levels[0])
        return (
            levels[0],
            *(dataclasses.replace(f, rho_free_stream=rho_inf) for f in levels[1:]),
        )

    def refined_mask(self, level: int, stride: int = 1) -> np.ndarray:
        """uint8 [z, y, x] on the physical cells (every stride-th) of a level that holds
        another: 1 where the next level covers the cell (its state there is the mean of the
        finer cells)."""
        box = self.layouts[level].box
        sim = self.levels[level]
        mask = np.zeros(sim.grid.shape_zyx, np.uint8)
        mask[box.lo[2] : box.hi[2], box.lo[1] : box.hi[1], box.lo[0] : box.hi[0]] = 1
        return mask[sim.grid.interior()][::stride, ::stride, ::stride]

    def refinement_summary(self) -> dict:
        """summary.json's figures of the levels, coarsest first: dx, grid and cells of each, and
        of each refined level its box as snapped to the cells of the level above; the cell
        updates per coarse step."""
        levels = [
            {
                "dx_m": s.units.dx_m,
                "grid_xyz": [s.grid.nx, s.grid.ny, s.grid.nz],
                "cells": s.grid.n_cells,
            }
            for s in self.levels
        ]
        for entry, (lo, hi) in zip(levels[1:], self.boxes_m, strict=True):
            entry["box_lo_m"] = [float(v) for v in lo]
            entry["box_hi_m"] = [float(v) for v in hi]
        return {
            "levels": levels,
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

"""A case on two refinement levels: the tunnel at half the case's resolution, and a box round the
body at the case's own (docs/solver.md, "Grid refinement"). Each level is an ordinary Simulation,
its coupling cells flagged FLAG_GHOST; solver/refinement.py couples them.

The second step of grid refinement: open boundaries and walls on the coarse level, the body (its
forces by momentum exchange) on the fine one; the subgrid model on both (no wall model yet). The
fine level spans the box plus one coarse cell on each side that the box does not span whole; it
is periodic in its own grid, which its ghost ring hides from every cell it steps.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from solver import lattice
from solver.backends.base import Backend
from solver.bodies import MeshArrays, make_body
from solver.config import wall_model
from solver.grid import Grid, make_grid
from solver.refinement import (
    COUPLED,
    NONE,
    LevelCoupling,
    LevelLayout,
    RefinedBox,
    check_box,
)
from solver.simulation import Simulation
from solver.units import derive_units

WALL_FACES = ("noslip", "freeslip", "moving")


def _box_cells(
    case_coarse: Any, g: Grid, lo_m: np.ndarray, hi_m: np.ndarray
) -> tuple[RefinedBox, tuple[bool, ...], tuple[bool, ...]]:
    """The coarse array cells the box [lo_m, hi_m) covers, its faces snapped to the nearest cell
    faces, and which of its sides lie on a wall face of the domain (a box reaching a face is cut
    there). An axis whose box spans a periodic axis is whole. A box reaching the inlet or the
    outflow is refused (ValueError)."""
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
                raise ValueError(
                    f"the refined box reaches the domain's {axis}_{side} face ({face}): only a "
                    f"wall face ({', '.join(WALL_FACES)}) may bound a refinement level; shrink "
                    "the box"
                )
        lo_m_a = max(lo_m[a], origin)
        hi_m_a = min(hi_m[a], origin + size)
        lo.append(int(round((lo_m_a - origin) / g.dx_m)) + g.ghost_lo[a])
        hi.append(int(round((hi_m_a - origin) / g.dx_m)) + g.ghost_lo[a])
        walls_lo.append(reach[0])
        walls_hi.append(reach[1])
    return RefinedBox(tuple(lo), tuple(hi)), tuple(walls_lo), tuple(walls_hi)  # type: ignore[arg-type]


class RefinedSimulation:
    """`case` with the box [box_lo_m, box_hi_m) (metres) at its resolution and the rest of the
    tunnel at half of it; the body must lie inside the box. A side of the box that reaches a wall
    face of the domain (the floor, the rolling road) ends there, the fine level taking that face's
    rule; the inlet and the outflow it may not reach. resolution.cells_per_length must be even;
    the lattice speed is the same on both levels."""

    def __init__(
        self,
        case: Any,
        backend: Backend,
        box_lo_m: tuple[float, float, float],
        box_hi_m: tuple[float, float, float],
        mesh: MeshArrays | None = None,
    ) -> None:
        cells = case.resolution.cells_per_length
        if cells % 2:
            raise ValueError(
                f"resolution.cells_per_length = {cells} must be even on two levels (the coarse "
                "level takes half of it)"
            )
        if wall_model(case) == "loglaw":
            raise ValueError(
                "the wall model does not run on refinement levels yet (its input cell may lie "
                "across the interface): set walls.model=none"
            )
        body = make_body(case, backend, mesh)
        length = case.body.reference_length_m or (body.reference_length_m() if body else None)
        assert length is not None, "a refined case needs a body or body.reference_length_m"
        u_lattice = derive_units(case, length).u_lattice

        coarse_case = copy.deepcopy(case)
        coarse_case.resolution.cells_per_length = cells // 2
        coarse_case.resolution.u_lattice = u_lattice
        coarse_case.body.shape = "none"
        coarse_case.body.reference_length_m = length
        grid = make_grid(coarse_case, derive_units(coarse_case, length))
        lo_m, hi_m = np.asarray(box_lo_m, float), np.asarray(box_hi_m, float)
        box, walls_lo, walls_hi = _box_cells(coarse_case, grid, lo_m, hi_m)
        coarse_xyz = (grid.nx, grid.ny, grid.nz)
        check_box(coarse_xyz, box, walls_lo, walls_hi)
        self.layout = LevelLayout.of(coarse_xyz, box, walls_lo, walls_hi)
        self.coarse = Simulation(coarse_case, backend, ghost_cells=self.layout.coarse_ghost_cells())

        fine_case = copy.deepcopy(case)
        fine_case.resolution.u_lattice = u_lattice
        fine_case.domain.sponge.length_m = 0.0
        dx_c = grid.dx_m
        for a, axis in enumerate("xyz"):
            layers = (self.layout.layer_lo[a], self.layout.layer_hi[a])
            if layers == (NONE, NONE):  # the box spans the periodic axis whole
                continue
            # the box, plus one coarse cell on each coupled side; a wall side keeps its face
            extra = [1 if layer == COUPLED else 0 for layer in layers]
            lo_face = grid.origin_m[a] + (box.lo[a] - grid.ghost_lo[a]) * dx_c
            fine_case.domain.origin_m[a] = lo_face - extra[0] * dx_c
            fine_case.domain.size_m[a] = (box.hi[a] - box.lo[a] + sum(extra)) * dx_c
            for side, layer in zip(("min", "max"), layers, strict=True):
                if layer == COUPLED:
                    setattr(fine_case.domain.boundaries, f"{axis}_{side}", "periodic")
        self.fine = Simulation(fine_case, backend, mesh, ghost_cells=self.layout.fine_ghost_cells())
        fine_xyz = (self.fine.grid.nx, self.fine.grid.ny, self.fine.grid.nz)
        assert fine_xyz == self.layout.fine_xyz, (fine_xyz, self.layout.fine_xyz)
        self.backend = backend
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
        self.coarse_steps = 0

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

    def advance(self, coarse_steps: int) -> np.ndarray:
        """Take coarse_steps coarse steps; returns the body's forces of each fine step in the
        fine level's lattice units, [2 coarse_steps, 3 kinds, 3 axes] (Simulation.advance)."""
        forces = self.coupling.advance(self.coarse, self.fine, coarse_steps)
        self.coarse_steps += coarse_steps
        return forces

    def coefficients(self, force_lattice: np.ndarray) -> np.ndarray:
        """Force coefficients of fine-level lattice forces (Simulation.coefficients)."""
        return self.fine.coefficients(force_lattice)

    def cell_updates_per_coarse_step(self) -> int:
        """The coarse level's stepped cells plus twice the fine level's."""
        stepped = [
            int(((s.flags_host & lattice.TYPE_MASK) == lattice.FLUID).sum())
            for s in (self.coarse, self.fine)
        ]
        return stepped[0] + 2 * stepped[1]

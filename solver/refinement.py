"""Two refinement levels in a periodic box: a coarse lattice and a box of it refined by 2, each
stepped by the one kernel of cuda/, coupled by cuda/lbm_refinement.cuh (docs/solver.md, "Grid
refinement").

The first step of grid refinement: no body and no open boundaries (solver/refined_simulation.py
has them); the BGK or entropic operator on both levels, with or without the Smagorinsky model.
Coordinates are in coarse cells: coarse cell i spans [i, i + 1); on an axis the box covers in
part the fine level has two ghost cells before the box (the ring the coarse level fills), so fine
cell j spans lo + [j - 2, j - 1) / 2. An axis the box spans whole stays periodic on the fine
level, without ghost cells.

One coarse step (Schornbaum & Ruede 2016's order for two levels):
1. the coarse level steps t -> t + 1 (its ghost cells, the box's outer layer, hold the fine
   level's state at t);
2. the fine ghost ring takes the coarse state at t (linear in space) and the fine level steps
   t -> t + 1/2;
3. the ring takes the coarse state halfway between t and t + 1 (its gradient at t), and the fine
   level steps to t + 1;
4. the coarse ghost cells take the mean of their fine cells at t + 1.
On more levels (advance_nested) each fine step of 2 and 3 is itself this order one level down,
recursively, as in waLBerla's levelwise recursion: a level of depth k takes 2^k steps per step of
the coarsest.

Over 250 lines: the coupling's layout, restriction, prolongation and time interpolation share
one pair of levels' index maps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from solver import lattice
from solver.backends.base import Backend
from solver.kernel_params import KernelParams, pack_params, plain_box_values
from solver.wall_fill import mark_bulk

#: fine layers before and after the box on one side of an axis: coupled to the coarse level (a
#: ghost ring of two cells), on a wall of the domain (the fine level's own boundary layer, one
#: cell), or none (the box spans a periodic axis whole)
COUPLED, WALL, NONE = 2, 1, 0


@dataclass(frozen=True)
class RefinedBox:
    """The refined part of the coarse grid: coarse cells lo <= (x, y, z) < hi."""

    lo: tuple[int, int, int]
    hi: tuple[int, int, int]


def relaxation_time_fine(tau_coarse: float) -> float:
    """The fine level's relaxation time for the coarse level's physical viscosity under acoustic
    scaling (dx and dt halved): nu = (tau - 1/2) / 3 dx^2 / dt, so tau_f - 1/2 = 2 (tau_c - 1/2)."""
    return 2.0 * tau_coarse - 0.5


def check_box(
    shape_xyz: tuple[int, int, int],
    box: RefinedBox,
    walls_lo: tuple[bool, ...] = (False, False, False),
    walls_hi: tuple[bool, ...] = (False, False, False),
) -> None:
    """Refuse a box that neither spans an axis whole nor lies inside it with a coarse cell to
    spare on each side that is not on a wall, and two coarse cells across (ValueError naming the
    axis)."""
    for axis, (n, lo, hi) in enumerate(zip(shape_xyz, box.lo, box.hi, strict=True)):
        whole = lo == 0 and hi == n
        inside = (walls_lo[axis] or lo >= 1) and (walls_hi[axis] or hi <= n - 1)
        if not whole and not (inside and hi - lo >= 2):
            raise ValueError(
                f"refined box on axis {'xyz'[axis]}: [{lo}, {hi}) must span the axis whole or lie "
                f"inside [1, {n - 1}) with at least 2 coarse cells"
            )


def check_relaxation(tau_coarse: float) -> None:
    """Refuse a relaxation time within 0.05 of 1 on either level, where the rescaling of the
    post-collision non-equilibrium part is singular (ValueError)."""
    for name, tau in (("coarse", tau_coarse), ("fine", relaxation_time_fine(tau_coarse))):
        if abs(tau - 1.0) < 0.05:
            raise ValueError(
                f"the {name} level's relaxation time {tau:.3f} is within 0.05 of 1, where the "
                "post-collision non-equilibrium part vanishes and its rescaling between levels is "
                "singular: choose another viscosity or resolution"
            )


def _periodic_params(
    backend: Backend, flags: np.ndarray, tau: float, collision: int, cs2_smag: float
) -> tuple[KernelParams, int]:
    values = {
        key: backend.asarray(v) if isinstance(v, np.ndarray) else v
        for key, v in plain_box_values(flags, tau, collision, cs2_smag).items()
    }
    return pack_params(values, backend.address), values["plane_stride"]


@dataclass(frozen=True)
class LevelLayout:
    """Where a fine level lies in the coarse one: the coarse grid's shape (x, y, z, array cells,
    boundary layers included), the refined box in those cells, the fine level's layers before
    (lo) and after (hi) the box per axis (COUPLED, WALL or NONE, which are also their widths in
    fine cells) and the fine grid's shape."""

    coarse_xyz: tuple[int, int, int]
    box: RefinedBox
    layer_lo: tuple[int, int, int]
    layer_hi: tuple[int, int, int]
    fine_xyz: tuple[int, int, int]

    @classmethod
    def of(
        cls,
        coarse_xyz: tuple[int, int, int],
        box: RefinedBox,
        walls_lo: tuple[bool, bool, bool] = (False, False, False),
        walls_hi: tuple[bool, bool, bool] = (False, False, False),
    ) -> LevelLayout:
        """walls_lo / walls_hi: the box's side lies on a wall face of the domain."""
        lo_layers, hi_layers = [], []
        for a, n in enumerate(coarse_xyz):
            whole = box.lo[a] == 0 and box.hi[a] == n
            lo_layers.append(NONE if whole else WALL if walls_lo[a] else COUPLED)
            hi_layers.append(NONE if whole else WALL if walls_hi[a] else COUPLED)
        fine = tuple(2 * (box.hi[a] - box.lo[a]) + lo_layers[a] + hi_layers[a] for a in range(3))
        return cls(coarse_xyz, box, tuple(lo_layers), tuple(hi_layers), fine)  # type: ignore[arg-type]

    def fine_ghost_cells(self) -> np.ndarray:
        """bool [z, y, x] of the fine grid: its coupled ghost cells, the ring on the coupled
        sides less the cells of its wall layers (there the ring meets a wall of the domain, which
        keeps its own rule: the fluid cells next to both pull their wall links from it)."""
        fx, fy, fz = self.fine_xyz
        z, y, x = np.meshgrid(np.arange(fz), np.arange(fy), np.arange(fx), indexing="ij")
        ghost = np.zeros((fz, fy, fx), bool)
        wall = np.zeros((fz, fy, fx), bool)
        for a, (j, m) in enumerate(((x, fx), (y, fy), (z, fz))):
            if self.layer_lo[a] == COUPLED:
                ghost |= j < COUPLED
            if self.layer_hi[a] == COUPLED:
                ghost |= j >= m - COUPLED
            if self.layer_lo[a] == WALL:
                wall |= j < WALL
            if self.layer_hi[a] == WALL:
                wall |= j >= m - WALL
        return ghost & ~wall

    def coarse_ghost_cells(self) -> np.ndarray:
        """bool [z, y, x] of the coarse grid: the box's cells."""
        nx, ny, nz = self.coarse_xyz
        ghost = np.zeros((nz, ny, nx), bool)
        ghost[tuple(slice(self.box.lo[a], self.box.hi[a]) for a in (2, 1, 0))] = True
        return ghost

    def fine_centres(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Cell centres of the fine level along x, y, z, in coarse array cells."""
        return tuple(
            self.box.lo[a] + (np.arange(self.fine_xyz[a]) + 0.5 - self.layer_lo[a]) / 2.0
            for a in range(3)
        )  # type: ignore[return-value]

    def _parent(self, axis: int, j: np.ndarray) -> np.ndarray:
        """The coarse cell (along axis) a fine cell j lies in, periodic."""
        lo, g, n = self.box.lo[axis], self.layer_lo[axis], self.coarse_xyz[axis]
        return (lo + (j - g) // 2) % n

    def explosion_cells(self, readable: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """For the ghost ring next to the fine active cells: int64 [n, 8], the coarse cell each
        ghost cell lies in, the ghost cell, and per axis the coarse cells towards and away from
        the ghost cell's centre; float32 [n, 3], the weight of each axis's difference
        (lbm_explode_entry): 1/8 for the central difference, 1/4 for a one-sided one where a
        neighbour is not readable (readable: bool [z, y, x] of the coarse cells whose state is
        current, the stepped cells and the coalesced layer; all when None), 0 where neither is."""
        fx, fy, fz = self.fine_xyz
        z, y, x = np.meshgrid(np.arange(fz), np.arange(fy), np.arange(fx), indexing="ij")
        outside = np.zeros((fz, fy, fx), np.int8)  # on how many axes the cell is in the ring
        within = np.ones((fz, fy, fx), bool)
        for axis, (j, m) in enumerate(((x, fx), (y, fy), (z, fz))):
            lo, hi = self.layer_lo[axis], self.layer_hi[axis]
            within &= (j >= (COUPLED - 1 if lo == COUPLED else lo)) & (
                j <= (m - COUPLED if hi == COUPLED else m - 1 - hi)
            )
            if lo == COUPLED:
                outside += j == COUPLED - 1
            if hi == COUPLED:
                outside += j == m - COUPLED
        # D3Q19 has no links along body diagonals: no active cell pulls from the ring's corners
        ring = within & (outside >= 1) & (outside <= 2)
        nx, ny, _ = self.coarse_xyz
        fine = (x + fx * (y + fy * z))[ring]
        parent = [self._parent(a, j[ring]) for a, j in enumerate((x, y, z))]
        # the fine centre lies towards +1 on an axis where its index is odd past the lo layer
        side = [
            np.where((j[ring] - self.layer_lo[a]) % 2 == 1, 1, -1) for a, j in enumerate((x, y, z))
        ]

        def index(shift: tuple[Any, Any, Any]) -> np.ndarray:
            px, py, pz = ((parent[a] + shift[a]) % self.coarse_xyz[a] for a in range(3))
            return px + nx * (py + ny * pz)

        ok = np.ones(nx * ny * self.coarse_xyz[2], bool) if readable is None else readable.ravel()
        centre = index((0, 0, 0))
        columns, weights = [centre, fine], []
        for axis in range(3):
            step: list[Any] = [0, 0, 0]
            step[axis] = side[axis]
            toward = index(tuple(step))
            away = index(tuple(-t for t in step))
            t_ok, a_ok = ok[toward], ok[away]
            weights.append(np.where(t_ok & a_ok, 0.125, np.where(t_ok | a_ok, 0.25, 0.0)))
            columns.append(np.where(t_ok, toward, centre))
            columns.append(np.where(a_ok, away, centre))
        return (
            np.stack(columns, axis=1).astype(np.int64),
            np.stack(weights, axis=1).astype(np.float32),
        )

    def coalescence_cells(self) -> np.ndarray:
        """int64 [n, 9]: each coarse ghost cell the coarse level reads (the box's outer layer on
        its coupled sides) and its eight fine cells."""
        nx, ny, _ = self.coarse_xyz
        fx, fy, _ = self.fine_xyz
        lo, hi = self.box.lo, self.box.hi
        cz, cy, cx = np.meshgrid(*(np.arange(lo[a], hi[a]) for a in (2, 1, 0)), indexing="ij")
        layer = np.zeros(cx.shape, bool)
        for axis, c in enumerate((cx, cy, cz)):
            if self.layer_lo[axis] == COUPLED:
                layer |= c == lo[axis]
            if self.layer_hi[axis] == COUPLED:
                layer |= c == hi[axis] - 1
        cx, cy, cz = cx[layer], cy[layer], cz[layer]
        out = [cx + nx * (cy + ny * cz)]
        fx0, fy0, fz0 = (2 * (c - lo[a]) + self.layer_lo[a] for a, c in enumerate((cx, cy, cz)))
        for dz in (0, 1):
            for dy in (0, 1):
                for dx in (0, 1):
                    out.append((fx0 + dx) + fx * ((fy0 + dy) + fy * (fz0 + dz)))
        return np.stack(out, axis=1).astype(np.int64)


class SteppedLevel(Protocol):
    """What the two-level step needs of a level: its two population buffers (the current one
    first), their plane stride, and its own step."""

    plane_stride: int

    def population_buffers(self) -> tuple[Any, Any]: ...

    def advance(self, n_steps: int, accumulate_slot_forces: bool = False) -> np.ndarray: ...


class LevelCoupling:
    """The transfers between a coarse level and the fine level of `layout` (cuda/
    lbm_refinement.cuh), with the index lists on the backend's device."""

    def __init__(
        self,
        backend: Backend,
        layout: LevelLayout,
        tau_coarse: float,
        collision: int,
        cs2_smag: float = 0.0,
        coarse_readable: np.ndarray | None = None,
    ) -> None:
        """tau_coarse: the coarse level's molecular relaxation time; cs2_smag: the Smagorinsky
        constant squared of both levels (0: no subgrid model); coarse_readable: bool [z, y, x]
        of the coarse cells whose state is current (LevelLayout.explosion_cells)."""
        check_relaxation(tau_coarse)
        self.backend = backend
        self.layout = layout
        self.collision = collision
        self.tau_coarse = tau_coarse
        self.tau_fine = relaxation_time_fine(tau_coarse)
        self.cs2_smag = cs2_smag
        cells, weights = layout.explosion_cells(coarse_readable)
        self.explosion_cells = backend.asarray(cells)
        self.explosion_weights = backend.asarray(weights)
        self.coalescence_cells = backend.asarray(layout.coalescence_cells())

    def explode(
        self, coarse: SteppedLevel, c_now: Any, c_next: Any, a: float, fine: SteppedLevel
    ) -> None:
        """The fine ghost ring of fine's current buffer from the coarse state c_now + a (c_next -
        c_now)."""
        self.backend.explode(
            c_now,
            c_next,
            a,
            coarse.plane_stride,
            fine.population_buffers()[0],
            fine.plane_stride,
            self.explosion_cells,
            self.explosion_weights,
            self.tau_coarse,
            self.tau_fine,
            self.cs2_smag,
            self.collision,
        )

    def coalesce(self, fine: SteppedLevel, coarse: SteppedLevel) -> None:
        """The coarse ghost layer of coarse's current buffer from fine's current state."""
        self.backend.coalesce(
            fine.population_buffers()[0],
            fine.plane_stride,
            coarse.population_buffers()[0],
            coarse.plane_stride,
            self.coalescence_cells,
            self.tau_fine,
            self.tau_coarse,
            self.cs2_smag,
            self.collision,
        )


def advance_nested(
    levels: Sequence[SteppedLevel],
    couplings: Sequence[LevelCoupling],
    coarse_steps: int,
    accumulate_slot_forces: bool = False,
) -> np.ndarray:
    """Take coarse_steps steps of levels[0], each level k + 1 nested in level k and coupled by
    couplings[k] (the module docstring's order, recursively: the finest level takes 2^(L - 1)
    steps per coarse step); returns the finest level's forces of each of its steps,
    [2^(L - 1) coarse_steps, 3, 3]; with accumulate_slot_forces the finest level sums its
    per-slot forces (Simulation.advance)."""
    assert len(couplings) == len(levels) - 1, (len(levels), len(couplings))
    forces: list[np.ndarray] = []

    def step(k: int) -> None:
        level = levels[k]
        if k == len(levels) - 1:
            forces.append(level.advance(1, accumulate_slot_forces))
            return
        c_now, c_next = level.population_buffers()
        level.advance(1)
        child, coupling = levels[k + 1], couplings[k]
        coupling.explode(level, c_now, c_now, 0.0, child)
        step(k + 1)
        coupling.explode(level, c_now, c_next, 0.5, child)
        step(k + 1)
        coupling.coalesce(child, level)

    for _ in range(coarse_steps):
        step(0)
    return np.concatenate(forces) if forces else np.zeros((0, 3, 3))


class _Level:
    """One level of a TwoLevelBox: flags, kernel parameters and two population buffers."""

    def __init__(
        self, backend: Backend, flags: np.ndarray, tau: float, collision: int, cs2_smag: float
    ) -> None:
        self.backend = backend
        self.flags = flags
        self.tau = tau
        self.params, self.plane_stride = _periodic_params(backend, flags, tau, collision, cs2_smag)
        self.f = [backend.zeros((lattice.Q * self.plane_stride,), np.float32) for _ in range(2)]
        self.current = 0
        self.active = (flags & lattice.TYPE_MASK) == lattice.FLUID
        self._force = backend.zeros((3, 3), backend.force_dtype)  # no body: stays zero

    def population_buffers(self) -> tuple[Any, Any]:
        return self.f[self.current], self.f[1 - self.current]

    def advance(self, n_steps: int, accumulate_slot_forces: bool = False) -> np.ndarray:
        """n_steps steps; no body, so no forces (zeros) and no slots to sum."""
        for _ in range(n_steps):
            src, dst = self.population_buffers()
            self.backend.step(src, dst, self.params, self._force)
            self.current = 1 - self.current
        return np.zeros((n_steps, 3, 3))


class TwoLevelBox:
    """A periodic box of coarse cells (shape_xyz) with `box` refined by 2 (module docstring).
    tau_coarse: the coarse level's molecular relaxation time; collision: 'bgk' or 'entropic';
    smagorinsky_cs: the subgrid model's constant on both levels (each filters at its own dx)."""

    def __init__(
        self,
        backend: Backend,
        shape_xyz: tuple[int, int, int],
        box: RefinedBox,
        tau_coarse: float,
        collision: str = "bgk",
        smagorinsky_cs: float = 0.0,
    ) -> None:
        check_box(shape_xyz, box)
        check_relaxation(tau_coarse)  # before any allocation (LevelCoupling checks it too)
        self.backend = backend
        self.shape_xyz = shape_xyz
        self.box = box
        self.collision = lattice.COLLISIONS[collision]
        self.layout = LevelLayout.of(shape_xyz, box)
        coarse_flags = np.zeros(shape_xyz[::-1], np.uint8)
        coarse_flags[self.layout.coarse_ghost_cells()] = lattice.GHOST
        mark_bulk(coarse_flags)
        fine_flags = np.zeros(self.layout.fine_xyz[::-1], np.uint8)
        fine_flags[self.layout.fine_ghost_cells()] = lattice.GHOST
        mark_bulk(fine_flags)
        cs2 = smagorinsky_cs**2
        self.coarse = _Level(backend, coarse_flags, tau_coarse, self.collision, cs2)
        self.fine = _Level(
            backend, fine_flags, relaxation_time_fine(tau_coarse), self.collision, cs2
        )
        self.coupling = LevelCoupling(backend, self.layout, tau_coarse, self.collision, cs2)
        self.coarse_steps = 0

    def fine_centres(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Cell centres of the fine level along x, y, z, in coarse cells."""
        return self.layout.fine_centres()

    def coarse_centres(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Cell centres of the coarse level along x, y, z, in coarse cells."""
        return tuple(np.arange(n) + 0.5 for n in self.shape_xyz)  # type: ignore[return-value]

    # ---- state ---------------------------------------------------------------------------

    def initialise(self, moments_at: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]):
        """Equilibrium on both levels from moments_at(x, y, z) -> [4, ...] (rho, ux, uy, uz in
        coarse lattice units) at cell centres in coarse cells; the coarse ghost cells then take
        the fine state."""
        for level, centres in (
            (self.coarse, self.coarse_centres()),
            (self.fine, self.fine_centres()),
        ):
            cx, cy, cz = centres
            z, y, x = np.meshgrid(cz, cy, cx, indexing="ij")
            moments = np.asarray(moments_at(x, y, z), np.float32).reshape(4, -1)
            n = level.flags.size
            self.backend.init_equilibrium(
                level.f[level.current],
                self.backend.asarray(np.ascontiguousarray(moments).ravel()),
                n,
                level.plane_stride,
                self.collision,
            )
        self.coupling.coalesce(self.fine, self.coarse)
        self.coarse_steps = 0

    def advance(self, coarse_steps: int) -> None:
        """Take coarse_steps coarse steps (twice as many fine ones)."""
        advance_nested((self.coarse, self.fine), (self.coupling,), coarse_steps)
        self.coarse_steps += coarse_steps

    def moments(self) -> tuple[np.ndarray, np.ndarray]:
        """(coarse, fine) moments on the host, [4, z, y, x] each (rho, ux, uy, uz in coarse
        lattice units: the lattice speed is the same on both levels); ghost cells included,
        `coarse.active` and `fine.active` mark the cells that carry the flow."""
        out = []
        for level in (self.coarse, self.fine):
            n = level.flags.size
            m = self.backend.zeros((4 * n,), np.float32)
            self.backend.fields(level.f[level.current], m, n, level.plane_stride, self.collision)
            out.append(self.backend.to_host(m).reshape(4, *level.flags.shape).astype(np.float64))
        return out[0], out[1]

    def mass(self) -> float:
        """Total mass in coarse-cell volumes: the coarse level's active cells and the fine
        level's, each fine cell an eighth."""
        coarse, fine = self.moments()
        return float(coarse[0][self.coarse.active].sum() + fine[0][self.fine.active].sum() / 8.0)

    def cell_updates_per_coarse_step(self) -> int:
        """Coarse active cells plus twice the fine active cells."""
        return int(self.coarse.active.sum() + 2 * self.fine.active.sum())

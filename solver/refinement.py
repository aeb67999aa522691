"""Two refinement levels in a periodic box: a coarse lattice and a box of it refined by 2, each
stepped by the one kernel of cuda/, coupled by cuda/lbm_refinement.cuh (docs/solver.md, "Grid
refinement").

The first step of grid refinement: no body, no open boundaries and no subgrid model yet; the
laminar BGK or entropic operator on both levels. Coordinates are in coarse cells: coarse cell i
spans [i, i + 1), fine cell j of a box starting at coarse cell lo spans lo + [j, j + 1) / 2 on an
axis the box covers in part, with two fine ghost cells before the box (the ring the coarse level
fills). An axis the box spans whole stays periodic on the fine level, without ghost cells.

One coarse step (Schornbaum & Ruede 2016's order for two levels):
1. the coarse level steps t -> t + 1 (its ghost cells, the box's outer layer, hold the fine
   level's state at t);
2. the fine ghost ring takes the coarse state at t (linear in space) and the fine level steps
   t -> t + 1/2;
3. the ring takes the coarse state halfway between t and t + 1 (its gradient at t), and the fine
   level steps to t + 1;
4. the coarse ghost cells take the mean of their fine cells at t + 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from solver import lattice
from solver.backends.base import Backend
from solver.grid import mark_bulk
from solver.kernel_params import KernelParams, pack_params

#: fine ghost cells before and after the box on an axis the box covers in part
GHOST_FINE = 2


@dataclass(frozen=True)
class RefinedBox:
    """The refined part of the coarse grid: coarse cells lo <= (x, y, z) < hi."""

    lo: tuple[int, int, int]
    hi: tuple[int, int, int]


def relaxation_time_fine(tau_coarse: float) -> float:
    """The fine level's relaxation time for the coarse level's physical viscosity under acoustic
    scaling (dx and dt halved): nu = (tau - 1/2) / 3 dx^2 / dt, so tau_f - 1/2 = 2 (tau_c - 1/2)."""
    return 2.0 * tau_coarse - 0.5


def nonequilibrium_scale(tau_coarse: float) -> float:
    """(f* - f_eq)_fine / (f* - f_eq)_coarse for post-collision states of the same flow:
    (tau_f - 1) / (2 (tau_c - 1)) (cuda/lbm_refinement.cuh)."""
    return (relaxation_time_fine(tau_coarse) - 1.0) / (2.0 * (tau_coarse - 1.0))


def _check(shape_xyz: tuple[int, int, int], box: RefinedBox, tau_coarse: float) -> None:
    for axis, (n, lo, hi) in enumerate(zip(shape_xyz, box.lo, box.hi, strict=True)):
        whole = lo == 0 and hi == n
        if not whole and not (1 <= lo and hi <= n - 1 and hi - lo >= 2):
            raise ValueError(
                f"refined box on axis {'xyz'[axis]}: [{lo}, {hi}) must span the axis whole or lie "
                f"inside [1, {n - 1}) with at least 2 coarse cells"
            )
    for name, tau in (("coarse", tau_coarse), ("fine", relaxation_time_fine(tau_coarse))):
        if abs(tau - 1.0) < 0.05:
            raise ValueError(
                f"the {name} level's relaxation time {tau:.3f} is within 0.05 of 1, where the "
                "post-collision non-equilibrium part vanishes and its rescaling between levels is "
                "singular: choose another viscosity or resolution"
            )


def _periodic_params(
    backend: Backend, flags: np.ndarray, tau: float, collision: int
) -> tuple[KernelParams, int]:
    nz, ny, nx = flags.shape
    n = flags.size
    stride = lattice.plane_stride(n)
    values = {
        "plane_stride": stride,
        "flags": backend.asarray(flags),
        "tau_x": backend.asarray(np.full(nx, tau, np.float32)),
        "u_inlet": backend.zeros((nz, ny), np.float32),
        "boundary_index": backend.asarray(np.full(flags.shape, -1, np.int32)),
        "cell_force": backend.zeros((0, 3, 3), np.float32),
        "link_q": backend.zeros((0, 18), np.float32),
        "slot_area": backend.zeros((0, 3), np.float32),
        "slot_wall": backend.zeros((0, 5), np.float32),
        "wall_feq": backend.zeros((19,), np.float32),
        "nx": nx,
        "ny": ny,
        "nz": nz,
        "interpolated": 0,
        "has_force": 0,
        "collision": collision,
        "wall_model": lattice.WALL_MODELS["none"],
        "wall_sample": 1,
        "wall_body_rule": 0,
        "nu_lattice": (tau - 0.5) / 3.0,
        "cs2_smag": 0.0,
        "inlet_relax": 0.0,
        "gx": 0.0,
        "gy": 0.0,
        "gz": 0.0,
        "wall_ux": 0.0,
        "wall_uy": 0.0,
        "wall_uz": 0.0,
    }
    return pack_params(values, backend.address), stride


class _Level:
    """One level's flags, kernel parameters and two population buffers."""

    def __init__(self, backend: Backend, flags: np.ndarray, tau: float, collision: int) -> None:
        self.flags = flags
        self.tau = tau
        self.params, self.stride = _periodic_params(backend, flags, tau, collision)
        self.f = [backend.zeros((lattice.Q * self.stride,), np.float32) for _ in range(2)]
        self.current = 0
        self.active = (flags & lattice.TYPE_MASK) == lattice.FLUID


class TwoLevelBox:
    """A periodic box of coarse cells (shape_xyz) with `box` refined by 2 (module docstring).
    tau_coarse: the coarse level's relaxation time; collision: 'bgk' or 'entropic'."""

    def __init__(
        self,
        backend: Backend,
        shape_xyz: tuple[int, int, int],
        box: RefinedBox,
        tau_coarse: float,
        collision: str = "bgk",
    ) -> None:
        _check(shape_xyz, box, tau_coarse)
        self.backend = backend
        self.shape_xyz = shape_xyz
        self.box = box
        self.collision = lattice.COLLISIONS[collision]
        nx, ny, nz = shape_xyz
        whole = [lo == 0 and hi == n for n, lo, hi in zip(shape_xyz, box.lo, box.hi, strict=True)]
        self._ghost = [0 if w else GHOST_FINE for w in whole]
        self._fine_xyz = tuple(
            2 * (hi - lo) + 2 * g for lo, hi, g in zip(box.lo, box.hi, self._ghost, strict=True)
        )

        coarse_flags = np.zeros((nz, ny, nx), np.uint8)
        inside = tuple(slice(box.lo[a], box.hi[a]) for a in (2, 1, 0))
        coarse_flags[inside] = lattice.GHOST
        mark_bulk(coarse_flags)
        fx, fy, fz = self._fine_xyz
        fine_flags = np.full((fz, fy, fx), lattice.GHOST, np.uint8)
        active = tuple(
            slice(g, m - g) for g, m in zip(self._ghost[::-1], (fz, fy, fx), strict=True)
        )
        fine_flags[active] = lattice.FLUID
        mark_bulk(fine_flags)
        self.coarse = _Level(backend, coarse_flags, tau_coarse, self.collision)
        self.fine = _Level(backend, fine_flags, relaxation_time_fine(tau_coarse), self.collision)
        self.scale_coarse_to_fine = nonequilibrium_scale(tau_coarse)
        self.explosion_cells = backend.asarray(self._explosion_cells())
        self.coalescence_cells = backend.asarray(self._coalescence_cells())
        self._force = backend.zeros((3, 3), backend.force_dtype)  # no body: stays zero
        self.coarse_steps = 0

    # ---- geometry --------------------------------------------------------------------------

    def fine_centres(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Cell centres of the fine level along x, y, z, in coarse cells."""
        return tuple(
            lo + (np.arange(m) + 0.5 - g) / 2.0
            for lo, m, g in zip(self.box.lo, self._fine_xyz, self._ghost, strict=True)
        )

    def coarse_centres(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Cell centres of the coarse level along x, y, z, in coarse cells."""
        return tuple(np.arange(n) + 0.5 for n in self.shape_xyz)

    def _parent(self, axis: int, j: np.ndarray) -> np.ndarray:
        """The coarse cell (along axis) a fine cell j lies in, periodic."""
        lo, g, n = self.box.lo[axis], self._ghost[axis], self.shape_xyz[axis]
        return (lo + (j - g) // 2) % n

    def _explosion_cells(self) -> np.ndarray:
        """int64 [n, 8] for the ghost ring next to the fine active cells: the coarse cell each
        ghost cell lies in, the ghost cell, and per axis the coarse neighbours towards and away
        from the ghost cell's centre (lbm_explode_entry)."""
        fx, fy, fz = self._fine_xyz
        z, y, x = np.meshgrid(np.arange(fz), np.arange(fy), np.arange(fx), indexing="ij")
        outside = np.zeros((fz, fy, fx), np.int8)  # on how many axes the cell is in the ring
        within = np.ones((fz, fy, fx), bool)
        for axis, (j, m) in enumerate(((x, fx), (y, fy), (z, fz))):
            g = self._ghost[axis]
            if g:
                within &= (j >= g - 1) & (j <= m - g)
                outside += (j == g - 1) | (j == m - g)
        # D3Q19 has no links along body diagonals: no active cell pulls from the ring's corners
        ring = within & (outside >= 1) & (outside <= 2)
        nx, ny, _ = self.shape_xyz
        fine = (x + fx * (y + fy * z))[ring]
        parent = [self._parent(a, j[ring]) for a, j in enumerate((x, y, z))]
        # the fine centre lies towards +1 on an axis where its index is odd past the ghost cells
        side = [
            np.where((j[ring] - self._ghost[a]) % 2 == 1, 1, -1) for a, j in enumerate((x, y, z))
        ]

        def index(shift: tuple[int, int, int]) -> np.ndarray:
            px, py, pz = ((parent[a] + shift[a]) % self.shape_xyz[a] for a in range(3))
            return px + nx * (py + ny * pz)

        columns = [index((0, 0, 0)), fine]
        for axis in range(3):
            toward = [np.zeros_like(fine)] * 3
            toward[axis] = side[axis]
            columns.append(index(tuple(toward)))
            columns.append(index(tuple(-t for t in toward)))
        return np.stack(columns, axis=1).astype(np.int64)

    def _coalescence_cells(self) -> np.ndarray:
        """int64 [n, 9]: each coarse ghost cell the coarse level reads (the box's outer layer on
        the axes it covers in part) and its eight fine cells."""
        nx, ny, _ = self.shape_xyz
        fx, fy, _ = self._fine_xyz
        lo, hi = self.box.lo, self.box.hi
        cz, cy, cx = np.meshgrid(*(np.arange(lo[a], hi[a]) for a in (2, 1, 0)), indexing="ij")
        layer = np.zeros(cx.shape, bool)
        for axis, c in enumerate((cx, cy, cz)):
            if self._ghost[axis]:
                layer |= (c == lo[axis]) | (c == hi[axis] - 1)
        cx, cy, cz = cx[layer], cy[layer], cz[layer]
        out = [cx + nx * (cy + ny * cz)]
        fx0, fy0, fz0 = (2 * (c - lo[a]) + self._ghost[a] for a, c in enumerate((cx, cy, cz)))
        for dz in (0, 1):
            for dy in (0, 1):
                for dx in (0, 1):
                    out.append((fx0 + dx) + fx * ((fy0 + dy) + fy * (fz0 + dz)))
        return np.stack(out, axis=1).astype(np.int64)

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
                level.stride,
                self.collision,
            )
        self._coalesce(self.coarse.f[self.coarse.current])
        self.coarse_steps = 0

    def _coalesce(self, coarse_f: Any) -> None:
        self.backend.coalesce(
            self.fine.f[self.fine.current],
            self.fine.stride,
            coarse_f,
            self.coarse.stride,
            self.coalescence_cells,
            1.0 / self.scale_coarse_to_fine,
            self.collision,
        )

    def _fine_step(self, c_now: Any, c_next: Any, a: float) -> None:
        fine = self.fine
        src, dst = fine.f[fine.current], fine.f[1 - fine.current]
        self.backend.explode(
            c_now,
            c_next,
            a,
            self.coarse.stride,
            src,
            fine.stride,
            self.explosion_cells,
            self.scale_coarse_to_fine,
            self.collision,
        )
        self.backend.step(src, dst, fine.params, self._force)
        fine.current = 1 - fine.current

    def advance(self, coarse_steps: int) -> None:
        """Take coarse_steps coarse steps (twice as many fine ones)."""
        coarse = self.coarse
        for _ in range(coarse_steps):
            c_now, c_next = coarse.f[coarse.current], coarse.f[1 - coarse.current]
            self.backend.step(c_now, c_next, coarse.params, self._force)
            self._fine_step(c_now, c_now, 0.0)
            self._fine_step(c_now, c_next, 0.5)
            self._coalesce(c_next)
            coarse.current = 1 - coarse.current
        self.coarse_steps += coarse_steps

    def moments(self) -> tuple[np.ndarray, np.ndarray]:
        """(coarse, fine) moments on the host, [4, z, y, x] each (rho, ux, uy, uz in coarse
        lattice units: the lattice speed is the same on both levels); ghost cells included,
        `coarse.active` and `fine.active` mark the cells that carry the flow."""
        out = []
        for level in (self.coarse, self.fine):
            n = level.flags.size
            m = self.backend.zeros((4 * n,), np.float32)
            self.backend.fields(level.f[level.current], m, n, level.stride, self.collision)
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

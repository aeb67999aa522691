"""Closed triangle meshes on the lattice: which cells are inside, the wall fraction of every link
that crosses the surface, and the frontal area. Drives the kernels of cuda/voxelize.cuh on the
backend's device (see that header for the method and its robustness rules).

The solver takes any mesh as arrays: vertices [n, 3] in metres and faces [m, 3] of vertex
indices, outward-oriented and closed (shapes/ checks that before it hands a mesh over).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.backends import Backend
from solver.grid import links_into_body

#: Placeholder for "no crossing found" in the wall fractions, above any real fraction.
_NO_HIT = 2.0


@dataclass(frozen=True)
class CellCentres:
    """A grid of cell centres: shape (nz, ny, nx), the centre of cell (0, 0, 0) and the spacing."""

    shape_zyx: tuple[int, int, int]
    first_m: tuple[float, float, float]
    dx_m: float

    def scalars(self) -> tuple:
        nz, ny, nx = self.shape_zyx
        return (
            np.int32(nx),
            np.int32(ny),
            np.int32(nz),
            *map(np.float64, self.first_m),
            np.float64(self.dx_m),
        )


def _geometry(backend: Backend, vertices_m: np.ndarray, faces: np.ndarray) -> tuple:
    if len(vertices_m) >= 2**31:
        raise ValueError("meshes of 2^31 or more vertices exceed the kernels' int32 face indices")
    return (
        backend.asarray(np.ascontiguousarray(vertices_m, dtype=np.float64)),
        backend.asarray(np.ascontiguousarray(faces, dtype=np.int32)),
        np.int64(len(faces)),
    )


def _count_crossings(backend: Backend, geometry: tuple, n_faces: int, grid: CellCentres):
    """Pass 1: crossings per row, int32 [ny * nz] on the device."""
    nz, ny, _ = grid.shape_zyx
    counts = backend.xp.zeros(ny * nz, dtype=np.int32)
    backend.voxelize("vox_count", n_faces, *geometry, *grid.scalars(), counts)
    return counts


def row_crossing_counts(
    backend: Backend, vertices_m: np.ndarray, faces: np.ndarray, grid: CellCentres
) -> np.ndarray:
    """Crossings of the surface by the +x ray of every row, int32 [nz, ny] on the device."""
    counts = _count_crossings(backend, _geometry(backend, vertices_m, faces), len(faces), grid)
    return counts.reshape(grid.shape_zyx[0], grid.shape_zyx[1])


def inside_mask(
    backend: Backend, vertices_m: np.ndarray, faces: np.ndarray, grid: CellCentres
) -> np.ndarray:
    """uint8 [nz, ny, nx] on the host: 1 where the cell centre is inside the closed surface."""
    xp = backend.xp
    geometry = _geometry(backend, vertices_m, faces)
    nz, ny, nx = grid.shape_zyx
    counts = _count_crossings(backend, geometry, len(faces), grid)
    row_start = xp.zeros(ny * nz + 1, dtype=np.int64)
    row_start[1:] = xp.cumsum(counts)
    hits = xp.zeros(max(int(row_start[-1]), 1), dtype=np.float64)
    fill = xp.zeros(ny * nz, dtype=np.int32)
    backend.voxelize("vox_record", len(faces), *geometry, *grid.scalars(), row_start, fill, hits)
    inside = xp.zeros(nx * ny * nz, dtype=np.uint8)
    backend.voxelize("vox_fill", ny * nz, *grid.scalars(), row_start, hits, inside)
    return backend.to_host(inside).reshape(nz, ny, nx)


def link_fractions(
    backend: Backend,
    vertices_m: np.ndarray,
    faces: np.ndarray,
    grid: CellCentres,
    slot: np.ndarray,
    body: np.ndarray,
) -> tuple[np.ndarray, int]:
    """Wall fractions [n_slots, 18] (float32, host) of the links from each slot's fluid cell into
    body cells, where slot [nz, ny, nx] numbers the fluid cells next to the body (-1 elsewhere)
    and body [nz, ny, nx] marks the body's cells. Links into the body that no triangle crosses
    (where the surface passes within round-off of a cell centre, or a link wrapped across a
    periodic face where the mesh stops at that face: the mesh is not wrapped) get 1/2, the
    halfway wall; their count is returned beside the fractions. A wrapped link finds its
    crossing where the mesh runs on past the face (a periodic pipe's tube)."""
    xp = backend.xp
    n_slots = int(slot.max()) + 1
    bits = xp.full(n_slots * 18, np.float32(_NO_HIT).view(np.int32), dtype=np.int32)
    backend.voxelize(
        "vox_links",
        len(faces),
        *_geometry(backend, vertices_m, faces),
        *grid.scalars(),
        backend.asarray(slot.astype(np.int32)),
        backend.asarray(body.astype(np.uint8)),
        bits,
    )
    q = backend.to_host(bits).view(np.float32).reshape(n_slots, 18).copy()
    into_body = links_into_body(slot, body)
    missing = into_body & (q >= _NO_HIT)
    q[missing] = 0.5
    q[~into_body] = 0.0
    return q, int(missing.sum())


def frontal_area_m2(
    backend: Backend,
    vertices_m: np.ndarray,
    faces: np.ndarray,
    y_range_m: tuple[float, float],
    z_range_m: tuple[float, float],
    spacing_m: float,
) -> float:
    """Area of the mesh's shadow on the y-z plane inside the given ranges [m^2]: the +x rays of
    a square grid of about spacing_m over the mesh's extent (clipped to the ranges) that cross
    the surface, times the area each stands for (error about the shadow's perimeter times half
    the spacing)."""
    y0, y1 = max(y_range_m[0], vertices_m[:, 1].min()), min(y_range_m[1], vertices_m[:, 1].max())
    z0, z1 = max(z_range_m[0], vertices_m[:, 2].min()), min(z_range_m[1], vertices_m[:, 2].max())
    if y1 <= y0 or z1 <= z0:
        return 0.0
    ny = max(1, int(round((y1 - y0) / spacing_m)))
    step = (y1 - y0) / ny
    nz = max(1, int(round((z1 - z0) / step)))
    grid = CellCentres((nz, ny, 1), (0.0, y0 + step / 2, z0 + step / 2), step)
    counts = row_crossing_counts(backend, vertices_m, faces, grid)
    return float(backend.to_host(counts > 0).sum()) * step * step

"""A triangle mesh cut into surfels: the convex pieces of its triangles that lie in each lattice
cell, the surface elements of the volumetric wall (Chen, Teixeira & Molvig 1998, Int. J. Mod.
Phys. C 9, 1281; `solver/volumetric_geometry.py`).

Lengths are in cells: cell (i, j, k) is the unit cube [i, i + 1] x [j, j + 1] x [k, k + 1].
Triangles are first halved across their longest edges until no edge is longer than two cells, so
each touches at most a 3 x 3 x 3 block of cells; each piece is the triangle clipped against one
cell's six faces (Sutherland & Hodgman 1974, vectorized over all pieces). A piece lying in a face
between two cells goes to the cell below that face along its axis, so every part of the surface is
in exactly one surfel. Pieces keep their triangle's orientation, so each surfel's area vector
points out of the body.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Most vertices a piece can have: a triangle clipped by six planes gains at most one per plane,
#: and the volumetric wall splits a surfel once more (by a diagonal plane).
MAX_VERTICES = 12
#: Distances below this [cells] count as lying on a plane.
ON_PLANE = 1e-12
#: How far past the box [cells] cut_into_cells keeps the surface when given the box.
CLIP_MARGIN = 2
#: Pieces with less area than this [cells^2] are dropped (edges and corners shared by cells).
MIN_AREA = 1e-14


@dataclass(frozen=True)
class Polygons:
    """Convex planar polygons in a fixed-size buffer: vertices [m, MAX_VERTICES, 3] [cells], the
    first count[m] of each row in order round the polygon."""

    vertices: np.ndarray
    count: np.ndarray

    def take(self, index: np.ndarray) -> Polygons:
        return Polygons(self.vertices[index], self.count[index])


@dataclass(frozen=True)
class Surfels:
    """The mesh's pieces per cell: the cell (i, j, k) [m, 3] each lies in, the triangle it is
    part of [m], its polygon, area vector [m, 3] (area times the outward normal) [cells^2] and
    centroid [m, 3] [cells]."""

    cell: np.ndarray
    triangle: np.ndarray
    polygon: Polygons
    area_vector: np.ndarray
    centroid: np.ndarray

    @property
    def area(self) -> np.ndarray:
        return np.linalg.norm(self.area_vector, axis=1)

    def take(self, index: np.ndarray) -> Surfels:
        return Surfels(
            self.cell[index],
            self.triangle[index],
            self.polygon.take(index),
            self.area_vector[index],
            self.centroid[index],
        )

    def within(self, box_cells: tuple[int, int, int]) -> Surfels:
        """The surfels in the box's cells (nx, ny, nz): those outside it are a periodic mesh's
        images of surfels inside, or the entry pieces that serve the solid volume alone."""
        inside = ((self.cell >= 0) & (self.cell < np.asarray(box_cells))).all(axis=1)
        return self.take(np.flatnonzero(inside))


def clip_half_space(poly: Polygons, normal: np.ndarray, offset: np.ndarray | float) -> Polygons:
    """The part of each polygon where normal . x <= offset; normal [3] or [m, 3], offset scalar
    or [m]. A polygon wholly outside keeps count 0."""
    m, k_max, _ = poly.vertices.shape
    k = np.arange(k_max)
    valid = k[None, :] < poly.count[:, None]
    following = (k[None, :] + 1) % np.maximum(poly.count[:, None], 1)
    if np.ndim(normal) == 1:
        side = poly.vertices @ normal
    else:
        side = np.einsum("mkd,md->mk", poly.vertices, normal)
    side = side - np.reshape(offset, (-1, 1))
    side[np.abs(side) < ON_PLANE] = 0.0
    side_next = np.take_along_axis(side, following, axis=1)
    keep = valid & (side <= 0)
    cross = valid & (((side < 0) & (side_next > 0)) | ((side > 0) & (side_next < 0)))
    t = np.divide(side, side - side_next, out=np.zeros_like(side), where=cross)
    nxt = np.take_along_axis(poly.vertices, following[..., None], axis=1)
    crossing = poly.vertices + (nxt - poly.vertices) * t[..., None]
    emitted = np.stack([poly.vertices, crossing], axis=2).reshape(m, 2 * k_max, 3)
    ok = np.stack([keep, cross], axis=2).reshape(m, 2 * k_max)
    count = ok.sum(axis=1)
    if count.max(initial=0) > k_max:
        raise ValueError(f"a clipped polygon has more than {k_max} vertices")
    order = np.argsort(~ok, axis=1, kind="stable")[:, :k_max]
    return Polygons(np.take_along_axis(emitted, order[..., None], axis=1), count)


def polygon_moments(poly: Polygons) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each convex polygon's area vector [m, 3] (by its vertices' order), area [m] and
    centroid [m, 3] (the vertices' mean where the area vanishes), from a fan of triangles."""
    v = poly.vertices
    fan = np.cross(v[:, 1:-1] - v[:, :1], v[:, 2:] - v[:, :1])
    fan *= (np.arange(fan.shape[1])[None, :] + 2 < poly.count[:, None])[..., None]
    area_vector = 0.5 * fan.sum(axis=1)
    weight = 0.5 * np.linalg.norm(fan, axis=2)
    area = weight.sum(axis=1)
    corner_sum = (v[:, :1] + v[:, 1:-1] + v[:, 2:]) / 3
    weighted = (weight[..., None] * corner_sum).sum(axis=1)
    mean = (v * (np.arange(v.shape[1])[None, :] < poly.count[:, None])[..., None]).sum(axis=1)
    mean /= np.maximum(poly.count, 1)[:, None]
    centroid = np.where(area[:, None] > 0, weighted / np.maximum(area, 1e-300)[:, None], mean)
    return area_vector, area, centroid


def split_triangles(triangles: np.ndarray, max_edge: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """Triangles [n, 3, 3] halved across their longest edge (at its midpoint) until no edge is
    longer than max_edge; returns the pieces and the index of the triangle each came from. Long
    slivers become a row of pieces, not a fan of ever thinner ones."""
    parent = np.arange(len(triangles))
    done_tris, done_parent = [], []
    while len(triangles):
        edge = np.linalg.norm(np.roll(triangles, -1, axis=1) - triangles, axis=2)  # i -> i + 1
        small = edge.max(axis=1) <= max_edge
        done_tris.append(triangles[small])
        done_parent.append(parent[small])
        big, longest = triangles[~small], edge[~small].argmax(axis=1)
        rows = np.arange(len(big))
        a = big[rows, longest]
        b = big[rows, (longest + 1) % 3]
        c = big[rows, (longest + 2) % 3]
        middle = (a + b) / 2
        triangles = np.concatenate([np.stack([a, middle, c], 1), np.stack([middle, b, c], 1)])
        parent = np.tile(parent[~small], 2)
    return np.concatenate(done_tris), np.concatenate(done_parent)


def _clip_to_cells(pieces: np.ndarray, parent: np.ndarray) -> Surfels:
    """Each triangle of pieces [n, 3, 3] clipped against every cell its bounding box meets."""
    lo = np.floor(pieces.min(axis=1) - ON_PLANE).astype(np.int64)
    span = np.floor(pieces.max(axis=1) + ON_PLANE).astype(np.int64) - lo + 1
    n_cells = span.prod(axis=1)
    owner = np.repeat(np.arange(len(pieces)), n_cells)
    rank = np.arange(len(owner)) - np.repeat(np.cumsum(n_cells) - n_cells, n_cells)
    s = span[owner]
    offset = np.stack([rank % s[:, 0], (rank // s[:, 0]) % s[:, 1], rank // (s[:, 0] * s[:, 1])], 1)
    cell = lo[owner] + offset
    buffer = np.zeros((len(owner), MAX_VERTICES, 3))
    buffer[:, :3] = pieces[owner]
    poly = Polygons(buffer, np.full(len(owner), 3))
    for axis in range(3):
        unit = np.eye(3)[axis]
        poly = clip_half_space(poly, unit, cell[:, axis] + 1.0)
        poly = clip_half_space(poly, -unit, -cell[:, axis].astype(float))
    area_vector, area, centroid = polygon_moments(poly)
    on_lower_face = np.zeros(len(owner), bool)
    valid = np.arange(MAX_VERTICES)[None, :] < poly.count[:, None]
    for axis in range(3):
        off = np.abs(poly.vertices[..., axis] - cell[:, axis, None]) >= ON_PLANE
        on_lower_face |= ~(off & valid).any(axis=1)
    keep = (area > MIN_AREA) & ~on_lower_face
    return Surfels(
        cell=cell[keep],
        triangle=parent[owner[keep]],
        polygon=poly.take(keep),
        area_vector=area_vector[keep],
        centroid=centroid[keep],
    )


def cut_into_cells(
    triangles: np.ndarray, box_cells: tuple[int, int, int] | None = None, chunk: int = 10_000
) -> Surfels:
    """The surfels of triangles [n, 3, 3] [cells], counter-clockwise seen from outside; a
    triangle split for size gives one surfel per piece and cell (chunk: pieces clipped at once,
    which bounds the memory).

    With box_cells (nx, ny, nz) only the surface within CLIP_MARGIN cells of the box is cut, and
    the pieces wholly beyond that margin on the low-x side (a periodic mesh's end caps) are
    projected onto the plane x = -CLIP_MARGIN - 1/2 first: there they keep the one thing of
    theirs the box needs, the x component of their area vector per column
    (`solver.volumetric_geometry.solid_volume`)."""
    pieces, parent = split_triangles(np.asarray(triangles, dtype=np.float64))
    if box_cells is not None:
        lo, hi = pieces.min(axis=1), pieces.max(axis=1)
        size = np.asarray(box_cells, float)
        near = (hi[:, 1:] >= -CLIP_MARGIN).all(axis=1) & (lo[:, 1:] <= size[1:] + CLIP_MARGIN).all(
            axis=1
        )
        near &= lo[:, 0] <= size[0] + CLIP_MARGIN
        entry = near & (hi[:, 0] < -CLIP_MARGIN)
        pieces[entry, :, 0] = -CLIP_MARGIN - 0.5
        pieces, parent = pieces[near], parent[near]
    parts = [
        _clip_to_cells(pieces[i : i + chunk], parent[i : i + chunk])
        for i in range(0, len(pieces), chunk)
    ]
    return Surfels(
        cell=np.concatenate([p.cell for p in parts]),
        triangle=np.concatenate([p.triangle for p in parts]),
        polygon=Polygons(
            np.concatenate([p.polygon.vertices for p in parts]),
            np.concatenate([p.polygon.count for p in parts]),
        ),
        area_vector=np.concatenate([p.area_vector for p in parts]),
        centroid=np.concatenate([p.centroid for p in parts]),
    )

"""A cell's coplanar surfels merged into one: the projected wall's turned pieces
(`solver/volumetric_turn.py`) cost per surfel, and a flat face split for size leaves many pieces
of one plane in a cell (the Ahmed body at 64 cells per length: 38 surfels per cut cell). Their
integrals add, so where their union is one convex polygon that polygon stands for them exactly.

Lengths are in cells.
"""

from __future__ import annotations

import numpy as np

from solver.surfels import Polygons, Surfels, polygon_moments

#: Normals and plane offsets equal to this [cells] count as one plane.
PLANE_TOLERANCE = 1e-9
#: Most vertices a merged polygon may have: the turned pieces clip each surfel by up to four
#: more planes, within MAX_VERTICES (12).
MERGED_MAX_VERTICES = 8


def _hull_2d(points: np.ndarray) -> np.ndarray:
    """Indices of the convex hull of points [n, 2], counter-clockwise (Andrew's monotone chain),
    collinear points left out."""
    order = np.lexsort((points[:, 1], points[:, 0]))

    def chain(indices) -> list[int]:
        out: list[int] = []
        for i in indices:
            while len(out) >= 2:
                o, a = points[out[-2]], points[out[-1]]
                cross = (a[0] - o[0]) * (points[i][1] - o[1]) - (a[1] - o[1]) * (
                    points[i][0] - o[0]
                )
                if cross > 1e-12:
                    break
                out.pop()
            out.append(int(i))
        return out

    lower, upper = chain(order), chain(order[::-1])
    return np.array(lower[:-1] + upper[:-1])


def merge_coplanar(surfels: Surfels) -> Surfels:
    """The surfels with each cell's pieces of one plane replaced by their union where it is one
    convex polygon of at most MERGED_MAX_VERTICES vertices (its area equal to theirs to 1e-9);
    a merged surfel keeps its first piece's triangle. Other surfels are kept as they are."""
    area = surfels.area
    unit = surfels.area_vector / np.maximum(area, 1e-300)[:, None]
    offset = (unit * surfels.centroid).sum(axis=1)
    key = np.concatenate(
        [
            surfels.cell,
            np.round(unit / PLANE_TOLERANCE),
            np.round(offset / PLANE_TOLERANCE)[:, None],
        ],
        axis=1,
    )
    _, group, count = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    group = group.ravel()
    order = np.argsort(group, kind="stable")
    starts = np.concatenate([[0], np.cumsum(count)])
    keep = list(np.flatnonzero(count[group] == 1))
    vertices, counts, first = [], [], []
    for g in np.flatnonzero(count > 1):
        members = order[starts[g] : starts[g + 1]]
        n = unit[members[0]]
        e1 = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(n, e1)
        points = np.concatenate(
            [surfels.polygon.vertices[m, : surfels.polygon.count[m]] for m in members]
        )
        flat = np.stack([points @ e1, points @ e2], axis=1)
        hull = _hull_2d(flat)
        x, y = flat[hull, 0], flat[hull, 1]
        hull_area = 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)
        if len(hull) > MERGED_MAX_VERTICES or abs(hull_area - area[members].sum()) > 1e-9 * max(
            1.0, hull_area
        ):
            keep.extend(members)
            continue
        polygon = np.zeros((surfels.polygon.vertices.shape[1], 3))
        polygon[: len(hull)] = points[hull]
        vertices.append(polygon)
        counts.append(len(hull))
        first.append(members[0])
    kept = surfels.take(np.sort(np.array(keep, np.int64)))
    if not first:
        return kept
    merged = Polygons(np.array(vertices), np.array(counts))
    area_vector, _, centroid = polygon_moments(merged)
    first = np.array(first)
    return Surfels(
        cell=np.concatenate([kept.cell, surfels.cell[first]]),
        triangle=np.concatenate([kept.triangle, surfels.triangle[first]]),
        polygon=Polygons(
            np.concatenate([kept.polygon.vertices, merged.vertices]),
            np.concatenate([kept.polygon.count, merged.count]),
        ),
        area_vector=np.concatenate([kept.area_vector, area_vector]),
        centroid=np.concatenate([kept.centroid, centroid]),
    )

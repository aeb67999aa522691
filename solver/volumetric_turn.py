"""The turned pieces of the projected volumetric wall (docs/validation.md, "What the cut cells'
shift is"; after Hoefnagel, Casalino, Hulshoff & de Prenter 2025, arXiv:2509.05035): where an
exact bounce-back puts what each surfel's incoming prisms hold, and their moments.

A particle moving along c_q that reaches a surfel t of a step after it starts ends 1 - t of a
step from it, moving along -c_q: the prism s + t v (s in the surfel, v = -c_q, 0 <= t <= 1) is
turned over, (s, t) -> (s, 1 - t). Along each ray the source cell changes where t passes the
exit parameters d_a(s) (linear in s; `solver/volumetric_geometry.py`), the destination where
1 - t does, so the surfel is cut by the planes d_a = d_b, d = 1/2 and d_a + d_b = 1 into regions
where every end is a fixed linear function of s. There each piece's length along t is linear in
s, its first moment quadratic and its second cubic: `polygon_quadrature` integrates them exactly.

Lengths are in cells, cell (i, j, k) the unit cube from (i, j, k).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from solver.lattice import C
from solver.surfels import Polygons, Surfels, clip_half_space, polygon_moments
from solver.volumetric_moments import polygon_quadrature

#: |c . n| / |c| under which a link runs along a surfel: rounding of the mesh's coordinates
#: leaves about 1e-15 there, and the free slip's profile divides by c . n
#: (solver/volumetric_profile.py). The fluid volume's rounding rule is the same 1e-9
#: (solver/volumetric_geometry.py).
GRAZING = 1e-9


@dataclass(frozen=True)
class TurnedPieces:
    """What each surfel's incoming prisms hold, cut by the cells the particles come from and the
    cells an exact bounce-back turns them into, one row per (surfel, incoming link q, source
    cell, destination cell): volume [cells^3], first [3] and second [3, 3] moments about the
    source's fluid centroid, and the linear map of the source's mean m and slope s into the
    destination's first moment about its centroid, m P + Q s (P [3], Q [3, 3]). A particle t
    of a step from the surfel ends 1 - t from it, moving along -c_q (cells unwrapped)."""

    surfel: np.ndarray
    q: np.ndarray
    source: np.ndarray
    destination: np.ndarray
    volume: np.ndarray
    first: np.ndarray
    second: np.ndarray
    p: np.ndarray
    q_map: np.ndarray


def _exit(cells: np.ndarray, sweep: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """d_a(s) = g . s + h, where s + t sweep leaves the cell along axis a: the linear form of
    `solver/volumetric_geometry.py`'s exit parameter, for the regions' planes."""
    g = np.zeros((len(cells), 3))
    if sweep[axis] > 0:
        g[:, axis] = -1.0
        return g, cells[:, axis] + 1.0
    g[:, axis] = 1.0
    return g, -cells[:, axis].astype(float)


def _value(fn: tuple[np.ndarray, np.ndarray], points: np.ndarray) -> np.ndarray:
    g, h = fn
    return np.einsum("mkd,md->mk", points, g) + h[:, None]


def turned_pieces(
    surfels: Surfels, centroid_offset: Callable[[np.ndarray], np.ndarray]
) -> TurnedPieces:
    """The turned pieces of every surfel and incoming link; centroid_offset maps cells [n, 3]
    (unwrapped) to their fluid centroids' offsets from their centres [n, 3]."""
    rows: list[tuple] = []
    unit = surfels.area_vector / np.maximum(surfels.area, 1e-300)[:, None]
    for q in range(1, len(C)):
        c = C[q].astype(float)
        # a link along the surface (c . n = 0 up to rounding, a wall at 45 degrees) has no prism
        index = np.flatnonzero(unit @ c < -GRAZING * np.linalg.norm(c))
        if len(index) == 0:
            continue
        s = surfels.take(index)
        n = unit[index]
        cn = n @ c  # < 0
        sweep = -c
        cells = s.cell.astype(float)
        m = len(index)
        zero, one = (np.zeros((m, 3)), np.zeros(m)), (np.zeros((m, 3)), np.ones(m))
        axes = list(np.flatnonzero(sweep))
        sides = []  # (polygon, [(lo, hi, step)], exits)
        if len(axes) == 1:
            d = _exit(cells, sweep, axes[0])
            step = np.zeros(3, np.int64)
            step[axes[0]] = int(sweep[axes[0]])
            sides.append((s.polygon, [(zero, d, np.zeros(3, np.int64)), (d, one, step)], [d]))
        else:
            a, b = axes
            da, db = _exit(cells, sweep, a), _exit(cells, sweep, b)
            full = np.zeros(3, np.int64)
            full[[a, b]] = sweep[[a, b]].astype(np.int64)
            for first, d1, d2 in ((a, da, db), (b, db, da)):
                # where d1 <= d2: (g1 - g2) . s <= h2 - h1
                poly = clip_half_space(s.polygon, d1[0] - d2[0], d2[1] - d1[1])
                step = np.zeros(3, np.int64)
                step[first] = int(sweep[first])
                intervals = [(zero, d1, np.zeros(3, np.int64)), (d1, d2, step), (d2, one, full)]
                sides.append((poly, intervals, [d1, d2]))
        for poly, intervals, exits in sides:
            regions = [poly]
            # the orderings of the ends and the turned ends change where d = 1/2 and d1 + d2 = 1
            cuts = [(g, 0.5 - h) for g, h in exits]
            if len(exits) == 2:
                cuts.append((exits[0][0] + exits[1][0], 1.0 - exits[0][1] - exits[1][1]))
            for g, off in cuts:
                regions = [
                    part
                    for region in regions
                    for part in (clip_half_space(region, g, off), clip_half_space(region, -g, -off))
                ]
            for region in regions:
                alive = region.count >= 3
                if not alive.any():
                    continue
                rows += _region_rows(
                    region, intervals, s, index, n, cn, c, q, alive, centroid_offset
                )
    return _join(rows)


def _region_rows(
    region: Polygons,
    intervals: list,
    s: Surfels,
    index: np.ndarray,
    n: np.ndarray,
    cn: np.ndarray,
    c: np.ndarray,
    q: int,
    alive: np.ndarray,
    centroid_offset: Callable[[np.ndarray], np.ndarray],
) -> list[tuple]:
    """The rows of one region of the surfels' polygons, where every end's order is fixed."""
    live = np.flatnonzero(alive)
    poly = region.take(live)
    points, weights = polygon_quadrature(poly)
    _, _, centre = polygon_moments(poly)
    at_centre = centre[:, None, :]
    sweep = -c

    def take(fn):
        return fn[0][live], fn[1][live]

    def turned(fn):  # t -> 1 - t
        g, h = take(fn)
        return -g, 1.0 - h

    def pick(f1, f2, larger: bool):
        v1, v2 = _value(f1, at_centre)[:, 0], _value(f2, at_centre)[:, 0]
        use1 = v1 >= v2 if larger else v1 <= v2
        return np.where(use1[:, None], f1[0], f2[0]), np.where(use1, f1[1], f2[1])

    rows = []
    cell = s.cell[live]
    for lo_i, hi_i, step_i in intervals:
        for lo_j, hi_j, step_j in intervals:
            lo = pick(take(lo_i), turned(hi_j), larger=True)
            hi = pick(take(hi_i), turned(lo_j), larger=False)
            length_centre = _value(hi, at_centre)[:, 0] - _value(lo, at_centre)[:, 0]
            ok = length_centre > 1e-13
            if not ok.any():
                continue
            lo_v, hi_v = _value(lo, points)[ok], _value(hi, points)[ok]
            w = weights[ok] * np.abs(cn[live][ok])[:, None]
            source = cell[ok] + step_i
            destination = cell[ok] + step_j
            r_src = source + 0.5 + centroid_offset(source)
            r_dst = destination + 0.5 + centroid_offset(destination)
            u = points[ok] - r_src[:, None, :]
            length = hi_v - lo_v
            half_sq = (hi_v**2 - lo_v**2) / 2
            third_cu = (hi_v**3 - lo_v**3) / 3
            volume = (w * length).sum(axis=1)
            first = (w[..., None] * (length[..., None] * u + half_sq[..., None] * sweep)).sum(
                axis=1
            )
            uu = u[..., :, None] * u[..., None, :]
            uv = u[..., :, None] * sweep[None, None, None, :]
            vv = np.outer(sweep, sweep)
            second = (
                w[..., None, None]
                * (
                    length[..., None, None] * uu
                    + half_sq[..., None, None] * (uv + np.swapaxes(uv, -1, -2))
                    + third_cu[..., None, None] * vv
                )
            ).sum(axis=1)
            normal, c_n = n[live][ok], cn[live][ok]
            plane_point = s.centroid[live][ok]
            t_src = -np.einsum("md,md->m", r_src - plane_point, normal) / c_n
            shift = r_src + (2 * t_src - 1)[:, None] * c - r_dst
            flip = np.eye(3)[None] - 2 * c[None, :, None] * normal[:, None, :] / c_n[:, None, None]
            p = np.einsum("mab,mb->ma", flip, first) + volume[:, None] * shift
            q_map = np.einsum("mab,mbc->mac", flip, second) + shift[:, :, None] * first[:, None, :]
            rows.append(
                (
                    index[live][ok],
                    np.full(ok.sum(), q),
                    source,
                    destination,
                    volume,
                    first,
                    second,
                    p,
                    q_map,
                )
            )
    return rows


def _join(rows: list[tuple]) -> TurnedPieces:
    if not rows:
        empty = np.zeros((0,))
        return TurnedPieces(
            *(empty.astype(np.int64),) * 2,
            *(np.zeros((0, 3), np.int64),) * 2,
            empty,
            np.zeros((0, 3)),
            np.zeros((0, 3, 3)),
            np.zeros((0, 3)),
            np.zeros((0, 3, 3)),
        )
    return TurnedPieces(*(np.concatenate([r[k] for r in rows]) for k in range(9)))

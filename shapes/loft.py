"""Closed meshes lofted through cross-sections: rings of the same number of points at stations
along x, joined by quads split into triangles, with flat caps fanned from each end ring's centre.
The building block of the Ahmed body and the parametric car."""

from __future__ import annotations

import numpy as np

from shapes.mesh import TriangleMesh


def loft(stations_x_m: np.ndarray, rings_yz_m: np.ndarray) -> TriangleMesh:
    """stations_x_m [s] increasing; rings_yz_m [s, k, 2]: each station's section as k points
    (y, z) going round the section once, the same way at every station. Returns a closed,
    outward-oriented mesh. End rings must be star-shaped about their centroid (the caps are
    fans)."""
    s, k, _ = rings_yz_m.shape
    x = np.repeat(np.asarray(stations_x_m, float), k)
    vertices = np.column_stack([x, rings_yz_m.reshape(-1, 2)])
    i = np.arange(s - 1)[:, None]
    j = np.arange(k)[None, :]
    a = i * k + j
    b = i * k + (j + 1) % k
    c = (i + 1) * k + (j + 1) % k
    d = (i + 1) * k + j
    side = np.concatenate(
        [np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)]
    )
    front_centre = len(vertices)
    rear_centre = front_centre + 1
    centres = np.array(
        [
            [stations_x_m[0], *rings_yz_m[0].mean(axis=0)],
            [stations_x_m[-1], *rings_yz_m[-1].mean(axis=0)],
        ]
    )
    vertices = np.vstack([vertices, centres])
    ring = np.arange(k)
    front = np.stack([np.full(k, front_centre), (ring + 1) % k, ring], -1)
    rear = np.stack([np.full(k, rear_centre), (s - 1) * k + ring, (s - 1) * k + (ring + 1) % k], -1)
    mesh = TriangleMesh(vertices, np.concatenate([side, front, rear]))
    if mesh.volume_m3() < 0:
        mesh = TriangleMesh(vertices, mesh.faces[:, ::-1].copy())
    return mesh


def rectangle_ring(
    half_width_m: float, z_low_m: float, z_high_m: float, n_width: int, n_height: int
) -> np.ndarray:
    """k = 2 (n_width + n_height) points (y, z) round an axis-aligned rectangle, corners included,
    counter-clockwise seen from +x, starting at the lower right corner."""
    w, lo, hi = half_width_m, z_low_m, z_high_m
    t_w = np.linspace(0, 1, n_width, endpoint=False)
    t_h = np.linspace(0, 1, n_height, endpoint=False)
    right = np.column_stack([np.full(n_height, w), lo + (hi - lo) * t_h])
    top = np.column_stack([w - 2 * w * t_w, np.full(n_width, hi)])
    left = np.column_stack([np.full(n_height, -w), hi - (hi - lo) * t_h])
    bottom = np.column_stack([-w + 2 * w * t_w, np.full(n_width, lo)])
    return np.concatenate([right, top, left, bottom])

"""The wall geometry the wall model reads about the true surface (solver/wall_geometry.py):
normals, distances and areas of planes at any orientation and of a pipe's bore."""

from __future__ import annotations

import numpy as np

from solver import lattice
from solver.grid import body_neighbour_index, links_into_body
from solver.wall_geometry import slot_wall_geometry


def _geometry(phi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Body where phi < 0 (phi: the signed distance in cells, [z, y, x], linear along each link
    near the wall); returns the wall record, the slots' cells (z, y, x) and their links into
    the body."""
    from wall_step import link_fractions

    flags = np.zeros(phi.shape, np.uint8)
    body = phi < 0
    flags[body] = lattice.SOLID | lattice.BODY
    slot = body_neighbour_index(flags)
    cells = np.argwhere(slot >= 0)
    into = links_into_body(slot, body)
    wall = slot_wall_geometry(
        flags, slot, link_fractions(phi, cells, into), np.array([True, True, True])
    )
    return wall, cells, into


def test_a_plane_at_any_orientation_has_its_own_normal_distance_and_area():
    """A slab between two periodic planes x + 2y + 3z = const (a normal at no angle of the grid's
    symmetry): every cell's fitted normal is the plane's to round-off, its distance the exact one,
    and the areas add up to the planes' area, 2 sqrt(14) N^2 in a periodic box of N^3 cells."""
    n = 56
    z, y, x = np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij")
    k = np.array([1.0, 2.0, 3.0])
    s = (k[0] * x + k[1] * y + k[2] * z + 0.3183) % n  # 0 .. n along the normal, in units of 1/|k|
    # Signed distance to the nearer of the two planes s = 0 and s = n / 2, negative in the body
    # (0 < s < n / 2), in cells.
    phi = np.where(
        s < n / 2, -np.minimum(s, n / 2 - s), np.minimum(s - n / 2, n - s)
    ) / np.linalg.norm(k)
    wall, cells, into = _geometry(phi)
    has = into.any(axis=1)
    unit = k / np.linalg.norm(k)
    s_cell = s[cells[:, 0], cells[:, 1], cells[:, 2]]
    expected = np.where(
        ((s_cell > n / 2) & (s_cell < 3 * n / 4))[:, None], unit, -unit
    )  # out of the body
    assert np.abs(wall[has, :3] - expected[has]).max() < 1e-5
    assert np.abs(wall[has, 3] - phi[cells[has, 0], cells[has, 1], cells[has, 2]]).max() < 1e-5
    assert np.all(wall[~has] == 0.0)
    assert abs(wall[:, 4].sum() / (2 * np.sqrt(14.0) * n * n) - 1) < 1e-5
    assert not wall[:, 5].any()  # no sharp edge


def test_a_pipe_bore_has_radial_normals_and_its_circumference():
    """A bore of radius 7.3 cells along x: the normals point to the axis within 2 degrees on average
    and 6 at most, the
    distances are R - r within 0.06 cells, and the areas add up to 2 pi R L within 1% (0.991)."""
    n, radius = 24, 7.3
    z, y, x = np.meshgrid(np.arange(n), np.arange(n), np.arange(8), indexing="ij")
    r = np.hypot(y - 11.6, z - 12.1)
    wall, cells, into = _geometry(radius - r)
    has = into.any(axis=1)
    dy, dz = cells[has, 1] - 11.6, cells[has, 0] - 12.1
    r_cell = np.hypot(dy, dz)
    inward = -np.stack([np.zeros_like(dy), dy, dz], axis=1) / r_cell[:, None]
    angle = np.degrees(np.arccos(np.clip(np.sum(wall[has, :3] * inward, axis=1), -1, 1)))
    assert angle.mean() < 2.0 and angle.max() < 6.0  # 1.33 and 5.55 degrees as written
    assert np.abs(wall[has, 3] - (radius - r_cell)).max() < 0.06
    assert abs(wall[:, 4].sum() / (2 * np.pi * radius * 8) - 1) < 0.01
    assert not wall[:, 5].any()  # curved, but flat over the 27 cells: no sharp edge


def test_a_box_has_sharp_edges_along_its_edges_only():
    """A box of 10.4 x 10.2 x 10.6 cells: no cell over a face's interior (two cells or more from
    its edges) is marked as a sharp edge, and nearly every cell along an edge, half a cell to a cell
    from both faces' planes, is (194 of 216 as written; the others have three links, the fit of
    their 27 cells flat enough)."""
    n = 28
    z, y, x = np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij")
    centre, half = np.array([13.7, 13.4, 13.3]), np.array([5.2, 5.1, 5.3])
    outside = np.abs(np.stack([x, y, z], axis=-1) - centre) - half
    phi = np.linalg.norm(np.maximum(outside, 0), axis=-1) + np.minimum(outside.max(axis=-1), 0)
    wall, cells, into = _geometry(phi)
    has = into.any(axis=1)
    second_nearest_face = np.sort(np.abs(cells[:, ::-1] - centre) - half, axis=1)[:, 1]
    interior = has & (second_nearest_face <= -2.0)
    by_edge = has & (second_nearest_face > -1.0) & (second_nearest_face <= -0.5)
    assert interior.sum() > 100 and not wall[interior, 5].any()
    assert wall[by_edge, 5].sum() >= 0.85 * by_edge.sum()

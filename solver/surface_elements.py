"""Which part of the body's surface each fluid cell next to the body stands for.

Each step, every fluid cell next to the body (a slot of the kernels' boundary index) reports its
pressure and its viscous stress; multiplied by the area vector a_k of the surface around it and
summed, they give the pressure force -sum p_k a_k and the viscous force sum sigma_k a_k on the
body (cuda/lbm_cell.cuh). a_k is built once here from the surface mesh: each face's area vector
A n is shared among the slot cells around the point half a cell out from the face's centre, with
trilinear weights over those of the 8 cells around it that are slots (periodic axes wrap, as the
kernels stream). A face with none there goes to the nearest slot cell within two cells; one
farther (inside a wall the body stands on) is left out, and its share of the area is reported.
"""

from __future__ import annotations

import logging

import numpy as np
from scipy.spatial import cKDTree

from solver.config import CaseConfig
from solver.grid import Grid

log = logging.getLogger(__name__)

#: A face whose nearest slot cell is farther than this (in cells) stands for no fluid.
MAX_DISTANCE_CELLS = 2.0


def face_geometry(vertices_m: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centres [m], outward unit normals and areas [m^2] of the triangles."""
    a, b, c = (vertices_m[faces[:, i]] for i in range(3))
    cross = np.cross(b - a, c - a)
    area = 0.5 * np.linalg.norm(cross, axis=1)
    normal = cross / np.maximum(2 * area, 1e-300)[:, None]
    return (a + b + c) / 3, normal, area


def periodic_axes(case: CaseConfig) -> np.ndarray:
    """bool [3] (x, y, z): which axes the grid wraps."""
    faces = case.domain.boundaries
    return np.array([getattr(faces, f"{axis}_min") == "periodic" for axis in "xyz"])


def corner_weights(grid: Grid, periodic: np.ndarray, points_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 8 cells around each point and their trilinear weights: indices [n, 8, 3] as (x, y, z)
    (wrapped on periodic axes, -1 outside the grid elsewhere) and weights [n, 8]."""
    first = np.array([grid.centers(a)[0] for a in range(3)])
    shape = np.array([grid.nx, grid.ny, grid.nz])
    f = (points_m - first) / grid.dx_m
    base = np.floor(f).astype(np.int64)
    t = f - base
    corners = np.array(list(np.ndindex(2, 2, 2)))            # [8, 3]
    idx = base[:, None, :] + corners[None]                     # [n, 8, 3]
    idx = np.where(periodic, idx % shape, idx)
    outside = np.any((idx < 0) | (idx >= shape), axis=2)
    idx[outside] = -1
    weights = np.prod(np.where(corners[None] == 1, t[:, None, :], 1 - t[:, None, :]), axis=2)
    weights[outside] = 0.0
    return idx, weights


def slot_surface_elements(grid: Grid, case: CaseConfig, slot: np.ndarray, vertices_m: np.ndarray,
                          faces: np.ndarray) -> tuple[np.ndarray, float]:
    """Area vectors a_k [n_slots, 3] in lattice units (m^2 / dx^2), and the share of the surface's
    area no slot stands for."""
    n_slots = int(slot.max()) + 1
    centres, normals, areas = face_geometry(np.asarray(vertices_m, float), np.asarray(faces))
    idx, weights = corner_weights(grid, periodic_axes(case), centres + 0.5 * grid.dx_m * normals)
    inside = idx[..., 0] >= 0
    corner_slot = np.where(inside, slot[idx[..., 2], idx[..., 1], idx[..., 0]], -1)
    weights = np.where(corner_slot >= 0, weights, 0.0)
    total = weights.sum(axis=1)
    found = total > 1e-9
    share = np.where(found[:, None], weights / np.where(found, total, 1.0)[:, None], 0.0)
    vectors = areas[:, None] * normals / grid.dx_m**2
    area = np.zeros((n_slots, 3))
    np.add.at(area, corner_slot[share > 0], (share[..., None] * vectors[:, None, :])[share > 0])
    missed_area = 0.0
    lost = np.flatnonzero(~found)
    if lost.size and n_slots:
        cells = np.argwhere(slot >= 0)                          # (z, y, x), slot order
        centres_slot = np.stack([grid.centers(a)[cells[:, 2 - a]] for a in range(3)], axis=1)
        distance, nearest = cKDTree(centres_slot).query(centres[lost])
        near = distance <= MAX_DISTANCE_CELLS * grid.dx_m
        np.add.at(area, nearest[near], vectors[lost[near]])
        missed_area = float(areas[lost[~near]].sum())
    missed = missed_area / float(areas.sum())
    if missed > 1e-3:
        log.info("%.1f%% of the body's surface lies more than %g cells from any fluid cell (inside a "
                 "wall it stands on): it carries no pressure or viscous force", 100 * missed,
                 MAX_DISTANCE_CELLS)
    return area.astype(np.float32), missed

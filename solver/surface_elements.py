"""Which part of the body's surface each reporting cell near the body stands for.

Each step, every fluid cell within two links of the body (a slot of the kernels' boundary
index) reports its pressure and its viscous stress; multiplied by an area vector a_k and summed,
they give the pressure force -sum p_k a_k and the viscous force sum sigma_k a_k on the body
(cuda/lbm_cell.cuh). a_k is built once here from the surface mesh, so that the sum is the
surface integral of the fields extrapolated to the wall, as the Cp sampler does
(solver/surface.py): for each face, the fields at the points 0.5 and 1.5 cells out from its
centre along its normal, each trilinear over those of the 8 cells around it that report,
extrapolated linearly to the face from the two samples' distances (corners inside the body
are left out, which moves the near sample outwards), times the face's area vector A n. Sampling the
first cells
alone, half a cell or more from the wall, lost 10-20% of both parts on curved bodies (the Stokes
sphere: pressure 0.27 and friction 0.54 of the drag against 1/3 and 2/3). Where the far point
finds no reporting cell the near one is used alone; where the near one finds none, the face goes
to the nearest first-layer cell within two cells; a face farther (inside a wall the body stands
on) is left out and its share of the area reported. Periodic axes wrap, as the kernels stream.
Faces outside the domain's box (the far half of a car cut by a symmetry plane), and the end caps
of a body that spans a periodic axis (a cylinder through a 2D slab), are not part of the surface
this domain holds and are left out without a report.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from solver.boundary_conditions import boundary_conditions
from solver.config import CaseConfig
from solver.grid import Grid, body_neighbour_index

log = logging.getLogger(__name__)

#: A face whose nearest slot cell is farther than this (in cells) stands for no fluid.
MAX_DISTANCE_CELLS = 2.0


def face_geometry(
    vertices_m: np.ndarray, faces: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centres [m], outward unit normals and areas [m^2] of the triangles."""
    a, b, c = (vertices_m[faces[:, i]] for i in range(3))
    cross = np.cross(b - a, c - a)
    area = 0.5 * np.linalg.norm(cross, axis=1)
    normal = cross / np.maximum(2 * area, 1e-300)[:, None]
    return (a + b + c) / 3, normal, area


def periodic_axes(case: CaseConfig) -> np.ndarray:
    """bool [3] (x, y, z): which axes the grid wraps."""
    return boundary_conditions(case).periodic_axes()


def corner_weights(
    grid: Grid, periodic: np.ndarray, points_m: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The 8 cells around each point and their trilinear weights: indices [n, 8, 3] as (x, y, z)
    (wrapped on periodic axes, -1 outside the grid elsewhere) and weights [n, 8]."""
    first = np.array([grid.centers(a)[0] for a in range(3)])
    shape = np.array([grid.nx, grid.ny, grid.nz])
    f = (points_m - first) / grid.dx_m
    base = np.floor(f).astype(np.int64)
    t = f - base
    corners = np.array(list(np.ndindex(2, 2, 2)))  # [8, 3]
    idx = base[:, None, :] + corners[None]  # [n, 8, 3]
    idx = np.where(periodic, idx % shape, idx)
    outside = np.any((idx < 0) | (idx >= shape), axis=2)
    idx[outside] = -1
    weights = np.prod(np.where(corners[None] == 1, t[:, None, :], 1 - t[:, None, :]), axis=2)
    weights[outside] = 0.0
    return idx, weights


def periodic_cut(
    grid: Grid,
    periodic: np.ndarray,
    lo_m: np.ndarray,
    hi_m: np.ndarray,
    centres_m: np.ndarray,
    normals: np.ndarray,
) -> np.ndarray:
    """bool [n]: faces that lie on a periodic face of the domain, facing along its axis: the end
    caps of a body that spans a periodic axis (a cylinder through a 2D slab). The body continues
    through them into its periodic image, so they are not surface."""
    on_face = (np.abs(centres_m - lo_m) < 1e-3 * grid.dx_m) | (
        np.abs(centres_m - hi_m) < 1e-3 * grid.dx_m
    )
    return np.any(periodic & on_face & (np.abs(normals) > 0.99), axis=1)


def _sample(
    grid: Grid,
    periodic: np.ndarray,
    slot: np.ndarray,
    points_m: np.ndarray,
    centres_m: np.ndarray,
    normals: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Slots [n, 8] of the reporting cells around each point (-1 for others), their trilinear
    weights renormalised over those cells [n, 8] (all zero where none reports), and the
    distance [n] of that weighted sample from the face along its normal [m] (the cells left out
    move it: inside the body the near point's corners are not fluid)."""
    idx, weights = corner_weights(grid, periodic, points_m)
    inside = idx[..., 0] >= 0
    corner_slot = np.where(inside, slot[idx[..., 2], idx[..., 1], idx[..., 0]], -1)
    weights = np.where(corner_slot >= 0, weights, 0.0)
    total = weights.sum(axis=1, keepdims=True)
    weights = np.where(total > 1e-9, weights / np.maximum(total, 1e-300), 0.0)
    corner_m = np.stack([grid.centers(a)[np.maximum(idx[..., a], 0)] for a in range(3)], axis=-1)
    offset = corner_m - centres_m[:, None, :]
    if periodic.any():  # the nearest image of a wrapped corner
        box = np.array([grid.nx, grid.ny, grid.nz]) * grid.dx_m
        offset = np.where(periodic, offset - box * np.round(offset / box), offset)
    distance = np.sum(weights * np.einsum("nka,na->nk", offset, normals), axis=1)
    return corner_slot, weights, distance


@dataclass(frozen=True)
class SlotSurface:
    """What each slot stands for: its area vector a_k [n_slots, 3] in lattice units (m^2 / dx^2);
    the same split by where it comes from, as entries e with a_k = sum of the a_e of its entries:
    slot [e], the mesh's named part of the faces [e], the grid column x index of the faces'
    centres [e], and a_e [e, 3] (solver/drag_breakdown.py); and the share of the surface's area
    no reporting cell stands for."""

    area: np.ndarray
    entry_slot: np.ndarray
    entry_part: np.ndarray
    entry_column: np.ndarray
    entry_area: np.ndarray
    missed: float


def slot_surface_elements(
    grid: Grid,
    case: CaseConfig,
    flags: np.ndarray,
    slot: np.ndarray,
    vertices_m: np.ndarray,
    faces: np.ndarray,
    face_part: np.ndarray | None = None,
) -> SlotSurface:
    """The slots' area vectors from the surface mesh, and their entries by part (face_part
    [m]: each face's part index; none: one part, 0) and grid column."""
    n_slots = int(slot.max()) + 1
    centres, normals, areas = face_geometry(np.asarray(vertices_m, float), np.asarray(faces))
    part = np.zeros(len(areas), np.int64) if face_part is None else np.asarray(face_part, np.int64)
    periodic = periodic_axes(case)
    lo = np.asarray(case.domain.origin_m, float)
    hi = lo + np.asarray(case.domain.size_m, float)
    in_domain = np.all(periodic | ((centres >= lo) & (centres <= hi)), axis=1) & ~periodic_cut(
        grid, periodic, lo, hi, centres, normals
    )
    centres, normals, areas, part = (
        centres[in_domain],
        normals[in_domain],
        areas[in_domain],
        part[in_domain],
    )
    near_slot, near_w, near_d = _sample(
        grid, periodic, slot, centres + 0.5 * grid.dx_m * normals, centres, normals
    )
    far_slot, far_w, far_d = _sample(
        grid, periodic, slot, centres + 1.5 * grid.dx_m * normals, centres, normals
    )
    found = near_w.sum(axis=1) > 0
    # Linear extrapolation to the face from the two samples' actual distances.
    spread = far_d - near_d
    extrapolate = found & (far_w.sum(axis=1) > 0) & (spread > 0.25 * grid.dx_m)
    safe = np.where(extrapolate, spread, 1.0)
    near_w = near_w * np.where(extrapolate, far_d / safe, 1.0)[:, None]
    far_w = far_w * np.where(extrapolate, -near_d / safe, 0.0)[:, None]
    vectors = areas[:, None] * normals / grid.dx_m**2
    column = np.clip(
        np.floor((centres[:, 0] - grid.centers(0)[0]) / grid.dx_m + 0.5), 0, grid.nx - 1
    ).astype(np.int64)
    key_slot, key_face, key_vector = [], [], []
    for corner_slot, weights in ((near_slot, near_w), (far_slot, far_w)):
        used = weights != 0
        key_slot.append(corner_slot[used])
        key_face.append(np.broadcast_to(np.arange(len(areas))[:, None], used.shape)[used])
        key_vector.append((weights[..., None] * vectors[:, None, :])[used])
    missed_area = 0.0
    lost = np.flatnonzero(~found)
    if lost.size and n_slots:
        cells = np.argwhere(body_neighbour_index(flags, layers=1) >= 0)  # (z, y, x)
        centres_slot = np.stack([grid.centers(a)[cells[:, 2 - a]] for a in range(3)], axis=1)
        distance, nearest = cKDTree(centres_slot).query(centres[lost])
        near = distance <= MAX_DISTANCE_CELLS * grid.dx_m
        target = slot[cells[nearest[near], 0], cells[nearest[near], 1], cells[nearest[near], 2]]
        key_slot.append(target)
        key_face.append(lost[near])
        key_vector.append(vectors[lost[near]])
        missed_area = float(areas[lost[~near]].sum())
    missed = missed_area / float(areas.sum())
    if missed > 1e-3:
        log.info(
            "%.1f%% of the body's surface lies more than %g cells from any fluid cell (inside a "
            "wall it stands on): it carries no pressure or viscous force",
            100 * missed,
            MAX_DISTANCE_CELLS,
        )
    slots, face = np.concatenate(key_slot), np.concatenate(key_face)
    vector = np.concatenate(key_vector) if key_vector else np.zeros((0, 3))
    area = np.zeros((n_slots, 3))
    np.add.at(area, slots, vector)
    # One entry per (slot, part, column): each slot's area by where its faces lie.
    keys = np.stack([slots, part[face], column[face]], axis=1)
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    entry_area = np.zeros((len(unique), 3))
    np.add.at(entry_area, inverse.ravel(), vector)
    return SlotSurface(
        area.astype(np.float32),
        unique[:, 0],
        unique[:, 1].astype(np.int32),
        unique[:, 2].astype(np.int32),
        entry_area,
        missed,
    )

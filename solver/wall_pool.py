"""The patches of wall over which the surface rule's exchange is pooled (cuda/lbm_wall_pool.cuh).

Each cell with links into the body (a slot whose wall record marks links, slot_wall[:, 4] > 0)
shares what its links take tangentially beyond the modelled stress, and the mass they bring,
with the linked cells within
radius_cells of it (cell centres, the grid's periodic axes wrapped) whose fitted normals lie
within 37 degrees of its own (one face of a body with sharp edges). Slot j's residual goes to
the slots i of its patch with weights W_ij = 1 / (number of slots in j's patch), so each slot's
residuals are handed back in full, spread evenly over the patch round it: the body's tangential
force is then the modelled stress, mass is kept, and the staircase's pieces stay near where
they arose. The kernel gathers row by row: slot i's correction is sum_j W_ij r_j, so the rows
(compressed sparse rows over all slots) list, for each slot i, the j whose patch holds i.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

# the least cosine between the fitted normals of two cells that share a patch: 37 degrees (a
# curved wall's normals turn by 17 degrees over 3 cells at 10 cells of radius)
MIN_NORMAL_COSINE = 0.8


@dataclass(frozen=True)
class WallPool:
    """Compressed rows of the pooling weights over the slots: slot i gathers from
    slot[start[i]:start[i + 1]] with weight[...]; cell[k] is slot k's cell index."""

    cell: np.ndarray  # int64 [n_slots]
    start: np.ndarray  # int32 [n_slots + 1]
    slot: np.ndarray  # int32 [entries]
    weight: np.ndarray  # float32 [entries]

    @property
    def n_slots(self) -> int:
        """Slots the kernel visits (all of them; a slot without links has an empty row)."""
        return len(self.cell)


def no_pool() -> WallPool:
    """No pooling: the kernel visits no slot."""
    return WallPool(
        cell=np.zeros(0, np.int64),
        start=np.zeros(1, np.int32),
        slot=np.zeros(0, np.int32),
        weight=np.zeros(0, np.float32),
    )


def wall_pool(
    slot_host: np.ndarray,
    slot_wall: np.ndarray,
    periodic: np.ndarray,
    radius_cells: float,
) -> WallPool:
    """The patches of radius radius_cells (cells) round each linked slot. slot_host: [z, y, x]
    slot index of each cell or -1; slot_wall: [n_slots, 6] (wall[:, 4] > 0 marks links into the
    body); periodic: bool [3] (x, y, z)."""
    n_slots = len(slot_wall)
    cells_zyx = np.argwhere(slot_host >= 0)
    order = slot_host[tuple(cells_zyx.T)]
    position = np.zeros((n_slots, 3))
    position[order] = cells_zyx[:, ::-1] + 0.5  # (x, y, z) in cells
    nz, ny, nx = slot_host.shape
    cell = np.zeros(n_slots, np.int64)
    cell[order] = np.ravel_multi_index(tuple(cells_zyx.T), slot_host.shape)
    linked = np.nonzero(slot_wall[:, 4] > 0)[0]
    if radius_cells <= 0 or len(linked) == 0:
        return no_pool()
    size = np.array([nx, ny, nz], float)
    # cKDTree wraps an axis given its box size; the others get a size no distance reaches
    box = np.where(periodic, size, size + 4 * radius_cells + 4)
    tree = cKDTree(np.mod(position[linked], box), boxsize=box)
    near = tree.query_ball_point(np.mod(position[linked], box), r=radius_cells + 1e-6)
    normal = slot_wall[linked, :3]
    # one face of the body: across a sharp edge the residual, tangential to one face, would be
    # momentum into or out of the other
    patches = [
        [i for i in patch if normal[i] @ normal[j] >= MIN_NORMAL_COSINE]
        for j, patch in enumerate(near)
    ]
    sizes = np.array([len(patch) for patch in patches])
    members = linked[np.concatenate(patches).astype(np.int64)]  # slot i of each (i, j) entry
    sources = np.repeat(linked, sizes)  # its j: the slot whose patch holds i
    order = np.argsort(members, kind="stable")
    start = np.zeros(n_slots + 1, np.int64)
    start[1:] = np.cumsum(np.bincount(members, minlength=n_slots))
    slot = sources[order].astype(np.int32)
    weight = (1.0 / np.repeat(sizes, sizes))[order].astype(np.float32)
    return WallPool(cell=cell, start=start.astype(np.int32), slot=slot, weight=weight)

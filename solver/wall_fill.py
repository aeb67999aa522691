"""Which fluid cells pull every link plainly, and what the walls are filled with before each step
so that the cells next to them do.

A bulk cell (FLAG_BULK) pulls its 18 links from their source cells as they stand: the kernels'
vector loop takes it, where a cell next to a wall would take the general pull cell by cell
(cuda/lbm_cell.cuh). A wall counts as plain when its populations are filled before each step with
what its fluid neighbours take from it: free-slip walls (freeslip_fill, lbm_fill_freeslip in
cuda/lbm_boundaries.cuh) and the no-slip and moving walls that are not the body (wall_fill_cells,
lbm_fill_wall_links in cuda/lbm_cell.cuh). Arrays are indexed [z, y, x], flat index
n = x + nx (y + ny z), periodic wrap along every axis (a wall layer stops it where there is one).
"""

from __future__ import annotations

import numpy as np

from solver import lattice
from solver.lattice import (
    BODY,
    BULK,
    FLUID,
    FREESLIP,
    GHOST,
    INLET,
    MOVING,
    OUTFLOW,
    SOLID,
    TYPE_MASK,
)


def streams_plainly(types: np.ndarray) -> np.ndarray:
    """Cells (by type, flags & TYPE_MASK) whose populations stream as they stand, as
    lbm_streams_plainly in cuda/lbm_boundaries.cuh: fluid, inlet, outflow and ghost cells."""
    return (types == FLUID) | (types == INLET) | (types == OUTFLOW) | (types == GHOST)


def tunnel_walls(flags: np.ndarray) -> np.ndarray:
    """The no-slip and moving walls that are not the body (the tunnel's walls and the road)."""
    types = flags & TYPE_MASK
    return ((types == SOLID) | (types == MOVING)) & ((flags & BODY) == 0)


def filled_walls(flags: np.ndarray) -> np.ndarray:
    """Wall cells whose populations are filled before each step with what their fluid neighbours
    take from them, so that those neighbours pull them plainly: free-slip walls
    (lbm_fill_freeslip in cuda/lbm_boundaries.cuh), and the tunnel walls (lbm_fill_wall_links in
    cuda/lbm_cell.cuh)."""
    return ((flags & TYPE_MASK) == FREESLIP) | tunnel_walls(flags)


def mark_bulk(flags: np.ndarray) -> None:
    """Set FLAG_BULK on fluid cells whose 18 neighbours (periodic wrap) all stream plainly (fluid,
    inlet, outflow and ghost cells) or are filled walls (filled_walls). A caller that takes
    FLAG_BULK off a cell afterwards (a cell that reports for the body) leaves it to the general
    pull, which applies the same wall rules itself."""
    types = flags & TYPE_MASK
    plain = streams_plainly(types) | filled_walls(flags)
    bulk = types == FLUID
    for cx, cy, cz in lattice.C[1:]:
        bulk &= np.roll(plain, shift=(int(cz), int(cy), int(cx)), axis=(0, 1, 2))
    flags[bulk] |= BULK


def freeslip_fill(flags: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What lbm_fill_freeslip copies before each step (cuda/lbm_boundaries.cuh): for each link q
    from a free-slip wall cell w into a fluid cell x = w + c_q (periodic wrap), the population x
    takes from w, the specular reflection. The components of c_q whose axis neighbour of x,
    x - c_k e_k, is a free-slip wall flip, and the mirrored population q' comes from the cell
    x - c_q with those components undone (it left that cell towards the wall); where none flips,
    or the cell x - c_q' does not stream plainly (a corner), x's own population leaving along
    -c_q bounces back. Returns int64 arrays (q, w, q', source cell), cells as flat indices."""
    types = flags & TYPE_MASK
    shape = np.array(flags.shape)  # z, y, x
    plain = streams_plainly(types)
    walls = np.argwhere(types == FREESLIP)
    link_of = np.zeros(27, np.int64)  # the link of each c, by (cz + 1) 9 + (cy + 1) 3 + cx + 1
    link_of[(lattice.C[:, ::-1] + 1) @ np.array([9, 3, 1])] = np.arange(lattice.Q)
    parts = []
    for q in range(1, lattice.Q):
        c_zyx = lattice.C[q][::-1]
        x = (walls + c_zyx) % shape
        into_fluid = types[tuple(x.T)] == FLUID
        w, x = walls[into_fluid], x[into_fluid]
        mirror = np.tile(c_zyx, (len(x), 1))
        source = (x - c_zyx) % shape
        for axis in range(3):
            if c_zyx[axis] == 0:
                continue
            step = np.zeros(3, np.int64)
            step[axis] = c_zyx[axis]
            flip = types[tuple(((x - step) % shape).T)] == FREESLIP
            mirror[flip, axis] = -c_zyx[axis]
            source[flip, axis] = x[flip, axis]
        flipped = np.any(mirror != c_zyx, axis=1)
        mirrored = flipped & plain[tuple(((x - mirror) % shape).T)]
        q_mirror = link_of[(mirror + 1) @ np.array([9, 3, 1])]
        parts.append(
            (
                np.full(len(w), q, np.int64),
                np.ravel_multi_index(tuple(w.T), flags.shape),
                np.where(mirrored, q_mirror, lattice.OPP[q]),
                np.where(
                    mirrored,
                    np.ravel_multi_index(tuple(source.T), flags.shape),
                    np.ravel_multi_index(tuple(x.T), flags.shape),
                ),
            )
        )
    return tuple(np.concatenate([p[i] for p in parts]).astype(np.int64) for i in range(4))


def wall_fill_cells(flags: np.ndarray) -> np.ndarray:
    """Flat indices (int64, ascending) of the bulk cells next to a no-slip or moving wall that is
    not the body, whose links from it lbm_fill_wall_links writes into that wall before each step."""
    walls = tunnel_walls(flags)
    near = np.zeros(flags.shape, bool)
    for cx, cy, cz in lattice.C[1:]:
        near |= np.roll(walls, shift=(int(cz), int(cy), int(cx)), axis=(0, 1, 2))
    return np.flatnonzero(near & ((flags & BULK) != 0)).astype(np.int64)


def wall_fill_faces(flags: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """int32 per cell of `cells` (wall_fill_cells): where its only wall is one plane across a face,
    the face's link (1 .. 6 for +x, -x, +y, -y, +z, -z: the link whose source is the wall straight
    across), plus 6 for the moving road, for lbm_fill_plane_wall; 0 where the cell takes the general
    lbm_fill_wall_links (an edge or corner, a moving wall across an x face). A plane: exactly one
    of the six axis neighbours is a wall (no-slip or moving, not the body), the five links with its
    component come from walls of that kind, and no other link comes from such a wall."""
    moving_wall = (flags & TYPE_MASK) == MOVING
    kind = np.where(tunnel_walls(flags), np.where(moving_wall, 2, 1), 0)  # 1 resting, 2 moving
    zyx = np.array(np.unravel_index(cells, flags.shape)).T
    shape = np.array(flags.shape)
    source_kind = np.stack(
        [kind[tuple(((zyx - c[::-1]) % shape).T)] for c in lattice.C[1:]], axis=1
    )  # [cells, 18]: the kind of wall each link comes from, 0 for none
    faces = np.zeros(len(cells), np.int32)
    n_axis_walls = (source_kind[:, :6] > 0).sum(axis=1)
    for q_face in range(1, 7):
        axis = (q_face - 1) // 2
        side = lattice.C[q_face][axis]
        member = lattice.C[1:, axis] == side
        wall = source_kind[:, q_face - 1]
        plane = (
            (n_axis_walls == 1)
            & (wall > 0)
            & np.all(source_kind[:, member] == wall[:, None], axis=1)
            & np.all(source_kind[:, ~member] == 0, axis=1)
        )
        moving = wall == 2
        plane &= ~moving | (axis > 0)
        faces[plane] = q_face + 6 * moving[plane]
    return faces

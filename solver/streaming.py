"""In-place streaming (`resolution.streaming: aa`): one population buffer instead of two, the
layouts of its two parities, the cells and copies its step needs besides the bulk, and what it
does not run (refinement levels, the pooling).

The kernels (`lbm_update_bulk_cell_in_place` in cuda/lbm_cell.cuh, after the AA pattern of
Bailey et al. 2009) alternate two layouts of the post-collision populations post(q, y) of the
cells y:

- parity 0, *swapped*: post(q, y) in plane opp(q) at y;
- parity 1, *pushed*: post(q, y) in plane q at y + c_q (periodic wrap).

The two-buffer pull (`ab`) keeps post(q, y) in plane q at y: the *canonical* layout. The
simulation hands populations out and takes them in the canonical layout in either mode, so a
checkpoint written in one mode resumes in the other, bit for bit, and needs no parity of its own.
Arrays are the planes of one buffer, [19 * plane_stride], the first n_cells of each plane a grid
[z, y, x]; `xp` is numpy or cupy, whichever holds the buffer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from solver import lattice
from solver.errors import ConfigError
from solver.lattice import BULK, FLUID, GHOST, INLET, OUTFLOW, TYPE_MASK
from solver.wall_fill import freeslip_fill


def _planes(buffer: Any, shape_zyx: tuple[int, int, int], plane_stride: int) -> list[Any]:
    """Views of the 19 planes' grids, [z, y, x] each."""
    n = int(np.prod(shape_zyx))
    return [
        buffer[q * plane_stride : q * plane_stride + n].reshape(shape_zyx) for q in range(lattice.Q)
    ]


def swap_pairs(buffer: Any, shape_zyx: tuple[int, int, int], plane_stride: int) -> None:
    """Exchange the planes of each pair of opposite links, in place: the canonical layout to the
    swapped one and back."""
    planes = _planes(buffer, shape_zyx, plane_stride)
    for q in range(1, lattice.Q, 2):
        kept = planes[q].copy()
        planes[q][...] = planes[q + 1]
        planes[q + 1][...] = kept


def pushed_to_canonical(
    buffer: Any, shape_zyx: tuple[int, int, int], plane_stride: int, xp: Any
) -> None:
    """The pushed layout (post(q, y) in plane q at y + c_q) to the canonical one, in place: each
    plane rolled back by its link's vector."""
    for q, plane in enumerate(_planes(buffer, shape_zyx, plane_stride)):
        cx, cy, cz = (int(c) for c in lattice.C[q])
        if cx or cy or cz:
            plane[...] = xp.roll(plane, (-cz, -cy, -cx), axis=(0, 1, 2))


def to_canonical(
    buffer: Any, parity: int, shape_zyx: tuple[int, int, int], plane_stride: int, xp: Any
) -> None:
    """A buffer of in-place streaming at the given parity to the canonical layout, in place."""
    if parity == 0:
        swap_pairs(buffer, shape_zyx, plane_stride)
    else:
        pushed_to_canonical(buffer, shape_zyx, plane_stride, xp)


def general_cells(flags: np.ndarray) -> np.ndarray:
    """Flat indices (int64, ascending) of the cells the general pull takes (cuda/lbm_cell.cuh,
    lbm_general_cell_aside): fluid cells that are not bulk (next to the body), inlets and
    outflows."""
    types = flags & TYPE_MASK
    general = ((types == FLUID) & ((flags & BULK) == 0)) | (types == INLET) | (types == OUTFLOW)
    return np.flatnonzero(general).astype(np.int64)


def freeslip_copies(
    flags: np.ndarray, plane_stride: int
) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """The free-slip walls' copies (solver/wall_fill.py, freeslip_fill) as population indices for
    each parity of in-place streaming: {parity: (dst, src)}. Link q of fluid cell x = w + c_q
    from wall w goes where the step reads it (plane opp(q) at w before a pushing step, plane q at
    x before a local one), and the mirrored population post(q', s) comes from where the layout
    keeps it (plane opp(q') at s, or plane q' at s + c_q')."""
    q, w, q_src, cell_src = freeslip_fill(flags)
    shape = np.array(flags.shape)  # z, y, x

    def shifted(cells: np.ndarray, links: np.ndarray) -> np.ndarray:
        zyx = np.stack(np.unravel_index(cells, flags.shape), axis=1)
        return np.ravel_multi_index(
            tuple(((zyx + lattice.C[links][:, ::-1]) % shape).T), flags.shape
        )

    return {
        0: (lattice.OPP[q] * plane_stride + w, lattice.OPP[q_src] * plane_stride + cell_src),
        1: (q * plane_stride + shifted(w, q), q_src * plane_stride + shifted(cell_src, q_src)),
    }


def check_in_place_grid(flags: np.ndarray, pool_cells: float) -> None:
    """Refuse, with one line naming resolution.streaming, what in-place streaming does not run:
    refinement ghosts (their coupling reads two buffers) and the surface rule's pooling
    (walls.pool_cells, which changes the populations after the step in the two-buffer layout)."""
    ghosts = int(np.count_nonzero((flags & TYPE_MASK) == GHOST))
    if ghosts or pool_cells > 0:
        raise ConfigError(
            "resolution.streaming=aa runs neither refinement levels nor walls.pool_cells > 0 "
            f"(this grid has {ghosts} ghost cells, walls.pool_cells = {pool_cells:g}): set "
            "resolution.streaming=ab"
        )
